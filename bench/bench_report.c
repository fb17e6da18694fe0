/* The size of the report site (`arena report`, docs/viewer.md): a match
 * page is the replay viewer with the match's data; what it adds beyond that
 * data (the viewer's script and style, the page's frame) is the cost every
 * page carries whatever the match. Whole `arena` processes, as a
 * user runs them, into a scratch directory. */
#include "bench_report.h"
#include "bench.h"
#include "bench_rows.h"

#include "jackarena/ja_rules.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long file_bytes(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* The bytes of the page at path and of the replay data it holds (the text
 * of its `<script ... id="data">` element: the packed model); -1 when the
 * page cannot be read or holds no such element. */
static long page_bytes(const char *path, long *data)
{
    static const char open_tag[] = " id=\"data\">";
    size_t len = 0;
    char *buf = bench_slurp(path, &len);
    if (!buf)
        return -1;
    /* Lengths, not pointer differences, past the free: gcc 12 may sink a
     * difference below free() and warn (-Wuse-after-free). */
    const char *a = strstr(buf, open_tag);
    const char *b = a ? strstr(a, "</script>") : NULL;
    size_t ia = a ? len - strlen(a) : 0, ib = b ? len - strlen(b) : 0;
    free(buf);
    long total = ib ? (long)len : -1;
    *data = ib ? (long)(ib - ia - strlen(open_tag)) : -1;
    return total;
}

/* Over the match pages of db's matches with a replay: the largest page's
 * bytes beyond its replay file (negative: smaller than it), with that
 * page's data element and replay file bytes; the number of pages
 * measured. */
static int largest_page(const char *db, const char *site, long *extra, long *data, long *replay)
{
    sqlite3 *s = NULL;
    sqlite3_stmt *st = NULL;
    int n = 0;
    *extra = -1;
    *data = *replay = 0;
    if (sqlite3_open_v2(db, &s, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(s, "SELECT id, replay FROM matches WHERE replay IS NOT NULL", -1, &st,
                           NULL) == SQLITE_OK)
        while (sqlite3_step(st) == SQLITE_ROW) {
            char page[PATH_MAX + 64];
            snprintf(page, sizeof page, "%s/matches/m%lld.html", site,
                     (long long)sqlite3_column_int64(st, 0));
            long dbytes = 0, pb = page_bytes(page, &dbytes);
            long rb = file_bytes((const char *)sqlite3_column_text(st, 1));
            if (pb < 0 || rb < 0)
                continue;
            if (n++ == 0 || pb - rb > *extra) {
                *extra = pb - rb;
                *data = dbytes;
                *replay = rb;
            }
        }
    sqlite3_finalize(st);
    sqlite3_close(s);
    return n;
}

int bench_report_site(FILE *md, uint32_t rounds)
{
    char dir[] = "/tmp/ja_bench_report.XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "ja_bench: report: no scratch directory: %s\n", strerror(errno));
        return 1;
    }
    char arena_dir[PATH_MAX + 16], r_s[16];
    snprintf(arena_dir, sizeof arena_dir, "%s/../arena", bench_exe_dir());
    snprintf(r_s, sizeof r_s, "%u", (unsigned)rounds);
    fprintf(md,
            "## Report site\n\n"
            "For every game, `arena tournament GAME --bots random,... --rounds %u --replays "
            "DIR` at the game's fewest seats, then `arena report --db FILE -o SITE`: the "
            "bytes each match page (`matches/m<ID>.html`) holds beyond its replay file "
            "(negative when the page is the smaller), the page's data being its "
            "`<script id=\"data\">` element, the packed model of every frame (docs/viewer.md); "
            "the viewer's script and style are files of the site, shared by its pages. The "
            "largest over the tournament's matches, with that page's data and its replay "
            "file, and the index page.\n\n"
            "| game | seats | pages | largest page beyond its replay | its data | its "
            "replay file | index page | target |\n|---|---|---|---|---|---|---|---|\n",
            (unsigned)rounds);
    int rc = 0;
    for (int i = 0; ja_games[i] && rc == 0; i++) {
        const ja_game_rules *g = ja_games[i];
        char db[PATH_MAX], replays[PATH_MAX], site[PATH_MAX], bots[128] = "random";
        snprintf(db, sizeof db, "%s/%s.db", dir, g->name);
        snprintf(replays, sizeof replays, "%s/%s-replays", dir, g->name);
        snprintf(site, sizeof site, "%s/%s-site", dir, g->name);
        for (uint32_t s = 1; s < g->min_seats; s++)
            strcat(bots, ",random");
        const char *targv[] = {"arena", "tournament", g->name, "--bots", bots, "--rounds", r_s,
                               "--seed", "1", "--db", db, "--replays", replays, "-q", NULL};
        const char *ragv[] = {"arena", "report", "--db", db, "-o", site, NULL};
        int t = bench_finish(bench_start(arena_dir, targv), NULL, NULL);
        int r = t == 0 ? bench_finish(bench_start(arena_dir, ragv), NULL, NULL) : -1;
        long extra = -1, data = 0, replay = 0;
        char index[PATH_MAX + 16];
        snprintf(index, sizeof index, "%s/index.html", site);
        int pages = r == 0 ? largest_page(db, site, &extra, &data, &replay) : 0;
        if (t != 0 || r != 0 || pages == 0) {
            fprintf(stderr, "ja_bench: report: %s: %s failed (exit %d)\n", g->name,
                    t != 0 ? "arena tournament" : r != 0 ? "arena report" : "measuring pages",
                    t != 0 ? t : r);
            rc = 1;
            break;
        }
        char name[96], cell[64];
        snprintf(name, sizeof name, "%s, %u seats: match page beyond its replay (largest)",
                 g->name, (unsigned)g->min_seats);
        const bench_row *row =
            bench_row_add(name, extra / 1024.0, "KB", NAN, BENCH_AT_MOST, 100);
        snprintf(name, sizeof name, "%s, %u seats: index page", g->name, (unsigned)g->min_seats);
        long ib = file_bytes(index);
        bench_row_add(name, ib / 1024.0, "KB", NAN, BENCH_NO_TARGET, 0);
        fprintf(md, "| %s | %u | %d | %.1f KB | %.1f KB | %.1f KB | %.1f KB | %s |\n", g->name,
                (unsigned)g->min_seats, pages, extra / 1024.0, data / 1024.0, replay / 1024.0,
                ib / 1024.0,
                bench_row_target(row, cell, sizeof cell));
    }
    fprintf(md, "\nKB are 1024 bytes.\n");
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "ja_bench: could not remove %s\n", dir);
    return rc;
}
