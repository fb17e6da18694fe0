/* Benchmark of the hosted seat (referee/seat_hosted.c): what the sandboxed
 * child costs per decision compared with the same plugin in-process and
 * with the bare transport it uses (an AF_UNIX SOCK_SEQPACKET socketpair
 * between two processes), measured in one run, three interleaved trials of
 * each, the raw round trip's best and the others' medians reported, with
 * the spread of the per-trial ratios (process wake-ups vary a lot between
 * runs). */
#include "bench_hosted.h"
#include "bench.h"
#include "bench_rows.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "match.h"
#include "seat.h"
#include "ja_xalloc.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Round trips per second between this process and a forked echo child over
 * a SOCK_SEQPACKET socketpair, placed as where says (bench.h): req bytes
 * out, rep bytes back; the CPU time of both sides per round trip into
 * *cpu_us. */
static double raw_round_trips(size_t req, size_t rep, uint32_t n, bench_placement where,
                              double *cpu_us)
{
    double c0 = bench_cpu_s();
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0)
        return 0;
    cpu_set_t all;
    bool pin = where == BENCH_PINNED && sched_getaffinity(0, sizeof all, &all) == 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (pin)
            bench_pin_side(&all, 1);
        close(sv[0]);
        char *in = ja_xmalloc(req + 16), *out = ja_xcalloc(1, rep ? rep : 1);
        while (recv(sv[1], in, req + 16, 0) > 0)
            if (send(sv[1], out, rep, 0) < 0)
                break;
        _exit(0);
    }
    close(sv[1]);
    if (pin)
        bench_pin_side(&all, 0);
    char *payload = ja_xcalloc(1, req ? req : 1), *reply = ja_xmalloc(rep + 16);
    double t0 = bench_now_s();
    for (uint32_t i = 0; i < n; i++) {
        if (send(sv[0], payload, req, 0) < 0 || recv(sv[0], reply, rep + 16, 0) < 0)
            break;
    }
    double secs = bench_now_s() - t0;
    close(sv[0]);
    waitpid(pid, NULL, 0);
    if (pin)
        sched_setaffinity(0, sizeof all, &all);
    *cpu_us = (bench_cpu_s() - c0) * 1e6 / n;
    free(payload);
    free(reply);
    return secs > 0 ? n / secs : 0;
}

/* Decisions per second of matches of g between two seats of bot, through
 * the match loop (move limit 1000 ms, as a hosted bot gets by default). */
static double run_matches(const ja_game_rules *g, ref_bot *bot, uint32_t matches,
                          uint64_t *decisions, double *match_rate)
{
    ref_match_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.game = g;
    cfg.n_seats = 2;
    cfg.match_id = "bench";
    cfg.move_ms = 1000;
    char err[512];
    ja_options_init(g, &cfg.options);
    ja_options_resolve(g, &cfg.options, 2, err, sizeof err);
    ref_bot *bots[2] = {bot, bot};
    uint64_t n = 0;
    double t0 = bench_now_s();
    for (uint32_t m = 0; m < matches; m++) {
        cfg.seed = ja_seed_derive(1, JA_STREAM_MATCH, m);
        ref_match_result res;
        cfg.bots = bots;
        if (ref_match_run(&cfg, &res, err, sizeof err) != JA_OK) {
            fprintf(stderr, "ja_bench: %s\n", err);
            return 0;
        }
        n += res.asked;
    }
    double secs = bench_now_s() - t0;
    *decisions = n;
    *match_rate = secs > 0 ? matches / secs : 0;
    return secs > 0 ? n / secs : 0;
}

/* Milliseconds to open and close one hosted seat: start the child, wait
 * for its hello, send start, kill and reap it. */
static double seat_cycle_ms(ref_bot *bot, const ja_game_rules *g, uint32_t n)
{
    ref_seat_ctx ctx = {.game = g, .n_seats = 2, .match_seed = 1, .move_ms = 1000,
                        .match_id = "bench"};
    char err[512];
    double t0 = bench_now_s();
    for (uint32_t i = 0; i < n; i++) {
        ref_seat *s = NULL;
        if (ref_seat_open(bot, &ctx, &s, err, sizeof err) != JA_OK)
            return 0;
        ref_seat_close(&s);
    }
    return (bench_now_s() - t0) * 1e3 / n;
}

/* Matches of each path a trial, and raw round trips a trial. */
static const uint32_t MATCHES = 200, RAW_N = 20000;

/* One run of the section: three trials of each path, the raw round trip's
 * best (a floor) and the others' medians, and a
 * hosted seat's start and stop. */
typedef struct hosted_run {
    const ja_game_rules *g;
    const char *path;     /* the `random` plugin */
    ref_bot *inproc;      /* that plugin in-process */
    double act_bytes, action_bytes;
    /* Each trial's decisions/s, matches/s and CPU time a round trip or a
     * decision (microseconds); the decisions of the last trial; the hosted
     * children started in all three. */
    double raw_t[3], in_t[3], ho_t[3], in_m[3], ho_m[3], raw_cpu[3], ho_cpu[3];
    uint64_t in_dec, ho_dec, starts;
    /* The raw round trip's best trial (a floor), the others' medians. */
    double raw, in, ho, in_mr, ho_mr, raw_c, ho_c;
    double per_seat_ms; /* a hosted seat's start and stop */
    double ho_ss;       /* hosted decisions/s, the children's start and stop excluded */
    double ss_t[3];     /* the same of each trial */
} hosted_run;

/* The hosted path of trial t: a bot of its own, destroyed after it, so that
 * its children are reaped and their CPU time counted (RUSAGE_CHILDREN; the
 * probe's start and the two children's are in it). */
static void time_hosted_trial(hosted_run *h, int t)
{
    char err[1200];
    ref_bot *hosted = NULL;
    double c0 = bench_cpu_s();
    uint64_t started = 0;
    h->ho_t[t] = 0;
    if (ref_bot_hosted_open(h->path, NULL, &hosted, err, sizeof err) != JA_OK) {
        fprintf(stderr, "ja_bench: %s\n", err);
    } else {
        started = ref_hosted_children_started();
        h->ho_t[t] = run_matches(h->g, hosted, MATCHES, &h->ho_dec, &h->ho_m[t]);
    }
    ref_bot_destroy(&hosted);
    h->starts += started ? ref_hosted_children_started() - started : 0;
    h->ho_cpu[t] = h->ho_dec ? (bench_cpu_s() - c0) * 1e6 / (double)h->ho_dec : 0;
}

/* Three trials of the raw round trip, the in-process plugin and the hosted
 * one, interleaved; the raw round trip's best, the others' medians. 0, or
 * -1 after a message. */
static int time_trials(hosted_run *h)
{
    for (int t = 0; t < 3; t++) {
        /* The raw trial: the better of a free and a pinned run (bench.h). */
        double free_cpu = 0, pinned_cpu = 0;
        double free_rt = raw_round_trips((size_t)h->act_bytes, (size_t)h->action_bytes, RAW_N,
                                         BENCH_FREE, &free_cpu);
        double pinned_rt = raw_round_trips((size_t)h->act_bytes, (size_t)h->action_bytes,
                                           RAW_N, BENCH_PINNED, &pinned_cpu);
        h->raw_t[t] = fmax(free_rt, pinned_rt);
        h->raw_cpu[t] = fmin(free_cpu, pinned_cpu);
        h->in_t[t] = run_matches(h->g, h->inproc, MATCHES, &h->in_dec, &h->in_m[t]);
        time_hosted_trial(h, t);
        if (h->raw_t[t] <= 0 || h->in_t[t] <= 0 || h->ho_t[t] <= 0) {
            fprintf(stderr, "ja_bench: the hosted-bot measurement failed\n");
            return -1;
        }
    }
    /* The raw round trip is the floor: its best trial (fastest, least CPU). */
    h->raw = bench_best(h->raw_t, 3);
    h->in = bench_median3(h->in_t);
    h->ho = bench_median3(h->ho_t);
    h->in_mr = bench_median3(h->in_m);
    h->ho_mr = bench_median3(h->ho_m);
    h->raw_c = bench_least(h->raw_cpu, 3);
    h->ho_c = bench_median3(h->ho_cpu);
    return 0;
}

/* A hosted seat's start and stop (the median of three trials of 50), and
 * the hosted rate without them: the match time less a seat cycle per child
 * started (children are reused across matches: two in all, unless one is
 * retired). 0, or -1 after a message. */
static int time_seat_cycles(hosted_run *h)
{
    char err[1200];
    ref_bot *hosted = NULL;
    if (ref_bot_hosted_open(h->path, NULL, &hosted, err, sizeof err) != JA_OK) {
        fprintf(stderr, "ja_bench: %s\n", err);
        return -1;
    }
    double cyc[3];
    for (int t = 0; t < 3; t++)
        cyc[t] = seat_cycle_ms(hosted, h->g, 50);
    ref_bot_destroy(&hosted);
    h->per_seat_ms = bench_median3(cyc);
    double cycles_s = (double)h->starts / 3 * h->per_seat_ms / 1e3;
    double ho_secs = (double)h->ho_dec / h->ho - cycles_s;
    h->ho_ss = ho_secs > 0 ? h->ho_dec / ho_secs : 0;
    for (int t = 0; t < 3; t++) {
        double s = h->ho_t[t] > 0 ? (double)h->ho_dec / h->ho_t[t] - cycles_s : 0;
        h->ss_t[t] = s > 0 ? h->ho_dec / s : 0;
    }
    return 0;
}

/* The section's rows; the one judged by its target (*ss: the row without
 * the children's start and stop). */
static const bench_row *record_rows(const hosted_run *h, const bench_row **ss)
{
    double raw = h->raw, in = h->in, ho = h->ho, ho_ss = h->ho_ss, raw_c = h->raw_c;
    double ho_c = h->ho_c, per_seat_ms = h->per_seat_ms, per[3][3];
    bench_row_add("raw socketpair round trip", raw, "round trips/s", NAN, BENCH_NO_TARGET, 0);
    bench_row_add("random in-process", in, "decisions/s", NAN, BENCH_NO_TARGET, 0);
    const bench_row *ratio = bench_row_add_trials(
        "hosted:random / raw socketpair round trip", ho, "decisions/s",
        raw > 0 ? ho / raw : NAN, bench_ratios(h->ho_t, h->raw_t, 3, per[0]), 3,
        BENCH_AT_LEAST, 0.7);
    *ss = bench_row_add_trials("hosted:random, child start and stop excluded / raw socketpair "
                               "round trip", ho_ss, "decisions/s", raw > 0 ? ho_ss / raw : NAN,
                               bench_ratios(h->ss_t, h->raw_t, 3, per[2]), 3, BENCH_NO_TARGET,
                               0);
    bench_row_add("hosted seat start and stop", per_seat_ms, "ms", NAN, BENCH_NO_TARGET, 0);
    bench_row_add_trials("CPU time: raw round trip / hosted:random decision", ho_c,
                         "us CPU/decision", ho_c > 0 ? raw_c / ho_c : NAN,
                         bench_ratios(h->raw_cpu, h->ho_cpu, 3, per[1]), 3, BENCH_NO_TARGET, 0);
    return ratio;
}

/* How the section measures, and the table of the paths. */
static void write_table(FILE *md, const hosted_run *h, const bench_row *ratio,
                        const bench_row *ss)
{
    double raw = h->raw, in = h->in, ho = h->ho, ho_ss = h->ho_ss;
    const double *raw_t = h->raw_t, *in_t = h->in_t, *ho_t = h->ho_t;
    char cell[64], rc[96], sc[96];
    fprintf(md,
            "## Hosted bots\n\n"
            "%u matches of %s, 2 seats, default options, `random` against itself: both seats "
            "in-process (`plugin`), then both `hosted:` (each seat a sandboxed `ja_host` child: "
            "posix_spawn, dlopen, rlimits, two seccomp filters; a child serves the later "
            "matches of its bot, docs/security.md), `--move-ms 1000`; against a raw round trip "
            "over an AF_UNIX SOCK_SEQPACKET socketpair between two processes with payloads of "
            "the protocol's sizes (%.0f bytes out, %.0f back; the hosted channel's compact act "
            "is smaller), %u round trips. Three trials of each, interleaved, a raw trial the "
            "better of two runs, one where the scheduler puts its two processes and one with "
            "each pinned to a CPU of its own. The raw round trip is the floor, its best "
            "trial (the fastest, and the least CPU a round trip), the other paths the "
            "medians of theirs; beside the ratio, in brackets, the lowest and "
            "highest of the per-trial ratios (each hosted trial over the raw trial beside it). "
            "Decisions are those asked (single choices are not). Each hosted trial opens its "
            "own bot: %llu children started in the three trials' %u matches.\n\n"
            "| path | decisions/s | per decision | CPU per decision (both sides) "
            "| matches/s | trials | / raw round trip | target |\n"
            "|---|---|---|---|---|---|---|---|\n"
            "| raw socketpair round trip (best) | %.0f | %.1f us | %.1f us | | %.0f, %.0f, "
            "%.0f | 1 | |\n"
            "| `random` in-process (median) | %.0f | %.2f us | | %.1f | %.0f, %.0f, %.0f | | |\n"
            "| `hosted:random` (median) | %.0f | %.1f us | %.1f us | %.1f | %.0f, %.0f, %.0f | %s "
            "| %s |\n"
            "| `hosted:random`, child start and stop excluded | %.0f | %.1f us | | | | %s "
            "| |\n\n",
            MATCHES, h->g->name, h->act_bytes, h->action_bytes, RAW_N,
            (unsigned long long)h->starts, 3 * MATCHES, raw, raw > 0 ? 1e6 / raw : 0, h->raw_c,
            raw_t[0], raw_t[1], raw_t[2], in, in > 0 ? 1e6 / in : 0, h->in_mr, in_t[0], in_t[1],
            in_t[2], ho, ho > 0 ? 1e6 / ho : 0, h->ho_c, h->ho_mr, ho_t[0], ho_t[1], ho_t[2],
            bench_ratio_cell(ratio, true, rc, sizeof rc),
            bench_row_target(ratio, cell, sizeof cell), ho_ss, ho_ss > 0 ? 1e6 / ho_ss : 0,
            bench_ratio_cell(ss, false, sc, sizeof sc));
}

/* What a hosted decision costs beyond the round trip, and where its time
 * goes (a profile this run does not measure: it names its date). */
static void write_costs(FILE *md, const hosted_run *h)
{
    fprintf(md,
            "Hosted / in-process: **%.3f**; CPU time, raw round trip / hosted decision: "
            "**%.2f**. A hosted decision costs the round trip plus the act's encoding (the "
            "observation's bytes and the legal codes, no labels: the compact form of the "
            "hosted channel) and its decoding in the child, the answer's encoding and "
            "decoding, and one read of the child's CPU clock (a system call; the second "
            "only when the answer took longer than the move limit) (%llu decisions a "
            "trial). Starting a child, waiting for its hello and killing it takes %.2f ms "
            "(median of three trials of 50 seats closed before their match ended, which are "
            "never reused); a match whose seats end cleanly starts none.\n\n"
            "Where the rest goes (perf record of this section, the arena and the children "
            "pinned to one CPU, so that what is measured is CPU and not waiting; there a "
            "hosted decision took 13.2 us against 6.6 us for the raw round trip in the same "
            "run, 2026-11-26): about "
            "two thirds of the samples of a hosted decision are in the kernel, most of them "
            "in the two context switches between the referee and the child "
            "(`finish_task_switch`, and the wake-up's `_raw_spin_unlock_irqrestore` where "
            "a virtual machine's interrupts are re-enabled), the same two a raw round trip "
            "makes; then the system calls themselves (poll and recv in the referee, which "
            "must watch the child's output pipe too: poll before recv adds 0.4 to 0.5 us "
            "to a round trip of this socketpair, measured alone; the child's CPU clock, "
            "about 0.25 us a read; recv and send in the child, each "
            "through its two seccomp filters: `__seccomp_filter` is under 0.3%% of the "
            "samples). In user space the referee's share is the match loop itself "
            "(`taylor_observe`, `ref_wire_act`, the digest), the child's the msgpack "
            "decoding of the act and the encoding of the answer, each under a microsecond. "
            "The raw round trip does nothing but its two switches, so its CPU time a round "
            "trip is the floor; on two CPUs each switch is a cross-CPU wake-up of an idle or "
            "busy virtual CPU, whose latency (not CPU time) makes most of the wall time per "
            "decision and varies several-fold between runs on a shared virtual machine: "
            "compare the paths only within one run, and by CPU time first.\n",
            h->in > 0 ? h->ho / h->in : 0, h->ho_c > 0 ? h->raw_c / h->ho_c : 0,
            (unsigned long long)h->ho_dec, h->per_seat_ms);
}

int bench_hosted(FILE *md, const char *bots_dir, double act_bytes, double action_bytes)
{
    char path[PATH_MAX + 32], err[1200];
    snprintf(path, sizeof path, "%s/ja_random.so", bots_dir);
    hosted_run h;
    memset(&h, 0, sizeof h);
    h.g = ja_games[0];
    h.path = path;
    h.act_bytes = act_bytes;
    h.action_bytes = action_bytes;
    if (ref_bot_plugin_open(path, NULL, &h.inproc, err, sizeof err) != JA_OK) {
        fprintf(stderr, "ja_bench: %s\n", err);
        return 1;
    }
    int rc = time_trials(&h) == 0 && time_seat_cycles(&h) == 0 ? 0 : 1;
    if (rc == 0) {
        const bench_row *ss = NULL;
        const bench_row *ratio = record_rows(&h, &ss);
        write_table(md, &h, ratio, ss);
        write_costs(md, &h);
    }
    ref_bot_destroy(&h.inproc);
    return rc;
}
