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

/* ---- Choosing deals from a ladder (`arena ladder deals`) ----------------------- */

struct ladder_match_row;

/* The deals that separated the bots most. A match's seat earns its pairwise
 * result, the share of the other seats it finished ahead of (a shared
 * place half), in [0, 1]; a bot's result on a deal is the mean of its
 * seats' over the deal's matches (every match of any tournament of the
 * ladder dealt with that seed); a deal's separation is the variance of
 * those results over the bots that played it (population variance). A
 * deal on which every bot did as well as every other (all luck, or all
 * seats equal) separates nothing: 0. */
typedef struct ladder_deal_score {
    uint64_t seed;
    uint32_t bots, matches;
    double separation;
} ladder_deal_score;

typedef struct ladder_deals_acc ladder_deals_acc;

/* A new accumulator (ladder_deals_acc_free). */
ladder_deals_acc *ladder_deals_acc_new(void);
void ladder_deals_acc_free(ladder_deals_acc **a);

/* Adds match m (a match without a seed is skipped). */
void ladder_deals_acc_add(ladder_deals_acc *a, const struct ladder_match_row *m);

/* The deals played by at least two bots, best separation first (ties: the
 * more bots, then the lower seed), into a new array *out of *n (free()). */
void ladder_deals_rank(const ladder_deals_acc *a, ladder_deal_score **out, uint32_t *n);

/* Writes a deal set: the header, `comment` lines (each prefixed '# ';
 * NULL: none), then each deal's seed with its separation as a comment.
 * JA_OK or JA_EIO. */
int ladder_deals_write(FILE *f, const ladder_deal_score *d, uint32_t n,
                       const char *const *comment, uint32_t n_comment);

#ifdef __cplusplus
}
#endif
#endif /* JA_LADDER_DEALS_H */
