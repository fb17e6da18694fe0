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

int bench_row_met(const bench_row *r)
{
    if (!r || r->cmp == BENCH_NO_TARGET)
        return -1;
    double v = judged(r);
    if (isnan(v))
        return 0;
    return r->cmp == BENCH_AT_LEAST ? v >= r->target : v <= r->target;
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
    char t[64];
    int met = bench_row_met(r);
    if (met < 0)
        snprintf(buf, cap, "%s", "");
    else
        snprintf(buf, cap, "%s %s", target_text(r, t, sizeof t), met ? "\u2713" : "\u2717");
    return buf;
}

const char *bench_ratio_text(const bench_row *r, char *buf, size_t cap)
{
    if (!r || isnan(r->ratio)) {
        snprintf(buf, cap, "%s", "");
        return buf;
    }
    /* Two decimals, more when two would read as the other verdict (0.7987
     * is "0.799", not "0.80", against "at least 0.8"). */
    int met = r->cmp == BENCH_NO_TARGET ? -1 : bench_row_met(r);
    for (int digits = 2;; digits++) {
        snprintf(buf, cap, "%.*f", digits, r->ratio);
        if (met < 0 || digits == 6)
            return buf;
        double shown = strtod(buf, NULL);
        bool shown_met = r->cmp == BENCH_AT_LEAST ? shown >= r->target : shown <= r->target;
        if (shown_met == (met == 1))
            return buf;
    }
}

const bench_row *bench_row_add(const char *name, double value, const char *unit, double ratio,
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
    if (g_print) {
        char t[96];
        double a = fabs(r->value);
        printf("%-9s %s: %.*f %s", r->section, r->name, a >= 1000 ? 0 : a >= 1 ? 2 : 4,
               r->value, r->unit);
        if (!isnan(r->ratio))
            printf(", ratio %s", bench_ratio_text(r, t, sizeof t));
        if (cmp != BENCH_NO_TARGET)
            printf(", target %s", bench_row_target(r, t, sizeof t));
        printf("\n");
        fflush(stdout);
    }
    return r;
}

/* A real, or null for a figure not measured (JSON has no NaN). */
static json_t *real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *row_json(const bench_row *r)
{
    char t[64];
    int met = bench_row_met(r);
    json_t *target = json_null();
    if (r->cmp != BENCH_NO_TARGET)
        target = json_pack("{s:s, s:f, s:s, s:s}", "op", r->cmp == BENCH_AT_LEAST ? ">=" : "<=",
                           "value", r->target, "of", isnan(r->ratio) ? "value" : "ratio",
                           "text", target_text(r, t, sizeof t));
    return json_pack("{s:s, s:s, s:o, s:s, s:o, s:o, s:o}", "section", r->section, "name",
                     r->name, "value", real_or_null(r->value), "unit", r->unit, "ratio",
                     real_or_null(r->ratio), "target", target, "met",
                     met < 0 ? json_null() : json_boolean(met));
}

int bench_rows_json(FILE *f, const char *const *sections, size_t n_sections, const char *out,
                    const char *date, const char *cpu, long cores, const char *build)
{
    json_t *secs = json_array(), *rows = json_array();
    for (size_t i = 0; i < n_sections; i++)
        json_array_append_new(secs, json_string(sections[i]));
    for (size_t i = 0; i < g_n; i++)
        json_array_append_new(rows, row_json(&g_rows[i]));
    json_t *top = json_pack("{s:s, s:s, s:s, s:I, s:s, s:o, s:o, s:o}", "arena", ja_version(),
                            "date", date, "cpu", cpu, "cores", (json_int_t)cores, "build", build,
                            "sections", secs, "out", out ? json_string(out) : json_null(), "rows",
                            rows);
    if (!top)
        return -1;
    int rc = json_dumpf(top, f, JSON_COMPACT | JSON_REAL_PRECISION(10));
    fputc('\n', f);
    json_decref(top);
    return rc == 0 ? 0 : -1;
}
