/* The rules interface: each game is a table of functions over a flat,
 * fixed-size, pointer-free state that memcpy copies (the forward model).
 *
 * DRAFT: stable only once Bombs (interrupt windows) and Jack in the Box
 * (teams) have proved it; until then members may still change. New members
 * are appended after `extension` (a reader tests struct_size), and what only
 * some callers need is an optional interface (extension(), below) rather
 * than a member.
 * JA_RULES_DRAFT tells code at compile time that the interface is a draft.
 *
 * Contract, for every game (tests/rules/test_all_games.c checks it):
 *  - The state holds the match's PRNG and the stock's order: the future. It
 *    never reaches a bot. Bots get observations, and build full states for
 *    search with sample().
 *  - to_act() names who decides as a seat bitmask (usually one bit; several
 *    for an interrupt window); 0 means the match is over.
 *  - legal() writes at least one action, sorted by code, at most max_actions,
 *    for a seat in to_act(); 0 for any other seat. default_action() is always
 *    in that list.
 *  - apply() takes one action per asked seat and resolves a joint decision by
 *    the game's own rule; arrival order never matters. An action that is not
 *    legal returns JA_EILLEGAL and leaves the state unchanged.
 *  - observe() zeroes the whole observation, then fills exactly what that seat
 *    may know. determinize(st, s) re-deals everything seat s cannot see and
 *    leaves observe(st, s) byte-identical; observe(sample(observe(st, s)), s)
 *    equals observe(st, s).
 *  - An optional public observation (JA_EXT_OBSERVE_PUBLIC, below) is the
 *    part of the observation common to every seat: what a spectator may see.
 *  - No function here allocates, blocks or keeps global mutable state. */
#ifndef JA_RULES_H
#define JA_RULES_H

#include "ja_common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JA_RULES_DRAFT 1
/* Both frozen for ABI major 1 (docs/plugin-abi.md, "Frozen for ABI 1"):
 * ja_options and plugins' legal-action buffers (ja_forward.h) are sized by
 * them, so a game needing more is ABI 2. */
#define JA_MAX_OPTIONS 16
#define JA_MAX_ACTIONS 128 /* the largest max_actions of any game */

/* ---- Options ------------------------------------------------------------ */

typedef enum ja_option_kind {
    JA_OPT_ENUM, /* one of a list of words */
    JA_OPT_INT   /* an integer in [min, max] */
} ja_option_kind;

typedef struct ja_option_spec {
    const char *name;    /* "decks" */
    ja_option_kind kind;
    const char *values;  /* ENUM: allowed words separated by '|': "auto|1|2" */
    int32_t min, max;    /* INT: inclusive bounds */
    /* The default, as shown to users and as applied by ja_options_resolve:
     * ENUM, one of the words ("auto"); INT, "K", "N" or "K*N" with N the
     * seat count ("200*N"). */
    const char *def;
    const char *help;    /* one line */
} ja_option_spec;

/* A game's option values. ENUM options hold the index of the word in
 * `values`; INT options hold the integer. After ja_options_resolve every
 * option has a concrete value (defaults that depend on the seat count filled
 * in), which is what replays and ladders record. */
typedef struct ja_options {
    uint32_t n;                     /* number of options of the game */
    int32_t value[JA_MAX_OPTIONS];
    uint8_t given[JA_MAX_OPTIONS];  /* 1 when set explicitly */
} ja_options;

/* ---- Observation field lists -------------------------------------------- */

/* One field list per game (an X-macro in the game's header) generates the C
 * struct of its observation and this table, from which the wire (msgpack)
 * and viewer (JSON) encodings are written, so the three cannot drift. */
typedef enum ja_field_type {
    JA_FT_U8, JA_FT_I8, JA_FT_U16, JA_FT_I16, JA_FT_U32, JA_FT_I32, JA_FT_I64,
    JA_FT_COUNT
} ja_field_type;

typedef struct ja_field {
    const char *name;   /* key on the wire and in JSON */
    uint32_t offset;    /* offsetof in the observation struct */
    uint16_t type;      /* ja_field_type */
    uint16_t count;     /* 1 for a scalar, else the array length */
    const char *doc;    /* one line for docs/protocol.md */
} ja_field;

/* Helpers for the X-macros in game headers: S(type, name, doc) is a scalar,
 * A(type, name, count, doc) an array. */
#define JA__CT_U8 uint8_t
#define JA__CT_I8 int8_t
#define JA__CT_U16 uint16_t
#define JA__CT_I16 int16_t
#define JA__CT_U32 uint32_t
#define JA__CT_I32 int32_t
#define JA__CT_I64 int64_t
#define JA__MEMBER_S(T, name, doc) JA__CT_##T name;
#define JA__MEMBER_A(T, name, n, doc) JA__CT_##T name[n];
#define JA__FIELD_S(ST, T, name, doc) {#name, (uint32_t)offsetof(ST, name), JA_FT_##T, 1, doc},
#define JA__FIELD_A(ST, T, name, n, doc) {#name, (uint32_t)offsetof(ST, name), JA_FT_##T, n, doc},

/* ---- Outcome ------------------------------------------------------------ */

typedef struct ja_outcome {
    uint32_t n_seats;
    int64_t score[JA_MAX_SEATS]; /* units of 1/JA_SCORE_UNIT */
    uint8_t place[JA_MAX_SEATS]; /* 1 = best; competition ranking (1, 1, 3) */
} ja_outcome;

/* Fills out->place from out->score (higher is better, equal scores share a
 * place, the next place skips: 1, 1, 3). */
JA_API void ja_outcome_rank(ja_outcome *out);

/* ---- The game table ----------------------------------------------------- */

typedef struct ja_game_rules {
    uint32_t struct_size;     /* sizeof(ja_game_rules) when built */
    uint32_t rules_version;   /* bumped with every change of play; in every replay */
    const char *name;         /* "taylor-blackjack" */
    const char *title;        /* "Taylor Blackjack" */
    uint8_t min_seats, max_seats;
    uint32_t state_size, obs_size, max_actions;
    uint32_t obs_version;     /* JA_<GAME>_OBS_VERSION */
    const ja_option_spec *options; /* terminated by an entry with name NULL */
    const ja_field *obs_fields;
    uint32_t n_obs_fields;

    /* Called by ja_options_resolve once the defaults of the specs are in:
     * resolves what a spec cannot say (an ENUM "auto" becomes a concrete
     * value) and checks the combination. JA_EINVAL with a one-line reason
     * in err. */
    int (*resolve_options)(ja_options *o, uint32_t n_seats, char *err, size_t cap);
    /* Starts a match. o must be resolved. JA_EINVAL for a bad seat count. */
    int (*setup)(void *st, const ja_options *o, uint32_t n_seats, uint64_t seed);
    uint32_t (*to_act)(const void *st);
    uint32_t (*legal)(const void *st, int seat, ja_action *out, uint32_t cap);
    /* by_seat is indexed by seat; only the entries of the seats in `seats`
     * are read, and `seats` must equal to_act(st). */
    int (*apply)(void *st, uint32_t seats, const ja_action *by_seat);
    ja_action (*default_action)(const void *st, int seat);
    void (*observe)(const void *st, int seat, void *obs);
    /* JA_OK once the match is over, JA_EAGAIN before. */
    int (*outcome)(const void *st, ja_outcome *out);
    /* Referee side: re-deal everything seat cannot see, and the future. */
    void (*determinize)(void *st, int seat, uint64_t seed);
    /* Bot side: a full state consistent with obs (what seat knows). JA_OK, or
     * JA_EFORMAT for an observation no state could produce. */
    int (*sample)(const void *obs, int seat, uint64_t seed, void *st_out);
    /* Human label of an action from its code alone ("play 7H"). Returns the
     * length written (snprintf-like), or JA_EINVAL for an unknown code. */
    int (*label)(ja_action a, char *buf, size_t cap);
    /* One line of public state for logs and the terminal ("game 1/6 turn 12:
     * seat 2 to play on 7H (hearts); hands 5 3 6; stock 30"). */
    int (*describe)(const void *st, char *buf, size_t cap);
    /* Optional interfaces (may be NULL): the interface named id (a
     * JA_EXT_* string, below), or NULL when the game has none of that name.
     * Call it through ja_rules_extension(). */
    const void *(*extension)(const char *id);
    /* Members are only appended after this one; readers test struct_size. */
} ja_game_rules;

/* ---- Optional interfaces ----------------------------------------------------- */

/* An optional interface is a struct of function pointers that a game may
 * offer through extension(id), for callers that need more than the table
 * (tests, tools, the referee). Its id names a version: an interface never
 * changes once published, a changed one gets a new id. A caller that does
 * not find an interface goes without it or says so. */

/* Stacked decks, for scenario tests (tests/rules) and no one else: every
 * game of the registry offers it. */
#define JA_EXT_TEST_DEAL "ja.test_deal.v1"
typedef struct ja_ext_test_deal {
    /* After setup, re-deal the current hand from a stacked deck (top
     * first; cards not named follow in ascending id order). `first` is
     * game-defined (Taylor Blackjack: the dealer; docs/rules/<game>.md).
     * JA_EINVAL, and the state unchanged, for a deck or `first` the game
     * refuses. */
    int (*test_deal)(void *st, int first, const uint8_t *cards, uint32_t n);
} ja_ext_test_deal;

/* Incremental observation, for a caller that keeps one observation buffer
 * per seat through a match (the referee): a game may offer it where
 * rebuilding the whole observation at every decision costs more than
 * bringing an older one up to date. */
#define JA_EXT_OBSERVE_UPDATE "ja.observe_update.v1"
typedef struct ja_ext_observe_update {
    /* obs (obs_size bytes) holds either what observe() wrote for this seat
     * at an earlier state of the same match (same setup, st reached from it
     * by apply()), or all zeros (never observed). Afterwards obs is
     * byte-identical to what observe(st, seat, obs) writes, zeros included:
     * update() is observe() done in fewer stores, and does a whole
     * observe() (a zero buffer always does) whenever it cannot be sure what
     * changed, or when that is cheaper. It copies nothing observe() would
     * not, allocates nothing and reads no other memory than st and obs.
     * Given anything else (another seat's or another match's observation,
     * a buffer changed since), the result is unspecified, though never an
     * access outside st and obs. */
    void (*update)(const void *st, int seat, void *obs);
} ja_ext_observe_update;

/* The public (spectator) observation: what the table shows to everyone,
 * for broadcasts and the viewer's public view (`arena replay show --public`).
 *  - observe_public() zeroes the whole observation (obs_size bytes, the
 *    game's own observation struct), then fills exactly what every seat may
 *    know: the options, the table, discards, scores, whose turn, counts of
 *    cards in hands where the rules make them public, the public events.
 *    Never a hand's contents, a card only one seat sees, the order of a
 *    hidden stock, the seed or the PRNG.
 *  - Its `seat` field is JA_OBS_NO_SEAT (255): no seat observes; n_seats
 *    is set as for a seat.
 *  - Every field it fills holds what each seat's observe() writes there
 *    where that field is public (docs/rules/<game>.md, "Public view", says
 *    per game which fields are); fields private to a seat hold what no seat
 *    would see (zeros, or the game's "none" value).
 *  - determinize(st, s) leaves observe_public(st) byte-identical, for every
 *    seat s: nothing of it depends on a card some seat cannot see.
 *  - Like observe(), it allocates nothing, blocks on nothing and reads no
 *    memory but st and obs.
 * tests/rules/test_all_games.c checks these for every game that offers it
 * (every game of the registry does). */
#define JA_EXT_OBSERVE_PUBLIC "ja.observe_public.v1"
#define JA_OBS_NO_SEAT 255u /* the `seat` field of a public observation */
typedef struct ja_ext_observe_public {
    void (*observe_public)(const void *st, void *obs);
} ja_ext_observe_public;

/* Chance, for luck-adjusted results (AIVAT, docs/ratings.md): the part of
 * a state that no seat has seen (the stock and any other face-down cards
 * nobody looked at, a hidden order the rules draw) and the future (the seeds
 * of the deals and shuffles still to come). REFEREE AND ANALYSIS SIDE ONLY:
 * it reads and rewrites what no seat may know, and must never be offered to
 * a bot (no plugin or client ever gets it).
 *  - unseen() writes the ids of the cards no seat has seen, in the order of
 *    their places (the stock top first, then any other face-down place in
 *    the game's own order), at most cap of them (cards may be NULL when cap
 *    is 0), and returns how many there are. 0 when every card is seen by
 *    some seat (all dealt), or the match is over.
 *  - reshuffle() permutes those cards uniformly at random among their
 *    places, redraws any other hidden chance outcome uniformly (Bruise
 *    Jack's Way 1 row order), and replaces the future from seed. Every
 *    seat's observe(), observe_public(), to_act() and legal() are unchanged,
 *    and so is the multiset of unseen cards. The result depends only on what
 *    some seat has seen and on seed: two states that differ only in their
 *    unseen cards' order and their future are byte-identical after
 *    reshuffle() with the same seed (so reshuffle(reshuffle(s, a), b)
 *    equals reshuffle(s, b)). With no unseen card it still replaces the
 *    future.
 *  - progress() returns the number of the deal in play (0-based, counting
 *    every game, hand or replayed hand of the match, so it changes exactly
 *    when a new deal starts) and writes to so_far (not NULL) the scores the
 *    match would have if it stopped now, in outcome()'s units (places
 *    ranked from them): what a playout may stop at, a deal's end, when later
 *    deals do not depend on this one's chance.
 *  - None allocates or reads memory but st (and cards, so_far). */
#define JA_EXT_CHANCE "ja.chance.v1"
typedef struct ja_ext_chance {
    uint32_t (*unseen)(const void *st, uint8_t *cards, uint32_t cap);
    void (*reshuffle)(void *st, uint64_t seed);
    uint32_t (*progress)(const void *st, ja_outcome *so_far);
} ja_ext_chance;

/* g's optional interface id, or NULL: when g is built without the member
 * (its struct_size does not cover it), has no extension(), or extension(id)
 * gives NULL. */
static inline const void *ja_rules_extension(const ja_game_rules *g, const char *id)
{
    if (!g || !id ||
        g->struct_size < offsetof(ja_game_rules, extension) + sizeof g->extension ||
        !g->extension)
        return NULL;
    return g->extension(id);
}

/* The registry: every game, in a fixed order, NULL-terminated. */
JA_API extern const ja_game_rules *const ja_games[];

/* The game named name, or NULL. */
JA_API const ja_game_rules *ja_game_find(const char *name);

/* ---- Option helpers (generic over option specs) ------------------------- */

/* Clears o for game g: no option given. */
JA_API void ja_options_init(const ja_game_rules *g, ja_options *o);

/* Sets one option from "key=value". JA_EINVAL with a one-line message that
 * names the problem and lists what is allowed. */
JA_API int ja_options_set(const ja_game_rules *g, ja_options *o, const char *kv,
                          char *err, size_t cap);

/* Checks the seat count, fills each option not given with its spec's
 * default (ja_option_spec.def), then calls g->resolve_options. */
JA_API int ja_options_resolve(const ja_game_rules *g, ja_options *o, uint32_t n_seats,
                              char *err, size_t cap);

/* Index of the option named name, or -1. */
JA_API int ja_options_index(const ja_game_rules *g, const char *name);

/* Writes option i's value as text ("auto", "600"). Returns length. */
JA_API int ja_options_value_str(const ja_game_rules *g, const ja_options *o, int i,
                                char *buf, size_t cap);

/* Canonical text of all options, "k=v k=v" in spec order (the ladder key and
 * the digest use it). Returns the length, or JA_ERANGE if cap is too small. */
JA_API int ja_options_format(const ja_game_rules *g, const ja_options *o, char *buf,
                             size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* JA_RULES_H */
