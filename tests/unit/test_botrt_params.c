/* ja_botrt_check_params (sdk/runtime/ja_botrt.h): the one check of a bot's
 * parameters that the plugin seat, the hosted child and the C client make:
 * the bot's own check_params (ABI 1.2) when its descriptor has one, its
 * reason made one printable line, a descriptor of ABI 1.1 unchecked, and
 * ja_botrt_start creating no instance for refused parameters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ja_botrt.h"

#include "jackarena/ja_error.h"

#include <string.h>

static int g_created, g_checked;

static int create(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
                  uint32_t n_seats, void **out)
{
    g_created++;
    *out = &g_created;
    return JA_OK;
}

static int act(void *bot, const ja_decision *d, uint32_t *index)
{
    *index = 0;
    return JA_OK;
}

static void destroy(void *bot)
{
}

/* Accepts "" and "ok=1"; refuses anything else with a two-line reason. */
static int check(const char *params, char *err, size_t cap)
{
    g_checked++;
    if (!*params || strcmp(params, "ok=1") == 0)
        return JA_OK;
    snprintf(err, cap, "no good:\n'%s'\x7f", params);
    return JA_EINVAL;
}

/* Refuses without a word. */
static int mute(const char *params, char *err, size_t cap)
{
    return JA_EINVAL;
}

static const ja_bot_desc with_check = {
    .struct_size = sizeof(ja_bot_desc), .abi_major = JA_BOT_ABI_MAJOR, .abi_minor = 2,
    .name = "c", .create = create, .act = act, .destroy = destroy, .check_params = check,
};
static const ja_bot_desc silent = {
    .struct_size = sizeof(ja_bot_desc), .abi_major = JA_BOT_ABI_MAJOR, .abi_minor = 2,
    .name = "s", .create = create, .act = act, .destroy = destroy, .check_params = mute,
};
/* Built against ABI 1.1: the member is past its struct_size, so whatever
 * lies there is never read. */
static const ja_bot_desc abi11 = {
    .struct_size = offsetof(ja_bot_desc, check_params), .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = 1, .name = "o", .create = create, .act = act, .destroy = destroy,
    .check_params = mute,
};

static void test_check(void **state)
{
    (void)state;
    char err[128];
    g_checked = 0;
    assert_int_equal(ja_botrt_check_params(&with_check, NULL, err, sizeof err), JA_OK);
    assert_int_equal(ja_botrt_check_params(&with_check, "ok=1", err, sizeof err), JA_OK);
    assert_int_equal(g_checked, 2);
    assert_int_equal(ja_botrt_check_params(&with_check, "x=2", err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "no good: 'x=2' ");
    assert_int_equal(ja_botrt_check_params(&silent, "x=2", err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "the bot refused them (it gave no reason)");
    /* ABI 1.1: anything goes, check_params is not called. */
    assert_int_equal(ja_botrt_check_params(&abi11, "x=2", err, sizeof err), JA_OK);
    /* Too long for any host, whatever the bot says. */
    char longp[JA_BOTRT_PARAMS_MAX + 1];
    memset(longp, 'k', sizeof longp - 1);
    longp[sizeof longp - 1] = '\0';
    g_checked = 0;
    assert_int_equal(ja_botrt_check_params(&abi11, longp, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "parameters too long (at most 255 bytes)");
    assert_int_equal(ja_botrt_check_params(&with_check, longp, err, sizeof err), JA_EINVAL);
    assert_int_equal(g_checked, 0);
}

static char g_log[256];

static void keep_log(void *ctx, int level, const char *msg)
{
    (void)ctx;
    if (level == JA_LOG_ERROR)
        snprintf(g_log, sizeof g_log, "%s", msg);
}

static void test_start(void **state)
{
    (void)state;
    ja_botrt rt;
    ja_botrt_init(&rt, &with_check, keep_log, NULL);
    g_created = 0;
    g_log[0] = '\0';
    assert_int_equal(ja_botrt_start(&rt, "taylor-blackjack", 0, 2, 1, "x=2", false), JA_EINVAL);
    assert_null(rt.bot);
    assert_int_equal(g_created, 0);
    assert_string_equal(g_log, "no good: 'x=2' ");
    assert_int_equal(ja_botrt_start(&rt, "taylor-blackjack", 0, 2, 1, "ok=1", false), JA_OK);
    assert_int_equal(g_created, 1);
    assert_string_equal(ja_botrt_host_api.params(&rt), "ok=1");
    ja_botrt_free(&rt);
    ja_botrt_init(&rt, &abi11, keep_log, NULL);
    assert_int_equal(ja_botrt_start(&rt, "taylor-blackjack", 0, 2, 1, "x=2", false), JA_OK);
    assert_string_equal(ja_botrt_host_api.params(&rt), "x=2");
    ja_botrt_free(&rt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
