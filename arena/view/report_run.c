/* `arena report`'s run (report.h): the site built next to DIR and put in
 * place with one rename.
 *
 * Nothing half-written: the site is built in a fresh directory DIR.tmp-XXXXXX
 * next to DIR, then put in place with one rename (when DIR exists, an atomic
 * exchange, renameat2 RENAME_EXCHANGE, then the old site is removed). A
 * failure removes the temporary directory and leaves DIR as it was. DIR may
 * be missing, an empty directory, or an earlier report (it holds the
 * marker REPORT_MARKER); anything else is refused, so a report never
 * deletes files it did not make. */
#include "view/report.h"

#include "core/util.h"

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

/* Checks DIR before anything is written: a usage error (printed) unless it
 * is missing with an existing writable parent, an empty directory, or an
 * earlier report. *exists says whether it is there. */
static bool check_out_dir(const char *dir, bool *exists)
{
    struct stat sb;
    *exists = false;
    if (dir[0] == '\0') {
        arena_error("-o needs a directory name");
        return false;
    }
    if (stat(dir, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode)) {
            arena_error("-o %s: exists and is not a directory", dir);
            return false;
        }
        *exists = true;
        char marker[4200];
        snprintf(marker, sizeof marker, "%s/" REPORT_MARKER, dir);
        if (access(marker, F_OK) != 0) {
            /* Not a report: accept it only when empty. */
            bool empty = true;
            int fd = open(dir, O_RDONLY | O_DIRECTORY);
            if (fd >= 0) {
                DIR *dp = fdopendir(fd);
                struct dirent *e;
                while (dp && (e = readdir(dp)) != NULL)
                    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                        empty = false;
                if (dp)
                    closedir(dp);
                else
                    close(fd);
            }
            if (!empty) {
                arena_error("-o %s: the directory is not empty and was not made by arena report "
                            "(refusing to replace it)",
                            dir);
                return false;
            }
        }
    }
    char copy[4200];
    snprintf(copy, sizeof copy, "%s", dir);
    const char *parent = dirname(copy);
    if (stat(parent, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        arena_error("-o %s: directory '%s' does not exist", dir, parent);
        return false;
    }
    if (access(parent, W_OK) != 0) {
        arena_error("-o %s: directory '%s' is not writable", dir, parent);
        return false;
    }
    return true;
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

int arena_report_run(FILE *out, const report_opts *ro, const char *dir)
{
    bool exists;
    if (!check_out_dir(dir, &exists))
        return EXIT_USAGE;
    struct stat sb;
    if (stat(ro->db_path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        arena_error("no ladder database '%s' (play a tournament first, or give --db)", ro->db_path);
        return EXIT_USAGE;
    }
    ladder_db *db = NULL;
    int rc = ladder_db_open(ro->db_path, &db);
    if (rc != JA_OK) {
        arena_error("%s", db ? ladder_db_errmsg(db) : ja_strerror(rc));
        ladder_db_close(&db);
        return arena_db_status(rc);
    }
    int status = EXIT_RUNTIME;
    if (ro->tournament_id > 0) {
        ladder_tournament_info ti;
        rc = ladder_db_tournament_get(db, ro->tournament_id, &ti);
        if (rc == JA_ENOTFOUND) {
            arena_error("--tournament %lld: no such tournament in '%s'",
                        (long long)ro->tournament_id, ro->db_path);
            status = EXIT_USAGE;
            goto out;
        }
        if (rc == JA_OK && ro->game) {
            /* The tournament's game must be the one named. */
            ladder_summary *ls = NULL;
            uint32_t n = 0;
            bool found = false;
            if ((rc = ladder_db_ladders(db, ro->game, &ls, &n)) == JA_OK)
                for (uint32_t i = 0; i < n; i++)
                    found |= ls[i].id == ti.ladder_id;
            free(ls);
            if (rc == JA_OK && !found) {
                arena_error("--tournament %lld is not a tournament of %s",
                            (long long)ro->tournament_id, ro->game);
                status = EXIT_USAGE;
                goto out;
            }
        }
        if (rc != JA_OK) {
            arena_error("%s", ladder_db_errmsg(db));
            goto out;
        }
    }
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", dir) >= (int)sizeof tmp) {
        arena_error("-o %s: the path is too long", dir);
        status = EXIT_USAGE;
        goto out;
    }
    if (mkdtemp(tmp) == NULL) {
        arena_error("cannot create a directory next to '%s': %s", dir, strerror(errno));
        goto out;
    }
    chmod(tmp, 0755);
    char err[8192];
    if (report_write(db, ro, tmp, err, sizeof err) != JA_OK) {
        arena_error("%s", err);
        rm_tree(tmp);
        goto out;
    }
    if (!install(tmp, dir, exists)) {
        arena_error("cannot move the report into '%s': %s", dir, strerror(errno));
        rm_tree(tmp);
        goto out;
    }
    fprintf(out, "report written to %s/index.html\n", dir);
    status = EXIT_OK;
out:
    ladder_db_close(&db);
    return status;
}

