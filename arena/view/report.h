/* The tournament report of `arena report` (docs/viewer.md, "The report"):
 * a static site built from the ladder database, with no network and no
 * external file. report_site.c reads the store and writes the pages;
 * report_run.c checks the command's directory and database, builds the site
 * beside the directory and puts it in place; cmd_report.c checks the
 * command line, prints the errors and chooses the exit status. */
#ifndef ARENA_REPORT_H
#define ARENA_REPORT_H

#include "ladder_db.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What to report. Strings borrowed. */
typedef struct report_opts {
    const char *db_path;   /* the database as named (for the page, and to
                              resolve relative replay paths) */
    const char *game;      /* only this game's ladders; NULL: every game */
    int64_t tournament_id; /* only this tournament (and its ladder); 0: all */
    bool no_spoilers;      /* match lists without results (scores, places,
                              lengths): only the replay links */
    bool adjusted;         /* the standings also show the luck-adjusted fit
                              (adjust_ladder.h), from the replays */
} report_opts;

/* Writes the site into dir, an existing empty directory: index.html (one
 * section per ladder: standings with the fitted Elo and its 95% interval
 * and the live Elo, the intervals drawn, the rating chart, a crosstable
 * shaded by score rate, each bot's score histogram, fault counts, the match
 * list; charts as inline SVG), site.css (the server's style),
 * bots/l<LADDER>-b<BOT>.html (a page per bot of each ladder: its results
 * against each opponent, its rating history, its histogram, its matches),
 * matches/m<ID>.html (the replay page of each
 * match whose replay file loads and re-simulates, via viewer_html_replay),
 * the viewer's script and style that those pages share (matches/replay.js,
 * matches/replay.css) and the marker file .arena-report. Replays that are
 * missing or do not load are listed without a link, never an error.
 * Returns JA_OK, or an error code with its line in err (a database error,
 * JA_EFORMAT for a result naming a bot that does not exist, JA_EIO for a
 * file that cannot be written, JA_ENOMEM when zlib or a memory stream
 * runs out of its own memory); dir may then hold part of a site,
 * for the caller to remove. */
int report_write(ladder_db *db, const report_opts *o, const char *dir, char *err, size_t cap);

/* `arena report` in its two steps (docs/architecture.md, "Errors") over one
 * arena_report, closed by arena_report_close whatever happened. Each step
 * returns JA_OK or the failure's code with its line in the caller's err. */
typedef struct arena_report {
    const report_opts *o;
    const char *dir;   /* where the site goes */
    bool exists;       /* dir is there: an empty directory or an earlier report */
    ladder_db *db;     /* the database, open */
    char tmp[4200];    /* the site being built beside dir: dir.tmp-XXXXXX */
    /* After a failed prepare step: the database failed or memory ran out,
     * which is not the user's doing (a database file that is unusable as
     * given is). */
    bool system_error;
} arena_report;

/* Checks dir (missing with a writable parent, an empty directory, or an
 * earlier report, which holds REPORT_MARKER), opens the database
 * o->db_path (a regular file) and checks that o->tournament_id (if any)
 * is there and of o->game (if any); nothing is written. The codes:
 * JA_EINVAL (dir, or a tournament of another game), JA_ENOTFOUND (no
 * database file, no such tournament), JA_ERANGE (dir's name too long for
 * the temporary directory beside it), or the database's. */
int arena_report_prepare(arena_report *rep, const report_opts *o, const char *dir, char *err,
                         size_t cap);

/* Builds the site (report_write) in a fresh directory dir.tmp-XXXXXX beside
 * dir and puts it in place with one rename (an earlier report: an atomic
 * exchange, then the old site is removed), then writes "report written to
 * DIR/index.html" to out. A failure removes the temporary directory and
 * leaves dir as it was: JA_EIO (the directory cannot be made or moved) or
 * report_write's code. */
int arena_report_run(arena_report *rep, FILE *out, char *err, size_t cap);

/* Closes the database. */
void arena_report_close(arena_report *rep);

/* The marker file that says a directory is a site made by arena report
 * (so that a new report may replace it). */
#define REPORT_MARKER ".arena-report"

#endif /* ARENA_REPORT_H */
