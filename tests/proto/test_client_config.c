/* ja_client_new (sdk/include/jackarena/ja_client.h): the appended `params`
 * member and the bot's check of its parameters. A config built before the
 * member was appended (struct_size without it) still works and its stale
 * bytes are never read; the parameters come from the member, else from
 * $JACKARENA_PARAMS; ones the bot's check_params refuses make ja_client_new
 * fail before anything is connected. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "jackarena/ja_client.h"
#include "jackarena/ja_error.h"

#include <stdlib.h>
#include <string.h>

static int create(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
                  uint32_t n_seats, void **out)
{
    *out = NULL;
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

/* Takes only "ok=1". */
static int check(const char *params, char *err, size_t cap)
{
    if (!*params || strcmp(params, "ok=1") == 0)
        return JA_OK;
    strncpy(err, "refused", cap);
    return JA_EINVAL;
}

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc), .abi_major = JA_BOT_ABI_MAJOR, .abi_minor = 2,
    .name = "cfg", .create = create, .act = act, .destroy = destroy, .check_params = check,
};

static int try_new(const ja_client_config *cfg)
{
    ja_client *c = NULL;
    int rc = ja_client_new(cfg, &desc, &c);
    if (rc == JA_OK)
        assert_non_null(c);
    else
        assert_null(c);
    ja_client_destroy(&c);
    return rc;
}

static void test_params(void **state)
{
    (void)state;
    ja_client_config cfg;
    unsetenv("JACKARENA_PARAMS");
    ja_client_config_init(&cfg);
    assert_int_equal(cfg.struct_size, sizeof cfg);
    assert_int_equal(try_new(&cfg), JA_OK);
    cfg.params = "ok=1";
    assert_int_equal(try_new(&cfg), JA_OK);
    cfg.params = "bad=1";
    assert_int_equal(try_new(&cfg), JA_EINVAL);
    /* From the environment when the member is NULL. */
    cfg.params = NULL;
    setenv("JACKARENA_PARAMS", "bad=1", 1);
    assert_int_equal(try_new(&cfg), JA_EINVAL);
    setenv("JACKARENA_PARAMS", "ok=1", 1);
    assert_int_equal(try_new(&cfg), JA_OK);
    /* The member wins over the environment. */
    cfg.params = "bad=2";
    assert_int_equal(try_new(&cfg), JA_EINVAL);
    unsetenv("JACKARENA_PARAMS");
}

static void test_old_config(void **state)
{
    (void)state;
    ja_client_config cfg;
    ja_client_config_init(&cfg);
    /* Built before `params` was appended: what lies there is not read. */
    cfg.struct_size = offsetof(ja_client_config, params);
    cfg.params = "bad=1";
    unsetenv("JACKARENA_PARAMS");
    assert_int_equal(try_new(&cfg), JA_OK);
    setenv("JACKARENA_PARAMS", "bad=1", 1);
    assert_int_equal(try_new(&cfg), JA_EINVAL);
    unsetenv("JACKARENA_PARAMS");
    /* Smaller than any config ever was. */
    cfg.struct_size = offsetof(ja_client_config, verbose);
    assert_int_equal(try_new(&cfg), JA_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_old_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
