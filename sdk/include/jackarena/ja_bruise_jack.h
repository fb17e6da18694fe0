/* Bruise Jack: its 125-card deck, the row arithmetic, action codes and the
 * observation a seat receives. Rules as implemented: docs/rules/bruise-jack.md.
 *
 * Cards are ids 0..124, id = 25 * colour + 5 * number + suit, each attribute
 * a level 0..4 (0 = the wild level: Black, ?, Blob). A card counts in a row
 * only by the attribute of that row: COLOUR, NUMBER or SUIT. Level l is worth
 * l + 1; a wild is worth 1 or 6. These ids are not the ja_cards.h ids. */
#ifndef JA_BRUISE_JACK_H
#define JA_BRUISE_JACK_H

#include "ja_common.h"
#include "ja_rules.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JA_BRUISE_JACK_OBS_VERSION 1
#define JA_BRUISE_JACK_CARDS 125     /* the whole deck */
#define JA_BRUISE_JACK_MAX_SEATS 6
#define JA_BRUISE_JACK_MAX_UP 11     /* up cards a row can hold (each is worth 1 or more) */
#define JA_BRUISE_JACK_MAX_DISCARD 36 /* Way 1 claims: 3 centres and 3 up cards per seat */
#define JA_BRUISE_JACK_EVENTS 64     /* recent public events in an observation */
#define JA_BRUISE_JACK_NONE 0xFFu    /* no card, no seat */
#define JA_BRUISE_JACK_TARGET 11     /* the best total a row can have */

/* Rows, always in this order; also the card attributes. */
enum { JA_BRUISE_JACK_COLOUR, JA_BRUISE_JACK_NUMBER, JA_BRUISE_JACK_SUIT, JA_BRUISE_JACK_ROWS };

/* Attribute levels. */
enum { JA_BRUISE_JACK_WILD = 0, JA_BRUISE_JACK_TOP_LEVEL = 4, JA_BRUISE_JACK_LEVELS = 5 };

/* Action codes, in the order the spec lists them. */
#define JA_BRUISE_JACK_HIT 0u
#define JA_BRUISE_JACK_STAND 1u
#define JA_BRUISE_JACK_PLACE(row) (10u + (uint32_t)(row)) /* row = JA_BRUISE_JACK_COLOUR.. */

/* Decision stages (spec §6). */
enum {
    JA_BRUISE_JACK_STAGE_HIT,   /* D1: HIT or STAND */
    JA_BRUISE_JACK_STAGE_PLACE, /* D2: the row for the card drawn */
    JA_BRUISE_JACK_STAGE_OVER   /* the match is over */
};

/* Row values at a showdown (obs.last_row). Way 1 ranks, high to low:
 * claimed Bruise Jack 13, Guile 12, totals 11..4, bust 0. Way 2 scores:
 * Bruise Jack 16, Guile 11, the best total, bust 0. */
#define JA_BRUISE_JACK_RANK_BUST 0
#define JA_BRUISE_JACK_RANK_GUILE 12
#define JA_BRUISE_JACK_RANK_CLAIMED 13
#define JA_BRUISE_JACK_SCORE_BRUISE 16
#define JA_BRUISE_JACK_SCORE_GUILE 11

/* Public events (ev_kind). ev_card is a card id or 255; ev_arg as listed. */
enum {
    JA_BRUISE_JACK_EV_DEAL,      /* a hand is dealt: seat = dealer, arg = replay number (0 regular) */
    JA_BRUISE_JACK_EV_REVEAL,    /* seat's centre shown: card (a Way 1 claim, or the showdown) */
    JA_BRUISE_JACK_EV_CLAIM,     /* Way 1: seat claims row arg; card = its discarded up card */
    JA_BRUISE_JACK_EV_CENTRE,    /* Way 1: seat gets a new face-down centre after a claim */
    JA_BRUISE_JACK_EV_HIT,       /* seat takes a card (seen by that seat only) */
    JA_BRUISE_JACK_EV_PLACE,     /* seat puts card face up at the end of row arg */
    JA_BRUISE_JACK_EV_STAND,     /* seat stands for the rest of the hand */
    JA_BRUISE_JACK_EV_STOCK_OUT, /* the stock is empty: every seat is finished */
    JA_BRUISE_JACK_EV_ORDER,     /* Way 1 showdown: arg = 9 * first row + 3 * second + third */
    JA_BRUISE_JACK_EV_WIN,       /* seat wins the hand, sharing its point among arg seats */
    JA_BRUISE_JACK_EV_TIE        /* ties=replay: the seats in mask arg replay the hand */
};

/* The level (0..4) of card in the attribute of row. */
static inline int ja_bruise_jack_level(uint8_t card, int row)
{
    return row == JA_BRUISE_JACK_COLOUR ? card / 25 : row == JA_BRUISE_JACK_NUMBER ? card / 5 % 5
                                                                                   : card % 5;
}

/* The card with these levels. */
static inline uint8_t ja_bruise_jack_card(int colour, int number, int suit)
{
    return (uint8_t)(25 * colour + 5 * number + suit);
}

/* The hard value of card in row: a wild counts 1, level l counts l + 1. */
static inline int ja_bruise_jack_hard(uint8_t card, int row)
{
    int l = ja_bruise_jack_level(card, row);
    return l == JA_BRUISE_JACK_WILD ? 1 : l + 1;
}

/* The largest total <= 11 of k row cards (cards[0..k), the centre among
 * them) counting each wild as 1 or 6, or -1 if the row is bust (its hard sum
 * is over 11). */
static inline int ja_bruise_jack_best(const uint8_t *cards, int k, int row)
{
    int hard = 0, wilds = 0;
    for (int i = 0; i < k; i++) {
        hard += ja_bruise_jack_hard(cards[i], row);
        wilds += ja_bruise_jack_level(cards[i], row) == JA_BRUISE_JACK_WILD;
    }
    if (hard > JA_BRUISE_JACK_TARGET)
        return -1;
    while (wilds-- > 0 && hard + 5 <= JA_BRUISE_JACK_TARGET)
        hard += 5;
    return hard;
}

/* True if the two cards a and b make a Bruise Jack in row: one wild, the
 * other of the top level (6 + 5). */
static inline bool ja_bruise_jack_pair(uint8_t a, uint8_t b, int row)
{
    int la = ja_bruise_jack_level(a, row), lb = ja_bruise_jack_level(b, row);
    return (la == JA_BRUISE_JACK_WILD && lb == JA_BRUISE_JACK_TOP_LEVEL) ||
           (la == JA_BRUISE_JACK_TOP_LEVEL && lb == JA_BRUISE_JACK_WILD);
}

/* The showdown value of a row (see JA_BRUISE_JACK_RANK_* above): way is 1
 * or 2, claimed says the row is a claimed Way 1 Bruise Jack (then cards are
 * not read), cards[0..k) are the row cards, the centre among them. */
static inline int ja_bruise_jack_row_value(int way, bool guile, bool claimed, const uint8_t *cards,
                                           int k, int row)
{
    if (claimed)
        return JA_BRUISE_JACK_RANK_CLAIMED;
    if (way == 2 && k == 2 && ja_bruise_jack_pair(cards[0], cards[1], row))
        return JA_BRUISE_JACK_SCORE_BRUISE;
    int best = ja_bruise_jack_best(cards, k, row);
    if (best < 0)
        return JA_BRUISE_JACK_RANK_BUST;
    if (guile && k == 5)
        return way == 1 ? JA_BRUISE_JACK_RANK_GUILE : JA_BRUISE_JACK_SCORE_GUILE;
    return best;
}

/* The observation's field list: S(type, name, doc) scalars and
 * A(type, name, count, doc) arrays. It generates ja_bruise_jack_obs below,
 * the field table (ja_game_rules.obs_fields), the msgpack map and the JSON.
 * Per-row arrays are indexed seat * 3 + row; `up` is indexed
 * (seat * 3 + row) * 11 + i. Entries of seats past n_seats are 0. */
#define JA_BRUISE_JACK_OBS_FIELDS(S, A)                                                          \
    S(U8, seat, "the seat observing")                                                            \
    S(U8, n_seats, "number of seats")                                                            \
    S(U8, way, "option way: 1 or 2")                                                             \
    S(U8, guile, "option guile: 0 off, 1 on")                                                    \
    S(U8, ties, "option ties: 0 split, 1 replay")                                                \
    S(U16, hands, "option hands: regular hands in the match")                                   \
    S(U16, hand, "current regular hand, 0-based (its replays keep its number)")                 \
    S(U8, replay, "0 in a regular hand, 1..3 in the replays of a tie")                          \
    S(U8, active, "bit s: seat s is dealt in (every seat, except in a replay)")                  \
    S(U8, rotation_dealer, "dealer of the current regular hand")                                 \
    S(U8, dealer, "dealer of this hand")                                                         \
    S(U8, to_act, "seat deciding now (255 when the match is over)")                              \
    S(U8, stage, "JA_BRUISE_JACK_STAGE_*")                                                       \
    S(U8, stock_count, "cards in the stock")                                                     \
    S(U8, drawn, "the card you drew, while you place it; else 255")                              \
    S(U8, centre, "your face-down centre card, 255 if you have none")                            \
    A(U8, has_centre, JA_BRUISE_JACK_MAX_SEATS, "1 if the seat holds a centre card")              \
    A(U8, stood, JA_BRUISE_JACK_MAX_SEATS, "1 if the seat stood in this hand")                    \
    A(U8, claimed, JA_BRUISE_JACK_MAX_SEATS * 3, "seat*3+row: 1 if a claimed Bruise Jack (Way 1)") \
    A(U8, open, JA_BRUISE_JACK_MAX_SEATS * 3, "seat*3+row: 1 if the row may receive a card")       \
    A(U8, up_count, JA_BRUISE_JACK_MAX_SEATS * 3, "seat*3+row: up cards in the row")               \
    A(U8, shown, JA_BRUISE_JACK_MAX_SEATS * 3, "seat*3+row: hard sum of the row's up cards")        \
    A(U8, up, JA_BRUISE_JACK_MAX_SEATS * 3 * JA_BRUISE_JACK_MAX_UP,                               \
      "(seat*3+row)*11+i: the row's up cards, first dealt first; 0 past up_count")                \
    S(U8, discard_count, "cards in this hand's discard pile")                                    \
    A(U8, discard, JA_BRUISE_JACK_MAX_DISCARD,                                                   \
      "this hand's discard pile, oldest first: per claim the centre, then the claimed up cards")  \
    A(I32, score, JA_BRUISE_JACK_MAX_SEATS, "points so far, in units of 1/27720")                 \
    S(U16, showdowns, "showdowns so far in the match (the last_* fields describe the last)")     \
    A(U8, last_centre, JA_BRUISE_JACK_MAX_SEATS, "centre of each seat at the last showdown, or 255") \
    A(U8, last_row, JA_BRUISE_JACK_MAX_SEATS * 3,                                                \
      "seat*3+row: value at the last showdown (Way 1 rank, Way 2 score)")                         \
    A(U8, last_order, 3, "Way 1: the row order of the last showdown; Way 2: 255")                \
    S(U8, last_winners, "bit s: seat s led the last showdown (shared or replayed if several)")   \
    S(U32, event_seq, "number of public events so far in the match")                             \
    A(U32, ev_seq, JA_BRUISE_JACK_EVENTS,                                                         \
      "recent events, oldest first: sequence number (1-based; 0 = empty)")                        \
    A(U8, ev_kind, JA_BRUISE_JACK_EVENTS, "JA_BRUISE_JACK_EV_*")                                  \
    A(U8, ev_seat, JA_BRUISE_JACK_EVENTS, "the seat concerned, 255 if none")                      \
    A(U8, ev_arg, JA_BRUISE_JACK_EVENTS, "row, count, mask or order, by kind")                    \
    A(U8, ev_card, JA_BRUISE_JACK_EVENTS, "card id, 255 if none")

typedef struct ja_bruise_jack_obs {
    JA_BRUISE_JACK_OBS_FIELDS(JA__MEMBER_S, JA__MEMBER_A)
} ja_bruise_jack_obs;

#ifdef __cplusplus
}
#endif
#endif /* JA_BRUISE_JACK_H */
