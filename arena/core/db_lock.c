/* The run lock of a database (db_lock.h). */
#include "core/db_lock.h"

#include "ladder_db.h"

#include "jackarena/ja_error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A record lock on the whole file: F_WRLCK from 0, length 0 (to the end). */
static struct flock whole(short type)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    return fl;
}

int arena_db_lock_take(const char *db_path, arena_db_lock *l, char *err, size_t cap)
{
    l->fd = -1;
    if ((size_t)snprintf(l->path, sizeof l->path, "%s.lock", db_path) >= sizeof l->path) {
        snprintf(err, cap, "the database path '%s' is too long", db_path);
        return JA_EIO;
    }
    /* A few tries: each retry means the holder let go and removed the file
     * between our open and our lock. */
    for (int tries = 0; tries < 100; tries++) {
        int fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0) {
            snprintf(err, cap, "cannot make the lock file '%s': %s", l->path, strerror(errno));
            return JA_EIO;
        }
        struct flock fl = whole(F_WRLCK);
        if (fcntl(fd, F_SETLK, &fl) != 0) {
            int e = errno;
            if (e != EACCES && e != EAGAIN) {
                close(fd);
                snprintf(err, cap, "cannot lock '%s': %s", l->path, strerror(e));
                return JA_EIO;
            }
            struct flock who = whole(F_WRLCK);
            bool known = fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK && who.l_pid > 0;
            close(fd);
            if (known)
                snprintf(err, cap, "the database '%s' is in use by another arena (pid %ld)",
                         db_path, (long)who.l_pid);
            else
                snprintf(err, cap, "the database '%s' is in use by another arena", db_path);
            return JA_EBUSY;
        }
        /* Locked: is it still the file at the path? */
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(l->path, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino) {
            char pid[32];
            int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
            bool said = ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)n, 0) == n;
            (void)said; /* the pid is for people; the lock is what counts */
            l->fd = fd;
            return JA_OK;
        }
        close(fd);
    }
    snprintf(err, cap, "cannot lock '%s': it keeps being replaced", l->path);
    return JA_EIO;
}

void arena_db_lock_release(arena_db_lock *l)
{
    if (l->fd < 0)
        return;
    unlink(l->path);
    close(l->fd); /* releases the record lock */
    l->fd = -1;
}

int arena_db_lock_open(const char *db_path, arena_db_lock *l, ladder_db **db, char *err,
                       size_t cap)
{
    char why[1200];
    *db = NULL;
    /* A lock file that cannot be made is said once the database is open:
     * when the database cannot be opened either, its own error says more. */
    int rc = arena_db_lock_take(db_path, l, why, sizeof why);
    if (rc == JA_EBUSY) {
        snprintf(err, cap,
                 "%s; wait for it to finish (or stop it), then run the same command again", why);
        return JA_EBUSY;
    }
    int lock_rc = rc;
    if ((rc = ladder_db_open(db_path, db)) != JA_OK) {
        snprintf(err, cap, "%s", *db ? ladder_db_errmsg(*db) : ja_strerror(rc));
        ladder_db_close(db);
        return rc;
    }
    if (lock_rc != JA_OK) {
        snprintf(err, cap, "%s", why);
        ladder_db_close(db);
        return JA_EDB;
    }
    return JA_OK;
}
