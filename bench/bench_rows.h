/* The rows of a benchmark run (bench_rows.c): every figure a section
 * measures, with the ratio it is judged by and its target, printed as text
 * when recorded and as one JSON object at the end (`ja_bench --json`). */
#ifndef JA_BENCH_ROWS_H
#define JA_BENCH_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum bench_cmp {
    BENCH_NO_TARGET = 0,
    BENCH_AT_LEAST,   /* met when the judged figure >= target */
    BENCH_AT_MOST     /* met when the judged figure <= target */
} bench_cmp;

/* One row. The target judges the ratio when the row has one (a figure over
 * the limit it is measured against in the same run), else the value. */
typedef struct bench_row {
    char section[16];
    char name[112];
    double value;  /* NAN: not measured */
    char unit[24];
    double ratio;  /* NAN: none */
    bench_cmp cmp;
    double target;
} bench_row;

/* The section the following rows belong to. */
void bench_rows_section(const char *section);

/* Whether rows are printed on stdout as they are recorded (the text
 * output; off for --json, whose stdout is the JSON object alone). */
void bench_rows_print(bool on);

/* Records a row of the current section (ratio NAN for none; cmp
 * BENCH_NO_TARGET and any target for none) and prints it when printing is
 * on. The row stays valid until the program ends; NULL past 512 rows. */
const bench_row *bench_row_add(const char *name, double value, const char *unit, double ratio,
                               bench_cmp cmp, double target);

/* 1 when r's target is met, 0 when it is not (a figure not measured does
 * not meet it), -1 when r has no target. */
int bench_row_met(const bench_row *r);

/* The target and its verdict as the tables show them ("≥ 0.8 ✗", "≤ 100 KB
 * ✓"; "" for no target or a NULL row) into buf; returns buf. */
const char *bench_row_target(const bench_row *r, char *buf, size_t cap);

/* r's ratio as the tables show it: two decimals, or as many more (up to
 * six) as it takes for the text not to read as the other verdict of r's
 * target ("0.799" for 0.7987 against at least 0.8); "" for no ratio.
 * Returns buf. */
const char *bench_ratio_text(const bench_row *r, char *buf, size_t cap);

/* Writes {"arena", "date", "cpu", "cores", "build", "sections", "out",
 * "rows": [{"section", "name", "value", "unit", "ratio", "target", "met"}]}
 * on one line to f (docs/performance.md describes the fields); out is the
 * file written or NULL. Returns 0, or -1 when the JSON cannot be built. */
int bench_rows_json(FILE *f, const char *const *sections, size_t n_sections, const char *out,
                    const char *date, const char *cpu, long cores, const char *build);

#endif /* JA_BENCH_ROWS_H */
