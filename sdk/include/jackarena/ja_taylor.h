/* Taylor Blackjack: action codes and the observation a seat receives.
 * Rules as implemented: docs/rules/taylor-blackjack.md.
 *
 * Cards in an observation are identities 0..51 (ja_cards.h): with two decks,
 * the two copies of a card look the same to players. */
#ifndef JA_TAYLOR_H
#define JA_TAYLOR_H

#include "ja_common.h"
#include "ja_rules.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JA_TAYLOR_OBS_VERSION 1
#define JA_TAYLOR_MAX_SEATS 12  /* the game takes 2 to 12 players */
#define JA_TAYLOR_MAX_CARDS 104 /* two packs without jokers */
#define JA_TAYLOR_EVENTS 48     /* recent public events in an observation */

/* Action codes, in the order the spec lists them. */
#define JA_TAYLOR_PLAY(ident) ((uint32_t)(ident)) /* 0..51: lay that card */
#define JA_TAYLOR_DRAW 100u
#define JA_TAYLOR_PICK_UP 101u
#define JA_TAYLOR_FINISH 102u
#define JA_TAYLOR_SUIT(s) (110u + (uint32_t)(s)) /* s = JA_SUIT_* */
#define JA_TAYLOR_DECLARE 120u
#define JA_TAYLOR_STAY_SILENT 121u

/* Decision stages (spec 6.1). */
enum {
    JA_TAYLOR_STAGE_TURN,     /* T: play a matching card or DRAW */
    JA_TAYLOR_STAGE_PENALTY,  /* P: answer the penalty or PICK_UP */
    JA_TAYLOR_STAGE_EIGHT,    /* F: any card after an eight */
    JA_TAYLOR_STAGE_RUN,      /* S: ten run of one suit, or FINISH */
    JA_TAYLOR_STAGE_NOMINATE, /* N: name the suit after an ace */
    JA_TAYLOR_STAGE_DECLARE,  /* D: "Last card" */
    JA_TAYLOR_STAGE_OVER      /* the match is over */
};

enum { JA_TAYLOR_PEN_NONE, JA_TAYLOR_PEN_TWO, JA_TAYLOR_PEN_JACK };

/* Public events (ev_kind). ev_card is a card identity or JA_CARD_NONE. */
enum {
    JA_TAYLOR_EV_DEAL,     /* a game begins: seat = dealer, card = starter */
    JA_TAYLOR_EV_PLAY,     /* seat laid card */
    JA_TAYLOR_EV_DRAW,     /* seat drew count cards (DRAW, or the 8's draw) */
    JA_TAYLOR_EV_PICK_UP,  /* seat picked up count cards for a penalty */
    JA_TAYLOR_EV_SUIT,     /* seat named suit card (0..3) */
    JA_TAYLOR_EV_FINISH,   /* seat finished a ten run */
    JA_TAYLOR_EV_DECLARE,  /* seat said "Last card" */
    JA_TAYLOR_EV_SILENT,   /* seat did not, and drew count cards */
    JA_TAYLOR_EV_REBUILD,  /* the pile became the stock: count cards */
    JA_TAYLOR_EV_WIN,      /* seat won the game */
    JA_TAYLOR_EV_CAP       /* the turn cap stopped the game; count = fewest cards */
};

/* The observation's field list: S(type, name, doc) scalars and
 * A(type, name, count, doc) arrays. It generates ja_taylor_obs below, the
 * field table (ja_game_rules.obs_fields), the msgpack map and the JSON. */
#define JA_TAYLOR_OBS_FIELDS(S, A)                                                        \
    S(U8, seat, "the seat observing")                                                     \
    S(U8, n_seats, "number of seats")                                                     \
    S(U8, decks, "packs in play: 1 or 2")                                                 \
    S(U8, last_card, "option last_card: 0 explicit, 1 auto")                              \
    S(U8, rebuild, "option rebuild: 0 noshuffle, 1 shuffle")                              \
    S(U16, turn_cap, "option turn_cap: turns before a game stops")                        \
    S(U16, games, "option games: games in the match")                                     \
    S(U16, game, "current game, 0-based")                                                 \
    S(U16, turn, "turns completed in this game")                                          \
    S(U8, dealer, "dealer of this game")                                                  \
    S(U8, to_act, "seat deciding now (255 when the match is over)")                       \
    S(U8, stage, "JA_TAYLOR_STAGE_*")                                                     \
    S(I8, direction, "+1 clockwise, -1 counter-clockwise")                                \
    S(U8, top, "top card of the pile (identity)")                                         \
    S(U8, active_suit, "suit to follow (an ace may have named it)")                       \
    S(U8, penalty_kind, "JA_TAYLOR_PEN_*: pending penalty")                               \
    S(U8, penalty_k, "pending black cards (2 or 7 cards each)")                           \
    S(U8, run_suit, "suit of the ten run in stage S, else 255")                           \
    S(U8, laid, "cards laid by the seat to act in this turn")                             \
    S(U8, start_count, "cards the seat to act held when its turn began")                  \
    S(U8, stock_count, "cards in the stock")                                              \
    S(U8, stock_known, "1 if the stock order is public (rebuilt without shuffling)")      \
    S(U8, pile_count, "cards in the discard pile")                                        \
    A(U8, hand_count, JA_TAYLOR_MAX_SEATS, "cards held by each seat")                            \
    A(I32, score, JA_TAYLOR_MAX_SEATS, "games won so far, in units of 1/27720")                  \
    A(U8, hand, 52, "your hand: count of each card identity")                             \
    A(U8, known, JA_TAYLOR_MAX_SEATS * 52, "seat*52+card: cards known to be in other hands")     \
    A(U8, stock, JA_TAYLOR_MAX_CARDS, "the stock from the top, when stock_known")         \
    A(U8, pile, JA_TAYLOR_MAX_CARDS, "the discard pile, oldest first")                    \
    S(U32, event_seq, "number of public events so far in the match")                      \
    A(U32, ev_seq, JA_TAYLOR_EVENTS, "recent events, oldest first: sequence number (1-based; 0 = empty)") \
    A(U8, ev_kind, JA_TAYLOR_EVENTS, "JA_TAYLOR_EV_*")                                    \
    A(U8, ev_seat, JA_TAYLOR_EVENTS, "the seat concerned")                                \
    A(U8, ev_card, JA_TAYLOR_EVENTS, "card identity or suit, 255 if none")                \
    A(U8, ev_count, JA_TAYLOR_EVENTS, "number of cards")

typedef struct ja_taylor_obs {
    JA_TAYLOR_OBS_FIELDS(JA__MEMBER_S, JA__MEMBER_A)
} ja_taylor_obs;

#ifdef __cplusplus
}
#endif
#endif /* JA_TAYLOR_H */
