/* Reproduction bundles (repro.h). */
#include "run/repro.h"
#include "core/json_w.h"
#include "core/util.h"
#include "outfile.h"
#include "view/viewer.h"
#include "wire.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

void arena_repro_path(char *buf, size_t cap, const char *replay_path)
{
    size_t len = strlen(replay_path);
    if (len > 4 && strcmp(replay_path + len - 4, ".rpl") == 0)
        len -= 4;
    snprintf(buf, cap, "%.*s.repro.json", (int)len, replay_path);
}

/* Appends s to buf quoted for /bin/sh: '...' with each ' as '\''. */
static void sh_quote(char *buf, size_t cap, const char *s)
{
    size_t used = strlen(buf);
    bool plain = *s != '\0';
    for (const char *p = s; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,#+",
                    *p))
            plain = false;
    if (plain) {
        snprintf(buf + used, cap - used, " %s", s);
        return;
    }
    used += (size_t)snprintf(buf + used, cap - used, " '");
    for (const char *p = s; *p && used + 5 < cap; p++) {
        if (*p == '\'')
            used += (size_t)snprintf(buf + used, cap - used, "'\\''");
        else
            buf[used++] = *p;
    }
    buf[used < cap ? used : cap - 1] = '\0';
    snprintf(buf + strlen(buf), cap - strlen(buf), "'");
}

/* The `arena play` command that plays this match again. */
static void command_line(char *buf, size_t cap, const arena_repro_info *in, const char *game_name)
{
    const ref_match_config *c = in->cfg;
    snprintf(buf, cap, "arena play %s", game_name);
    for (uint32_t s = 0; s < c->n_seats; s++)
        sh_quote(buf, cap, in->specs && in->specs[s] ? in->specs[s]
                                                     : ref_bot_get_info(in->bots[s])->path);
    size_t u = strlen(buf);
    u += (size_t)snprintf(buf + u, cap - u, " --seed %llu", (unsigned long long)c->seed);
    for (uint32_t i = 0; i < c->options.n && u < cap; i++) {
        char v[64], kv[160];
        ja_options_value_str(c->game, &c->options, (int)i, v, sizeof v);
        snprintf(kv, sizeof kv, "%s=%s", c->game->options[i].name, v);
        snprintf(buf + u, cap - u, " --opt");
        sh_quote(buf, cap, kv);
        u = strlen(buf);
    }
    if (c->move_ms != REF_MOVE_MS_KIND && u < cap)
        u += (size_t)snprintf(buf + u, cap - u, " --move-ms %u", (unsigned)c->move_ms);
    if (c->bank_ms && u < cap)
        u += (size_t)snprintf(buf + u, cap - u, " --bank-ms %u", (unsigned)c->bank_ms);
    if (c->on_fault && u < cap)
        u += (size_t)snprintf(buf + u, cap - u, " --on-fault %s", ref_on_fault_name(c->on_fault));
    if (c->max_faults && c->max_faults != REF_DEFAULT_MAX_FAULTS && u < cap)
        snprintf(buf + u, cap - u, " --max-faults %u",
                 c->max_faults == REF_MAX_FAULTS_NEVER ? 0u : (unsigned)c->max_faults);
}

/* A stderr tail made safe for JSON text: bytes outside printable ASCII
 * (and not newline or tab) become '?'. */
static void clean_tail(char *t)
{
    for (unsigned char *p = (unsigned char *)t; *p; p++)
        if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p >= 0x7f)
            *p = '?';
}

/* One seat's decisions being re-derived from a replay: the game played
 * again from its setup, in st. */
typedef struct redo {
    json_w *w;
    const ref_replay *r;
    const ja_game_rules *g;
    const char *match_id;
    uint32_t seat;
    uint32_t turn;               /* the seat's decisions so far */
    void *st, *obs;
    ja_action *legal;
    msgpack_sbuffer sb;          /* the act message */
} redo;

/* The act message of decision d exactly as the wire carries it (msgpack),
 * in base64. Nothing when msgpack-c's buffer cannot grow. */
static void write_act(redo *rd, const ja_decision *d)
{
    rd->sb.size = 0;
    if (ref_wire_act(&rd->sb, rd->match_id, rd->g, d, 0) != JA_OK)
        return;
    size_t blen = sodium_base64_ENCODED_LEN(rd->sb.size, sodium_base64_VARIANT_ORIGINAL);
    char *b64 = ja_xmalloc(blen);
    sodium_bin2base64(b64, blen, (const unsigned char *)rd->sb.data, rd->sb.size,
                      sodium_base64_VARIANT_ORIGINAL);
    jw_str(rd->w, "act_msgpack_b64", b64);
    free(b64);
}

/* The decision rec of step `step` put to the seat, which played `played`:
 * what it saw (observation, legal list), its answer, fault and time. */
static void write_decision(redo *rd, uint32_t step, const ref_replay_rec *rec, ja_action played)
{
    const ja_game_rules *g = rd->g;
    json_w *w = rd->w;
    g->observe(rd->st, (int)rd->seat, rd->obs);
    uint32_t nl = g->legal(rd->st, (int)rd->seat, rd->legal, g->max_actions);
    ja_decision d = {.struct_size = sizeof(ja_decision), .turn = ++rd->turn, .deadline_ms = 0,
                     .seat = (int32_t)rd->seat, .n_seats = rd->r->h.n_seats, .game = g->name,
                     .obs_version = g->obs_version, .obs_size = g->obs_size, .obs = rd->obs,
                     .legal = rd->legal, .n_legal = nl};
    char label[96];
    jw_obj(w, NULL);
    jw_int(w, "step", step);
    jw_int(w, "turn", rd->turn);
    jw_str(w, "fault", ja_fault_name(rec->fault));
    if (rec->fault == JA_FAULT_ERROR && rec->error) /* what act() returned, when known */
        jw_str(w, "error", ref_error_name(rec->error, label));
    jw_int(w, "index", rec->index);
    jw_int(w, "code", rec->code);
    if (g->label(played, label, sizeof label) < 0)
        snprintf(label, sizeof label, "action %u", (unsigned)rec->code);
    jw_str(w, "played", label);
    jw_int(w, "think_us", (long long)rec->think_us);
    jw_arr(w, "legal");
    for (uint32_t j = 0; j < nl; j++) {
        if (g->label(rd->legal[j], label, sizeof label) < 0)
            snprintf(label, sizeof label, "action %u", (unsigned)rd->legal[j].code);
        jw_str(w, NULL, label);
    }
    jw_arr_end(w);
    viewer_obs_json(w, "obs", g, rd->obs);
    write_act(rd, &d);
    jw_obj_end(w);
}

/* Step i of the replay: the seat's decision in it, if one was put to it,
 * then the step applied. */
static int redo_step(redo *rd, uint32_t i, char *err, size_t cap)
{
    const ref_replay_step *sp = &rd->r->steps[i];
    ja_action by_seat[JA_MAX_SEATS];
    memset(by_seat, 0, sizeof by_seat);
    for (uint32_t k = 0; k < sp->n; k++) {
        const ref_replay_rec *rec = &rd->r->recs[sp->first + k];
        by_seat[rec->seat].code = rec->code;
        /* What the loop put to the bot: not forced decisions, not those
         * after a forfeit, not those of a fallen flag (timeout, no ask). */
        if (rec->seat == rd->seat && rec->asked)
            write_decision(rd, i, rec, by_seat[rd->seat]);
    }
    if (rd->g->apply(rd->st, sp->seats, by_seat) != JA_OK) {
        snprintf(err, cap, "the replay's decision %u does not apply", (unsigned)i);
        return JA_EFORMAT;
    }
    return JA_OK;
}

/* The decisions put to seat `seat`, re-derived from the replay. */
static int write_decisions(json_w *w, const ref_replay *r, const ja_game_rules *g,
                           const char *match_id, uint32_t seat, char *err, size_t cap)
{
    redo rd = {.w = w, .r = r, .g = g, .match_id = match_id, .seat = seat,
               .st = ja_xcalloc(1, g->state_size), .obs = ja_xcalloc(1, g->obs_size),
               .legal = ja_xcalloc(g->max_actions, sizeof(ja_action))};
    msgpack_sbuffer_init(&rd.sb);
    int rc = JA_OK;
    if (g->setup(rd.st, &r->h.options, r->h.n_seats, r->h.seed) != JA_OK) {
        snprintf(err, cap, "the game refused the replay's setup");
        rc = JA_EFORMAT;
    } else {
        jw_arr(w, "decisions");
        for (uint32_t i = 0; i < r->n_steps && rc == JA_OK; i++)
            rc = redo_step(&rd, i, err, cap);
        jw_arr_end(w);
    }
    msgpack_sbuffer_destroy(&rd.sb);
    free(rd.st);
    free(rd.obs);
    free(rd.legal);
    return rc;
}

/* The match: its game, options, seed, place, time control, fault policy
 * and the command that plays it again. */
static void write_match(json_w *w, const arena_repro_info *in, const ref_replay *r,
                        const char *replay_path)
{
    const ref_match_config *c = in->cfg;
    const ja_game_rules *g = c->game;
    jw_str(w, "format", "jackarena-repro");
    jw_int(w, "version", 1);
    jw_str(w, "game", g->name);
    jw_obj(w, "options");
    for (uint32_t i = 0; i < c->options.n; i++) {
        char v[64];
        ja_options_value_str(g, &c->options, (int)i, v, sizeof v);
        jw_str(w, g->options[i].name, v);
    }
    jw_obj_end(w);
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)c->seed);
    jw_str(w, "seed", seed);
    if (in->tournament_id)
        jw_int(w, "tournament", in->tournament_id);
    jw_int(w, "match", in->number);
    jw_str(w, "match_id", c->match_id ? c->match_id : "");
    jw_str(w, "replay", replay_path);
    jw_int(w, "move_ms", r->h.move_ms);
    jw_int(w, "bank_ms", c->bank_ms);
    jw_str(w, "on_fault", ref_on_fault_name(c->on_fault));
    jw_int(w, "max_faults", c->max_faults == REF_MAX_FAULTS_NEVER ? 0
                            : c->max_faults              ? c->max_faults
                                                         : REF_DEFAULT_MAX_FAULTS);
    char cmd[8192];
    command_line(cmd, sizeof cmd, in, g->name);
    jw_str(w, "command", cmd);
}

/* Every seat's bot: its identity, file and faults. */
static void write_bots(json_w *w, const arena_repro_info *in, const ref_match_result *res)
{
    jw_arr(w, "bots");
    for (uint32_t s = 0; s < in->cfg->n_seats; s++) {
        const ref_bot_info *bi = ref_bot_get_info(in->bots[s]);
        jw_obj(w, NULL);
        jw_int(w, "seat", s);
        jw_str(w, "name", in->names ? in->names[s] : bi->name);
        jw_str(w, "spec", in->specs && in->specs[s] ? in->specs[s] : "");
        jw_str(w, "kind", bi->kind);
        jw_str(w, "bot", bi->name);
        jw_str(w, "version", bi->version);
        jw_str(w, "path", bi->path);
        jw_str(w, "sha256", bi->sha256);
        jw_int(w, "faults", res->faults[s]);
        jw_bool(w, "forfeit", res->forfeit[s]);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

/* Every faulty seat: its faults by kind, its stderr tail, its decisions. */
static int write_faulty(json_w *w, const arena_repro_info *in, const ref_match_result *res,
                        const ref_replay *r, char *err, size_t cap)
{
    const ref_match_config *c = in->cfg;
    int rc = JA_OK;
    jw_arr(w, "faulty");
    for (uint32_t s = 0; s < c->n_seats && rc == JA_OK; s++) {
        if (!res->faults[s])
            continue;
        jw_obj(w, NULL);
        jw_int(w, "seat", s);
        jw_str(w, "name", in->names ? in->names[s] : ref_bot_get_info(in->bots[s])->name);
        jw_int(w, "faults", res->faults[s]);
        jw_obj(w, "fault_kinds");
        for (int k = 1; k < JA_FAULT_COUNT; k++)
            if (res->fault_kinds[s][k])
                jw_int(w, ja_fault_name(k), res->fault_kinds[s][k]);
        jw_obj_end(w);
        char tail[ARENA_REPRO_TAIL];
        snprintf(tail, sizeof tail, "%s",
                 in->stderr_tails ? in->stderr_tails + (size_t)s * ARENA_REPRO_TAIL : "");
        clean_tail(tail);
        jw_str(w, "stderr_tail", tail);
        rc = write_decisions(w, r, c->game, c->match_id ? c->match_id : "", s, err, cap);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    return rc;
}

int arena_repro_write(const char *replay_path, const arena_repro_info *in,
                      const ref_match_result *res, char *err, size_t cap)
{
    uint32_t any = 0;
    for (uint32_t s = 0; s < in->cfg->n_seats; s++)
        any += res->faults[s];
    if (!any)
        return JA_OK;
    ref_replay *r = NULL;
    int rc = ref_replay_load(replay_path, &r, err, cap);
    if (rc != JA_OK)
        return rc;
    char path[4200];
    arena_repro_path(path, sizeof path, replay_path);
    ref_out *out = NULL;
    rc = ref_out_open("reproduction bundle", path, REF_OUT_SYNC, &out, err, cap);
    if (rc != JA_OK) {
        ref_replay_free(&r);
        return JA_EIO;
    }
    json_w w;
    jw_init(&w, ref_out_file(out));
    jw_obj(&w, NULL);
    write_match(&w, in, r, replay_path);
    write_bots(&w, in, res);
    rc = write_faulty(&w, in, res, r, err, cap);
    jw_obj_end(&w);
    jw_end(&w);
    ref_replay_free(&r);
    if (rc != JA_OK) {
        ref_out_abort(&out);
        return rc;
    }
    return ref_out_commit(&out, err, cap);
}
