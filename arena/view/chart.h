/* Live Elo over matches as an inline SVG line chart: no script and no
 * inline style (the pages' policy allows neither), drawn with site.css's
 * classes. The report's pages (report_site.c) and the server's bot page
 * (serve_http.c) draw theirs with it. */
#ifndef ARENA_VIEW_CHART_H
#define ARENA_VIEW_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The colours of site.css: classes c0 to c9, in turn. */
#define CHART_COLOURS 10u

/* One line: its points in order, its name (the line's title, and its key
 * in a legend). */
typedef struct chart_line {
    const char *name;
    unsigned colour; /* the class c(colour % CHART_COLOURS) */
    const double *x, *y;
    size_t n;
} chart_line;

/* The chart's frame. */
typedef struct chart_axes {
    double x_max;        /* the x axis runs from 0 to x_max (1 when below) */
    const char *x_title; /* under the x axis */
    const char *label;   /* the chart's aria-label */
    bool legend;         /* each line's key at the right */
    bool ends;           /* a dot at each line's last point, titled with its value */
} chart_axes;

/* Writes the chart of the lines, y being Elo: grid lines at round values
 * over the points' range (at least 40 wide), x ticks, the frame, then one
 * `<polyline class="elo line cN">` per line with its name as title (its
 * points "x,y" in SVG units, one per point), with ax->legend and ax->ends
 * as they say. Names and titles are escaped. The chart is in a
 * `<div class="chartbox">`: on a narrow screen it keeps a readable size
 * and scrolls in that box (site.css). */
void chart_elo_lines(FILE *f, const chart_line *lines, size_t n_lines, const chart_axes *ax);

/* A step for about n ticks over span: 1, 2 or 5 times a power of ten. */
double chart_nice_step(double span, int n);

/* [*lo, *hi] widened to at least 40 (1450 to 1550 when empty: lo not
 * finite) and rounded out to the step *step. */
void chart_axis_range(double *lo, double *hi, double *step);

#endif /* ARENA_VIEW_CHART_H */
