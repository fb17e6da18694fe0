/* One match (play_run.h): played, printed move by move or as JSON, with its
 * replay, reproduction bundle and decision export. */
#include "run/play_run.h"

#include "run/export.h"
#include "core/json_w.h"
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
        char extra[48] = "";
        if (r->fault)
            snprintf(extra, sizeof extra, " [%s fault: default played]", ja_fault_name(r->fault));
        int w = snprintf(p->line + p->used, sizeof p->line - p->used, "%s%s%s",
                         p->used ? ", " : "", label, extra);
        if (w > 0 && p->used + (size_t)w < sizeof p->line)
            p->used += (size_t)w;
    }
    if (info->n_recs > 1)
        flush_line(p);
}

/* The observers of one match: the printer and the exporter, each optional. */
typedef struct observers {
    printer *pr;
    arena_export_match *xm;
} observers;

static void on_step_all(void *ctx, const ja_game_rules *g, const ref_step_info *info)
{
    observers *o = ctx;
    if (o->pr)
        on_step(o->pr, g, info);
    if (o->xm)
        arena_export_match_step(o->xm, g, info);
}


int arena_play_run(FILE *out, const arena_play_args *a)
{
    const ja_game_rules *g = a->game;
    arena_bots *bots = a->bots;
    arena_ext *ext = a->ext;
    const char *replay_path = a->replay_path, *export_path = a->export_path;
    const bool json = a->json, quiet = a->quiet;
    ref_match_config cfg = {0};
    cfg.game = g;
    cfg.n_seats = (uint32_t)bots->n;
    cfg.move_ms = a->move_ms;
    cfg.match_id = "play";
    cfg.bank_ms = ext->bank_ms;
    cfg.on_fault = ext->on_fault;
    static char tails[JA_MAX_SEATS * ARENA_REPRO_TAIL];
    cfg.max_faults = arena_ext_max_faults(ext);
    cfg.replay_id = replay_path;
    cfg.stderr_tails = replay_path ? tails : NULL;
    cfg.stderr_cap = ARENA_REPRO_TAIL;
    char err[1200];
    cfg.options = a->options;
    /* What a confined cmd: bot must not read (--confine; confine.h). */
    arena_confine_protect(&ext->confine, replay_path, "the replay");
    arena_confine_protect(&ext->confine, export_path, "the decision export");
    if (!arena_bots_load(bots, g)) {
        arena_bots_free(bots);
        return EXIT_USAGE;
    }
    ref_replay_writer *rw = NULL;
    if (replay_path && ref_replay_writer_open(replay_path, &rw, err, sizeof err) != JA_OK) {
        arena_error("%s", err);
        arena_bots_free(bots);
        return EXIT_USAGE;
    }
    arena_export *xf = NULL;
    if (export_path && arena_export_open(export_path, &xf, err, sizeof err) != JA_OK) {
        arena_error("%s", err);
        ref_replay_writer_abort(&rw);
        arena_bots_free(bots);
        return EXIT_USAGE;
    }
    cfg.seed = a->seed;

    char opts_text[1024];
    ja_options_format(g, &cfg.options, opts_text, sizeof opts_text);
    bool moves = !json && !quiet;
    if (!json) {
        fprintf(out, "%s, %d seats, seed %llu\noptions: %s\n", g->name, bots->n,
                (unsigned long long)cfg.seed, opts_text);
        for (int s = 0; s < bots->n; s++)
            fprintf(out, "  seat %d: %s (%s)\n", s, bots->b[s].name, bots->b[s].spec);
        if (moves)
            fputc('\n', out);
    }
    ref_bot *seat_bots[JA_MAX_SEATS];
    const char *names[JA_MAX_SEATS];
    for (int s = 0; s < bots->n; s++) {
        seat_bots[s] = bots->b[s].bot;
        names[s] = bots->b[s].name;
    }
    printer pr = {.out = out, .bots = bots, .seat = -1};
    observers obs = {moves ? &pr : NULL, NULL};
    if (xf && !(obs.xm = arena_export_match_new(&cfg, 0, names))) {
        arena_error("out of memory");
        arena_export_abort(&xf);
        ref_replay_writer_abort(&rw);
        arena_bots_free(bots);
        return EXIT_RUNTIME;
    }
    ref_match_result res;
    cfg.bots = seat_bots;
    cfg.names = names;
    cfg.replay = &rw;
    cfg.on_step = obs.pr || obs.xm ? on_step_all : NULL;
    cfg.step_ctx = &obs;
    if (ext->hub) /* one match, in this thread: its zmq seats run the hub's loop */
        ref_hub_set_direct(ext->hub, true);
    int rc = ref_match_run(&cfg, &res, err, sizeof err);
    if (moves)
        flush_line(&pr);
    if (rc != JA_OK) {
        arena_error("match failed: %s", err);
        arena_export_match_free(obs.xm);
        arena_export_abort(&xf);
        arena_bots_free(bots);
        return EXIT_RUNTIME;
    }
    if (xf) {
        void *data = NULL;
        size_t len = 0;
        rc = arena_export_match_end(obs.xm, &res, &data, &len);
        if (rc != JA_OK)
            snprintf(err, sizeof err, "out of memory for the exported decisions");
        else if ((rc = arena_export_append(xf, data, len)) != JA_OK)
            snprintf(err, sizeof err, "--export-decisions '%s': %s", export_path,
                     strerror(EIO));
        free(data);
        arena_export_match_free(obs.xm);
        if (rc == JA_OK)
            rc = arena_export_finish(&xf, err, sizeof err);
        arena_export_abort(&xf);
        if (rc != JA_OK) {
            arena_error("%s", err);
            arena_bots_free(bots);
            return EXIT_RUNTIME;
        }
    }
    /* The reproduction bundle of a match with a fault, next to its replay. */
    char repro[4200] = "";
    if (replay_path) {
        const char *specs[JA_MAX_SEATS];
        for (int s = 0; s < bots->n; s++)
            specs[s] = bots->b[s].spec;
        arena_repro_info in = {&cfg, 0, 0, seat_bots, names, specs, tails};
        rc = arena_repro_write(replay_path, &in, &res, err, sizeof err);
        if (rc != JA_OK) {
            arena_error("reproduction bundle not written: %s", err);
            arena_bots_free(bots);
            return EXIT_RUNTIME;
        }
        uint32_t any = 0;
        for (int s = 0; s < bots->n; s++)
            any += res.faults[s];
        if (any)
            arena_repro_path(repro, sizeof repro, replay_path);
    }
    /* Places as played (the replay's); a ladder ranks forfeiters last
     * (ref_match_ranked_places), which "ladder_place" shows. */
    uint32_t places[JA_MAX_SEATS];
    ref_match_ranked_places(&res.outcome, res.forfeit, (uint32_t)bots->n, places);
    char digest[REF_DIGEST_HEX];
    ref_digest_hex(res.digest, digest);
    if (json) {
        json_w w;
        char seed_s[24], v[64];
        snprintf(seed_s, sizeof seed_s, "%llu", (unsigned long long)cfg.seed);
        jw_init(&w, out);
        jw_obj(&w, NULL);
        jw_str(&w, "game", g->name);
        jw_obj(&w, "options");
        for (uint32_t i = 0; i < cfg.options.n; i++) {
            ja_options_value_str(g, &cfg.options, (int)i, v, sizeof v);
            jw_str(&w, g->options[i].name, v);
        }
        jw_obj_end(&w);
        jw_str(&w, "seed", seed_s);
        jw_arr(&w, "seats");
        for (int s = 0; s < bots->n; s++) {
            jw_obj(&w, NULL);
            jw_str(&w, "bot", bots->b[s].name);
            jw_score(&w, "score", res.outcome.score[s]);
            jw_int(&w, "place", res.outcome.place[s]);
            jw_int(&w, "ladder_place", places[s]);
            jw_int(&w, "faults", res.faults[s]);
            jw_bool(&w, "forfeit", res.forfeit[s]);
            if (cfg.bank_ms)
                jw_int(&w, "bank_left_ms", (long long)(res.bank_left_us[s] / 1000));
            jw_obj(&w, "fault_kinds");
            for (int f = 1; f < JA_FAULT_COUNT; f++)
                if (res.fault_kinds[s][f])
                    jw_int(&w, ja_fault_name(f), res.fault_kinds[s][f]);
            jw_obj_end(&w);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_int(&w, "turns", res.decisions);
        jw_int(&w, "asked", res.asked);
        jw_str(&w, "digest", digest);
        if (replay_path)
            jw_str(&w, "replay", replay_path);
        if (repro[0])
            jw_str(&w, "repro", repro);
        if (export_path)
            jw_str(&w, "decisions_file", export_path);
        jw_obj_end(&w);
        jw_end(&w);
    } else {
        fprintf(out, "\nresult after %u decisions (%u asked):\n", res.decisions, res.asked);
        for (int s = 0; s < bots->n; s++) {
            char sc[32];
            arena_format_score(res.outcome.score[s], sc, sizeof sc);
            char ff[48] = "";
            if (res.forfeit[s])
                snprintf(ff, sizeof ff, " (forfeited: place %u in a ladder)", (unsigned)places[s]);
            fprintf(out, "  place %u  seat %d  %-14s score %-6s faults %u%s\n",
                    (unsigned)res.outcome.place[s], s, bots->b[s].name, sc, res.faults[s], ff);
        }
        fprintf(out, "digest %s\n", digest);
        if (replay_path)
            fprintf(out, "replay written to %s\n", replay_path);
        if (repro[0])
            fprintf(out, "reproduction bundle written to %s\n", repro);
        if (export_path)
            fprintf(out, "decisions written to %s\n",
                    strcmp(export_path, "-") == 0 ? "the standard output" : export_path);
    }
    if (a->result)
        *a->result = res;
    arena_bots_free(bots);
    return EXIT_OK;
}
