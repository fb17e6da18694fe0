/* The pure pieces of `arena serve` (arena/serve/serve_util.h): author names,
 * tokens and their hashes, the bearer header, routing (including path
 * tricks), match ids, HTML escaping, --http addresses and the pairing rule;
 * and the server database's token lookup and batch rule (serve_db.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "serve/serve_db.h"
#include "core/util.h"
#include "serve/serve_util.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"

#include <sodium.h>
#include <stdio.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_names(void **state)
{
    (void)state;
    const char *good[] = {"a", "alice", "Bob_2", "x-y", "9lives",
                          "abcdefghijklmnopqrstuvwxyz012345"};
    const char *bad[] = {"", "-x", "_x", "a b", "a/b", "..", "a.b", "<b>", "é", "a\n",
                         "abcdefghijklmnopqrstuvwxyz0123456", "a%2e", "a'b", "a\"b"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        assert_true(arena_serve_name_ok(good[i]));
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_false(arena_serve_name_ok(bad[i]));
    assert_false(arena_serve_name_ok(NULL));
}

static void test_tokens(void **state)
{
    (void)state;
    char t1[ARENA_SERVE_TOKEN_HEX], t2[ARENA_SERVE_TOKEN_HEX], h[ARENA_SERVE_HASH_HEX];
    arena_serve_token_new(t1);
    arena_serve_token_new(t2);
    assert_int_equal(strlen(t1), 64);
    assert_string_not_equal(t1, t2);
    assert_true(arena_serve_token_shape(t1));
    arena_serve_token_hash(t1, h);
    assert_int_equal(strlen(h), 64);
    assert_string_not_equal(h, t1); /* the hash, not the token, is stored */
    assert_true(arena_serve_token_check(t1, h));
    assert_false(arena_serve_token_check(t2, h));
    char t3[ARENA_SERVE_TOKEN_HEX];
    memcpy(t3, t1, sizeof t3);
    t3[63] = t3[63] == 'a' ? 'b' : 'a'; /* one digit off */
    assert_false(arena_serve_token_check(t3, h));
    assert_false(arena_serve_token_check(t1, "abc"));
    assert_false(arena_serve_token_check(t1, NULL));
    /* Not a token's shape: refused before any hashing. */
    assert_false(arena_serve_token_shape("ABC"));
    char upper[ARENA_SERVE_TOKEN_HEX];
    memset(upper, 'A', 64);
    upper[64] = '\0';
    assert_false(arena_serve_token_shape(upper));
    assert_false(arena_serve_token_check(upper, h));
    /* The hash is BLAKE2b-256 of the token text. */
    unsigned char raw[32];
    char hex[65];
    crypto_generichash(raw, 32, (const unsigned char *)t1, 64, NULL, 0);
    sodium_bin2hex(hex, sizeof hex, raw, 32);
    assert_string_equal(hex, h);
}

static void test_bearer(void **state)
{
    (void)state;
    char t[ARENA_SERVE_TOKEN_HEX], out[ARENA_SERVE_TOKEN_HEX], hdr[128];
    arena_serve_token_new(t);
    snprintf(hdr, sizeof hdr, "Bearer %s", t);
    assert_true(arena_serve_bearer(hdr, out));
    assert_string_equal(out, t);
    snprintf(hdr, sizeof hdr, "bearer   %s  ", t);
    assert_true(arena_serve_bearer(hdr, out));
    assert_string_equal(out, t);
    snprintf(hdr, sizeof hdr, "Basic %s", t);
    assert_false(arena_serve_bearer(hdr, out));
    snprintf(hdr, sizeof hdr, "Bearer %sa", t);
    assert_false(arena_serve_bearer(hdr, out));
    snprintf(hdr, sizeof hdr, "Bearer %.63s", t);
    assert_false(arena_serve_bearer(hdr, out));
    assert_false(arena_serve_bearer(NULL, out));
    assert_false(arena_serve_bearer("Bearer ", out));
}

static void route(const char *m, const char *p, arena_route_kind want)
{
    arena_route r;
    arena_serve_route(m, p, &r);
    if (r.kind != want)
        fail_msg("%s %s: route %d, want %d", m, p ? p : "(null)", (int)r.kind, (int)want);
}

static void test_routes(void **state)
{
    (void)state;
    route("GET", "/", ARENA_ROUTE_INDEX);
    route("HEAD", "/", ARENA_ROUTE_INDEX);
    route("GET", "/submit", ARENA_ROUTE_SUBMIT_PAGE);
    route("GET", "/bots/alice", ARENA_ROUTE_BOT_PAGE);
    route("GET", "/matches/12-3.html", ARENA_ROUTE_MATCH_PAGE);
    route("GET", "/matches/12-0.replay", ARENA_ROUTE_MATCH_REPLAY);
    route("POST", "/api/register", ARENA_ROUTE_REGISTER);
    route("POST", "/api/bots", ARENA_ROUTE_UPLOAD);
    route("GET", "/api/ladder", ARENA_ROUTE_LADDER);
    route("GET", "/api/bots/alice", ARENA_ROUTE_BOT);
    route("POST", "/api/bots/alice/retire", ARENA_ROUTE_RETIRE);
    route("GET", "/api/bots/alice/versions/2/smoke/0", ARENA_ROUTE_SMOKE_BUNDLE);
    route("GET", "/api/matches/1-0", ARENA_ROUTE_MATCH);
    route("GET", "/api/matches/1-0/logs", ARENA_ROUTE_MATCH_LOGS);
    route("POST", "/api/matches/1-0/logs", ARENA_ROUTE_BAD_METHOD);
    route("GET", "/api/events", ARENA_ROUTE_EVENTS);
    route("GET", "/api/matches", ARENA_ROUTE_MATCHES);
    route("GET", "/matches", ARENA_ROUTE_MATCHES_PAGE);
    route("GET", "/api/bots/alice/matches", ARENA_ROUTE_BOT_MATCHES);
    route("GET", "/bots/alice/matches", ARENA_ROUTE_BOT_MATCHES_PAGE);
    route("GET", "/static/site.css", ARENA_ROUTE_STATIC);
    route("GET", "/static/live_match.js", ARENA_ROUTE_STATIC);
    route("GET", "/matches/replay.js", ARENA_ROUTE_STATIC);
    route("GET", "/matches/replay.css", ARENA_ROUTE_STATIC);
    /* Methods. */
    route("GET", "/api/register", ARENA_ROUTE_BAD_METHOD);
    route("POST", "/api/ladder", ARENA_ROUTE_BAD_METHOD);
    route("DELETE", "/bots/alice", ARENA_ROUTE_BAD_METHOD);
    route("GET", "/api/bots/alice/retire", ARENA_ROUTE_BAD_METHOD);
    route("POST", "/api/bots/alice/versions/1/smoke/3", ARENA_ROUTE_BAD_METHOD);
    /* Path tricks and near misses name nothing. */
    const char *none[] = {"", "/x", "/submit/", "/bots/", "/bots/..", "/bots/../etc/passwd",
                          "/bots/a/b", "/bots/%2e%2e", "/matches/1-2", "/matches/0-1.html",
                          "/matches/01-1.html", "/matches/1-01.html", "/matches/-1-2.html",
                          "/matches/1--2.html", "/matches/1-2.html/x", "/matches/../1-2.html",
                          "/matches/1-2.htm", "/matches/1-99999999999.html", "//etc/passwd",
                          "/api/bots/alice/retire/x", "/api/bots/../x", "/api/matches/1-2/x",
                          "/api/matches/1-x", "/api/matches/1-2/logs/", "/api/matches/01-2/logs",
                          "/api/matches/1-2/log", "/api/matches/logs", "/api/ladder?x=1",
                          "/api/bots/a%00b",
                          "/matches/%2fetc%2fpasswd.html", "/api/bots/alice/versions/0/smoke/1",
                          "/api/bots/alice/versions/1/smoke/",
                          "/api/bots/alice/versions/1/smoke/01",
                          "/api/bots/alice/versions/01/smoke/1",
                          "/api/bots/alice/versions//smoke/1",
                          "/api/bots/alice/versions/1/smoke/1/x", "/api/bots/../versions/1/smoke/1",
                          "/api/bots/alice/versions/1/smoke/../../x", "/api/bots/alice/versions/1",
                          "/api/bots/alice/versions/-1/smoke/1", "/api/bots/a/b/versions/1/smoke/1",
                          "/api/bots/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "/static/",
                          "/static/../ladder.db", "/static/x.js", "/static/site.css/",
                          "/matches/replay.js/x", "/static/SITE.CSS", "/api/matches/",
                          "/matches/", "/bots/alice/matches/x", "/api/bots/alice/matchesx",
                          "/bots/../matches", "/api/bots//matches"};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++)
        route("GET", none[i], ARENA_ROUTE_NONE);
    route("GET", NULL, ARENA_ROUTE_NONE);
    arena_route r;
    arena_serve_route("GET", "/matches/42-7.replay", &r);
    assert_int_equal(r.tournament, 42);
    assert_int_equal(r.number, 7);
    arena_serve_route("POST", "/api/bots/Bob_2/retire", &r);
    assert_string_equal(r.name, "Bob_2");
    arena_serve_route("GET", "/api/bots/Bob_2/versions/12/smoke/3", &r);
    assert_string_equal(r.name, "Bob_2");
    assert_int_equal(r.version, 12);
    assert_int_equal(r.number, 3);
    arena_serve_route("GET", "/bots/Bob_2/matches", &r);
    assert_string_equal(r.name, "Bob_2");
    route("POST", "/api/matches", ARENA_ROUTE_BAD_METHOD);
    route("POST", "/static/ladder.js", ARENA_ROUTE_BAD_METHOD);
    for (unsigned a = 0; a < arena_serve_n_assets; a++) {
        arena_serve_route("GET", arena_serve_assets[a].path, &r);
        assert_int_equal(r.kind, ARENA_ROUTE_STATIC);
        assert_int_equal(r.number, a);
    }
}

/* A stream's pending text goes out in pieces of any size, whole and once. */
static void test_sse(void **state)
{
    (void)state;
    arena_sse_out o = {0};
    char got[64] = "";
    size_t len = 0;
    arena_sse_set(&o, 7, "{\"a\":1}");
    while (o.pending)
        len += arena_sse_copy(&o, got + len, 5);
    got[len] = '\0';
    assert_string_equal(got, "id: 7\ndata: {\"a\":1}\n\n");
    arena_sse_set(&o, 0, NULL);
    len = arena_sse_copy(&o, got, sizeof got);
    got[len] = '\0';
    assert_string_equal(got, ": keep-alive\n\n");
    assert_null(o.pending);
}

static void test_match_id(void **state)
{
    (void)state;
    int64_t t;
    uint32_t n;
    assert_true(arena_serve_match_id("3-0", &t, &n));
    assert_int_equal(t, 3);
    assert_int_equal(n, 0);
    assert_true(arena_serve_match_id("9223372036854775807-4294967295", &t, &n));
    assert_int_equal(n, 4294967295u);
    assert_false(arena_serve_match_id("0-1", &t, &n));
    assert_false(arena_serve_match_id("1-4294967296", &t, &n));
    assert_false(arena_serve_match_id("1", &t, &n));
    assert_false(arena_serve_match_id("-1", &t, &n));
    assert_false(arena_serve_match_id("1-", &t, &n));
    assert_false(arena_serve_match_id("+1-2", &t, &n));
    assert_false(arena_serve_match_id(NULL, &t, &n));
}

static void test_html(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    arena_html(f, "<script>alert('x' & \"y\")</script>\x01\tok\n");
    arena_html(f, NULL);
    fclose(f);
    assert_string_equal(buf, "&lt;script&gt;alert(&#39;x&#39; &amp; &quot;y&quot;)&lt;/script&gt;"
                             "\tok\n");
    free(buf);
}

static void test_http_addr(void **state)
{
    (void)state;
    char host[64], err[256];
    uint16_t port;
    bool v6, lo;
    assert_true(arena_serve_http_addr("127.0.0.1:8080", host, sizeof host, &port, &v6, &lo, err,
                                      sizeof err));
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 8080);
    assert_false(v6);
    assert_true(lo);
    assert_true(arena_serve_http_addr("localhost:1", host, sizeof host, &port, &v6, &lo, err,
                                      sizeof err));
    assert_string_equal(host, "127.0.0.1");
    assert_true(arena_serve_http_addr("127.3.4.5:65535", host, sizeof host, &port, &v6, &lo, err,
                                      sizeof err));
    assert_true(lo);
    assert_true(arena_serve_http_addr("[::1]:80", host, sizeof host, &port, &v6, &lo, err,
                                      sizeof err));
    assert_true(v6);
    assert_true(lo);
    assert_string_equal(host, "::1");
    assert_true(arena_serve_http_addr("0.0.0.0:80", host, sizeof host, &port, &v6, &lo, err,
                                      sizeof err));
    assert_false(lo);
    assert_true(arena_serve_http_addr("[::]:80", host, sizeof host, &port, &v6, &lo, err,
                                      sizeof err));
    assert_false(lo);
    const char *bad[] = {"8080", ":8080", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
                         "127.0.0.1:08080", "127.0.0.1:x", "host.example:80", "::1:80",
                         "[::1:80", "[]:80", "1.2.3:80", "127.0.0.1:-1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        if (arena_serve_http_addr(bad[i], host, sizeof host, &port, &v6, &lo, err, sizeof err))
            fail_msg("--http %s accepted", bad[i]);
        assert_non_null(strstr(err, "--http"));
        assert_null(strchr(err, '\n'));
    }
}

static void test_pairing(void **state)
{
    (void)state;
    uint32_t pick[4];
    /* Fewest games first (ties: lowest id), then the closest Elo. */
    arena_pair_cand c[] = {
        {10, 1, 8, 1500}, {11, 2, 2, 1600}, {12, 3, 9, 1590}, {13, 4, 2, 1400}, {14, 5, 30, 1610},
    };
    assert_true(arena_serve_pair(c, 5, 2, pick));
    assert_int_equal(pick[0], 1); /* id 11: 2 games, lower id than 13 */
    assert_int_equal(pick[1], 2); /* 1590 is the closest to 1600 (1610 too, but more games) */
    assert_true(arena_serve_pair(c, 5, 3, pick));
    assert_int_equal(pick[2], 4); /* then 1610 */
    /* Equal distance: fewer games, then the lower id. */
    arena_pair_cand d[] = {{5, 1, 0, 1500}, {6, 2, 3, 1550}, {7, 3, 3, 1450}, {8, 4, 1, 1450}};
    assert_true(arena_serve_pair(d, 4, 2, pick));
    assert_int_equal(pick[0], 0);
    assert_int_equal(pick[1], 3);
    arena_pair_cand e[] = {{5, 1, 0, 1500}, {7, 2, 3, 1450}, {6, 3, 3, 1550}};
    assert_true(arena_serve_pair(e, 3, 2, pick));
    assert_int_equal(pick[1], 2); /* id 6 before id 7 */
    /* Deterministic, and never one candidate twice. */
    assert_true(arena_serve_pair(c, 5, 4, pick));
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            assert_int_not_equal(pick[i], pick[j]);
    assert_false(arena_serve_pair(c, 1, 2, pick));
    assert_false(arena_serve_pair(c, 5, 0, pick));
    /* Two versions of one author never meet (the second server version of
     * an author once killed the server: "participant name given twice"):
     * author 7's two versions are the closest in Elo, but only one sits. */
    arena_pair_cand f[] = {{20, 7, 0, 1500}, {21, 7, 5, 1500}, {22, 8, 5, 1700}, {23, 9, 9, 1300}};
    assert_true(arena_serve_pair(f, 4, 2, pick));
    assert_int_equal(pick[0], 0);
    assert_int_equal(pick[1], 2); /* 1700 and 1300 tie at 200: fewer games */
    assert_true(arena_serve_pair(f, 4, 3, pick));
    assert_int_equal(pick[2], 3);
    /* Four candidates of three authors fill no 4 seats. */
    assert_false(arena_serve_pair(f, 4, 4, pick));
    arena_pair_cand g[] = {{30, 1, 0, 1500}, {31, 1, 0, 1500}};
    assert_false(arena_serve_pair(g, 2, 2, pick));
}

/* The validation queue takes the authors in turn: one author's burst
 * waits behind everyone else's next upload. */
static void test_fair_queue(void **state)
{
    (void)state;
    /* Versions in id order: author 1 uploaded four, then 2, then 3. */
    int64_t author[] = {1, 1, 1, 1, 2, 3};
    bool yes[] = {true, true, true, true, true, true};
    assert_int_equal(arena_serve_fair_next(author, yes, 6, 0), 0); /* author 1, oldest */
    assert_int_equal(arena_serve_fair_next(author, yes, 6, 1), 4); /* then author 2 */
    assert_int_equal(arena_serve_fair_next(author, yes, 6, 2), 5); /* then author 3 */
    assert_int_equal(arena_serve_fair_next(author, yes, 6, 3), 0); /* around again */
    /* A version that cannot be validated yet (an external bot away) is
     * passed over: the next eligible one goes, its author's included. */
    int64_t a2[] = {4, 5, 5};
    bool e2[] = {false, false, true};
    assert_int_equal(arena_serve_fair_next(a2, e2, 3, 0), 2);
    bool none[] = {false, false, false};
    assert_int_equal(arena_serve_fair_next(a2, none, 3, 0), -1);
    assert_int_equal(arena_serve_fair_next(a2, yes, 0, 0), -1);
}

/* The server database: a token finds its author only whole; names are
 * unique; a batch is only ever added for active versions; a batch's
 * faults are added once. */
static void test_db(void **state)
{
    (void)state;
    char dir[] = "/tmp/ja-serve-db-XXXXXX", path[128], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/serve.db", dir);
    arena_serve_db *db = NULL;
    assert_int_equal(arena_serve_db_open(path, &db, err, sizeof err), JA_OK);
    uint64_t seed = 0;
    assert_int_equal(arena_serve_db_seed(db, true, 7, &seed, err, sizeof err), JA_OK);
    assert_int_equal(seed, 7);
    assert_int_equal(arena_serve_db_seed(db, false, 0, &seed, err, sizeof err), JA_OK);
    assert_int_equal(seed, 7);
    assert_int_equal(arena_serve_db_seed(db, true, 8, &seed, err, sizeof err), JA_EINVAL);

    char tok[2][ARENA_SERVE_TOKEN_HEX], h[ARENA_SERVE_HASH_HEX];
    const char *names[2] = {"alice", "bob"};
    for (int i = 0; i < 2; i++) {
        arena_serve_token_new(tok[i]);
        arena_serve_token_hash(tok[i], h);
        assert_int_equal(arena_serve_db_author_add(db, names[i], h), JA_OK);
    }
    assert_int_equal(arena_serve_db_author_add(db, "alice", h), JA_EBUSY);
    int64_t id;
    char name[ARENA_SERVE_NAME_MAX + 1];
    assert_int_equal(arena_serve_db_author_auth(db, tok[1], &id, name), JA_OK);
    assert_string_equal(name, "bob");
    tok[1][10] = tok[1][10] == '0' ? '1' : '0';
    assert_int_equal(arena_serve_db_author_auth(db, tok[1], &id, name), JA_ENOTFOUND);
    assert_int_equal(arena_serve_db_author_auth(db, "x", &id, name), JA_ENOTFOUND);
    arena_serve_token_hash(tok[0], h);
    /* The stored hash is no token. */
    assert_int_equal(arena_serve_db_author_auth(db, h, &id, name), JA_ENOTFOUND);

    int64_t a, b, va, vb, n;
    assert_int_equal(arena_serve_db_author_find(db, "alice", &a), JA_OK);
    assert_int_equal(arena_serve_db_author_find(db, "bob", &b), JA_OK);
    assert_int_equal(arena_serve_db_author_find(db, "carol", &id), JA_ENOTFOUND);
    char sha[65];
    memset(sha, 'a', 64);
    sha[64] = '\0';
    assert_int_equal(arena_serve_db_version_add(db, a, sha, "bots/a.so", NULL, &va, &n), JA_OK);
    assert_int_equal(n, 1);
    assert_int_equal(arena_serve_db_version_add(db, a, sha, "bots/a.so", NULL, &id, &n), JA_EBUSY);
    assert_int_equal(id, va);
    sha[0] = 'b';
    assert_int_equal(arena_serve_db_version_add(db, a, sha, "bots/b.so", NULL, &id, &n), JA_OK);
    assert_int_equal(n, 2);
    assert_int_equal(arena_serve_db_version_add(db, b, sha, "bots/b.so", NULL, &vb, &n), JA_OK);
    assert_int_equal(n, 1);
    /* The same file with parameters is another version; again, 409. */
    int64_t vp;
    assert_int_equal(arena_serve_db_version_add(db, b, sha, "bots/b.so", "depth=2", &vp, &n),
                     JA_OK);
    assert_int_equal(n, 2);
    assert_int_equal(arena_serve_db_version_add(db, b, sha, "bots/b.so", "depth=2", &id, &n),
                     JA_EBUSY);
    assert_int_equal(id, vp);
    arena_serve_version pv;
    assert_int_equal(arena_serve_db_version_get(db, vp, &pv), JA_OK);
    assert_string_equal(pv.params, "depth=2");
    int64_t recent, validating, mine;
    assert_int_equal(arena_serve_db_counts(db, a, 0, &recent, &validating, &mine), JA_OK);
    assert_int_equal(recent, 2);
    assert_int_equal(validating, 4);
    assert_int_equal(mine, 2);

    arena_serve_batch bt = {.n = 2, .version = {va, vb}};
    assert_int_equal(arena_serve_db_batch_add(db, 7, &bt), JA_ENOTFOUND); /* not active */
    bool changed;
    assert_int_equal(arena_serve_db_version_set(db, va, ARENA_V_ACTIVE, "", "{}",
                                                ARENA_V_VALIDATING, &changed), JA_OK);
    assert_true(changed);
    assert_int_equal(arena_serve_db_version_set(db, vb, ARENA_V_ACTIVE, "", NULL, NULL, &changed),
                     JA_OK);
    assert_int_equal(arena_serve_db_version_set(db, va, ARENA_V_REJECTED, "x", NULL,
                                                ARENA_V_VALIDATING, &changed), JA_OK);
    assert_false(changed); /* only from validating */
    assert_int_equal(arena_serve_db_batch_add(db, 7, &bt), JA_OK);
    arena_serve_batch un;
    assert_int_equal(arena_serve_db_batch_unfinished(db, &un), JA_OK);
    assert_int_equal(un.id, bt.id);
    assert_int_equal(un.seed, bt.seed);
    assert_int_equal(un.n, 2);
    assert_int_equal(un.version[1], vb);
    assert_int_equal(arena_serve_db_batch_set_tournament(db, bt.id, 5), JA_OK);
    bool ended = true;
    assert_int_equal(arena_serve_db_batch_of(db, 5, &ended), JA_OK);
    assert_false(ended);
    assert_int_equal(arena_serve_db_batch_of(db, 6, &ended), JA_ENOTFOUND);
    bt.tournament = 5;
    int64_t faults[2] = {3, 0};
    assert_int_equal(arena_serve_db_batch_done(db, &bt, faults), JA_OK);
    assert_int_equal(arena_serve_db_batch_done(db, &bt, faults), JA_OK); /* once */
    assert_int_equal(arena_serve_db_batch_of(db, 5, &ended), JA_OK);
    assert_true(ended);
    arena_serve_version v;
    assert_int_equal(arena_serve_db_version_get(db, va, &v), JA_OK);
    assert_int_equal(v.faults, 3);
    assert_string_equal(v.author, "alice");
    assert_int_equal(arena_serve_db_batch_unfinished(db, &un), JA_ENOTFOUND);
    /* Retired: no new batch with it. */
    assert_int_equal(arena_serve_db_retire(db, b, &n), JA_OK);
    assert_int_equal(n, 2); /* vb active and vp validating */
    assert_int_equal(arena_serve_db_batch_add(db, 7, &bt), JA_ENOTFOUND);
    json_t *all = arena_serve_db_versions_json(db, 0);
    assert_int_equal(json_array_size(all), 4);
    assert_string_equal(json_string_value(json_object_get(json_array_get(all, 3), "params")),
                        "depth=2");
    json_decref(all);
    arena_serve_db_close(&db);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* A temporary folder and a server database in it. */
static arena_serve_db *temp_db(char *dir, char *path, size_t cap)
{
    assert_non_null(mkdtemp(dir));
    snprintf(path, cap, "%s/serve.db", dir);
    char err[256];
    arena_serve_db *db = NULL;
    assert_int_equal(arena_serve_db_open(path, &db, err, sizeof err), JA_OK);
    return db;
}

static void rm_dir(const char *dir)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* An author with a token-less hash (the tests never authenticate). */
static int64_t add_author(arena_serve_db *db, const char *name)
{
    char h[ARENA_SERVE_HASH_HEX];
    int64_t id;
    arena_serve_token_hash(name, h);
    assert_int_equal(arena_serve_db_author_add(db, name, h), JA_OK);
    assert_int_equal(arena_serve_db_author_find(db, name, &id), JA_OK);
    return id;
}

static int64_t add_version(arena_serve_db *db, int64_t author, char tag)
{
    char sha[65], file[80];
    memset(sha, tag, 64);
    sha[64] = '\0';
    snprintf(file, sizeof file, "bots/%c.so", tag);
    int64_t id, n;
    assert_int_equal(arena_serve_db_version_add(db, author, sha, file, NULL, &id, &n), JA_OK);
    return id;
}

static const char *status_of(arena_serve_db *db, int64_t id, arena_serve_version *v)
{
    assert_int_equal(arena_serve_db_version_get(db, id, v), JA_OK);
    return v->status;
}

/* Versions (docs/server.md): a version that passes its validation
 * replaces its author's older active and waiting ones, never a newer one;
 * one author's versions never share a batch; a failed batch keeps its
 * reason and counts its faults once. */
static void test_db_versions(void **state)
{
    (void)state;
    char dir[] = "/tmp/ja-serve-ver-XXXXXX", path[128];
    arena_serve_db *db = temp_db(dir, path, sizeof path);
    int64_t al = add_author(db, "alice"), bo = add_author(db, "bob");
    int64_t a1 = add_version(db, al, 'a'), b1 = add_version(db, bo, 'b');
    char st[16];
    int64_t ret[8];
    uint32_t nr;
    arena_serve_version v;
    assert_int_equal(arena_serve_db_version_activate(db, a1, "{}", st, ret, 8, &nr), JA_OK);
    assert_string_equal(st, ARENA_V_ACTIVE);
    assert_int_equal(nr, 0);
    assert_int_equal(arena_serve_db_version_activate(db, b1, "{}", st, ret, 8, &nr), JA_OK);
    /* Only a validating version is activated. */
    assert_int_equal(arena_serve_db_version_activate(db, b1, "{}", st, ret, 8, &nr), JA_OK);
    assert_string_equal(st, "");
    arena_serve_batch bt = {.n = 2, .version = {a1, b1}};
    assert_int_equal(arena_serve_db_batch_add(db, 7, &bt), JA_OK);
    /* alice uploads versions 2 and 3; 2 passes: it replaces 1, and 3
     * waits on. Then 3 passes and replaces 2. */
    int64_t a2 = add_version(db, al, 'c'), a3 = add_version(db, al, 'd');
    assert_int_equal(arena_serve_db_version_activate(db, a2, "{}", st, ret, 8, &nr), JA_OK);
    assert_string_equal(st, ARENA_V_ACTIVE);
    assert_int_equal(nr, 1);
    assert_int_equal(ret[0], 1);
    assert_string_equal(status_of(db, a1, &v), ARENA_V_RETIRED);
    json_t *vs = arena_serve_db_versions_json(db, al);
    assert_string_equal(json_string_value(json_object_get(json_array_get(vs, 0), "reason")),
                        "replaced by version 2");
    json_decref(vs);
    assert_string_equal(status_of(db, a3, &v), ARENA_V_VALIDATING);
    /* Two of alice's versions never start a batch together. */
    arena_serve_batch twin = {.n = 2, .version = {a2, a2}};
    assert_int_equal(arena_serve_db_batch_add(db, 7, &twin), JA_ENOTFOUND);
    assert_int_equal(arena_serve_db_version_activate(db, a3, "{}", st, ret, 8, &nr), JA_OK);
    assert_int_equal(nr, 1);
    assert_int_equal(ret[0], 2);
    assert_string_equal(status_of(db, a2, &v), ARENA_V_RETIRED);
    /* An older version that passes after a newer one is retired itself;
     * and a newer one's activation retires an older one still waiting. */
    int64_t b2 = add_version(db, bo, 'e'), b3 = add_version(db, bo, 'f');
    assert_int_equal(arena_serve_db_version_activate(db, b3, "{}", st, ret, 8, &nr), JA_OK);
    assert_int_equal(nr, 2); /* b1 active and b2 waiting */
    assert_string_equal(status_of(db, b2, &v), ARENA_V_RETIRED);
    int64_t b4 = add_version(db, bo, 'g');
    assert_int_equal(arena_serve_db_version_set(db, b3, ARENA_V_SUSPENDED, "x", NULL, NULL,
                                                NULL), JA_OK);
    assert_int_equal(arena_serve_db_version_activate(db, b4, "{}", st, ret, 8, &nr), JA_OK);
    assert_string_equal(status_of(db, b3, &v), ARENA_V_SUSPENDED); /* kept as it was */
    assert_string_equal(status_of(db, b4, &v), ARENA_V_ACTIVE);
    /* Should an older version pass after a newer one (both waiting once),
     * the newer one stays. */
    int64_t b5 = add_version(db, bo, 'h'), b6 = add_version(db, bo, 'i');
    assert_int_equal(arena_serve_db_version_activate(db, b6, "{}", st, ret, 8, &nr), JA_OK);
    assert_int_equal(arena_serve_db_version_set(db, b5, ARENA_V_VALIDATING, "", NULL, NULL,
                                                NULL), JA_OK);
    assert_int_equal(arena_serve_db_version_activate(db, b5, "{}", st, ret, 8, &nr), JA_OK);
    assert_string_equal(st, ARENA_V_RETIRED);
    assert_int_equal(nr, 0);
    assert_string_equal(status_of(db, b6, &v), ARENA_V_ACTIVE);
    /* The batch of a1 and b1 (both retired since) fails: its reason kept,
     * its faults counted once, the bot's batches listed newest first. */
    int64_t faults[2] = {2, 1};
    assert_int_equal(arena_serve_db_batch_fail(db, &bt, "the ladder database is locked", faults),
                     JA_OK);
    assert_int_equal(arena_serve_db_batch_fail(db, &bt, "again", faults), JA_OK);
    assert_int_equal(arena_serve_db_batch_done(db, &bt, faults), JA_OK);
    assert_int_equal(status_of(db, a1, &v)[0], 'r');
    assert_int_equal(v.faults, 2);
    arena_serve_batch un;
    assert_int_equal(arena_serve_db_batch_unfinished(db, &un), JA_ENOTFOUND);
    /* A stored batch whose versions cannot be read fails at once, and the
     * next unfinished one is handed on. */
    sqlite3 *raw = NULL;
    assert_int_equal(sqlite3_open(path, &raw), SQLITE_OK);
    assert_int_equal(sqlite3_exec(raw, "INSERT INTO batches (seed, state, versions, created) "
                                       "VALUES ('1', 'planned', 'x,', 0), ('2', 'planned', '3', "
                                       "0), ('3', 'running', '1,2', 0)", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(raw);
    assert_int_equal(arena_serve_db_batch_unfinished(db, &un), JA_OK);
    assert_int_equal(un.n, 2);
    assert_int_equal(un.seed, 3);
    assert_int_equal(arena_serve_db_batch_fail(db, &un, "test", NULL), JA_OK);
    assert_int_equal(arena_serve_db_batch_unfinished(db, &un), JA_ENOTFOUND);
    json_t *bs = arena_serve_db_batches_json(db, al, 10);
    assert_int_equal(json_array_size(bs), 1);
    json_t *b = json_array_get(bs, 0);
    assert_string_equal(json_string_value(json_object_get(b, "state")), "failed");
    assert_string_equal(json_string_value(json_object_get(b, "reason")),
                        "the ladder database is locked");
    assert_true(json_is_integer(json_object_get(b, "ended")));
    json_decref(bs);
    arena_serve_db_close(&db);
    rm_dir(dir);
}

/* A server database of schema 1 (the server before versions replaced each
 * other) opens as schema 2: an author's older active versions retired,
 * its unfinished batch (duplicate deals) failed, ids and rows kept; a
 * newer schema is refused with one line. */
static void test_db_migration(void **state)
{
    (void)state;
    char dir[] = "/tmp/ja-serve-mig-XXXXXX", path[128], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/serve.db", dir);
    sqlite3 *sql = NULL;
    assert_int_equal(sqlite3_open(path, &sql), SQLITE_OK);
    static const char V1[] =
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, token_id TEXT "
        "NOT NULL, token_hash TEXT NOT NULL, created INTEGER NOT NULL);"
        "CREATE INDEX authors_token ON authors(token_id);"
        "CREATE TABLE versions (id INTEGER PRIMARY KEY, author INTEGER NOT NULL REFERENCES "
        "authors(id), number INTEGER NOT NULL, sha256 TEXT NOT NULL, file TEXT NOT NULL, status "
        "TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', report TEXT, faults INTEGER NOT NULL "
        "DEFAULT 0, created INTEGER NOT NULL, updated INTEGER NOT NULL, UNIQUE (author, "
        "number), UNIQUE (author, sha256));"
        "CREATE TABLE batches (id INTEGER PRIMARY KEY, seed TEXT NOT NULL, tournament INTEGER, "
        "state TEXT NOT NULL, versions TEXT NOT NULL, created INTEGER NOT NULL);"
        "CREATE INDEX batches_state ON batches(state);"
        "CREATE INDEX batches_tournament ON batches(tournament);"
        "INSERT INTO meta VALUES ('schema', '1'), ('seed', '7');"
        "INSERT INTO authors VALUES (1, 'alice', 'x', 'x', 0), (2, 'bob', 'y', 'y', 0);"
        "INSERT INTO versions VALUES (1, 1, 1, 'a', 'bots/a.so', 'active', '', NULL, 0, 0, 0),"
        " (2, 2, 1, 'b', 'bots/b.so', 'active', '', NULL, 0, 0, 0),"
        " (3, 1, 2, 'c', 'bots/c.so', 'active', '', NULL, 4, 0, 0);"
        "INSERT INTO batches VALUES (1, '5', 1, 'done', '1,2', 0),"
        " (2, '6', 2, 'running', '1,3', 0);";
    assert_int_equal(sqlite3_exec(sql, V1, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(sql);
    arena_serve_db *db = NULL;
    assert_int_equal(arena_serve_db_open(path, &db, err, sizeof err), JA_OK);
    arena_serve_version v;
    assert_string_equal(status_of(db, 1, &v), ARENA_V_RETIRED);
    assert_string_equal(status_of(db, 3, &v), ARENA_V_ACTIVE);
    assert_int_equal(v.faults, 4);
    assert_string_equal(v.params, "");
    assert_string_equal(status_of(db, 2, &v), ARENA_V_ACTIVE);
    arena_serve_batch un;
    assert_int_equal(arena_serve_db_batch_unfinished(db, &un), JA_ENOTFOUND);
    json_t *bs = arena_serve_db_batches_json(db, 1, 10);
    assert_int_equal(json_array_size(bs), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(bs, 0), "state")),
                        "failed");
    assert_int_equal(json_array_size(json_object_get(json_array_get(bs, 0), "versions")), 2);
    json_decref(bs);
    uint64_t seed;
    assert_int_equal(arena_serve_db_seed(db, false, 0, &seed, err, sizeof err), JA_OK);
    assert_int_equal(seed, 7);
    arena_serve_db_close(&db);
    /* Opened again: nothing more to do. */
    assert_int_equal(arena_serve_db_open(path, &db, err, sizeof err), JA_OK);
    arena_serve_db_close(&db);
    /* A schema from a newer arena: one line, nothing written. */
    assert_int_equal(sqlite3_open(path, &sql), SQLITE_OK);
    assert_int_equal(sqlite3_exec(sql, "UPDATE meta SET value = '3' WHERE key = 'schema'", NULL,
                                  NULL, NULL), SQLITE_OK);
    sqlite3_close(sql);
    assert_int_equal(arena_serve_db_open(path, &db, err, sizeof err), JA_EVERSION);
    assert_null(db);
    assert_non_null(strstr(err, "schema 3, newer"));
    assert_null(strchr(err, '\n'));
    rm_dir(dir);
}

/* The server's seeds are one-way (BLAKE2b), not ja_seed_derive (which can
 * be run backwards from a published match seed to the server seed): known
 * answers, from Python's hashlib.blake2b(digest_size=16) of the
 * little-endian fields. */
static void test_seeds(void **state)
{
    (void)state;
    uint32_t srvb = (uint32_t)JA_TAG('S', 'R', 'V', 'B');
    assert_true(arena_serve_seed(7, srvb, 1) == UINT64_C(0x78e7790b5b3e411a));
    assert_true(arena_serve_seed(0, 0, 0) == UINT64_C(0x298054b40f008395));
    assert_true(arena_serve_seed(UINT64_MAX, UINT32_MAX, UINT64_MAX) ==
                UINT64_C(0xfc7ab214a4ecfa3b));
    assert_true(arena_serve_seed(7, srvb, 1) != ja_seed_derive(7, srvb, 1));
    assert_true(arena_serve_seed(7, srvb, 1) != arena_serve_seed(7, srvb, 2));
    assert_true(arena_serve_seed(7, srvb, 1) != arena_serve_seed(8, srvb, 1));
}

/* Parameters on submission: their shape only (the bot checks their
 * meaning). */
static void test_params_shape(void **state)
{
    (void)state;
    char err[200];
    const char *good[] = {"", "depth=2", "iters=2000:c=0.7", "a=b=c", "k=v:x=/y"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        if (!arena_serve_params_ok(good[i], err, sizeof err))
            fail_msg("'%s' refused: %s", good[i], err);
    const char *bad[] = {"depth", "depth=", ":a=1", "a=1:", "a=1::b=2", "=1", "a=1 b=2",
                         "a=\x01", "a=\xc3\xa9", "a=<script>\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        if (arena_serve_params_ok(bad[i], err, sizeof err))
            fail_msg("'%s' accepted", bad[i]);
        assert_true(err[0] != '\0');
        assert_null(strchr(err, '\n'));
    }
    char longp[300];
    memset(longp, 'x', sizeof longp - 1);
    longp[0] = 'k';
    longp[1] = '=';
    longp[sizeof longp - 1] = '\0';
    assert_false(arena_serve_params_ok(longp, err, sizeof err));
    longp[ARENA_SERVE_PARAMS_MAX] = '\0';
    assert_true(arena_serve_params_ok(longp, err, sizeof err));
}

int main(void)
{
    if (sodium_init() < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),    cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_bearer),   cmocka_unit_test(test_routes),
        cmocka_unit_test(test_sse), cmocka_unit_test(test_match_id), cmocka_unit_test(test_html),
        cmocka_unit_test(test_http_addr), cmocka_unit_test(test_pairing),
        cmocka_unit_test(test_fair_queue),
        cmocka_unit_test(test_db_versions),
        cmocka_unit_test(test_db_migration),
        cmocka_unit_test(test_params_shape),
        cmocka_unit_test(test_seeds),
        cmocka_unit_test(test_db),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
