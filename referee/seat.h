/* Bots and seats: one interface, several kinds.
 *
 * A ref_bot is a participant, loaded once (a plugin's .so opened, later a
 * hosted child's template or a ZeroMQ peer); it can sit at seats of many
 * matches. A ref_seat is one bot instance at one seat of one match. The
 * match loop knows only this interface: it asks every seat of a joint
 * decision first (ref_seat_ask) and then collects every answer
 * (ref_seat_collect) against one absolute deadline, so seats of any kind
 * think in parallel. A misbehaving bot produces a fault (data), never an
 * error: collect always yields an index or a fault.
 *
 * Kinds: `plugin` (seat_plugin.c: in-process, trusted) and `zmq`
 * (seat_zmq.c: an external process over ZeroMQ, through the hub of hub.h).
 * `hosted` plugs in behind the same ops table.
 *
 * Threading: seats of different matches may run in different threads at
 * once (arena/executor_threads.c); one seat is used by one thread. */
#ifndef REF_SEAT_H
#define REF_SEAT_H

#include "jackarena/ja_bot.h"
#include "jackarena/ja_rules.h"

typedef struct ref_bot ref_bot;
typedef struct ref_seat ref_seat;

/* What a seat needs to know about its match. Borrowed for the call. */
typedef struct ref_seat_ctx {
    const ja_game_rules *game;
    int32_t seat;
    uint32_t n_seats;
    uint64_t match_seed;   /* the bot's own stream derives from (seed, seat) */
    uint32_t move_ms;      /* per-decision limit; 0 = none */
    const char *match_id;
} ref_seat_ctx;

/* What a seat may tell its bot about the match beyond ref_seat_ctx: the
 * `start` and `end` messages of external bots. Borrowed until seat_close. */
typedef struct ref_seat_match {
    const ja_options *options;     /* resolved */
    const char *const *players;    /* n_seats display names, or NULL */
    const char *replay;            /* the match's replay id or path, or NULL */
    const uint32_t *faults;        /* live fault counts per seat, or NULL */
} ref_seat_match;

/* An answer as collected. */
typedef struct ref_answer {
    uint32_t index;        /* valid when fault == JA_FAULT_NONE */
    ja_fault fault;
    uint64_t think_us;     /* wall time between ask and answer */
} ref_answer;

/* Identity and description of a participant (borrowed from the bot). */
typedef struct ref_bot_info {
    const char *kind;      /* "plugin" */
    const char *name;      /* the bot's own name from its descriptor */
    const char *version;
    const char *path;      /* file, for plugins; else "" */
    const char *sha256;    /* hex of the file, for plugins; else "" */
} ref_bot_info;

/* The ops every kind implements. */
typedef struct ref_bot_ops {
    const char *kind;
    int (*supports)(ref_bot *b, const ja_game_rules *g);
    int (*seat_open)(ref_bot *b, const ref_seat_ctx *ctx, ref_seat **out, char *err, size_t cap);
    /* seat_open with the match described (may be NULL: kinds that tell
     * their bot nothing beyond ctx use seat_open). */
    int (*seat_open_match)(ref_bot *b, const ref_seat_ctx *ctx, const ref_seat_match *m,
                           ref_seat **out, char *err, size_t cap);
    int (*ask)(ref_seat *s, const ja_decision *d);
    void (*collect)(ref_seat *s, int64_t deadline_ns, ref_answer *out);
    void (*end)(ref_seat *s, const ja_outcome *o);
    void (*seat_close)(ref_seat *s);
    void (*destroy)(ref_bot *b);
    /* Matches the bot may play at once (an external bot's announced
     * capacity); NULL or 0 = no limit (plugin instances are per seat). */
    uint32_t (*capacity)(ref_bot *b);
    /* Per-decision limit when the user gave none (CLI.md: none for plugins,
     * 1000 ms for external bots); 0 = none. */
    uint32_t default_move_ms;
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
    int64_t asked_ns;      /* CLOCK_MONOTONIC time of the pending ask */
};

/* Loads a bot plugin (kind `plugin`): dlopen, entry point, ABI check, file
 * hash. JA_ENOTFOUND (no such file), JA_EFORMAT (cannot load, no entry
 * point), JA_EVERSION (another ABI major), with a one-line message in err
 * naming the file. The bot is owned by the caller (ref_bot_destroy). */
int ref_bot_plugin_open(const char *path, ref_bot **out, char *err, size_t cap);
/* The same, with the bot's parameters (ja_host_api.params; NULL or "" for
 * none), copied. A plugin loaded with parameters is a participant of its
 * own: its version reads "VERSION:PARAMS" (ladder identity), and seats of
 * it see the parameters through ja_host_api.params. */
int ref_bot_plugin_open_params(const char *path, const char *params, ref_bot **out, char *err,
                               size_t cap);

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
/* The same with the match described for the bot (m may be NULL). */
int ref_seat_open_match(ref_bot *b, const ref_seat_ctx *ctx, const ref_seat_match *m,
                        ref_seat **out, char *err, size_t cap);
int ref_seat_ask(ref_seat *s, const ja_decision *d);
void ref_seat_collect(ref_seat *s, int64_t deadline_ns, ref_answer *out);
void ref_seat_end(ref_seat *s, const ja_outcome *o);
void ref_seat_close(ref_seat **s);

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t ref_now_ns(void);

#endif /* REF_SEAT_H */
