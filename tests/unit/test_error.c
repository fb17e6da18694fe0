/* Unit tests of the error table (ja_error.h), the fault names (ja_bot.h)
 * and the run-time version string (ja_version.h).
 *
 * The literal code values are pinned here on purpose: codes are never
 * renumbered, only appended, so a change to this list is an ABI break. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_version.h"

static const struct {
    int code;
    const char *name;
} PINNED[] = {
    {JA_OK, "OK"},           {JA_EINVAL, "EINVAL"},       {JA_ENOMEM, "ENOMEM"},
    {JA_EILLEGAL, "EILLEGAL"}, {JA_EAGAIN, "EAGAIN"},     {JA_ENOTFOUND, "ENOTFOUND"},
    {JA_EIO, "EIO"},         {JA_EFORMAT, "EFORMAT"},     {JA_EVERSION, "EVERSION"},
    {JA_EUNSUPPORTED, "EUNSUPPORTED"}, {JA_EBOT, "EBOT"}, {JA_ETIMEOUT, "ETIMEOUT"},
    {JA_EBUSY, "EBUSY"},     {JA_EDB, "EDB"},             {JA_ERANGE, "ERANGE"},
    {JA_ESTATE, "ESTATE"},   {JA_EMISMATCH, "EMISMATCH"},
};
#define N_PINNED (sizeof PINNED / sizeof PINNED[0])

/* Every code of the X-macro table, as the table itself lists them. */
static const int TABLE[] = {
#define X(name, value, msg) value,
    JA_ERRNO_MAP(X)
#undef X
};
#define N_TABLE (sizeof TABLE / sizeof TABLE[0])

static void test_codes_pinned(void **state)
{
    (void)state;
    /* The table only grows: the first N_PINNED codes are 0, -1, -2, ... */
    assert_true(N_TABLE >= N_PINNED);
    assert_int_equal(N_TABLE, JA_ERR_COUNT);
    for (size_t i = 0; i < N_PINNED; i++) {
        assert_int_equal(PINNED[i].code, -(int)i);
        assert_int_equal(TABLE[i], -(int)i);
        assert_string_equal(ja_err_name(PINNED[i].code), PINNED[i].name);
    }
    assert_int_equal(JA_OK, 0);
    assert_string_equal(ja_strerror(JA_OK), "success");
    assert_string_equal(ja_strerror(JA_EILLEGAL), "illegal action");
}

static void test_names_and_messages_distinct(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_TABLE; i++) {
        int a = TABLE[i];
        const char *name = ja_err_name(a), *msg = ja_strerror(a);
        assert_non_null(name);
        assert_non_null(msg);
        assert_true(strlen(name) > 0);
        assert_true(strlen(msg) > 0);
        assert_string_not_equal(name, "UNKNOWN");
        assert_string_not_equal(msg, "unknown error");
        if (a != JA_OK)
            assert_true(a < 0 && name[0] == 'E');
        for (size_t j = 0; j < i; j++) {
            int b = TABLE[j];
            assert_true(a != b);
            assert_string_not_equal(name, ja_err_name(b));
            assert_string_not_equal(msg, ja_strerror(b));
        }
    }
}

static void test_unknown_code(void **state)
{
    (void)state;
    static const int unknown[] = {1, 2, 100, -(int)N_TABLE, -1000, -32768, 2147483647,
                                  -2147483647 - 1};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        assert_string_equal(ja_strerror(unknown[i]), "unknown error");
        assert_string_equal(ja_err_name(unknown[i]), "UNKNOWN");
    }
}

/* Faults are recorded by number in replays and ladders, so the list only
 * grows: the first nine are pinned; every entry, pinned or appended, has the
 * name its X-macro gives, distinct from the others. */
static void test_fault_names(void **state)
{
    (void)state;
    static const char *const pinned[] = {"none", "timeout", "crash", "illegal", "malformed",
                                         "protocol", "disconnect", "resource", "error"};
    static const char *const table[] = {
#define X(name, text) text,
        JA_FAULT_MAP(X)
#undef X
    };
    const int n_pinned = (int)(sizeof pinned / sizeof pinned[0]);
    assert_int_equal(JA_FAULT_COUNT, sizeof table / sizeof table[0]);
    assert_true(JA_FAULT_COUNT >= n_pinned);
    assert_int_equal(JA_FAULT_NONE, 0);
    assert_int_equal(JA_FAULT_TIMEOUT, 1);
    assert_int_equal(JA_FAULT_ERROR, 8);
    for (int f = 0; f < JA_FAULT_COUNT; f++) {
        if (f < n_pinned)
            assert_string_equal(ja_fault_name(f), pinned[f]);
        assert_string_equal(ja_fault_name(f), table[f]);
        assert_true(strlen(ja_fault_name(f)) > 0);
        assert_string_not_equal(ja_fault_name(f), "unknown");
        for (int g = 0; g < f; g++)
            assert_string_not_equal(ja_fault_name(f), ja_fault_name(g));
    }
    assert_string_equal(ja_fault_name(-1), "unknown");
    assert_string_equal(ja_fault_name(JA_FAULT_COUNT), "unknown");
    assert_string_equal(ja_fault_name(1000), "unknown");
}

static void test_version_string(void **state)
{
    (void)state;
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", JA_VERSION_MAJOR, JA_VERSION_MINOR,
             JA_VERSION_PATCH);
    assert_string_equal(ja_version(), want);
    assert_int_equal(JA_VERSION, JA_VERSION_MAJOR * 10000 + JA_VERSION_MINOR * 100 +
                                     JA_VERSION_PATCH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codes_pinned),
        cmocka_unit_test(test_names_and_messages_distinct),
        cmocka_unit_test(test_unknown_code),
        cmocka_unit_test(test_fault_names),
        cmocka_unit_test(test_version_string),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
