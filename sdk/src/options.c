/* Generic option handling over a game's option specs (ja_rules.h), the
 * reading of a spec's default that the rules engines share
 * (options_internal.h), and the outcome ranking helper. */
#include "jackarena/ja_rules.h"
#include "jackarena/ja_error.h"
#include "options_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ja_outcome_rank(ja_outcome *out)
{
    for (uint32_t i = 0; i < out->n_seats; i++) {
        uint8_t better = 0;
        for (uint32_t j = 0; j < out->n_seats; j++)
            if (out->score[j] > out->score[i])
                better++;
        out->place[i] = (uint8_t)(better + 1);
    }
}

static uint32_t count_options(const ja_game_rules *g)
{
    uint32_t n = 0;
    while (g->options && g->options[n].name)
        n++;
    return n;
}

void ja_options_init(const ja_game_rules *g, ja_options *o)
{
    memset(o, 0, sizeof *o);
    o->n = count_options(g);
}

int ja_options_index(const ja_game_rules *g, const char *name)
{
    for (int i = 0; g->options && g->options[i].name; i++)
        if (strcmp(g->options[i].name, name) == 0)
            return i;
    return -1;
}

/* Index of word (length n) in a '|'-separated list, or -1. */
static int enum_index(const char *values, const char *word, size_t n)
{
    int i = 0;
    const char *p = values;
    for (;;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, word, n) == 0)
            return i;
        if (!bar)
            return -1;
        p = bar + 1;
        i++;
    }
}

int ja_option_default(const ja_option_spec *sp, uint32_t n_seats, int32_t *v)
{
    *v = 0;
    if (!sp->def)
        return -1;
    if (sp->kind == JA_OPT_ENUM) {
        int i = sp->values ? enum_index(sp->values, sp->def, strlen(sp->def)) : -1;
        if (i < 0)
            return -1;
        *v = i;
        return 0;
    }
    const char *p = sp->def;
    long k = 1;
    if (*p != 'N') {
        char *end;
        k = strtol(p, &end, 10);
        if (end == p)
            return -1;
        if (!*end) {
            *v = (int32_t)k;
            return 0;
        }
        if (*end != '*')
            return -1;
        p = end + 1;
    }
    if (p[0] != 'N' || p[1])
        return -1;
    *v = (int32_t)(k * (long)n_seats);
    return 1;
}

/* The i-th word of a '|'-separated list into buf. */
/* Word i of values ("a|b|c") and its length in *len, or "?" when there is
 * no such word. */
static const char *enum_word_at(const char *values, int i, size_t *len)
{
    const char *p = values;
    while (i-- > 0) {
        p = strchr(p, '|');
        if (!p) {
            *len = 1;
            return "?";
        }
        p++;
    }
    const char *bar = strchr(p, '|');
    *len = bar ? (size_t)(bar - p) : strlen(p);
    return p;
}

static int enum_word(const char *values, int i, char *buf, size_t cap)
{
    size_t len;
    const char *w = enum_word_at(values, i, &len);
    return snprintf(buf, cap, "%.*s", (int)len, w);
}

static void list_names(const ja_game_rules *g, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; g->options && g->options[i].name && used < cap; i++) {
        int w = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", g->options[i].name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static void allowed_values(const ja_option_spec *sp, char *buf, size_t cap)
{
    if (sp->kind == JA_OPT_INT) {
        snprintf(buf, cap, "an integer from %d to %d", (int)sp->min, (int)sp->max);
        return;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (const char *p = sp->values; *p && used + 2 < cap; p++)
        used += (size_t)snprintf(buf + used, cap - used, *p == '|' ? ", " : "%c", *p);
}

int ja_options_set(const ja_game_rules *g, ja_options *o, const char *kv, char *err, size_t cap)
{
    char tmp[256];
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
        snprintf(err, cap, "option '%s' is not KEY=VALUE", kv);
        return JA_EINVAL;
    }
    size_t klen = (size_t)(eq - kv);
    char key[64];
    if (klen >= sizeof key) {
        snprintf(err, cap, "option name too long in '%s'", kv);
        return JA_EINVAL;
    }
    memcpy(key, kv, klen);
    key[klen] = '\0';
    const char *val = eq + 1;
    int i = ja_options_index(g, key);
    if (i < 0) {
        list_names(g, tmp, sizeof tmp);
        if (tmp[0])
            snprintf(err, cap, "unknown option '%s' for %s (allowed: %s)", key, g->name, tmp);
        else
            snprintf(err, cap, "unknown option '%s': %s has no options", key, g->name);
        return JA_EINVAL;
    }
    const ja_option_spec *sp = &g->options[i];
    if (sp->kind == JA_OPT_ENUM) {
        int k = enum_index(sp->values, val, strlen(val));
        if (k < 0) {
            allowed_values(sp, tmp, sizeof tmp);
            snprintf(err, cap, "bad value '%s' for option %s of %s (allowed: %s)", val, key,
                     g->name, tmp);
            return JA_EINVAL;
        }
        o->value[i] = k;
    } else {
        char *end = NULL;
        errno = 0;
        long v = strtol(val, &end, 10);
        if (!*val || *end || errno || v < sp->min || v > sp->max) {
            allowed_values(sp, tmp, sizeof tmp);
            snprintf(err, cap, "bad value '%s' for option %s of %s (allowed: %s)", val, key,
                     g->name, tmp);
            return JA_EINVAL;
        }
        o->value[i] = (int32_t)v;
    }
    o->given[i] = 1;
    return JA_OK;
}

int ja_options_resolve(const ja_game_rules *g, ja_options *o, uint32_t n_seats, char *err,
                       size_t cap)
{
    if (n_seats < g->min_seats || n_seats > g->max_seats) {
        snprintf(err, cap, "%s is played by %u to %u seats, not %u", g->name,
                 (unsigned)g->min_seats, (unsigned)g->max_seats, (unsigned)n_seats);
        return JA_EINVAL;
    }
    /* The defaults of the spec first ("200*N" with N = n_seats); the game
     * then resolves what a spec cannot say ("auto") and checks
     * combinations. */
    for (int i = 0; g->options && g->options[i].name; i++) {
        const ja_option_spec *sp = &g->options[i];
        int32_t v;
        if (o->given[i] || !sp->def)
            continue;
        if (ja_option_default(sp, n_seats, &v) >= 0 || sp->kind == JA_OPT_ENUM)
            o->value[i] = v; /* an unknown ENUM default is the first word */
    }
    if (!g->resolve_options)
        return JA_OK;
    return g->resolve_options(o, n_seats, err, cap);
}

int ja_options_value_str(const ja_game_rules *g, const ja_options *o, int i, char *buf,
                         size_t cap)
{
    const ja_option_spec *sp = &g->options[i];
    if (sp->kind == JA_OPT_ENUM)
        return enum_word(sp->values, o->value[i], buf, cap);
    return snprintf(buf, cap, "%d", (int)o->value[i]);
}

/* Appends s[0 .. n) at buf + *used, NUL-terminated; false, writing nothing,
 * when it does not fit in cap. */
static bool append(char *buf, size_t cap, size_t *used, const char *s, size_t n)
{
    if (*used + n >= cap)
        return false;
    memcpy(buf + *used, s, n);
    *used += n;
    buf[*used] = '\0';
    return true;
}

/* v in decimal at the end of end[-12 .. 0) (no NUL); returns where it starts. */
static char *decimal(int32_t v, char *end)
{
    uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
    do
        *--end = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--end = '-';
    return end;
}

/* Each value as ja_options_value_str writes it, appended piece by piece
 * rather than through snprintf: the referee formats the options for every
 * match's digest, and a match of Bruise Jack is some twenty decisions. */
int ja_options_format(const ja_game_rules *g, const ja_options *o, char *buf, size_t cap)
{
    size_t used = 0;
    if (cap)
        buf[0] = '\0';
    for (int i = 0; g->options && g->options[i].name; i++) {
        const ja_option_spec *sp = &g->options[i];
        char num[12];
        const char *v;
        size_t vn;
        if (sp->kind == JA_OPT_ENUM) {
            v = enum_word_at(sp->values, o->value[i], &vn);
        } else {
            v = decimal(o->value[i], num + sizeof num);
            vn = (size_t)(num + sizeof num - v);
        }
        if ((i && !append(buf, cap, &used, " ", 1)) ||
            !append(buf, cap, &used, sp->name, strlen(sp->name)) ||
            !append(buf, cap, &used, "=", 1) || !append(buf, cap, &used, v, vn))
            return JA_ERANGE;
    }
    return (int)used;
}
