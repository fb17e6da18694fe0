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

/* A verdict (bench_verdict, bench_row_met): the target met, not met, or
 * undecided (the trials fall on both sides of it); no target. */
#define BENCH_NO_VERDICT (-1)
#define BENCH_NOT_MET 0
#define BENCH_MET 1
#define BENCH_UNDECIDED 2

/* One row. The target judges the ratio when the row has one (a figure over
 * the limit it is measured against in the same run), else the value. The
 * spread is the lowest and highest of the judged figure's trials (each
 * trial's figure over the baseline measured beside it), NAN with trials 0
 * for a figure measured once. */
typedef struct bench_row {
    char section[16];
    char name[112];
    double value;  /* NAN: not measured */
    char unit[24];
    double ratio;  /* NAN: none */
    double lo, hi; /* the trials' spread, NAN: none */
    unsigned trials;
    bench_cmp cmp;
    double target;
} bench_row;

/* The verdict of a target (cmp, target) on figures from lo to hi (lo ==
 * hi for one figure): BENCH_MET when all of them meet it, BENCH_NOT_MET
 * when none does (a NAN bound: not measured, not met), BENCH_UNDECIDED
 * when they fall on both sides; BENCH_NO_VERDICT for BENCH_NO_TARGET. */
int bench_verdict(bench_cmp cmp, double target, double lo, double hi);

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

/* bench_row_add for a figure of several trials: trial[0..n) are each
 * trial's judged figure (its ratio to the baseline measured beside it, or
 * its value for a row without a ratio), whose lowest and highest are the
 * row's spread (none for n 0). */
const bench_row *bench_row_add_trials(const char *name, double value, const char *unit,
                                      double ratio, const double *trial, size_t n,
                                      bench_cmp cmp, double target);

/* r's verdict (bench_verdict) on its judged figure and its spread, both:
 * BENCH_MET, BENCH_NOT_MET (a figure not measured does not meet it),
 * BENCH_UNDECIDED, or BENCH_NO_VERDICT when r has no target or is NULL. */
int bench_row_met(const bench_row *r);

/* The target and its verdict as the tables show them ("≥ 0.8 ✓" met, "≥ 0.8
 * ✗" not met, "≥ 0.8 ?" undecided, "≤ 100 KB ✓"; "" for no target or a NULL
 * row) into buf; returns buf. */
const char *bench_row_target(const bench_row *r, char *buf, size_t cap);

/* r's ratio as the tables show it: two decimals, or as many more (up to
 * six) as it takes for the text not to read as the other verdict of r's
 * target ("0.799" for 0.7987 against at least 0.8); "" for no ratio.
 * Returns buf. */
const char *bench_ratio_text(const bench_row *r, char *buf, size_t cap);

/* r's spread as the tables show it, "0.74–0.91" (each end with as many
 * decimals as bench_ratio_text gives it), "" when r has none. Returns buf. */
const char *bench_spread_text(const bench_row *r, char *buf, size_t cap);

/* r's ratio and its spread in one cell: "**0.85** (0.81–0.88)", the ratio
 * bold when bold; "" for no ratio. Returns buf. */
const char *bench_ratio_cell(const bench_row *r, bool bold, char *buf, size_t cap);

/* Writes {"arena", "date", "cpu", "cores", "build", "sections", "load",
 * "out", "rows": [{"section", "name", "value", "unit", "ratio", "spread",
 * "target", "met", "verdict"}]} on one line to f (docs/performance.md
 * describes the fields); load[2 * i], load[2 * i + 1] are the load
 * averages at the start and end of sections[i] (negative: unknown); out is
 * the file written or NULL. Returns 0, or -1 when the JSON cannot be
 * built. */
int bench_rows_json(FILE *f, const char *const *sections, const double *load, size_t n_sections,
                    const char *out, const char *date, const char *cpu, long cores,
                    const char *build);

#endif /* JA_BENCH_ROWS_H */
