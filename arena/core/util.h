/* Helpers of the arena library and its commands: exit statuses, one-line
 * errors (the commands' and the server's log), number parsing, seeds and
 * scores. What checks a command's flags and outputs, printing its usage
 * errors, is cli/flags.h's. */
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

/* A fresh random seed from the system (libsodium). */
uint64_t arena_random_seed(void);

/* Formats a score in units of 1/JA_SCORE_UNIT as a short decimal ("2.5"). */
void arena_format_score(int64_t units, char *buf, size_t cap);

#endif /* ARENA_UTIL_H */
