/* Curated deal sets (deals.h). */
#include "deals.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"
#include "ladder_err.h"
#include "ladder_db.h"

/* The line's content: from its first non-blank to before a '#' or the end,
 * trailing blanks cut; into buf (cap bytes; longer lines are cut, and then
 * fail to parse). */
static void content(const char *line, size_t len, char *buf, size_t cap)
{
    size_t i = 0, n = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
        i++;
    while (i < len && line[i] != '#' && n + 1 < cap)
        buf[n++] = line[i++];
    while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\t' || buf[n - 1] == '\r'))
        n--;
    buf[n] = '\0';
}

/* The header's check: "jackarena-deals V" with V this version. */
static int check_header(const char *c, const char *name, unsigned line, char *err, size_t cap)
{
    size_t m = strlen(LADDER_DEALS_MAGIC);
    char *end;
    if (strncmp(c, LADDER_DEALS_MAGIC, m) != 0 || (c[m] != ' ' && c[m] != '\t')) {
        ladder_set_err(err, cap, "%s:%u: not a deal set (the first line must be '%s %d')", name,
                       line, LADDER_DEALS_MAGIC, LADDER_DEALS_VERSION);
        return JA_EFORMAT;
    }
    errno = 0;
    unsigned long v = strtoul(c + m + 1, &end, 10);
    if (errno || *end || v == 0) {
        ladder_set_err(err, cap, "%s:%u: the deal set's version '%s' is not a number", name, line,
                       c + m + 1);
        return JA_EFORMAT;
    }
    if (v != LADDER_DEALS_VERSION) {
        ladder_set_err(err, cap, "%s:%u: deal set version %lu; this arena reads version %d", name,
                       line, v, LADDER_DEALS_VERSION);
        return JA_EVERSION;
    }
    return JA_OK;
}

int ladder_deals_parse(const char *text, const char *name, uint64_t **out, uint32_t *n,
                       char *err, size_t cap)
{
    *out = NULL;
    *n = 0;
    uint64_t *a = NULL;
    uint32_t k = 0, acap = 0;
    unsigned line = 0;
    bool header = false;
    int rc = JA_OK;
    for (const char *p = text; rc == JA_OK && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char c[96];
        content(p, len, c, sizeof c);
        line++;
        p += len + (nl != NULL);
        if (!c[0])
            continue;
        if (!header) {
            rc = check_header(c, name, line, err, cap);
            header = true;
            continue;
        }
        uint64_t seed;
        if (ladder_seed_parse(c, &seed) != JA_OK) {
            ladder_set_err(err, cap,
                           "%s:%u: '%.40s' is not a seed (a decimal number up to %" PRIu64 ")",
                           name, line, c, UINT64_MAX);
            rc = JA_EFORMAT;
        } else if (k == LADDER_DEALS_MAX) {
            ladder_set_err(err, cap, "%s:%u: more than %u deals", name, line, LADDER_DEALS_MAX);
            rc = JA_EFORMAT;
        } else {
            if (k == acap)
                a = ja_xrealloc(a, (acap = acap ? 2 * acap : 64) * sizeof *a);
            a[k++] = seed;
        }
    }
    if (rc == JA_OK && k == 0) {
        ladder_set_err(err, cap,
                       header ? "%s:%u: no deal in the set" : "%s:%u: empty file, not a deal set",
                       name, line ? line : 1);
        rc = JA_EFORMAT;
    }
    if (rc != JA_OK) {
        free(a);
        return rc;
    }
    *out = a;
    *n = k;
    return JA_OK;
}

int ladder_deals_read(const char *path, uint64_t **out, uint32_t *n, char *err, size_t cap)
{
    *out = NULL;
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        ladder_set_err(err, cap, "cannot read the deal set '%s': %s", path, strerror(errno));
        return JA_EIO;
    }
    size_t len = 0, tcap = 4096;
    char *text = ja_xmalloc(tcap);
    size_t got;
    while ((got = fread(text + len, 1, tcap - len - 1, f)) > 0) {
        len += got;
        if (tcap - len - 1 == 0)
            text = ja_xrealloc(text, tcap *= 2);
    }
    bool bad = ferror(f) != 0 || memchr(text, '\0', len) != NULL;
    fclose(f);
    text[len] = '\0';
    int rc = JA_EIO;
    if (bad)
        ladder_set_err(err, cap, "cannot read the deal set '%s': not a text file", path);
    else
        rc = ladder_deals_parse(text, path, out, n, err, cap);
    free(text);
    return rc;
}

void ladder_deals_hash(const uint64_t *deals, uint32_t n, char hex[65])
{
    crypto_hash_sha256_state st;
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256_init(&st);
    for (uint32_t i = 0; i < n; i++) {
        char s[24];
        int len = snprintf(s, sizeof s, "%" PRIu64 "\n", deals[i]);
        crypto_hash_sha256_update(&st, (const unsigned char *)s, (unsigned long long)len);
    }
    crypto_hash_sha256_final(&st, h);
    sodium_bin2hex(hex, 65, h, sizeof h);
}

/* ---- Choosing deals ------------------------------------------------------------ */

/* One seat's pairwise result on a deal, as it comes. */
typedef struct deal_entry {
    uint64_t seed;
    int64_t bot;
    int64_t match;
    double result;
} deal_entry;

struct ladder_deals_acc {
    deal_entry *e;
    size_t n, cap;
};

ladder_deals_acc *ladder_deals_acc_new(void)
{
    return ja_xcalloc(1, sizeof(ladder_deals_acc));
}

void ladder_deals_acc_free(ladder_deals_acc **a)
{
    if (!a || !*a)
        return;
    free((*a)->e);
    free(*a);
    *a = NULL;
}

void ladder_deals_acc_add(ladder_deals_acc *a, const ladder_match_row *m)
{
    if (!m->has_seed || m->n_seats < 2)
        return;
    for (uint32_t s = 0; s < m->n_seats; s++) {
        double r = 0;
        for (uint32_t o = 0; o < m->n_seats; o++)
            if (o != s)
                r += m->place[s] < m->place[o] ? 1.0 : m->place[s] == m->place[o] ? 0.5 : 0.0;
        if (a->n == a->cap)
            a->e = ja_xrealloc(a->e, (a->cap = a->cap ? 2 * a->cap : 256) * sizeof *a->e);
        a->e[a->n++] = (deal_entry){m->seed, m->bot_id[s], m->match_id,
                                    r / (double)(m->n_seats - 1)};
    }
}

static int cmp_entry(const void *x, const void *y)
{
    const deal_entry *a = x, *b = y;
    if (a->seed != b->seed)
        return a->seed < b->seed ? -1 : 1;
    if (a->bot != b->bot)
        return a->bot < b->bot ? -1 : 1;
    return a->match < b->match ? -1 : a->match > b->match;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

static int cmp_score(const void *x, const void *y)
{
    const ladder_deal_score *a = x, *b = y;
    if (a->separation != b->separation)
        return a->separation > b->separation ? -1 : 1;
    if (a->bots != b->bots)
        return a->bots > b->bots ? -1 : 1;
    return a->seed < b->seed ? -1 : a->seed > b->seed;
}

/* The score of the deal of entries e[0 .. n-1] (one seed, sorted by bot). */
static ladder_deal_score score_deal(const deal_entry *e, size_t n)
{
    ladder_deal_score d = {e[0].seed, 0, 0, 0};
    double sum = 0, sum2 = 0;
    int64_t last_match = -1;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        double r = 0;
        for (; j < n && e[j].bot == e[i].bot; j++)
            r += e[j].result;
        r /= (double)(j - i);
        sum += r;
        sum2 += r * r;
        d.bots++;
        i = j;
    }
    /* Matches: distinct ids (an entry per seat). */
    int64_t *ids = ja_xcalloc(n, sizeof *ids);
    for (size_t i = 0; i < n; i++)
        ids[i] = e[i].match;
    qsort(ids, n, sizeof *ids, cmp_i64);
    for (size_t i = 0; i < n; i++)
        if (ids[i] != last_match) {
            d.matches++;
            last_match = ids[i];
        }
    free(ids);
    double mean = sum / d.bots;
    d.separation = sum2 / d.bots - mean * mean;
    if (d.separation < 0)
        d.separation = 0;
    return d;
}

void ladder_deals_rank(const ladder_deals_acc *a, ladder_deal_score **out, uint32_t *n)
{
    deal_entry *e = ja_xcalloc(a->n ? a->n : 1, sizeof *e);
    if (a->n)
        memcpy(e, a->e, a->n * sizeof *e);
    qsort(e, a->n, sizeof *e, cmp_entry);
    ladder_deal_score *d = ja_xcalloc(a->n ? a->n : 1, sizeof *d);
    uint32_t k = 0;
    for (size_t i = 0; i < a->n;) {
        size_t j = i;
        while (j < a->n && e[j].seed == e[i].seed)
            j++;
        ladder_deal_score s = score_deal(&e[i], j - i);
        if (s.bots >= 2)
            d[k++] = s;
        i = j;
    }
    qsort(d, k, sizeof *d, cmp_score);
    free(e);
    *out = d;
    *n = k;
}

int ladder_deals_write(FILE *f, const ladder_deal_score *d, uint32_t n,
                       const char *const *comment, uint32_t n_comment)
{
    fprintf(f, "%s %d\n", LADDER_DEALS_MAGIC, LADDER_DEALS_VERSION);
    for (uint32_t i = 0; i < n_comment; i++)
        fprintf(f, "# %s\n", comment[i]);
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%" PRIu64 "  # separation %.6f, %u bots, %u matches\n", d[i].seed,
                d[i].separation, d[i].bots, d[i].matches);
    return fflush(f) == 0 && !ferror(f) ? JA_OK : JA_EIO;
}
