/* What the benchmark program's sections share (bench_raw.c, below every
 * section: the sections never call each other). */
#ifndef JA_BENCH_H
#define JA_BENCH_H

#include <stddef.h>
#include <stdint.h>

/* Raw ZeroMQ round trips over ipc between this process (ROUTER) and a
 * forked child (DEALER, echoing a reply of rep bytes to each request of
 * req bytes), n of them: round trips per second, the physical limit the
 * external-bot figures are measured against. Must run before anything in
 * this process makes a ZeroMQ context (the child is forked). */
double bench_raw_zmq_round_trips(size_t req, size_t rep, uint32_t n);

/* CLOCK_MONOTONIC in seconds. */
double bench_now_s(void);

#endif
