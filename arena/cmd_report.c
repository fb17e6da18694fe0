/* `arena report [--db FILE] -o DIR [--tournament ID] [--game GAME]`: a static
 * site for the ladders of a database (report_site.c writes it).
 *
 * Nothing half-written: the site is built in a fresh directory DIR.tmp-XXXXXX
 * next to DIR, then put in place with one rename (when DIR exists, an atomic
 * exchange, renameat2 RENAME_EXCHANGE, then the old site is removed). A
 * failure removes the temporary directory and leaves DIR as it was. DIR may
 * be missing, an empty directory, or an earlier report (it holds the
 * marker REPORT_MARKER); anything else is refused, so a report never
 * deletes files it did not make. */
#include "cli.h"
#include "report.h"

#include "jackarena/ja_error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char HELP[] =
    "usage: arena report [--db FILE] -o DIR [--tournament ID] [--game GAME]\n"
    "Write a static web site for the ladders of a database: DIR/index.html with,\n"
    "per ladder, the standings (Elo from the Bradley-Terry fit with its 95%\n"
    "interval, the live Elo, games, wins, score), a rating-over-time chart, a\n"
    "crosstable, fault counts by kind and the list of matches, each linked to its\n"
    "replay page in DIR/matches/ when its replay file (tournament --replays) can\n"
    "be read. The pages use no network and no external file.\n"
    "\n"
    "  --db FILE         the ladder database (default arena.db)\n"
    "  -o, --output DIR  where to write the site; DIR must be missing, empty or an\n"
    "                    earlier report, which is then replaced as a whole (a\n"
    "                    directory itself, not a link to one)\n"
    "  --tournament ID   only this tournament (and its ladder)\n"
    "  --game GAME       only the ladders of this game\n"
    "\n"
    "The site is built next to DIR and moved in place at the end: a failure\n"
    "leaves no half site. docs/viewer.md describes the report.\n";

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

/* Exit status for a ladder database error: the file given is unusable (2)
 * or the run failed (1). */
static int db_exit(int rc)
{
    return (rc == JA_EIO || rc == JA_EVERSION || rc == JA_EFORMAT) ? EXIT_USAGE : EXIT_RUNTIME;
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

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},         {"output", required_argument, NULL, 'o'},
        {"tournament", required_argument, NULL, 't'}, {"game", required_argument, NULL, 'g'},
        {"help", no_argument, NULL, 'h'},             {0, 0, 0, 0}};
    report_opts ro = {"arena.db", NULL, 0};
    const char *dir = NULL;
    uint64_t tid = 0;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'd': ro.db_path = optarg; break;
        case 'o': dir = optarg; break;
        case 't':
            if (!arena_parse_u64(optarg, &tid) || tid == 0 || tid > INT64_MAX) {
                arena_error("--tournament needs a tournament id (a positive number), not '%s'",
                            optarg);
                return EXIT_USAGE;
            }
            break;
        case 'g': ro.game = optarg; break;
        case 'h': fputs(HELP, stdout); return EXIT_OK;
        default: arena_getopt_error("report", argv); return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        arena_error("report: unexpected argument '%s' (usage: arena report [--db FILE] -o DIR)",
                    argv[optind]);
        return EXIT_USAGE;
    }
    if (dir == NULL) {
        arena_error("report: name the output directory with -o DIR");
        return EXIT_USAGE;
    }
    ro.tournament_id = (int64_t)tid;
    /* "site/" is "site": the temporary directory goes beside it. */
    char dirbuf[4096];
    if (snprintf(dirbuf, sizeof dirbuf, "%s", dir) >= (int)sizeof dirbuf) {
        arena_error("-o: the path is too long");
        return EXIT_USAGE;
    }
    for (size_t n = strlen(dirbuf); n > 1 && dirbuf[n - 1] == '/'; n--)
        dirbuf[n - 1] = '\0';
    dir = dirbuf;
    if (ro.game && !arena_find_game(ro.game))
        return EXIT_USAGE;
    const arena_output outs[] = {{"--db", ro.db_path, ARENA_OUT_DB}, {"-o", dir, ARENA_OUT_DIR}};
    bool exists;
    if (!arena_outputs_check(outs, 2, NULL) || !check_out_dir(dir, &exists))
        return EXIT_USAGE;
    struct stat sb;
    if (stat(ro.db_path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        arena_error("no ladder database '%s' (play a tournament first, or give --db)", ro.db_path);
        return EXIT_USAGE;
    }
    ladder_db *db = NULL;
    int rc = ladder_db_open(ro.db_path, &db);
    if (rc != JA_OK) {
        arena_error("%s", db ? ladder_db_errmsg(db) : ja_strerror(rc));
        ladder_db_close(&db);
        return db_exit(rc);
    }
    int status = EXIT_RUNTIME;
    if (ro.tournament_id > 0) {
        ladder_tournament_info ti;
        rc = ladder_db_tournament_get(db, ro.tournament_id, &ti);
        if (rc == JA_ENOTFOUND) {
            arena_error("--tournament %lld: no such tournament in '%s'",
                        (long long)ro.tournament_id, ro.db_path);
            status = EXIT_USAGE;
            goto out;
        }
        if (rc == JA_OK && ro.game) {
            /* The tournament's game must be the one named. */
            ladder_summary *ls = NULL;
            uint32_t n = 0;
            bool found = false;
            if ((rc = ladder_db_ladders(db, ro.game, &ls, &n)) == JA_OK)
                for (uint32_t i = 0; i < n; i++)
                    found |= ls[i].id == ti.ladder_id;
            free(ls);
            if (rc == JA_OK && !found) {
                arena_error("--tournament %lld is not a tournament of %s",
                            (long long)ro.tournament_id, ro.game);
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
    if (report_write(db, &ro, tmp) != JA_OK) {
        rm_tree(tmp);
        goto out;
    }
    if (!install(tmp, dir, exists)) {
        arena_error("cannot move the report into '%s': %s", dir, strerror(errno));
        rm_tree(tmp);
        goto out;
    }
    printf("report written to %s/index.html\n", dir);
    status = EXIT_OK;
out:
    ladder_db_close(&db);
    return status;
}
