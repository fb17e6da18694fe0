/* Unit tests of the benchmark's rows (bench/bench_rows.c): a target's
 * verdict, and a ratio shown so that it never reads as the other verdict
 * (0.7987 against "at least 0.8" is shown 0.799, not 0.80). Values only: no
 * timing is measured here. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

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
        cmocka_unit_test(test_ratio_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
