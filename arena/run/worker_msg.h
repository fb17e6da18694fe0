/* The referee worker protocol (docs/scale.md, "Worker protocol"): the
 * msgpack messages between the arena (a ROUTER) and `referee` worker
 * processes (DEALERs), one message per ZeroMQ frame, each a map whose "t"
 * names its type.
 *
 *   worker -> arena   hello  {t, v, slots, host, pid, depth}
 *                     hb     {t}
 *                     result {t, n, rc, err, res, replay, export}
 *   arena -> worker   job    {t, ctx, n, seed, seats, export}
 *                     hb     {t}
 *                     quit   {t}
 *
 * The arena trusts its workers no more than its bots: every decoder here
 * bounds every size (ja_mp_scan before msgpack-c allocates) and refuses
 * malformed input with a one-line reason; tests/fuzz/fuzz_worker.c feeds
 * them arbitrary bytes. */
#ifndef ARENA_WORKER_MSG_H
#define ARENA_WORKER_MSG_H

#include "run/executor.h"

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WORKER_PROTO_VERSION 1
#define WORKER_MAX_SLOTS 4096u
/* Jobs a worker takes per slot, queued and running: the arena hands out 2
 * per slot, and up to the worker's announced depth (hello `depth`; 2 when
 * it announces none) while its matches are short (docs/scale.md). */
#define WORKER_DEPTH_MIN 2u
#define WORKER_DEPTH 64u
#define WORKER_MAX_DEPTH 64u
#define WORKER_MAX_BOTS 64u          /* ARENA_MAX_BOTS */
/* Largest frame either side accepts (ZMQ_MAXMSGSIZE): a result carries a
 * whole replay and a match's exported decisions. */
#define WORKER_MAX_MSG (256u << 20)
#define WORKER_MAX_JOB_MSG (1u << 20)
/* Heartbeats: each side sends one every WORKER_HB_MS; a peer silent for
 * WORKER_LOST_MS is gone (a remote worker's jobs go out again; a worker
 * whose arena is silent exits). */
#define WORKER_HB_MS 1000
#define WORKER_LOST_MS 10000

typedef enum worker_msg_type {
    WORKER_HELLO = 1, WORKER_HB, WORKER_RESULT, WORKER_JOB, WORKER_QUIT
} worker_msg_type;

/* One participant as the worker loads it. */
typedef struct worker_bot {
    char spec[1024];   /* the spec as given to the arena (CLI.md) */
    char name[64];     /* display name: replays must read the same */
    char sha256[65];   /* the arena's hash of the plugin file ("" builtin none) */
} worker_bot;

/* The serialisable part of arena_exec_ctx: everything a worker needs to
 * play any job of the tournament. New match settings go into
 * worker_setup_pack/worker_setup_unpack and nowhere else. */
typedef struct worker_setup {
    char game[64];
    ja_options options;
    uint32_t move_ms;
    uint32_t max_faults;
    uint32_t bank_ms;  /* arena_fault_cfg.bank_ms */
    uint32_t on_fault; /* arena_fault_cfg.on_fault (ref_on_fault) */
    int64_t tournament_id;
    bool replay;       /* jobs send their replay bytes */
    uint32_t n_bots;
    worker_bot bots[WORKER_MAX_BOTS];
} worker_setup;

/* Packs ctx (with each participant's spec) as one msgpack map. */
void worker_setup_pack(msgpack_packer *pk, const arena_exec_ctx *ctx, uint32_t n_bots,
                       const char *const *specs);
/* Decodes the bytes of a packed setup. JA_OK or JA_EFORMAT with why. */
int worker_setup_unpack(const char *buf, size_t len, worker_setup *out, char *why, size_t cap);

/* A decoded message. Byte fields point into the caller's buffer (valid
 * while it is). */
typedef struct worker_msg {
    worker_msg_type type;
    /* hello */
    uint32_t version, slots, depth; /* depth: WORKER_DEPTH_MIN when not announced */
    int64_t pid;
    char host[256];
    /* job */
    const char *ctx;
    size_t ctx_len;
    arena_job job;
    bool export_wanted;
    /* result (res.replay_path unused here) */
    arena_job_result res;      /* export_data points into the buffer */
    const char *replay;
    size_t replay_len;
} worker_msg;

/* Decodes one frame. JA_OK, or JA_EFORMAT / JA_EVERSION with a reason. */
int worker_msg_decode(const char *buf, size_t len, worker_msg *m, char *why, size_t cap);

/* Encoders into a msgpack_sbuffer (cleared first). */
void worker_pack_hello(msgpack_sbuffer *sb, uint32_t slots, uint32_t depth, const char *host,
                       int64_t pid);
void worker_pack_simple(msgpack_sbuffer *sb, worker_msg_type type); /* hb, quit */
void worker_pack_job(msgpack_sbuffer *sb, const char *ctx, size_t ctx_len, const arena_job *job,
                     bool export_wanted);
void worker_pack_result(msgpack_sbuffer *sb, const arena_job_result *r, const void *replay,
                        size_t replay_len);

#endif /* ARENA_WORKER_MSG_H */
