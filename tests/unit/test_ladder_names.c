/* Unit tests of the display names of ladder bots (ladders/names.h): each
 * step of the rule (name, name@version, name@version~hash8,
 * name@version#id), the last resort that keeps names distinct, the names a
 * lookup accepts (every printed name, fuller spellings that fit one bot),
 * refusals that list the candidates as printed, the id search, and the
 * labels: a name with the parameters a version carries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_error.h"
#include "names.h"

#define HASH_A "42732feafb62c32defa9a5c8587f7d3c58d8b18fe20e86870461a7131dfb7343"
#define HASH_B "67040027cde2f3ccdbcb9496454551acc5daa589afaeb38f05f140dbbc4d6440"
/* Begins as HASH_A does: the first 8 digits cannot tell them apart. */
#define HASH_A2 "42732fea00000000000000000000000000000000000000000000000000000000"

static ladder_bot_row row(int64_t id, const char *name, const char *version, const char *sha)
{
    ladder_bot_row b;
    memset(&b, 0, sizeof b);
    b.id = id;
    snprintf(b.name, sizeof b.name, "%s", name);
    snprintf(b.version, sizeof b.version, "%s", version);
    snprintf(b.kind, sizeof b.kind, "%s", sha ? "plugin" : "cmd");
    snprintf(b.sha256, sizeof b.sha256, "%s", sha ? sha : "");
    return b;
}

/* The names of b[0..n-1] must be want[0..n-1]. */
static void expect_names(const ladder_bot_row *b, uint32_t n, const char *const *want)
{
    ladder_display_name *d = NULL;
    assert_int_equal(ladder_display_names(b, n, &d), JA_OK);
    assert_non_null(d);
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(d[i], want[i]) != 0)
            fail_msg("bot %u: named '%s', want '%s'", i, d[i], want[i]);
    free(d);
}

static void test_rule(void **state)
{
    (void)state;
    /* Each name once: the name alone. */
    ladder_bot_row a[] = {row(1, "random", "1.0", HASH_A), row(2, "greedy", "1.0", HASH_B),
                          row(3, "rawbot", "", NULL)};
    expect_names(a, 3, (const char *const[]){"random", "greedy", "rawbot"});
    /* Two versions: name@version. */
    ladder_bot_row b[] = {row(1, "shedder", "1.0", HASH_A), row(2, "shedder", "2.0", HASH_B),
                          row(3, "random", "1.0", HASH_A)};
    expect_names(b, 3, (const char *const[]){"shedder@1.0", "shedder@2.0", "random"});
    /* Two builds of 1.0 and a 2.0: the builds by hash, 2.0 by version. */
    ladder_bot_row c[] = {row(4, "shedder", "1.0", HASH_A), row(9, "shedder", "1.0", HASH_B),
                          row(11, "shedder", "2.0", HASH_A), row(12, "random", "1.0", HASH_A)};
    expect_names(c, 4, (const char *const[]){"shedder@1.0~42732fea", "shedder@1.0~67040027",
                                             "shedder@2.0", "random"});
    /* A build without a hash beside one with: the database id. */
    ladder_bot_row d[] = {row(4, "shedder", "1.0", HASH_A), row(7, "shedder", "1.0", NULL)};
    expect_names(d, 2, (const char *const[]){"shedder@1.0~42732fea", "shedder@1.0#7"});
    /* An empty set. */
    ladder_display_name *none = NULL;
    assert_int_equal(ladder_display_names(NULL, 0, &none), JA_OK);
    free(none);
    assert_int_equal(ladder_display_names(a, 3, NULL), JA_EINVAL);
    assert_int_equal(ladder_display_names(NULL, 2, &none), JA_EINVAL);
}

static void test_always_distinct(void **state)
{
    (void)state;
    /* "a@1" is a bot's name and another's name@version: both get the id. */
    ladder_bot_row a[] = {row(1, "a", "1", HASH_A), row(2, "a", "2", HASH_B),
                          row(3, "a@1", "", NULL)};
    expect_names(a, 3, (const char *const[]){"a@1#1", "a@2", "a@1#3"});
    /* Two hashes that begin alike. */
    ladder_bot_row b[] = {row(5, "s", "1", HASH_A), row(6, "s", "1", HASH_A2),
                          row(8, "s", "1", HASH_B)};
    expect_names(b, 3, (const char *const[]){"s@1~42732fea#5", "s@1~42732fea#6", "s@1~67040027"});
}

/* Looks q up in bots b; returns the code, *at the index, err the message. */
static int find(const ladder_bot_row *b, uint32_t n, const char *q, uint32_t *at, char *err,
                size_t cap)
{
    ladder_display_name *d = NULL;
    assert_int_equal(ladder_display_names(b, n, &d), JA_OK);
    *at = UINT32_MAX;
    int rc = ladder_display_find(b, (const ladder_display_name *)d, n, q, at, err, cap);
    free(d);
    return rc;
}

static void test_find(void **state)
{
    (void)state;
    ladder_bot_row c[] = {row(4, "shedder", "1.0", HASH_A), row(9, "shedder", "1.0", HASH_B),
                          row(11, "shedder", "2.0", HASH_A), row(12, "random", "1.0", HASH_A),
                          row(13, "rawbot", "3", NULL)};
    uint32_t at;
    char err[512];
    /* Every printed name. */
    const char *printed[] = {"shedder@1.0~42732fea", "shedder@1.0~67040027", "shedder@2.0",
                             "random", "rawbot"};
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(find(c, 5, printed[i], &at, err, sizeof err), JA_OK);
        assert_int_equal(at, i);
    }
    /* Fuller spellings that fit one bot: the whole hash, a longer prefix,
     * name@version of a unique name, the id. */
    assert_int_equal(find(c, 5, "shedder@1.0~" HASH_B, &at, err, sizeof err), JA_OK);
    assert_int_equal(at, 1);
    assert_int_equal(find(c, 5, "shedder@1.0~42732feafb", &at, err, sizeof err), JA_OK);
    assert_int_equal(at, 0);
    assert_int_equal(find(c, 5, "random@1.0", &at, err, sizeof err), JA_OK);
    assert_int_equal(at, 3);
    assert_int_equal(find(c, 5, "shedder@1.0#9", &at, err, sizeof err), JA_OK);
    assert_int_equal(at, 1);
    assert_int_equal(find(c, 5, "rawbot@3#13", &at, err, sizeof err), JA_OK);
    assert_int_equal(at, 4);
    /* Several fit: refused, the candidates listed as printed. */
    assert_int_equal(find(c, 5, "shedder@1.0", &at, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "2 bots of this ladder fit this name: shedder@1.0~42732fea, "
                             "shedder@1.0~67040027 (give one of these names)");
    assert_int_equal(find(c, 5, "shedder", &at, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "3 bots of this ladder fit this name: shedder@1.0~42732fea, "
                             "shedder@1.0~67040027, shedder@2.0 (give one of these names)");
    /* None fits: a short prefix, a wrong hash, a wrong id, another name. */
    const char *no[] = {"shedder@1.0~4273",   "shedder@1.0~42732fe", "shedder@1.0~67040028",
                        "shedder@1.0#4x",     "shedder@1.0#5",       "shedder@3.0",
                        "shedder@",           "Random",              "",
                        "shedder@1.0~" HASH_A "0"};
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (find(c, 5, no[i], &at, err, sizeof err) != JA_ENOTFOUND)
            fail_msg("'%s' was taken as bot %u", no[i], at);
    assert_string_equal(err, "no bot of this ladder is named so (its bots: "
                             "shedder@1.0~42732fea, shedder@1.0~67040027, shedder@2.0, random, "
                             "rawbot)");
    /* A message cut to fit ends with "...". */
    char small[40];
    assert_int_equal(find(c, 5, "shedder", &at, small, sizeof small), JA_EINVAL);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_string_equal(small + sizeof small - 4, "...");
    /* No bots; bad arguments. */
    assert_int_equal(ladder_display_find(NULL, NULL, 0, "x", &at, err, sizeof err), JA_ENOTFOUND);
    assert_string_equal(err, "no bot of this ladder is named so (it has none)");
    assert_int_equal(ladder_display_find(c, NULL, 5, "x", &at, NULL, 0), JA_EINVAL);
    assert_int_equal(ladder_display_find(NULL, NULL, 0, NULL, &at, NULL, 0), JA_EINVAL);
    assert_int_equal(ladder_display_find(NULL, NULL, 0, "x", NULL, NULL, 0), JA_EINVAL);
}

static void test_index(void **state)
{
    (void)state;
    ladder_bot_row b[] = {row(2, "a", "", NULL), row(5, "b", "", NULL), row(9, "c", "", NULL)};
    assert_int_equal(ladder_bot_index(b, 3, 2), 0);
    assert_int_equal(ladder_bot_index(b, 3, 5), 1);
    assert_int_equal(ladder_bot_index(b, 3, 9), 2);
    assert_int_equal(ladder_bot_index(b, 3, 1), -1);
    assert_int_equal(ladder_bot_index(b, 3, 6), -1);
    assert_int_equal(ladder_bot_index(b, 3, 10), -1);
    assert_int_equal(ladder_bot_index(NULL, 0, 2), -1);
}

/* The parameters a stored version carries: the trailing KEY=VALUE items
 * after the bot's own version. */
static void test_version_params(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"1.2:iters=200", "iters=200"},
        {"1.2:iters=200:c=0.7", "iters=200:c=0.7"},
        {"1.2", ""},
        {"", ""},
        {"v=2", ""},                    /* the bot's own version, not parameters */
        {":iters=5", "iters=5"},        /* an empty own version */
        {"2:1", ""},                    /* a ':' in the own version, no parameters */
        {"2:1:depth=3", "depth=3"},     /* ... and parameters after it */
        {"1.0:fast", ""},               /* an item without '=' is not read as one */
        {"1.0:fast:depth=3", "depth=3"},
        {"1.0:style=a=b", "style=a=b"}, /* a value may hold '=' */
        {"1.0:", ""},
        {"1.0::a=1", "a=1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(ladder_version_params(cases[i][0]), cases[i][1]) != 0)
            fail_msg("version '%s': parameters '%s', want '%s'", cases[i][0],
                     ladder_version_params(cases[i][0]), cases[i][1]);
}

static void test_labels(void **state)
{
    (void)state;
    char out[LADDER_LABEL_MAX];
    ladder_label(out, sizeof out, "ismcts#2", "iters=200");
    assert_string_equal(out, "ismcts#2(iters=200)");
    ladder_label(out, sizeof out, "random", "");
    assert_string_equal(out, "random");
    ladder_label(out, sizeof out, "random", NULL);
    assert_string_equal(out, "random");
    char small[8];
    ladder_label(small, sizeof small, "ismcts", "iters=200");
    assert_string_equal(small, "ismcts(");
    /* A display name that shows the version (which holds the parameters)
     * is left as it is; the bare name gets them. */
    ladder_bot_row b = row(3, "ismcts", "1.2:iters=200", HASH_A);
    ladder_display_label(out, sizeof out, &b, "ismcts");
    assert_string_equal(out, "ismcts(iters=200)");
    ladder_display_label(out, sizeof out, &b, "ismcts@1.2:iters=200");
    assert_string_equal(out, "ismcts@1.2:iters=200");
    b = row(4, "random", "1.0", HASH_B);
    ladder_display_label(out, sizeof out, &b, "random");
    assert_string_equal(out, "random");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule),
        cmocka_unit_test(test_always_distinct),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_index),
        cmocka_unit_test(test_version_params),
        cmocka_unit_test(test_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
