/* Jack in the Box: action codes and the observation a seat receives.
 * Rules as implemented: docs/rules/jack-in-the-box.md.
 *
 * Cards in an observation are identities 0..51 (ja_cards.h): with two packs
 * (variants v2 and v3) the two copies of a card look the same to players and
 * are interchangeable in play. Jokers never leave the boxes and never appear.
 *
 * Boxes and positions: box b (0..3) has positions p = 0..3; the observation
 * and the codes number a position b * 4 + p. Box b owns joker slots 2b and
 * 2b + 1 (slot_color 0 marks a slot that does not exist).
 *
 * Card references in SINGLE and PAIR: the identity of a card of the acting
 * seat's own hand (0..51), or JA_JITB_PARTNER + identity for a card of the
 * partner's opened hand (team mode). The engine plays the copy with the
 * lowest id of that identity in that hand. */
#ifndef JA_JACK_IN_THE_BOX_H
#define JA_JACK_IN_THE_BOX_H

#include "ja_common.h"
#include "ja_rules.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JA_JITB_OBS_VERSION 1
#define JA_JITB_MAX_SEATS 4   /* the game takes 2 to 4 players */
#define JA_JITB_MAX_BOXES 4   /* variant v3 */
#define JA_JITB_POSITIONS 16  /* JA_JITB_MAX_BOXES boxes of 4 positions */
#define JA_JITB_SLOTS 8       /* 2 joker slots per box */
#define JA_JITB_MAX_CARDS 104 /* two packs without their jokers */
#define JA_JITB_HAND 5        /* cards held at the start of every turn */
#define JA_JITB_EVENTS 64     /* recent public events in an observation */
#define JA_JITB_PARTNER 64u   /* added to an identity: a card of the partner's hand */

/* Action codes. Within each stage the codes sort in the order the spec lists
 * the actions (spec §6.1). */
#define JA_JITB_TARGET(b, p) (4u * (uint32_t)(b) + (uint32_t)(p))  /* 0..15 */
#define JA_JITB_JACK_IN(suit, b) (16u + 4u * (uint32_t)(suit) + (uint32_t)(b)) /* 16..31 */
#define JA_JITB_EXCHANGE 32u
#define JA_JITB_END_TURN 33u
#define JA_JITB_OPEN 40u
#define JA_JITB_KEEP_CLOSED 41u
#define JA_JITB_MARK(c) (64u + (uint32_t)(c)) /* 64..115: identity c of the own hand */
#define JA_JITB_CONFIRM 120u
#define JA_JITB_CHANGE(b, p) (128u + 4u * (uint32_t)(b) + (uint32_t)(p)) /* 128..143 */
#define JA_JITB_DONE 144u
#define JA_JITB_SINGLE(r) (0x1000u + (uint32_t)(r))                        /* r: card reference */
#define JA_JITB_PAIR(r1, r2) (0x2000u + 128u * (uint32_t)(r1) + (uint32_t)(r2)) /* r1 <= r2 */

/* Decoding. */
#define JA_JITB_IS_SINGLE(code) ((code) >= 0x1000u && (code) < 0x1000u + 128u)
#define JA_JITB_IS_PAIR(code) ((code) >= 0x2000u && (code) < 0x2000u + 128u * 128u)
#define JA_JITB_SINGLE_REF(code) ((code) - 0x1000u)
#define JA_JITB_PAIR_REF1(code) (((code) - 0x2000u) / 128u)
#define JA_JITB_PAIR_REF2(code) (((code) - 0x2000u) % 128u)
#define JA_JITB_REF_CARD(r) ((r) % JA_JITB_PARTNER)      /* the identity */
#define JA_JITB_REF_IS_PARTNER(r) ((r) >= JA_JITB_PARTNER)

/* Decision stages (spec §6.1). */
enum {
    JA_JITB_STAGE_CHOOSE,   /* A: TARGET, JACK_IN, then EXCHANGE or END_TURN */
    JA_JITB_STAGE_MATCH,    /* B: SINGLE / PAIR against `target` */
    JA_JITB_STAGE_OPEN,     /* O: OPEN or KEEP_CLOSED (team mode) */
    JA_JITB_STAGE_EXCHANGE, /* X: MARK own cards, then CONFIRM */
    JA_JITB_STAGE_CHANGE,   /* Y: CHANGE positions after a full exchange, then DONE */
    JA_JITB_STAGE_BONUS,    /* J: CHANGE positions after a Jack in the Box, then DONE */
    JA_JITB_STAGE_OVER      /* the match is over */
};

/* Option `variant` (spec §12). */
enum { JA_JITB_STANDARD, JA_JITB_V1, JA_JITB_V2, JA_JITB_V3 };

/* Joker slot colours (slot_color). */
enum { JA_JITB_NO_SLOT, JA_JITB_RED, JA_JITB_BLACK };

/* How a game ended (ev_value of JA_JITB_EV_END). */
enum { JA_JITB_END_CLOSED, JA_JITB_END_STOCK };

/* Public events (ev_kind). ev_card / ev_card2 are identities or 255; ev_pos a
 * position b * 4 + p, a box, or 255; ev_value as listed. */
enum {
    JA_JITB_EV_DEAL,     /* a game begins: seat = dealer */
    JA_JITB_EV_BOX,      /* card dealt onto position pos for seat's deal; value = K/Q points (0 or 3) */
    JA_JITB_EV_REJECT,   /* card drawn for pos and discarded (a Jack or a duplicate); value = 0 or 3 */
    JA_JITB_EV_MATCH,    /* seat matched pos with card (and card2 for a pair); value = points */
    JA_JITB_EV_OPEN,     /* seat opened its partner's hand (now in `known`) */
    JA_JITB_EV_CLOSED,   /* seat kept its partner's hand closed */
    JA_JITB_EV_JACK_IN,  /* seat put Jack card onto a joker of box pos; value = 16 */
    JA_JITB_EV_DOUBLE,   /* seat's singles against box pos doubled: value = points added */
    JA_JITB_EV_MARK,     /* seat marked card for exchange (face up) */
    JA_JITB_EV_EXCHANGE, /* seat discarded its value marked cards */
    JA_JITB_EV_DRAW,     /* seat drew value cards */
    JA_JITB_EV_LOCK,     /* seat changed the box and holds the lock */
    JA_JITB_EV_UNLOCK,   /* the lock of seat ended */
    JA_JITB_EV_EXTRA,    /* seat takes an extra turn */
    JA_JITB_EV_END       /* the game ended; value = JA_JITB_END_* */
};

/* The observation's field list: S(type, name, doc) scalars and
 * A(type, name, count, doc) arrays. It generates ja_jitb_obs below, the
 * field table (ja_game_rules.obs_fields), the msgpack map and the JSON. */
#define JA_JITB_OBS_FIELDS(S, A)                                                               \
    S(U8, seat, "the seat observing")                                                          \
    S(U8, n_seats, "number of seats")                                                          \
    S(U8, variant, "option variant: JA_JITB_STANDARD, _V1, _V2, _V3")                          \
    S(U8, teams, "option teams: 1 = partners s and s + 2")                                     \
    S(U8, packs, "packs in the deck: 1 or 2")                                                  \
    S(U8, n_boxes, "boxes in play: 1, 2 or 4")                                                 \
    S(U8, change_limit, "L: most positions a change may cover in each box")                    \
    S(U8, dealer, "dealer of this game")                                                       \
    S(U16, games, "option games: games in the match")                                          \
    S(U16, game, "current game, 0-based")                                                      \
    S(U16, turn, "the current turn of this game, 1-based (extra turns count)")                 \
    S(U8, to_act, "seat deciding now (255 when the match is over)")                            \
    S(U8, stage, "JA_JITB_STAGE_*")                                                            \
    S(U8, extra_turn, "1 if the current turn is an extra turn")                                \
    S(U8, target, "stage B: the position being matched (b * 4 + p), else 255")                \
    S(U8, matches, "matches made in the current turn")                                         \
    S(U8, opened, "1 if the partner's hand was opened in the current turn")                    \
    S(U8, extra_due, "stage J: 1 if the turn has earned an extra turn")                        \
    S(U16, change_mask, "stages Y and J: bit b * 4 + p for each position chosen")              \
    S(U8, lock_seat, "seat holding the change lock, 255 if none")                              \
    S(U8, lock_fresh, "1: the lock ends with lock_seat's next regular turn; 0: with its current one") \
    S(U8, stock_count, "cards in the stock")                                                   \
    S(U8, discard_count, "cards in the discard pile")                                          \
    S(U8, box_log_count, "cards dealt onto box positions in this game")                        \
    S(U8, n_marked, "cards marked for exchange in the current turn")                           \
    A(U8, marked, JA_JITB_HAND, "the marked cards (face up), in the order marked")             \
    A(U8, active, JA_JITB_POSITIONS, "active (top) card of each position, 255 if not in play") \
    A(U8, box_open, JA_JITB_MAX_BOXES, "1 if the box is in play and open")                     \
    A(U8, slot_color, JA_JITB_SLOTS, "colour of joker slot 2b+k: JA_JITB_RED, _BLACK, 0 none")  \
    A(U8, slot_jack, JA_JITB_SLOTS, "Jack covering the slot, 255 if uncovered")                \
    A(U8, slot_seat, JA_JITB_SLOTS, "seat that put that Jack in, 255 if uncovered")            \
    A(U8, single_mask, JA_JITB_MAX_BOXES, "current turn: bit p when position p was matched by a single") \
    A(U8, single_count, JA_JITB_MAX_BOXES, "current turn: single matches against each box")   \
    A(U8, hand_count, JA_JITB_MAX_SEATS, "cards held by each seat (marked cards excluded)")   \
    A(U8, exchanged, JA_JITB_MAX_SEATS, "cards each seat exchanged in this game")              \
    A(I32, game_score, JA_JITB_MAX_SEATS, "points in this game (team mode: the partnership's)") \
    A(I32, score, JA_JITB_MAX_SEATS, "points in the match so far (team mode: the partnership's)") \
    A(U8, hand, 52, "your hand: count of each card identity")                                  \
    A(U8, known, JA_JITB_MAX_SEATS * 52,                                                       \
      "seat*52+card: cards known to be in each hand (shown when opened, not used since)")     \
    A(U8, discard, JA_JITB_MAX_CARDS, "the discard pile, oldest first")                       \
    A(U8, box_log, JA_JITB_MAX_CARDS, "every card dealt onto a position this game, in order")  \
    A(U8, box_log_pos, JA_JITB_MAX_CARDS, "the position (b * 4 + p) of each box_log card")    \
    S(U32, event_seq, "number of public events so far in the match")                           \
    A(U32, ev_seq, JA_JITB_EVENTS, "recent events, oldest first: sequence number (1-based; 0 = empty)") \
    A(U8, ev_kind, JA_JITB_EVENTS, "JA_JITB_EV_*")                                             \
    A(U8, ev_seat, JA_JITB_EVENTS, "the seat concerned")                                       \
    A(U8, ev_card, JA_JITB_EVENTS, "card identity, 255 if none")                              \
    A(U8, ev_card2, JA_JITB_EVENTS, "second card identity (pairs), 255 if none")              \
    A(U8, ev_pos, JA_JITB_EVENTS, "position b * 4 + p or box, 255 if none")                  \
    A(U8, ev_value, JA_JITB_EVENTS, "points or a count (see JA_JITB_EV_*)")

typedef struct ja_jitb_obs {
    JA_JITB_OBS_FIELDS(JA__MEMBER_S, JA__MEMBER_A)
} ja_jitb_obs;

#ifdef __cplusplus
}
#endif
#endif /* JA_JACK_IN_THE_BOX_H */
