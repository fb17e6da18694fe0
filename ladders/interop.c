/* PGN and JSON Lines readers and writers (see interop.h and
 * docs/ratings.md).
 *
 * Invariants: a reader never stops half-way with a partial result: it
 * either returns a complete set or an error with nothing; every string the
 * set hands out lives as long as the set (each is its own allocation, so
 * growing an array never moves it); bots and ladders are interned, so the
 * import names each identity once. */
#include "interop.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sodium.h>

#include "jackarena/ja_error.h"
#include "jackarena/ja_rules.h"
#include "ja_xalloc.h"

#define MAX_OPTS JA_MAX_OPTIONS

/* ---- A string -> index map (FNV-1a, open addressing) ----------------------- */

typedef struct strmap {
    char **key;
    uint32_t *val;
    size_t cap, n;
} strmap;

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void strmap_free(strmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->key[i]);
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof *m);
}

/* The value of key, or UINT32_MAX. */
static uint32_t strmap_get(const strmap *m, const char *key)
{
    if (m->cap == 0)
        return UINT32_MAX;
    for (size_t i = fnv1a(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->key[i] == NULL)
            return UINT32_MAX;
        if (strcmp(m->key[i], key) == 0)
            return m->val[i];
    }
}

static void strmap_put(strmap *m, const char *key, uint32_t val)
{
    if ((m->n + 1) * 10 >= m->cap * 7) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        char **k = ja_xcalloc(cap, sizeof *k);
        uint32_t *v = ja_xcalloc(cap, sizeof *v);
        for (size_t i = 0; i < m->cap; i++) {
            if (m->key[i] == NULL)
                continue;
            size_t j = fnv1a(m->key[i]) & (cap - 1);
            while (k[j] != NULL)
                j = (j + 1) & (cap - 1);
            k[j] = m->key[i];
            v[j] = m->val[i];
        }
        free(m->key);
        free(m->val);
        m->key = k;
        m->val = v;
        m->cap = cap;
    }
    size_t i = fnv1a(key) & (m->cap - 1);
    while (m->key[i] != NULL)
        i = (i + 1) & (m->cap - 1);
    m->key[i] = ja_xstrdup(key);
    m->val[i] = val;
    m->n++;
}

/* ---- The set ------------------------------------------------------------------ */

struct ladder_import_set {
    ladder_import imp;
    char *file;
    char format[8];
    char sha256[LADDER_SHA256_HEX];
    char **strs; /* every owned string */
    size_t n_strs, cap_strs;
    ladder_key *ladders;
    uint32_t n_ladders, cap_ladders;
    ladder_bot *bots;
    uint32_t n_bots, cap_bots;
    ladder_import_match *matches;
    uint32_t n_matches, cap_matches;
    ladder_import_seat *seats;
    uint32_t n_seats, cap_seats;
    ladder_import_source *sources;
    uint32_t n_sources, cap_sources;
    uint32_t skipped;
    strmap ladder_ix, bot_ix, source_ix;
};

/* The reader's state: where it is, and the error it reports. */
typedef struct reader {
    ladder_import_set *set;
    const ladder_reader_opts *o;
    const char *name;
    uint32_t line;
    char *err;
    size_t cap;
} reader;

/* One seat as a reader found it, before interning. */
typedef struct raw_seat {
    char bot[LADDER_NAME_MAX];
    char version[LADDER_VERSION_MAX];
    char sha256[LADDER_SHA256_HEX];
    bool has_score, has_place;
    int64_t score;
    int64_t place;
} raw_seat;

/* One match as a reader found it. */
typedef struct raw_match {
    uint32_t line;
    char game[LADDER_NAME_MAX]; /* "" = not given */
    const char *opts[MAX_OPTS];
    uint32_t n_opts;
    char opt_buf[MAX_OPTS][LADDER_OPTIONS_MAX];
    char source[LADDER_SOURCE_MAX]; /* "" = none */
    bool source_int;                /* it was a JSON integer */
    int64_t number;                 /* "match", -1 = none */
    bool has_seed;
    uint64_t seed;
    int64_t turns;
    char digest[LADDER_DIGEST_HEX];
    uint32_t n_seats;
    raw_seat seat[JA_MAX_SEATS];
} raw_match;

__attribute__((format(printf, 3, 4))) static int fail(reader *r, int rc, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->line)
        snprintf(r->err, r->cap, "%s:%u: %s", r->name, r->line, msg);
    else
        snprintf(r->err, r->cap, "%s: %s", r->name, msg);
    for (char *c = r->err; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    return rc;
}

static void grow(void **a, uint32_t *cap, uint32_t n, size_t size)
{
    if (n < *cap)
        return;
    uint32_t c = *cap ? *cap * 2 : 64;
    *a = ja_xrealloc(*a, (size_t)c * size);
    *cap = c;
}

/* An owned copy of s that lives as long as the set. */
static const char *keep(ladder_import_set *s, const char *str)
{
    if (s->n_strs == s->cap_strs) {
        size_t c = s->cap_strs ? s->cap_strs * 2 : 64;
        s->strs = ja_xrealloc(s->strs, c * sizeof *s->strs);
        s->cap_strs = c;
    }
    char *d = ja_xstrdup(str);
    s->strs[s->n_strs++] = d;
    return d;
}

void ladder_import_set_free(ladder_import_set **p)
{
    if (p == NULL || *p == NULL)
        return;
    ladder_import_set *s = *p;
    for (size_t i = 0; i < s->n_strs; i++)
        free(s->strs[i]);
    free(s->strs);
    free(s->file);
    free(s->ladders);
    free(s->bots);
    free(s->matches);
    free(s->seats);
    free(s->sources);
    strmap_free(&s->ladder_ix);
    strmap_free(&s->bot_ix);
    strmap_free(&s->source_ix);
    free(s);
    *p = NULL;
}

const ladder_import *ladder_import_set_get(const ladder_import_set *s)
{
    return s != NULL ? &s->imp : NULL;
}

/* True when s is valid UTF-8 without control characters. */
static bool clean_text(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (*p < 0x20 || *p == 0x7f)
            return false;
        int extra = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2
                                 : (*p & 0xf8) == 0xf0 ? 3 : -1;
        if (extra < 0 || (extra == 1 && *p < 0xc2))
            return false;
        p++;
        for (int i = 0; i < extra; i++, p++)
            if ((*p & 0xc0) != 0x80)
                return false;
    }
    return true;
}

static bool is_hex64(const char *s)
{
    if (strlen(s) != 64)
        return false;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return false;
    return true;
}

/* Checks that places are a competition ranking (1, 1, 3): a place p is
 * held by a seat only when exactly p - 1 seats are placed better. */
static bool competition_ranking(const int64_t *place, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (place[i] < 1 || place[i] > (int64_t)n)
            return false;
        uint32_t better = 0;
        for (uint32_t j = 0; j < n; j++)
            better += place[j] < place[i];
        if (better != place[i] - 1)
            return false;
    }
    return true;
}

/* The room of a key of the set's maps: a ladder (game, seats, options), a
 * source tournament or a bot. */
#define KEY_MAX (LADDER_NAME_MAX + LADDER_OPTIONS_MAX + 32)

/* The game of m: its own, else the reader's (--game); when both say one,
 * they agree. JA_OK with *game set, or JA_EINVAL. */
static int match_game(reader *r, const raw_match *m, const char **game)
{
    *game = m->game[0] ? m->game : r->o->game;
    if (*game == NULL || (*game)[0] == '\0')
        return fail(r, JA_EINVAL, "the result names no game (give --game GAME)");
    if (r->o->game != NULL && m->game[0] && strcmp(m->game, r->o->game) != 0)
        return fail(r, JA_EINVAL, "the result is of game '%s', not '%s' as --game says", m->game,
                    r->o->game);
    return JA_OK;
}

/* The seats' names and identities, and which of places and scores they
 * give: each of them all seats or none, and one at least. JA_OK or
 * JA_EFORMAT. */
static int check_seats(reader *r, const raw_match *m, bool *all_place, bool *all_score)
{
    bool any_place = false, any_score = false;
    *all_place = *all_score = true;
    for (uint32_t i = 0; i < m->n_seats; i++) {
        const raw_seat *st = &m->seat[i];
        if (st->bot[0] == '\0')
            return fail(r, JA_EFORMAT, "seat %u has no bot name", i);
        if (!clean_text(st->bot) || !clean_text(st->version))
            return fail(r, JA_EFORMAT,
                        "the name or version of seat %u is not UTF-8 text without control "
                        "characters",
                        i);
        if (st->sha256[0] && !is_hex64(st->sha256))
            return fail(r, JA_EFORMAT, "sha256 of seat %u is not 64 lowercase hex digits", i);
        any_place |= st->has_place;
        *all_place &= st->has_place;
        any_score |= st->has_score;
        *all_score &= st->has_score;
    }
    if (any_place && !*all_place)
        return fail(r, JA_EFORMAT, "some seats have a place and some do not");
    if (any_score && !*all_score)
        return fail(r, JA_EFORMAT, "some seats have a score and some do not");
    if (!any_place && !any_score)
        return fail(r, JA_EFORMAT, "the seats have neither places nor scores");
    return JA_OK;
}

/* The seats' places: as given (a competition ranking), else ranked by
 * their scores. JA_OK or JA_EFORMAT. */
static int match_places(reader *r, const raw_match *m, bool all_place,
                        int64_t place[JA_MAX_SEATS])
{
    if (all_place) {
        for (uint32_t i = 0; i < m->n_seats; i++)
            place[i] = m->seat[i].place;
        if (!competition_ranking(place, m->n_seats))
            return fail(r, JA_EFORMAT,
                        "places must be a competition ranking of the %u seats (1, 1, 3)",
                        m->n_seats);
        return JA_OK;
    }
    ja_outcome o;
    memset(&o, 0, sizeof o);
    o.n_seats = m->n_seats;
    for (uint32_t i = 0; i < m->n_seats; i++)
        o.score[i] = m->seat[i].score;
    ja_outcome_rank(&o);
    for (uint32_t i = 0; i < m->n_seats; i++)
        place[i] = o.place[i];
    return JA_OK;
}

/* Scores for seats that gave none: the seat's share of its pairwise
 * points, so a two-player win is 1, a draw 1/2 (docs/ratings.md). */
static void scores_from_places(raw_match *m, const int64_t place[JA_MAX_SEATS])
{
    for (uint32_t i = 0; i < m->n_seats; i++) {
        int64_t half = 0;
        for (uint32_t j = 0; j < m->n_seats; j++)
            if (j != i)
                half += place[i] < place[j] ? 2 : place[i] == place[j] ? 1 : 0;
        m->seat[i].score = half * JA_SCORE_UNIT / (2 * (int64_t)(m->n_seats - 1));
    }
}

/* The canonical ladder of m (the resolver's game and options, m's seat
 * count), interned: *lad its index in the set. JA_OK, or JA_EINVAL (the
 * resolver's refusal). */
static int intern_ladder(reader *r, const raw_match *m, const char *game, uint32_t *lad)
{
    ladder_import_set *s = r->set;
    char g[LADDER_NAME_MAX], opts[LADDER_OPTIONS_MAX], why[300] = "";
    if (r->o->resolve(r->o->ctx, game, m->opts, m->n_opts, m->n_seats, g, opts, why, sizeof why) !=
        JA_OK)
        return fail(r, JA_EINVAL, "%s", why[0] ? why : "the game or its options are not valid");
    char key[KEY_MAX];
    snprintf(key, sizeof key, "%s\x1f%u\x1f%s", g, m->n_seats, opts);
    if ((*lad = strmap_get(&s->ladder_ix, key)) != UINT32_MAX)
        return JA_OK;
    grow((void **)&s->ladders, &s->cap_ladders, s->n_ladders, sizeof *s->ladders);
    ladder_key *k = &s->ladders[s->n_ladders];
    k->game = keep(s, g);
    k->options = keep(s, opts);
    k->n_seats = m->n_seats;
    strmap_put(&s->ladder_ix, key, s->n_ladders);
    *lad = s->n_ladders++;
    return JA_OK;
}

/* The source tournament of m, interned: *src its number in the set (1 +
 * its index), 0 for none. Per ladder, so equal numbers in two ladders stay
 * apart (they are different tournaments anyway), and the number 7 is not
 * the string "7" (each is kept as given). */
static void intern_source(ladder_import_set *s, const raw_match *m, uint32_t lad, uint32_t *src)
{
    *src = 0;
    if (!m->source[0])
        return;
    char key[KEY_MAX];
    snprintf(key, sizeof key, "%u\x1f%c%s", lad, m->source_int ? 'i' : 's', m->source);
    if ((*src = strmap_get(&s->source_ix, key)) != UINT32_MAX)
        return;
    grow((void **)&s->sources, &s->cap_sources, s->n_sources, sizeof *s->sources);
    ladder_import_source *so = &s->sources[s->n_sources];
    so->label = keep(s, m->source);
    so->integer = m->source_int;
    *src = ++s->n_sources;
    strmap_put(&s->source_ix, key, *src);
}

/* The bot of seat st (name, version, sha256), interned: *b its index in
 * the set. */
static void intern_bot(ladder_import_set *s, const raw_seat *st, uint32_t *b)
{
    char key[KEY_MAX];
    snprintf(key, sizeof key, "%s\x1f%s\x1f%s", st->bot, st->version, st->sha256);
    if ((*b = strmap_get(&s->bot_ix, key)) != UINT32_MAX)
        return;
    grow((void **)&s->bots, &s->cap_bots, s->n_bots, sizeof *s->bots);
    ladder_bot *lb = &s->bots[s->n_bots];
    lb->name = keep(s, st->bot);
    lb->version = keep(s, st->version);
    lb->kind = "import";
    lb->spec = "";
    lb->sha256 = st->sha256[0] ? keep(s, st->sha256) : NULL;
    strmap_put(&s->bot_ix, key, s->n_bots);
    *b = s->n_bots++;
}

/* Appends m, of ladder lad and source src, to the set's matches, and its
 * seats with their bots and places to the set's seats. The match counts
 * only with two different bots at least (JA_EFORMAT otherwise). */
static int append_match(reader *r, const raw_match *m, uint32_t lad, uint32_t src,
                        const int64_t place[JA_MAX_SEATS])
{
    ladder_import_set *s = r->set;
    grow((void **)&s->matches, &s->cap_matches, s->n_matches, sizeof *s->matches);
    ladder_import_match *im = &s->matches[s->n_matches];
    memset(im, 0, sizeof *im);
    im->line = m->line;
    im->ladder = lad;
    im->source = src;
    im->number = m->number;
    im->n_seats = m->n_seats;
    im->first_seat = s->n_seats;
    im->has_seed = m->has_seed;
    im->seed = m->seed;
    im->turns = m->turns;
    snprintf(im->digest, sizeof im->digest, "%s", m->digest);
    for (uint32_t i = 0; i < m->n_seats; i++) {
        const raw_seat *st = &m->seat[i];
        uint32_t b;
        intern_bot(s, st, &b);
        grow((void **)&s->seats, &s->cap_seats, s->n_seats, sizeof *s->seats);
        s->seats[s->n_seats++] = (ladder_import_seat){b, st->score, (uint8_t)place[i]};
    }
    bool two = false;
    for (uint32_t i = 1; i < m->n_seats; i++)
        two |= s->seats[im->first_seat + i].bot != s->seats[im->first_seat].bot;
    if (!two)
        return fail(r, JA_EFORMAT, "a match needs at least two different bots");
    s->n_matches++;
    return JA_OK;
}

/* Validates a raw match, fills missing places or scores, resolves its
 * ladder and interns everything into the set. */
static int add_match(reader *r, raw_match *m)
{
    r->line = m->line;
    if (m->n_seats < 2)
        return fail(r, JA_EFORMAT, "a match needs at least 2 seats, not %u", m->n_seats);
    const char *game;
    bool all_place, all_score;
    int64_t place[JA_MAX_SEATS];
    uint32_t lad = 0, src = 0;
    int rc;
    if ((rc = match_game(r, m, &game)) != JA_OK ||
        (rc = check_seats(r, m, &all_place, &all_score)) != JA_OK ||
        (rc = match_places(r, m, all_place, place)) != JA_OK)
        return rc;
    if (!all_score)
        scores_from_places(m, place);
    if ((rc = intern_ladder(r, m, game, &lad)) != JA_OK)
        return rc;
    intern_source(r->set, m, lad, &src);
    return append_match(r, m, lad, src, place);
}

/* Splits "k=v k=v" into m->opts. */
static int split_options(reader *r, raw_match *m, const char *text)
{
    char buf[LADDER_OPTIONS_MAX];
    if (strlen(text) >= sizeof buf)
        return fail(r, JA_EFORMAT, "the options are longer than %d bytes", LADDER_OPTIONS_MAX - 1);
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *kv = strtok_r(buf, " \t", &save); kv; kv = strtok_r(NULL, " \t", &save)) {
        if (m->n_opts == MAX_OPTS)
            return fail(r, JA_EFORMAT, "more than %d options", MAX_OPTS);
        if (strchr(kv, '=') == NULL)
            return fail(r, JA_EFORMAT, "option '%s' is not KEY=VALUE", kv);
        snprintf(m->opt_buf[m->n_opts], sizeof m->opt_buf[m->n_opts], "%s", kv);
        m->opts[m->n_opts] = m->opt_buf[m->n_opts];
        m->n_opts++;
    }
    return JA_OK;
}

/* ---- PGN ---------------------------------------------------------------------- */

typedef struct pgn {
    reader *r;
    const char *start, *p, *end;
    uint32_t line;
} pgn;

static int pgn_peek(pgn *P)
{
    return P->p < P->end ? (unsigned char)*P->p : -1;
}

static int pgn_get(pgn *P)
{
    if (P->p >= P->end)
        return -1;
    int c = (unsigned char)*P->p++;
    if (c == '\n')
        P->line++;
    return c;
}

/* Skips white space and comments (';' to the end of the line, '{...}',
 * and '%' escape lines). */
static int pgn_skip(pgn *P)
{
    for (;;) {
        int c = pgn_peek(P);
        if (c == -1)
            return JA_OK;
        if (isspace(c)) {
            pgn_get(P);
        } else if (c == ';' || (c == '%' && (P->p == P->start || P->p[-1] == '\n'))) {
            while ((c = pgn_get(P)) != -1 && c != '\n')
                ;
        } else if (c == '{') {
            uint32_t at = P->line;
            pgn_get(P);
            while ((c = pgn_get(P)) != -1 && c != '}')
                ;
            if (c == -1) {
                P->r->line = at;
                return fail(P->r, JA_EFORMAT, "comment '{' is never closed");
            }
        } else {
            return JA_OK;
        }
    }
}

/* A tag pair after its '[': NAME "value" ']'. */
static int pgn_tag(pgn *P, char *name, size_t ncap, char *value, size_t vcap)
{
    reader *r = P->r;
    size_t n = 0;
    while (pgn_peek(P) == ' ' || pgn_peek(P) == '\t')
        pgn_get(P);
    int c;
    while ((c = pgn_peek(P)) != -1 && (isalnum(c) || c == '_')) {
        if (n + 1 < ncap)
            name[n++] = (char)c;
        pgn_get(P);
    }
    name[n] = '\0';
    if (n == 0)
        return fail(r, JA_EFORMAT, "a tag pair needs a name after '['");
    while (pgn_peek(P) == ' ' || pgn_peek(P) == '\t')
        pgn_get(P);
    if (pgn_get(P) != '"')
        return fail(r, JA_EFORMAT, "tag %s: its value must be a quoted string", name);
    n = 0;
    for (;;) {
        c = pgn_get(P);
        if (c == -1 || c == '\n')
            return fail(r, JA_EFORMAT, "tag %s: the string is not closed on its line", name);
        if (c == '"')
            break;
        if (c == '\\') {
            c = pgn_get(P);
            if (c != '"' && c != '\\')
                return fail(r, JA_EFORMAT, "tag %s: unknown escape in the string", name);
        }
        if (n + 1 >= vcap)
            return fail(r, JA_EFORMAT, "tag %s: the value is longer than %zu bytes", name,
                        vcap - 1);
        value[n++] = (char)c;
    }
    value[n] = '\0';
    while (pgn_peek(P) == ' ' || pgn_peek(P) == '\t')
        pgn_get(P);
    if (pgn_get(P) != ']')
        return fail(r, JA_EFORMAT, "tag %s: expected ']' after the value", name);
    return JA_OK;
}

/* 1 for "1-0", 2 for "0-1", 3 for "1/2-1/2", 4 for "*", 0 otherwise. */
static int result_code(const char *t)
{
    return strcmp(t, "1-0") == 0       ? 1
           : strcmp(t, "0-1") == 0     ? 2
           : strcmp(t, "1/2-1/2") == 0 ? 3
           : strcmp(t, "*") == 0       ? 4
                                       : 0;
}

/* The tags of a game that the reader keeps outside its raw_match. */
typedef struct pgn_tags {
    char white[LADDER_NAME_MAX + 1], black[LADDER_NAME_MAX + 1], result[16];
    bool has_white, has_black;
} pgn_tags;

/* Keeps what tag pair NAME "value" says, in m or t; other tags are read
 * and left. JA_OK or JA_EFORMAT. */
static int pgn_use_tag(reader *r, raw_match *m, pgn_tags *t, const char *name, const char *value)
{
    if (strcmp(name, "White") == 0 || strcmp(name, "Black") == 0) {
        if (strlen(value) >= LADDER_NAME_MAX)
            return fail(r, JA_EFORMAT, "tag %s: a name is at most %d bytes", name,
                        LADDER_NAME_MAX - 1);
        bool w = name[0] == 'W';
        snprintf(w ? t->white : t->black, LADDER_NAME_MAX, "%s", value);
        *(w ? &t->has_white : &t->has_black) = true;
    } else if (strcmp(name, "Result") == 0) {
        snprintf(t->result, sizeof t->result, "%s", value);
        if (!result_code(t->result))
            return fail(r, JA_EFORMAT, "tag Result: '%s' is not 1-0, 0-1, 1/2-1/2 or *", value);
    } else if (strcmp(name, "Game") == 0) {
        if (strlen(value) >= sizeof m->game)
            return fail(r, JA_EFORMAT, "tag Game: too long");
        snprintf(m->game, sizeof m->game, "%s", value);
    } else if (strcmp(name, "Options") == 0) {
        return split_options(r, m, value);
    } else if (strcmp(name, "Seed") == 0) {
        if (ladder_seed_parse(value, &m->seed) != JA_OK)
            return fail(r, JA_EFORMAT, "tag Seed: '%s' is not a decimal seed", value);
        m->has_seed = true;
    }
    return JA_OK;
}

/* The tag section: every tag pair before the movetext. */
static int pgn_tag_section(pgn *P, raw_match *m, pgn_tags *t)
{
    reader *r = P->r;
    for (;;) {
        int rc = pgn_skip(P);
        if (rc != JA_OK)
            return rc;
        if (pgn_peek(P) != '[')
            return JA_OK;
        r->line = P->line;
        pgn_get(P);
        char name[32], value[LADDER_OPTIONS_MAX];
        if ((rc = pgn_tag(P, name, sizeof name, value, sizeof value)) != JA_OK ||
            (rc = pgn_use_tag(r, m, t, name, value)) != JA_OK)
            return rc;
    }
}

/* One movetext token (a move number, a move, a NAG, a result) into token,
 * cut to cap - 1 bytes. JA_OK, or JA_EFORMAT at a character that starts
 * none. */
static int pgn_token(pgn *P, char *token, size_t cap)
{
    size_t n = 0;
    int c;
    while ((c = pgn_peek(P)) != -1 && !isspace(c) && c != '{' && c != '(' && c != ')' &&
           c != ';' && c != '[') {
        if (n + 1 < cap)
            token[n++] = (char)c;
        pgn_get(P);
    }
    if (n == 0)
        return fail(P->r, JA_EFORMAT, "unexpected character '%c'", pgn_get(P));
    token[n] = '\0';
    return JA_OK;
}

/* The movetext of the game m, up to its termination marker outside any
 * variation: *term is the marker's result_code, token holds it. */
static int pgn_movetext(pgn *P, const raw_match *m, int *term, char *token, size_t cap)
{
    reader *r = P->r;
    r->line = P->line;
    int depth = 0;
    *term = 0;
    while (!*term) {
        int rc = pgn_skip(P);
        if (rc != JA_OK)
            return rc;
        int c = pgn_peek(P);
        r->line = P->line;
        if (c == -1)
            return fail(r, JA_EFORMAT,
                        "the game that starts on line %u has no result token (1-0, 0-1, "
                        "1/2-1/2 or *)",
                        m->line);
        if (c == '[')
            return fail(r, JA_EFORMAT,
                        "a tag pair inside the moves: the game that starts on line %u has no "
                        "result token",
                        m->line);
        if (c == '(' || c == ')') {
            pgn_get(P);
            depth += c == '(' ? 1 : -1;
            if (depth < 0)
                return fail(r, JA_EFORMAT, "')' without '('");
            continue;
        }
        if ((rc = pgn_token(P, token, cap)) != JA_OK)
            return rc;
        if (depth == 0)
            *term = result_code(token);
    }
    return JA_OK;
}

/* The game as read agrees with itself: the Result tag (if any) with the
 * marker `token` (result code term), and two different players named. */
static int pgn_check_game(reader *r, const raw_match *m, const pgn_tags *t, int term,
                          const char *token)
{
    if (t->result[0] && result_code(t->result) != term)
        return fail(r, JA_EFORMAT, "the Result tag (%s) and the result token (%s) differ",
                    t->result, token);
    r->line = m->line;
    if (!t->has_white || !t->has_black || t->white[0] == '\0' || t->black[0] == '\0')
        return fail(r, JA_EFORMAT, "the game has no %s tag",
                    !t->has_white || !t->white[0] ? "White" : "Black");
    if (strcmp(t->white, t->black) == 0)
        return fail(r, JA_EFORMAT, "'%s' plays against itself", t->white);
    return JA_OK;
}

/* The two seats of a finished game: White's and Black's places by its
 * result code (1-0, 0-1 or a draw). */
static void pgn_seats(raw_match *m, const pgn_tags *t, int term)
{
    m->n_seats = 2;
    snprintf(m->seat[0].bot, sizeof m->seat[0].bot, "%s", t->white);
    snprintf(m->seat[1].bot, sizeof m->seat[1].bot, "%s", t->black);
    int64_t pw = term == 1 ? 1 : term == 2 ? 2 : 1, pb = term == 1 ? 2 : term == 2 ? 1 : 1;
    m->seat[0].has_place = m->seat[1].has_place = true;
    m->seat[0].place = pw;
    m->seat[1].place = pb;
}

/* One game, from its first tag to its termination marker. */
static int pgn_game(pgn *P)
{
    raw_match *m = ja_xcalloc(1, sizeof *m);
    m->line = P->line;
    m->turns = -1;
    m->number = -1;
    pgn_tags t;
    memset(&t, 0, sizeof t);
    char token[64];
    int term = 0;
    int rc = pgn_tag_section(P, m, &t);
    if (rc == JA_OK && (rc = pgn_movetext(P, m, &term, token, sizeof token)) == JA_OK &&
        (rc = pgn_check_game(P->r, m, &t, term, token)) == JA_OK) {
        if (term == 4) {
            P->r->set->skipped++; /* an unfinished game is no result */
        } else {
            pgn_seats(m, &t, term);
            rc = add_match(P->r, m);
        }
    }
    free(m);
    return rc;
}

static int parse_pgn(reader *r, const char *buf, size_t len)
{
    pgn P = {r, buf, buf, buf + len, 1};
    int rc;
    for (;;) {
        if ((rc = pgn_skip(&P)) != JA_OK)
            return rc;
        if (pgn_peek(&P) == -1)
            return JA_OK;
        if ((rc = pgn_game(&P)) != JA_OK)
            return rc;
    }
}

/* ---- JSON Lines ------------------------------------------------------------------ */

static int json_text(reader *r, json_t *v, const char *what, char *out, size_t cap)
{
    if (!json_is_string(v))
        return fail(r, JA_EFORMAT, "%s must be a string", what);
    if (json_string_length(v) >= cap)
        return fail(r, JA_EFORMAT, "%s is longer than %zu bytes", what, cap - 1);
    if (strlen(json_string_value(v)) != json_string_length(v))
        return fail(r, JA_EFORMAT, "%s contains a NUL character", what);
    snprintf(out, cap, "%s", json_string_value(v));
    return JA_OK;
}

/* "options": an object of KEY: VALUE, each a string or an integer, into
 * m's options as KEY=VALUE. */
static int json_options(reader *r, raw_match *m, json_t *v)
{
    if (!json_is_object(v))
        return fail(r, JA_EFORMAT, "\"options\" must be an object of KEY: VALUE");
    const char *k;
    json_t *ov;
    json_object_foreach(v, k, ov)
    {
        if (m->n_opts == MAX_OPTS)
            return fail(r, JA_EFORMAT, "more than %d options", MAX_OPTS);
        char *slot = m->opt_buf[m->n_opts];
        if (json_is_string(ov))
            snprintf(slot, LADDER_OPTIONS_MAX, "%s=%s", k, json_string_value(ov));
        else if (json_is_integer(ov))
            snprintf(slot, LADDER_OPTIONS_MAX, "%s=%" JSON_INTEGER_FORMAT, k,
                     json_integer_value(ov));
        else
            return fail(r, JA_EFORMAT, "option \"%s\" must be a string or an integer", k);
        m->opts[m->n_opts++] = slot;
    }
    return JA_OK;
}

/* What the match is of: "game", "options", "tournament" (an integer or a
 * string) and "match". */
static int json_ladder_fields(reader *r, raw_match *m, json_t *root)
{
    json_t *v;
    int rc;
    if ((v = json_object_get(root, "game")) != NULL &&
        (rc = json_text(r, v, "\"game\"", m->game, sizeof m->game)) != JA_OK)
        return rc;
    if ((v = json_object_get(root, "options")) != NULL && !json_is_null(v) &&
        (rc = json_options(r, m, v)) != JA_OK)
        return rc;
    if ((v = json_object_get(root, "tournament")) != NULL && !json_is_null(v)) {
        m->source_int = json_is_integer(v);
        if (json_is_integer(v))
            snprintf(m->source, sizeof m->source, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        else if ((rc = json_text(r, v, "\"tournament\"", m->source, sizeof m->source)) != JA_OK)
            return rc;
    }
    /* "match": kept as the match number when usable (ladder_import_match);
     * anything else is ignored (all of it was before schema version 4). */
    if ((v = json_object_get(root, "match")) != NULL && json_is_integer(v) &&
        json_integer_value(v) >= 0)
        m->number = json_integer_value(v);
    return JA_OK;
}

/* How the match was played: "seed" (a decimal string), "turns" and
 * "digest", each optional. */
static int json_play_fields(reader *r, raw_match *m, json_t *root)
{
    json_t *v;
    int rc;
    if ((v = json_object_get(root, "seed")) != NULL && !json_is_null(v)) {
        if (!json_is_string(v) || ladder_seed_parse(json_string_value(v), &m->seed) != JA_OK)
            return fail(r, JA_EFORMAT, "\"seed\" must be a decimal string (\"123\") or null");
        m->has_seed = true;
    }
    if ((v = json_object_get(root, "turns")) != NULL && !json_is_null(v)) {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return fail(r, JA_EFORMAT, "\"turns\" must be a non-negative integer");
        m->turns = json_integer_value(v);
    }
    if ((v = json_object_get(root, "digest")) != NULL && !json_is_null(v)) {
        if ((rc = json_text(r, v, "\"digest\"", m->digest, sizeof m->digest)) != JA_OK)
            return rc;
        if (!is_hex64(m->digest))
            return fail(r, JA_EFORMAT, "\"digest\" must be 64 lowercase hex digits");
    }
    return JA_OK;
}

/* Seat i, the object so: "bot", and optional "version", "sha256", "score"
 * and "place". */
static int json_seat(reader *r, json_t *so, uint32_t i, raw_seat *st)
{
    json_t *v;
    char what[48];
    int rc;
    if (!json_is_object(so))
        return fail(r, JA_EFORMAT, "seat %u must be an object {\"bot\", \"score\", \"place\"}", i);
    snprintf(what, sizeof what, "\"bot\" of seat %u", i);
    if ((rc = json_text(r, json_object_get(so, "bot"), what, st->bot, sizeof st->bot)) != JA_OK)
        return rc;
    if ((v = json_object_get(so, "version")) != NULL && !json_is_null(v)) {
        snprintf(what, sizeof what, "\"version\" of seat %u", i);
        if ((rc = json_text(r, v, what, st->version, sizeof st->version)) != JA_OK)
            return rc;
    }
    if ((v = json_object_get(so, "sha256")) != NULL && !json_is_null(v)) {
        snprintf(what, sizeof what, "\"sha256\" of seat %u", i);
        if ((rc = json_text(r, v, what, st->sha256, sizeof st->sha256)) != JA_OK)
            return rc;
    }
    if ((v = json_object_get(so, "score")) != NULL && !json_is_null(v)) {
        double x = json_number_value(v);
        if (!json_is_number(v) || !(fabs(x) < 1e12))
            return fail(r, JA_EFORMAT, "\"score\" of seat %u must be a number", i);
        st->has_score = true;
        st->score = llround(x * JA_SCORE_UNIT);
    }
    if ((v = json_object_get(so, "place")) != NULL && !json_is_null(v)) {
        if (!json_is_integer(v))
            return fail(r, JA_EFORMAT, "\"place\" of seat %u must be an integer", i);
        st->has_place = true;
        st->place = json_integer_value(v);
    }
    return JA_OK;
}

/* "seats": an array of 2 to JA_MAX_SEATS seats. */
static int json_seats(reader *r, raw_match *m, json_t *root)
{
    json_t *seats = json_object_get(root, "seats");
    if (!json_is_array(seats) || json_array_size(seats) < 2 ||
        json_array_size(seats) > JA_MAX_SEATS)
        return fail(r, JA_EFORMAT, "\"seats\" must be an array of 2 to %d seats", JA_MAX_SEATS);
    m->n_seats = (uint32_t)json_array_size(seats);
    for (uint32_t i = 0; i < m->n_seats; i++) {
        int rc = json_seat(r, json_array_get(seats, i), i, &m->seat[i]);
        if (rc != JA_OK)
            return rc;
    }
    return JA_OK;
}

/* One line of JSON Lines: one match, an object. */
static int jsonl_line(reader *r, const char *line, size_t len)
{
    json_error_t je;
    json_t *root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
    if (root == NULL)
        return fail(r, JA_EFORMAT, "not JSON: %s (column %d)", je.text, je.column);
    raw_match *m = ja_xcalloc(1, sizeof *m);
    m->line = r->line;
    m->turns = -1;
    m->number = -1;
    int rc;
    if (!json_is_object(root))
        rc = fail(r, JA_EFORMAT, "a line must hold one JSON object (a match)");
    else if ((rc = json_ladder_fields(r, m, root)) == JA_OK &&
             (rc = json_play_fields(r, m, root)) == JA_OK &&
             (rc = json_seats(r, m, root)) == JA_OK)
        rc = add_match(r, m);
    json_decref(root);
    free(m);
    return rc;
}

static int parse_jsonl(reader *r, const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;
    r->line = 0;
    while (p < end) {
        r->line++;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        bool blank = true;
        for (const char *q = p; q < e && blank; q++)
            blank = isspace((unsigned char)*q) != 0;
        if (!blank) {
            int rc = jsonl_line(r, p, (size_t)(e - p));
            if (rc != JA_OK)
                return rc;
        }
        p = nl ? nl + 1 : end;
    }
    return JA_OK;
}

/* ---- Entry points ------------------------------------------------------------------ */

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* A UTF-8 byte order mark, as some Windows tools write. */
static bool has_bom(const char *buf, size_t len)
{
    return len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0;
}

/* The first meaningful byte of buf, past a byte order mark, white space
 * and PGN's line comments (';') and escape lines ('%'): buf + len for
 * none. */
static const char *first_byte(const char *buf, size_t len)
{
    const char *p = buf;
    if (has_bom(buf, len))
        p += 3;
    for (;;) {
        while (p < buf + len && isspace((unsigned char)*p))
            p++;
        if (p == buf + len || (*p != ';' && *p != '%'))
            return p;
        while (p < buf + len && *p != '\n')
            p++;
    }
}

/* The format of a file that does not say: by its first meaningful byte p
 * (before end), else by its name's extension; NULL when neither tells. */
static const char *guess_format(const char *name, const char *p, const char *end)
{
    return p < end && *p == '{'                                      ? "jsonl"
           : p < end && *p == '['                                    ? "pgn"
           : ends_with(name, ".pgn")                                 ? "pgn"
           : ends_with(name, ".jsonl") || ends_with(name, ".ndjson") ? "jsonl"
                                                                     : NULL;
}

/* The file's SHA-256 into the set (a file is imported once). JA_OK, or
 * JA_EUNSUPPORTED when libsodium does not start. */
static int hash_file(reader *r, const char *buf, size_t len)
{
    if (sodium_init() < 0)
        return fail(r, JA_EUNSUPPORTED, "libsodium failed to initialise");
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(h, (const unsigned char *)buf, len);
    sodium_bin2hex(r->set->sha256, sizeof r->set->sha256, h, sizeof h);
    return JA_OK;
}

/* Reads the file into the set: its format (given, else guessed), its hash,
 * then its results (one at least) by the reader of its format. */
static int read_results(reader *r, const char *format, const char *buf, size_t len)
{
    ladder_import_set *s = r->set;
    const char *p = first_byte(buf, len);
    if (format == NULL)
        format = guess_format(r->name, p, buf + len);
    if (p == buf + len)
        return fail(r, JA_EFORMAT, "the file is empty: no results to import");
    if (format == NULL) {
        r->line = 1;
        return fail(r, JA_EFORMAT,
                    "neither PGN (starts with a '[' tag) nor JSON Lines (a '{' object per line)");
    }
    snprintf(s->format, sizeof s->format, "%s", format);
    int rc = hash_file(r, buf, len);
    if (rc != JA_OK)
        return rc;
    if (has_bom(buf, len)) {
        buf += 3;
        len -= 3;
    }
    if (strcmp(format, "pgn") == 0)
        rc = parse_pgn(r, buf, len);
    else if (strcmp(format, "jsonl") == 0)
        rc = parse_jsonl(r, buf, len);
    else
        rc = JA_EINVAL;
    if (rc == JA_OK && s->n_matches == 0) {
        r->line = 0;
        rc = fail(r, JA_EFORMAT, "no results to import (%u unfinished games skipped)",
                  s->skipped);
    }
    return rc;
}

/* The set's public view (ladder_import) of what it owns. */
static void publish(ladder_import_set *s)
{
    ladder_import *imp = &s->imp;
    imp->file = s->file;
    imp->format = s->format;
    imp->sha256 = s->sha256;
    imp->skipped = s->skipped;
    imp->n_ladders = s->n_ladders;
    imp->ladders = s->ladders;
    imp->n_bots = s->n_bots;
    imp->bots = s->bots;
    imp->n_sources = s->n_sources;
    imp->sources = s->sources;
    imp->n_matches = s->n_matches;
    imp->matches = s->matches;
    imp->n_seats = s->n_seats;
    imp->seats = s->seats;
}

int ladder_import_parse(const char *name, const char *format, const char *buf, size_t len,
                        const ladder_reader_opts *o, ladder_import_set **out, char *err,
                        size_t cap)
{
    if (out == NULL || name == NULL || (buf == NULL && len) || o == NULL || o->resolve == NULL ||
        err == NULL || cap == 0)
        return JA_EINVAL;
    *out = NULL;
    err[0] = '\0';
    ladder_import_set *s = ja_xcalloc(1, sizeof *s);
    s->file = ja_xstrdup(name);
    reader r = {s, o, name, 0, err, cap};
    int rc = read_results(&r, format, buf, len);
    if (rc != JA_OK) {
        ladder_import_set_free(&s);
        return rc;
    }
    publish(s);
    *out = s;
    return JA_OK;
}

int ladder_import_read(const char *path, const ladder_reader_opts *o, ladder_import_set **out,
                       char *err, size_t cap)
{
    if (path == NULL || out == NULL || err == NULL || cap == 0)
        return JA_EINVAL;
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, cap, "cannot read '%s': %s", path, strerror(errno));
        return JA_EIO;
    }
    char *buf = NULL;
    size_t len = 0, bcap = 0;
    int rc = JA_OK;
    for (;;) {
        if (len == bcap) {
            bcap = bcap ? bcap * 2 : 65536;
            buf = ja_xrealloc(buf, bcap);
        }
        size_t n = fread(buf + len, 1, bcap - len, f);
        len += n;
        if (n == 0) {
            if (ferror(f)) {
                snprintf(err, cap, "cannot read '%s': %s", path, strerror(errno));
                rc = JA_EIO;
            }
            break;
        }
    }
    fclose(f);
    if (rc == JA_OK)
        rc = ladder_import_parse(path, NULL, buf, len, o, out, err, cap);
    free(buf);
    return rc;
}

/* ---- Writers ---------------------------------------------------------------------- */

/* A PGN string: '"' and '\' escaped (PGN standard, 7: "a quote inside a
 * string is represented by the backslash immediately followed by a quote"). */
static void pgn_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int ladder_pgn_write(FILE *f, const ladder_export_match *m)
{
    if (f == NULL || m == NULL)
        return JA_EINVAL;
    char date[11] = "????.??.??";
    if (m->finished && strlen(m->finished) >= 10 && m->finished[4] == '-')
        snprintf(date, sizeof date, "%.4s.%.2s.%.2s", m->finished, m->finished + 5,
                 m->finished + 8);
    char event[LADDER_NAME_MAX + 48];
    snprintf(event, sizeof event, "Jack Arena %s ladder, %u seats", m->game, m->n_seats);
    for (uint32_t i = 0; i < m->n_seats; i++)
        for (uint32_t j = i + 1; j < m->n_seats; j++) {
            const ladder_export_seat *a = &m->seat[i], *b = &m->seat[j];
            if (strcmp(a->bot, b->bot) == 0)
                continue;
            const char *res = a->place < b->place ? "1-0" : a->place > b->place ? "0-1" : "1/2-1/2";
            char round[48];
            snprintf(round, sizeof round, "%" PRId64 ".%u", m->tournament, m->number + 1);
            fputs("[Event ", f);
            pgn_string(f, event);
            fputs("]\n[Site \"Jack Arena\"]\n[Date ", f);
            pgn_string(f, date);
            fputs("]\n[Round ", f);
            pgn_string(f, round);
            fputs("]\n[White ", f);
            pgn_string(f, a->bot);
            fputs("]\n[Black ", f);
            pgn_string(f, b->bot);
            fprintf(f, "]\n[Result \"%s\"]\n[Game ", res);
            pgn_string(f, m->game);
            fputs("]\n[Options ", f);
            pgn_string(f, m->options);
            fprintf(f, "]\n[Seats \"%u\"]\n", m->n_seats);
            if (m->has_seed)
                fprintf(f, "[Seed \"%" PRIu64 "\"]\n", m->seed);
            fprintf(f, "\n%s\n\n", res);
        }
    return ferror(f) ? JA_EIO : JA_OK;
}

int ladder_jsonl_write(FILE *f, const ladder_export_match *m)
{
    if (f == NULL || m == NULL)
        return JA_EINVAL;
    int rc = JA_ENOMEM;
    json_t *o = json_object(), *opts = json_object(), *seats = json_array();
    if (o == NULL || opts == NULL || seats == NULL)
        goto out;
    json_t *game = json_string(m->game);
    if (game == NULL) {
        rc = JA_EINVAL;
        goto out;
    }
    json_object_set_new(o, "game", game);
    char buf[LADDER_OPTIONS_MAX], *save = NULL;
    snprintf(buf, sizeof buf, "%s", m->options ? m->options : "");
    for (char *kv = strtok_r(buf, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(kv, '=');
        if (eq == NULL)
            continue;
        *eq = '\0';
        json_t *val = json_string(eq + 1);
        if (val == NULL || json_object_set_new(opts, kv, val) != 0) {
            rc = JA_EINVAL;
            goto out;
        }
    }
    json_object_set(o, "options", opts);
    json_object_set_new(o, "tournament", m->tournament_text ? json_string(m->tournament_text)
                                                            : json_integer(m->tournament));
    json_object_set_new(o, "match", json_integer(m->number));
    char seed[21];
    snprintf(seed, sizeof seed, "%" PRIu64, m->seed);
    json_object_set_new(o, "seed", m->has_seed ? json_string(seed) : json_null());
    for (uint32_t i = 0; i < m->n_seats; i++) {
        const ladder_export_seat *st = &m->seat[i];
        json_t *so = json_object(), *name = json_string(st->bot),
               *ver = json_string(st->version ? st->version : "");
        if (so == NULL || name == NULL || ver == NULL) {
            json_decref(so);
            json_decref(name);
            json_decref(ver);
            rc = JA_EINVAL;
            goto out;
        }
        json_object_set_new(so, "bot", name);
        json_object_set_new(so, "version", ver);
        if (st->sha256 && st->sha256[0])
            json_object_set_new(so, "sha256", json_string(st->sha256));
        if (st->score % JA_SCORE_UNIT == 0)
            json_object_set_new(so, "score", json_integer(st->score / JA_SCORE_UNIT));
        else
            json_object_set_new(so, "score", json_real((double)st->score / JA_SCORE_UNIT));
        json_object_set_new(so, "place", json_integer(st->place));
        json_array_append_new(seats, so);
    }
    json_object_set(o, "seats", seats);
    if (m->turns >= 0)
        json_object_set_new(o, "turns", json_integer(m->turns));
    if (m->digest && m->digest[0])
        json_object_set_new(o, "digest", json_string(m->digest));
    char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    if (text == NULL)
        goto out;
    fputs(text, f);
    fputc('\n', f);
    free(text);
    rc = ferror(f) ? JA_EIO : JA_OK;
out:
    json_decref(o);
    json_decref(opts);
    json_decref(seats);
    return rc;
}
