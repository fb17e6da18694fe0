/* `arena report`'s two steps (report.h): DIR, the database and the
 * tournament checked, then the site built next to DIR and put in place with
 * one rename.
 *
 * Nothing half-written: the site is built in a fresh directory DIR.tmp-XXXXXX
 * next to DIR, then put in place with one rename (when DIR exists, an atomic
 * exchange, renameat2 RENAME_EXCHANGE, then the old site is removed). A
 * failure removes the temporary directory and leaves DIR as it was. DIR may
 * be missing, an empty directory, or an earlier report (it holds the
 * marker REPORT_MARKER); anything else is refused, so a report never
 * deletes files it did not make. */
#include "view/report.h"

#include "jackarena/ja_error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* nftw callback: removes one entry (files first, then their directory). */
static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path) != 0 ? -1 : 0;
}

/* Removes a directory tree made by this command. */
static void rm_tree(const char *path)
{
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Whether directory dir holds nothing but . and .. (one that cannot be
 * opened counts as empty). */
static bool dir_is_empty(const char *dir)
{
    bool empty = true;
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return true;
    DIR *dp = fdopendir(fd);
    struct dirent *e;
    while (dp && (e = readdir(dp)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            empty = false;
    if (dp)
        closedir(dp);
    else
        close(fd);
    return empty;
}

/* dir is there (sb): it may be replaced when it is a directory, and an
 * earlier report or empty. JA_OK or JA_EINVAL with its line in err. */
static int check_existing_dir(const char *dir, const struct stat *sb, char *err, size_t cap)
{
    if (!S_ISDIR(sb->st_mode)) {
        snprintf(err, cap, "-o %s: exists and is not a directory", dir);
        return JA_EINVAL;
    }
    char marker[4200];
    snprintf(marker, sizeof marker, "%s/" REPORT_MARKER, dir);
    if (access(marker, F_OK) != 0 && !dir_is_empty(dir)) {
        snprintf(err, cap,
                 "-o %s: the directory is not empty and was not made by arena report "
                 "(refusing to replace it)",
                 dir);
        return JA_EINVAL;
    }
    return JA_OK;
}

/* dir's parent, where the temporary site goes: an existing, writable
 * directory. JA_OK or JA_EINVAL with its line in err. */
static int check_parent(const char *dir, char *err, size_t cap)
{
    struct stat sb;
    char copy[4200];
    snprintf(copy, sizeof copy, "%s", dir);
    const char *parent = dirname(copy);
    if (stat(parent, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(err, cap, "-o %s: directory '%s' does not exist", dir, parent);
        return JA_EINVAL;
    }
    if (access(parent, W_OK) != 0) {
        snprintf(err, cap, "-o %s: directory '%s' is not writable", dir, parent);
        return JA_EINVAL;
    }
    return JA_OK;
}

/* Checks dir before anything is written: missing with an existing
 * writable parent, an empty directory, or an earlier report (*exists says
 * whether it is there). JA_OK or JA_EINVAL with its line in err. */
static int check_out_dir(const char *dir, bool *exists, char *err, size_t cap)
{
    struct stat sb;
    *exists = false;
    if (dir[0] == '\0') {
        snprintf(err, cap, "-o needs a directory name");
        return JA_EINVAL;
    }
    if (stat(dir, &sb) == 0) {
        int rc = check_existing_dir(dir, &sb, err, cap);
        if (rc != JA_OK)
            return rc;
        *exists = true;
    }
    return check_parent(dir, err, cap);
}

/* Opens the database o->db_path, which must be a regular file. JA_OK,
 * JA_ENOTFOUND, or the database's code, with its line in err. */
static int open_db(arena_report *rep, char *err, size_t cap)
{
    const char *path = rep->o->db_path;
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(err, cap, "no ladder database '%s' (play a tournament first, or give --db)", path);
        return JA_ENOTFOUND;
    }
    int rc = ladder_db_open(path, &rep->db);
    if (rc != JA_OK) {
        snprintf(err, cap, "%s", rep->db ? ladder_db_errmsg(rep->db) : ja_strerror(rc));
        /* A file unusable as given is the user's; the database locked or
         * failing is not (the line arena_db_status of cli/flags.h draws). */
        rep->system_error = rc != JA_EIO && rc != JA_EVERSION && rc != JA_EFORMAT;
    }
    return rc;
}

/* Whether ladder ladder_id is one of game's (*found). JA_OK or the
 * database's code. */
static int ladder_of_game(ladder_db *db, const char *game, int64_t ladder_id, bool *found)
{
    ladder_summary *ls = NULL;
    uint32_t n = 0;
    *found = false;
    int rc = ladder_db_ladders(db, game, &ls, &n);
    for (uint32_t i = 0; rc == JA_OK && i < n; i++)
        *found |= ls[i].id == ladder_id;
    free(ls);
    return rc;
}

/* o's tournament, if any, must be in the database and, with o->game, of
 * that game. JA_OK, JA_ENOTFOUND, JA_EINVAL or the database's code (a
 * system error), with its line in err. */
static int check_tournament(arena_report *rep, char *err, size_t cap)
{
    const report_opts *o = rep->o;
    if (o->tournament_id <= 0)
        return JA_OK;
    ladder_tournament_info ti;
    int rc = ladder_db_tournament_get(rep->db, o->tournament_id, &ti);
    if (rc == JA_ENOTFOUND) {
        snprintf(err, cap, "--tournament %lld: no such tournament in '%s'",
                 (long long)o->tournament_id, o->db_path);
        return rc;
    }
    bool found = true;
    if (rc == JA_OK && o->game)
        rc = ladder_of_game(rep->db, o->game, ti.ladder_id, &found);
    if (rc == JA_OK && !found) {
        snprintf(err, cap, "--tournament %lld is not a tournament of %s",
                 (long long)o->tournament_id, o->game);
        return JA_EINVAL;
    }
    if (rc != JA_OK) {
        snprintf(err, cap, "%s", ladder_db_errmsg(rep->db));
        rep->system_error = true;
    }
    return rc;
}

/* Puts the finished site tmp in place of dir. */
static bool install(const char *tmp, const char *dir, bool exists)
{
    if (!exists)
        return rename(tmp, dir) == 0;
    /* An empty directory is replaced by rename(2) itself; an earlier
     * report is swapped atomically, then removed from its new name. */
    if (rename(tmp, dir) == 0)
        return true;
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) != 0)
        return false;
    rm_tree(tmp);
    return true;
}

int arena_report_prepare(arena_report *rep, const report_opts *o, const char *dir, char *err,
                         size_t cap)
{
    memset(rep, 0, sizeof *rep);
    rep->o = o;
    rep->dir = dir;
    int rc = check_out_dir(dir, &rep->exists, err, cap);
    if (rc == JA_OK)
        rc = open_db(rep, err, cap);
    if (rc == JA_OK)
        rc = check_tournament(rep, err, cap);
    if (rc == JA_OK &&
        snprintf(rep->tmp, sizeof rep->tmp, "%s.tmp-XXXXXX", dir) >= (int)sizeof rep->tmp) {
        snprintf(err, cap, "-o %s: the path is too long", dir);
        rc = JA_ERANGE;
    }
    return rc;
}

int arena_report_run(arena_report *rep, FILE *out, char *err, size_t cap)
{
    if (mkdtemp(rep->tmp) == NULL) {
        snprintf(err, cap, "cannot create a directory next to '%s': %s", rep->dir,
                 strerror(errno));
        return JA_EIO;
    }
    chmod(rep->tmp, 0755);
    int rc = report_write(rep->db, rep->o, rep->tmp, err, cap);
    if (rc == JA_OK && !install(rep->tmp, rep->dir, rep->exists)) {
        snprintf(err, cap, "cannot move the report into '%s': %s", rep->dir, strerror(errno));
        rc = JA_EIO;
    }
    if (rc != JA_OK) {
        rm_tree(rep->tmp);
        return rc;
    }
    fprintf(out, "report written to %s/index.html\n", rep->dir);
    return JA_OK;
}

void arena_report_close(arena_report *rep)
{
    ladder_db_close(&rep->db);
}
