/* `arena serve`'s external bots below the HTTP side (arena/serve/serve_ext.h):
 * the routes, the server database's key rules (a key's owner, a new key
 * superseding the old, the kind in the versions' JSON), and the hub's live
 * allow-list (ref_hub_allow_set) refusing what is not a key and working
 * only on a hub started with allow_live. tests/serve/test_serve_external.py
 * plays it all end to end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "hub.h"
#include "serve/serve_db.h"
#include "serve/serve_util.h"

#include "jackarena/ja_error.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

static void test_routes(void **state)
{
    (void)state;
    arena_route r;
    arena_serve_route("POST", "/api/external", &r);
    assert_int_equal(r.kind, ARENA_ROUTE_EXTERNAL);
    arena_serve_route("GET", "/api/external", &r);
    assert_int_equal(r.kind, ARENA_ROUTE_BAD_METHOD);
    arena_serve_route("GET", "/api/server", &r);
    assert_int_equal(r.kind, ARENA_ROUTE_SERVER);
    arena_serve_route("POST", "/api/server", &r);
    assert_int_equal(r.kind, ARENA_ROUTE_BAD_METHOD);
    arena_serve_route("POST", "/api/external/x", &r);
    assert_int_equal(r.kind, ARENA_ROUTE_NONE);
}

static json_t *find_version(json_t *all, int64_t id)
{
    size_t i;
    json_t *v;
    json_array_foreach(all, i, v)
        if (json_integer_value(json_object_get(v, "id")) == id)
            return v;
    return NULL;
}

static void test_db_keys(void **state)
{
    (void)state;
    char dir[] = "/tmp/ja-serve-ext-XXXXXX", path[128], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/serve.db", dir);
    arena_serve_db *db = NULL;
    assert_int_equal(arena_serve_db_open(path, &db, err, sizeof err), JA_OK);
    char tok[ARENA_SERVE_TOKEN_HEX], h[ARENA_SERVE_HASH_HEX];
    arena_serve_token_new(tok);
    arena_serve_token_hash(tok, h);
    assert_int_equal(arena_serve_db_author_add(db, "eve", h), JA_OK);
    arena_serve_token_new(tok);
    arena_serve_token_hash(tok, h);
    assert_int_equal(arena_serve_db_author_add(db, "bob", h), JA_OK);
    int64_t eve, bob, v1, v2, vp, vb, n, owner = 0;
    assert_int_equal(arena_serve_db_author_find(db, "eve", &eve), JA_OK);
    assert_int_equal(arena_serve_db_author_find(db, "bob", &bob), JA_OK);
    assert_int_equal(arena_serve_db_file_owner(db, "zmq:K1", &owner), JA_ENOTFOUND);
    assert_int_equal(arena_serve_db_version_add(db, eve, "a1", "zmq:K1", NULL, &v1, &n), JA_OK);
    assert_int_equal(arena_serve_db_version_add(db, eve, "a2", "bots/p.so", NULL, &vp, &n), JA_OK);
    assert_int_equal(arena_serve_db_version_add(db, bob, "b1", "zmq:K9", NULL, &vb, &n), JA_OK);
    assert_int_equal(arena_serve_db_file_owner(db, "zmq:K1", &owner), JA_OK);
    assert_int_equal(owner, eve);
    bool changed;
    assert_int_equal(arena_serve_db_version_set(db, v1, ARENA_V_ACTIVE, "", NULL, NULL, &changed),
                     JA_OK);
    /* A new key retires the author's other external versions only. */
    assert_int_equal(arena_serve_db_version_add(db, eve, "a3", "zmq:K2", NULL, &v2, &n), JA_OK);
    assert_int_equal(n, 3);
    assert_int_equal(arena_serve_db_supersede(db, eve, v2, "zmq:", &n), JA_OK);
    assert_int_equal(n, 1);
    arena_serve_version v;
    assert_int_equal(arena_serve_db_version_get(db, v1, &v), JA_OK);
    assert_string_equal(v.status, ARENA_V_RETIRED);
    assert_int_equal(arena_serve_db_version_get(db, v2, &v), JA_OK);
    assert_string_equal(v.status, ARENA_V_VALIDATING);
    assert_int_equal(arena_serve_db_version_get(db, vp, &v), JA_OK);
    assert_string_equal(v.status, ARENA_V_VALIDATING);
    assert_int_equal(arena_serve_db_version_get(db, vb, &v), JA_OK);
    assert_string_equal(v.status, ARENA_V_VALIDATING);
    /* The retired key still has its owner: never another author's. */
    assert_int_equal(arena_serve_db_file_owner(db, "zmq:K1", &owner), JA_OK);
    assert_int_equal(owner, eve);
    json_t *all = arena_serve_db_versions_json(db, 0);
    json_t *j1 = find_version(all, v1), *jp = find_version(all, vp);
    assert_non_null(j1);
    assert_non_null(jp);
    assert_string_equal(json_string_value(json_object_get(j1, "kind")), "external");
    assert_string_equal(json_string_value(json_object_get(j1, "key")), "K1");
    assert_string_equal(json_string_value(json_object_get(j1, "reason")),
                        "superseded by version 3");
    assert_string_equal(json_string_value(json_object_get(jp, "kind")), "plugin");
    assert_null(json_object_get(jp, "key"));
    json_decref(all);
    arena_serve_db_close(&db);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_hub_allow(void **state)
{
    (void)state;
    ref_hub_config hc;
    memset(&hc, 0, sizeof hc);
    hc.curve = true;
    hc.allow_live = true;
    assert_int_equal(zmq_curve_keypair(hc.curve_public, hc.curve_secret), 0);
    char err[256], pub[41], sec[41];
    assert_int_equal(zmq_curve_keypair(pub, sec), 0);
    ref_hub *h = NULL;
    assert_int_equal(ref_hub_start(&hc, &h, err, sizeof err), JA_OK);
    assert_int_equal(ref_hub_allow_set(h, pub, "eve"), JA_OK);
    assert_int_equal(ref_hub_allow_set(h, pub, "eve2"), JA_OK); /* rebound */
    assert_int_equal(ref_hub_allow_set(h, pub, NULL), JA_OK);
    assert_int_equal(ref_hub_allow_set(h, pub, NULL), JA_OK); /* gone already: fine */
    /* Not keys: the wrong length, or 40 characters that are not Z85. */
    char bad[41];
    memset(bad, '~', 40);
    bad[40] = '\0';
    assert_int_equal(ref_hub_allow_set(h, "abc", "eve"), JA_EINVAL);
    assert_int_equal(ref_hub_allow_set(h, bad, "eve"), JA_EINVAL);
    assert_int_equal(ref_hub_allow_set(h, pub, ""), JA_EINVAL);
    /* Many keys: the list grows. */
    for (int i = 0; i < 40; i++) {
        char p[41], s[41], name[16];
        assert_int_equal(zmq_curve_keypair(p, s), 0);
        snprintf(name, sizeof name, "bot%d", i);
        assert_int_equal(ref_hub_allow_set(h, p, name), JA_OK);
    }
    ref_hub_stop(&h);
    /* A hub without allow_live keeps its list as started. */
    hc.allow_live = false;
    assert_int_equal(ref_hub_start(&hc, &h, err, sizeof err), JA_OK);
    assert_int_equal(ref_hub_allow_set(h, pub, "eve"), JA_EINVAL);
    ref_hub_stop(&h);
}

int main(void)
{
    if (sodium_init() < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routes),
        cmocka_unit_test(test_db_keys),
        cmocka_unit_test(test_hub_allow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
