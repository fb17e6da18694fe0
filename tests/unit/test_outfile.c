/* Unit tests of the output files (referee/outfile.h), in a scratch
 * directory: a file is written whole with mode 0644 less the umask and
 * replaces a regular file; a FIFO, a character device, a directory, a
 * symbolic link (to a regular file or dangling) and a path with a trailing
 * '/' are refused, and stay as they were; "-" is refused unless the
 * standard output is allowed; a missing directory is named; a symbolic link
 * planted at the old fixed name PATH.tmp is not followed; abort and a
 * failed commit leave no temporary file; a destination that becomes a FIFO
 * while the file is written is not replaced. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_error.h"
#include "outfile.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ja-outfile-XXXXXX");
    assert_non_null(mkdtemp(dir));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.' && unlink(p) != 0)
            rmdir(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    return 0;
}

static const char *at(const char *name)
{
    static char p[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static void read_back(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Entries of the scratch directory whose name holds ".tmp-". */
static int temporaries(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strstr(e->d_name, ".tmp-") != NULL;
    closedir(d);
    return n;
}

static void test_writes_whole(void **state)
{
    (void)state;
    char err[512], buf[64];
    mode_t old = umask(022);
    assert_int_equal(ref_out_write_file(NULL, at("a.txt"), REF_OUT_SYNC, "one", 3, err, sizeof err),
                     JA_OK);
    read_back(at("a.txt"), buf, sizeof buf);
    assert_string_equal(buf, "one");
    struct stat sb;
    assert_int_equal(stat(at("a.txt"), &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0644);
    umask(077);
    assert_int_equal(ref_out_write_file(NULL, at("a.txt"), 0, "two", 3, err, sizeof err), JA_OK);
    umask(old);
    read_back(at("a.txt"), buf, sizeof buf);
    assert_string_equal(buf, "two");
    assert_int_equal(stat(at("a.txt"), &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    assert_int_equal(temporaries(), 0);
}

static void refused(const char *path, unsigned flags, const char *want)
{
    char err[512];
    assert_int_equal(ref_out_check("--x", path, flags, err, sizeof err), JA_EINVAL);
    if (!strstr(err, want))
        fail_msg("'%s' does not say '%s'", err, want);
    assert_null(strchr(err, '\n'));
    ref_out *o = NULL;
    assert_int_equal(ref_out_open("--x", path, flags, &o, err, sizeof err), JA_EINVAL);
    assert_null(o);
}

static void test_refuses_what_is_not_a_file(void **state)
{
    (void)state;
    assert_int_equal(mkfifo(at("fifo"), 0644), 0);
    refused(at("fifo"), 0, "it is a FIFO; an output replaces only a regular file");
    refused("/dev/null", 0, "'/dev/null': it is a character device");
    assert_int_equal(mkdir(at("d"), 0755), 0);
    refused(at("d"), 0, "it is a directory");
    refused(dir, 0, "it is a directory");
    char err[512];
    assert_int_equal(ref_out_write_file(NULL, at("victim"), 0, "safe", 4, err, sizeof err), JA_OK);
    assert_int_equal(symlink(at("victim"), at("link")), 0);
    refused(at("link"), 0, "it is a symbolic link; an output replaces only a regular file (give");
    assert_int_equal(symlink(at("nowhere"), at("dangling")), 0);
    refused(at("dangling"), 0, "it is a symbolic link");
    refused(at("x/"), 0, "names a directory");
    refused("-", 0, "'-': the standard output is not possible here");
    refused(at("nodir/x"), 0, "directory '");
    refused(at("nodir/x"), 0, "/nodir' does not exist");
    refused("", 0, "--x: no file named");
    assert_int_equal(ref_out_check("--x", "-", REF_OUT_STDOUT, err, sizeof err), JA_OK);
    /* Everything is as it was. */
    struct stat sb;
    assert_int_equal(lstat(at("fifo"), &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    assert_int_equal(lstat(at("link"), &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_int_equal(lstat(at("dangling"), &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_int_not_equal(lstat(at("nowhere"), &sb), 0);
    char buf[64];
    read_back(at("victim"), buf, sizeof buf);
    assert_string_equal(buf, "safe");
    assert_null(ref_out_kind(at("victim")));
    assert_string_equal(ref_out_kind(at("fifo")), "a FIFO");
    assert_int_equal(temporaries(), 0);
}

static void test_planted_tmp_not_followed(void **state)
{
    (void)state;
    char err[512], buf[64];
    assert_int_equal(ref_out_write_file(NULL, at("target"), 0, "keep", 4, err, sizeof err), JA_OK);
    assert_int_equal(symlink(at("target"), at("out.rpl.tmp")), 0);
    assert_int_equal(ref_out_write_file(NULL, at("out.rpl"), 0, "new", 3, err, sizeof err), JA_OK);
    read_back(at("target"), buf, sizeof buf);
    assert_string_equal(buf, "keep");
    read_back(at("out.rpl"), buf, sizeof buf);
    assert_string_equal(buf, "new");
    struct stat sb;
    assert_int_equal(lstat(at("out.rpl.tmp"), &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
}

static void test_abort_and_late_change(void **state)
{
    (void)state;
    char err[512], buf[64];
    ref_out *o = NULL;
    assert_int_equal(ref_out_open(NULL, at("late"), 0, &o, err, sizeof err), JA_OK);
    assert_string_equal(ref_out_path(o), at("late"));
    fputs("partial", ref_out_file(o));
    assert_int_equal(temporaries(), 1);
    ref_out_abort(&o);
    assert_null(o);
    ref_out_abort(&o); /* NULL-safe */
    assert_int_equal(temporaries(), 0);
    assert_int_not_equal(access(at("late"), F_OK), 0);

    /* A FIFO appears at the destination while the file is written. */
    assert_int_equal(ref_out_open("--replay", at("late"), REF_OUT_SYNC, &o, err, sizeof err),
                     JA_OK);
    fputs("data", ref_out_file(o));
    assert_int_equal(mkfifo(at("late"), 0644), 0);
    assert_int_equal(ref_out_commit(&o, err, sizeof err), JA_EIO);
    assert_null(o);
    assert_non_null(strstr(err, "--replay '"));
    assert_non_null(strstr(err, "it is now a FIFO; not replaced"));
    struct stat sb;
    assert_int_equal(lstat(at("late"), &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    assert_int_equal(temporaries(), 0);
    assert_int_equal(ref_out_commit(&o, err, sizeof err), JA_OK); /* NULL: nothing to do */

    /* A regular file there is replaced. */
    assert_int_equal(ref_out_write_file(NULL, at("reg"), 0, "old", 3, err, sizeof err), JA_OK);
    assert_int_equal(ref_out_open(NULL, at("reg"), 0, &o, err, sizeof err), JA_OK);
    fputs("fresh", ref_out_file(o));
    read_back(at("reg"), buf, sizeof buf);
    assert_string_equal(buf, "old"); /* untouched until the commit */
    assert_int_equal(ref_out_commit(&o, err, sizeof err), JA_OK);
    read_back(at("reg"), buf, sizeof buf);
    assert_string_equal(buf, "fresh");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writes_whole),
        cmocka_unit_test(test_refuses_what_is_not_a_file),
        cmocka_unit_test(test_planted_tmp_not_followed),
        cmocka_unit_test(test_abort_and_late_change),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
