/* The replay commands (replay_run.h): verify, show, html. */
#include "view/replay_run.h"

#include "core/json_w.h"
#include "view/replay_term.h"
#include "view/viewer.h"

#include "jackarena/ja_error.h"
#include "replay.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A replay opened by no step yet: arena_replay_close frees nothing. */
static void start(arena_replay *c, const char *path)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    c->seat = VIEWER_ALL;
}

void arena_replay_close(arena_replay *c)
{
    viewer_close(&c->r, &c->m);
}

/* ---- verify ---------------------------------------------------------------- */

int arena_replay_verify_prepare(arena_replay *c, const char *path, char *err, size_t cap)
{
    start(c, path);
    return ref_replay_load(path, &c->r, err, cap);
}

/* verify --json: the object, whether the replay verifies (rc) or not (why). */
static void verify_json(FILE *out, const ref_replay *r, int rc, const char *hex, const char *why)
{
    json_w w;
    jw_init(&w, out);
    jw_obj(&w, NULL);
    jw_bool(&w, "ok", rc == JA_OK);
    jw_str(&w, "game", r->h.game);
    jw_int(&w, "decisions", r->n_steps);
    /* The time control and fault policy the match was played under. */
    jw_int(&w, "move_ms", r->h.move_ms);
    jw_int(&w, "bank_ms", r->h.bank_ms);
    jw_str(&w, "on_fault", r->h.on_fault);
    if (rc == JA_OK)
        jw_str(&w, "digest", hex);
    else {
        jw_null(&w, "digest");
        jw_str(&w, "error", why);
    }
    jw_obj_end(&w);
    jw_end(&w);
}

int arena_replay_verify_run(arena_replay *c, FILE *out, bool json, char *err, size_t cap)
{
    const ref_replay *r = c->r;
    char why[1200], hex[REF_DIGEST_HEX];
    uint8_t digest[REF_DIGEST_BYTES];
    int rc = ref_replay_verify(r, digest, why, sizeof why);
    ref_digest_hex(rc == JA_OK ? digest : r->digest, hex);
    if (json)
        verify_json(out, r, rc, hex, why);
    else if (rc == JA_OK)
        fprintf(out, "ok: %s, %u seats, seed %llu, %u decisions\ndigest %s\n", r->h.game,
                (unsigned)r->h.n_seats, (unsigned long long)r->h.seed, r->n_steps, hex);
    if (rc != JA_OK && json && cap > 0)
        err[0] = '\0'; /* the object says why */
    else if (rc != JA_OK)
        snprintf(err, cap, "replay '%s' does not verify: %s", c->path, why);
    return rc;
}

/* ---- show ------------------------------------------------------------------ */

/* Opens the replay at path and re-simulates it into its model. On failure
 * r may stay loaded (arena_replay_close frees it). */
static int open_model(arena_replay *c, const char *path, char *err, size_t cap)
{
    start(c, path);
    int rc = viewer_load(path, &c->r, err, cap);
    if (rc == JA_OK)
        rc = viewer_resimulate(path, c->r, &c->m, err, cap);
    return rc;
}

int arena_replay_show_prepare(arena_replay *c, const char *path, bool have_seat, uint32_t seat,
                              bool public_view, char *err, size_t cap)
{
    int rc = open_model(c, path, err, cap);
    if (rc != JA_OK)
        return rc;
    if (public_view) {
        if (!c->m.pub) {
            snprintf(err, cap, "replay show: %s has no public view (JA_EXT_OBSERVE_PUBLIC)",
                     c->m.g->name);
            return JA_EUNSUPPORTED;
        }
        c->seat = VIEWER_PUBLIC;
        return JA_OK;
    }
    if (have_seat && seat >= c->m.n_seats) {
        snprintf(err, cap, "replay show: --seat %u is out of range (the match has seats 0..%u)",
                 (unsigned)seat, (unsigned)c->m.n_seats - 1);
        return JA_ERANGE;
    }
    c->seat = have_seat ? (int)seat : VIEWER_ALL;
    return JA_OK;
}

int arena_replay_show_run(arena_replay *c, FILE *out, char *err, size_t cap)
{
    viewer_style st = viewer_style_for(out);
    if (out == stdout && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && replay_term_raw()) {
        replay_term_run(out, &c->m, c->seat, &st);
        replay_term_restore();
    } else {
        viewer_text_dump(out, &c->m, c->seat, &st);
    }
    if (fflush(out) == 0)
        return JA_OK;
    if (cap > 0)
        err[0] = '\0'; /* what failed is out itself */
    return JA_EIO;
}

/* ---- html ------------------------------------------------------------------ */

int arena_replay_html_prepare(arena_replay *c, const char *path, char *err, size_t cap)
{
    return open_model(c, path, err, cap);
}

int arena_replay_html_run(arena_replay *c, const char *out_path, char *err, size_t cap)
{
    return viewer_html_replay(&c->m, out_path, NULL, false, err, cap);
}
