/* Display names of the bots of a ladder (see names.h). */
#include "names.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

int ladder_display_names(const ladder_bot_row *b, uint32_t n, ladder_display_name **out)
{
    if (out == NULL || (b == NULL && n > 0))
        return JA_EINVAL;
    *out = NULL;
    ladder_display_name *d = ja_xcalloc(n, sizeof *d);
    bool *same = ja_xcalloc(n, sizeof *same);
    for (uint32_t i = 0; i < n; i++) {
        bool clash = false, clash_v = false;
        for (uint32_t j = 0; j < n; j++) {
            if (j == i || strcmp(b[j].name, b[i].name) != 0)
                continue;
            clash = true;
            clash_v |= strcmp(b[j].version, b[i].version) == 0;
        }
        if (!clash)
            snprintf(d[i], sizeof d[i], "%s", b[i].name);
        else if (!clash_v)
            snprintf(d[i], sizeof d[i], "%s@%s", b[i].name, b[i].version);
        else if (b[i].sha256[0])
            snprintf(d[i], sizeof d[i], "%s@%s~%.8s", b[i].name, b[i].version, b[i].sha256);
        else
            snprintf(d[i], sizeof d[i], "%s@%s#%lld", b[i].name, b[i].version,
                     (long long)b[i].id);
    }
    /* Names that still read alike (a name containing "@", or two hashes
     * that begin alike) get their database id as well. */
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            if (strcmp(d[i], d[j]) == 0)
                same[i] = same[j] = true;
    for (uint32_t i = 0; i < n; i++)
        if (same[i]) {
            ladder_display_name base;
            memcpy(base, d[i], sizeof base);
            snprintf(d[i], sizeof d[i], "%.*s#%lld", (int)(sizeof base - 22), base,
                     (long long)b[i].id);
        }
    free(same);
    *out = d;
    return JA_OK;
}

/* True if q spells bot b's identity in full: its name, name@version,
 * name@version~H (H: 8 to 64 leading hex digits of its SHA-256) or
 * name@version#ID. */
static bool spells(const ladder_bot_row *b, const char *q)
{
    size_t nl = strlen(b->name), vl = strlen(b->version);
    if (strncmp(q, b->name, nl) != 0)
        return false;
    if (q[nl] == '\0')
        return true;
    if (q[nl] != '@' || strncmp(q + nl + 1, b->version, vl) != 0)
        return false;
    const char *rest = q + nl + 1 + vl;
    if (*rest == '\0')
        return true;
    if (*rest == '~') {
        size_t hl = strlen(rest + 1);
        return b->sha256[0] && hl >= 8 && hl <= 64 && strncmp(rest + 1, b->sha256, hl) == 0;
    }
    if (*rest == '#') {
        char id[24];
        snprintf(id, sizeof id, "%lld", (long long)b->id);
        return strcmp(rest + 1, id) == 0;
    }
    return false;
}

/* Appends s to buf (cap bytes) at *used, ending in "..." when it does not fit. */
static void append(char *buf, size_t cap, size_t *used, const char *s)
{
    if (*used >= cap)
        return;
    int k = snprintf(buf + *used, cap - *used, "%s", s);
    if (k < 0 || (size_t)k >= cap - *used) {
        if (cap >= 4)
            memcpy(buf + cap - 4, "...", 4);
        *used = cap;
        return;
    }
    *used += (size_t)k;
}

int ladder_display_find(const ladder_bot_row *bots, const ladder_display_name *names, uint32_t n,
                        const char *q, uint32_t *out, char *err, size_t cap)
{
    if (err && cap)
        err[0] = '\0';
    if (q == NULL || out == NULL || (n > 0 && (bots == NULL || names == NULL))) {
        if (err && cap)
            snprintf(err, cap, "no bot name given");
        return JA_EINVAL;
    }
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(names[i], q) == 0) {
            *out = i;
            return JA_OK;
        }
    uint32_t hits = 0;
    for (uint32_t i = 0; i < n; i++)
        if (spells(&bots[i], q)) {
            if (hits == 0)
                *out = i;
            hits++;
        }
    if (hits == 1)
        return JA_OK;
    if (err && cap) {
        size_t used = 0;
        char head[96];
        if (hits)
            snprintf(head, sizeof head, "%u bots of this ladder fit this name: ", hits);
        else
            snprintf(head, sizeof head, "no bot of this ladder is named so (%s",
                     n ? "its bots: " : "it has none");
        append(err, cap, &used, head);
        bool first = true;
        for (uint32_t i = 0; i < n; i++) {
            if (hits && !spells(&bots[i], q))
                continue;
            if (!first)
                append(err, cap, &used, ", ");
            append(err, cap, &used, names[i]);
            first = false;
        }
        append(err, cap, &used, hits ? " (give one of these names)" : ")");
    }
    return hits ? JA_EINVAL : JA_ENOTFOUND;
}

int ladder_bot_index(const ladder_bot_row *bots, uint32_t n, int64_t id)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (bots[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && bots[lo].id == id ? (int)lo : -1;
}

void ladder_label(char *out, size_t cap, const char *name, const char *params)
{
    if (params && params[0])
        snprintf(out, cap, "%s(%s)", name, params);
    else
        snprintf(out, cap, "%s", name);
}

const char *ladder_version_params(const char *version)
{
    const char *first = strchr(version, ':');
    if (!first)
        return "";
    /* Walk the items after the bot's own version back from the end while
     * each holds an '='. */
    const char *start = NULL, *end = version + strlen(version);
    while (end > first) {
        const char *colon = end - 1;
        while (*colon != ':')
            colon--;
        if (!memchr(colon + 1, '=', (size_t)(end - colon - 1)))
            break;
        start = colon + 1;
        end = colon;
    }
    return start ? start : "";
}

void ladder_display_label(char *out, size_t cap, const ladder_bot_row *b, const char *display)
{
    bool plain = strcmp(display, b->name) == 0;
    ladder_label(out, cap, display, plain ? ladder_version_params(b->version) : "");
}
