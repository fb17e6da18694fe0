/* ja_scenario: runs one rules-scenario file against the game it names,
 * through the generic ja_game_rules table only, so it serves every game.
 *
 *     ja_scenario FILE.scn      exit 0: passed; 1: failed (the message names
 *                               the file and line); 2: usage or I/O error
 *
 * THE FORMAT. One directive per line; `#` starts a comment; a line ending in
 * `\` continues on the next; blank lines are ignored. Seats are numbers,
 * cards are labels (7H, TD, 10D, XB), actions are the game's own labels
 * (label(): "play 7H", "draw", "suit hearts"), compared case-insensitively
 * with runs of blanks collapsed.
 *
 *   game NAME                 the engine (ja_game_find); first directive
 *   seats N                   seat count (default: the game's minimum)
 *   option K=V [K=V ...]      options, as on the command line (also `options`)
 *   seed N                    match seed (default 1)
 *   deal FIRST CARD ...       test_deal() (ja_rules.h, JA_EXT_TEST_DEAL): re-deal
 *                             the current game from a stacked deck, top first,
 *                             the rest in id order; FIRST is game-defined
 *                             (Taylor Blackjack: dealer)
 *   act S LABEL [; S LABEL]   S applies the legal action labelled LABEL; the
 *                             seats named must be exactly those to act (joint
 *                             decisions list one answer per asked seat)
 *   fault [S ...]             the seats to act (or those named) fault: their
 *                             default_action() is applied
 *   illegal S LABEL           LABEL (any action the game can label) is not
 *                             legal for S now: apply() must refuse it and leave
 *                             the state byte-for-byte unchanged
 *   repeat N DIRECTIVE ...    the directive N times (`repeat 40 fault`)
 *   show [S]                  print the state line, legal list (and S's
 *                             non-zero observation fields); for authoring
 *
 *   expect to_act S ... | none        exactly these seats decide now
 *   expect legal [S] = L1, L2, ...    S's (default: the one seat to act) legal
 *                                     list, in order, comma-separated
 *   expect default [S] = LABEL        S's default action (played on a fault)
 *   expect S obs FIELD = V ...        observation field of seat S (ja_field
 *                                     table): a scalar, or an array whose first
 *                                     elements are V ... and the rest 0
 *   expect S obs FIELD[I] = V ...     elements I, I+1, ... (the rest unchecked)
 *                     V: an integer, `none` (255), or a card label (its
 *                     identity, so `obs pile = 7H 8C` reads naturally)
 *   expect S cards FIELD = C ...      FIELD counts cards by identity: exactly
 *                                     the multiset C ... (`-` = none)
 *   expect S cards FIELD[R] = C ...   row R of a per-seat count table (rows of
 *                                     52 cards, or 54 when the size says so)
 *   expect S hand = C ...             shorthand for `expect S cards hand = ...`
 *   expect public obs|cards ...       the same of the public observation
 *                                     (JA_EXT_OBSERVE_PUBLIC) for S
 *   expect option KEY = VALUE         the resolved option, as text
 *   expect over                       the match is over (to_act is empty)
 *   expect score = U ...              outcome scores in units of 1/JA_SCORE_UNIT
 *   expect points = P ...             outcome scores in points: 1, 0, 1/2, 1/3
 *   expect places = P ...             outcome places (1 = best)
 *   expect describe ~ TEXT            describe() contains TEXT (`=`: exactly)
 *   expect setup-error [TEXT]         options or setup are refused (with a
 *                                     message containing TEXT); nothing may
 *                                     follow but comments
 *   expect setup-error = TEXT         the same, with exactly that message
 *
 * The state is set up lazily, by the first directive that needs it. After
 * setup and after every change of state the runner also checks the generic
 * contract (ja_rules.h): legal lists non-empty, sorted, within max_actions,
 * containing the default, empty for seats not asked; the outcome available
 * exactly when the match is over; determinize() and sample() keeping every
 * seat's observation byte-identical. */
#include "jackarena/ja_rules.h"
#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 512
#define MAX_LINE 16384
#define LABEL_SCAN 65536u /* codes tried when looking up a label that is not legal */

typedef struct runner {
    const char *path;
    int line;                 /* current line number (first line of a continued one) */
    const ja_game_rules *g;
    uint32_t seats;
    uint64_t seed;
    ja_options opts;
    char opt_err[256];        /* first refused option, reported at setup */
    int opt_err_line;
    void *st, *tmp, *obs, *obs2;
    ja_action *legal;
    bool ready;               /* set up */
    bool refused;             /* `expect setup-error` passed: nothing else may run */
    int steps;
} runner;

static runner R;

/* ---- Reporting ------------------------------------------------------------ */

__attribute__((format(printf, 1, 2))) _Noreturn static void fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: ", R.path, R.line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (R.ready && R.g->describe) {
        char d[512];
        R.g->describe(R.st, d, sizeof d);
        fprintf(stderr, "  state: %s\n", d);
    }
    exit(1);
}

/* ---- Small helpers ----------------------------------------------------------- */

/* Lower-cases s and collapses blanks into one space, trimming both ends. */
static void normalize(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    bool space = false;
    while (*s && isspace((unsigned char)*s))
        s++;
    for (; *s && n + 1 < cap; s++) {
        if (isspace((unsigned char)*s)) {
            space = true;
            continue;
        }
        if (space && n + 2 < cap)
            out[n++] = ' ';
        space = false;
        out[n++] = (char)tolower((unsigned char)*s);
    }
    out[n] = '\0';
}

static void join(char **tok, int from, int to, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = from; i < to && n + 1 < cap; i++) {
        int w = snprintf(out + n, cap - n, "%s%s", i > from ? " " : "", tok[i]);
        if (w < 0)
            break;
        n += (size_t)w;
        if (n >= cap)
            n = cap - 1;
    }
}

static bool parse_long(const char *s, long *v)
{
    char *end;
    if (!*s)
        return false;
    *v = strtol(s, &end, 10);
    return *end == '\0';
}

static int parse_seat(const char *s)
{
    long v;
    if (!parse_long(s, &v) || v < 0 || (uint32_t)v >= R.seats)
        fail("'%s' is not a seat (0..%u)", s, R.seats - 1);
    return (int)v;
}

static void label_of(ja_action a, char *buf, size_t cap)
{
    if (R.g->label(a, buf, cap) < 0)
        snprintf(buf, cap, "<code %u>", (unsigned)a.code);
}

static uint32_t legal_of(int seat)
{
    return R.g->legal(R.st, seat, R.legal, R.g->max_actions);
}

static void legal_text(int seat, char *buf, size_t cap)
{
    uint32_t n = legal_of(seat);
    size_t u = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < n && u + 1 < cap; i++) {
        char l[128];
        label_of(R.legal[i], l, sizeof l);
        int w = snprintf(buf + u, cap - u, "%s%s", i ? ", " : "", l);
        if (w < 0)
            break;
        u += (size_t)w;
        if (u >= cap)
            u = cap - 1;
    }
}

static void seats_text(uint32_t mask, char *buf, size_t cap)
{
    size_t u = 0;
    buf[0] = '\0';
    if (!mask)
        snprintf(buf, cap, "none");
    for (int i = 0; i < 32 && u + 1 < cap; i++)
        if (mask >> i & 1u) {
            int w = snprintf(buf + u, cap - u, "%s%d", u ? " " : "", i);
            if (w < 0)
                break;
            u += (size_t)w;
            if (u >= cap)
                u = cap - 1;
        }
}

/* ---- Setup and the generic contract -------------------------------------------- */

static void check_contract(const char *after)
{
    uint32_t ta = R.g->to_act(R.st);
    for (uint32_t s = 0; s < R.seats; s++) {
        uint32_t n = legal_of((int)s);
        if (!(ta >> s & 1u)) {
            if (n != 0)
                fail("after %s: seat %u is not asked but has %u legal actions", after, s, n);
            continue;
        }
        if (n == 0 || n > R.g->max_actions)
            fail("after %s: seat %u has %u legal actions (1..%u allowed)", after, s, n,
                 R.g->max_actions);
        for (uint32_t i = 1; i < n; i++)
            if (R.legal[i].code <= R.legal[i - 1].code)
                fail("after %s: seat %u's legal list is not sorted by code", after, s);
        ja_action d = R.g->default_action(R.st, (int)s);
        bool found = false;
        for (uint32_t i = 0; i < n; i++)
            found |= R.legal[i].code == d.code;
        if (!found)
            fail("after %s: seat %u's default action (code %u) is not legal", after, s, d.code);
    }
    ja_outcome out;
    int rc = R.g->outcome(R.st, &out);
    if ((ta == 0) != (rc == JA_OK))
        fail("after %s: outcome() returns %s while to_act is %s", after, ja_err_name(rc),
             ta ? "not empty" : "empty");
    for (uint32_t s = 0; s < R.seats; s++) {
        R.g->observe(R.st, (int)s, R.obs);
        for (uint64_t k = 1; k <= 3 && R.g->determinize; k++) {
            memcpy(R.tmp, R.st, R.g->state_size);
            R.g->determinize(R.tmp, (int)s, k * 7919u + s);
            R.g->observe(R.tmp, (int)s, R.obs2);
            if (memcmp(R.obs, R.obs2, R.g->obs_size) != 0)
                fail("after %s: determinize(seat %u) changed seat %u's observation", after, s,
                     s);
        }
        if (R.g->sample) {
            rc = R.g->sample(R.obs, (int)s, 12345u + s, R.tmp);
            if (rc != JA_OK)
                fail("after %s: sample(seat %u) refused the observation: %s", after, s,
                     ja_err_name(rc));
            R.g->observe(R.tmp, (int)s, R.obs2);
            if (memcmp(R.obs, R.obs2, R.g->obs_size) != 0)
                fail("after %s: observe(sample(observe(seat %u))) differs", after, s);
        }
    }
}

/* Resolves the options and sets the match up. Returns the error code, with
 * the reason in err. */
static int try_setup(char *err, size_t cap)
{
    if (R.opt_err[0]) {
        snprintf(err, cap, "%s", R.opt_err);
        return JA_EINVAL;
    }
    int rc = ja_options_resolve(R.g, &R.opts, R.seats, err, cap);
    if (rc != JA_OK)
        return rc;
    rc = R.g->setup(R.st, &R.opts, R.seats, R.seed);
    if (rc != JA_OK)
        snprintf(err, cap, "setup() refused: %s", ja_err_name(rc));
    return rc;
}

static void need_game(void)
{
    if (!R.g)
        fail("no `game` directive before this line");
}

static void ensure_setup(void)
{
    need_game();
    if (R.refused)
        fail("the setup was refused (expect setup-error); nothing can follow it");
    if (R.ready)
        return;
    char err[256];
    if (try_setup(err, sizeof err) != JA_OK) {
        if (R.opt_err_line)
            R.line = R.opt_err_line;
        fail("setup failed: %s", err);
    }
    R.ready = true;
    check_contract("setup");
}

/* ---- Actions --------------------------------------------------------------------- */

/* The legal action of seat labelled text, or false. */
static bool find_legal(int seat, const char *text, ja_action *out)
{
    char want[256], l[256], nl[256];
    normalize(text, want, sizeof want);
    uint32_t n = legal_of(seat);
    for (uint32_t i = 0; i < n; i++) {
        label_of(R.legal[i], l, sizeof l);
        normalize(l, nl, sizeof nl);
        if (strcmp(nl, want) == 0) {
            *out = R.legal[i];
            return true;
        }
    }
    return false;
}

/* Any action the game can label as text ("code N" names one directly). */
static bool find_any(const char *text, ja_action *out)
{
    char want[256], l[256], nl[256];
    long v;
    if (strncmp(text, "code ", 5) == 0 && parse_long(text + 5, &v) && v >= 0) {
        out->code = (uint32_t)v;
        return true;
    }
    normalize(text, want, sizeof want);
    for (uint32_t c = 0; c < LABEL_SCAN; c++) {
        ja_action a = {c};
        if (R.g->label(a, l, sizeof l) < 0)
            continue;
        normalize(l, nl, sizeof nl);
        if (strcmp(nl, want) == 0) {
            *out = a;
            return true;
        }
    }
    return false;
}

/* act S LABEL [; S LABEL ...] and fault [S ...] */
static void do_act(char **tok, int nt, bool fault_mode)
{
    ensure_setup();
    ja_action by_seat[32];
    memset(by_seat, 0, sizeof by_seat);
    uint32_t ta = R.g->to_act(R.st), mask = 0;
    char buf[1024], what[1200] = "";
    if (fault_mode) {
        if (nt == 1)
            mask = ta;
        for (int i = 1; i < nt; i++)
            mask |= UINT32_C(1) << parse_seat(tok[i]);
        for (int s = 0; s < 32; s++)
            if (mask >> s & 1u)
                by_seat[s] = R.g->default_action(R.st, s);
        snprintf(what, sizeof what, "fault");
    } else {
        int i = 1;
        while (i < nt) {
            int j = i + 1;
            while (j < nt && strcmp(tok[j], ";") != 0)
                j++;
            if (j - i < 2)
                fail("expected `act SEAT LABEL [; SEAT LABEL]`");
            int seat = parse_seat(tok[i]);
            join(tok, i + 1, j, buf, sizeof buf);
            if (!(ta >> seat & 1u)) {
                char t[128];
                seats_text(ta, t, sizeof t);
                fail("seat %d is not to act (to act: %s)", seat, t);
            }
            if (!find_legal(seat, buf, &by_seat[seat])) {
                char l[2048];
                legal_text(seat, l, sizeof l);
                fail("'%s' is not legal for seat %d (legal: %s)", buf, seat, l);
            }
            mask |= UINT32_C(1) << seat;
            snprintf(what + strlen(what), sizeof what - strlen(what), "%sseat %d %s",
                     what[0] ? ", " : "", seat, buf);
            i = j + 1;
        }
    }
    if (mask != ta) {
        char a[128], b[128];
        seats_text(mask, a, sizeof a);
        seats_text(ta, b, sizeof b);
        fail("answers given for seats %s, but the seats to act are %s", a, b);
    }
    int rc = R.g->apply(R.st, mask, by_seat);
    if (rc != JA_OK)
        fail("apply(%s) returned %s", what, ja_err_name(rc));
    R.steps++;
    check_contract(what);
}

static void do_illegal(char **tok, int nt)
{
    ensure_setup();
    if (nt < 3)
        fail("expected `illegal SEAT LABEL`");
    int seat = parse_seat(tok[1]);
    char buf[1024];
    join(tok, 2, nt, buf, sizeof buf);
    ja_action a, by_seat[32];
    uint32_t ta = R.g->to_act(R.st);
    if ((ta >> seat & 1u) && find_legal(seat, buf, &a))
        fail("'%s' is legal for seat %d", buf, seat);
    if (!find_any(buf, &a))
        fail("'%s' is the label of no action of %s", buf, R.g->name);
    /* The other asked seats give their default answers, so only this one is
     * wrong; a seat not asked is refused however the others answer. */
    uint32_t mask = ta | (UINT32_C(1) << seat);
    if (!(ta >> seat & 1u))
        mask = UINT32_C(1) << seat;
    for (int s = 0; s < 32; s++)
        by_seat[s] = (ta >> s & 1u) ? R.g->default_action(R.st, s) : a;
    by_seat[seat] = a;
    memcpy(R.tmp, R.st, R.g->state_size);
    int rc = R.g->apply(R.st, mask, by_seat);
    if (rc == JA_OK)
        fail("apply() accepted '%s' from seat %d", buf, seat);
    if (memcmp(R.tmp, R.st, R.g->state_size) != 0)
        fail("apply() refused '%s' (%s) but changed the state", buf, ja_err_name(rc));
}

/* ---- Observation fields ----------------------------------------------------------- */

static const ja_field *find_field(const char *name)
{
    for (uint32_t i = 0; i < R.g->n_obs_fields; i++)
        if (strcmp(R.g->obs_fields[i].name, name) == 0)
            return &R.g->obs_fields[i];
    fail("%s's observation has no field '%s'", R.g->name, name);
    return NULL;
}

static int64_t field_get(const void *obs, const ja_field *f, uint32_t i)
{
    static const size_t size[] = {1, 1, 2, 2, 4, 4, 8};
    const unsigned char *p = (const unsigned char *)obs + f->offset + i * size[f->type];
    switch (f->type) {
    case JA_FT_U8: { uint8_t v; memcpy(&v, p, 1); return v; }
    case JA_FT_I8: { int8_t v; memcpy(&v, p, 1); return v; }
    case JA_FT_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case JA_FT_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case JA_FT_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case JA_FT_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}

/* "name" or "name[i]": the field, and the index (-1 if none). */
static const ja_field *parse_ref(const char *text, long *index)
{
    char name[128];
    const char *br = strchr(text, '[');
    *index = -1;
    if (!br) {
        snprintf(name, sizeof name, "%s", text);
    } else {
        snprintf(name, sizeof name, "%.*s", (int)(br - text), text);
        char *end;
        *index = strtol(br + 1, &end, 10);
        if (end == br + 1 || strcmp(end, "]") != 0 || *index < 0)
            fail("bad field reference '%s' (expected NAME or NAME[INDEX])", text);
    }
    return find_field(name);
}

static int64_t parse_value(const char *s)
{
    long v;
    if (parse_long(s, &v))
        return v;
    if (strcmp(s, "none") == 0)
        return 255;
    int c = ja_card_parse(s);
    if (c >= 0)
        return c;
    fail("'%s' is not a value (an integer, `none` or a card label)", s);
    return 0;
}

static void field_text(const void *obs, const ja_field *f, uint32_t from, uint32_t n, char *buf,
                       size_t cap)
{
    size_t u = 0;
    buf[0] = '\0';
    for (uint32_t i = from; i < from + n && i < f->count && u + 1 < cap; i++) {
        int w = snprintf(buf + u, cap - u, "%s%lld", i > from ? " " : "",
                         (long long)field_get(obs, f, i));
        if (w < 0)
            break;
        u += (size_t)w;
        if (u >= cap)
            u = cap - 1;
    }
}

/* The view an expectation reads: seat S, or -1 for `public` (the game's
 * public observation, JA_EXT_OBSERVE_PUBLIC). */
static int parse_view(const char *s)
{
    return strcmp(s, "public") == 0 ? -1 : parse_seat(s);
}

/* That view's observation of the state into obs. */
static void observe_view(int view, void *obs)
{
    if (view >= 0) {
        R.g->observe(R.st, view, obs);
        return;
    }
    const ja_ext_observe_public *op = ja_rules_extension(R.g, JA_EXT_OBSERVE_PUBLIC);
    if (!op)
        fail("%s offers no public observation (JA_EXT_OBSERVE_PUBLIC)", R.g->name);
    op->observe_public(R.st, obs);
}

/* expect S obs FIELD[I] = V ... ; tok[0] = "expect", tok[1] = S, tok[2] = "obs" */
static void expect_obs(char **tok, int nt)
{
    if (nt < 5 || strcmp(tok[4], "=") != 0)
        fail("expected `expect SEAT obs FIELD = VALUE ...`");
    int seat = parse_view(tok[1]);
    long index;
    const ja_field *f = parse_ref(tok[3], &index);
    observe_view(seat, R.obs);
    uint32_t nv = (uint32_t)(nt - 5), from = index < 0 ? 0 : (uint32_t)index;
    if (from >= f->count || from + nv > f->count)
        fail("field %s has %u elements", f->name, (unsigned)f->count);
    if (f->count == 1 && nv != 1)
        fail("field %s is a scalar: give one value", f->name);
    bool bad = false;
    for (uint32_t i = 0; i < nv; i++)
        bad |= field_get(R.obs, f, from + i) != parse_value(tok[5 + i]);
    uint32_t shown = nv;
    if (index < 0)
        for (uint32_t i = nv; i < f->count; i++)
            if (field_get(R.obs, f, i) != 0) {
                bad = true;
                shown = i + 1;
            }
    if (bad) {
        char got[4096], want[2048];
        field_text(R.obs, f, from, shown ? shown : 1, got, sizeof got);
        join(tok, 5, nt, want, sizeof want);
        fail("%s %s obs %s is %s, expected %s%s", seat < 0 ? "the" : "seat", tok[1], tok[3], got,
             want, index < 0 && f->count > 1 ? " (then zeros)" : "");
    }
}

static void cards_text(const void *obs, const ja_field *f, uint32_t base, uint32_t width,
                       char *buf, size_t cap)
{
    size_t u = 0;
    buf[0] = '\0';
    for (uint32_t c = 0; c < width; c++)
        for (int64_t k = field_get(obs, f, base + c); k > 0 && u + 4 < cap; k--) {
            char l[4];
            ja_card_format((uint8_t)c, l, sizeof l);
            u += (size_t)snprintf(buf + u, cap - u, "%s%s", u ? " " : "", l);
        }
    if (!u)
        snprintf(buf, cap, "-");
}

/* expect S cards FIELD[R] = C ... (from = index of FIELD in tok) */
static void expect_cards(char **tok, int nt, int from)
{
    if (nt < from + 2 || strcmp(tok[from + 1], "=") != 0)
        fail("expected `expect SEAT cards FIELD = CARD ...`");
    int seat = parse_view(tok[1]);
    long row;
    const ja_field *f = parse_ref(tok[from], &row);
    uint32_t width = f->count % 52 == 0 ? 52 : f->count % 54 == 0 ? 54 : 0;
    if (!width)
        fail("field %s is not a count of cards (52 or 54 per row)", f->name);
    uint32_t base = row < 0 ? 0 : (uint32_t)row * width;
    if (row < 0 && f->count != width)
        fail("field %s has %u rows: name one, %s[ROW]", f->name, f->count / width, f->name);
    if (base + width > f->count)
        fail("field %s has %u rows", f->name, f->count / width);
    int want[54] = {0};
    for (int i = from + 2; i < nt; i++) {
        if (strcmp(tok[i], "-") == 0)
            continue;
        int c = ja_card_parse(tok[i]);
        if (c < 0 || (uint32_t)c >= width)
            fail("'%s' is not a card", tok[i]);
        want[c]++;
    }
    observe_view(seat, R.obs);
    for (uint32_t c = 0; c < width; c++)
        if (field_get(R.obs, f, base + c) != want[c]) {
            char got[1024], w[1024];
            cards_text(R.obs, f, base, width, got, sizeof got);
            join(tok, from + 2, nt, w, sizeof w);
            fail("%s %s %s is %s, expected %s", seat < 0 ? "the" : "seat", tok[1], tok[from], got,
                 w[0] ? w : "-");
        }
}

/* ---- Outcome ------------------------------------------------------------------------- */

static int64_t parse_points(const char *s)
{
    long a, b = 1;
    char num[64];
    const char *sl = strchr(s, '/');
    if (sl) {
        snprintf(num, sizeof num, "%.*s", (int)(sl - s), s);
        if (!parse_long(num, &a) || !parse_long(sl + 1, &b) || b <= 0)
            fail("'%s' is not a number of points (1, 0, 1/2)", s);
    } else if (!parse_long(s, &a)) {
        fail("'%s' is not a number of points (1, 0, 1/2)", s);
    }
    if ((int64_t)a * JA_SCORE_UNIT % b != 0)
        fail("%s points is not a whole number of units", s);
    return (int64_t)a * JA_SCORE_UNIT / b;
}

static void expect_outcome(char **tok, int nt)
{
    ja_outcome out;
    int rc = R.g->outcome(R.st, &out);
    if (rc != JA_OK)
        fail("the match is not over (outcome: %s)", ja_err_name(rc));
    if (nt < 3 || strcmp(tok[2], "=") != 0)
        fail("expected `expect %s = VALUE ...`", tok[1]);
    if ((uint32_t)(nt - 3) != out.n_seats)
        fail("give %u values, one per seat", out.n_seats);
    bool places = strcmp(tok[1], "places") == 0, points = strcmp(tok[1], "points") == 0;
    for (uint32_t i = 0; i < out.n_seats; i++) {
        int64_t want = points ? parse_points(tok[3 + i]) : parse_value(tok[3 + i]);
        int64_t got = places ? out.place[i] : out.score[i];
        if (got != want) {
            char g[512] = "";
            for (uint32_t j = 0; j < out.n_seats; j++)
                snprintf(g + strlen(g), sizeof g - strlen(g), " %lld",
                         (long long)(places ? out.place[j] : out.score[j]));
            fail("%s of seat %u is %lld, expected %lld (all:%s%s)", tok[1], i, (long long)got,
                 (long long)want, g, places ? "" : " units");
        }
    }
}

/* ---- expect ---------------------------------------------------------------------------- */

static void do_expect(char **tok, int nt)
{
    if (nt < 2)
        fail("`expect` needs something to check");
    const char *w = tok[1];
    long v;
    need_game();
    if (strcmp(w, "setup-error") == 0) {
        if (R.ready)
            fail("the match is already set up");
        char err[256], want[512];
        bool exact = nt > 2 && strcmp(tok[2], "=") == 0;
        if (try_setup(err, sizeof err) == JA_OK)
            fail("setup succeeded; expected it to be refused");
        join(tok, exact ? 3 : 2, nt, want, sizeof want);
        if (exact && strcmp(err, want) != 0)
            fail("setup refused with \"%s\", expected \"%s\"", err, want);
        if (!exact && want[0] && !strstr(err, want))
            fail("setup refused with \"%s\", which does not contain \"%s\"", err, want);
        R.refused = true;
        return;
    }
    ensure_setup();
    if (strcmp(w, "to_act") == 0) {
        uint32_t want = 0, ta = R.g->to_act(R.st);
        for (int i = 2; i < nt; i++)
            if (strcmp(tok[i], "none") != 0)
                want |= UINT32_C(1) << parse_seat(tok[i]);
        if (want != ta) {
            char a[128], b[128];
            seats_text(ta, a, sizeof a);
            seats_text(want, b, sizeof b);
            fail("to act: %s, expected %s", a, b);
        }
    } else if (strcmp(w, "over") == 0) {
        if (R.g->to_act(R.st) != 0)
            fail("the match is not over");
    } else if (strcmp(w, "legal") == 0 || strcmp(w, "default") == 0) {
        int eq = 2, seat = -1;
        if (nt > 2 && strcmp(tok[2], "=") != 0) {
            seat = parse_seat(tok[2]);
            eq = 3;
        }
        if (nt <= eq || strcmp(tok[eq], "=") != 0)
            fail("expected `expect %s [SEAT] = ...`", w);
        if (seat < 0) {
            uint32_t ta = R.g->to_act(R.st);
            if (ta == 0 || (ta & (ta - 1)))
                fail("name the seat: %s seats are to act", ta ? "several" : "no");
            seat = __builtin_ctz(ta);
        }
        char want[4096], got[4096], nw[4096], ng[4096];
        join(tok, eq + 1, nt, want, sizeof want);
        if (strcmp(w, "legal") == 0) {
            legal_text(seat, got, sizeof got);
            /* Compare item by item, ignoring blanks around the commas. */
            char *a = want, *b = got;
            bool same = true;
            for (;;) {
                char *ca = strchr(a, ','), *cb = strchr(b, ',');
                if (ca)
                    *ca = '\0';
                if (cb)
                    *cb = '\0';
                normalize(a, nw, sizeof nw);
                normalize(b, ng, sizeof ng);
                if (strcmp(nw, ng) != 0 || !ca != !cb) {
                    same = false;
                }
                if (ca)
                    *ca = ',';
                if (cb)
                    *cb = ',';
                if (!same || !ca || !cb)
                    break;
                a = ca + 1;
                b = cb + 1;
            }
            if (!same)
                fail("seat %d's legal list is [%s], expected [%s]", seat, got, want);
        } else {
            ja_action d = R.g->default_action(R.st, seat);
            label_of(d, got, sizeof got);
            normalize(got, ng, sizeof ng);
            normalize(want, nw, sizeof nw);
            if (strcmp(ng, nw) != 0)
                fail("seat %d's default action is '%s', expected '%s'", seat, got, want);
        }
    } else if (strcmp(w, "option") == 0) {
        if (nt != 5 || strcmp(tok[3], "=") != 0)
            fail("expected `expect option KEY = VALUE`");
        int i = ja_options_index(R.g, tok[2]);
        if (i < 0)
            fail("%s has no option '%s'", R.g->name, tok[2]);
        char got[128];
        ja_options_value_str(R.g, &R.opts, i, got, sizeof got);
        if (strcmp(got, tok[4]) != 0)
            fail("option %s is %s, expected %s", tok[2], got, tok[4]);
    } else if (strcmp(w, "score") == 0 || strcmp(w, "points") == 0 ||
               strcmp(w, "places") == 0) {
        expect_outcome(tok, nt);
    } else if (strcmp(w, "describe") == 0) {
        if (nt < 3 || (strcmp(tok[2], "=") != 0 && strcmp(tok[2], "~") != 0))
            fail("expected `expect describe ~ TEXT` or `= TEXT`");
        char got[1024], want[1024];
        R.g->describe(R.st, got, sizeof got);
        join(tok, 3, nt, want, sizeof want);
        bool ok = tok[2][0] == '=' ? strcmp(got, want) == 0 : strstr(got, want) != NULL;
        if (!ok)
            fail("describe() is \"%s\", expected %s\"%s\"", got,
                 tok[2][0] == '=' ? "" : "it to contain ", want);
    } else if (parse_long(w, &v) || strcmp(w, "public") == 0) {
        if (nt < 3)
            fail("expected `expect SEAT obs|cards|hand ...`");
        if (strcmp(tok[2], "obs") == 0)
            expect_obs(tok, nt);
        else if (strcmp(tok[2], "cards") == 0)
            expect_cards(tok, nt, 3);
        else if (strcmp(tok[2], "hand") == 0)
            expect_cards(tok, nt, 2);
        else
            fail("expected `obs`, `cards` or `hand` after the seat, not '%s'", tok[2]);
    } else {
        fail("unknown expectation '%s'", w);
    }
}

/* ---- show -------------------------------------------------------------------------------- */

static void do_show(char **tok, int nt)
{
    ensure_setup();
    char d[1024], l[4096];
    R.g->describe(R.st, d, sizeof d);
    printf("%s:%d: %s\n", R.path, R.line, d);
    uint32_t ta = R.g->to_act(R.st);
    for (int s = 0; s < 32; s++)
        if (ta >> s & 1u) {
            legal_text(s, l, sizeof l);
            printf("  seat %d legal: %s\n", s, l);
        }
    if (nt < 2)
        return;
    int seat = parse_seat(tok[1]);
    R.g->observe(R.st, seat, R.obs);
    for (uint32_t i = 0; i < R.g->n_obs_fields; i++) {
        const ja_field *f = &R.g->obs_fields[i];
        uint32_t last = 0;
        for (uint32_t k = 0; k < f->count; k++)
            if (field_get(R.obs, f, k))
                last = k + 1;
        if ((f->count == 52 || f->count == 54) && f->type == JA_FT_U8) {
            cards_text(R.obs, f, 0, f->count, l, sizeof l); /* a count of cards */
            printf("  %s = %s\n", f->name, l);
        } else if (f->count == 1 || last) {
            field_text(R.obs, f, 0, f->count == 1 ? 1 : last, l, sizeof l);
            printf("  %s = %s\n", f->name, l);
        }
    }
}

/* ---- The file ------------------------------------------------------------------------------ */

static void directive(char **tok, int nt)
{
    const char *d = tok[0];
    long v;
    if (strcmp(d, "game") == 0) {
        if (nt != 2)
            fail("expected `game NAME`");
        if (R.g)
            fail("only one `game` per file");
        R.g = ja_game_find(tok[1]);
        if (!R.g)
            fail("unknown game '%s'", tok[1]);
        R.seats = R.g->min_seats;
        ja_options_init(R.g, &R.opts);
        R.st = calloc(1, R.g->state_size);
        R.tmp = calloc(1, R.g->state_size);
        R.obs = calloc(1, R.g->obs_size);
        R.obs2 = calloc(1, R.g->obs_size);
        R.legal = calloc(R.g->max_actions + 1u, sizeof(ja_action));
        if (!R.st || !R.tmp || !R.obs || !R.obs2 || !R.legal)
            fail("out of memory");
        return;
    }
    need_game();
    if (strcmp(d, "seats") == 0 || strcmp(d, "seed") == 0 || strcmp(d, "option") == 0 ||
        strcmp(d, "options") == 0) {
        if (R.ready || R.refused)
            fail("`%s` must come before the first action or expectation", d);
        if (strcmp(d, "seats") == 0) {
            if (nt != 2 || !parse_long(tok[1], &v) || v < 1 || v > 32)
                fail("expected `seats N`");
            R.seats = (uint32_t)v;
        } else if (strcmp(d, "seed") == 0) {
            char *end;
            if (nt != 2)
                fail("expected `seed N`");
            R.seed = strtoull(tok[1], &end, 0);
            if (*end)
                fail("expected `seed N`");
        } else {
            for (int i = 1; i < nt; i++) {
                char err[256];
                if (ja_options_set(R.g, &R.opts, tok[i], err, sizeof err) != JA_OK &&
                    !R.opt_err[0]) {
                    snprintf(R.opt_err, sizeof R.opt_err, "%s", err);
                    R.opt_err_line = R.line;
                }
            }
        }
    } else if (strcmp(d, "deal") == 0) {
        ensure_setup();
        const ja_ext_test_deal *td = ja_rules_extension(R.g, JA_EXT_TEST_DEAL);
        if (!td)
            fail("%s has no test_deal() (extension %s): decks cannot be stacked", R.g->name,
                 JA_EXT_TEST_DEAL);
        if (nt < 2)
            fail("expected `deal FIRST CARD ...`");
        long first;
        if (!parse_long(tok[1], &first))
            fail("'%s' is not a number", tok[1]);
        uint8_t cards[256];
        uint32_t n = 0;
        for (int i = 2; i < nt; i++) {
            long id;
            int c = ja_card_parse(tok[i]);
            if (c < 0 && parse_long(tok[i], &id) && id >= 0 && id < 256)
                c = (int)id; /* an exact id (e.g. 74 = the second 7H) */
            if (c < 0 || n >= sizeof cards)
                fail("'%s' is not a card", tok[i]);
            cards[n++] = (uint8_t)c;
        }
        int rc = td->test_deal(R.st, (int)first, cards, n);
        if (rc != JA_OK)
            fail("test_deal() refused the deck: %s (a card named more often than the deck "
                 "holds it, a card not in the deck, or a bad FIRST?)",
                 ja_err_name(rc));
        check_contract("deal");
    } else if (strcmp(d, "act") == 0) {
        do_act(tok, nt, false);
    } else if (strcmp(d, "fault") == 0) {
        do_act(tok, nt, true);
    } else if (strcmp(d, "illegal") == 0) {
        do_illegal(tok, nt);
    } else if (strcmp(d, "expect") == 0) {
        do_expect(tok, nt);
    } else if (strcmp(d, "show") == 0) {
        do_show(tok, nt);
    } else if (strcmp(d, "repeat") == 0) {
        if (nt < 3 || !parse_long(tok[1], &v) || v < 1 || v > 100000 ||
            strcmp(tok[2], "repeat") == 0)
            fail("expected `repeat N DIRECTIVE ...`");
        for (long i = 0; i < v; i++)
            directive(tok + 2, nt - 2);
    } else {
        fail("unknown directive '%s'", d);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: ja_scenario FILE.scn\n");
        return 2;
    }
    R.path = argv[1];
    R.seed = 1;
    FILE *fp = fopen(R.path, "r");
    if (!fp) {
        perror(R.path);
        return 2;
    }
    static char line[MAX_LINE], part[MAX_LINE];
    int lineno = 0;
    bool any = false;
    while (fgets(part, sizeof part, fp)) {
        lineno++;
        R.line = lineno;
        line[0] = '\0';
        for (;;) {
            char *hash = strchr(part, '#');
            if (hash)
                *hash = '\0';
            size_t n = strlen(part);
            while (n && isspace((unsigned char)part[n - 1]))
                part[--n] = '\0';
            bool more = n && part[n - 1] == '\\';
            if (more)
                part[--n] = '\0';
            if (strlen(line) + n + 2 >= sizeof line)
                fail("line too long");
            strcat(line, " ");
            strcat(line, part);
            if (!more || !fgets(part, sizeof part, fp))
                break;
            lineno++;
        }
        char *tok[MAX_TOKENS];
        int nt = 0;
        for (char *t = strtok(line, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
            if (nt == MAX_TOKENS)
                fail("too many words on one line");
            tok[nt++] = t;
        }
        if (nt == 0)
            continue;
        if (R.refused)
            fail("nothing may follow `expect setup-error`");
        directive(tok, nt);
        any = true;
    }
    fclose(fp);
    if (!any) {
        fprintf(stderr, "%s: empty scenario\n", R.path);
        return 1;
    }
    if (!R.g) {
        fprintf(stderr, "%s: no `game` directive\n", R.path);
        return 1;
    }
    if (!R.ready && !R.refused)
        ensure_setup();
    printf("ok %s (%d steps)\n", R.path, R.steps);
    free(R.st);
    free(R.tmp);
    free(R.obs);
    free(R.obs2);
    free(R.legal);
    return 0;
}
