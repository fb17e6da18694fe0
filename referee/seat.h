/* Bots and seats: one interface, several kinds.
 *
 * A ref_bot is a participant, loaded once (a plugin's .so opened, a hosted
 * plugin probed, or a ZeroMQ peer claimed); it can sit at seats of many
 * matches. A ref_seat is one bot instance at one seat of one match. The
 * match loop knows only this interface: it asks every seat of a joint
 * decision first (ref_seat_ask) and then collects every answer
 * (ref_seat_collect) against one absolute deadline, so seats of any kind
 * think in parallel. A misbehaving bot produces a fault (data), never an
 * error: collect always yields an index or a fault.
 *
 * Kinds: `plugin` (seat_plugin.c: in-process, trusted), `hosted`
 * (seat_hosted.c: the same plugin in a sandboxed child process, one per
 * match seat, reused by later matches of the bot; docs/security.md) and `zmq` (seat_zmq.c: an external process
 * over ZeroMQ, through the hub of hub.h). The arena adds `human` (a person
 * at the keyboard or in a browser: arena/run/human.h) through the same ops.
 *
 * Threading: seats of different matches may run in different threads at
 * once (arena/run/executor_threads.c); one seat is used by one thread. */
#ifndef REF_SEAT_H
#define REF_SEAT_H

#include "jackarena/ja_bot.h"
#include "jackarena/ja_rules.h"
#include "ja_declog.h"

typedef struct ref_bot ref_bot;
typedef struct ref_seat ref_seat;

/* What a seat needs to know about its match. Borrowed for the call, except
 * `faults` and the strings of `match_id` and `players`, which the seat may
 * read until ref_seat_close (an in-process plugin's crash line is composed
 * from them when it is written: plugin_guard.h). */
typedef struct ref_seat_ctx {
    const ja_game_rules *game;
    int32_t seat;
    uint32_t n_seats;
    uint64_t match_seed;   /* the bot's own stream derives from (seed, seat) */
    uint32_t move_ms;      /* per-decision limit; 0 = none */
    const char *match_id;
    /* What a seat may tell its bot beyond the above (the `start` and `end`
     * messages of external bots; kinds that tell their bot nothing more
     * ignore them). Each may be NULL: not told. */
    const ja_options *options;     /* resolved; NULL: the game's defaults */
    const char *const *players;    /* n_seats display names */
    const char *replay;            /* the match's replay id or path */
    const uint32_t *faults;        /* live fault counts per seat */
    /* The match keeps what the bot logs per decision (ref_seat_take_log:
     * it writes a replay); false: the seat need not gather it. */
    bool logs;
} ref_seat_ctx;

/* An answer as collected. */
typedef struct ref_answer {
    uint32_t index;        /* valid when fault == JA_FAULT_NONE */
    ja_fault fault;
    uint64_t think_us;     /* wall time between ask and answer (0 for an untimed
                            * ask of a kind that can skip the clock: ref_seat_ask) */
    uint64_t cpu_us;       /* CPU time of the answer where the kind measures it
                            * (plugins, with a limit); 0 = not measured, and the
                            * wall time think_us is what is charged */
    int32_t error;         /* with fault JA_FAULT_ERROR: the code the bot's act()
                            * returned (a JA_E* code; an in-process plugin's
                            * always, a hosted or external one's when its
                            * action carried `code`); 0 when not known */
    /* NULL; or why the seat's participant left the match (static text: a
     * human seat's quit, its input ended): no answer, and the match stops
     * there, unfinished (ref_match_run). Only a kind whose participant
     * can leave sets it (the human seat of `arena play`). */
    const char *left;
} ref_answer;

/* Identity and description of a participant (borrowed from the bot). */
typedef struct ref_bot_info {
    const char *kind;      /* "plugin", "hosted", or an external bot's "zmq"/"cmd" */
    const char *name;      /* the bot's own name (descriptor or hello) */
    const char *version;
    const char *path;      /* file, for plugins and hosted plugins; else "" */
    const char *sha256;    /* hex of the file, for plugins and hosted plugins; else "" */
} ref_bot_info;

/* The ops every kind implements. */
typedef struct ref_bot_ops {
    const char *kind;
    int (*supports)(ref_bot *b, const ja_game_rules *g);
    int (*seat_open)(ref_bot *b, const ref_seat_ctx *ctx, ref_seat **out, char *err, size_t cap);
    int (*ask)(ref_seat *s, const ja_decision *d);
    void (*collect)(ref_seat *s, int64_t deadline_ns, ref_answer *out);
    void (*end)(ref_seat *s, const ja_outcome *o);
    void (*seat_close)(ref_seat *s);
    void (*destroy)(ref_bot *b);
    /* Matches the bot may play at once (an external bot's announced
     * capacity); NULL or 0 = no limit (plugin instances are per seat). */
    uint32_t (*capacity)(ref_bot *b);
    /* Per-decision limit when the user gave none (none for plugins, 1000 ms
     * for hosted and external bots; docs/architecture.md); 0 = none. */
    uint32_t default_move_ms;
    /* True: without a deadline the kind needs no clock, so an untimed ask
     * (ref_seat_ask) reads none and reports think_us 0 (in-process plugins). */
    bool clock_free;
    /* True: the kind's seats have no time limit whatever the match's
     * move_ms and bank_ms say (a human seat): no allowance, no deadline,
     * nothing charged to a bank; the think time is still recorded. */
    bool unlimited;
    /* Optional (NULL = none): copies the last bytes the seat's bot wrote to
     * its stdout/stderr (or logged, for plugins) into buf, NUL-terminated; returns
     * the length. Called before seat_close, for reproduction bundles. */
    size_t (*stderr_tail)(ref_seat *s, char *buf, size_t cap);
    /* Optional (NULL: collect never waits long enough to matter, as an
     * in-process plugin's): whether collect(deadline_ns) would return at
     * once now, the answer or a fault being there or the deadline past.
     * Called only by the thread that may run collect. */
    bool (*ready)(ref_seat *s, int64_t deadline_ns);
    /* True: the kind's ask() decides at once (an in-process plugin) and
     * leaves its answer in ref_seat.answer, which collect() only copies
     * out: the match reads it there without calling collect. */
    bool answers_at_ask;
    /* Optional (NULL: the kind keeps no log): after collect, of a seat
     * opened with ctx->logs, moves what its bot logged for the decision
     * into out (ja_declog.h: cleaned and bounded) and empties its own:
     * a plugin's log() lines since the last take, a hosted or external
     * bot's `log` of the answer, a cmd: bot's output meanwhile
     * (docs/replay-format.md, "Bot logs"). */
    void (*take_log)(ref_seat *s, ja_declog *out);
} ref_bot_ops;

/* Fields common to every bot kind; each kind's struct starts with this. */
struct ref_bot {
    const ref_bot_ops *ops;
    ref_bot_info info;
};

/* Fields common to every seat; each kind's seat struct starts with this. */
struct ref_seat {
    ref_bot *bot;
    int32_t seat;
    int64_t asked_ns;      /* CLOCK_MONOTONIC time of the pending ask; 0 when
                            * the ask was untimed and the kind clock_free */
    uint32_t decision;     /* the match's decision of the pending ask, 1-based
                            * (the replay's `n` + 1; what a crash line names) */
    /* Observations on demand (ABI 1.3, JA_BOT_OBS_ON_DEMAND): set by the
     * kind's seat_open when the seat can hand its bot a decision without
     * its observation and fetch it only when the bot asks (an in-process
     * plugin whose descriptor says so). The match then sets obs_get and
     * obs_ctx for the seats it asks so (ref_match_config.obs_eager), and
     * such a seat, during its ask alone, calls obs_get(obs_ctx, seat) at
     * most once: this seat's own observation of the state asked about,
     * brought up to date then. NULL obs_get: the decision has its obs. */
    bool obs_on_demand;
    const void *(*obs_get)(void *ctx, int32_t seat);
    void *obs_ctx;
    /* The answer of the last ask, of a kind with answers_at_ask (written by
     * its ask; not used by other kinds). */
    ref_answer answer;
};

/* Loads a bot plugin (kind `plugin`): dlopen, entry point, ABI check, file
 * hash. params are the bot's parameters (ja_host_api.params; NULL or "" for
 * none), copied. JA_ENOTFOUND (no such file), JA_EFORMAT (cannot load, no
 * entry point), JA_EVERSION (another ABI major), with a one-line message in
 * err naming the file. The bot checks its parameters once loaded
 * (ja_botrt_check_params: its descriptor's check_params, ABI 1.2):
 * JA_EINVAL when it refuses them, with its reason alone in err (one line;
 * the caller names the bot). A plugin loaded with parameters is a
 * participant of its own: its version reads "VERSION:PARAMS" (ladder
 * identity), and seats of it see the parameters through
 * ja_host_api.params. The bot is owned by the caller (ref_bot_destroy). */
int ref_bot_plugin_open(const char *path, const char *params, ref_bot **out, char *err,
                        size_t cap);

/* Opens a bot of kind `hosted`: the plugin at path, run in a sandboxed
 * child (the program of ref_hosted_program) for every match seat. The file
 * is hashed here and probed in a sandboxed child (loads, entry point, ABI,
 * the games it plays, its parameters), never loaded into this process.
 * params (NULL or "" for none) is handed to every child for the bot; the
 * probe child has the bot check them (check_params) and its hello carries a
 * refusal. The same errors and one-line messages as
 * ref_bot_plugin_open (JA_EINVAL with the bot's reason alone when it
 * refuses its parameters), plus JA_ENOTFOUND when ja_host is missing and
 * JA_EINVAL for a bad JACKARENA_HOSTED_* limit (a line naming the
 * variable). Seats never fail on the bot's misbehaviour: a child that dies
 * or hangs gives faults. A child whose match ended without a fault serves
 * later matches of the bot (seat_hosted.c, "Reuse"); ref_bot_destroy kills
 * the idle ones. Environment:
 * JACKARENA_HOSTED_MEM_MB (address space, default 1024; 0 = none),
 * JACKARENA_HOSTED_CPU_S (CPU seconds a match, default 300; 0 = none) and
 * JACKARENA_HOSTED_REUSE (0: a fresh child for every seat; default 1). */
int ref_bot_hosted_open(const char *path, const char *params, ref_bot **out, char *err,
                        size_t cap);

/* The hosted child program: $JACKARENA_HOST, else ja_host beside this
 * executable, else ../arena/ja_host from it (build tree). Static storage. */
const char *ref_hosted_program(void);

/* Hosted children started by this process so far (probes included): how
 * the tests see that children are reused. */
uint64_t ref_hosted_children_started(void);

/* The seed of a bot's own random stream at one seat of one match (what
 * rng_next draws from, in-process or hosted). One-way: BLAKE2b of (match
 * seed, "BOT ", seat), so a bot that recovers its stream's seed from the
 * numbers it draws learns nothing about the match seed, hence the deal
 * (docs/security.md). */
uint64_t ref_bot_seed(uint64_t match_seed, int32_t seat);

/* SHA-256 of a file's bytes as lowercase hex (the identity of a plugin
 * file in the ladder). JA_OK or JA_EIO (errno set). */
int ref_file_sha256(const char *path, char hex[65]);

/* 1 if the bot plays game g. */
int ref_bot_supports(ref_bot *b, const ja_game_rules *g);

/* Borrowed until ref_bot_destroy. */
const ref_bot_info *ref_bot_get_info(const ref_bot *b);

/* Matches b may play at once; 0 = no limit. */
uint32_t ref_bot_capacity(ref_bot *b);

/* The kind's per-decision limit when the user gave none; 0 = none. */
uint32_t ref_bot_default_move_ms(const ref_bot *b);

/* Destroys b (NULL allowed) and nulls the pointer. */
void ref_bot_destroy(ref_bot **b);

/* A seat for one match. Owned by the caller: ref_seat_close. */
int ref_seat_open(ref_bot *b, const ref_seat_ctx *ctx, ref_seat **out, char *err, size_t cap);
/* CLOCK_MONOTONIC in nanoseconds. */
int64_t ref_now_ns(void);

/* The three calls of every decision, inline (the match loop's hot path).
 *
 * Puts one decision to the seat. d->deadline_ms is the decision's whole
 * allowance (move_ms plus what is left of the bank; 0 = none): kinds that
 * can cut a bot off do so then, and in-process plugins judge an overrun
 * against it after the fact (CPU time, with REF_WALL_FACTOR times it in
 * wall time as the hard ceiling). timed: the think time is wanted (a
 * replay or an observer records it); when it is not, the decision has no
 * deadline and the kind is clock_free, no clock is read at all. */
static inline int ref_seat_ask(ref_seat *s, const ja_decision *d, bool timed)
{
    s->asked_ns = timed || d->deadline_ms || !s->bot->ops->clock_free ? ref_now_ns() : 0;
    return s->bot->ops->ask(s, d);
}
static inline void ref_seat_collect(ref_seat *s, int64_t deadline_ns, ref_answer *out)
{
    s->bot->ops->collect(s, deadline_ns, out);
}
/* Whether ref_seat_collect(s, deadline_ns) would return at once
 * (ref_bot_ops.ready); true for kinds without the op. */
static inline bool ref_seat_ready(ref_seat *s, int64_t deadline_ns)
{
    return !s->bot->ops->ready || s->bot->ops->ready(s, deadline_ns);
}
void ref_seat_end(ref_seat *s, const ja_outcome *o);
void ref_seat_close(ref_seat **s);
/* The seat's stderr tail (ref_bot_ops.stderr_tail); "" and 0 when its kind
 * keeps none. */
size_t ref_seat_stderr_tail(ref_seat *s, char *buf, size_t cap);
/* What the seat's bot logged for the decision just collected
 * (ref_bot_ops.take_log) into out, emptied first; empty for a kind that
 * keeps none. */
void ref_seat_take_log(ref_seat *s, ja_declog *out);

/* An in-process plugin is judged on its thread's CPU time; its wall time
 * counts too, past this many times the allowance, so that a bot that
 * sleeps or blocks cannot hide behind a low CPU time. */
#define REF_WALL_FACTOR 4

/* Whether a decision that took wall_us of wall time used at most free_us
 * of CPU time, without reading it: a thread (or a single-threaded process,
 * the hosted child) runs at most the wall time it spans, and the margin
 * (0.1% + 2 us) covers the two clocks' rates (NTP slews CLOCK_MONOTONIC by
 * at most 0.05%), the rounding of cpu_us up and the instants between the
 * clock reads. Then a CPU reading could neither make a timeout (free_us is
 * within the allowance) nor take anything from the bank (nothing beyond
 * free_us). A CPU clock other than the vDSO's CLOCK_MONOTONIC is a system
 * call: the seats skip it when this holds. */
bool ref_cpu_within(uint64_t wall_us, uint64_t free_us);

#endif /* REF_SEAT_H */
