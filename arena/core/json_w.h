/* A streaming-style JSON writer over jansson, for the command outputs
 * (`--json`), the replay viewer's data and the reproduction files.
 *
 * Calls describe one JSON value in document order: containers are opened
 * and closed, members and elements added, keys given inside objects and
 * NULL inside arrays or for the top value. The writer builds the value with
 * jansson and prints it, compact, when the top value is complete (the top
 * container closed, or the top scalar added); jw_end then ends the line.
 * Numbers: integers exactly; reals with 10 significant digits (jansson's
 * JSON_REAL_PRECISION), a whole real below 1e15 as an integer (1500, not
 * 1500.0), and null for a NaN or an infinity, which JSON cannot hold. Strings that are not valid UTF-8 are written with '?' for each byte
 * of 0x80 and above, so the output is always valid JSON.
 *
 * Out of memory aborts the process (jw_* have no error path: the callers
 * write what they hold). A value nested deeper than JW_MAX_DEPTH is a
 * programming error (assert). */
#ifndef ARENA_JSON_W_H
#define ARENA_JSON_W_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 32

typedef struct json_w {
    FILE *f;
    int depth;                               /* open containers */
    struct json_t *top;                      /* the top value, owned */
    struct json_t *open[JW_MAX_DEPTH];       /* open containers, borrowed from top */
} json_w;

void jw_init(json_w *w, FILE *f);
void jw_obj(json_w *w, const char *key);   /* key NULL inside arrays or at top */
void jw_obj_end(json_w *w);
void jw_arr(json_w *w, const char *key);
void jw_arr_end(json_w *w);
void jw_str(json_w *w, const char *key, const char *v);   /* v NULL: "" */
void jw_int(json_w *w, const char *key, long long v);
void jw_num(json_w *w, const char *key, double v);
void jw_bool(json_w *w, const char *key, bool v);
void jw_null(json_w *w, const char *key);
/* A score in units of 1/JA_SCORE_UNIT: an integer when whole, else a real. */
void jw_score(json_w *w, const char *key, int64_t units);
void jw_end(json_w *w);                    /* final newline, flush */

#endif /* ARENA_JSON_W_H */
