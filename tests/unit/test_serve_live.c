/* `arena serve`'s live matches (arena/serve/serve_live.h), for every game: a
 * seeded match is played here step by step into the executor hook, and
 * after every decision the streams are read to the end of what they give.
 *  - The public stream's bytes are exactly what this test derives for an
 *    observer: per frame released, describe()'s line of the state and the
 *    game's observe_public() of it (JA_EXT_OBSERVE_PUBLIC: no seat, 255,
 *    through the field table, as "public"), and only
 *    for frames whose line is the same under determinize() for every seat
 *    and three seeds of this test's own (so a line that shows anything one
 *    seat cannot see would never be sent; every game's line is public
 *    today, so every frame is); no frame comes before the
 *    match is `delay` decisions further (counted in decisions). Labels
 *    (version 3) only of the action codes the public observation's events
 *    name, as this test reads them (Bombs' plays), each the first time:
 *    never a decision's label otherwise (a Bombs leader's kind, a Jack in
 *    the Box target).
 *  - A seat's stream gives that seat's observations only (observe() as JSON
 *    through the field table), each frame whose observation changed or in
 *    which the seat decided, with its own action and label there and the
 *    labels its observation's events name, under the same delay; the end
 *    event carries the outcome and the replay page.
 *  - The cap on running matches, late readers, and tickets (bound to a
 *    match and a seat, for the seat's author only, used once). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/json_w.h"
#include "serve/serve_live.h"
#include "view/viewer.h"

#include "jackarena/ja_bombs.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"

#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING 600

typedef struct expect {
    const ja_game_rules *g;
    uint32_t n, delay;
    char line[RING][256];
    bool pub[RING];
    uint8_t *obs;             /* RING observations of the watched seat */
    uint8_t *pubobs;          /* RING public observations */
    uint32_t seat;
    /* The watched seat's part in the decision that led to each frame. */
    bool decided[RING], forced[RING];
    uint32_t code[RING];
    uint64_t pub_after, seat_after; /* the newest events whose codes were labelled */
    /* What the streams gave so far. */
    int64_t pub_next;         /* the next frame the public stream may give */
    uint32_t withheld, given;
    int64_t seat_next;        /* the next frame the seat stream may show */
    uint8_t *seat_last;
    bool seat_have;
    uint32_t seen;
    bool pub_end, seat_end;
} expect;

/* Frame f of state st, after the decision of the seats in mask (their
 * actions by seat, and how many each had): its line, whether it is public
 * (this test's own derivation), the watched seat's observation and part in
 * the decision. */
static void expect_frame(expect *e, const void *st, uint32_t f, uint32_t mask,
                         const ja_action *by, const uint32_t *nlegal)
{
    const ja_game_rules *g = e->g;
    uint32_t k = f % RING;
    e->decided[k] = mask >> e->seat & 1u;
    e->code[k] = e->decided[k] ? by[e->seat].code : 0;
    e->forced[k] = e->decided[k] && nlegal[e->seat] == 1;
    e->line[k][0] = '\0';
    g->describe(st, e->line[k], sizeof e->line[k]);
    e->pub[k] = true;
    void *w = malloc(g->state_size);
    assert_non_null(w);
    char other[256];
    for (uint32_t s = 0; s < e->n && e->pub[k]; s++)
        for (uint64_t seed = 1; seed <= 3 && e->pub[k]; seed++) {
            memcpy(w, st, g->state_size);
            g->determinize(w, (int)s, ja_seed_derive(seed * 7919 + f, 0x5445u, s));
            other[0] = '\0';
            g->describe(w, other, sizeof other);
            e->pub[k] = strcmp(other, e->line[k]) == 0;
        }
    free(w);
    g->observe(st, (int)e->seat, e->obs + (size_t)k * g->obs_size);
    const ja_ext_observe_public *op = ja_rules_extension(g, JA_EXT_OBSERVE_PUBLIC);
    assert_non_null(op);
    op->observe_public(st, e->pubobs + (size_t)k * g->obs_size);
}

/* Observation obs as a JSON value. */
static json_t *obs_value(const ja_game_rules *g, const void *obs)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    json_w w;
    jw_init(&w, f);
    viewer_obs_json(&w, NULL, g, obs);
    assert_int_equal(fclose(f), 0);
    json_t *j = json_loadb(buf, len, 0, NULL);
    assert_non_null(j);
    free(buf);
    return j;
}

/* Public observation obs as the JSON value the stream carries. */
static json_t *pub_value(const ja_game_rules *g, const void *obs)
{
    json_t *j = obs_value(g, obs);
    /* No seat observes it. */
    assert_int_equal(json_integer_value(json_object_get(j, "seat")), JA_OBS_NO_SEAT);
    return j;
}

/* The labels an event of observation obs carries, as this test reads the
 * games: Bombs' plays (in turn and out of turn) name their codes in the
 * events numbered after *after; no other game's events name one. Set as
 * "labels" of x, each code once, when there is one; *after moves to the
 * newest event. */
static void expect_labels(const ja_game_rules *g, const void *obs, uint64_t *after, json_t *x)
{
    if (strcmp(g->name, "bombs") != 0)
        return;
    const ja_bombs_obs *o = obs;
    json_t *labels = json_object();
    for (uint32_t i = 0; i < JA_BOMBS_EVENTS && o->ev_seq[i]; i++) {
        if (o->ev_seq[i] <= *after)
            continue;
        *after = o->ev_seq[i];
        if (o->ev_kind[i] != JA_BOMBS_EV_PLAY && o->ev_kind[i] != JA_BOMBS_EV_INTERRUPT)
            continue;
        char key[16], label[64];
        snprintf(key, sizeof key, "%u", (unsigned)o->ev_arg[i]);
        assert_true(g->label((ja_action){o->ev_arg[i]}, label, sizeof label) > 0);
        json_object_set_new(labels, key, json_string(label));
    }
    if (json_object_size(labels))
        json_object_set_new(x, "labels", labels);
    else
        json_decref(labels);
}

/* The "seen" event of frame k's slot for the watched seat. */
static char *seen_text(expect *e, uint32_t k)
{
    const ja_game_rules *g = e->g;
    const uint8_t *o = e->obs + (size_t)k * g->obs_size;
    json_t *x = json_pack("{ss si so}", "type", "seen", "seat", (int)e->seat, "obs",
                          obs_value(g, o));
    if (e->decided[k]) {
        char label[64];
        assert_true(g->label((ja_action){e->code[k]}, label, sizeof label) > 0);
        json_object_set_new(x, "action", json_pack("{sI ss sb}", "code", (json_int_t)e->code[k],
                                                   "label", label, "forced", e->forced[k]));
    }
    expect_labels(g, o, &e->seat_after, x);
    char *t = json_dumps(x, JSON_COMPACT);
    json_decref(x);
    return t;
}

/* Reads the public stream as far as it goes, after decision `decisions`. */
static void drain_public(expect *e, srv_live_reader *r, uint32_t decisions, bool ended,
                         const ja_outcome *out)
{
    char *t;
    int rc;
    while ((rc = srv_live_reader_next(r, &t)) == JA_OK) {
        json_t *j = json_loads(t, 0, NULL);
        assert_non_null(j);
        const char *type = json_string_value(json_object_get(j, "type"));
        assert_non_null(type);
        assert_null(strstr(t, "\"obs\""));
        if (strcmp(type, "match") == 0) {
            assert_int_equal(e->pub_next, 0);
            assert_int_equal(json_integer_value(json_object_get(j, "delay")), e->delay);
            assert_int_equal(json_array_size(json_object_get(j, "seats")), e->n);
            assert_int_equal(json_integer_value(json_object_get(j, "version")), 3);
            assert_int_equal(json_array_size(json_object_get(j, "fields")),
                             e->g->n_obs_fields);
            e->pub_next = 0;
        } else if (strcmp(type, "frame") == 0) {
            int64_t d = json_integer_value(json_object_get(j, "decision"));
            /* Frames skipped were withheld: not public by our derivation. */
            assert_true(d >= e->pub_next);
            for (int64_t f = e->pub_next; f < d; f++) {
                assert_false(e->pub[f % RING]);
                e->withheld++;
            }
            assert_true(e->pub[d % RING]);
            assert_true(ended || d + e->delay <= decisions);
            /* The exact bytes of the observer's derivation. */
            json_t *x = json_pack("{ss sI sI ss}", "type", "frame", "decision", (json_int_t)d,
                                  "at", (json_int_t)decisions, "line", e->line[d % RING]);
            const uint8_t *po = e->pubobs + (size_t)(d % RING) * e->g->obs_size;
            json_object_set_new(x, "public", pub_value(e->g, po));
            expect_labels(e->g, po, &e->pub_after, x);
            char *xt = json_dumps(x, JSON_COMPACT);
            assert_string_equal(t, xt);
            free(xt);
            json_decref(x);
            e->pub_next = d + 1;
            e->given++;
        } else {
            assert_string_equal(type, "end");
            assert_true(ended);
            for (int64_t f = e->pub_next; f <= decisions; f++) {
                assert_false(e->pub[f % RING]);
                e->withheld++;
            }
            assert_int_equal(json_integer_value(json_object_get(j, "decisions")), decisions);
            json_t *pl = json_object_get(j, "places");
            for (uint32_t s = 0; s < e->n; s++)
                assert_int_equal(json_integer_value(json_array_get(pl, s)), out->place[s]);
            assert_string_equal(json_string_value(json_object_get(j, "replay")),
                                "/matches/7-3.html");
            e->pub_end = true;
        }
        json_decref(j);
        free(t);
    }
    assert_int_equal(rc, e->pub_end ? JA_ESTATE : JA_EAGAIN);
}

/* Reads the seat's stream as far as it goes. */
static void drain_seat(expect *e, srv_live_reader *r, uint32_t decisions, bool ended)
{
    const ja_game_rules *g = e->g;
    char *t;
    int rc;
    while ((rc = srv_live_reader_next(r, &t)) == JA_OK) {
        json_t *j = json_loads(t, 0, NULL);
        assert_non_null(j);
        const char *type = json_string_value(json_object_get(j, "type"));
        if (strcmp(type, "match") == 0) {
            assert_int_equal(json_integer_value(json_object_get(j, "seat")), e->seat);
        } else if (strcmp(type, "seen") == 0) {
            /* The next frame in which the seat decided or its observation
             * changed, released. */
            for (;;) {
                assert_true(e->seat_next <= decisions);
                const uint8_t *o = e->obs + (size_t)(e->seat_next % RING) * g->obs_size;
                if (!e->seat_have || e->decided[e->seat_next % RING] ||
                    memcmp(o, e->seat_last, g->obs_size) != 0)
                    break;
                e->seat_next++;
            }
            assert_true(ended || e->seat_next + e->delay <= decisions);
            const uint8_t *o = e->obs + (size_t)(e->seat_next % RING) * g->obs_size;
            assert_true((json_object_get(j, "action") != NULL) ==
                        e->decided[e->seat_next % RING]);
            char *xt = seen_text(e, (uint32_t)(e->seat_next % RING));
            assert_string_equal(t, xt);
            free(xt);
            memcpy(e->seat_last, o, g->obs_size);
            e->seat_have = true;
            e->seat_next++;
            e->seen++;
            assert_null(json_object_get(j, "decision"));
        } else {
            assert_string_equal(type, "end");
            e->seat_end = true;
        }
        json_decref(j);
        free(t);
    }
    assert_int_equal(rc, e->seat_end ? JA_ESTATE : JA_EAGAIN);
}

/* A game whose line leaks: the real game's line plus a hash of the whole
 * state, hands and stock included (test_leaky_line_withheld). */
static const ja_game_rules *leak_base;

static int leaky_describe(const void *st, char *buf, size_t cap)
{
    int len = leak_base->describe(st, buf, cap);
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < leak_base->state_size; i++)
        h = (h ^ ((const uint8_t *)st)[i]) * 1099511628211ull;
    if (len >= 0 && (size_t)len < cap)
        len += snprintf(buf + len, cap - (size_t)len, "; state %016llx", (unsigned long long)h);
    return len;
}

/* One seeded match of g with n seats, watched with `delay`. */
static void watch(const ja_game_rules *g, uint32_t n, uint32_t delay, uint64_t seed)
{
    srv_live *l = NULL;
    l = srv_live_new(g, delay, 1);
    ja_options o;
    memset(&o, 0, sizeof o);
    char err[256];
    assert_int_equal(ja_options_resolve(g, &o, n, err, sizeof err), JA_OK);
    char nb[JA_MAX_SEATS][32];
    const char *names[JA_MAX_SEATS];
    for (uint32_t s = 0; s < n; s++) {
        snprintf(nb[s], sizeof nb[s], "author%u@%u", (unsigned)s, (unsigned)s + 1);
        names[s] = nb[s];
    }
    arena_exec_ctx xc = {0};
    xc.game = g;
    xc.options = o;
    xc.names = names;
    xc.tournament_id = 7;
    arena_job job = {3, seed, n, {0}};
    for (uint32_t s = 0; s < n; s++)
        job.slot[s] = (uint16_t)s;
    const arena_live_hook *h = srv_live_hook(l);
    void *m = h->begin(h->ctx, &xc, &job);
    assert_non_null(m);
    /* The cap: one running match here; another is played unwatched. */
    arena_job job2 = job;
    job2.number = 4;
    assert_null(h->begin(h->ctx, &xc, &job2));

    expect *e = calloc(1, sizeof *e);
    assert_non_null(e);
    e->g = g;
    e->n = n;
    e->delay = delay;
    e->seat = n - 1;
    e->obs = malloc((size_t)RING * g->obs_size);
    e->pubobs = malloc((size_t)RING * g->obs_size);
    e->seat_last = malloc(g->obs_size);
    assert_true(e->obs && e->pubobs && e->seat_last);
    /* A second spectator, reading each frame after the first has made its
     * line and check: the same bytes from what the first left. */
    expect *e2 = malloc(sizeof *e2);
    assert_non_null(e2);
    *e2 = *e;
    srv_live_reader *pub = NULL, *pub2 = NULL, *seat = NULL, *bad = NULL;
    assert_int_equal(srv_live_reader_open(l, "7-3", -1, &pub), JA_OK);
    assert_int_equal(srv_live_reader_open(l, "7-3", -1, &pub2), JA_OK);
    assert_int_equal(srv_live_reader_open(l, "7-3", (int)e->seat, &seat), JA_OK);
    assert_int_equal(srv_live_reader_open(l, "7-4", -1, &bad), JA_ENOTFOUND);
    assert_int_equal(srv_live_reader_open(l, "7-3", (int)n, &bad), JA_ERANGE);

    /* The match, played here with the same seed as the hook's setup. */
    void *st = malloc(g->state_size);
    ja_action *legal = malloc(sizeof *legal * g->max_actions);
    assert_true(st && legal);
    assert_int_equal(g->setup(st, &o, n, seed), JA_OK);
    expect_frame(e, st, 0, 0, NULL, NULL);
    expect_frame(e2, st, 0, 0, NULL, NULL);
    drain_public(e, pub, 0, false, NULL);
    drain_public(e2, pub2, 0, false, NULL);
    drain_seat(e, seat, 0, false);
    ja_rng rng;
    ja_rng_seed(&rng, seed ^ 0x9e3779b97f4a7c15ull);
    ja_outcome out;
    uint32_t f = 0;
    ja_action by[JA_MAX_SEATS];
    uint32_t nlegal[JA_MAX_SEATS];
    ref_replay_rec recs[JA_MAX_SEATS];
    while (g->outcome(st, &out) != JA_OK) {
        uint32_t mask = g->to_act(st), nr = 0;
        for (uint32_t s = 0; s < n; s++)
            if (mask & (1u << s)) {
                nlegal[s] = g->legal(st, (int)s, legal, g->max_actions);
                by[s] = legal[ja_rng_below(&rng, nlegal[s])];
                recs[nr++] = (ref_replay_rec){.seat = (uint8_t)s, .forced = nlegal[s] == 1,
                                              .code = by[s].code, .n_legal = nlegal[s]};
            }
        assert_int_equal(g->apply(st, mask, by), JA_OK);
        ref_step_info info = {0};
        info.step = f++;
        info.seats = n;
        info.state = st;
        info.recs = recs;
        info.n_recs = nr;
        h->step(m, g, &info);
        expect_frame(e, st, f, mask, by, nlegal);
        expect_frame(e2, st, f, mask, by, nlegal);
        drain_public(e, pub, f, false, NULL);
        drain_public(e2, pub2, f, false, NULL);
        drain_seat(e, seat, f, false);
    }
    /* A late reader starts at the oldest frame kept. */
    srv_live_reader *late = NULL;
    assert_int_equal(srv_live_reader_open(l, "7-3", -1, &late), JA_OK);
    char *t = NULL;
    assert_int_equal(srv_live_reader_next(late, &t), JA_OK); /* match */
    free(t);
    if (f + 1 > delay + SRV_LIVE_BACKLOG + 1 && srv_live_reader_next(late, &t) == JA_OK) {
        json_t *j = json_loads(t, 0, NULL);
        assert_true(json_integer_value(json_object_get(j, "decision")) + delay +
                        SRV_LIVE_BACKLOG >= f);
        json_decref(j);
        free(t);
    }
    srv_live_reader_close(&late);

    arena_job_result *res = calloc(1, sizeof *res);
    assert_non_null(res);
    res->rc = JA_OK;
    res->res.outcome = out;
    snprintf(res->replay_path, sizeof res->replay_path, "/x/t7-m000003.rpl");
    h->end(m, res);
    free(res);
    drain_public(e, pub, f, true, &out);
    drain_public(e2, pub2, f, true, &out);
    assert_true(e2->pub_end);
    assert_int_equal(e2->given, e->given);
    drain_seat(e, seat, f, true);
    assert_true(e->pub_end && e->seat_end);
    assert_true(e->seen > 0);
    /* Every game's line is public throughout (Jack in the Box's used to
     * show a pending target's stage, which this check caught); a line that
     * shows hidden state is never sent (test_leaky_line_withheld). */
    if (g->describe == leaky_describe)
        assert_int_equal(e->given, 0);
    else
        assert_int_equal(e->withheld, 0);
    assert_int_equal(e->given + e->withheld, f + 1);
    /* Ended and read to the end: gone once its readers close. */
    char *list = srv_live_list_json(l);
    assert_non_null(strstr(list, "\"matches\":[]"));
    free(list);
    srv_live_reader_close(&pub);
    srv_live_reader_close(&pub2);
    srv_live_reader_close(&seat);
    assert_int_equal(srv_live_reader_open(l, "7-3", -1, &bad), JA_ENOTFOUND);
    free(st);
    free(legal);
    free(e->obs);
    free(e->pubobs);
    free(e->seat_last);
    free(e);
    free(e2);
    srv_live_free(&l);
}

static void test_games(void **state)
{
    (void)state;
    for (int i = 0; ja_games[i]; i++) {
        const ja_game_rules *g = ja_games[i];
        uint32_t big = g->max_seats < 5 ? g->max_seats : 5;
        watch(g, g->min_seats, SRV_LIVE_DELAY_DEFAULT, 11 + (uint64_t)i);
        watch(g, big, 3, 101 + (uint64_t)i);
        watch(g, g->min_seats, 0, 1001 + (uint64_t)i);
    }
}

/* A line that shows what some seat cannot see is withheld, every frame of
 * it: the check, not the games' good behaviour, keeps the stream public. */
static void test_leaky_line_withheld(void **state)
{
    (void)state;
    for (int i = 0; ja_games[i]; i++) {
        static ja_game_rules leaky;
        leak_base = ja_games[i];
        leaky = *leak_base;
        leaky.describe = leaky_describe;
        watch(&leaky, leak_base->min_seats, 2, 7 + (uint64_t)i);
    }
}

static void test_list_and_tickets(void **state)
{
    (void)state;
    const ja_game_rules *g = ja_games[0];
    srv_live *l = NULL;
    l = srv_live_new(g, 2, 2);
    ja_options o;
    memset(&o, 0, sizeof o);
    char err[256];
    assert_int_equal(ja_options_resolve(g, &o, 2, err, sizeof err), JA_OK);
    const char *names[2] = {"alice@1", "bob@3"};
    arena_exec_ctx xc = {0};
    xc.game = g;
    xc.options = o;
    xc.names = names;
    xc.tournament_id = 12;
    arena_job job = {5, 99, 2, {0, 1}};
    const arena_live_hook *h = srv_live_hook(l);
    void *m = h->begin(h->ctx, &xc, &job);
    assert_non_null(m);
    char *list = srv_live_list_json(l);
    assert_non_null(list);
    json_t *j = json_loads(list, 0, NULL);
    free(list);
    json_t *m0 = json_array_get(json_object_get(j, "matches"), 0);
    assert_string_equal(json_string_value(json_object_get(m0, "id")), "12-5");
    assert_string_equal(json_string_value(json_object_get(m0, "page")), "/live/12-5");
    assert_string_equal(json_string_value(json_array_get(json_object_get(m0, "seats"), 1)),
                        "bob@3");
    assert_int_equal(json_integer_value(json_object_get(m0, "steps")), 0);
    json_decref(j);

    char t[65], t2[65];
    int seat = -1;
    assert_int_equal(srv_live_ticket_new(l, "12-5", 1, "alice", t), JA_EBUSY);
    assert_int_equal(srv_live_ticket_new(l, "12-5", 0, "bob", t), JA_EBUSY);
    assert_int_equal(srv_live_ticket_new(l, "12-5", 0, "alic", t), JA_EBUSY);
    assert_int_equal(srv_live_ticket_new(l, "12-5", 2, "alice", t), JA_ERANGE);
    assert_int_equal(srv_live_ticket_new(l, "12-6", 0, "alice", t), JA_ENOTFOUND);
    assert_int_equal(srv_live_ticket_new(l, "12-5", 0, "alice", t), JA_OK);
    assert_int_equal(srv_live_ticket_new(l, "12-5", 1, "bob", t2), JA_OK);
    assert_int_equal(strlen(t), 64);
    assert_string_not_equal(t, t2);
    assert_false(srv_live_ticket_use(l, "12-6", t, &seat));   /* another match */
    assert_false(srv_live_ticket_use(l, "12-5", "00", &seat));
    assert_false(srv_live_ticket_use(l, "12-5", NULL, &seat));
    char forged[65];
    memcpy(forged, t, sizeof forged);
    forged[0] = forged[0] == 'a' ? 'b' : 'a';
    assert_false(srv_live_ticket_use(l, "12-5", forged, &seat));
    assert_true(srv_live_ticket_use(l, "12-5", t, &seat));
    assert_int_equal(seat, 0);
    assert_false(srv_live_ticket_use(l, "12-5", t, &seat));   /* once */
    assert_true(srv_live_ticket_use(l, "12-5", t2, &seat));
    assert_int_equal(seat, 1);
    /* More tickets than kept: the oldest are dropped, the newest work. */
    char many[SRV_LIVE_TICKETS + 4][65];
    for (uint32_t i = 0; i < SRV_LIVE_TICKETS + 4; i++)
        assert_int_equal(srv_live_ticket_new(l, "12-5", 0, "alice", many[i]), JA_OK);
    assert_true(srv_live_ticket_use(l, "12-5", many[SRV_LIVE_TICKETS + 3], &seat));

    /* A ticket dies with its match, even while a reader keeps it. */
    char t3[65];
    srv_live_reader *r = NULL;
    assert_int_equal(srv_live_reader_open(l, "12-5", -1, &r), JA_OK);
    assert_int_equal(srv_live_ticket_new(l, "12-5", 1, "bob", t3), JA_OK);
    arena_job_result *res = calloc(1, sizeof *res);
    res->rc = JA_EBOT; /* a match that could not be played */
    h->end(m, res);
    free(res);
    assert_false(srv_live_ticket_use(l, "12-5", t3, &seat));
    char *text = NULL;
    assert_int_equal(srv_live_reader_next(r, &text), JA_OK); /* match */
    free(text);
    assert_int_equal(srv_live_reader_next(r, &text), JA_OK); /* the deal */
    free(text);
    assert_int_equal(srv_live_reader_next(r, &text), JA_OK);
    assert_non_null(strstr(text, "\"error\""));
    free(text);
    assert_int_equal(srv_live_reader_next(r, &text), JA_ESTATE);
    srv_live_reader_close(&r);
    /* Ended and unread: gone, and no ticket for it any more. */
    assert_int_equal(srv_live_ticket_new(l, "12-5", 0, "alice", t), JA_ENOTFOUND);
    list = srv_live_list_json(l);
    assert_non_null(strstr(list, "\"matches\":[]"));
    free(list);
    srv_live_free(&l);
}

static void test_routes(void **state)
{
    (void)state;
    char id[SRV_LIVE_ID_MAX];
    static const struct {
        const char *method, *path;
        srv_live_route_kind kind;
        const char *id;
    } cases[] = {
        {"GET", "/live", SRV_LIVE_LIST_PAGE, ""},
        {"GET", "/api/live", SRV_LIVE_LIST, ""},
        {"GET", "/live/3-0", SRV_LIVE_PAGE, "3-0"},
        {"HEAD", "/live/12-345", SRV_LIVE_PAGE, "12-345"},
        {"GET", "/api/live/3-7/events", SRV_LIVE_EVENTS, "3-7"},
        {"POST", "/api/live/3-7/ticket", SRV_LIVE_TICKET, "3-7"},
        {"GET", "/api/live/3-7/ticket", SRV_LIVE_BAD_METHOD, "3-7"},
        {"POST", "/api/live/3-7/events", SRV_LIVE_BAD_METHOD, "3-7"},
        {"POST", "/live", SRV_LIVE_BAD_METHOD, ""},
        {"PUT", "/api/live", SRV_LIVE_BAD_METHOD, ""},
        {"GET", "/live/", SRV_LIVE_NONE, ""},
        {"GET", "/live/03-1", SRV_LIVE_NONE, ""},
        {"GET", "/live/3-01", SRV_LIVE_NONE, ""},
        {"GET", "/live/0-1", SRV_LIVE_NONE, ""},
        {"GET", "/live/-3-1", SRV_LIVE_NONE, ""},
        {"GET", "/live/3-1/", SRV_LIVE_NONE, ""},
        {"GET", "/live/3-1x", SRV_LIVE_NONE, ""},
        {"GET", "/live/../3-1", SRV_LIVE_NONE, ""},
        {"GET", "/live/3%2d1", SRV_LIVE_NONE, ""},
        {"GET", "/api/live/events", SRV_LIVE_NONE, ""},
        {"GET", "/api/live//events", SRV_LIVE_NONE, ""},
        {"GET", "/api/live/3-1/events/", SRV_LIVE_NONE, ""},
        {"GET", "/api/live/3-1/../events", SRV_LIVE_NONE, ""},
        {"GET", "/api/live/99999999999999999999-1/events", SRV_LIVE_NONE, ""},
        {"GET", "/api/lives", SRV_LIVE_NONE, ""},
        {"GET", "/livex", SRV_LIVE_NONE, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        srv_live_route_kind k = srv_live_route(cases[i].method, cases[i].path, id);
        if (k != cases[i].kind)
            fail_msg("%s %s: %d, not %d", cases[i].method, cases[i].path, (int)k,
                     (int)cases[i].kind);
        assert_string_equal(id, cases[i].id);
    }
    assert_int_equal(srv_live_route(NULL, "/live", id), SRV_LIVE_NONE);
    assert_int_equal(srv_live_route("GET", NULL, id), SRV_LIVE_NONE);
}

int main(void)
{
    if (sodium_init() < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_games),
        cmocka_unit_test(test_leaky_line_withheld),
        cmocka_unit_test(test_list_and_tickets),
        cmocka_unit_test(test_routes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
