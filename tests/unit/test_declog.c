/* A decision's log (sdk/runtime/ja_declog.h): cleaned as it is added
 * (valid UTF-8 only, no control character but the newline, no bidi
 * override), cut at JA_DECLOG_MAX bytes with its marker and never inside a
 * character, cut again within a smaller bound (the match's), moved by
 * take; and the bot runtime's log() reaching it, whatever the level. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ja_botrt.h"
#include "ja_declog.h"

#include "jackarena/ja_error.h"

#include <string.h>

static const char *added(ja_declog *l, const char *p, size_t n)
{
    ja_declog_clear(l);
    ja_declog_add(l, p, n);
    assert_int_equal(strlen(l->text), l->len);
    return l->text;
}

static void test_clean(void **state)
{
    (void)state;
    ja_declog l;
    assert_string_equal(added(&l, "plain text\nline 2", 17), "plain text\nline 2");
    /* tab a space, CR dropped, other controls and DEL '?', NUL too. */
    assert_string_equal(added(&l, "a\tb\r\nc\033[31md\x7f" "e\0f", 16), "a b\nc?[31md?e?f");
    /* Valid UTF-8 kept: a suit, an accent, an emoji. */
    assert_string_equal(added(&l, "7\xe2\x99\xa5 caf\xc3\xa9 \xf0\x9f\x83\x8f", 15),
                        "7\xe2\x99\xa5 caf\xc3\xa9 \xf0\x9f\x83\x8f");
    /* Invalid bytes, each a '?': a lone continuation, an overlong '/', a
     * surrogate, 0xff, a sequence cut by the end. */
    assert_string_equal(added(&l, "a\x80" "b\xc0\xaf" "c\xed\xa0\x80" "d\xff" "e\xe2\x99", 14),
                        "a?b??c???d?e??");
    /* C1 controls (U+009B, a terminal's CSI), a right-to-left override, a
     * line separator: '?'. */
    assert_string_equal(added(&l, "x\xc2\x9b" "1m\xe2\x80\xae" "y\xe2\x80\xa8", 12), "x?1m?y?");
    char buf[8] = "a\x01\xc3\xa9\r";
    assert_int_equal(ja_declog_clean(buf, 5), 4);
    assert_memory_equal(buf, "a?\xc3\xa9", 4);
}

static void test_cut(void **state)
{
    (void)state;
    static ja_declog l;
    char big[JA_DECLOG_MAX + 100];
    memset(big, 'x', sizeof big);
    ja_declog_clear(&l);
    ja_declog_add(&l, big, JA_DECLOG_MAX); /* exactly full: not cut */
    assert_int_equal(l.len, JA_DECLOG_MAX);
    assert_false(l.cut);
    ja_declog_add(&l, "y", 1); /* one more: cut, the marker at the end */
    assert_true(l.cut);
    assert_int_equal(l.len, JA_DECLOG_MAX);
    size_t m = strlen(JA_DECLOG_CUT);
    assert_string_equal(l.text + l.len - m, JA_DECLOG_CUT);
    ja_declog_add(&l, "z", 1); /* ignored once cut */
    assert_int_equal(l.len, JA_DECLOG_MAX);
    /* Two-byte characters across the cut: never one cut in two. */
    for (size_t i = 0; i + 1 < sizeof big; i += 2)
        memcpy(big + i, "\xc3\xa9", 2);
    ja_declog_clear(&l);
    ja_declog_add(&l, big, JA_DECLOG_MAX + 2);
    assert_true(l.cut);
    size_t keep = l.len - m;
    assert_true(keep % 2 == 0 && keep >= JA_DECLOG_MAX - m - 1);
    assert_string_equal(l.text + keep, JA_DECLOG_CUT);
    /* A smaller bound (a match's logs), its own marker. */
    ja_declog_clear(&l);
    ja_declog_add(&l, "0123456789abcdefghij", 20);
    ja_declog_cut(&l, 15, "[cut]");
    assert_string_equal(l.text, "0123456789[cut]");
    /* Short text and the wire's marker: all of it, then the marker. */
    ja_declog_clear(&l);
    ja_declog_line(&l, "short");
    ja_declog_cut(&l, JA_DECLOG_MAX, JA_DECLOG_CUT);
    assert_string_equal(l.text, "short\n" JA_DECLOG_CUT);
    static ja_declog other;
    ja_declog_take(&other, &l);
    assert_string_equal(other.text, "short\n" JA_DECLOG_CUT);
    assert_true(other.cut);
    assert_int_equal(l.len, 0);
    assert_false(l.cut);
    assert_string_equal(l.text, "");
}

static const ja_host_api *g_host;
static void *g_hctx;

static int create(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
                  uint32_t n_seats, void **out)
{
    (void)game;
    (void)seat;
    (void)n_seats;
    g_host = host;
    g_hctx = hctx;
    host->log(hctx, JA_LOG_DEBUG, "created");
    *out = &g_host;
    return JA_OK;
}

static int act(void *bot, const ja_decision *d, uint32_t *index)
{
    (void)bot;
    (void)d;
    *index = 0;
    return JA_OK;
}

static void destroy(void *bot)
{
    (void)bot;
}

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc),
    .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR,
    .name = "t",
    .create = create,
    .act = act,
    .destroy = destroy,
};

static int g_lines;
static void owner_log(void *ctx, int level, const char *msg)
{
    (void)ctx;
    (void)level;
    (void)msg;
    g_lines++;
}

/* Every line of every level reaches the owner and, when it keeps one, the
 * runtime's decision log; and the `action` message carries it. */
static void test_runtime(void **state)
{
    (void)state;
    static ja_declog l;
    ja_declog_clear(&l);
    ja_botrt rt;
    ja_botrt_init(&rt, &desc, owner_log, NULL);
    rt.declog = &l;
    assert_int_equal(ja_botrt_start(&rt, "taylor-blackjack", 0, 2, 1, "", false), JA_OK);
    g_host->log(g_hctx, JA_LOG_ERROR, "an error");
    assert_int_equal(g_lines, 2);
    assert_string_equal(l.text, "created\nan error\n");
    msgpack_sbuffer b;
    msgpack_sbuffer_init(&b);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &b, msgpack_sbuffer_write);
    ja_botrt_pack_action(&pk, "m", 3, JA_OK, 1, &l);
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    assert_int_equal(msgpack_unpack_next(&u, b.data, b.size, &off), MSGPACK_UNPACK_SUCCESS);
    const msgpack_object *log = NULL;
    for (uint32_t i = 0; i < u.data.via.map.size; i++)
        if (u.data.via.map.ptr[i].key.via.str.size == 3 &&
            memcmp(u.data.via.map.ptr[i].key.via.str.ptr, "log", 3) == 0)
            log = &u.data.via.map.ptr[i].val;
    assert_non_null(log);
    assert_int_equal(log->via.str.size, l.len);
    assert_memory_equal(log->via.str.ptr, l.text, l.len);
    msgpack_unpacked_destroy(&u);
    /* No log key without a log. */
    msgpack_sbuffer_clear(&b);
    ja_declog_clear(&l);
    ja_botrt_pack_action(&pk, "m", 3, JA_OK, 1, &l);
    assert_null(memmem(b.data, b.size, "log", 3));
    msgpack_sbuffer_destroy(&b);
    ja_botrt_free(&rt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_cut),
        cmocka_unit_test(test_runtime),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
