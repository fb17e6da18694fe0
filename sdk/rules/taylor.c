/* Taylor Blackjack: the rules engine (a shedding game in the Crazy Eights
 * family). It implements the project's specification of the game; the rules
 * as implemented, with every decision the specification left open, are in
 * docs/rules/taylor-blackjack.md. Section (§) and resolution (#) numbers
 * below are the specification's.
 *
 * The state is one flat, pointer-free struct (memcpy clones it). It holds the
 * future: the match seed, from which every game's shuffle is derived, and the
 * per-game stream used to shuffle a rebuilt stock. Nothing here allocates,
 * blocks or keeps global mutable state.
 *
 * Invariants kept by every function that changes the state:
 *  - Outside stage OVER, `cur` is the one seat deciding, and `stage` says what
 *    it decides. Automatic steps (the eight's forced draw, rebuilds, the silent
 *    seat's 7 cards, the next deal) happen inside apply, so after apply the
 *    state is always at a decision or over.
 *  - Each card id (0..51, and 54..105 with two packs) is in exactly one place:
 *    one hand (bit `id` of hand[seat]), the stock (stock[stock_pos ..
 *    stock_len)), or the pile (pile[0 .. pile_count), oldest first). The top
 *    card is pile[pile_count - 1].
 *  - known[s][c] <= the number of copies of identity c in seat s's hand: cards
 *    of identity c that everybody saw s draw from a public stock and has not
 *    seen s lay since. It is a lower bound that observers can all compute.
 *  - run_suit is JA_CARD_NONE except in stage S; skips is 0 except between an
 *    end effect and the end of that turn (stage D may sit in between). */
#include "jackarena/ja_taylor.h"
#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "engine_util.h"

#include <stdio.h>
#include <string.h>

#define HAND_SIZE 7
#define N_EVENTS JA_TAYLOR_EVENTS
#define NONE JA_CARD_NONE
/* The stream of rebuild shuffles, one per game (spec §11.3). */
#define STREAM_REBUILD JA_TAG('R', 'B', 'L', 'D')

/* The options, in spec order (engine_util.h, "Options"). */
#define TAYLOR_OPTIONS(X) \
    X(DECKS, "decks", JA_OPT_ENUM, "auto|1|2", 0, 0, "auto",                                       \
      "packs shuffled together: auto = 1 up to 5 players, else 2; 1 only up to 7 players")         \
    X(LAST_CARD, "last_card", JA_OPT_ENUM, "explicit|auto", 0, 0, "explicit",                      \
      "explicit: the seat must declare \"Last card\" or draw 7; auto: the referee declares")       \
    X(REBUILD, "rebuild", JA_OPT_ENUM, "noshuffle|shuffle", 0, 0, "noshuffle",                     \
      "how the pile becomes the stock: turned over in public order, or shuffled")                  \
    X(TURN_CAP, "turn_cap", JA_OPT_INT, NULL, 1, 65535, "200*N",                                   \
      "a game stops after this many turns; the fewest cards share it")                             \
    X(GAMES, "games", JA_OPT_INT, NULL, 1, 1000, "2*N",                                            \
      "games in a match; the dealer rotates")
enum { TAYLOR_OPTIONS(EU_OPT_ID) OPT_COUNT };
enum { LAST_EXPLICIT, LAST_AUTO };
enum { REBUILD_NOSHUFFLE, REBUILD_SHUFFLE };

typedef struct taylor_state {
    uint64_t seed;            /* the match seed: every later deal comes from it */
    ja_rng rebuild_rng;       /* this game's stream of rebuild shuffles */
    uint64_t hand[JA_TAYLOR_MAX_SEATS][2]; /* bit id of the 128-bit set: card id held */
    int32_t score[JA_TAYLOR_MAX_SEATS];    /* units of 1/JA_SCORE_UNIT */
    uint32_t event_seq;       /* public events so far in the match */
    uint32_t game_ev;         /* event_seq just before this game's DEAL */
    uint16_t turn_cap, games, game, turn;
    uint8_t n, decks, last_card, rebuild;
    uint8_t dealer, cur, stage;
    int8_t dir;
    uint8_t top;              /* card id of the top of the pile */
    uint8_t active_suit, pen_kind, pen_k, run_suit;
    uint8_t laid, start_count, skips;
    uint8_t stock_pos, stock_len, stock_known, pile_count;
    uint8_t hand_count[JA_TAYLOR_MAX_SEATS];
    uint8_t stock[JA_TAYLOR_MAX_CARDS]; /* index 0 = top after a shuffle */
    uint8_t pile[JA_TAYLOR_MAX_CARDS];  /* oldest first */
    uint8_t known[JA_TAYLOR_MAX_SEATS][52];
    /* The event ring: event number q (1-based) sits in slot (q - 1) % N_EVENTS. */
    uint8_t ev_kind[N_EVENTS], ev_seat[N_EVENTS], ev_card[N_EVENTS], ev_count[N_EVENTS];
} taylor_state;

/* ---- Cards and hands ----------------------------------------------------- */

static int rank_of(uint8_t id) { return ja_card_rank(id); }
static int suit_of(uint8_t id) { return ja_card_suit(id); }

static uint64_t suit_mask(int s) { return ((UINT64_C(1) << 13) - 1) << (13 * s); }

static uint64_t rank_mask(int r)
{
    return (UINT64_C(1) << r) | (UINT64_C(1) << (r + 13)) | (UINT64_C(1) << (r + 26)) |
           (UINT64_C(1) << (r + 39));
}

/* Hands are sets of card ids with twins (engine_util.h). */
static uint64_t idents(const taylor_state *s, int seat) { return eu_set_idents(s->hand[seat]); }
static uint8_t ident(uint8_t id) { return eu_ident(id); }

static void add_id(taylor_state *s, int seat, uint8_t id) { eu_hand_add(s->hand[seat], &s->hand_count[seat], id); }
static void remove_id(taylor_state *s, int seat, uint8_t id) { eu_hand_del(s->hand[seat], &s->hand_count[seat], id); }

/* The lowest id of identity c in the seat's hand (spec #24). */
static uint8_t lowest_id(const taylor_state *s, int seat, int c)
{
    return eu_set_lowest(s->hand[seat], c);
}

/* ---- Events --------------------------------------------------------------- */

static void push_event(taylor_state *s, int kind, int seat, int card, uint32_t count)
{
    uint32_t slot = eu_ring_push(&s->event_seq, N_EVENTS);
    s->ev_kind[slot] = (uint8_t)kind;
    s->ev_seat[slot] = (uint8_t)seat;
    s->ev_card[slot] = (uint8_t)card;
    s->ev_count[slot] = (uint8_t)(count > 255 ? 255 : count);
}

/* ---- The flow of a game ------------------------------------------------------ */

static void begin_turn(taylor_state *s, int seat)
{
    s->cur = (uint8_t)seat;
    s->laid = 0;
    s->skips = 0;
    s->start_count = s->hand_count[seat];
    s->run_suit = NONE;
    s->stage = s->pen_kind != JA_TAYLOR_PEN_NONE ? JA_TAYLOR_STAGE_PENALTY : JA_TAYLOR_STAGE_TURN;
}

/* Deals the current game (dealer already set) from deck[0..total), top
 * first: 7 cards one at a time from dealer + 1, then the starter. Scores and
 * the events before this game are kept. */
static void deal_from(taylor_state *s, const uint8_t *deck, uint32_t total)
{
    memset(s->hand, 0, sizeof s->hand);
    memset(s->hand_count, 0, sizeof s->hand_count);
    memset(s->known, 0, sizeof s->known);
    memset(s->stock, 0, sizeof s->stock);
    memset(s->pile, 0, sizeof s->pile);
    uint32_t k = 0;
    for (uint32_t i = 0; i < (uint32_t)HAND_SIZE * s->n; i++)
        add_id(s, (s->dealer + 1 + (int)i) % s->n, deck[k++]);
    s->pile[0] = deck[k++];
    s->pile_count = 1;
    s->top = s->pile[0];
    s->active_suit = (uint8_t)suit_of(s->top);
    s->stock_len = (uint8_t)(total - k);
    memcpy(s->stock, deck + k, s->stock_len);
    s->stock_pos = 0;
    s->stock_known = 0;
    s->dir = 1;
    s->pen_kind = JA_TAYLOR_PEN_NONE;
    s->pen_k = 0;
    s->turn = 0;
    ja_rng_stream(&s->rebuild_rng, s->seed, STREAM_REBUILD, s->game);
    s->game_ev = s->event_seq;
    push_event(s, JA_TAYLOR_EV_DEAL, s->dealer, ja_card_ident(s->top), HAND_SIZE);
    begin_turn(s, (s->dealer + 1) % s->n);
}

static void deal(taylor_state *s)
{
    uint8_t deck[JA_TAYLOR_MAX_CARDS];
    deal_from(s, deck, eu_twin_shuffled(s->seed, s->game, s->decks, deck));
}

static void end_game(taylor_state *s)
{
    s->pen_kind = JA_TAYLOR_PEN_NONE;
    s->pen_k = 0;
    s->skips = 0;
    s->run_suit = NONE;
    if (s->game + 1u < s->games) {
        s->game++;
        s->dealer = (uint8_t)((s->dealer + 1) % s->n);
        deal(s);
    } else {
        s->stage = JA_TAYLOR_STAGE_OVER;
    }
}

static void win(taylor_state *s)
{
    s->score[s->cur] += JA_SCORE_UNIT;
    push_event(s, JA_TAYLOR_EV_WIN, s->cur, NONE, 0);
    end_game(s);
}

/* The turn cap (spec §9): the seats holding the fewest cards share the game. */
static void cap_game(taylor_state *s)
{
    int fewest = 255, m = 0;
    for (int i = 0; i < s->n; i++)
        if (s->hand_count[i] < fewest)
            fewest = s->hand_count[i];
    for (int i = 0; i < s->n; i++)
        m += s->hand_count[i] == fewest;
    for (int i = 0; i < s->n; i++)
        if (s->hand_count[i] == fewest)
            s->score[i] += JA_SCORE_UNIT / m;
    push_event(s, JA_TAYLOR_EV_CAP, NONE, NONE, (uint32_t)fewest);
    end_game(s);
}

/* Turns the pile except its top card into the stock (spec §7). Returns false
 * when there is nothing to turn over. */
static bool rebuild_stock(taylor_state *s, int seat)
{
    if (s->pile_count <= 1)
        return false;
    uint8_t m = (uint8_t)(s->pile_count - 1);
    memcpy(s->stock, s->pile, m);
    memset(s->stock + m, 0, sizeof s->stock - m);
    s->pile[0] = s->pile[m];
    memset(s->pile + 1, 0, sizeof s->pile - 1);
    s->pile_count = 1;
    s->stock_pos = 0;
    s->stock_len = m;
    if (s->rebuild == REBUILD_SHUFFLE) {
        ja_shuffle_u8(&s->rebuild_rng, s->stock, m);
        s->stock_known = 0;
    } else {
        s->stock_known = 1; /* the oldest discard is drawn first, in view of all */
    }
    push_event(s, JA_TAYLOR_EV_REBUILD, seat, NONE, m);
    return true;
}

/* Draws up to n cards one at a time for seat, rebuilding the stock when it
 * runs out; what cannot be drawn is cancelled (spec #15). Returns the number
 * drawn. A card drawn from a public stock becomes known to be in that hand. */
static uint32_t draw(taylor_state *s, int seat, uint32_t n)
{
    uint32_t got = 0;
    while (got < n) {
        if (s->stock_pos >= s->stock_len && !rebuild_stock(s, seat))
            break;
        uint8_t id = s->stock[s->stock_pos++];
        add_id(s, seat, id);
        if (s->stock_known)
            s->known[seat][ja_card_ident(id)]++;
        got++;
    }
    return got;
}

/* Moves to the next seat (spec §6.3 step 3) or stops the game at the cap. */
static void next_turn(taylor_state *s)
{
    s->turn++;
    if (s->turn >= s->turn_cap) {
        cap_game(s);
        return;
    }
    int step = (1 + s->skips) * s->dir;
    int next = ((s->cur + step) % s->n + s->n) % s->n;
    begin_turn(s, next);
}

/* End of a turn in which the seat still holds cards: the last-card check
 * (spec §6.4), then the next seat. */
static void end_turn(taylor_state *s)
{
    if (s->laid >= 1 && s->start_count >= 2 && s->hand_count[s->cur] == 1) {
        if (s->last_card == LAST_EXPLICIT) {
            s->stage = JA_TAYLOR_STAGE_DECLARE;
            s->run_suit = NONE;
            return;
        }
        push_event(s, JA_TAYLOR_EV_DECLARE, s->cur, NONE, 0);
    }
    next_turn(s);
}

/* The eight was the last card: draw one, the turn ends without effect; with
 * nothing to draw the hand stays empty and the seat wins (spec #15). */
static void eight_last(taylor_state *s)
{
    uint32_t got = draw(s, s->cur, 1);
    push_event(s, JA_TAYLOR_EV_DRAW, s->cur, NONE, got);
    if (s->hand_count[s->cur] == 0)
        win(s);
    else
        end_turn(s);
}

/* The end effect of card id (spec §6.2), or the win when the hand is empty. */
static void end_effect(taylor_state *s, uint8_t id)
{
    if (s->hand_count[s->cur] == 0) {
        win(s);
        return;
    }
    bool black = ja_card_is_black(id);
    switch (rank_of(id)) {
    case JA_RANK_A:
        s->stage = JA_TAYLOR_STAGE_NOMINATE;
        s->run_suit = NONE;
        return;
    case JA_RANK_7: s->dir = (int8_t)-s->dir; break;
    case JA_RANK_Q: s->skips = 1; break;
    case JA_RANK_K: s->skips = 2; break;
    case JA_RANK_2:
        if (black) {
            s->pen_kind = JA_TAYLOR_PEN_TWO;
            s->pen_k = 1;
        }
        break;
    case JA_RANK_J:
        if (black) {
            s->pen_kind = JA_TAYLOR_PEN_JACK;
            s->pen_k = 1;
        }
        break;
    default: break;
    }
    end_turn(s);
}

/* Resolves a card laid in stage T or F (spec §6.2). */
static void resolve(taylor_state *s, uint8_t id)
{
    int r = rank_of(id);
    if (r == JA_RANK_8) {
        if (s->hand_count[s->cur] == 0)
            eight_last(s);
        else
            s->stage = JA_TAYLOR_STAGE_EIGHT;
    } else if (r == JA_RANK_T) {
        if (s->hand_count[s->cur] == 0) {
            win(s); /* the run ends at once; the 10 has no effect */
        } else {
            s->stage = JA_TAYLOR_STAGE_RUN;
            s->run_suit = (uint8_t)suit_of(id);
        }
    } else {
        end_effect(s, id);
    }
}

/* The end of a ten run, on FINISH or an empty hand: only the last card laid
 * (the top card) counts. */
static void run_end(taylor_state *s)
{
    uint8_t e = s->top;
    s->run_suit = NONE;
    if (rank_of(e) == JA_RANK_8) {
        if (s->hand_count[s->cur] == 0)
            eight_last(s);
        else
            s->stage = JA_TAYLOR_STAGE_EIGHT;
    } else if (rank_of(e) == JA_RANK_T) {
        if (s->hand_count[s->cur] == 0)
            win(s);
        else
            end_turn(s);
    } else {
        end_effect(s, e);
    }
}

/* Lays the lowest id of identity c from the seat to act onto the pile. */
static uint8_t lay(taylor_state *s, int c)
{
    int seat = s->cur;
    uint8_t id = lowest_id(s, seat, c);
    remove_id(s, seat, id);
    s->pile[s->pile_count++] = id;
    s->top = id;
    s->active_suit = (uint8_t)suit_of(id);
    if (s->laid < 255)
        s->laid++;
    if (s->known[seat][c])
        s->known[seat][c]--;
    push_event(s, JA_TAYLOR_EV_PLAY, seat, c, 1);
    return id;
}

/* ---- Legal actions ---------------------------------------------------------- */

/* The identities the seat to act may lay now, as a bit set over 0..51. */
static uint64_t playable(const taylor_state *s)
{
    uint64_t h = idents(s, s->cur);
    switch (s->stage) {
    case JA_TAYLOR_STAGE_TURN:
        return h & (suit_mask(s->active_suit) | rank_mask(rank_of(s->top)));
    case JA_TAYLOR_STAGE_PENALTY:
        return h & rank_mask(s->pen_kind == JA_TAYLOR_PEN_TWO ? JA_RANK_2 : JA_RANK_J);
    case JA_TAYLOR_STAGE_EIGHT: return h;
    case JA_TAYLOR_STAGE_RUN: return h & suit_mask(s->run_suit);
    default: return 0;
    }
}

static bool is_legal(const taylor_state *s, uint32_t code)
{
    if (code < 52)
        return (playable(s) >> code) & 1u;
    switch (s->stage) {
    case JA_TAYLOR_STAGE_TURN: return code == JA_TAYLOR_DRAW;
    case JA_TAYLOR_STAGE_PENALTY: return code == JA_TAYLOR_PICK_UP;
    case JA_TAYLOR_STAGE_RUN: return code == JA_TAYLOR_FINISH;
    case JA_TAYLOR_STAGE_NOMINATE: return code >= JA_TAYLOR_SUIT(0) && code <= JA_TAYLOR_SUIT(3);
    case JA_TAYLOR_STAGE_DECLARE: return code == JA_TAYLOR_DECLARE || code == JA_TAYLOR_STAY_SILENT;
    default: return false;
    }
}

static uint32_t taylor_to_act(const void *st)
{
    const taylor_state *s = st;
    return s->stage == JA_TAYLOR_STAGE_OVER ? 0 : UINT32_C(1) << s->cur;
}

/* Cards first (codes 0..51 ascending), then the stage's other actions, which
 * all have higher codes: the list is sorted by code. */
static uint32_t taylor_legal(const void *st, int seat, ja_action *out, uint32_t cap)
{
    const taylor_state *s = st;
    if (s->stage == JA_TAYLOR_STAGE_OVER || seat != s->cur)
        return 0;
    uint32_t n = 0;
#define PUT(c) eu_put(out, cap, &n, (c))
    for (uint64_t m = playable(s); m; m &= m - 1)
        PUT((uint32_t)__builtin_ctzll(m));
    switch (s->stage) {
    case JA_TAYLOR_STAGE_TURN: PUT(JA_TAYLOR_DRAW); break;
    case JA_TAYLOR_STAGE_PENALTY: PUT(JA_TAYLOR_PICK_UP); break;
    case JA_TAYLOR_STAGE_RUN: PUT(JA_TAYLOR_FINISH); break;
    case JA_TAYLOR_STAGE_NOMINATE:
        for (int i = 0; i < 4; i++)
            PUT(JA_TAYLOR_SUIT(i));
        break;
    case JA_TAYLOR_STAGE_DECLARE:
        PUT(JA_TAYLOR_DECLARE);
        PUT(JA_TAYLOR_STAY_SILENT);
        break;
    default: break;
    }
#undef PUT
    return n < cap ? n : cap;
}

/* Spec §12. Always one of the legal actions. */
static ja_action taylor_default_action(const void *st, int seat)
{
    const taylor_state *s = st;
    ja_action a = {JA_TAYLOR_DRAW};
    switch (s->stage) {
    case JA_TAYLOR_STAGE_PENALTY: a.code = JA_TAYLOR_PICK_UP; break;
    case JA_TAYLOR_STAGE_EIGHT: {
        uint64_t m = playable(s);
        a.code = m ? (uint32_t)__builtin_ctzll(m) : JA_TAYLOR_DRAW;
        break;
    }
    case JA_TAYLOR_STAGE_RUN: a.code = JA_TAYLOR_FINISH; break;
    case JA_TAYLOR_STAGE_NOMINATE: a.code = JA_TAYLOR_SUIT(suit_of(s->top)); break;
    case JA_TAYLOR_STAGE_DECLARE: a.code = JA_TAYLOR_STAY_SILENT; break;
    default: break;
    }
    return a;
}

/* ---- Apply -------------------------------------------------------------------- */

/* One decision of the seat to act; code is legal. Runs every automatic step
 * that follows, up to the next decision. */
static void step(taylor_state *s, uint32_t code)
{
    int seat = s->cur;
    switch (s->stage) {
    case JA_TAYLOR_STAGE_TURN:
        if (code == JA_TAYLOR_DRAW) {
            uint32_t got = draw(s, seat, 1);
            push_event(s, JA_TAYLOR_EV_DRAW, seat, NONE, got);
            end_turn(s); /* nothing laid: never a last-card call */
        } else {
            resolve(s, lay(s, (int)code));
        }
        break;
    case JA_TAYLOR_STAGE_PENALTY:
        if (code == JA_TAYLOR_PICK_UP) {
            uint32_t per = s->pen_kind == JA_TAYLOR_PEN_TWO ? 2 : 7;
            uint32_t got = draw(s, seat, per * s->pen_k);
            s->pen_kind = JA_TAYLOR_PEN_NONE;
            s->pen_k = 0;
            push_event(s, JA_TAYLOR_EV_PICK_UP, seat, NONE, got);
            end_turn(s);
        } else {
            uint8_t id = lay(s, (int)code);
            if (ja_card_is_black(id)) {
                if (s->pen_k < 255)
                    s->pen_k++;
            } else if (--s->pen_k == 0) {
                s->pen_kind = JA_TAYLOR_PEN_NONE;
            }
            if (s->hand_count[seat] == 0)
                win(s);
            else
                end_turn(s);
        }
        break;
    case JA_TAYLOR_STAGE_EIGHT:
        resolve(s, lay(s, (int)code));
        break;
    case JA_TAYLOR_STAGE_RUN:
        if (code == JA_TAYLOR_FINISH) {
            push_event(s, JA_TAYLOR_EV_FINISH, seat, ja_card_ident(s->top), 0);
            run_end(s);
        } else {
            lay(s, (int)code);
            if (s->hand_count[seat] == 0)
                run_end(s);
        }
        break;
    case JA_TAYLOR_STAGE_NOMINATE:
        s->active_suit = (uint8_t)(code - JA_TAYLOR_SUIT(0));
        push_event(s, JA_TAYLOR_EV_SUIT, seat, s->active_suit, 0);
        end_turn(s);
        break;
    case JA_TAYLOR_STAGE_DECLARE:
        if (code == JA_TAYLOR_DECLARE) {
            push_event(s, JA_TAYLOR_EV_DECLARE, seat, NONE, 0);
        } else {
            uint32_t got = draw(s, seat, 7);
            push_event(s, JA_TAYLOR_EV_SILENT, seat, NONE, got);
        }
        next_turn(s);
        break;
    default: break;
    }
}

EU_ONE_SEAT_APPLY(taylor, taylor_state, s->stage == JA_TAYLOR_STAGE_OVER)

/* ---- Options and setup ---------------------------------------------------------- */

static const ja_option_spec options[] = {TAYLOR_OPTIONS(EU_OPT_SPEC) EU_OPT_END};
EU_OPT_CHECK(options);

/* Decks value: the enum index (1 = "1", 2 = "2"), auto (0) resolved. */
static int resolve_decks(int32_t v, uint32_t n)
{
    return v == 1 || v == 2 ? v : (n <= 5 ? 1 : 2);
}

static int taylor_resolve_options(ja_options *o, uint32_t n, char *err, size_t cap)
{
    if (n < 2 || n > 12) {
        snprintf(err, cap, "taylor-blackjack is played by 2 to 12 seats, not %u", (unsigned)n);
        return JA_EINVAL;
    }
    int decks = resolve_decks(o->value[OPT_DECKS], n);
    if (decks == 1 && n > 7) {
        snprintf(err, cap,
                 "decks=1 allows at most 7 players (7 hands of 7 and a starter must fit in "
                 "52 cards), not %u",
                 (unsigned)n);
        return JA_EINVAL;
    }
    o->value[OPT_DECKS] = decks;
    return JA_OK;
}

static int taylor_setup(void *st, const ja_options *o, uint32_t n, uint64_t seed)
{
    taylor_state *s = st;
    if (n < 2 || n > 12)
        return JA_EINVAL;
    int32_t v[OPT_COUNT];
    eu_option_values(options, o, n, v, OPT_COUNT);
    int decks = resolve_decks(v[OPT_DECKS], n);
    if (decks == 1 && n > 7)
        return JA_EINVAL;
    if (v[OPT_LAST_CARD] < 0 || v[OPT_LAST_CARD] > 1 || v[OPT_REBUILD] < 0 ||
        v[OPT_REBUILD] > 1 || v[OPT_TURN_CAP] < 0 || v[OPT_TURN_CAP] > 65535 ||
        v[OPT_GAMES] < 0 || v[OPT_GAMES] > 1000)
        return JA_EINVAL;
    memset(s, 0, sizeof *s);
    s->seed = seed;
    s->n = (uint8_t)n;
    s->decks = (uint8_t)decks;
    s->last_card = (uint8_t)v[OPT_LAST_CARD];
    s->rebuild = (uint8_t)v[OPT_REBUILD];
    s->turn_cap = (uint16_t)v[OPT_TURN_CAP];
    s->games = (uint16_t)v[OPT_GAMES];
    s->dealer = eu_first_dealer(seed, n);
    s->game = 0;
    deal(s);
    return JA_OK;
}

/* Re-deals the current game from a stacked deck (tests only): `first` is the
 * dealer, cards[0] the top of the stock before the deal. With two packs a
 * card named a second time (0..51) means its second copy (id + 54). Scores and
 * earlier games' events are kept; the current game starts again. */
static int taylor_test_deal(void *st, int first, const uint8_t *cards, uint32_t n)
{
    taylor_state *s = st;
    uint8_t deck[JA_TAYLOR_MAX_CARDS];
    int total = first < 0 || first >= s->n ? JA_EINVAL : eu_stack_deck(cards, n, 52, s->decks, deck);
    if (total < 0)
        return JA_EINVAL;
    s->dealer = (uint8_t)first;
    s->event_seq = s->game_ev;
    s->skips = 0;
    deal_from(s, deck, (uint32_t)total);
    return JA_OK;
}

static const ja_ext_test_deal TEST_DEAL = {taylor_test_deal};

/* ---- Observation ---------------------------------------------------------------- */

#define EU_OBS_T ja_taylor_obs
static const ja_field obs_fields[] = {JA_TAYLOR_OBS_FIELDS(EU_FIELD_S, EU_FIELD_A)};

/* The part of an observation that is rewritten whole every time: the
 * scalars, and each seat's card count and score. */
static void observe_public(const taylor_state *s, ja_taylor_obs *o)
{
    bool over = s->stage == JA_TAYLOR_STAGE_OVER;
    o->decks = s->decks;
    o->last_card = s->last_card;
    o->rebuild = s->rebuild;
    o->turn_cap = s->turn_cap;
    o->games = s->games;
    o->game = s->game;
    o->turn = s->turn;
    o->dealer = s->dealer;
    o->to_act = over ? NONE : s->cur;
    o->stage = s->stage;
    o->direction = s->dir;
    o->top = ja_card_ident(s->top);
    o->active_suit = s->active_suit;
    o->penalty_kind = s->pen_kind;
    o->penalty_k = s->pen_k;
    o->run_suit = s->run_suit;
    o->laid = s->laid;
    o->start_count = s->start_count;
    o->stock_count = (uint8_t)(s->stock_len - s->stock_pos);
    o->stock_known = s->stock_known;
    o->pile_count = s->pile_count;
    const int n = s->n;
    for (int i = 0; i < n; i++) {
        o->hand_count[i] = s->hand_count[i];
        o->score[i] = s->score[i];
    }
}

/* Identities of the stock from its top, count cards from stock_pos on (a
 * public stock only). */
static void observe_stock(const taylor_state *s, uint8_t *out, int count)
{
    const int pos = s->stock_pos;
    for (int i = 0; i < count; i++)
        out[i] = ident(s->stock[pos + i]);
}

/* Everything seat may know, nothing more: its own hand, public counts and
 * table, the cards known in other hands, the stock only when its order is
 * public, and the recent public events. Never other hands, an unknown stock
 * order, the seed or the PRNG. */
static void taylor_observe(const void *st, int seat, void *obs)
{
    const taylor_state *s = st;
    ja_taylor_obs *o = obs;
    if (!eu_obs_begin(o, sizeof *o, seat, s->n, &o->seat, &o->n_seats))
        return;
    observe_public(s, o);
    /* Locals for every bound: stores into the observation (bytes) may alias
     * the state for the compiler, which would otherwise reload them. */
    const int n = s->n, pc = s->pile_count;
    for (int i = 0; i < n; i++)
        if (i != seat)
            memcpy(o->known + 52 * i, s->known[i], 52);
    eu_set_counts(s->hand[seat], o->hand);
    if (s->stock_known)
        observe_stock(s, o->stock, s->stock_len - s->stock_pos);
    for (int i = 0; i < pc; i++)
        o->pile[i] = ident(s->pile[i]);
    EU_EVENTS_OUT(o, s, s->event_seq, N_EVENTS, ev_kind, ev_seat, ev_card, ev_count);
}

/* JA_EXT_OBSERVE_UPDATE: obs is seat's observation of an earlier state of
 * this match, or zeros. The public events since obs->event_seq say what
 * can have changed besides the scalars, which are rewritten:
 *  - known[p] and the own hand change only when seat p lays or draws, and
 *    every such change pushes an event naming p (PLAY, DRAW, PICK_UP,
 *    SILENT); a DEAL clears them all. So the seats named by an event since
 *    are copied again (all of them after a DEAL).
 *  - The pile only grows, except at a REBUILD or DEAL: without one, only
 *    its new tail is written; with one, the whole pile, and zeros where
 *    the old one was longer.
 *  - The stock's order is public (stock_known) only after a REBUILD without
 *    shuffle, and then it only shrinks from the top until the next REBUILD
 *    or DEAL: without one the old stock moves up by the cards drawn; with
 *    one it is written again (zeros when not public).
 *  - The event columns move up by the new events, which are appended.
 * A full observe when obs is not an observation of seat in this match (all
 * zeros: never observed), or when more than FEW_EVENTS events came since
 * obs->event_seq: then the full observe is the cheaper (each event costs
 * its copy, and mostly a seat's known[] and a card of the pile), and the
 * ring, which is larger, still holds every event this reads. */
#define FEW_EVENTS 8
_Static_assert(FEW_EVENTS <= N_EVENTS, "the events since obs must be in the ring");
static void taylor_observe_update(const void *st, int seat, void *obs)
{
    const taylor_state *s = st;
    ja_taylor_obs *o = obs;
    const int n = s->n;
    const uint32_t seq = s->event_seq, old = o->event_seq;
    const int old_pc = o->pile_count, old_sc = o->stock_known ? o->stock_count : 0;
    /* The four one-byte event columns, one after the other (eu_ring_shift). */
#define EV_AT(col, k) (offsetof(ja_taylor_obs, col) == offsetof(ja_taylor_obs, ev_kind) + (k)*N_EVENTS)
    _Static_assert(EV_AT(ev_seat, 1) && EV_AT(ev_card, 2) && EV_AT(ev_count, 3),
                   "ja_taylor_obs: the event columns are not contiguous");
#undef EV_AT
    if (seat < 0 || seat >= n || o->seat != seat || o->n_seats != n || old > seq ||
        seq - old > FEW_EVENTS || old_pc > JA_TAYLOR_MAX_CARDS || old_sc > JA_TAYLOR_MAX_CARDS) {
        taylor_observe(st, seat, obs);
        return;
    }
    /* The new events into the event columns, and what they say changed. */
    bool dealt = false, rebuilt = false;
    uint32_t seats = 0; /* named by an event */
    if (seq != old) {
        uint32_t i = eu_ring_shift(o->ev_kind, 4, old, seq, N_EVENTS);
        for (uint32_t slot = old % N_EVENTS, q = old; q != seq; q++, i++) {
            const uint8_t kind = s->ev_kind[slot], p = s->ev_seat[slot];
            o->ev_kind[i] = kind;
            o->ev_seat[i] = p;
            o->ev_card[i] = s->ev_card[slot];
            o->ev_count[i] = s->ev_count[slot];
            slot = slot + 1 == N_EVENTS ? 0 : slot + 1;
            /* No branches: which way each goes is a coin toss. */
            dealt |= kind == JA_TAYLOR_EV_DEAL;
            rebuilt |= kind == JA_TAYLOR_EV_REBUILD;
            seats |= (UINT32_C(1) << (p & 31)) & (0u - (uint32_t)(p < n));
        }
        o->event_seq = seq;
        eu_ring_seqs(o->ev_seq, seq, N_EVENTS);
    }
    rebuilt |= dealt;
    if (dealt)
        seats = (UINT32_C(1) << n) - 1;
    observe_public(s, o);

    for (; seats; seats &= seats - 1) {
        const int p = __builtin_ctz(seats);
        if (p != seat) {
            memcpy(o->known + 52 * p, s->known[p], 52);
        } else {
            eu_set_counts(s->hand[seat], o->hand);
        }
    }

    const int pc = s->pile_count;
    for (int i = rebuilt || pc < old_pc ? 0 : old_pc; i < pc; i++)
        o->pile[i] = ident(s->pile[i]);
    if (old_pc > pc)
        memset(o->pile + pc, 0, (size_t)(old_pc - pc));

    const int sc = s->stock_known ? s->stock_len - s->stock_pos : 0;
    if (rebuilt || sc > old_sc)
        observe_stock(s, o->stock, sc);
    else if (sc > 0 && sc < old_sc)
        memmove(o->stock, o->stock + (old_sc - sc), (size_t)sc);
    if (old_sc > sc)
        memset(o->stock + sc, 0, (size_t)(old_sc - sc));
}

static const ja_ext_observe_update OBSERVE_UPDATE = {taylor_observe_update};

/* JA_EXT_OBSERVE_PUBLIC: what every seat sees (spec §10): the scalars and
 * counts, the pile, the stock only when its order is public, the cards
 * known to be in each hand (every seat's row: each is a lower bound all
 * observers compute) and the public events. No hand's contents. */
static void taylor_observe_public(const void *st, void *obs)
{
    const taylor_state *s = st;
    ja_taylor_obs *o = obs;
    eu_obs_public_begin(o, sizeof *o, s->n, &o->seat, &o->n_seats);
    observe_public(s, o);
    const int n = s->n, pc = s->pile_count;
    for (int i = 0; i < n; i++)
        memcpy(o->known + 52 * i, s->known[i], 52);
    if (s->stock_known)
        observe_stock(s, o->stock, s->stock_len - s->stock_pos);
    for (int i = 0; i < pc; i++)
        o->pile[i] = ident(s->pile[i]);
    EU_EVENTS_OUT(o, s, s->event_seq, N_EVENTS, ev_kind, ev_seat, ev_card, ev_count);
}

static const ja_ext_observe_public OBSERVE_PUBLIC = {taylor_observe_public};

static uint32_t taylor_unseen(const void *st, uint8_t *cards, uint32_t cap);
static void taylor_reshuffle(void *st, uint64_t seed);
static uint32_t taylor_progress(const void *st, ja_outcome *so_far)
{
    const taylor_state *s = st;
    eu_outcome(so_far, true, s->n, s->score, NULL, 1);
    return s->game;
}
static const ja_ext_chance CHANCE = {taylor_unseen, taylor_reshuffle, taylor_progress};

static const void *taylor_extension(const char *id)
{
    return eu_extension(id, &TEST_DEAL, &OBSERVE_UPDATE, &OBSERVE_PUBLIC, &CHANCE);
}

static int taylor_outcome(const void *st, ja_outcome *out)
{
    const taylor_state *s = st;
    return eu_outcome(out, s->stage == JA_TAYLOR_STAGE_OVER, s->n, s->score, NULL, 1);
}

/* ---- Hidden information ------------------------------------------------------- */

/* Re-deals every card `seat` cannot see: the cards of other hands that are
 * not known to be there, and the stock when its order is not public, among
 * the same slots; then replaces the future (match seed, rebuild stream). */
static void taylor_determinize(void *st, int seat, uint64_t seed)
{
    taylor_state *s = st;
    eu_twin_redeal(s->hand, s->hand_count, s->known, s->n, seat, s->stock_known ? NULL : s->stock,
                   s->stock_pos, s->stock_len, seed);
    s->seed = ja_seed_derive(seed, JA_STREAM_DETZ, 1);
    ja_rng_stream(&s->rebuild_rng, seed, JA_STREAM_DETZ, 2);
}

/* JA_EXT_CHANCE: the stock, unless its order is public (a rebuild turned
 * over without shuffling), top first; and the future. */
static uint32_t taylor_unseen(const void *st, uint8_t *cards, uint32_t cap)
{
    const taylor_state *s = st;
    if (s->stage == JA_TAYLOR_STAGE_OVER || s->stock_known)
        return 0;
    return eu_unseen_copy(s->stock + s->stock_pos, (uint32_t)(s->stock_len - s->stock_pos), cards,
                          cap);
}

static void taylor_reshuffle(void *st, uint64_t seed)
{
    taylor_state *s = st;
    if (s->stage != JA_TAYLOR_STAGE_OVER && !s->stock_known)
        eu_chance_shuffle(s->stock + s->stock_pos, (uint32_t)(s->stock_len - s->stock_pos), seed, 0);
    s->seed = ja_seed_derive(seed, JA_STREAM_CHNC, 1);
    ja_rng_stream(&s->rebuild_rng, seed, JA_STREAM_CHNC, 2);
}

/* Whether obs can be sample()d for seat at all: its options, counts and
 * stage within range, a seat to act unless the match is over, a penalty
 * with its count, the pile topped by its top card. */
static bool sample_fits(const ja_taylor_obs *o, int seat)
{
    int n = o->n_seats;
    if (n < 2 || n > 12 || seat < 0 || seat >= n || o->seat != seat ||
        (o->decks != 1 && o->decks != 2) || o->last_card > 1 || o->rebuild > 1 ||
        o->stage > JA_TAYLOR_STAGE_OVER || o->top >= 52 || o->active_suit >= 4 ||
        o->penalty_kind > JA_TAYLOR_PEN_JACK || (o->direction != 1 && o->direction != -1) ||
        o->pile_count < 1 || o->pile_count > JA_TAYLOR_MAX_CARDS ||
        o->stock_count > JA_TAYLOR_MAX_CARDS || o->stock_known > 1 || o->dealer >= n ||
        o->games < 1 || o->game >= o->games || o->turn_cap < 1)
        return false;
    if (o->stage == JA_TAYLOR_STAGE_OVER ? o->to_act != NONE : o->to_act >= n)
        return false;
    if ((o->penalty_kind == JA_TAYLOR_PEN_NONE) != (o->penalty_k == 0))
        return false;
    return o->pile[o->pile_count - 1] == o->top;
}

/* Every card in place, each copy of a deck once (eu_left): as many as the
 * decks hold in all, seat's own hand, the pile, the other hands' known
 * cards and the stock when its order is public; every other card dealt at
 * random into the other hands' unknown slots and the stock when its order
 * is not (eu_left_deal, from seed). JA_EFORMAT when obs admits no such
 * deal. */
static int sample_cards(taylor_state *s, const ja_taylor_obs *o, int seat, uint64_t seed)
{
    const int n = s->n;
    /* The cards not placed yet; TAKE places one (engine_util.h, eu_left). */
    eu_left left;
    eu_left_init(&left, o->decks);
    uint32_t total = 0;
    for (int i = 0; i < n; i++)
        total += o->hand_count[i];
    total += (uint32_t)o->pile_count + o->stock_count;
    if (total != 52u * o->decks)
        return JA_EFORMAT;

#define TAKE EU_TAKE
    uint8_t id;
    uint32_t own = 0;
    for (int c = 0; c < 52; c++)
        for (int j = 0; j < o->hand[c]; j++, own++) {
            TAKE(c, id);
            add_id(s, seat, id);
        }
    if (own != o->hand_count[seat])
        return JA_EFORMAT;
    for (int i = 0; i < o->pile_count; i++) {
        TAKE(o->pile[i], id);
        s->pile[i] = id;
    }
    s->pile_count = o->pile_count;
    s->top = s->pile[o->pile_count - 1];
    uint8_t unknown[JA_TAYLOR_MAX_SEATS] = {0};
    if (eu_left_known(&left, o->known, o->hand_count, n, seat, s->hand, s->hand_count, unknown) !=
        JA_OK)
        return JA_EFORMAT;
    for (int p = 0; p < n; p++)
        if (p != seat)
            memcpy(s->known[p], o->known + 52 * p, 52);
    s->stock_len = o->stock_count;
    s->stock_known = o->stock_known;
    if (o->stock_known)
        for (int i = 0; i < o->stock_count; i++) {
            TAKE(o->stock[i], id);
            s->stock[i] = id;
        }
#undef TAKE
    if (eu_left_deal(&left, unknown, n, s->hand, s->hand_count, s->stock,
                     o->stock_known ? 0u : o->stock_count, seed) != JA_OK)
        return JA_EFORMAT;
    return JA_OK;
}

/* The play as obs states it: the options, the game, the turn and its
 * stage, the effects pending, the scores, the events; the future from seed
 * (the match seed and the rebuild stream). */
static void sample_play(taylor_state *s, const ja_taylor_obs *o, uint64_t seed)
{
    s->seed = ja_seed_derive(seed, JA_STREAM_DETZ, 1);
    ja_rng_stream(&s->rebuild_rng, seed, JA_STREAM_DETZ, 2);
    s->last_card = o->last_card;
    s->rebuild = o->rebuild;
    s->turn_cap = o->turn_cap;
    s->games = o->games;
    s->game = o->game;
    s->turn = o->turn;
    s->dealer = o->dealer;
    s->stage = o->stage;
    s->cur = o->stage == JA_TAYLOR_STAGE_OVER ? 0 : o->to_act;
    s->dir = o->direction;
    s->active_suit = o->active_suit;
    s->pen_kind = o->penalty_kind;
    s->pen_k = o->penalty_k;
    s->run_suit = o->run_suit;
    s->laid = o->laid;
    s->start_count = o->start_count;
    /* Stage D sits between a turn's end effect and the move to the next seat:
     * the pending skip is the top card's (the last card laid this turn). */
    if (o->stage == JA_TAYLOR_STAGE_DECLARE)
        s->skips = rank_of(s->top) == JA_RANK_Q ? 1 : rank_of(s->top) == JA_RANK_K ? 2 : 0;
    for (int i = 0; i < s->n; i++)
        s->score[i] = o->score[i];
    s->event_seq = o->event_seq;
    s->game_ev = o->event_seq; /* unknown; only test_deal reads it */
    EU_EVENTS_IN(s, o, N_EVENTS, ev_kind, ev_seat, ev_card, ev_count);
}

/* Builds a full state from what seat knows (obs): the public table, its own
 * hand, the known cards and public stock in place, every other card dealt at
 * random among the remaining slots (other hands, and the stock when its order
 * is unknown). With rebuild=shuffle it treats all unseen cards as
 * exchangeable (docs/rules: a known approximation). The result is checked by
 * observing it again: JA_EFORMAT if that does not give obs back. */
static int taylor_sample(const void *obs, int seat, uint64_t seed, void *st_out)
{
    const ja_taylor_obs *o = obs;
    taylor_state *s = st_out;
    if (!sample_fits(o, seat))
        return JA_EFORMAT;
    memset(s, 0, sizeof *s);
    s->n = o->n_seats;
    s->decks = o->decks;
    if (sample_cards(s, o, seat, seed) != JA_OK)
        return JA_EFORMAT;
    sample_play(s, o, seed);
    if ((s->stage == JA_TAYLOR_STAGE_RUN) != (s->run_suit < 4))
        return JA_EFORMAT;

    /* Whatever the checks above missed (padding, stray values, an event ring
     * out of order): the state must observe back to exactly obs. */
    ja_taylor_obs back;
    taylor_observe(s, seat, &back);
    if (memcmp(&back, o, sizeof back) != 0)
        return JA_EFORMAT;
    return JA_OK;
}

/* ---- Text ------------------------------------------------------------------------ */

static const char *const SUIT_NAMES[4] = {"clubs", "diamonds", "hearts", "spades"};

static int taylor_label(ja_action a, char *buf, size_t cap)
{
    uint32_t c = a.code;
    if (c < 52) {
        char card[3];
        ja_card_format((uint8_t)c, card, sizeof card);
        return snprintf(buf, cap, "play %s", card);
    }
    switch (c) {
    case JA_TAYLOR_DRAW: return snprintf(buf, cap, "draw");
    case JA_TAYLOR_PICK_UP: return snprintf(buf, cap, "pick up");
    case JA_TAYLOR_FINISH: return snprintf(buf, cap, "finish");
    case JA_TAYLOR_DECLARE: return snprintf(buf, cap, "declare last card");
    case JA_TAYLOR_STAY_SILENT: return snprintf(buf, cap, "stay silent");
    default: break;
    }
    if (c >= JA_TAYLOR_SUIT(0) && c <= JA_TAYLOR_SUIT(3))
        return snprintf(buf, cap, "suit %s", SUIT_NAMES[c - JA_TAYLOR_SUIT(0)]);
    return JA_EINVAL;
}

/* "game 1/6 turn 12: seat 2 to act (T) on 7H, suit H; hands 5 3 6; stock 30". */
static int taylor_describe(const void *st, char *buf, size_t cap)
{
    const taylor_state *s = st;
    char tmp[512], card[3];
    eu_text t = EU_TEXT(tmp);
#define ADD(...) eu_add(&t, __VA_ARGS__)
    if (s->stage == JA_TAYLOR_STAGE_OVER) {
        ADD("match over after %u game%s: scores", (unsigned)s->games, s->games == 1 ? "" : "s");
        for (int i = 0; i < s->n; i++)
            ADD(" %g", (double)s->score[i] / JA_SCORE_UNIT);
    } else {
        ja_card_format(s->top, card, sizeof card);
        ADD("game %u/%u turn %u: seat %u to act (%c) on %s, suit %c", s->game + 1u,
            (unsigned)s->games, s->turn + 1u, (unsigned)s->cur, "TPFSND"[s->stage], card,
            ja_suit_letter(s->active_suit));
        if (s->dir < 0)
            ADD(", counter-clockwise");
        if (s->pen_kind != JA_TAYLOR_PEN_NONE)
            ADD(", penalty %u x %s", (unsigned)s->pen_k,
                s->pen_kind == JA_TAYLOR_PEN_TWO ? "2" : "7");
        if (s->stage == JA_TAYLOR_STAGE_RUN)
            ADD(", run of %s", SUIT_NAMES[s->run_suit]);
        ADD("; hands");
        for (int i = 0; i < s->n; i++)
            ADD(" %u", (unsigned)s->hand_count[i]);
        ADD("; stock %u%s", (unsigned)(s->stock_len - s->stock_pos),
            s->stock_known ? " (public order)" : "");
    }
#undef ADD
    return snprintf(buf, cap, "%s", tmp);
}

/* ---- The table -------------------------------------------------------------------- */

const ja_game_rules ja_taylor_blackjack_rules = {
    EU_RULES_TYPES(taylor_state, ja_taylor_obs, JA_TAYLOR_OBS_VERSION),
    .rules_version = 1, .name = "taylor-blackjack", .title = "Taylor Blackjack",
    .min_seats = 2, .max_seats = 12,
    .max_actions = 53, /* 52 distinct cards, plus DRAW */
    EU_RULES_FUNCS(taylor),
};
