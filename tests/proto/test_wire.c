/* The wire codec (referee/wire.c): every message the referee sends is one
 * well-formed msgpack map with a "type", each game's observation carries
 * every field of its table with the struct's exact values, and the decoder
 * of bot messages accepts what PROTOCOL.md allows and refuses the rest with
 * a reason, keeping the match of a bad action. For every game in the build. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "ja_botrt.h"
#include "ja_mp.h"
#include "wire.h"

#include <stdlib.h>
#include <string.h>

/* Unpacks b as exactly one map and checks its "type". */
static void unpack_one(const msgpack_sbuffer *b, const char *type, msgpack_unpacked *u)
{
    size_t end = 0;
    assert_int_equal(ja_mp_scan(b->data, b->size, 0, &end), 1);
    assert_int_equal(end, b->size);
    msgpack_unpacked_init(u);
    size_t off = 0;
    assert_int_equal(msgpack_unpack_next(u, b->data, b->size, &off), MSGPACK_UNPACK_SUCCESS);
    assert_int_equal(u->data.type, MSGPACK_OBJECT_MAP);
    char t[32];
    assert_true(ja_mp_get_str(&u->data, "type", t, sizeof t));
    assert_string_equal(t, type);
}

static int64_t field_value(const ja_field *f, const void *obs, uint32_t k)
{
    const unsigned char *p = (const unsigned char *)obs + f->offset;
    switch (f->type) {
    case JA_FT_U8: return p[k];
    case JA_FT_I8: { int8_t v; memcpy(&v, p + k, 1); return v; }
    case JA_FT_U16: { uint16_t v; memcpy(&v, p + 2 * k, 2); return v; }
    case JA_FT_I16: { int16_t v; memcpy(&v, p + 2 * k, 2); return v; }
    case JA_FT_U32: { uint32_t v; memcpy(&v, p + 4 * k, 4); return v; }
    case JA_FT_I32: { int32_t v; memcpy(&v, p + 4 * k, 4); return v; }
    default: { int64_t v; memcpy(&v, p + 8 * k, 8); return v; }
    }
}

static void check_obs(const ja_game_rules *g, const msgpack_object *om, const void *obs)
{
    assert_int_equal(om->type, MSGPACK_OBJECT_MAP);
    assert_int_equal(om->via.map.size, g->n_obs_fields);
    for (uint32_t i = 0; i < g->n_obs_fields; i++) {
        const ja_field *f = &g->obs_fields[i];
        const msgpack_object *v = ja_mp_get(om, f->name);
        assert_non_null(v);
        if (f->count == 1) {
            int64_t x;
            assert_true(ja_mp_as_i64(v, &x));
            assert_int_equal(x, field_value(f, obs, 0));
            continue;
        }
        const msgpack_object *items;
        uint32_t n;
        assert_true(ja_mp_as_array(v, &items, &n));
        assert_int_equal(n, f->count);
        for (uint32_t k = 0; k < n; k++) {
            int64_t x;
            assert_true(ja_mp_as_i64(&items[k], &x));
            assert_int_equal(x, field_value(f, obs, k));
        }
    }
}

/* Decodes the act in b as the child's runtime does (ja_botrt_decode_act). */
static ja_decision decode_act(const msgpack_sbuffer *b, ja_botrt *rt)
{
    msgpack_unpacked u;
    unpack_one(b, "act", &u);
    ja_decision d;
    char why[128];
    assert_int_equal(ja_botrt_decode_act(rt, &u.data, &d, why, sizeof why), JA_OK);
    msgpack_unpacked_destroy(&u);
    return d;
}

/* The hosted channel's compact act (REF_WIRE_BIN) gives the child's runtime
 * the very decision the protocol's act gives it: the same turn, deadline,
 * legal codes and observation bytes (zero where no field is). */
static void check_compact(const ja_game_rules *g, const ja_decision *d)
{
    msgpack_sbuffer full, bin;
    msgpack_sbuffer_init(&full);
    msgpack_sbuffer_init(&bin);
    assert_int_equal(ref_wire_act(&full, "m1", g, d, 0), JA_OK);
    assert_int_equal(ref_wire_act(&bin, "m1", g, d, REF_WIRE_BIN), JA_OK);
    assert_true(bin.size < full.size);
    unsigned char *obs[2];
    ja_action *legal[2];
    ja_decision got[2];
    for (int i = 0; i < 2; i++) {
        obs[i] = malloc(g->obs_size);
        legal[i] = calloc(g->max_actions, sizeof *legal[i]);
        memset(obs[i], 0xA5 + i, g->obs_size); /* every byte is written */
        ja_botrt rt;
        memset(&rt, 0, sizeof rt);
        rt.g = g;
        rt.obs = obs[i];
        rt.legal = legal[i];
        rt.cap_legal = g->max_actions;
        rt.n_seats = d->n_seats;
        rt.compact = i == 1;
        got[i] = decode_act(i ? &bin : &full, &rt);
    }
    assert_int_equal(got[1].turn, got[0].turn);
    assert_int_equal(got[1].deadline_ms, got[0].deadline_ms);
    assert_int_equal(got[1].n_legal, d->n_legal);
    assert_int_equal(got[0].n_legal, d->n_legal);
    assert_memory_equal(legal[1], legal[0], d->n_legal * sizeof *legal[0]);
    assert_memory_equal(obs[1], obs[0], g->obs_size);
    /* A runtime that is not the hosted child's (the client's) speaks the
     * protocol alone: the compact act has no legal list for it. */
    ja_botrt rt;
    memset(&rt, 0, sizeof rt);
    rt.g = g;
    rt.obs = obs[0];
    rt.legal = legal[0];
    rt.cap_legal = g->max_actions;
    msgpack_unpacked u;
    unpack_one(&bin, "act", &u);
    ja_decision d2;
    char why[128];
    assert_int_equal(ja_botrt_decode_act(&rt, &u.data, &d2, why, sizeof why), JA_EFORMAT);
    assert_non_null(strstr(why, "legal list"));
    msgpack_unpacked_destroy(&u);
    for (int i = 0; i < 2; i++) {
        free(obs[i]);
        free(legal[i]);
    }
    msgpack_sbuffer_destroy(&full);
    msgpack_sbuffer_destroy(&bin);
}

/* For every game: a few random decisions in, the act message of each asked
 * seat, checked field by field against the C struct, and its compact form
 * against the full one. */
static void test_act_every_game(void **state)
{
    msgpack_sbuffer b;
    msgpack_sbuffer_init(&b);
    for (int gi = 0; ja_games[gi]; gi++) {
        const ja_game_rules *g = ja_games[gi];
        uint32_t n = g->min_seats;
        ja_options o;
        char err[256];
        ja_options_init(g, &o);
        assert_int_equal(ja_options_resolve(g, &o, n, err, sizeof err), JA_OK);
        void *st = calloc(1, g->state_size), *obs = calloc(1, g->obs_size);
        ja_action *legal = calloc(g->max_actions, sizeof *legal);
        assert_int_equal(g->setup(st, &o, n, 7), JA_OK);
        ja_rng rng;
        ja_rng_seed(&rng, 3);
        for (int step = 0; step < 40 && g->to_act(st); step++) {
            uint32_t mask = g->to_act(st);
            ja_action by_seat[JA_MAX_SEATS] = {{0}};
            for (uint32_t s = 0; s < n; s++) {
                if (!(mask & (1u << s)))
                    continue;
                uint32_t nl = g->legal(st, (int)s, legal, g->max_actions);
                g->observe(st, (int)s, obs);
                ja_decision d = {sizeof d, (uint32_t)step + 1, 500, (int32_t)s, n, g->name,
                                 g->obs_version, g->obs_size, obs, legal, nl};
                assert_int_equal(ref_wire_act(&b, "m1", g, &d, REF_WIRE_PROBE), JA_OK);
                msgpack_unpacked u;
                unpack_one(&b, "act", &u);
                char match[16];
                uint64_t turn, dl;
                assert_true(ja_mp_get_str(&u.data, "match", match, sizeof match));
                assert_string_equal(match, "m1");
                assert_true(ja_mp_get_u64(&u.data, "turn", &turn) && turn == (uint64_t)step + 1);
                assert_true(ja_mp_get_u64(&u.data, "deadline_ms", &dl) && dl == 500);
                check_obs(g, ja_mp_get(&u.data, "obs"), obs);
                const msgpack_object *items;
                uint32_t cnt;
                assert_true(ja_mp_as_array(ja_mp_get(&u.data, "legal"), &items, &cnt));
                assert_int_equal(cnt, nl);
                for (uint32_t k = 0; k < cnt; k++) {
                    uint64_t code;
                    char label[96], want[96];
                    assert_true(ja_mp_get_u64(&items[k], "code", &code));
                    assert_int_equal(code, legal[k].code);
                    assert_true(ja_mp_get_str(&items[k], "label", label, sizeof label));
                    assert_true(g->label(legal[k], want, sizeof want) >= 0);
                    assert_string_equal(label, want);
                }
                msgpack_unpacked_destroy(&u);
                check_compact(g, &d);
                by_seat[s] = legal[ja_rng_below(&rng, nl)];
            }
            assert_int_equal(g->apply(st, mask, by_seat), JA_OK);
        }
        /* An observation of another game's size is refused. */
        ja_decision bad = {sizeof bad, 1, 0, 0, n, g->name, g->obs_version, g->obs_size + 1,
                           obs, legal, 1};
        assert_int_equal(ref_wire_act(&b, "m1", g, &bad, 0), JA_EINVAL);
        free(st);
        free(obs);
        free(legal);
    }
    msgpack_sbuffer_destroy(&b);
}

static void test_other_messages(void **state)
{
    msgpack_sbuffer b;
    msgpack_sbuffer_init(&b);
    msgpack_unpacked u;
    const ja_game_rules *g = ja_games[0];
    ja_options o;
    char err[128];
    ja_options_init(g, &o);
    ja_options_resolve(g, &o, g->min_seats, err, sizeof err);
    const char *players[JA_MAX_SEATS] = {"alice", "bob", "carol"};
    ref_wire_start_info si = {"t1-m2", g, &o, 1, g->min_seats, players, 1000, "depth=3",
                              0x0123456789abcdefull};
    ref_wire_start(&b, &si, 0);
    unpack_one(&b, "start", &u);
    uint64_t v;
    char s[64];
    assert_true(ja_mp_get_u64(&u.data, "seat", &v) && v == 1);
    assert_true(ja_mp_get_u64(&u.data, "seats", &v) && v == g->min_seats);
    assert_true(ja_mp_get_u64(&u.data, "move_ms", &v) && v == 1000);
    assert_true(ja_mp_get_str(&u.data, "game", s, sizeof s));
    assert_string_equal(s, g->name);
    const msgpack_object *om = ja_mp_get(&u.data, "options");
    assert_non_null(om);
    assert_int_equal(om->via.map.size, o.n);
    const msgpack_object *items;
    uint32_t n;
    assert_true(ja_mp_as_array(ja_mp_get(&u.data, "players"), &items, &n) && n == g->min_seats);
    assert_true(ja_mp_as_str(&items[1], s, sizeof s));
    assert_string_equal(s, "bob");
    /* The bot's parameters, always present ("" for none). */
    assert_true(ja_mp_get_str(&u.data, "params", s, sizeof s));
    assert_string_equal(s, "depth=3");
    /* The seat's own stream seed, as given. */
    assert_true(ja_mp_get_u64(&u.data, "seed", &v) && v == 0x0123456789abcdefull);
    msgpack_unpacked_destroy(&u);
    si.params = NULL;
    ref_wire_start(&b, &si, 0);
    unpack_one(&b, "start", &u);
    assert_true(ja_mp_get_str(&u.data, "params", s, sizeof s));
    assert_string_equal(s, "");
    msgpack_unpacked_destroy(&u);

    ja_outcome out = {2, {JA_SCORE_UNIT, 0}, {1, 2}};
    uint32_t faults[2] = {0, 3};
    ref_wire_end_info ei = {"t1-m2", &out, faults, "r.rpl"};
    ref_wire_end(&b, &ei);
    unpack_one(&b, "end", &u);
    assert_true(ja_mp_as_array(ja_mp_get(&u.data, "faults"), &items, &n) && n == 2);
    assert_true(ja_mp_as_u64(&items[1], &v) && v == 3);
    assert_true(ja_mp_as_array(ja_mp_get(&u.data, "scores"), &items, &n) && n == 2);
    assert_true(ja_mp_as_u64(&items[0], &v) && v == JA_SCORE_UNIT);
    msgpack_unpacked_destroy(&u);

    ref_wire_welcome(&b, "mybot", 8);
    unpack_one(&b, "welcome", &u);
    assert_true(ja_mp_get_u64(&u.data, "protocol", &v) && v == 1);
    msgpack_unpacked_destroy(&u);
    ref_wire_error(&b, REF_WIRE_ERR_STALE_TURN, "why", "m", 4);
    unpack_one(&b, "error", &u);
    assert_true(ja_mp_get_str(&u.data, "code", s, sizeof s));
    assert_string_equal(s, "stale_turn");
    assert_true(ja_mp_get_u64(&u.data, "turn", &v) && v == 4);
    msgpack_unpacked_destroy(&u);
    ref_wire_error(&b, REF_WIRE_ERR_MALFORMED, "why", NULL, 0);
    unpack_one(&b, "error", &u);
    assert_null(ja_mp_get(&u.data, "match"));
    msgpack_unpacked_destroy(&u);
    ref_wire_ping(&b);
    unpack_one(&b, "ping", &u);
    msgpack_unpacked_destroy(&u);
    ref_wire_bye(&b);
    unpack_one(&b, "bye", &u);
    msgpack_unpacked_destroy(&u);
    msgpack_sbuffer_destroy(&b);
}

/* Packs a map from alternating keys and values: "s:" string, "i:" integer,
 * "n:" negative, "f:" float, "t:" true, "a:" array of N nils. */
static void pack(msgpack_sbuffer *b, int n_pairs, ...)
{
    msgpack_sbuffer_clear(b);
    msgpack_packer pk;
    msgpack_packer_init(&pk, b, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, (size_t)n_pairs);
    va_list ap;
    va_start(ap, n_pairs);
    for (int i = 0; i < n_pairs; i++) {
        ja_mp_put_str(&pk, va_arg(ap, const char *));
        const char *v = va_arg(ap, const char *);
        if (strncmp(v, "s:", 2) == 0)
            ja_mp_put_str(&pk, v + 2);
        else if (strncmp(v, "i:", 2) == 0)
            msgpack_pack_uint64(&pk, strtoull(v + 2, NULL, 10));
        else if (strncmp(v, "n:", 2) == 0)
            msgpack_pack_int64(&pk, -strtoll(v + 2, NULL, 10));
        else if (strncmp(v, "f:", 2) == 0)
            msgpack_pack_double(&pk, 1.5);
        else if (strncmp(v, "t:", 2) == 0)
            msgpack_pack_true(&pk);
        else
            msgpack_pack_nil(&pk);
    }
    va_end(ap);
}

static int dec(const msgpack_sbuffer *b, ref_wire_msg *m)
{
    char why[256] = "";
    int rc = ref_wire_decode(b->data, b->size, m, why, sizeof why);
    if (rc != JA_OK)
        assert_true(why[0] != '\0');
    return rc;
}

/* An action's "log": kept as sent up to JA_DECLOG_MAX bytes (log_cut when
 * longer: cut, not refused), with an index or an error; anything but a
 * string is malformed. */
static void test_decoder_log(void **state)
{
    (void)state;
    msgpack_sbuffer b;
    msgpack_sbuffer_init(&b);
    ref_wire_msg m;
    pack(&b, 5, "type", "s:action", "match", "s:m", "turn", "i:2", "index", "i:1", "log",
         "s:thinking\nhand 7H");
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_int_equal(m.index, 1);
    assert_int_equal(m.log_len, 16);
    assert_false(m.log_cut);
    assert_memory_equal(m.log, "thinking\nhand 7H", 16);
    pack(&b, 5, "type", "s:action", "match", "s:m", "turn", "i:2", "error", "s:no", "log",
         "s:why");
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_true(m.has_error);
    assert_int_equal(m.log_len, 3);
    pack(&b, 4, "type", "s:action", "match", "s:m", "turn", "i:2", "index", "i:1");
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_int_equal(m.log_len, 0); /* none: nothing logged */
    char *longlog = malloc(2 + JA_DECLOG_MAX + 100 + 1);
    memcpy(longlog, "s:", 2);
    memset(longlog + 2, 'l', JA_DECLOG_MAX + 100);
    longlog[2 + JA_DECLOG_MAX + 100] = '\0';
    pack(&b, 5, "type", "s:action", "match", "s:m", "turn", "i:2", "index", "i:0", "log",
         longlog);
    free(longlog);
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_int_equal(m.log_len, JA_DECLOG_MAX);
    assert_true(m.log_cut);
    pack(&b, 5, "type", "s:action", "match", "s:m", "turn", "i:2", "index", "i:0", "log", "i:5");
    char why[128];
    assert_int_equal(ref_wire_decode(b.data, b.size, &m, why, sizeof why), JA_EFORMAT);
    assert_string_equal(why, "\"log\" must be a string");
    assert_true(m.has_match); /* the fault still finds its seat */
    msgpack_sbuffer_destroy(&b);
}

static void test_decoder(void **state)
{
    msgpack_sbuffer b;
    msgpack_sbuffer_init(&b);
    ref_wire_msg m;

    pack(&b, 5, "type", "s:hello", "protocol", "i:1", "name", "s:mybot", "version", "s:1.0",
         "capacity", "i:8");
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_int_equal(m.type, REF_WIRE_HELLO);
    assert_string_equal(m.name, "mybot");
    assert_int_equal(m.capacity, 8);
    pack(&b, 3, "type", "s:hello", "protocol", "i:1", "name", "s:b");
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_int_equal(m.capacity, 1); /* default */
    assert_false(m.has_error);
    assert_false(m.bin); /* the full act unless asked */
    /* "x_bin": true asks for the compact act; anything but a boolean is malformed. */
    pack(&b, 4, "type", "s:hello", "protocol", "i:1", "name", "s:b", "x_bin", "t:");
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_true(m.bin);
    pack(&b, 4, "type", "s:hello", "protocol", "i:1", "name", "s:b", "x_bin", "i:1");
    assert_int_equal(dec(&b, &m), JA_EFORMAT);
    /* A hosted child's bot refused its parameters: one line kept. */
    pack(&b, 4, "type", "s:hello", "protocol", "i:1", "name", "s:b", "x_params_error",
         "s:unknown parameter 'x'\n(known: y)");
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_true(m.has_error);
    assert_string_equal(m.error, "unknown parameter 'x' (known: y)");
    pack(&b, 4, "type", "s:hello", "protocol", "i:1", "name", "s:b", "x_params_error", "i:3");
    assert_int_equal(dec(&b, &m), JA_EFORMAT);
    pack(&b, 4, "type", "s:hello", "protocol", "i:1", "name", "s:b", "capacity", "i:100000");
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_int_equal(m.capacity, REF_WIRE_MAX_CAPACITY);
    pack(&b, 4, "type", "s:hello", "protocol", "i:1", "name", "s:b", "capacity", "i:0");
    assert_int_equal(dec(&b, &m), JA_EFORMAT);
    pack(&b, 2, "type", "s:hello", "protocol", "i:1");
    assert_int_equal(dec(&b, &m), JA_EFORMAT);
    pack(&b, 3, "type", "s:hello", "protocol", "s:1", "name", "s:b");
    assert_int_equal(dec(&b, &m), JA_EFORMAT);
    pack(&b, 3, "type", "s:hello", "protocol", "i:1", "name", "s:");
    assert_int_equal(dec(&b, &m), JA_EFORMAT);
    char longname[200];
    memset(longname, 'x', sizeof longname - 1);
    longname[0] = 's';
    longname[1] = ':';
    longname[sizeof longname - 1] = '\0';
    pack(&b, 3, "type", "s:hello", "protocol", "i:1", "name", longname);
    assert_int_equal(dec(&b, &m), JA_EFORMAT);
    /* A cmd: bot's token: up to REF_WIRE_TOKEN_MAX - 1 bytes, kept as sent;
     * longer, not a string, or with a NUL is malformed. */
    char token[2 + REF_WIRE_TOKEN_MAX + 1];
    memset(token, 't', sizeof token - 1);
    memcpy(token, "s:", 2);
    token[2 + REF_WIRE_TOKEN_MAX - 1] = '\0';
    pack(&b, 4, "type", "s:hello", "protocol", "i:1", "name", "s:b", "token", token);
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_string_equal(m.token, token + 2);
    token[2 + REF_WIRE_TOKEN_MAX - 1] = 't';
    token[2 + REF_WIRE_TOKEN_MAX] = '\0';
    pack(&b, 4, "type", "s:hello", "protocol", "i:1", "name", "s:b", "token", token);
    char tok_why[256];
    assert_int_equal(ref_wire_decode(b.data, b.size, &m, tok_why, sizeof tok_why), JA_EFORMAT);
    assert_string_equal(tok_why, "\"token\" is longer than 511 bytes");
    pack(&b, 4, "type", "s:hello", "protocol", "i:1", "name", "s:b", "token", "i:7");
    assert_int_equal(dec(&b, &m), JA_EFORMAT);
    pack(&b, 3, "type", "s:hello", "protocol", "i:1", "name", "s:b");
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_string_equal(m.token, ""); /* none: a bot started by hand */
    /* The refusal codes of seat identity (docs/protocol.md, "hello"). */
    assert_string_equal(ref_wire_error_code(REF_WIRE_ERR_NAME_TAKEN), "name_taken");
    assert_string_equal(ref_wire_error_code(REF_WIRE_ERR_UNAUTHORIZED), "unauthorized");

    pack(&b, 5, "type", "s:action", "match", "s:t1-m3", "turn", "i:17", "index", "i:3",
         "future_key", "s:ignored");
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_int_equal(m.type, REF_WIRE_ACTION);
    assert_string_equal(m.match, "t1-m3");
    assert_int_equal(m.turn, 17);
    assert_int_equal(m.index, 3);
    pack(&b, 4, "type", "s:action", "match", "s:m", "turn", "i:2", "index", "n:1");
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_true(m.index == UINT64_MAX); /* judged by the hub: illegal */
    pack(&b, 4, "type", "s:action", "match", "s:m", "turn", "i:2", "index", "f:");
    assert_int_equal(dec(&b, &m), JA_EFORMAT);
    assert_true(m.has_match); /* the fault still finds its seat */
    assert_string_equal(m.match, "m");
    pack(&b, 3, "type", "s:action", "match", "s:m", "turn", "i:2");
    assert_int_equal(dec(&b, &m), JA_EFORMAT);
    assert_true(m.has_match);
    pack(&b, 3, "type", "s:action", "turn", "i:2", "index", "i:0");
    assert_int_equal(dec(&b, &m), JA_EFORMAT);
    assert_false(m.has_match);
    /* "error" in place of "index": the bot could not choose (one line kept,
     * cut to fit); an index beside it is not read. */
    pack(&b, 4, "type", "s:action", "match", "s:m", "turn", "i:2", "error",
         "s:ValueError: no\nmove");
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_true(m.has_error && m.has_match);
    assert_string_equal(m.error, "ValueError: no move");
    char longerr[600];
    memset(longerr, 'e', sizeof longerr - 1);
    longerr[0] = 's';
    longerr[1] = ':';
    longerr[sizeof longerr - 1] = '\0';
    pack(&b, 5, "type", "s:action", "match", "s:m", "turn", "i:2", "error", longerr, "index",
         "i:1");
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_true(m.has_error);
    assert_int_equal(strlen(m.error), REF_WIRE_ERROR_MAX - 1);
    pack(&b, 4, "type", "s:action", "match", "s:m", "turn", "i:2", "error", "i:5");
    assert_int_equal(dec(&b, &m), JA_EFORMAT);
    assert_true(m.has_match);

    pack(&b, 1, "type", "s:pong");
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_int_equal(m.type, REF_WIRE_PONG);
    pack(&b, 1, "type", "s:bye");
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_int_equal(m.type, REF_WIRE_BYE);
    pack(&b, 1, "type", "s:dance");
    assert_int_equal(dec(&b, &m), JA_OK);
    assert_int_equal(m.type, REF_WIRE_OTHER);
    assert_string_equal(m.type_name, "dance");
    pack(&b, 1, "kind", "s:pong");
    assert_int_equal(dec(&b, &m), JA_EFORMAT);
    pack(&b, 1, "type", "i:3");
    assert_int_equal(dec(&b, &m), JA_EFORMAT);

    /* Not one map. */
    char why[128];
    assert_int_equal(ref_wire_decode("\xc1", 1, &m, why, sizeof why), JA_EFORMAT);
    assert_int_equal(ref_wire_decode("\x92\x01\x02", 3, &m, why, sizeof why), JA_EFORMAT);
    assert_int_equal(ref_wire_decode("", 0, &m, why, sizeof why), JA_EFORMAT);
    assert_int_equal(ref_wire_decode("\x80\x00", 2, &m, why, sizeof why), JA_EFORMAT);
    /* A map that claims four billion pairs in a few bytes: refused before
     * msgpack-c allocates. */
    assert_int_equal(ref_wire_decode("\xdf\xff\xff\xff\xff\xa1x", 7, &m, why, sizeof why),
                     JA_EFORMAT);
    msgpack_sbuffer_destroy(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_act_every_game),
        cmocka_unit_test(test_other_messages),
        cmocka_unit_test(test_decoder),
        cmocka_unit_test(test_decoder_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
