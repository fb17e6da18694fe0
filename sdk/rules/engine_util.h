/* Helpers shared by the rules engines (sdk/rules/<game>.c): the scaffolding
 * every engine needs and none should write again. INTERNAL: not installed,
 * not part of the SDK's interface; everything is static inline, so nothing
 * here adds a symbol to the library.
 *
 *  - Decisions: the checks of apply() for a game with one seat deciding, and
 *    is_legal() by the engine's own legal().
 *  - Outcome: outcome() from per-seat points.
 *  - Event rings: the public events an engine keeps (event number q,
 *    1-based, in slot (q - 1) % cap of every column), their copy into an
 *    observation (oldest first), the update of an older observation's copy
 *    (JA_EXT_OBSERVE_UPDATE), and back (sample()).
 *  - Card sets with twins: one or two packs of 52 (jokers left out), the
 *    second pack's ids JA_CARDS_PER_PACK above the first (ja_cards.h), held
 *    as 128-bit sets.
 *  - Stacked decks: the deck of test_deal() and the extension() that offers
 *    it (ja_rules.h, JA_EXT_TEST_DEAL).
 *  - describe(): a line built by pieces in a fixed buffer.
 *  - Options: one X-macro list gives an engine's OPT_* enum and its option
 *    specs, and setup() takes the defaults from the specs.
 *  - Bit counts: a portable population count (no POPCNT on baseline x86-64).
 *
 * Like the engines, nothing here allocates, blocks or keeps global mutable
 * state: the helpers are safe on the hot paths (legal, apply, observe). */
#ifndef JA_ENGINE_UTIL_H
#define JA_ENGINE_UTIL_H

#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_rules.h"
#include "options_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Bit counts --------------------------------------------------------------------- */

/* The number of bits set in x, without __builtin_popcount: the build targets
 * baseline x86-64 (no POPCNT instruction), where the builtin is a call into
 * libgcc's table-driven __popcountdi2. This is the branch-free parallel count
 * ("SWAR"): pairs, then nibbles, then bytes summed by one multiply (Warren,
 * Hacker's Delight, 2nd ed., section 5-1, figure 5-2; Sean Eron Anderson,
 * "Bit Twiddling Hacks", "Counting bits set, in parallel"). */
static inline int eu_popcount64(uint64_t x)
{
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* The same for 32 bits (Hacker's Delight 5-1, figure 5-2, as it stands). */
static inline int eu_popcount32(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (int)((x * 0x01010101u) >> 24);
}

/* ---- The table and the observation ------------------------------------------------ */

/* The members of an engine's ja_game_rules that follow from its state type
 * T, its observation type O and version: struct_size, state_size, obs_size,
 * obs_version. */
#define EU_RULES_TYPES(T, O, obs_ver)                                                          \
    .struct_size = sizeof(ja_game_rules), .state_size = sizeof(T), .obs_size = sizeof(O),      \
    .obs_version = obs_ver

/* The members of an engine's ja_game_rules that its prefix p names: the
 * specs `options`, the field table `obs_fields` and the functions
 * p_resolve_options .. p_extension. */
#define EU_RULES_FUNCS(p)                                                                      \
    .options = options, .obs_fields = obs_fields,                                              \
    .n_obs_fields = sizeof obs_fields / sizeof obs_fields[0],                                  \
    .resolve_options = p##_resolve_options, .setup = p##_setup, .to_act = p##_to_act,          \
    .legal = p##_legal, .apply = p##_apply, .default_action = p##_default_action,              \
    .observe = p##_observe, .outcome = p##_outcome, .determinize = p##_determinize,            \
    .sample = p##_sample, .label = p##_label, .describe = p##_describe,                        \
    .extension = p##_extension

/* The field table from the observation's X-macro list, for the struct type
 * the engine names EU_OBS_T:
 *     #define EU_OBS_T ja_taylor_obs
 *     static const ja_field obs_fields[] = {JA_TAYLOR_OBS_FIELDS(EU_FIELD_S, EU_FIELD_A)}; */
#define EU_FIELD_S(T, name, doc) JA__FIELD_S(EU_OBS_T, T, name, doc)
#define EU_FIELD_A(T, name, n, doc) JA__FIELD_A(EU_OBS_T, T, name, n, doc)

/* The start of observe(): zeroes the whole observation (size bytes); for
 * one of the n seats, writes the observation's `seat` and `n_seats` fields
 * and returns true; for another seat returns false, and observe() writes
 * nothing more. */
static inline bool eu_obs_begin(void *obs, size_t size, int seat, int n, uint8_t *seat_field,
                                uint8_t *n_field)
{
    /* Hidden from the optimiser, the size keeps memset a call into libc's
     * vector memset: a constant size would be inlined as `rep stos`, whose
     * start-up costs more than zeroing the few kilobytes of an observation. */
    __asm__("" : "+r"(size));
    memset(obs, 0, size);
    if (seat < 0 || seat >= n)
        return false;
    *seat_field = (uint8_t)seat;
    *n_field = (uint8_t)n;
    return true;
}

/* ---- Decisions --------------------------------------------------------------- */

/* The checks of apply() when one seat, `cur`, decides (to_act() is 1 << cur
 * unless `over`): JA_EINVAL without by_seat, JA_EILLEGAL when the match is
 * over or `seats` is not exactly that seat; else JA_OK with the seat's code
 * in *code (whose legality the engine still checks). */
static inline int eu_one_seat(bool over, int cur, uint32_t seats, const ja_action *by_seat,
                              uint32_t *code)
{
    if (!by_seat)
        return JA_EINVAL;
    if (over || seats != (UINT32_C(1) << cur))
        return JA_EILLEGAL;
    *code = by_seat[cur].code;
    return JA_OK;
}

typedef uint32_t (*eu_legal_fn)(const void *st, int seat, ja_action *out, uint32_t cap);

/* Whether code is among the actions legal() lists for seat (a seat not asked
 * has none). For engines whose legality is best decided by listing. */
static inline bool eu_is_legal(eu_legal_fn legal, const void *st, int seat, uint32_t code)
{
    ja_action l[JA_MAX_ACTIONS];
    uint32_t n = legal(st, seat, l, JA_MAX_ACTIONS);
    for (uint32_t i = 0; i < n; i++)
        if (l[i].code == code)
            return true;
    return false;
}

/* Defines p_apply() for a game where one seat decides, with state type T
 * (`s` in `over`, the condition that the match is over): the checks of
 * eu_one_seat, then the engine's is_legal(s, code) (JA_EILLEGAL when not)
 * and step(s, code), which plays the decision and every automatic step up
 * to the next decision. */
#define EU_ONE_SEAT_APPLY(p, T, over)                                                          \
    static int p##_apply(void *st, uint32_t seats, const ja_action *by_seat)                   \
    {                                                                                          \
        T *s = st;                                                                             \
        uint32_t code = 0;                                                                     \
        int rc = eu_one_seat(over, s->cur, seats, by_seat, &code);                             \
        if (rc != JA_OK || !is_legal(s, code))                                                 \
            return rc != JA_OK ? rc : JA_EILLEGAL;                                             \
        step(s, code);                                                                         \
        return JA_OK;                                                                          \
    }

/* legal()'s list: counts every code put, writes those that fit in cap. */
static inline void eu_put(ja_action *out, uint32_t cap, uint32_t *n, uint32_t code)
{
    if (*n < cap)
        out[*n].code = code;
    (*n)++;
}

/* ---- Outcome ------------------------------------------------------------------ */

/* outcome() for n seats: JA_EAGAIN until `over`; then seat i's score is
 * (a[i] + b[i]) * unit (b may be NULL), in units of 1/JA_SCORE_UNIT, and the
 * places follow by ja_outcome_rank. */
static inline int eu_outcome(ja_outcome *out, bool over, uint32_t n, const int32_t *a,
                             const int32_t *b, int64_t unit)
{
    if (!over)
        return JA_EAGAIN;
    memset(out, 0, sizeof *out);
    out->n_seats = n;
    for (uint32_t i = 0; i < n; i++)
        out->score[i] = (int64_t)(a[i] + (b ? b[i] : 0)) * unit;
    ja_outcome_rank(out);
    return JA_OK;
}

/* ---- Event rings ----------------------------------------------------------------- */

/* An engine keeps its recent public events as columns (one array per field,
 * `cap` slots each) and a count `seq` of the events so far: event number q
 * (1-based) sits in slot (q - 1) % cap. The observation has the same
 * columns, named alike (ev_kind, ev_seat...), plus `event_seq` and `ev_seq`
 * (each entry's number, 0 for an empty one), oldest event first. */

/* The slot of a new event; counts it. */
static inline uint32_t eu_ring_push(uint32_t *seq, uint32_t cap)
{
    uint32_t slot = *seq % cap;
    (*seq)++;
    return slot;
}

/* Writes the numbers of the newest min(seq, cap) events, oldest first, into
 * ev_seq and returns how many. */
static inline uint32_t eu_ring_seqs(uint32_t *ev_seq, uint32_t seq, uint32_t cap)
{
    if (seq >= cap) {
        /* A full ring, most of a match: a loop of cap (a constant where
         * this is inlined) that the compiler unrolls into vector stores. */
        const uint32_t first = seq - cap + 1;
        for (uint32_t i = 0; i < cap; i++)
            ev_seq[i] = first + i;
        return cap;
    }
    for (uint32_t i = 0; i < seq; i++)
        ev_seq[i] = i + 1;
    return seq;
}

/* Copies one column (elements of `size` bytes): the newest min(seq, cap)
 * entries of the ring `col`, oldest first, into out. */
static inline void eu_ring_out(void *out, const void *col, size_t size, uint32_t seq,
                               uint32_t cap)
{
    const uint32_t k = seq < cap ? seq : cap, first = (seq - k) % cap;
    const uint32_t a = k < cap - first ? k : cap - first; /* up to the ring's end */
    memcpy(out, (const uint8_t *)col + (size_t)first * size, (size_t)a * size);
    memcpy((uint8_t *)out + (size_t)a * size, col, (size_t)(k - a) * size);
}

/* The reverse, for sample(): each entry i of the observation's column `in`
 * whose number ev_seq[i] is not 0 goes to its slot of the ring `col`. */
static inline void eu_ring_in(void *col, const void *in, size_t size, const uint32_t *ev_seq,
                              uint32_t cap)
{
    for (uint32_t i = 0; i < cap; i++)
        if (ev_seq[i] != 0)
            memcpy((uint8_t *)col + (size_t)((ev_seq[i] - 1) % cap) * size,
                   (const uint8_t *)in + (size_t)i * size, size);
}

/* EU_EACH(F, a, x1, ..., xk) expands to F(a, x1) ... F(a, xk), k <= 8. */
#define EU__EACH1(F, a, x) F(a, x)
#define EU__EACH2(F, a, x, ...) F(a, x) EU__EACH1(F, a, __VA_ARGS__)
#define EU__EACH3(F, a, x, ...) F(a, x) EU__EACH2(F, a, __VA_ARGS__)
#define EU__EACH4(F, a, x, ...) F(a, x) EU__EACH3(F, a, __VA_ARGS__)
#define EU__EACH5(F, a, x, ...) F(a, x) EU__EACH4(F, a, __VA_ARGS__)
#define EU__EACH6(F, a, x, ...) F(a, x) EU__EACH5(F, a, __VA_ARGS__)
#define EU__EACH7(F, a, x, ...) F(a, x) EU__EACH6(F, a, __VA_ARGS__)
#define EU__EACH8(F, a, x, ...) F(a, x) EU__EACH7(F, a, __VA_ARGS__)
#define EU__PICK(_1, _2, _3, _4, _5, _6, _7, _8, N, ...) N
#define EU_EACH(F, a, ...)                                                                     \
    EU__PICK(__VA_ARGS__, EU__EACH8, EU__EACH7, EU__EACH6, EU__EACH5, EU__EACH4, EU__EACH3,    \
             EU__EACH2, EU__EACH1, )(F, a, __VA_ARGS__)

/* a = (obs, ring, seq, cap) or (obs, ring, cap): one column each way, the
 * element sizes of the two sides checked. */
#define EU__UNPACK(...) __VA_ARGS__
#define EU__CALL(M, ...) M(__VA_ARGS__)
#define EU__OUT(a, col) EU__CALL(EU__OUT_COL, EU__UNPACK a, col)
#define EU__OUT_COL(obs, ring, seq, cap, col)                                                  \
    _Static_assert(sizeof (obs)->col[0] == sizeof (ring)->col[0], "event column " #col);       \
    eu_ring_out((obs)->col, (ring)->col, sizeof (ring)->col[0], seq, cap);
#define EU__IN(a, col) EU__CALL(EU__IN_COL, EU__UNPACK a, col)
#define EU__IN_COL(obs, ring, cap, col)                                                        \
    _Static_assert(sizeof (obs)->col[0] == sizeof (ring)->col[0], "event column " #col);       \
    eu_ring_in((ring)->col, (obs)->col, sizeof (ring)->col[0], (obs)->ev_seq, cap);

/* In observe(): the events of the ring into obs (event_seq, ev_seq and the
 * named columns, which ring and obs both have). */
#define EU_EVENTS_OUT(obs, ring, seq, cap, ...)                                                \
    do {                                                                                       \
        (obs)->event_seq = (seq);                                                              \
        eu_ring_seqs((obs)->ev_seq, (seq), (cap));                                             \
        EU_EACH(EU__OUT, (obs, ring, seq, cap), __VA_ARGS__)                                   \
    } while (0)

/* In an incremental observe (JA_EXT_OBSERVE_UPDATE): an observation's
 * event columns hold the events up to number old and must hold those up to
 * seq (old <= seq, seq - old <= cap). The columns are n_cols one-byte
 * columns of cap entries each, one after the other from cols. Moves the
 * entries that stay (the newest min(seq, cap) but the seq - old new ones)
 * to the front of every column, with one memmove over all of them, and
 * returns how many stay: the new events go at that position on (event
 * old + 1 first). What the move leaves behind those is overwritten by them.
 * The caller rewrites ev_seq (eu_ring_seqs). */
static inline uint32_t eu_ring_shift(uint8_t *cols, uint32_t n_cols, uint32_t old, uint32_t seq,
                                     uint32_t cap)
{
    const uint32_t k_old = old < cap ? old : cap, k_new = seq < cap ? seq : cap;
    const uint32_t keep = k_new - (seq - old), gone = k_old - keep;
    if (gone > 0 && keep > 0)
        memmove(cols, cols + gone, (size_t)n_cols * cap - gone);
    return keep;
}

/* In sample(): the events of obs back into the ring (the caller sets the
 * ring's count from obs->event_seq). */
#define EU_EVENTS_IN(ring, obs, cap, ...)                                                      \
    do {                                                                                       \
        EU_EACH(EU__IN, (obs, ring, cap), __VA_ARGS__)                                         \
    } while (0)

/* ---- Card sets with twins ---------------------------------------------------------- */

/* Card ids of a game of one or two packs without jokers: 0..51, and with two
 * packs their twins 54..105 (id + JA_CARDS_PER_PACK); a card's identity is
 * its first-pack id. A set of such ids is two words: bit id of the 128. */
#define EU_TWIN JA_CARDS_PER_PACK
#define EU_TWIN_END (EU_TWIN + 52u) /* one past the highest id */
#define EU_MASK52 ((UINT64_C(1) << 52) - 1)

/* ja_card_ident for these ids, without a division (observe's copy loops
 * vectorise). */
static inline uint8_t eu_ident(uint8_t id) { return (uint8_t)(id - (id >= EU_TWIN ? EU_TWIN : 0)); }

static inline bool eu_twin_valid(unsigned packs, unsigned id)
{
    return id < 52 || (packs == 2 && id >= EU_TWIN && id < EU_TWIN_END);
}

static inline bool eu_set_has(const uint64_t set[2], uint8_t id)
{
    return (set[id >> 6] >> (id & 63)) & 1u;
}

static inline void eu_set_add(uint64_t set[2], uint8_t id) { set[id >> 6] |= UINT64_C(1) << (id & 63); }

static inline void eu_set_del(uint64_t set[2], uint8_t id)
{
    set[id >> 6] &= ~(UINT64_C(1) << (id & 63));
}

/* The first pack's ids (bits 0..51 of word 0). */
static inline uint64_t eu_set_first(const uint64_t set[2]) { return set[0] & EU_MASK52; }

/* The second pack's ids (54..105: bits 54..63 of word 0 and 0..41 of word
 * 1), as identities. */
static inline uint64_t eu_set_second(const uint64_t set[2])
{
    return ((set[0] >> EU_TWIN) | (set[1] << (128 - EU_TWIN - 64))) & EU_MASK52;
}

/* The copies (0, 1 or 2) of identity c in the set. */
static inline int eu_set_copies(const uint64_t set[2], int c)
{
    return eu_set_has(set, (uint8_t)c) + eu_set_has(set, (uint8_t)(c + EU_TWIN));
}

/* Bit c set when the set holds at least one card of identity c. */
static inline uint64_t eu_set_idents(const uint64_t set[2])
{
    return eu_set_first(set) | eu_set_second(set);
}

/* EU_SPREAD8[b]: byte i of the word is bit i of b (0 or 1). The multiply
 * copies b into every byte, the mask keeps bit i in byte i, and adding 0x7f
 * to each byte (no carry out of it: at most 0x80 + 0x7f) sets the byte's
 * top bit exactly when that bit was set; the shift brings it down. */
#define EU_SPREAD8_OF(b)                                                                       \
    (((((uint64_t)(b) * UINT64_C(0x0101010101010101)) & UINT64_C(0x8040201008040201)) +        \
      UINT64_C(0x7f7f7f7f7f7f7f7f)) >> 7 & UINT64_C(0x0101010101010101))
#define EU__S4(b)                                                                              \
    EU_SPREAD8_OF(b), EU_SPREAD8_OF((b) + 1), EU_SPREAD8_OF((b) + 2), EU_SPREAD8_OF((b) + 3)
#define EU__S16(b) EU__S4(b), EU__S4((b) + 4), EU__S4((b) + 8), EU__S4((b) + 12)
#define EU__S64(b) EU__S16(b), EU__S16((b) + 16), EU__S16((b) + 32), EU__S16((b) + 48)
static const uint64_t EU_SPREAD8[256] = {EU__S64(0), EU__S64(64), EU__S64(128), EU__S64(192)};
#undef EU__S64
#undef EU__S16
#undef EU__S4

/* Stores the 8 bytes of w, byte 0 its lowest, at out (n of them). */
static inline void eu_put_bytes(uint8_t *out, uint64_t w, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    memcpy(out, &w, n);
}

/* count[c] = the copies (0, 1 or 2) of identity c in the set, for all 52
 * identities: eight at a time from EU_SPREAD8, with no branch. (A loop
 * over the cards held, into zeroed counts, mispredicted its end at every
 * call: this is about twice as fast, and an incremental observation calls
 * it for the acting seat's hand at most decisions.) */
static inline void eu_set_counts(const uint64_t set[2], uint8_t count[52])
{
    const uint64_t first = eu_set_first(set), second = eu_set_second(set);
    for (unsigned k = 0; k < 48; k += 8) {
        const uint64_t w = EU_SPREAD8[(first >> k) & 0xff] + EU_SPREAD8[(second >> k) & 0xff];
        eu_put_bytes(count + k, w, 8);
    }
    eu_put_bytes(count + 48, EU_SPREAD8[first >> 48] + EU_SPREAD8[second >> 48], 4);
}

/* The lowest id of identity c in the set, which holds one. */
static inline uint8_t eu_set_lowest(const uint64_t set[2], int c)
{
    return eu_set_has(set, (uint8_t)c) ? (uint8_t)c : (uint8_t)(c + EU_TWIN);
}

/* The full deck of `packs` packs in ascending id order. Returns its size. */
static inline uint32_t eu_twin_deck(unsigned packs, uint8_t *deck)
{
    uint32_t k = 0;
    for (unsigned id = 0; id < EU_TWIN_END; id++)
        if (eu_twin_valid(packs, id))
            deck[k++] = (uint8_t)id;
    return k;
}

/* The first dealer of a match of n seats and this seed: a seat drawn on the
 * stream (JA_STREAM_MISC, 0). */
static inline uint8_t eu_first_dealer(uint64_t seed, uint32_t n)
{
    ja_rng r;
    ja_rng_stream(&r, seed, JA_STREAM_MISC, 0);
    return (uint8_t)ja_rng_below(&r, n);
}

/* Hands of such sets with their sizes: hand[seat] and count[seat]. */
static inline void eu_hand_add(uint64_t hand[2], uint8_t *count, uint8_t id)
{
    eu_set_add(hand, id);
    (*count)++;
}

static inline void eu_hand_del(uint64_t hand[2], uint8_t *count, uint8_t id)
{
    eu_set_del(hand, id);
    (*count)--;
}

/* The deck of `packs` packs shuffled on the stream (JA_STREAM_DEAL, index)
 * of seed: a game's deal. Returns its size. */
static inline uint32_t eu_twin_shuffled(uint64_t seed, uint64_t index, unsigned packs,
                                        uint8_t *deck)
{
    uint32_t total = eu_twin_deck(packs, deck);
    ja_rng r;
    ja_rng_stream(&r, seed, JA_STREAM_DEAL, index);
    ja_shuffle_u8(&r, deck, total);
    return total;
}

/* Shuffles pool[0 .. m) on (seed, JA_STREAM_DETZ, 0) and deals it out:
 * slots[p] cards to each of the n hands in seat order, then stock[0 .. k)
 * for the k cards left (stock may be NULL when none are). */
static inline void eu_deal_pool(uint8_t *pool, uint32_t m, uint64_t seed, const uint8_t *slots,
                                int n, uint64_t (*hand)[2], uint8_t *count, uint8_t *stock)
{
    ja_rng r;
    ja_rng_stream(&r, seed, JA_STREAM_DETZ, 0);
    ja_shuffle_u8(&r, pool, m);
    uint32_t k = 0;
    for (int p = 0; p < n; p++)
        for (int j = 0; j < slots[p]; j++)
            eu_hand_add(hand[p], &count[p], pool[k++]);
    for (uint32_t i = 0; k < m; i++)
        stock[i] = pool[k++];
}

/* determinize() of n hands of such sets (hand, count) with known[o][c] the
 * copies of identity c that every seat knows to be in hand o: takes out of
 * every hand but seat's the cards not known to be there (the lowest ids of
 * an identity count as the known ones), and the cards stock[pos .. len)
 * unless stock is NULL; shuffles them on (seed, JA_STREAM_DETZ, 0) and deals
 * them back to the same places, hands in seat order, then the stock. */
static inline void eu_twin_redeal(uint64_t (*hand)[2], uint8_t *count, uint8_t (*known)[52],
                                  int n, int seat, uint8_t *stock, uint32_t pos, uint32_t len,
                                  uint64_t seed)
{
    uint8_t pool[EU_TWIN_END + 256], slots[JA_MAX_SEATS] = {0}; /* every id, a full stock */
    uint32_t m = 0;
    for (int o = 0; o < n; o++) {
        if (o == seat)
            continue;
        uint8_t keep[52];
        memcpy(keep, known[o], 52);
        for (int w = 0; w < 2; w++)
            for (uint64_t bits = hand[o][w]; bits; bits &= bits - 1) {
                uint8_t id = (uint8_t)(64 * w + __builtin_ctzll(bits)), c = eu_ident(id);
                if (keep[c]) {
                    keep[c]--;
                    continue;
                }
                eu_hand_del(hand[o], &count[o], id);
                pool[m++] = id;
                slots[o]++;
            }
    }
    for (uint32_t i = pos; stock && i < len; i++)
        pool[m++] = stock[i];
    eu_deal_pool(pool, m, seed, slots, n, hand, count, stock ? stock + pos : NULL);
}

/* ---- Chance (JA_EXT_CHANCE) ------------------------------------------------------------ */

/* reshuffle() of the m unseen cards a[0 .. m): sorts them by id (so the
 * result does not depend on their order before), then shuffles them on
 * (seed, JA_STREAM_CHNC, index). */
static inline void eu_chance_shuffle(uint8_t *a, uint32_t m, uint64_t seed, uint64_t index)
{
    uint16_t count[256] = {0};
    for (uint32_t i = 0; i < m; i++)
        count[a[i]]++;
    for (uint32_t c = 0, k = 0; c < 256; c++)
        for (uint16_t j = 0; j < count[c]; j++)
            a[k++] = (uint8_t)c;
    ja_rng r;
    ja_rng_stream(&r, seed, JA_STREAM_CHNC, index);
    ja_shuffle_u8(&r, a, m);
}

/* unseen() of cards src[0 .. m): copies up to cap of them into out (which
 * may be NULL when cap is 0) and returns m. */
static inline uint32_t eu_unseen_copy(const uint8_t *src, uint32_t m, uint8_t *out, uint32_t cap)
{
    if (out)
        memcpy(out, src, m < cap ? m : cap);
    return m;
}

/* sample() of such hands: the cards still to place, by identity. Placing a
 * card of identity c takes the first pack's copy, then the second's. */
typedef struct eu_left {
    unsigned packs;
    int left[52]; /* copies of identity c not yet placed */
} eu_left;

static inline void eu_left_init(eu_left *l, unsigned packs)
{
    l->packs = packs;
    for (int c = 0; c < 52; c++)
        l->left[c] = (int)packs;
}

/* One copy of identity c into *id: JA_OK, or JA_EFORMAT for c >= 52 or no
 * copy left. */
static inline int eu_left_take(eu_left *l, unsigned c, uint8_t *id)
{
    if (c >= 52 || l->left[c] <= 0)
        return JA_EFORMAT;
    *id = (uint8_t)(c + (l->packs - (unsigned)l->left[c]) * EU_TWIN);
    l->left[c]--;
    return JA_OK;
}

/* TAKE(c, out_id) in sample(), over an eu_left named `left`: one copy of
 * identity c into out_id, or return JA_EFORMAT from sample(). */
#define EU_TAKE(c, out_id)                                                                     \
    do {                                                                                       \
        if (eu_left_take(&left, (c), &(out_id)) != JA_OK)                                      \
            return JA_EFORMAT;                                                                 \
    } while (0)

/* Places in each hand p but seat's the known[52 * p + c] copies of each
 * identity c (an observation's `known`), and sets unknown[p] to the rest of
 * its held[p] cards. JA_EFORMAT when a copy is missing or more are known
 * than held. */
static inline int eu_left_known(eu_left *l, const uint8_t *known, const uint8_t *held, int n,
                                int seat, uint64_t (*hand)[2], uint8_t *count, uint8_t *unknown)
{
    for (int p = 0; p < n; p++) {
        if (p == seat)
            continue;
        uint32_t kn = 0;
        for (int c = 0; c < 52; c++)
            for (int j = 0; j < known[52 * p + c]; j++, kn++) {
                uint8_t id;
                if (eu_left_take(l, (unsigned)c, &id) != JA_OK)
                    return JA_EFORMAT;
                eu_hand_add(hand[p], &count[p], id);
            }
        if (kn > held[p])
            return JA_EFORMAT;
        unknown[p] = (uint8_t)(held[p] - kn);
    }
    return JA_OK;
}

/* Deals every card left, shuffled on (seed, JA_STREAM_DETZ, 0): unknown[p]
 * to each hand p in seat order, then stock[0 .. n_stock). JA_EFORMAT, and
 * nothing dealt, unless the cards left are exactly that many. */
static inline int eu_left_deal(eu_left *l, const uint8_t *unknown, int n, uint64_t (*hand)[2],
                               uint8_t *count, uint8_t *stock, uint32_t n_stock, uint64_t seed)
{
    uint8_t pool[2 * 52];
    uint32_t m = 0, need = n_stock;
    for (int c = 0; c < 52; c++)
        for (; l->left[c] > 0; l->left[c]--) {
            if (m == sizeof pool)
                return JA_EFORMAT;
            pool[m++] = (uint8_t)(c + (l->packs - (unsigned)l->left[c]) * EU_TWIN);
        }
    for (int p = 0; p < n; p++)
        need += unknown[p];
    if (m != need)
        return JA_EFORMAT;
    eu_deal_pool(pool, m, seed, unknown, n, hand, count, stock);
    return JA_OK;
}

/* ---- Stacked decks (test_deal) --------------------------------------------------------- */

/* The deck of test_deal(): cards[0..n) first (cards[0] on top), then every
 * card not named, in ascending id order. The ids are 0..base-1, and with
 * packs == 2 their twins EU_TWIN..EU_TWIN+base-1 too (base <= EU_TWIN
 * then); with two packs an id named a second time means its twin. Returns
 * the deck's size, base * packs, or JA_EINVAL for n above it, cards NULL,
 * or a card out of range or named too often. */
static inline int eu_stack_deck(const uint8_t *cards, uint32_t n, unsigned base, unsigned packs,
                                uint8_t *deck)
{
    const unsigned end = packs == 2 ? EU_TWIN + base : base;
    uint8_t used[256] = {0};
    uint32_t k = 0;
    if (n > base * packs || (n && !cards))
        return JA_EINVAL;
    for (uint32_t i = 0; i < n; i++) {
        unsigned id = cards[i];
        if (id < base && used[id] && packs == 2)
            id += EU_TWIN;
        if (id >= end || (id >= base && id < EU_TWIN) || used[id])
            return JA_EINVAL;
        used[id] = 1;
        deck[k++] = (uint8_t)id;
    }
    for (unsigned id = 0; id < end; id++)
        if ((id < base || id >= EU_TWIN) && !used[id])
            deck[k++] = (uint8_t)id;
    return (int)k;
}

/* The extension() of an engine whose optional interfaces are test_deal,
 * observe_update and observe_public: td for JA_EXT_TEST_DEAL, ou for
 * JA_EXT_OBSERVE_UPDATE, op for JA_EXT_OBSERVE_PUBLIC, else NULL. */
static inline const void *eu_extension(const char *id, const ja_ext_test_deal *td,
                                       const ja_ext_observe_update *ou,
                                       const ja_ext_observe_public *op, const ja_ext_chance *ch)
{
    if (!id)
        return NULL;
    if (strcmp(id, JA_EXT_TEST_DEAL) == 0)
        return td;
    if (strcmp(id, JA_EXT_OBSERVE_PUBLIC) == 0)
        return op;
    if (strcmp(id, JA_EXT_CHANCE) == 0)
        return ch;
    return strcmp(id, JA_EXT_OBSERVE_UPDATE) == 0 ? ou : NULL;
}

/* The start of observe_public() (JA_EXT_OBSERVE_PUBLIC): zeroes the whole
 * observation (size bytes) and writes its `seat` field as JA_OBS_NO_SEAT
 * and `n_seats` as n. */
static inline void eu_obs_public_begin(void *obs, size_t size, int n, uint8_t *seat_field,
                                       uint8_t *n_field)
{
    memset(obs, 0, size);
    *seat_field = (uint8_t)JA_OBS_NO_SEAT;
    *n_field = (uint8_t)n;
}

/* ---- describe() ------------------------------------------------------------------------ */

/* A line built by pieces in the array `buf` (EU_TEXT(array)): eu_add
 * appends printf-style; what does not fit is cut, and buf stays a C string
 * once anything was added. */
typedef struct eu_text {
    char *buf;
    size_t cap, len;
} eu_text;
#define EU_TEXT(array) {(array), sizeof(array), 0}

static inline void eu_add(eu_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void eu_add(eu_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (w > 0)
        t->len = t->len + (size_t)w < t->cap ? t->len + (size_t)w : t->cap - 1;
}

/* ---- Options ------------------------------------------------------------------------------ */

/* An engine lists its options once, in an X-macro of entries
 *     X(ID, "name", kind, "values", min, max, "default", "help")
 * from which come both its enum (OPT_ID...) and its option specs, so that
 * their orders cannot drift:
 *     enum { GAME_OPTIONS(EU_OPT_ID) OPT_COUNT };
 *     static const ja_option_spec options[] = {GAME_OPTIONS(EU_OPT_SPEC) EU_OPT_END};
 *     EU_OPT_CHECK(options);
 * and setup() reads the values with eu_option_values(options, ...). */
#define EU_OPT_ID(id, ...) OPT_##id,
#define EU_OPT_SPEC(id, name, kind, values, min, max, def, help) \
    {name, kind, values, min, max, def, help},
#define EU_OPT_END {NULL, JA_OPT_ENUM, NULL, 0, 0, NULL, NULL}
#define EU_OPT_CHECK(spec) \
    _Static_assert(sizeof(spec) / sizeof(spec)[0] == OPT_COUNT + 1, "option specs and OPT_* enum")

/* The option values setup() plays with, v[0..count): each option's default
 * from its spec (ja_option_default, the reading ja_options_resolve makes),
 * then the values of o (which may be NULL; only its first
 * o->n); a value 0 of an option whose default depends on the seat count was
 * not resolved, and keeps that default. */
static inline void eu_option_values(const ja_option_spec *spec, const ja_options *o,
                                    uint32_t n_seats, int32_t *v, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        int per_seat = ja_option_default(&spec[i], n_seats, &v[i]);
        if (o && i < o->n && !(per_seat == 1 && o->value[i] == 0))
            v[i] = o->value[i];
    }
}

#endif /* JA_ENGINE_UTIL_H */
