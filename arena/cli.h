/* Shared pieces of the `arena` command: exit codes, error reporting, bot
 * specifiers (the JSON writer: json_w.h). Each command lives in cmd_<name>.c. */
#ifndef ARENA_CLI_H
#define ARENA_CLI_H

#include "jackarena/ja_rules.h"
#include "json_w.h"
#include "seat.h"

#include <stdbool.h>
#include <stdio.h>

/* Exit statuses (CLI.md). */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* Prints "arena: error: <message>" on stderr as one line. */
void arena_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parses a decimal uint64 ("7", "18446744073709551615"). */
bool arena_parse_u64(const char *s, uint64_t *out);
bool arena_parse_u32(const char *s, uint32_t *out);

/* The longest time a flag takes: one day, in milliseconds. */
#define ARENA_MAX_MS 86400000u

/* Parses a time flag (--move-ms, --bank-ms, --startup-ms): milliseconds
 * from 0 (1 if positive) to ARENA_MAX_MS. Prints the usage error naming
 * flag and returns false otherwise. */
bool arena_parse_ms(const char *flag, const char *s, bool positive, uint32_t *out);

/* A fresh random seed from the system (libsodium). */
uint64_t arena_random_seed(void);

/* Finds a game by name; on failure prints a usage error listing the games. */
const ja_game_rules *arena_find_game(const char *name);

/* Formats a score in units of 1/JA_SCORE_UNIT as a short decimal ("2.5"). */
void arena_format_score(int64_t units, char *buf, size_t cap);

/* ---- bot specifiers ------------------------------------------------------- */

#define ARENA_MAX_BOTS 64

/* One participant as named on the command line. */
typedef struct arena_bot {
    char spec[1024];     /* as given */
    char name[64];       /* display name: NAME= prefix, or derived; "#2" for repeats */
    char kind[16];       /* plugin, hosted, cmd, zmq */
    char target[1024];   /* path of the .so for plugins; the command (cmd:); the name (zmq:) */
    bool builtin;        /* a reference bot (random, greedy, ismcts) */
    char params[256];    /* the bot's parameters ("iters=50" of ismcts:iters=50, of
                          * cmd[iters=50]:...); "" for none. The bot judges them */
    ref_bot *bot;        /* loaded, shared by participants with the same target+params */
    bool owns_bot;
    struct ref_proc *proc; /* a cmd: bot's process (extbots.h) */
    struct ref_tail *tail; /* the last bytes of its output, across restarts */
    char token[65];      /* a cmd: bot's credential, granted before any cmd: bot
                          * starts (arena_ext_reserve), until its process gets it */
} arena_bot;

typedef struct arena_bots {
    arena_bot b[ARENA_MAX_BOTS];
    int n;
    /* External-bot settings and state (extbots.h); NULL: the defaults. */
    struct arena_ext *ext;
} arena_bots;

/* Adds one specifier (`arena play --help`: reference word, path, hosted:,
 * cmd:, zmq:, each with parameters but zmq:; NAME=SPEC). Usage errors are
 * printed; returns false. */
bool arena_bots_add(arena_bots *bs, const char *spec);
/* Splits a comma list and adds each. */
bool arena_bots_add_list(arena_bots *bs, const char *list);
/* Gives repeated names their "#2", "#3" suffixes; rejects clashing NAME=. */
bool arena_bots_finish_names(arena_bots *bs);
/* Loads every bot and checks it plays game g (NULL: no check). First the
 * external-bot flags are checked (arena_ext_check), whether or not a bot
 * is external. Usage errors (missing file, not a plugin, wrong ABI, does
 * not play g; an external bot that never says hello) are printed. External
 * bots start the hub (extbots.h). */
bool arena_bots_load(arena_bots *bs, const ja_game_rules *g);
/* True if any participant is an external bot (cmd:, zmq:). */
bool arena_bots_external(const arena_bots *bs);
/* Frees every bot; stops external bots, their processes and the hub. */
void arena_bots_free(arena_bots *bs);

/* Directory holding the reference bot plugins (ja_<name>.so). */
const char *arena_bots_dir(void);

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

/* Prints the usage error for getopt's '?' (unknown flag or missing value). */
void arena_getopt_error(const char *cmd, char **argv);

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

/* ---- commands ------------------------------------------------------------- */

int cmd_games(int argc, char **argv);
int cmd_bots(int argc, char **argv);
int cmd_play(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_tournament(int argc, char **argv);
int cmd_ladder(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_conformance(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif /* ARENA_CLI_H */
