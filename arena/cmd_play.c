/* `arena play`: one match between the bots given, printed move by move (or
 * as one JSON document), with an optional replay file. */
#include "cli.h"
#include "export.h"
#include "extbots.h"
#include "repro.h"

#include "jackarena/ja_error.h"
#include "match.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char HELP[] =
    "usage: arena play GAME BOT BOT... [options]\n"
    "Play one match of GAME; the seats take the bots in the order given.\n"
    "\n"
    "  --bot SPEC        add a bot (for specs that contain commas); repeatable\n"
    "  --bots A,B,...    add bots from a comma-separated list\n"
    "  --opt KEY=VALUE   set a game option (see 'arena games'); repeatable\n"
    "  --seed N          match seed (default: random, always printed)\n"
    "  --replay FILE     write the match's replay to FILE\n"
    "  --export-decisions FILE\n"
    "                    write every decision (observation, legal actions, choice,\n"
    "                    the seat's final outcome) to FILE as training data, in\n"
    "                    msgpack (docs/training-data.md); '-' is the standard\n"
    "                    output (what play prints besides then goes to stderr)\n"
    "  --move-ms MS      per-decision time limit, up to 86400000 (a day; default:\n"
    "                    none for plugins, 1000 for hosted and external bots)\n"
    ARENA_FAULT_HELP
    "  --json            print only the result, as one JSON document\n"
    "  -q, --quiet       print only the result, as text\n"
    "With --replay FILE, a match with a fault also gets FILE's stem plus\n"
    "'.repro.json': a reproduction bundle (docs/faults.md). An output that\n"
    "exists must be a regular file (not a link, FIFO or device): it is replaced\n"
    "whole at the end (docs/security.md, \"Outputs\").\n"
    ARENA_EXT_HELP
    "\n"
    "BOT is one of (README.md, \"Bot specifiers\"):\n"
    "  random, greedy, ismcts  a reference bot (docs/bots.md)\n"
    "  ./mybot.so              a plugin file, run in-process (trusted code)\n"
    "  hosted:./mybot.so       the same plugin in a sandboxed child process, for\n"
    "                          untrusted code (docs/security.md); hosted:ismcts too\n"
    "  cmd:COMMAND ARGS        an external bot the arena starts; it finds the\n"
    "                          endpoint in $JACKARENA_ENDPOINT (docs/protocol.md)\n"
    "  zmq:NAME                an external bot already connected to --listen\n"
    "  NAME=BOT                any of these under a display name of your choosing\n"
    "Parameters, KEY=VALUE joined by ':', follow a plugin after a ':'\n"
    "(ismcts:iters=2000:c=0.7, ./mybot.so:depth=3, hosted:./mybot.so:depth=3; a\n"
    "path is split at the first ':' after its last '/' unless the whole text names a\n"
    "file) and a command in brackets (cmd[depth=3]:./mybot --fast), which gets them\n"
    "in $JACKARENA_PARAMS and in every start message; zmq: bots take none. Each bot\n"
    "checks its own before anything runs: a refusal is exit status 2, naming the bot\n"
    "and the key. The same bot twice, or with two sets of parameters, is two\n"
    "players, shown as ismcts and ismcts#2.\n"
    "\n"
    "example: arena play taylor-blackjack random random greedy --seed 7 --replay m.rpl\n";

/* The move-by-move printer: consecutive decisions of the same seat share a
 * line, so a line reads as one turn. */
typedef struct printer {
    const arena_bots *bots;
    int seat;           /* seat of the open line, -1 if none */
    int lines;
    char line[2048];
    size_t used;
} printer;

static void flush_line(printer *p)
{
    if (p->seat >= 0 && p->used)
        printf("%5d  %-14s %s\n", ++p->lines, p->bots->b[p->seat].name, p->line);
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

int cmd_play(int argc, char **argv)
{
    static const struct option opts[] = {
        {"bot", required_argument, NULL, 'b'},   {"bots", required_argument, NULL, 'B'},
        {"opt", required_argument, NULL, 'o'},   {"seed", required_argument, NULL, 's'},
        {"replay", required_argument, NULL, 'r'}, {"move-ms", required_argument, NULL, 'm'},
        {"json", no_argument, NULL, 'j'},        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},        {"export-decisions", required_argument, NULL, 'X'},
        ARENA_EXT_LONGOPTS,                      ARENA_FAULT_LONGOPTS,
        {0, 0, 0, 0}};
    static arena_bots bots; /* large; one per process */
    memset(&bots, 0, sizeof bots);
    static arena_ext ext;
    memset(&ext, 0, sizeof ext);
    arena_common co = {.bots = &bots};
    bool move_given = false;
    const char *replay_path = NULL, *export_path = NULL;
    bool json = false, quiet = false;
    int c, k;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        move_given |= c == ARENA_OPT_MOVE_MS;
        if ((k = arena_common_flag(&co, c, optarg)) != 0 || (k = arena_ext_flag(&ext, c, optarg)) != 0) {
            if (k < 0)
                return EXIT_USAGE;
            continue;
        }
        switch (c) {
        case 'r': replay_path = optarg; break;
        case 'X': export_path = optarg; break;
        case 'j': json = true; break;
        case 'q': quiet = true; break;
        case 'h': fputs(HELP, stdout); return EXIT_OK;
        default:
            arena_getopt_error("play", argv);
            return EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        arena_error("play: which game? (usage: arena play GAME BOT BOT...; see 'arena games')");
        return EXIT_USAGE;
    }
    const ja_game_rules *g = arena_find_game(argv[optind++]);
    if (!g)
        return EXIT_USAGE;
    /* Every output is checked before anything runs; the reproduction
     * bundle goes next to the replay. */
    char repro_out[4200] = "";
    if (replay_path)
        arena_repro_path(repro_out, sizeof repro_out, replay_path);
    const arena_output outs[] = {{"--replay", replay_path, ARENA_OUT_FILE},
                                 {"reproduction bundle", replay_path ? repro_out : NULL,
                                  ARENA_OUT_FILE},
                                 {"--export-decisions", export_path, ARENA_OUT_STDOUT}};
    if (!arena_outputs_check(outs, sizeof outs / sizeof *outs, json ? "--json" : NULL))
        return EXIT_USAGE;
    /* Positional bots come first, then --bot/--bots in the order given. */
    arena_bots named = bots;
    bots.n = 0;
    bots.ext = &ext;
    for (int i = optind; i < argc; i++)
        if (!arena_bots_add(&bots, argv[i]))
            return EXIT_USAGE;
    for (int i = 0; i < named.n; i++)
        bots.b[bots.n++] = named.b[i];
    if ((uint32_t)bots.n < g->min_seats || (uint32_t)bots.n > g->max_seats) {
        arena_error("%s is played by %u to %u seats; %d bot%s given", g->name,
                    (unsigned)g->min_seats, (unsigned)g->max_seats, bots.n, bots.n == 1 ? "" : "s");
        return EXIT_USAGE;
    }
    if (!arena_bots_finish_names(&bots))
        return EXIT_USAGE;

    ref_match_config cfg = {0};
    cfg.game = g;
    cfg.n_seats = (uint32_t)bots.n;
    cfg.move_ms = move_given ? co.move_ms : REF_MOVE_MS_KIND;
    cfg.match_id = "play";
    cfg.bank_ms = ext.bank_ms;
    cfg.on_fault = ext.on_fault;
    static char tails[JA_MAX_SEATS * ARENA_REPRO_TAIL];
    cfg.max_faults = arena_ext_max_faults(&ext);
    cfg.replay_id = replay_path;
    cfg.stderr_tails = replay_path ? tails : NULL;
    cfg.stderr_cap = ARENA_REPRO_TAIL;
    char err[1200];
    if (!arena_common_options(&co, g, cfg.n_seats, &cfg.options))
        return EXIT_USAGE;
    /* What a confined cmd: bot must not read (--confine; confine.h). */
    arena_confine_protect(&ext.confine, replay_path, "the replay");
    arena_confine_protect(&ext.confine, export_path, "the decision export");
    if (!arena_bots_load(&bots, g)) {
        arena_bots_free(&bots);
        return EXIT_USAGE;
    }
    ref_replay_writer *rw = NULL;
    if (replay_path && ref_replay_writer_open(replay_path, &rw, err, sizeof err) != JA_OK) {
        arena_error("%s", err);
        arena_bots_free(&bots);
        return EXIT_USAGE;
    }
    arena_export *xf = NULL;
    if (export_path && arena_export_open(export_path, &xf, err, sizeof err) != JA_OK) {
        arena_error("%s", err);
        ref_replay_writer_abort(&rw);
        arena_bots_free(&bots);
        return EXIT_USAGE;
    }
    cfg.seed = co.have_seed ? co.seed : arena_random_seed();

    char opts_text[1024];
    ja_options_format(g, &cfg.options, opts_text, sizeof opts_text);
    bool moves = !json && !quiet;
    if (!json) {
        printf("%s, %d seats, seed %llu\noptions: %s\n", g->name, bots.n,
               (unsigned long long)cfg.seed, opts_text);
        for (int s = 0; s < bots.n; s++)
            printf("  seat %d: %s (%s)\n", s, bots.b[s].name, bots.b[s].spec);
        if (moves)
            putchar('\n');
    }
    ref_bot *seat_bots[JA_MAX_SEATS];
    const char *names[JA_MAX_SEATS];
    for (int s = 0; s < bots.n; s++) {
        seat_bots[s] = bots.b[s].bot;
        names[s] = bots.b[s].name;
    }
    printer pr = {.bots = &bots, .seat = -1};
    observers obs = {moves ? &pr : NULL, NULL};
    if (xf && !(obs.xm = arena_export_match_new(&cfg, 0, names))) {
        arena_error("out of memory");
        arena_export_abort(&xf);
        ref_replay_writer_abort(&rw);
        arena_bots_free(&bots);
        return EXIT_RUNTIME;
    }
    ref_match_result res;
    cfg.bots = seat_bots;
    cfg.names = names;
    cfg.replay = &rw;
    cfg.on_step = obs.pr || obs.xm ? on_step_all : NULL;
    cfg.step_ctx = &obs;
    int rc = ref_match_run(&cfg, &res, err, sizeof err);
    if (moves)
        flush_line(&pr);
    if (rc != JA_OK) {
        arena_error("match failed: %s", err);
        arena_export_match_free(obs.xm);
        arena_export_abort(&xf);
        arena_bots_free(&bots);
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
            arena_bots_free(&bots);
            return EXIT_RUNTIME;
        }
    }
    /* The reproduction bundle of a match with a fault, next to its replay. */
    char repro[4200] = "";
    if (replay_path) {
        const char *specs[JA_MAX_SEATS];
        for (int s = 0; s < bots.n; s++)
            specs[s] = bots.b[s].spec;
        arena_repro_info in = {&cfg, 0, 0, seat_bots, names, specs, tails};
        rc = arena_repro_write(replay_path, &in, &res, err, sizeof err);
        if (rc != JA_OK) {
            arena_error("reproduction bundle not written: %s", err);
            arena_bots_free(&bots);
            return EXIT_RUNTIME;
        }
        uint32_t any = 0;
        for (int s = 0; s < bots.n; s++)
            any += res.faults[s];
        if (any)
            arena_repro_path(repro, sizeof repro, replay_path);
    }
    /* Places as played (the replay's); a ladder ranks forfeiters last
     * (ref_match_ranked_places), which "ladder_place" shows. */
    uint32_t places[JA_MAX_SEATS];
    ref_match_ranked_places(&res.outcome, res.forfeit, (uint32_t)bots.n, places);
    char digest[REF_DIGEST_HEX];
    ref_digest_hex(res.digest, digest);
    if (json) {
        json_w w;
        char seed_s[24], v[64];
        snprintf(seed_s, sizeof seed_s, "%llu", (unsigned long long)cfg.seed);
        jw_init(&w, stdout);
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
        for (int s = 0; s < bots.n; s++) {
            jw_obj(&w, NULL);
            jw_str(&w, "bot", bots.b[s].name);
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
        printf("\nresult after %u decisions (%u asked):\n", res.decisions, res.asked);
        for (int s = 0; s < bots.n; s++) {
            char sc[32];
            arena_format_score(res.outcome.score[s], sc, sizeof sc);
            char ff[48] = "";
            if (res.forfeit[s])
                snprintf(ff, sizeof ff, " (forfeited: place %u in a ladder)", (unsigned)places[s]);
            printf("  place %u  seat %d  %-14s score %-6s faults %u%s\n",
                   (unsigned)res.outcome.place[s], s, bots.b[s].name, sc, res.faults[s], ff);
        }
        printf("digest %s\n", digest);
        if (replay_path)
            printf("replay written to %s\n", replay_path);
        if (repro[0])
            printf("reproduction bundle written to %s\n", repro);
        if (export_path)
            printf("decisions written to %s\n",
                   strcmp(export_path, "-") == 0 ? "the standard output" : export_path);
    }
    arena_bots_free(&bots);
    return EXIT_OK;
}
