/* Curated deal sets (--deals FILE; docs/tournament-plan.md, "Curated
 * deals"): a versioned text file of match seeds, read into the plan's
 * deals (plan.h), and written by `arena ladder deals`.
 *
 * The format, version 1:
 *
 *   jackarena-deals 1
 *   # a comment: any line starting with '#', and blank lines, are skipped
 *   12345678901234567890
 *   42  # a seed, then optionally a comment after '#'
 *
 * The first line that is not blank nor a comment is the header; each line
 * after it holds one seed, canonical decimal (0 .. 2^64-1, no sign, no
 * leading zero). At least one seed, at most LADDER_DEALS_MAX. */
#ifndef JA_LADDER_DEALS_H
#define JA_LADDER_DEALS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version this code reads and writes. */
#define LADDER_DEALS_VERSION 1
/* The header's first word. */
#define LADDER_DEALS_MAGIC "jackarena-deals"
/* Most seeds in one set. */
#define LADDER_DEALS_MAX 1000000u

/* Parses the NUL-terminated text of a deal set named `name` (for the
 * messages) into a new array *out of *n seeds (free()). JA_OK; JA_EFORMAT
 * with one line in err naming the file and the line ("deals.txt:3: 'x1' is
 * not a seed (a decimal number up to 18446744073709551615)"); JA_EVERSION
 * for a newer version. */
int ladder_deals_parse(const char *text, const char *name, uint64_t **out, uint32_t *n,
                       char *err, size_t cap);

/* Reads and parses the file at path: ladder_deals_parse's results, and
 * JA_EIO when it cannot be read (err names it and why). */
int ladder_deals_read(const char *path, uint64_t **out, uint32_t *n, char *err, size_t cap);

/* The set's identity: the SHA-256 of its seeds' canonical text, one a line
 * ("1\n2\n"), as 64 lowercase hex digits and a NUL. */
void ladder_deals_hash(const uint64_t *deals, uint32_t n, char hex[65]);

#ifdef __cplusplus
}
#endif
#endif /* JA_LADDER_DEALS_H */
