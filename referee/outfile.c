/* Output files (outfile.h). */
#include "outfile.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

struct ref_out {
    FILE *f;
    unsigned flags;
    bool stream;     /* the standard output: flushed, never renamed */
    char *path;      /* destination as given */
    char *tmp;       /* the temporary file beside it */
    char *label;     /* for messages: "LABEL 'PATH': why" */
};

const char *ref_out_kind(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0 || S_ISREG(sb.st_mode))
        return NULL;
    if (S_ISDIR(sb.st_mode))
        return "a directory";
    if (S_ISFIFO(sb.st_mode))
        return "a FIFO";
    if (S_ISCHR(sb.st_mode))
        return "a character device";
    if (S_ISBLK(sb.st_mode))
        return "a block device";
    if (S_ISSOCK(sb.st_mode))
        return "a socket";
    if (S_ISLNK(sb.st_mode))
        return "a symbolic link";
    return "not a regular file";
}

/* The directory part of path ("." for a bare name) into buf. */
static void dir_of(const char *path, char *buf, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, cap, ".");
    else if (slash == path)
        snprintf(buf, cap, "/");
    else
        snprintf(buf, cap, "%.*s", (int)(slash - path), path);
}

int ref_out_check(const char *label, const char *path, unsigned flags, char *err, size_t cap)
{
    const char *l = label ? label : "cannot write";
    if (!path || !*path) {
        snprintf(err, cap, "%s: no file named", l);
        return JA_EINVAL;
    }
    if (strcmp(path, "-") == 0) {
        if (flags & REF_OUT_STDOUT)
            return JA_OK;
        snprintf(err, cap, "%s '-': the standard output is not possible here; name a file "
                           "(./- for a file named '-')", l);
        return JA_EINVAL;
    }
    if (path[strlen(path) - 1] == '/') {
        snprintf(err, cap, "%s '%s': names a directory; an output replaces only a regular file",
                 l, path);
        return JA_EINVAL;
    }
    const char *kind = ref_out_kind(path);
    if (kind) {
        snprintf(err, cap, "%s '%s': it is %s; an output replaces only a regular file%s", l,
                 path, kind,
                 strcmp(kind, "a symbolic link") == 0 ? " (give the file's own path)" : "");
        return JA_EINVAL;
    }
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(err, cap, "%s '%s': directory '%s' does not exist", l, path, dir);
        return JA_EINVAL;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, cap, "%s '%s': cannot write into directory '%s': %s", l, path, dir,
                 strerror(errno));
        return JA_EINVAL;
    }
    return JA_OK;
}

static void release(ref_out *o)
{
    free(o->path);
    free(o->tmp);
    free(o->label);
    free(o);
}

/* Creates path.tmp-XXXXXX exclusively; the descriptor, or -1 (errno). */
static int create_tmp(ref_out *o)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    size_t n = strlen(o->path);
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned char rnd[6];
        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
            /* No entropy: the pid and the attempt still make a new name. */
            uint64_t v = (uint64_t)getpid() * 1000003u + (uint64_t)attempt;
            for (size_t i = 0; i < sizeof rnd; i++)
                rnd[i] = (unsigned char)(v >> (8 * i));
        }
        memcpy(o->tmp, o->path, n);
        memcpy(o->tmp + n, ".tmp-", 5);
        for (size_t i = 0; i < sizeof rnd; i++)
            o->tmp[n + 5 + i] = digits[rnd[i] % (sizeof digits - 1)];
        o->tmp[n + 5 + sizeof rnd] = '\0';
        int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

int ref_out_open(const char *label, const char *path, unsigned flags, ref_out **out, char *err,
                 size_t cap)
{
    *out = NULL;
    int rc = ref_out_check(label, path, flags, err, cap);
    if (rc != JA_OK)
        return rc;
    ref_out *o = ja_xcalloc(1, sizeof *o);
    o->path = ja_xstrdup(path);
    o->label = ja_xstrdup(label ? label : "cannot write");
    o->flags = flags;
    if ((flags & REF_OUT_STDOUT) && strcmp(path, "-") == 0) {
        o->stream = true;
        o->f = ref_out_stdout();
        if (!o->f) {
            snprintf(err, cap, "%s '-': %s", o->label, strerror(errno));
            release(o);
            return JA_EIO;
        }
        *out = o;
        return JA_OK;
    }
    o->tmp = ja_xmalloc(strlen(path) + 16);
    int fd = create_tmp(o);
    if (fd < 0) {
        snprintf(err, cap, "%s '%s': %s", o->label, path, strerror(errno));
        release(o);
        return JA_EIO;
    }
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        snprintf(err, cap, "%s '%s': %s", o->label, path, strerror(errno));
        close(fd);
        unlink(o->tmp);
        release(o);
        return JA_EIO;
    }
    *out = o;
    return JA_OK;
}

FILE *ref_out_file(ref_out *o)
{
    return o->f;
}

const char *ref_out_path(const ref_out *o)
{
    return o->path;
}

/* fsync of the directory holding path: the rename itself is then durable. */
static int sync_dir(const char *path)
{
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

int ref_out_commit(ref_out **op, char *err, size_t cap)
{
    ref_out *o = *op;
    *op = NULL;
    if (!o)
        return JA_OK;
    if (o->stream) {
        bool bad = fflush(o->f) != 0 || ferror(o->f);
        if (bad)
            snprintf(err, cap, "%s '-': %s", o->label, strerror(errno ? errno : EIO));
        release(o);
        return bad ? JA_EIO : JA_OK;
    }
    int saved = 0;
    const char *why = NULL;
    if (fflush(o->f) != 0 || ferror(o->f))
        saved = errno ? errno : EIO;
    else if ((o->flags & REF_OUT_SYNC) && fsync(fileno(o->f)) != 0)
        saved = errno;
    if (fclose(o->f) != 0 && !saved)
        saved = errno;
    o->f = NULL;
    /* Whatever appeared at the destination meanwhile is not replaced
     * unless it is a regular file. */
    if (!saved && (why = ref_out_kind(o->path)) != NULL) {
        snprintf(err, cap, "%s '%s': it is now %s; not replaced", o->label, o->path, why);
        unlink(o->tmp);
        release(o);
        return JA_EIO;
    }
    if (!saved && rename(o->tmp, o->path) != 0)
        saved = errno;
    if (saved) {
        snprintf(err, cap, "%s '%s': %s", o->label, o->path, strerror(saved));
        unlink(o->tmp);
        release(o);
        return JA_EIO;
    }
    if ((o->flags & REF_OUT_SYNC) && sync_dir(o->path) != 0) {
        snprintf(err, cap, "%s '%s': cannot sync its directory: %s", o->label, o->path,
                 strerror(errno));
        release(o);
        return JA_EIO;
    }
    release(o);
    return JA_OK;
}

void ref_out_abort(ref_out **op)
{
    ref_out *o = op ? *op : NULL;
    if (!o)
        return;
    *op = NULL;
    if (!o->stream) {
        if (o->f)
            fclose(o->f);
        unlink(o->tmp);
    } else {
        fflush(o->f);
    }
    release(o);
}

int ref_out_write_file(const char *label, const char *path, unsigned flags, const void *data,
                       size_t len, char *err, size_t cap)
{
    ref_out *o = NULL;
    int rc = ref_out_open(label, path, flags, &o, err, cap);
    if (rc != JA_OK)
        return rc;
    if (len && fwrite(data, 1, len, o->f) != len) {
        snprintf(err, cap, "%s '%s': %s", o->label, path, strerror(errno));
        ref_out_abort(&o);
        return JA_EIO;
    }
    return ref_out_commit(&o, err, cap);
}

FILE *ref_out_stdout(void)
{
    static FILE *data;
    if (data)
        return data;
    fflush(stdout);
    int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (fd < 0)
        return NULL;
    data = fdopen(fd, "wb");
    if (!data) {
        close(fd);
        return NULL;
    }
    dup2(STDERR_FILENO, STDOUT_FILENO);
    return data;
}
