/* The replay page: one self-contained HTML file, the template of
 * arena/viewer/ (embedded at build time) with the match's JSON model inside. */
#include "viewer.h"

#include "jackarena/ja_error.h"
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* arena/viewer/replay.{html,css,js}, made C strings by embed.cmake. */
extern const char viewer_tpl_replay_html[];
extern const char viewer_tpl_replay_css[];
extern const char viewer_tpl_replay_js[];

/* Text for HTML element content and attribute values. */
static void put_html_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* JSON inside <script>: '<' only occurs in strings, where \u003c is the same
 * character, so no "</script>" or "<!--" can end the element early. */
static void put_json_in_script(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("\\u003c", f);
        else
            fputc(*s, f);
    }
}

bool viewer_html_page(FILE *f, const char *title, const char *kind, const char *data_json)
{
    /* The template's markers: @@TITLE@@ @@KIND@@ @@CSS@@ @@JS@@ @@DATA@@. */
    const char *p = viewer_tpl_replay_html;
    while (*p) {
        const char *at = strstr(p, "@@");
        if (!at) {
            fputs(p, f);
            break;
        }
        fwrite(p, 1, (size_t)(at - p), f);
        const char *end = strstr(at + 2, "@@");
        if (!end) {
            fputs(at, f);
            break;
        }
        size_t n = (size_t)(end - at - 2);
        if (n == 5 && strncmp(at + 2, "TITLE", 5) == 0)
            put_html_escaped(f, title);
        else if (n == 4 && strncmp(at + 2, "KIND", 4) == 0)
            put_html_escaped(f, kind);
        else if (n == 3 && strncmp(at + 2, "CSS", 3) == 0)
            fputs(viewer_tpl_replay_css, f);
        else if (n == 2 && strncmp(at + 2, "JS", 2) == 0)
            fputs(viewer_tpl_replay_js, f);
        else if (n == 4 && strncmp(at + 2, "DATA", 4) == 0)
            put_json_in_script(f, data_json);
        else
            fwrite(at, 1, n + 4, f);
        p = end + 2;
    }
    return !ferror(f);
}

int viewer_html_replay(const viewer_model *m, const char *path, const char *back_href, char *err,
                       size_t cap)
{
    char *json = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&json, &len);
    if (!mem) {
        snprintf(err, cap, "out of memory");
        return JA_ENOMEM;
    }
    json_w w;
    jw_init(&w, mem);
    jw_obj(&w, NULL);
    viewer_model_json_keys(&w, m);
    if (back_href)
        jw_str(&w, "back", back_href);
    jw_obj_end(&w);
    fclose(mem);

    ref_out *out = NULL;
    int rc = ref_out_open(NULL, path, REF_OUT_STDOUT, &out, err, cap);
    if (rc != JA_OK) {
        free(json);
        return rc;
    }
    char title[256];
    snprintf(title, sizeof title, "%s: %s", m->g->title, m->r->h.match_id[0] ? m->r->h.match_id : "replay");
    bool ok = viewer_html_page(ref_out_file(out), title, "replay", json);
    free(json);
    if (!ok) {
        snprintf(err, cap, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
        ref_out_abort(&out);
        return JA_EIO;
    }
    return ref_out_commit(&out, err, cap);
}
