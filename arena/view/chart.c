/* Live Elo over matches as an inline SVG line chart (chart.h). */
#include "view/chart.h"

#include "core/util.h"

#include <math.h>

double chart_nice_step(double span, int n)
{
    double raw = span / n, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

void chart_axis_range(double *lo, double *hi, double *step)
{
    if (!isfinite(*lo)) {
        *lo = 1450;
        *hi = 1550;
    }
    if (*hi - *lo < 40) {
        double mid = (*hi + *lo) / 2;
        *lo = mid - 20;
        *hi = mid + 20;
    }
    *step = chart_nice_step(*hi - *lo, 5);
    *lo = floor(*lo / *step) * *step;
    *hi = ceil(*hi / *step) * *step;
}

/* The chart's size and margins, in SVG units. */
typedef struct frame {
    double W, H, L, R, T, B, pw, ph, nx, lo, hi;
} frame;

static double sx(const frame *g, double x)
{
    return g->L + x / g->nx * g->pw;
}

static double sy(const frame *g, double y)
{
    return g->T + (g->hi - y) / (g->hi - g->lo) * g->ph;
}

/* The grid, the axes' values and titles, and the frame. */
static void axes(FILE *f, const frame *g, double ystep, const chart_axes *ax)
{
    fprintf(f, "<div class=\"chartbox\"><svg class=\"elochart\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
               "role=\"img\" aria-label=\"",
            g->W, g->H, g->W, g->H);
    arena_html(f, ax->label);
    fputs("\">\n", f);
    for (double y = g->lo; y <= g->hi + ystep / 2; y += ystep)
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n",
                g->L, sy(g, y), g->L + g->pw, sy(g, y), g->L - 5, sy(g, y) + 4, y);
    double xstep = fmax(1, chart_nice_step(g->nx, 6));
    for (double x = 0; x <= g->nx + 1e-9; x += xstep)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n",
                sx(g, x), g->T + g->ph + 14, x);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", g->L + g->pw / 2,
            g->H - 4);
    arena_html(f, ax->x_title);
    fprintf(f, "</text>\n<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
               "height=\"%.1f\"/>\n",
            g->L, g->T, g->pw, g->ph);
}

/* Line i: its polyline, its end's dot and its key, as ax says. */
static void line(FILE *f, const frame *g, const chart_line *l, size_t i, const chart_axes *ax)
{
    unsigned c = l->colour % CHART_COLOURS;
    fprintf(f, "<polyline class=\"elo line c%u\" points=\"", c);
    for (size_t k = 0; k < l->n; k++)
        fprintf(f, "%s%.1f,%.1f", k ? " " : "", sx(g, l->x[k]), sy(g, l->y[k]));
    fputs("\"><title>", f);
    arena_html(f, l->name);
    fputs("</title></polyline>\n", f);
    if (ax->ends && l->n > 0) {
        fprintf(f, "<circle class=\"elo end c%u\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>", c,
                sx(g, l->x[l->n - 1]), sy(g, l->y[l->n - 1]));
        arena_html(f, l->name);
        fprintf(f, ": %.0f</title></circle>\n", l->y[l->n - 1]);
    }
    double ly = g->T + 8 + 16.0 * (double)i;
    if (ax->legend && ly < g->H - g->B) {
        fprintf(f, "<rect class=\"c%u\" x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\">",
                c, g->L + g->pw + 12, ly - 8, g->L + g->pw + 27, ly + 1);
        arena_html(f, l->name);
        fputs("</text>\n", f);
    }
}

void chart_elo_lines(FILE *f, const chart_line *lines, size_t n_lines, const chart_axes *ax)
{
    frame g = {.W = 760, .H = 300, .L = 52, .R = ax->legend ? 150 : 20, .T = 12, .B = 34,
               .nx = ax->x_max >= 1 ? ax->x_max : 1, .lo = INFINITY, .hi = -INFINITY};
    g.pw = g.W - g.L - g.R;
    g.ph = g.H - g.T - g.B;
    for (size_t i = 0; i < n_lines; i++)
        for (size_t k = 0; k < lines[i].n; k++) {
            g.lo = fmin(g.lo, lines[i].y[k]);
            g.hi = fmax(g.hi, lines[i].y[k]);
        }
    double ystep;
    chart_axis_range(&g.lo, &g.hi, &ystep);
    axes(f, &g, ystep, ax);
    for (size_t i = 0; i < n_lines; i++)
        line(f, &g, &lines[i], i, ax);
    fputs("</svg></div>\n", f);
}
