/* A bot's parameters (ja_params.h). */
#include "jackarena/ja_params.h"
#include "jackarena/ja_error.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How much of a bad value an error message quotes. */
#define QUOTE_MAX 64

static int fail(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t cap, const char *fmt, ...)
{
    if (err && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return JA_EINVAL;
}

int ja_params_next(const char *params, size_t *pos, ja_param *out, char *err, size_t cap)
{
    const char *text = params ? params : "";
    size_t at = *pos;
    if (!text[at])
        return 0;
    /* A ':' right after the previous item means that one was followed by
     * another: step over it (a ':' at the very start is an empty item). */
    if (at > 0 && text[at] == ':')
        at++;
    size_t len = strcspn(text + at, ":");
    if (len == 0)
        return fail(err, cap, "an empty parameter (a ':' at an end or twice in a row)");
    const char *item = text + at;
    const char *eq = memchr(item, '=', len);
    size_t klen = eq ? (size_t)(eq - item) : len;
    if (klen == 0)
        return fail(err, cap, "parameter '%.*s' has no name before its '='",
                    (int)(len < QUOTE_MAX ? len : QUOTE_MAX), item);
    *out = (ja_param){item, klen, eq ? eq + 1 : NULL, eq ? len - klen - 1 : 0};
    *pos = at + len;
    return 1;
}

static bool key_is(const ja_param *p, const char *key)
{
    return strlen(key) == p->key_len && memcmp(p->key, key, p->key_len) == 0;
}

static int quote_len(size_t n)
{
    return (int)(n < QUOTE_MAX ? n : QUOTE_MAX);
}

static int no_value(const ja_param *p, char *err, size_t cap)
{
    return fail(err, cap, "parameter '%.*s' needs a value (%.*s=VALUE)", quote_len(p->key_len),
                p->key, quote_len(p->key_len), p->key);
}

/* Writes words (a NULL-terminated list) as "a, b, c" into list. */
static void join(const char *const *words, char *list, size_t cap)
{
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; words && words[i] && used < cap; i++)
        used += (size_t)snprintf(list + used, cap - used, "%s%s", i ? ", " : "", words[i]);
}

/* True if an item before p (a well-formed prefix of params) has p's key. */
static bool given_before(const char *params, const ja_param *p)
{
    size_t pos = 0;
    ja_param q;
    while (ja_params_next(params, &pos, &q, NULL, 0) == 1 && q.key < p->key)
        if (q.key_len == p->key_len && memcmp(q.key, p->key, p->key_len) == 0)
            return true;
    return false;
}

int ja_params_check_keys(const char *params, const char *const *known, char *err, size_t cap)
{
    size_t pos = 0;
    ja_param p;
    int r;
    while ((r = ja_params_next(params, &pos, &p, err, cap)) == 1) {
        bool ok = false;
        for (size_t i = 0; known && known[i] && !ok; i++)
            ok = key_is(&p, known[i]);
        if (!ok && (!known || !known[0]))
            return fail(err, cap, "unknown parameter '%.*s' (this bot takes no parameters)",
                        quote_len(p.key_len), p.key);
        if (!ok) {
            char list[512];
            join(known, list, sizeof list);
            return fail(err, cap, "unknown parameter '%.*s' (known: %s)", quote_len(p.key_len),
                        p.key, list);
        }
        if (!p.value)
            return no_value(&p, err, cap);
        if (given_before(params, &p))
            return fail(err, cap, "parameter '%.*s' is given twice", quote_len(p.key_len),
                        p.key);
    }
    return r;
}

/* The first item with key: 1 with *out, 0 when absent, JA_EINVAL (err) for
 * a malformed text. */
static int find(const char *params, const char *key, ja_param *out, char *err, size_t cap)
{
    size_t pos = 0;
    int r;
    while ((r = ja_params_next(params, &pos, out, err, cap)) == 1)
        if (key_is(out, key))
            return 1;
    return r;
}

/* The value of an item that must have one, NUL-terminated into buf. */
static int value_of(const ja_param *p, char *buf, size_t cap, char *err, size_t ecap)
{
    if (!p->value)
        return no_value(p, err, ecap);
    if (p->value_len >= cap)
        return fail(err, ecap, "parameter '%.*s': its value is longer than %zu bytes",
                    quote_len(p->key_len), p->key, cap ? cap - 1 : 0);
    memcpy(buf, p->value, p->value_len);
    buf[p->value_len] = '\0';
    return JA_OK;
}

int ja_params_get(const char *params, const char *key, char *buf, size_t cap, char *err,
                  size_t ecap)
{
    ja_param p;
    if (cap)
        buf[0] = '\0';
    int r = find(params, key, &p, err, ecap);
    if (r != 1)
        return r;
    r = value_of(&p, buf, cap, err, ecap);
    return r == JA_OK ? 1 : r;
}

int ja_params_int(const char *params, const char *key, int64_t lo, int64_t hi, int64_t def,
                  int64_t *out, char *err, size_t cap)
{
    char v[JA_PARAMS_MAX];
    int r = ja_params_get(params, key, v, sizeof v, err, cap);
    if (r <= 0) { /* absent (JA_OK: the default) or malformed */
        if (r == 0)
            *out = def;
        return r;
    }
    const char *digits = v + (v[0] == '-');
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (!*digits || strspn(digits, "0123456789") != strlen(digits) || errno || *end || x < lo ||
        x > hi)
        return fail(err, cap, "parameter '%s' must be an integer from %lld to %lld, not '%.*s'",
                    key, (long long)lo, (long long)hi, QUOTE_MAX, v);
    *out = x;
    return JA_OK;
}

int ja_params_double(const char *params, const char *key, double lo, double hi, double def,
                     double *out, char *err, size_t cap)
{
    char v[JA_PARAMS_MAX];
    int r = ja_params_get(params, key, v, sizeof v, err, cap);
    if (r <= 0) { /* absent (JA_OK: the default) or malformed */
        if (r == 0)
            *out = def;
        return r;
    }
    /* Decimal notation only: strtod would also take "inf", "nan", hex and
     * leading blanks. */
    char *end = v;
    double x = v[0] && strspn(v, "0123456789.eE+-") == strlen(v) ? strtod(v, &end) : NAN;
    if (!isfinite(x) || *end || x < lo || x > hi)
        return fail(err, cap, "parameter '%s' must be a number from %.10g to %.10g, not '%.*s'",
                    key, lo, hi, QUOTE_MAX, v);
    *out = x;
    return JA_OK;
}

int ja_params_word(const char *params, const char *key, const char *const *words, int def,
                   int *out, char *err, size_t cap)
{
    char v[JA_PARAMS_MAX];
    int r = ja_params_get(params, key, v, sizeof v, err, cap);
    if (r <= 0) { /* absent (JA_OK: the default) or malformed */
        if (r == 0)
            *out = def;
        return r;
    }
    for (int i = 0; words && words[i]; i++)
        if (strcmp(words[i], v) == 0) {
            *out = i;
            return JA_OK;
        }
    char list[512];
    join(words, list, sizeof list);
    return fail(err, cap, "parameter '%s' must be one of %s, not '%.*s'", key, list, QUOTE_MAX, v);
}
