/* Unit tests of the benchmark's rows (bench/bench_rows.c): a target's
 * verdict on a spread of trials (met only when all of it is on the right
 * side, not met when all of it is on the wrong side, undecided when it
 * straddles the target), a row's verdict on its figure and its spread, the
 * cells and the JSON that show them, and a ratio shown so that it never
 * reads as the other verdict (0.7987 against "at least 0.8" is shown 0.799,
 * not 0.80). Values only: no timing is measured here. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_rows.h"

static bench_row row(double ratio, bench_cmp cmp, double target)
{
    bench_row r;
    memset(&r, 0, sizeof r);
    r.value = 1;
    r.ratio = ratio;
    r.cmp = cmp;
    r.target = target;
    return r;
}

static void test_met(void **state)
{
    (void)state;
    bench_row r = row(0.7987, BENCH_AT_LEAST, 0.8);
    assert_int_equal(bench_row_met(&r), 0);
    r = row(0.8, BENCH_AT_LEAST, 0.8);
    assert_int_equal(bench_row_met(&r), 1);
    r = row(1.21, BENCH_AT_MOST, 1.2);
    assert_int_equal(bench_row_met(&r), 0);
    r = row(NAN, BENCH_AT_LEAST, 0.8);
    r.value = NAN;
    assert_int_equal(bench_row_met(&r), 0); /* not measured: not met */
    r = row(0.5, BENCH_NO_TARGET, 0);
    assert_int_equal(bench_row_met(&r), -1);
    assert_int_equal(bench_row_met(NULL), -1);
}

/* bench_verdict on a spread [lo, hi]: above, below and across the target,
 * for at least and at most; the bounds themselves; NAN; no target. */
static void test_verdict(void **state)
{
    (void)state;
    static const struct {
        bench_cmp cmp;
        double target, lo, hi;
        int want;
    } cases[] = {
        /* At least 5: the whole spread above, below, across. */
        {BENCH_AT_LEAST, 5, 5.2, 6.1, BENCH_MET},
        {BENCH_AT_LEAST, 5, 4.1, 4.9, BENCH_NOT_MET},
        {BENCH_AT_LEAST, 5, 4.5, 5.6, BENCH_UNDECIDED},
        /* The target itself meets it: a spread starting there is met, one
         * ending there is undecided (its top meets it, the rest does not). */
        {BENCH_AT_LEAST, 5, 5, 5.5, BENCH_MET},
        {BENCH_AT_LEAST, 5, 4.5, 5, BENCH_UNDECIDED},
        /* At most 1.2: below is met, above is not, across is undecided. */
        {BENCH_AT_MOST, 1.2, 0.9, 1.1, BENCH_MET},
        {BENCH_AT_MOST, 1.2, 1.3, 1.9, BENCH_NOT_MET},
        {BENCH_AT_MOST, 1.2, 1.0, 1.4, BENCH_UNDECIDED},
        {BENCH_AT_MOST, 1.2, 1.0, 1.2, BENCH_MET},
        {BENCH_AT_MOST, 1.2, 1.2, 1.4, BENCH_UNDECIDED},
        /* One figure (lo == hi) is never undecided; bounds given the wrong
         * way round are the same spread. */
        {BENCH_AT_LEAST, 0.8, 0.8, 0.8, BENCH_MET},
        {BENCH_AT_LEAST, 0.8, 0.7987, 0.7987, BENCH_NOT_MET},
        {BENCH_AT_LEAST, 5, 5.6, 4.5, BENCH_UNDECIDED},
        /* Not measured: not met. No target: no verdict. */
        {BENCH_AT_LEAST, 5, NAN, 6, BENCH_NOT_MET},
        {BENCH_AT_MOST, 5, 4, NAN, BENCH_NOT_MET},
        {BENCH_NO_TARGET, 5, 1, 9, BENCH_NO_VERDICT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = bench_verdict(cases[i].cmp, cases[i].target, cases[i].lo, cases[i].hi);
        if (got != cases[i].want)
            fail_msg("case %zu: verdict %d, want %d", i, got, cases[i].want);
    }
}

/* A row of trials: its verdict takes the spread and the ratio shown, its
 * target cell says ✓, ✗ or ?, its ratio cell shows the spread. */
static void test_row_spread(void **state)
{
    (void)state;
    char b[128];
    bench_rows_print(false);
    const double above[] = {5.4, 6.1, 5.2}, across[] = {4.5, 5.6, 5.1}, below[] = {4.0, 4.9};
    const bench_row *r = bench_row_add_trials("above", 100, "decisions/s", 5.5, above, 3,
                                              BENCH_AT_LEAST, 5);
    assert_non_null(r);
    assert_true(r->lo == 5.2 && r->hi == 6.1 && r->trials == 3);
    assert_int_equal(bench_row_met(r), BENCH_MET);
    assert_string_equal(bench_row_target(r, b, sizeof b), "\u2265 5 \u2713");
    assert_string_equal(bench_ratio_cell(r, true, b, sizeof b), "**5.50** (5.20\u20136.10)");
    assert_string_equal(bench_spread_text(r, b, sizeof b), "5.20\u20136.10");
    r = bench_row_add_trials("across", 100, "decisions/s", 5.1, across, 3, BENCH_AT_LEAST, 5);
    assert_int_equal(bench_row_met(r), BENCH_UNDECIDED);
    assert_string_equal(bench_row_target(r, b, sizeof b), "\u2265 5 ?");
    assert_string_equal(bench_ratio_cell(r, false, b, sizeof b), "5.10 (4.50\u20135.60)");
    r = bench_row_add_trials("below", 100, "decisions/s", 4.4, below, 2, BENCH_AT_LEAST, 5);
    assert_int_equal(bench_row_met(r), BENCH_NOT_MET);
    assert_string_equal(bench_row_target(r, b, sizeof b), "\u2265 5 \u2717");
    /* The ratio shown below the target while every trial is above it
     * (a slower baseline trial than the best one beside each): undecided. */
    r = bench_row_add_trials("shown below", 100, "decisions/s", 4.9, above, 3, BENCH_AT_LEAST,
                             5);
    assert_int_equal(bench_row_met(r), BENCH_UNDECIDED);
    /* At most, on values: a spread straddling the limit. */
    const double kb[] = {90, 104};
    r = bench_row_add_trials("page", 95, "KB", NAN, kb, 2, BENCH_AT_MOST, 100);
    assert_int_equal(bench_row_met(r), BENCH_UNDECIDED);
    assert_string_equal(bench_row_target(r, b, sizeof b), "\u2264 100 KB ?");
    /* The ends of a spread shown with the decimals that keep their side:
     * 4.9987 is below 5, not "5.00". */
    const double edge[] = {4.9987, 5.3};
    r = bench_row_add_trials("edge", 100, "decisions/s", 5.1, edge, 2, BENCH_AT_LEAST, 5);
    assert_string_equal(bench_spread_text(r, b, sizeof b), "4.999\u20135.30");
    /* Without trials: no spread, judged on the figure alone. */
    r = bench_row_add("once", 100, "decisions/s", 5.5, BENCH_AT_LEAST, 5);
    assert_int_equal(r->trials, 0);
    assert_string_equal(bench_spread_text(r, b, sizeof b), "");
    assert_string_equal(bench_ratio_cell(r, true, b, sizeof b), "**5.50**");
    assert_int_equal(bench_row_met(r), BENCH_MET);
}

/* The JSON of those rows: spread {min, max, trials} or null, met null
 * when undecided, verdict naming it; each section's load. */
static void test_json(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    const char *sections[] = {"engine"};
    const double load[] = {1.5, -1};
    assert_int_equal(bench_rows_json(f, sections, load, 1, NULL, "2026-12-07", "cpu", 2, "b"),
                     0);
    fclose(f);
    json_error_t e;
    json_t *doc = json_loads(buf, 0, &e);
    free(buf);
    assert_non_null(doc);
    json_t *l = json_object_get(json_object_get(doc, "load"), "engine");
    assert_true(json_real_value(json_object_get(l, "start")) == 1.5);
    assert_true(json_is_null(json_object_get(l, "end")));
    size_t i;
    json_t *row;
    int seen = 0;
    json_array_foreach(json_object_get(doc, "rows"), i, row)
    {
        const char *name = json_string_value(json_object_get(row, "name"));
        json_t *met = json_object_get(row, "met"), *sp = json_object_get(row, "spread");
        const char *verdict = json_string_value(json_object_get(row, "verdict"));
        if (strcmp(name, "above") == 0) {
            assert_true(json_is_true(met));
            assert_string_equal(verdict, "met");
            assert_true(json_real_value(json_object_get(sp, "min")) == 5.2);
            assert_true(json_real_value(json_object_get(sp, "max")) == 6.1);
            assert_int_equal(json_integer_value(json_object_get(sp, "trials")), 3);
            seen++;
        } else if (strcmp(name, "across") == 0) {
            assert_true(json_is_null(met));
            assert_string_equal(verdict, "undecided");
            seen++;
        } else if (strcmp(name, "below") == 0) {
            assert_true(json_is_false(met));
            assert_string_equal(verdict, "not met");
            seen++;
        } else if (strcmp(name, "once") == 0) {
            assert_true(json_is_null(sp));
            assert_true(json_is_true(met));
            seen++;
        }
    }
    assert_int_equal(seen, 4);
    json_decref(doc);
}

static void test_ratio_text(void **state)
{
    (void)state;
    char b[16];
    bench_row r = row(0.7987, BENCH_AT_LEAST, 0.8);
    assert_string_equal(bench_ratio_text(&r, b, sizeof b), "0.799");
    r = row(0.79999, BENCH_AT_LEAST, 0.8);
    assert_string_equal(bench_ratio_text(&r, b, sizeof b), "0.79999");
    r = row(0.8049, BENCH_AT_LEAST, 0.8);
    assert_string_equal(bench_ratio_text(&r, b, sizeof b), "0.80");
    r = row(0.4213, BENCH_AT_LEAST, 0.8);
    assert_string_equal(bench_ratio_text(&r, b, sizeof b), "0.42");
    /* At most: 1.2049 rounds to the target it misses. */
    r = row(1.2049, BENCH_AT_MOST, 1.2);
    assert_string_equal(bench_ratio_text(&r, b, sizeof b), "1.205");
    r = row(1.1951, BENCH_AT_MOST, 1.2);
    assert_string_equal(bench_ratio_text(&r, b, sizeof b), "1.20");
    /* No target: two decimals whatever they read as; no ratio: "". */
    r = row(0.7987, BENCH_NO_TARGET, 0.8);
    assert_string_equal(bench_ratio_text(&r, b, sizeof b), "0.80");
    r = row(NAN, BENCH_AT_LEAST, 0.8);
    assert_string_equal(bench_ratio_text(&r, b, sizeof b), "");
    assert_string_equal(bench_ratio_text(NULL, b, sizeof b), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_met),
        cmocka_unit_test(test_verdict),
        cmocka_unit_test(test_row_spread),
        cmocka_unit_test(test_json), /* after test_row_spread: its rows */
        cmocka_unit_test(test_ratio_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
