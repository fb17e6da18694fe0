/* Progress display (progress.h). */
#include "run/progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_begin(progress *p, uint32_t total, uint32_t done, bool quiet)
{
    p->total = total;
    p->start_done = done;
    p->last_line = done;
    p->last_done = done;
    p->t0 = now();
    p->last_draw = 0;
    p->tty = isatty(STDERR_FILENO) && !quiet;
    p->quiet = quiet;
}

static void fmt_time(double s, char *buf, size_t cap)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, cap, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, cap, "%ld:%02ld", t / 60, t % 60);
}

void progress_update(progress *p, uint32_t done)
{
    p->last_done = done;
    if (p->quiet || !p->total)
        return;
    double t = now(), el = t - p->t0;
    double rate = el > 0 ? (double)(done - p->start_done) / el : 0;
    char left[32] = "?";
    if (rate > 0)
        fmt_time((double)(p->total - done) / rate, left, sizeof left);
    if (p->tty) {
        if (t - p->last_draw < 0.1 && done < p->total)
            return;
        p->last_draw = t;
        int width = 30, fill = (int)((double)done / p->total * width);
        char bar[64];
        for (int i = 0; i < width; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[width] = '\0';
        fprintf(stderr, "\r[%s] %u/%u matches  %.1f/s  %s left ", bar, done, p->total, rate, left);
        fflush(stderr);
    } else {
        uint32_t step = p->total / 10 ? p->total / 10 : 1;
        if (done - p->last_line >= step || done == p->total) {
            p->last_line = done;
            fprintf(stderr, "%u/%u matches, %.1f/s, %s left\n", done, p->total, rate, left);
        }
    }
}

void progress_end(progress *p, uint32_t done)
{
    if (p->tty) {
        p->last_draw = 0;
        progress_update(p, done);
        fputc('\n', stderr);
    }
}

void progress_note(progress *p, const char *line)
{
    if (p->quiet)
        return;
    if (p->tty) {
        fputs("\r\033[K", stderr);
        p->last_draw = 0;
    }
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}
