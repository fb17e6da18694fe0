/* protodoc: the "Observations" section of docs/protocol.md, generated from
 * every game's field table (ja_game_rules.obs_fields), so the document
 * cannot drift from the wire.
 *
 *   protodoc --check docs/protocol.md    exit 1 unless every game of this
 *                                        build has its exact block there
 *   protodoc --update docs/protocol.md   rewrite those blocks in place
 *                                        (a new game's block goes before
 *                                        the end marker)
 *   protodoc                             print every block
 *
 * A block runs from "<!-- obs GAME -->" to "<!-- /obs GAME -->"; games not
 * in this build (JA_ONLY_GAMES) keep their blocks untouched. */
#include "jackarena/ja_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define END_MARKER "<!-- /observations -->"

static const char *const TYPE_NAMES[JA_FT_COUNT] = {"u8", "i8", "u16", "i16", "u32", "i32",
                                                    "i64"};

static char *block(const ja_game_rules *g, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    fprintf(f, "<!-- obs %s -->\n", g->name);
    fprintf(f, "### %s (observation version %u, %u fields)\n\n", g->name,
            (unsigned)g->obs_version, (unsigned)g->n_obs_fields);
    fprintf(f, "| key | type | length | meaning |\n|---|---|---|---|\n");
    for (uint32_t i = 0; i < g->n_obs_fields; i++) {
        const ja_field *fd = &g->obs_fields[i];
        char len_s[16];
        if (fd->count == 1)
            snprintf(len_s, sizeof len_s, "scalar");
        else
            snprintf(len_s, sizeof len_s, "%u", (unsigned)fd->count);
        fprintf(f, "| `%s` | %s | %s | %s |\n", fd->name,
                fd->type < JA_FT_COUNT ? TYPE_NAMES[fd->type] : "?", len_s,
                fd->doc ? fd->doc : "");
    }
    fprintf(f, "<!-- /obs %s -->\n", g->name);
    fclose(f);
    return buf;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len + 4096 + 1 > cap) {
            cap = (*len + 4096 + 1) * 2;
            buf = realloc(buf, cap);
        }
        size_t n = fread(buf + *len, 1, 4096, f);
        *len += n;
        if (n == 0)
            break;
    }
    fclose(f);
    buf[*len] = '\0';
    return buf;
}

int main(int argc, char **argv)
{
    if (argc == 1) {
        for (int i = 0; ja_games[i]; i++) {
            size_t n;
            char *b = block(ja_games[i], &n);
            fputs(b, stdout);
            putchar('\n');
            free(b);
        }
        return 0;
    }
    if (argc != 3 || (strcmp(argv[1], "--check") && strcmp(argv[1], "--update"))) {
        fprintf(stderr, "usage: protodoc [--check|--update FILE]\n");
        return 2;
    }
    bool update = strcmp(argv[1], "--update") == 0;
    size_t len;
    char *doc = slurp(argv[2], &len);
    if (!doc) {
        fprintf(stderr, "protodoc: cannot read %s\n", argv[2]);
        return 2;
    }
    int bad = 0;
    for (int i = 0; ja_games[i]; i++) {
        const ja_game_rules *g = ja_games[i];
        size_t n;
        char *want = block(g, &n);
        char open[128], close[128];
        snprintf(open, sizeof open, "<!-- obs %s -->\n", g->name);
        snprintf(close, sizeof close, "<!-- /obs %s -->\n", g->name);
        char *a = strstr(doc, open), *z = a ? strstr(a, close) : NULL;
        size_t have = z ? (size_t)(z + strlen(close) - a) : 0;
        if (a && z && have == n && memcmp(a, want, n) == 0) {
            free(want);
            continue;
        }
        if (!update) {
            fprintf(stderr, "protodoc: %s: the observation fields of %s are %s; run "
                            "'protodoc --update %s'\n",
                    argv[2], g->name, a ? "out of date" : "missing", argv[2]);
            bad = 1;
            free(want);
            continue;
        }
        /* Replace the old block, or insert before the end marker. */
        size_t at, cut;
        if (a && z) {
            at = (size_t)(a - doc);
            cut = have;
        } else {
            char *e = strstr(doc, END_MARKER);
            if (!e) {
                fprintf(stderr, "protodoc: %s has no '%s' marker\n", argv[2], END_MARKER);
                free(want);
                free(doc);
                return 1;
            }
            at = (size_t)(e - doc);
            cut = 0;
            char *w2 = malloc(n + 2);
            memcpy(w2, want, n);
            w2[n] = '\n';
            w2[n + 1] = '\0';
            free(want);
            want = w2;
            n++;
        }
        char *nd = malloc(len - cut + n + 1);
        memcpy(nd, doc, at);
        memcpy(nd + at, want, n);
        memcpy(nd + at + n, doc + at + cut, len - at - cut);
        len = len - cut + n;
        nd[len] = '\0';
        free(doc);
        doc = nd;
        free(want);
    }
    if (update) {
        FILE *f = fopen(argv[2], "wb");
        if (!f || fwrite(doc, 1, len, f) != len || fclose(f) != 0) {
            fprintf(stderr, "protodoc: cannot write %s\n", argv[2]);
            free(doc);
            return 1;
        }
    }
    free(doc);
    return bad;
}
