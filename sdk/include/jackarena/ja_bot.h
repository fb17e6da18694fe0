/* The bot plugin ABI, version 1.
 *
 * DRAFT (JA_BOT_ABI_DRAFT): stable once Bombs and Jack in the Box have
 * proved it.
 *
 * A plugin is a shared library exporting one symbol, ja_bot_entry_v1 (the ABI
 * major is in the name, so a plugin built for another major fails to load
 * with "no entry point ja_bot_entry_v1" instead of crashing). It returns a
 * const descriptor in static storage whose first members are its size and
 * ABI version. The host refuses a descriptor with another major, and reads a
 * member only if struct_size covers it (JA_BOT_HAS): new members are only
 * ever appended.
 *
 * Frozen for major 1 (docs/plugin-abi.md, "Frozen for ABI 1";
 * tests/unit/test_abi_layout.c): the layouts of ja_bot_desc, ja_host_api,
 * ja_decision, ja_outcome, ja_options, ja_action and ja_game_rules, and the
 * constants compiled plugins bake in (JA_MAX_SEATS, JA_MAX_ACTIONS,
 * JA_MAX_OPTIONS, JA_SCORE_UNIT, JA_PARAMS_MAX, the JA_LOG_* levels). A
 * minor version only appends members to structs that start with
 * struct_size; anything else is a new major.
 *
 * The host hands the bot a table of services (ja_host_api): logging, the
 * bot's own seeded random stream, the clock, and the rules library as a
 * forward model. The same .so runs in-process (`plugin` seat) or in a
 * sandboxed child (`hosted` seat) and never links against the arena.
 *
 * Ownership: everything a call receives is borrowed for the duration of that
 * call only; neither side frees the other's memory. Threading: an instance is
 * called from one thread at a time; different instances may run at once, so
 * a plugin keeps no mutable globals. */
#ifndef JA_BOT_H
#define JA_BOT_H

#include "ja_common.h"
#include "ja_rules.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JA_BOT_ABI_DRAFT 1
#define JA_BOT_ABI_MAJOR 1 /* bump = incompatible; also renames the entry symbol */
#define JA_BOT_ABI_MINOR 3 /* bump = members appended (1: ja_host_api.params;
                              2: ja_bot_desc.check_params; 3: ja_bot_desc.flags,
                              ja_host_api.observe) */
#define JA_BOT_ENTRY_SYMBOL "ja_bot_entry_v1"

/* Faults: how a bot can misbehave. Data, never errors: the referee plays the
 * default action, counts the fault, and goes on. X(name, text). */
#define JA_FAULT_MAP(X)                                                   \
    X(NONE, "none")                                                       \
    X(TIMEOUT, "timeout")         /* no answer by the deadline */         \
    X(CRASH, "crash")             /* the bot's process died */            \
    X(ILLEGAL, "illegal")         /* index out of range */                \
    X(MALFORMED, "malformed")     /* an answer that does not parse */     \
    X(PROTOCOL, "protocol")       /* wrong turn, unknown match, ... */    \
    X(DISCONNECT, "disconnect")   /* connection lost */                   \
    X(RESOURCE, "resource")       /* a resource limit was hit */          \
    X(ERROR, "error")             /* act() returned an error code */   \
    X(FORFEIT, "forfeit")         /* past the fault limit: not asked */

typedef enum ja_fault {
#define JA__FAULT_ENUM(name, text) JA_FAULT_##name,
    JA_FAULT_MAP(JA__FAULT_ENUM)
#undef JA__FAULT_ENUM
    JA_FAULT_COUNT
} ja_fault;

/* "timeout" etc.; "unknown" outside the table. Static storage. */
JA_API const char *ja_fault_name(int fault);

/* One question to one seat. */
typedef struct ja_decision {
    uint32_t struct_size;
    uint32_t turn;          /* 1, 2, 3 ...: requests to this seat in this match */
    uint32_t deadline_ms;   /* 0 = no deadline */
    int32_t seat;
    uint32_t n_seats;
    const char *game;       /* "taylor-blackjack"; static */
    uint32_t obs_version;   /* e.g. JA_TAYLOR_OBS_VERSION */
    uint32_t obs_size;      /* sizeof the observation struct the host filled */
    const void *obs;        /* e.g. const ja_taylor_obs *; borrowed during act().
                             * NULL only for a bot that takes its observation
                             * on demand (JA_BOT_OBS_ON_DEMAND): then
                             * ja_host_api.observe gives it */
    const ja_action *legal; /* sorted by code; n_legal >= 2 (single choices are not asked) */
    uint32_t n_legal;
} ja_decision;

/* Log levels for ja_host_api.log. */
enum { JA_LOG_ERROR, JA_LOG_WARN, JA_LOG_INFO, JA_LOG_DEBUG };

/* Host -> plugin services. Append-only. hctx is the opaque context given to
 * create(); pass it back on every call. */
typedef struct ja_host_api {
    uint32_t struct_size;
    void (*log)(void *hctx, int level, const char *msg);
    /* This bot's own stream, seeded from (match seed, seat): a bot's use of
     * randomness never moves the deal, and the same seed gives the same
     * stream. */
    uint64_t (*rng_next)(void *hctx);
    /* Milliseconds left for the current decision, or -1 with no deadline. */
    int64_t (*time_left_ms)(void *hctx);
    /* The forward model of a game (NULL for an unknown name). */
    const ja_game_rules *(*rules)(const char *game);
    /* ABI 1.1: the bot's parameters, "k=v:k=v" as given after its
     * specifier ("iters=2000:c=0.7" for ismcts:iters=2000:c=0.7), or ""
     * for none; already accepted by the descriptor's check_params when it
     * has one (ja_params.h reads them). Static for the bot's lifetime.
     * Older hosts lack it: use JA_HOST_HAS(host, params) before calling it. */
    const char *(*params)(void *hctx);
    /* ABI 1.3: the observation of the decision being answered: the same
     * bytes as ja_decision.obs would hold (this seat's own observation, as
     * every seat only ever gets), or NULL outside act() or when the host has
     * none (a game it does not know). Borrowed during act(); the same
     * pointer at every call within one act(). A bot whose descriptor sets
     * JA_BOT_OBS_ON_DEMAND may be given d->obs NULL and reads its
     * observation here, when it needs it: the host brings it up to date
     * then, and not at all when the bot never asks. Any bot may call it.
     * Older hosts lack it: use JA_HOST_HAS(host, observe). */
    const void *(*observe)(void *hctx);
    /* Later minors: append here. */
} ja_host_api;

/* True if host table h (built with h->struct_size) has member m set. */
#define JA_HOST_HAS(h, m) \
    (offsetof(ja_host_api, m) + sizeof((h)->m) <= (h)->struct_size && (h)->m != NULL)

/* Plugin -> host. Static storage. Append-only. */
typedef struct ja_bot_desc {
    uint32_t struct_size;   /* sizeof(ja_bot_desc) the plugin was built with */
    uint16_t abi_major, abi_minor;
    const char *name, *version;
    /* 1 if the bot plays this game with this observation version, else 0. */
    int (*supports)(const char *game, uint32_t obs_version);
    /* A bot instance for one seat of one match. JA_OK or a JA_E* code. */
    int (*create)(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
                  uint32_t n_seats, void **out_bot);
    /* Choose: write an index into d->legal. Anything but JA_OK, or an index
     * out of range, is a fault and the default action is played. */
    int (*act)(void *bot, const ja_decision *d, uint32_t *out_index);
    /* The match is over (may be NULL). */
    void (*end)(void *bot, const ja_outcome *o);
    void (*destroy)(void *bot);
    /* Optional interfaces by id, or NULL (may itself be NULL). */
    const void *(*extension)(const char *id);
    /* ABI 1.2: checks the bot's parameters (the text ja_host_api.params
     * will give, "k=v:k=v", "" for none) before any match: JA_OK, or
     * JA_EINVAL with one line in err (cap bytes) naming the bad key and
     * what is allowed (ja_params.h writes such lines). Pure: it may not
     * call the host (it gets none) nor keep state; it runs once when the
     * bot is loaded, and again before each instance is created. May be
     * NULL; a descriptor without it (ABI 1.0, 1.1) gets its parameters
     * unchecked. */
    int (*check_params)(const char *params, char *err, size_t cap);
    /* ABI 1.3: JA_BOT_* flags (0: none; read with JA_BOT_FLAGS). */
    uint32_t flags;
    /* ABI 1.4+: append here, never reorder or remove. */
} ja_bot_desc;

/* ja_bot_desc.flags (ABI 1.3).
 *  - JA_BOT_OBS_ON_DEMAND: the bot reads its observation only through
 *    ja_host_api.observe, so a host may hand it decisions with d->obs NULL
 *    and build the observation only when the bot asks for it (an
 *    in-process `plugin` seat does; a bot that never reads it, as
 *    `random`, then costs no observation at all). A host may still give
 *    d->obs (older hosts, hosts that have it anyway: the sandboxed child,
 *    the client library, which receive it): a bot with the flag reads
 *    d->obs when it is not NULL and asks observe() otherwise. The
 *    observation is the same either way, byte for byte. */
#define JA_BOT_OBS_ON_DEMAND 0x1u

/* The flags of descriptor d: 0 when it predates ABI 1.3 (its struct_size
 * does not cover flags). */
#define JA_BOT_FLAGS(d) \
    (offsetof(ja_bot_desc, flags) + sizeof((d)->flags) <= (d)->struct_size ? (d)->flags : 0u)

/* True if descriptor d (built with d->struct_size) has member m set. */
#define JA_BOT_HAS(d, m) \
    (offsetof(ja_bot_desc, m) + sizeof((d)->m) <= (d)->struct_size && (d)->m != NULL)

typedef const ja_bot_desc *(*ja_bot_entry_fn)(void);

/* In the plugin's source, once, at file scope: JA_BOT_DECLARE(my_desc)
 * defines the entry point and marks it exported (JA_API). In C++ as in C:
 * the entry has C linkage there (extern "C"), so its symbol is
 * ja_bot_entry_v1 and not a mangled name the arena would not find. Built
 * with the jackarena pkg-config module or JackArena::sdk, the plugin
 * exports that symbol alone (docs/plugin-abi.md, "Building a plugin"). */
#ifdef __cplusplus
#define JA__BOT_ENTRY_LINKAGE extern "C"
#else
#define JA__BOT_ENTRY_LINKAGE
#endif
#define JA_BOT_DECLARE(desc)                                              \
    JA__BOT_ENTRY_LINKAGE JA_API const ja_bot_desc *ja_bot_entry_v1(void); \
    const ja_bot_desc *ja_bot_entry_v1(void) { return &(desc); }

#ifdef __cplusplus
}
#endif
#endif /* JA_BOT_H */
