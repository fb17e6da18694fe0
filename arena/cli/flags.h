/* Flags shared by several commands: bots, game options, seed, move time. */
#ifndef ARENA_FLAGS_H
#define ARENA_FLAGS_H

#include "run/botspec.h"
#include "run/extbots.h"
#include "jackarena/ja_rules.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- flags shared by several commands --------------------------------------- */

/* getopt_long codes of the shared flags. */
#define ARENA_OPT_BOT 'b'     /* --bot SPEC */
#define ARENA_OPT_BOTS 'B'    /* --bots A,B */
#define ARENA_OPT_OPT 'o'     /* --opt K=V */
#define ARENA_OPT_SEED 's'    /* --seed N */
#define ARENA_OPT_MOVE_MS 'm' /* --move-ms MS */

typedef struct arena_common {
    arena_bots *bots;
    const char *opt_kv[64];
    int n_opt;
    uint64_t seed;
    bool have_seed;
    uint32_t move_ms;
} arena_common;

/* Handles one shared flag. Returns 1 if c was one (and valid), 0 if c is not
 * a shared flag, -1 after printing a usage error. */
int arena_common_flag(arena_common *co, int c, const char *arg);

/* The game options from the --opt flags, resolved for n_seats. Prints the
 * usage error and returns false on a bad option. */
bool arena_common_options(const arena_common *co, const ja_game_rules *g, uint32_t n_seats,
                          ja_options *o);

/* Handles one external-bot flag (run/extbots.h: ARENA_EXT_LONGOPTS,
 * ARENA_FAULT_LONGOPTS): 1 if c was one (and valid), 0 if not, -1 after
 * printing a usage error. */
int arena_ext_flag(arena_ext *e, int c, const char *arg);

/* True when rc (a library call's) is JA_OK; otherwise prints its line err
 * as the error (arena_error) and returns false. */
bool arena_cli_ok(int rc, const char *err);

/* Prints the usage error for getopt's '?' (unknown flag or missing value). */
void arena_getopt_error(const char *cmd, char **argv);

/* ---- checks of the command line, each printing its usage error ------------ */

/* The longest time a flag takes: one day, in milliseconds. */
#define ARENA_MAX_MS 86400000u

/* Parses a time flag (--move-ms, --bank-ms, --startup-ms): milliseconds
 * from 0 (1 if positive) to ARENA_MAX_MS. Prints the usage error naming
 * flag and returns false otherwise. */
bool arena_parse_ms(const char *flag, const char *s, bool positive, uint32_t *out);

/* Finds a game by name; on failure prints a usage error listing the games. */
const ja_game_rules *arena_find_game(const char *name);

/* The exit status for an error rc of the ladder database (ladder_db.h):
 * EXIT_USAGE when the file given is unusable (JA_EIO, JA_EVERSION,
 * JA_EFORMAT), EXIT_RUNTIME when the run failed. */
int arena_db_status(int rc);

/* ---- outputs ---------------------------------------------------------------- */

/* How an output path is written (arena_outputs_check). */
enum {
    ARENA_OUT_FILE = 0,   /* a file written whole through outfile.h */
    ARENA_OUT_STDOUT = 1, /* ... where "-" is the standard output */
    ARENA_OUT_DIR = 2,    /* a directory, missing (made) or there */
    ARENA_OUT_DB = 4,     /* a SQLite database (--db): missing or a regular file */
};

/* One output of a command: its flag (for messages), its path (NULL: not
 * given) and how it is written. */
typedef struct arena_output {
    const char *flag;
    const char *path;
    unsigned how;
} arena_output;

/* Checks every output of a command before anything runs: a file must be
 * missing (in an existing, writable directory) or a regular file, a
 * directory missing (its parent there) or a directory; whatever else is
 * there (FIFO, device, socket, symbolic link, even to a regular file, or a
 * directory where a file goes) is refused, as is "-" where the standard
 * output is not possible, "-" for two outputs, "-" while stdout_user (e.g.
 * "--json", NULL for none) writes to the standard output, and one path for
 * two outputs. Prints one line and returns false. When an output is "-",
 * the standard output becomes that output's (ref_out_stdout) and what the
 * command prints besides goes to standard error. */
bool arena_outputs_check(const arena_output *outs, size_t n, const char *stdout_user);

/* arena_outputs_check for one --db FILE. */
bool arena_db_check(const char *path);

#endif /* ARENA_FLAGS_H */
