/* ja_params.h: iterating KEY=VALUE items, the key check, and the typed
 * lookups, each with its one-line error naming the key and what is allowed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "jackarena/ja_error.h"
#include "jackarena/ja_params.h"

#include <stdio.h>
#include <string.h>

static const char *const KEYS[] = {"iters", "c", "style", NULL};
static const char *const STYLES[] = {"calm", "wild", "auto", NULL};

/* Every item of text as "key=value" (or "key" without a value), joined by
 * '|'; JA_EINVAL's message after a '!'. */
static void items(const char *text, char *out, size_t cap)
{
    size_t pos = 0, used = 0;
    ja_param p;
    char err[128];
    int r;
    out[0] = '\0';
    while ((r = ja_params_next(text, &pos, &p, err, sizeof err)) == 1)
        used += (size_t)snprintf(out + used, cap - used, "%s%.*s%s%.*s", used ? "|" : "",
                                 (int)p.key_len, p.key, p.value ? "=" : "",
                                 (int)p.value_len, p.value ? p.value : "");
    if (r != 0)
        snprintf(out + used, cap - used, "!%s", err);
}

static void test_next(void **state)
{
    (void)state;
    char got[256];
    items("", got, sizeof got);
    assert_string_equal(got, "");
    items(NULL, got, sizeof got);
    assert_string_equal(got, "");
    items("iters=5", got, sizeof got);
    assert_string_equal(got, "iters=5");
    items("iters=5:c=0.7:flag:x=a=b:e=", got, sizeof got);
    assert_string_equal(got, "iters=5|c=0.7|flag|x=a=b|e=");
    items("a=1::b=2", got, sizeof got);
    assert_string_equal(got, "a=1!an empty parameter (a ':' at an end or twice in a row)");
    items("a=1:", got, sizeof got);
    assert_non_null(strstr(got, "a=1!an empty parameter"));
    items(":a=1", got, sizeof got);
    assert_non_null(strstr(got, "!an empty parameter"));
    items("a=1:=5", got, sizeof got);
    assert_string_equal(got, "a=1!parameter '=5' has no name before its '='");
}

static void test_check_keys(void **state)
{
    (void)state;
    char err[256] = "";
    assert_int_equal(ja_params_check_keys("", KEYS, err, sizeof err), JA_OK);
    assert_int_equal(ja_params_check_keys(NULL, NULL, err, sizeof err), JA_OK);
    assert_int_equal(ja_params_check_keys("iters=3:c=1:style=calm", KEYS, err, sizeof err), JA_OK);
    assert_int_equal(ja_params_check_keys("iters=3:iterz=5", KEYS, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "unknown parameter 'iterz' (known: iters, c, style)");
    assert_int_equal(ja_params_check_keys("x=1", NULL, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "unknown parameter 'x' (this bot takes no parameters)");
    static const char *const none[] = {NULL};
    assert_int_equal(ja_params_check_keys("fast", none, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "unknown parameter 'fast' (this bot takes no parameters)");
    assert_int_equal(ja_params_check_keys("iters", KEYS, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "parameter 'iters' needs a value (iters=VALUE)");
    assert_int_equal(ja_params_check_keys("c=1:iters=2:c=3", KEYS, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "parameter 'c' is given twice");
    assert_int_equal(ja_params_check_keys("c=1::iters=2", KEYS, err, sizeof err), JA_EINVAL);
    assert_non_null(strstr(err, "empty parameter"));
    /* A prefix of a known key is not that key. */
    assert_int_equal(ja_params_check_keys("iter=2", KEYS, err, sizeof err), JA_EINVAL);
    assert_non_null(strstr(err, "'iter'"));
    /* The message fits the buffer given, cut but terminated. */
    char small[12];
    assert_int_equal(ja_params_check_keys("zzz=1", KEYS, small, sizeof small), JA_EINVAL);
    assert_int_equal(strlen(small), sizeof small - 1);
}

static void test_get(void **state)
{
    (void)state;
    char v[8], err[128];
    assert_int_equal(ja_params_get("a=1:b=xyz:a=2", "b", v, sizeof v, err, sizeof err), 1);
    assert_string_equal(v, "xyz");
    assert_int_equal(ja_params_get("a=1:b=xyz:a=2", "a", v, sizeof v, err, sizeof err), 1);
    assert_string_equal(v, "1"); /* the first occurrence */
    assert_int_equal(ja_params_get("a=1", "b", v, sizeof v, err, sizeof err), 0);
    assert_string_equal(v, "");
    assert_int_equal(ja_params_get("b=", "b", v, sizeof v, err, sizeof err), 1);
    assert_string_equal(v, "");
    assert_int_equal(ja_params_get("b=12345678", "b", v, sizeof v, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "parameter 'b': its value is longer than 7 bytes");
    assert_int_equal(ja_params_get("b", "b", v, sizeof v, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "parameter 'b' needs a value (b=VALUE)");
    assert_int_equal(ja_params_get("a=1::b=2", "b", v, sizeof v, err, sizeof err), JA_EINVAL);
}

static void test_int(void **state)
{
    (void)state;
    int64_t x = 0;
    char err[160];
    assert_int_equal(ja_params_int("iters=2000", "iters", 1, 10000000, 1000, &x, err, sizeof err),
                     JA_OK);
    assert_int_equal(x, 2000);
    assert_int_equal(ja_params_int("", "iters", 1, 10, 7, &x, err, sizeof err), JA_OK);
    assert_int_equal(x, 7);
    assert_int_equal(ja_params_int("d=-3", "d", -5, 5, 0, &x, err, sizeof err), JA_OK);
    assert_int_equal(x, -3);
    assert_int_equal(ja_params_int("d=9223372036854775807", "d", INT64_MIN, INT64_MAX, 0, &x, err,
                                   sizeof err), JA_OK);
    assert_true(x == INT64_MAX);
    const char *bad[] = {"iters=0",   "iters=11", "iters=",   "iters=1.5", "iters=+3",
                         "iters= 3",  "iters=3x", "iters=-",  "iters=0x10",
                         "iters=99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        assert_int_equal(ja_params_int(bad[i], "iters", 1, 10, 1, &x, err, sizeof err), JA_EINVAL);
        char want[96];
        snprintf(want, sizeof want, "parameter 'iters' must be an integer from 1 to 10, not '%s'",
                 bad[i] + 6);
        assert_string_equal(err, want);
    }
}

static void test_double(void **state)
{
    (void)state;
    double x = 0;
    char err[160];
    assert_int_equal(ja_params_double("c=0.7", "c", 0, 10, 1, &x, err, sizeof err), JA_OK);
    assert_true(x == 0.7);
    assert_int_equal(ja_params_double("c=1e1", "c", 0, 10, 1, &x, err, sizeof err), JA_OK);
    assert_true(x == 10.0);
    assert_int_equal(ja_params_double("c=-2", "c", -2, 0, 1, &x, err, sizeof err), JA_OK);
    assert_true(x == -2.0);
    assert_int_equal(ja_params_double("", "c", 0, 10, 0.25, &x, err, sizeof err), JA_OK);
    assert_true(x == 0.25);
    const char *bad[] = {"c=-1", "c=10.5", "c=", "c=x", "c=inf", "c=nan", "c=0x1p2",
                         "c= 1", "c=1e", "c=.", "c=1e999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        assert_int_equal(ja_params_double(bad[i], "c", 0, 10, 1, &x, err, sizeof err), JA_EINVAL);
        char want[96];
        snprintf(want, sizeof want, "parameter 'c' must be a number from 0 to 10, not '%s'",
                 bad[i] + 2);
        assert_string_equal(err, want);
    }
}

static void test_word(void **state)
{
    (void)state;
    int w = -1;
    char err[160];
    assert_int_equal(ja_params_word("style=wild", "style", STYLES, 0, &w, err, sizeof err), JA_OK);
    assert_int_equal(w, 1);
    assert_int_equal(ja_params_word("", "style", STYLES, 2, &w, err, sizeof err), JA_OK);
    assert_int_equal(w, 2);
    assert_int_equal(ja_params_word("style=Wild", "style", STYLES, 0, &w, err, sizeof err),
                     JA_EINVAL);
    assert_string_equal(err, "parameter 'style' must be one of calm, wild, auto, not 'Wild'");
    assert_int_equal(ja_params_word("style=", "style", STYLES, 0, &w, err, sizeof err), JA_EINVAL);
    /* A malformed text is an error whatever the key looked up. */
    assert_int_equal(ja_params_word("a=1::", "style", STYLES, 0, &w, err, sizeof err), JA_EINVAL);
    assert_non_null(strstr(err, "empty parameter"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_next),   cmocka_unit_test(test_check_keys),
        cmocka_unit_test(test_get),    cmocka_unit_test(test_int),
        cmocka_unit_test(test_double), cmocka_unit_test(test_word),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
