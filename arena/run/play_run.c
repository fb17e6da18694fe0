/* One match (play_run.h): played, printed move by move or as JSON, with its
 * replay, reproduction bundle and decision export. */
#include "run/play_run.h"

#include "run/export.h"
#include "names.h"
#include "core/json_w.h"
#include "run/human.h"
#include "run/repro.h"
#include "core/util.h"

#include "jackarena/ja_error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The move-by-move printer: consecutive decisions of the same seat share a
 * line, so a line reads as one turn. */
typedef struct printer {
    FILE *out;
    const arena_bots *bots;
    int seat;           /* seat of the open line, -1 if none */
    int lines;
    char line[2048];
    size_t used;
} printer;

static void flush_line(printer *p)
{
    if (p->seat >= 0 && p->used)
        fprintf(p->out, "%5d  %-14s %s\n", ++p->lines, p->bots->b[p->seat].name, p->line);
    p->seat = -1;
    p->used = 0;
    p->line[0] = '\0';
}

static void on_step(void *ctx, const ja_game_rules *g, const ref_step_info *info)
{
    printer *p = ctx;
    for (uint32_t k = 0; k < info->n_recs; k++) {
        const ref_replay_rec *r = &info->recs[k];
        if (p->seat != r->seat)
            flush_line(p);
        p->seat = r->seat;
        char label[96];
        if (g->label(info->by_seat[r->seat], label, sizeof label) < 0)
            snprintf(label, sizeof label, "action %u", (unsigned)info->by_seat[r->seat].code);
        char extra[64] = "", code[REF_ERROR_NAME_MAX];
        if (r->fault == JA_FAULT_ERROR && r->error)
            snprintf(extra, sizeof extra, " [error fault, act() returned %s: default played]",
                     ref_error_name(r->error, code));
        else if (r->fault)
            snprintf(extra, sizeof extra, " [%s fault: default played]", ja_fault_name(r->fault));
        int w = snprintf(p->line + p->used, sizeof p->line - p->used, "%s%s%s",
                         p->used ? ", " : "", label, extra);
        if (w > 0 && p->used + (size_t)w < sizeof p->line)
            p->used += (size_t)w;
    }
    if (info->n_recs > 1)
        flush_line(p);
}

/* The observers of one match: the printer, the exporter and the human
 * seat's view, each optional. */
typedef struct observers {
    printer *pr;
    arena_export_match *xm;
    ref_bot *human;
} observers;

static void on_step_all(void *ctx, const ja_game_rules *g, const ref_step_info *info)
{
    observers *o = ctx;
    if (o->pr)
        on_step(o->pr, g, info);
    if (o->xm)
        arena_export_match_step(o->xm, g, info);
    if (o->human)
        arena_human_step(o->human, g, info);
}


/* One match in play: its config and seats, its observers, its result and
 * the reproduction bundle's path (empty: none written). */
typedef struct one_match {
    arena_play *p;
    const arena_play_args *a;
    ref_match_config cfg;
    ref_bot *seat_bots[JA_MAX_SEATS];
    const char *names[JA_MAX_SEATS];
    printer pr;
    observers obs;
    ref_match_result res;
    char repro[4200];
} one_match;

int arena_play_prepare(arena_play *p, const arena_play_args *a, char *err, size_t cap)
{
    *p = (arena_play){.a = a};
    err[0] = '\0';
    /* What a confined cmd: bot must not read (--confine; confine.h). */
    arena_confine_protect(&a->ext->confine, a->replay_path, "the replay");
    arena_confine_protect(&a->ext->confine, a->export_path, "the decision export");
    int rc = arena_bots_load(a->bots, a->game, err, cap);
    if (rc == JA_OK && a->replay_path)
        rc = ref_replay_writer_open(a->replay_path, &p->rw, err, cap);
    if (rc == JA_OK && a->export_path)
        rc = arena_export_open(a->export_path, &p->xf, err, cap);
    return rc;
}

/* The match's config, its seats taking the bots in order, and its
 * observers: the move printer unless json or quiet, the exporter added by
 * start_export. */
static void seat_match(one_match *m, arena_play *p, FILE *out)
{
    /* The stderr tails of the seats, for the reproduction bundle: large,
     * and one match at a time. */
    static char tails[JA_MAX_SEATS * ARENA_REPRO_TAIL];
    const arena_play_args *a = p->a;
    const arena_bots *bots = a->bots;
    memset(m, 0, sizeof *m);
    m->p = p;
    m->a = a;
    for (int s = 0; s < bots->n; s++) {
        m->seat_bots[s] = bots->b[s].bot;
        m->names[s] = bots->b[s].name;
        if (arena_human_is(bots->b[s].bot))
            m->obs.human = bots->b[s].bot;
    }
    ref_match_config *cfg = &m->cfg;
    cfg->game = a->game;
    cfg->options = a->options;
    cfg->n_seats = (uint32_t)bots->n;
    cfg->seed = a->seed;
    cfg->move_ms = a->move_ms;
    cfg->match_id = "play";
    cfg->bank_ms = a->ext->bank_ms;
    cfg->on_fault = a->ext->on_fault;
    cfg->max_faults = arena_ext_max_faults(a->ext);
    cfg->replay_id = a->replay_path;
    cfg->stderr_tails = a->replay_path ? tails : NULL;
    cfg->stderr_cap = ARENA_REPRO_TAIL;
    cfg->bots = m->seat_bots;
    cfg->names = m->names;
    cfg->replay = &p->rw;
    m->pr = (printer){.out = out, .bots = bots, .seat = -1};
    /* With a human seat the moves are not printed: they would show the
     * person every seat's decisions (the human seat shows its own view). */
    m->obs.pr = !a->json && !a->quiet && !m->obs.human ? &m->pr : NULL;
    cfg->on_step = on_step_all;
    cfg->step_ctx = &m->obs;
}

/* The text's header: the game, the seed (with a human seat, at the end
 * only: it tells every deal), the options and the seats. */
static void print_header(FILE *out, const one_match *m)
{
    const arena_play_args *a = m->a;
    char opts_text[1024];
    ja_options_format(a->game, &a->options, opts_text, sizeof opts_text);
    if (m->obs.human)
        fprintf(out, "%s, %d seats, seed shown at the end\noptions: %s\n", a->game->name,
                a->bots->n, opts_text);
    else
        fprintf(out, "%s, %d seats, seed %llu\noptions: %s\n", a->game->name, a->bots->n,
                (unsigned long long)a->seed, opts_text);
    for (int s = 0; s < a->bots->n; s++)
        fprintf(out, "  seat %d: %s (%s)\n", s, a->bots->b[s].name, a->bots->b[s].spec);
    if (m->obs.pr)
        fputc('\n', out);
}

/* The exporter of the match's decisions, when there is an export. */
static int start_export(one_match *m, char *err, size_t cap)
{
    if (m->p->xf)
        m->obs.xm = arena_export_match_new(&m->cfg, 0, m->names);
    if (!m->obs.pr && !m->obs.xm && !m->obs.human)
        m->cfg.on_step = NULL; /* nothing observes the match */
    return JA_OK;
}

/* Plays the match, printing its moves as they come. */
static int play_match(one_match *m, char *err, size_t cap)
{
    if (m->a->ext->hub) /* one match, in this thread: its zmq seats run the hub's loop */
        ref_hub_set_direct(m->a->ext->hub, true);
    char why[1200];
    int rc = ref_match_run(&m->cfg, &m->res, why, sizeof why);
    if (m->obs.pr)
        flush_line(&m->pr);
    if (rc != JA_OK && m->res.abandoned) /* a human left: nothing is written */
        snprintf(err, cap, "match abandoned: %s%s", why,
                 m->a->replay_path ? " (the replay is not written)" : "");
    else if (rc != JA_OK)
        snprintf(err, cap, "match failed: %s", why);
    return rc;
}

/* Appends the match's decisions to the export and puts it in place. */
static int finish_export(one_match *m, char *err, size_t cap)
{
    void *data = NULL;
    size_t len = 0;
    int rc = arena_export_match_end(m->obs.xm, &m->res, &data, &len);
    if (rc != JA_OK)
        snprintf(err, cap, "out of memory for the exported decisions");
    else if ((rc = arena_export_append(m->p->xf, data, len)) != JA_OK)
        snprintf(err, cap, "--export-decisions '%s': %s", m->a->export_path, strerror(EIO));
    free(data);
    if (rc == JA_OK)
        rc = arena_export_finish(&m->p->xf, err, cap);
    return rc;
}

/* The reproduction bundle of a match with a fault, next to its replay;
 * its path in m->repro when one was written. */
static int write_repro(one_match *m, char *err, size_t cap)
{
    const arena_bots *bots = m->a->bots;
    const char *specs[JA_MAX_SEATS];
    for (int s = 0; s < bots->n; s++)
        specs[s] = bots->b[s].spec;
    arena_repro_info in = {&m->cfg, 0, 0, m->seat_bots, m->names, specs, m->cfg.stderr_tails};
    char why[1200];
    int rc = arena_repro_write(m->a->replay_path, &in, &m->res, why, sizeof why);
    if (rc != JA_OK) {
        snprintf(err, cap, "reproduction bundle not written: %s", why);
        return rc;
    }
    uint32_t any = 0;
    for (int s = 0; s < bots->n; s++)
        any += m->res.faults[s];
    if (any)
        arena_repro_path(m->repro, sizeof m->repro, m->a->replay_path);
    return JA_OK;
}

/* Seat s of the result, as an element of the JSON's "seats". */
static void json_seat(json_w *w, const one_match *m, int s, uint32_t ladder_place)
{
    const ref_match_result *res = &m->res;
    jw_obj(w, NULL);
    jw_str(w, "bot", m->a->bots->b[s].name);
    jw_score(w, "score", res->outcome.score[s]);
    jw_int(w, "place", res->outcome.place[s]);
    jw_int(w, "ladder_place", ladder_place);
    jw_int(w, "faults", res->faults[s]);
    jw_bool(w, "forfeit", res->forfeit[s]);
    if (m->cfg.bank_ms)
        jw_int(w, "bank_left_ms", (long long)(res->bank_left_us[s] / 1000));
    jw_obj(w, "fault_kinds");
    for (int f = 1; f < JA_FAULT_COUNT; f++)
        if (res->fault_kinds[s][f])
            jw_int(w, ja_fault_name(f), res->fault_kinds[s][f]);
    jw_obj_end(w);
    jw_obj_end(w);
}

/* The result as one JSON object and a newline. */
static void print_json(FILE *out, const one_match *m, const uint32_t places[JA_MAX_SEATS],
                       const char *digest)
{
    const ja_game_rules *g = m->a->game;
    const ja_options *o = &m->cfg.options;
    json_w w;
    char seed_s[24], v[64];
    snprintf(seed_s, sizeof seed_s, "%llu", (unsigned long long)m->cfg.seed);
    jw_init(&w, out);
    jw_obj(&w, NULL);
    jw_str(&w, "game", g->name);
    jw_obj(&w, "options");
    for (uint32_t i = 0; i < o->n; i++) {
        ja_options_value_str(g, o, (int)i, v, sizeof v);
        jw_str(&w, g->options[i].name, v);
    }
    jw_obj_end(&w);
    jw_str(&w, "seed", seed_s);
    jw_arr(&w, "seats");
    for (int s = 0; s < m->a->bots->n; s++)
        json_seat(&w, m, s, places[s]);
    jw_arr_end(&w);
    jw_int(&w, "turns", m->res.decisions);
    jw_int(&w, "asked", m->res.asked);
    jw_str(&w, "digest", digest);
    if (m->a->replay_path)
        jw_str(&w, "replay", m->a->replay_path);
    if (m->repro[0])
        jw_str(&w, "repro", m->repro);
    if (m->a->export_path)
        jw_str(&w, "decisions_file", m->a->export_path);
    jw_obj_end(&w);
    jw_end(&w);
}

/* The result as text: a line a seat, the digest, and the files written. */
static void print_text(FILE *out, const one_match *m, const uint32_t places[JA_MAX_SEATS],
                       const char *digest)
{
    const ref_match_result *res = &m->res;
    const char *replay_path = m->a->replay_path, *export_path = m->a->export_path;
    fprintf(out, "\nresult after %u decisions (%u asked):\n", res->decisions, res->asked);
    char label[JA_MAX_SEATS][LADDER_LABEL_MAX];
    int width = 14; /* the column as wide as its widest label */
    for (int s = 0; s < m->a->bots->n; s++) {
        arena_bot_label(&m->a->bots->b[s], label[s], sizeof label[s]);
        if ((int)strlen(label[s]) > width)
            width = (int)strlen(label[s]);
    }
    for (int s = 0; s < m->a->bots->n; s++) {
        char sc[32];
        arena_format_score(res->outcome.score[s], sc, sizeof sc);
        char ff[48] = "";
        if (res->forfeit[s])
            snprintf(ff, sizeof ff, " (forfeited: place %u in a ladder)", (unsigned)places[s]);
        fprintf(out, "  place %u  seat %d  %-*s score %-6s faults %u%s\n",
                (unsigned)res->outcome.place[s], s, width, label[s], sc, res->faults[s], ff);
    }
    if (m->obs.human) /* not shown before the end */
        fprintf(out, "seed %llu\n", (unsigned long long)m->cfg.seed);
    fprintf(out, "digest %s\n", digest);
    if (replay_path)
        fprintf(out, "replay written to %s\n", replay_path);
    if (m->repro[0])
        fprintf(out, "reproduction bundle written to %s\n", m->repro);
    if (export_path)
        fprintf(out, "decisions written to %s\n",
                strcmp(export_path, "-") == 0 ? "the standard output" : export_path);
}

/* The result, as JSON or as text. */
static void print_result(FILE *out, const one_match *m)
{
    /* Places as played (the replay's); a ladder ranks forfeiters last
     * (ref_match_ranked_places), which "ladder_place" shows. */
    uint32_t places[JA_MAX_SEATS];
    ref_match_ranked_places(&m->res.outcome, m->res.forfeit, m->cfg.n_seats, places);
    char digest[REF_DIGEST_HEX];
    ref_digest_hex(m->res.digest, digest);
    if (m->a->json)
        print_json(out, m, places, digest);
    else
        print_text(out, m, places, digest);
}

int arena_play_run(arena_play *p, FILE *out, char *err, size_t cap)
{
    one_match m;
    err[0] = '\0';
    seat_match(&m, p, out);
    if (!p->a->json)
        print_header(out, &m);
    int rc = start_export(&m, err, cap);
    if (rc == JA_OK)
        rc = play_match(&m, err, cap);
    if (rc == JA_OK && p->xf)
        rc = finish_export(&m, err, cap);
    arena_export_match_free(m.obs.xm);
    if (rc == JA_OK && p->a->replay_path)
        rc = write_repro(&m, err, cap);
    if (rc != JA_OK)
        return rc;
    print_result(out, &m);
    if (p->a->result)
        *p->a->result = m.res;
    return JA_OK;
}

void arena_play_close(arena_play *p)
{
    arena_export_abort(&p->xf);
    ref_replay_writer_abort(&p->rw);
    arena_bots_free(p->a->bots);
}
