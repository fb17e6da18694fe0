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
#include <stdio.h>

/* Exit statuses (CLI.md). */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* Prints "arena: error: <message>" on stderr as one line. */
void arena_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parses a decimal uint64 ("7", "18446744073709551615"). */
bool arena_parse_u64(const char *s, uint64_t *out);
bool arena_parse_u32(const char *s, uint32_t *out);
/* The n bytes at s as a decimal number without sign or leading zero, at
 * most max, whole, into *out. */
bool arena_parse_dec(const char *s, size_t n, uint64_t max, uint64_t *out);

/* Parses an --http HOST:PORT: an IPv4 address, "localhost" (127.0.0.1), or
 * an IPv6 address in brackets ([::1]:8080), and a port from min_port to
 * 65535 (0: any free port, chosen when it is bound). host receives the
 * numeric address, *v6 whether it is IPv6, *loopback whether it is a
 * loopback address (127.0.0.0/8 or ::1). One-line error in err. */
bool arena_http_addr(const char *s, uint16_t min_port, char *host, size_t host_cap, uint16_t *port,
                     bool *v6, bool *loopback, char *err, size_t cap);

/* A fresh random seed from the system (libsodium). */
uint64_t arena_random_seed(void);

/* Formats a score in units of 1/JA_SCORE_UNIT as a short decimal ("2.5"). */
void arena_format_score(int64_t units, char *buf, size_t cap);

/* Table columns sized to what they hold: the columns a text of UTF-8
 * takes (one per character: a byte that does not continue a sequence), the
 * widest of `floor` and those of a column's texts, and a text written
 * left-aligned in `width` columns (never cut: a wider one pushes the rest
 * of its line). */
int arena_text_cols(const char *s);
int arena_col_width(int floor, int cols);
void arena_put_col(FILE *out, const char *s, int width);

/* Writes s (NULL: nothing) to f with &, <, >, " and ' escaped as HTML
 * entities, and control characters other than tab and newline dropped:
 * text for an element or an attribute value of the server's and the
 * report's pages. */
void arena_html(FILE *f, const char *s);

#endif /* ARENA_UTIL_H */
