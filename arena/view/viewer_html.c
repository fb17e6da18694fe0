/* The replay page: the template of arena/view/viewer/ (embedded at build time)
 * with the match's model inside, compressed (docs/viewer.md); the script and
 * the style inline, or in files beside the page that a site's pages share. */
#include "view/viewer.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"
#include "outfile.h"

#include <errno.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* arena/view/viewer/replay.{html,css,js}, made C strings by embed.cmake. */
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

bool viewer_html_page(FILE *f, const char *title, const char *kind, bool shared, const char *data)
{
    /* The template's markers: @@TITLE@@ @@KIND@@ @@STYLE@@ @@SCRIPT@@ @@DATA@@. */
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
        else if (n == 5 && strncmp(at + 2, "STYLE", 5) == 0 && shared)
            fputs("<link rel=\"stylesheet\" href=\"" VIEWER_CSS_FILE "\">", f);
        else if (n == 5 && strncmp(at + 2, "STYLE", 5) == 0)
            fprintf(f, "<style>\n%s</style>", viewer_tpl_replay_css);
        else if (n == 6 && strncmp(at + 2, "SCRIPT", 6) == 0 && shared)
            fputs("<script src=\"" VIEWER_JS_FILE "\"></script>", f);
        else if (n == 6 && strncmp(at + 2, "SCRIPT", 6) == 0)
            fprintf(f, "<script>\n%s</script>", viewer_tpl_replay_js);
        else if (n == 4 && strncmp(at + 2, "DATA", 4) == 0)
            fputs(data, f);
        else
            fwrite(at, 1, n + 4, f);
        p = end + 2;
    }
    return !ferror(f);
}

int viewer_html_assets(const char *dir, char *err, size_t cap)
{
    static const struct {
        const char *name, *text;
    } files[] = {{VIEWER_CSS_FILE, viewer_tpl_replay_css}, {VIEWER_JS_FILE, viewer_tpl_replay_js}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, files[i].name) >= (int)sizeof path) {
            snprintf(err, cap, "'%s': the path is too long", dir);
            return JA_EINVAL;
        }
        int rc = ref_out_write_file(NULL, path, 0, files[i].text, strlen(files[i].text), err, cap);
        if (rc != JA_OK)
            return rc;
    }
    return JA_OK;
}

/* The model's JSON text compressed with zlib (RFC 1950) and written in
 * base64 (RFC 4648), NUL-ended; NULL when zlib runs out of its own memory
 * (compress2's only failure into a buffer of compressBound's size). */
static char *pack_model(const char *json, size_t len)
{
    uLongf zlen = compressBound((uLong)len);
    unsigned char *z = ja_xmalloc(zlen);
    if (compress2(z, &zlen, (const Bytef *)json, (uLong)len, Z_BEST_COMPRESSION) != Z_OK) {
        free(z);
        return NULL;
    }
    size_t blen = sodium_base64_encoded_len(zlen, sodium_base64_VARIANT_ORIGINAL);
    char *b64 = ja_xmalloc(blen);
    sodium_bin2base64(b64, blen, z, zlen, sodium_base64_VARIANT_ORIGINAL);
    free(z);
    return b64;
}

int viewer_html_replay(const viewer_model *m, const char *path, const char *back_href, bool shared,
                       char *err, size_t cap)
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
    char *data = pack_model(json, len);
    free(json);
    if (!data) {
        snprintf(err, cap, "out of memory");
        return JA_ENOMEM;
    }

    ref_out *out = NULL;
    int rc = ref_out_open(NULL, path, REF_OUT_STDOUT, &out, err, cap);
    if (rc != JA_OK) {
        free(data);
        return rc;
    }
    char title[256];
    snprintf(title, sizeof title, "%s: %s", m->g->title, m->r->h.match_id[0] ? m->r->h.match_id : "replay");
    bool ok = viewer_html_page(ref_out_file(out), title, "replay", shared, data);
    free(data);
    if (!ok) {
        snprintf(err, cap, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
        ref_out_abort(&out);
        return JA_EIO;
    }
    return ref_out_commit(&out, err, cap);
}
