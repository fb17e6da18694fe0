/* Helpers of the arena library and its commands: exit statuses, one-line
 * errors, number and time parsing, seeds, game lookup, scores, and the check
 * of a command's outputs before anything runs. */
#ifndef ARENA_UTIL_H
#define ARENA_UTIL_H

#include "jackarena/ja_rules.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* The exit status for an error rc of the ladder database (ladder_db.h):
 * EXIT_USAGE when the file given is unusable (JA_EIO, JA_EVERSION,
 * JA_EFORMAT), EXIT_RUNTIME when the run failed. */
int arena_db_status(int rc);

/* Formats a score in units of 1/JA_SCORE_UNIT as a short decimal ("2.5"). */
void arena_format_score(int64_t units, char *buf, size_t cap);

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

#endif /* ARENA_UTIL_H */
