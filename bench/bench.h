/* What the benchmark program's sections share (bench_raw.c, below every
 * section: the sections never call each other). */
#ifndef JA_BENCH_H
#define JA_BENCH_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the two processes of a raw round trip run: where the scheduler puts
 * them, or each pinned to a CPU of its own (bench_pin_side). A baseline
 * takes the better of the two in each trial: the floor of what the
 * transport costs, whichever placement the machine favours at the time. */
typedef enum bench_placement { BENCH_FREE, BENCH_PINNED } bench_placement;

/* Pins this process (and the threads it starts later) to one CPU of all
 * (the mask it may use): the first for side 0 (the parent of a raw round
 * trip), the second for side 1 (its forked child), the first again where
 * all has one CPU. false when it cannot. */
bool bench_pin_side(const cpu_set_t *all, int side);

/* Raw ZeroMQ round trips over ipc between this process (ROUTER) and a
 * forked child (DEALER, echoing a reply of rep bytes to each request of
 * req bytes), n of them, placed as where says: round trips per second, the
 * physical limit the external-bot figures are measured against. Must run
 * before anything in this process makes a ZeroMQ context (the child is
 * forked). */
double bench_raw_zmq_round_trips(size_t req, size_t rep, uint32_t n, bench_placement where);

/* CLOCK_MONOTONIC in seconds. */
double bench_now_s(void);

/* CPU seconds (user and system) of this process and of its children reaped
 * so far (RUSAGE_SELF + RUSAGE_CHILDREN): around a measurement whose
 * processes are all reaped at its end, the CPU time of all of them. */
double bench_cpu_s(void);

/* Starts argv[0] (a program in dir, or a path when it holds a '/') with
 * stdout and stderr to /dev/null; its pid, or -1. */
int bench_start(const char *dir, const char *const *argv);

/* Waits for pid: its exit status (128 + signal when killed, -1 when it
 * cannot be waited for), its peak RSS in KiB into *rss_kib and its CPU
 * seconds (user + system) into *cpu_s, each when not NULL. */
int bench_finish(int pid, long *rss_kib, double *cpu_s);

/* The 1-minute load average (/proc/loadavg), -1 when unknown: other work
 * on the machine takes cores from every parallel row, so the sections say
 * how busy the machine was. */
double bench_loadavg(void);

/* The median of three figures. */
double bench_median3(const double v[3]);

/* The median of v[0..n) (the mean of the middle two for an even n), NAN
 * for n 0. */
double bench_median(const double *v, size_t n);

/* The highest of v[0..n): the best trial of a rate, the floor a baseline's
 * cost is measured by (a slower trial is the machine's doing, never the
 * baseline's); NAN for n 0. */
double bench_best(const double *v, size_t n);

/* The lowest of v[0..n) (a CPU time's floor); NAN for n 0. */
double bench_least(const double *v, size_t n);

/* Each a[i] / b[i] of i < n into out (NAN where b[i] is not positive): the
 * per-trial ratios of interleaved trials; returns out. */
double *bench_ratios(const double *a, const double *b, size_t n, double *out);

/* The whole file at path, NUL-terminated (free it), its bytes into *len
 * when len is not NULL; NULL when it cannot be read. */
char *bench_slurp(const char *path, size_t *len);

/* The directory of this program (build/bench), for its sibling programs. */
const char *bench_exe_dir(void);

#endif
