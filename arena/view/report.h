/* The tournament report of `arena report` (docs/viewer.md, "The report"):
 * a static site built from the ladder database, with no network and no
 * external file. report_site.c reads the store and writes the pages;
 * report_run.c builds the site beside its directory and puts it in place;
 * cmd_report.c checks the command line. */
#ifndef ARENA_REPORT_H
#define ARENA_REPORT_H

#include "ladder_db.h"

#include <stdint.h>
#include <stdio.h>

/* What to report. Strings borrowed. */
typedef struct report_opts {
    const char *db_path;   /* the database as named (for the page, and to
                              resolve relative replay paths) */
    const char *game;      /* only this game's ladders; NULL: every game */
    int64_t tournament_id; /* only this tournament (and its ladder); 0: all */
} report_opts;

/* Writes the site into dir, an existing empty directory: index.html (one
 * section per ladder: standings with the fitted Elo and its 95% interval
 * and the live Elo, a crosstable, the rating chart as inline SVG, fault
 * counts, the match list), matches/m<ID>.html (the replay page of each
 * match whose replay file loads and re-simulates, via viewer_html_replay),
 * the viewer's script and style that those pages share (matches/replay.js,
 * matches/replay.css) and the marker file .arena-report. Replays that are
 * missing or do not load are listed without a link, never an error.
 * Returns JA_OK, or an error code with its line in err (a database error,
 * JA_EFORMAT for a result naming a bot that does not exist, JA_EIO for a
 * file that cannot be written, JA_ENOMEM); dir may then hold part of a
 * site, for the caller to remove. */
int report_write(ladder_db *db, const report_opts *o, const char *dir, char *err, size_t cap);

/* `arena report`'s run: checks dir (missing with a writable parent, an
 * empty directory, or an earlier report, which holds REPORT_MARKER),
 * opens the database o->db_path (a regular file), checks that
 * o->tournament_id (if any) is there and of o->game (if any), builds the
 * site (report_write) in a fresh directory dir.tmp-XXXXXX beside dir and
 * puts it in place with one rename (an earlier report: an atomic
 * exchange, then the old site is removed). A failure removes the
 * temporary directory and leaves dir as it was. Writes "report written to
 * DIR/index.html" to out. Errors are printed as one line (util.h).
 * Returns EXIT_OK, EXIT_USAGE (dir, the database or the tournament
 * refused) or EXIT_RUNTIME. */
int arena_report_run(FILE *out, const report_opts *o, const char *dir);

/* The marker file that says a directory is a site made by arena report
 * (so that a new report may replace it). */
#define REPORT_MARKER ".arena-report"

#endif /* ARENA_REPORT_H */
