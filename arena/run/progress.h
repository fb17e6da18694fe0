/* Progress of a long run on stderr: a bar with matches done, rate and time
 * left on a terminal; otherwise one line per tenth of the run. */
#ifndef ARENA_PROGRESS_H
#define ARENA_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct progress {
    uint32_t total, start_done, last_line, last_done;
    double t0, last_draw;
    bool tty, quiet;
} progress;

void progress_begin(progress *p, uint32_t total, uint32_t done, bool quiet);
void progress_update(progress *p, uint32_t done);
void progress_end(progress *p, uint32_t done);

/* A line of news on stderr (unless quiet), above the bar on a terminal:
 * the bar is cleared and drawn again at the next update. */
void progress_note(progress *p, const char *line);

#endif /* ARENA_PROGRESS_H */
