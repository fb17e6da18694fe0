/* The rows of a benchmark run (bench_rows.h), written as JSON with jansson. */
#include "bench_rows.h"

#include "jackarena/ja_version.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_ROWS 512

static bench_row g_rows[BENCH_MAX_ROWS];
static size_t g_n;
static char g_section[16];
static bool g_print = true;

void bench_rows_section(const char *section)
{
    snprintf(g_section, sizeof g_section, "%s", section);
}

void bench_rows_print(bool on)
{
    g_print = on;
}

/* The figure the target judges. */
static double judged(const bench_row *r)
{
    return isnan(r->ratio) ? r->value : r->ratio;
}

int bench_verdict(bench_cmp cmp, double target, double lo, double hi)
{
    if (cmp == BENCH_NO_TARGET)
        return BENCH_NO_VERDICT;
    if (isnan(lo) || isnan(hi))
        return BENCH_NOT_MET;
    if (lo > hi) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    if (cmp == BENCH_AT_LEAST)
        return lo >= target ? BENCH_MET : hi < target ? BENCH_NOT_MET : BENCH_UNDECIDED;
    return hi <= target ? BENCH_MET : lo > target ? BENCH_NOT_MET : BENCH_UNDECIDED;
}

int bench_row_met(const bench_row *r)
{
    if (!r || r->cmp == BENCH_NO_TARGET)
        return BENCH_NO_VERDICT;
    double v = judged(r), lo = v, hi = v;
    if (!isnan(v) && r->trials > 0 && !isnan(r->lo) && !isnan(r->hi)) {
        lo = fmin(lo, r->lo);
        hi = fmax(hi, r->hi);
    }
    return bench_verdict(r->cmp, r->target, lo, hi);
}

/* "≥ 0.8" or "≤ 100 KB" (the unit when the value is judged). */
static const char *target_text(const bench_row *r, char *buf, size_t cap)
{
    if (!r || r->cmp == BENCH_NO_TARGET) {
        snprintf(buf, cap, "%s", "");
        return buf;
    }
    bool on_value = isnan(r->ratio);
    snprintf(buf, cap, "%s %g%s%s", r->cmp == BENCH_AT_LEAST ? "\u2265" : "\u2264", r->target,
             on_value ? " " : "", on_value ? r->unit : "");
    return buf;
}

const char *bench_row_target(const bench_row *r, char *buf, size_t cap)
{
    static const char *const mark[] = {"\u2717", "\u2713", "?"};
    char t[64];
    int met = bench_row_met(r);
    if (met < 0)
        snprintf(buf, cap, "%s", "");
    else
        snprintf(buf, cap, "%s %s", target_text(r, t, sizeof t), mark[met]);
    return buf;
}

/* x with two decimals, more (up to six) when two would put it on the other
 * side of r's target (0.7987 is "0.799", not "0.80", against "at least
 * 0.8"); two whatever they read as when r has no target. */
static const char *number_text(const bench_row *r, double x, char *buf, size_t cap)
{
    int side = bench_verdict(r->cmp, r->target, x, x);
    for (int digits = 2;; digits++) {
        snprintf(buf, cap, "%.*f", digits, x);
        if (side < 0 || digits == 6 || isnan(x))
            return buf;
        if (bench_verdict(r->cmp, r->target, strtod(buf, NULL), strtod(buf, NULL)) == side)
            return buf;
    }
}

const char *bench_ratio_text(const bench_row *r, char *buf, size_t cap)
{
    if (!r || isnan(r->ratio)) {
        snprintf(buf, cap, "%s", "");
        return buf;
    }
    return number_text(r, r->ratio, buf, cap);
}

const char *bench_spread_text(const bench_row *r, char *buf, size_t cap)
{
    char lo[32], hi[32];
    if (!r || r->trials == 0 || isnan(r->lo) || isnan(r->hi))
        snprintf(buf, cap, "%s", "");
    else
        snprintf(buf, cap, "%s\u2013%s", number_text(r, r->lo, lo, sizeof lo),
                 number_text(r, r->hi, hi, sizeof hi));
    return buf;
}

const char *bench_ratio_cell(const bench_row *r, bool bold, char *buf, size_t cap)
{
    char ratio[32], spread[80];
    if (!r || isnan(r->ratio)) {
        snprintf(buf, cap, "%s", "");
        return buf;
    }
    bench_spread_text(r, spread, sizeof spread);
    snprintf(buf, cap, "%s%s%s%s%s%s", bold ? "**" : "", bench_ratio_text(r, ratio, sizeof ratio),
             bold ? "**" : "", spread[0] ? " (" : "", spread, spread[0] ? ")" : "");
    return buf;
}

static void print_row(const bench_row *r)
{
    char t[96];
    double a = fabs(r->value);
    printf("%-9s %s: %.*f %s", r->section, r->name, a >= 1000 ? 0 : a >= 1 ? 2 : 4, r->value,
           r->unit);
    if (!isnan(r->ratio))
        printf(", ratio %s", bench_ratio_text(r, t, sizeof t));
    if (bench_spread_text(r, t, sizeof t)[0])
        printf(" (%u trials %s)", r->trials, t);
    if (r->cmp != BENCH_NO_TARGET)
        printf(", target %s", bench_row_target(r, t, sizeof t));
    printf("\n");
    fflush(stdout);
}

const bench_row *bench_row_add_trials(const char *name, double value, const char *unit,
                                      double ratio, const double *trial, size_t n,
                                      bench_cmp cmp, double target)
{
    if (g_n == BENCH_MAX_ROWS)
        return NULL;
    bench_row *r = &g_rows[g_n++];
    snprintf(r->section, sizeof r->section, "%s", g_section);
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    r->value = value;
    r->ratio = ratio;
    r->cmp = cmp;
    r->target = target;
    r->lo = r->hi = NAN;
    r->trials = (unsigned)n;
    for (size_t i = 0; i < n; i++) {
        /* A trial not measured (NAN) spreads the row over everything. */
        r->lo = i == 0 || isnan(trial[i]) ? trial[i] : fmin(r->lo, trial[i]);
        r->hi = i == 0 || isnan(trial[i]) ? trial[i] : fmax(r->hi, trial[i]);
        if (isnan(trial[i]))
            break;
    }
    if (g_print)
        print_row(r);
    return r;
}

const bench_row *bench_row_add(const char *name, double value, const char *unit, double ratio,
                               bench_cmp cmp, double target)
{
    return bench_row_add_trials(name, value, unit, ratio, NULL, 0, cmp, target);
}

/* A real, or null for a figure not measured (JSON has no NaN). */
static json_t *real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* {"min", "max", "trials"} of r's spread, or null. */
static json_t *spread_json(const bench_row *r)
{
    if (r->trials == 0)
        return json_null();
    return json_pack("{s:o, s:o, s:I}", "min", real_or_null(r->lo), "max", real_or_null(r->hi),
                     "trials", (json_int_t)r->trials);
}

static json_t *row_json(const bench_row *r)
{
    static const char *const verdict[] = {"not met", "met", "undecided"};
    char t[64];
    int met = bench_row_met(r);
    json_t *target = json_null();
    if (r->cmp != BENCH_NO_TARGET)
        target = json_pack("{s:s, s:f, s:s, s:s}", "op", r->cmp == BENCH_AT_LEAST ? ">=" : "<=",
                           "value", r->target, "of", isnan(r->ratio) ? "value" : "ratio",
                           "text", target_text(r, t, sizeof t));
    return json_pack("{s:s, s:s, s:o, s:s, s:o, s:o, s:o, s:o, s:o}", "section", r->section,
                     "name", r->name, "value", real_or_null(r->value), "unit", r->unit, "ratio",
                     real_or_null(r->ratio), "spread", spread_json(r), "target", target, "met",
                     met == BENCH_MET || met == BENCH_NOT_MET ? json_boolean(met == BENCH_MET)
                                                              : json_null(),
                     "verdict", met < 0 ? json_null() : json_string(verdict[met]));
}

int bench_rows_json(FILE *f, const char *const *sections, const double *load, size_t n_sections,
                    const char *out, const char *date, const char *cpu, long cores,
                    const char *build)
{
    json_t *secs = json_array(), *rows = json_array(), *loads = json_object();
    for (size_t i = 0; i < n_sections; i++) {
        json_array_append_new(secs, json_string(sections[i]));
        double a = load[2 * i], b = load[2 * i + 1];
        json_object_set_new(loads, sections[i],
                            json_pack("{s:o, s:o}", "start", a < 0 ? json_null() : json_real(a),
                                      "end", b < 0 ? json_null() : json_real(b)));
    }
    for (size_t i = 0; i < g_n; i++)
        json_array_append_new(rows, row_json(&g_rows[i]));
    json_t *top = json_pack("{s:s, s:s, s:s, s:I, s:s, s:o, s:o, s:o, s:o}", "arena",
                            ja_version(), "date", date, "cpu", cpu, "cores", (json_int_t)cores,
                            "build", build, "sections", secs, "load", loads, "out",
                            out ? json_string(out) : json_null(), "rows", rows);
    if (!top)
        return -1;
    int rc = json_dumpf(top, f, JSON_COMPACT | JSON_REAL_PRECISION(10));
    fputc('\n', f);
    json_decref(top);
    return rc == 0 ? 0 : -1;
}
