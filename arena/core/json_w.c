/* JSON writer over jansson (json_w.h). */
#include "core/json_w.h"

#include "jackarena/ja_common.h"
#include "ja_xalloc.h"

#include <assert.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *must(json_t *v)
{
    if (!v) {
        fputs("arena: error: out of memory (JSON output)\n", stderr);
        abort();
    }
    return v;
}

void jw_init(json_w *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
}

/* Prints the top value once it is complete. */
static void flush_top(json_w *w)
{
    if (w->depth == 0 && w->top) {
        json_dumpf(w->top, w->f, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(10));
        json_decref(w->top);
        w->top = NULL;
    }
}

/* Adds v (a new reference) under key to the open container, or as the top
 * value. */
static void add(json_w *w, const char *key, json_t *v)
{
    must(v);
    if (w->depth == 0) {
        assert(!w->top);
        w->top = v;
        return;
    }
    json_t *c = w->open[w->depth - 1];
    int rc = json_is_object(c) ? json_object_set_new(c, key ? key : "", v) : json_array_append_new(c, v);
    if (rc != 0)
        must(NULL);
}

static void open_container(json_w *w, const char *key, json_t *c)
{
    assert(w->depth < JW_MAX_DEPTH);
    add(w, key, c);
    w->open[w->depth++] = c;
}

static void close_container(json_w *w)
{
    assert(w->depth > 0);
    w->depth--;
    flush_top(w);
}

void jw_obj(json_w *w, const char *key) { open_container(w, key, json_object()); }
void jw_obj_end(json_w *w) { close_container(w); }
void jw_arr(json_w *w, const char *key) { open_container(w, key, json_array()); }
void jw_arr_end(json_w *w) { close_container(w); }

/* A JSON string of v, which need not be valid UTF-8 (json_w.h). */
static json_t *string_of(const char *v)
{
    json_t *s = json_string(v);
    if (s)
        return s;
    size_t n = strlen(v);
    char *c = ja_xmalloc(n + 1);
    for (size_t i = 0; i <= n; i++)
        c[i] = (unsigned char)v[i] >= 0x80 ? '?' : v[i];
    s = json_string(c);
    free(c);
    return s;
}

/* Adds a scalar and prints it if it is the top value. */
static void scalar(json_w *w, const char *key, json_t *v)
{
    add(w, key, v);
    flush_top(w);
}

void jw_str(json_w *w, const char *key, const char *v) { scalar(w, key, string_of(v ? v : "")); }
void jw_int(json_w *w, const char *key, long long v) { scalar(w, key, json_integer(v)); }
void jw_bool(json_w *w, const char *key, bool v) { scalar(w, key, json_boolean(v)); }
void jw_null(json_w *w, const char *key) { scalar(w, key, json_null()); }

void jw_num(json_w *w, const char *key, double v)
{
    if (!isfinite(v))
        scalar(w, key, json_null());
    else if (v == trunc(v) && fabs(v) < 1e15)
        scalar(w, key, json_integer((json_int_t)v)); /* 1500, not 1500.0 */
    else
        scalar(w, key, json_real(v));
}

void jw_score(json_w *w, const char *key, int64_t units)
{
    if (units % JA_SCORE_UNIT == 0)
        jw_int(w, key, (long long)(units / JA_SCORE_UNIT));
    else
        jw_num(w, key, (double)units / JA_SCORE_UNIT);
}

void jw_end(json_w *w)
{
    assert(w->depth == 0);
    flush_top(w);
    fputc('\n', w->f);
    fflush(w->f);
}
