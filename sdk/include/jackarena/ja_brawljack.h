/* BrawlJack (BattleJack): action codes and the observation a seat receives.
 * Rules as implemented: docs/rules/brawljack.md.
 *
 * Words: a *hand* is one pile of cards on the table (a seat owns several); a
 * match is `hands` *deals* (the spec's "hands" of a match). Hands are
 * numbered twice: by their place in the observation's hand list (creation
 * order, used by events), and by (owner, k), k being the hand's number among
 * its owner's hands in creation order (used by action codes).
 *
 * Cards are ids 0..53 (ja_cards.h: 13 * suit + rank, jokers 52 and 53). The
 * main deck, the dealer's deck and each blind round's deck are separate
 * fresh 54-card decks, so an id may appear once in the main table and once
 * among the dealer's hands. */
#ifndef JA_BRAWLJACK_H
#define JA_BRAWLJACK_H

#include "ja_common.h"
#include "ja_rules.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JA_BRAWLJACK_OBS_VERSION 1
#define JA_BRAWLJACK_MAX_SEATS 8     /* the game takes 2 to 8 players */
#define JA_BRAWLJACK_DEALER 8        /* the owner number of the dealer's hands */
#define JA_BRAWLJACK_DECK 54         /* 52 cards and two jokers */
#define JA_BRAWLJACK_MAX_HANDS 108   /* at most 54 from the main deck, 54 from the dealer's */
#define JA_BRAWLJACK_HAND_CARDS 12   /* 11 cards without busting, then the card that busts */
#define JA_BRAWLJACK_BLIND_CARDS 11  /* the most cards of a blind hand */
#define JA_BRAWLJACK_EVENTS 64       /* recent public events in an observation */

/* Action codes. Owners are seats 0..7 or JA_BRAWLJACK_DEALER; k < 64. Sorted
 * by code, HIT targets come by owner, then by k, as the spec lists them, and
 * STAY(..) come before END_TURN. */
#define JA_BRAWLJACK_HIT(owner, k) (64u * (uint32_t)(owner) + (uint32_t)(k))
#define JA_BRAWLJACK_STAY(owner, k) (1024u + 64u * (uint32_t)(owner) + (uint32_t)(k))
#define JA_BRAWLJACK_END_TURN 2048u
#define JA_BRAWLJACK_BLIND_HIT 2049u
#define JA_BRAWLJACK_BLIND_STAY 2050u
#define JA_BRAWLJACK_IS_HIT(code) ((code) < JA_BRAWLJACK_HIT(JA_BRAWLJACK_DEALER + 1, 0))
#define JA_BRAWLJACK_IS_STAY(code) \
    ((code) >= 1024u && (code) < JA_BRAWLJACK_STAY(JA_BRAWLJACK_DEALER + 1, 0))
/* The owner and k named by a HIT or STAY code. */
#define JA_BRAWLJACK_CODE_OWNER(code) (((code) % 1024u) / 64u)
#define JA_BRAWLJACK_CODE_INDEX(code) ((code) % 64u)

/* Decision stages (spec §6, §8, §9). */
enum {
    JA_BRAWLJACK_STAGE_HIT,         /* N1: place the drawn card (`drawn`) on a LIVE hand */
    JA_BRAWLJACK_STAGE_HIT_REGULAR, /* R1: choose an own LIVE hand before the draw */
    JA_BRAWLJACK_STAGE_STAY,        /* N2 / R2: STAY own LIVE hands, then END_TURN */
    JA_BRAWLJACK_STAGE_DEALER_HIT,  /* dealer R1, by the controlling seat */
    JA_BRAWLJACK_STAGE_DEALER_STAY, /* dealer R2, by the controlling seat */
    JA_BRAWLJACK_STAGE_BLIND,       /* blind tiebreak: BLIND_HIT or BLIND_STAY */
    JA_BRAWLJACK_STAGE_OVER         /* the match is over */
};

/* Hand states (hand_state); 0 marks an unused slot. */
enum { JA_BRAWLJACK_HAND_NONE, JA_BRAWLJACK_HAND_LIVE, JA_BRAWLJACK_HAND_STAYED,
       JA_BRAWLJACK_HAND_BUST };

/* The result of a deal's main phase (spec §7). */
enum { JA_BRAWLJACK_MODE_NONE, JA_BRAWLJACK_MODE_HIGH, JA_BRAWLJACK_MODE_POINTS };

/* Public events (ev_kind). 255 marks a field that does not apply. */
enum {
    JA_BRAWLJACK_EV_DEAL,         /* a deal begins: seat = first player, card = upcard */
    JA_BRAWLJACK_EV_HIT,          /* seat (8: dealer) put card on hand; value: its value, 0 bust */
    JA_BRAWLJACK_EV_SPLIT,        /* card started the new hand `hand` of owner seat */
    JA_BRAWLJACK_EV_BUST,         /* hand of owner seat went bust on card */
    JA_BRAWLJACK_EV_STAY,         /* owner seat stayed hand; value = its value */
    JA_BRAWLJACK_EV_DONE,         /* seat has no LIVE hand left */
    JA_BRAWLJACK_EV_STOCK_OUT,    /* the stock is empty: value = LIVE hands stayed */
    JA_BRAWLJACK_EV_RESULT_HIGH,  /* highest-hand mode: value = the best hand (255: all bust) */
    JA_BRAWLJACK_EV_RESULT_POINTS, /* points mode: value = the most twenty-ones */
    JA_BRAWLJACK_EV_DEALER,       /* dealer phase: seat = controller (255 auto), value = target */
    JA_BRAWLJACK_EV_DEALER_WIN,   /* the dealer met the target: the deal is cancelled */
    JA_BRAWLJACK_EV_DEALER_FAIL,  /* the dealer failed: the leaders' result stands */
    JA_BRAWLJACK_EV_BLIND,        /* blind round `value` (1-based) begins; seat = first player */
    JA_BRAWLJACK_EV_BLIND_HIT,    /* seat took a face-down card: value = cards now */
    JA_BRAWLJACK_EV_BLIND_STAY,   /* seat stayed its blind hand */
    JA_BRAWLJACK_EV_REVEAL,       /* seat's blind hand is shown: value = its value (0 bust) */
    JA_BRAWLJACK_EV_WIN,          /* seat won the deal */
    JA_BRAWLJACK_EV_SHARE         /* seat shares the deal with value - 1 others */
};

/* The observation's field list: S(type, name, doc) scalars and
 * A(type, name, count, doc) arrays. It generates ja_brawljack_obs below, the
 * field table (ja_game_rules.obs_fields), the msgpack map and the JSON. */
#define JA_BRAWLJACK_OBS_FIELDS(S, A)                                                              \
    S(U8, seat, "the seat observing")                                                              \
    S(U8, n_seats, "number of seats")                                                              \
    S(U8, dealer, "option dealer: 0 off, 1 on")                                                    \
    S(U8, dealer_control, "option dealer_control: 0 seat, 1 auto")                                 \
    S(U16, blind_rounds, "option blind_rounds: blind rounds before a tie is shared")               \
    S(U16, hands, "option hands: deals in the match")                                              \
    S(U16, deal, "current deal, 0-based")                                                          \
    S(U16, turn, "main-phase turns begun in this deal")                                            \
    S(U8, first, "first player of this deal")                                                      \
    S(U8, to_act, "seat deciding now (255 when the match is over)")                                \
    S(U8, stage, "JA_BRAWLJACK_STAGE_*")                                                           \
    S(U8, upcard, "the card turned up at setup (the deal's first draw)")                           \
    S(U8, drawn, "stage HIT: the drawn card, if this seat may see it; else 255")                   \
    S(U8, drawn_public, "1 when the drawn card is the upcard, seen by all")                        \
    S(U8, deck_count, "cards left in the deck in use (main stock, dealer's or blind deck)")        \
    A(U8, unseen, JA_BRAWLJACK_DECK, "1 per card of the deck in use this seat has not seen")       \
    S(U8, n_hands, "hands on the table (main and dealer)")                                         \
    A(U8, hand_owner, JA_BRAWLJACK_MAX_HANDS, "owner seat; 8 = the dealer")                        \
    A(U8, hand_index, JA_BRAWLJACK_MAX_HANDS, "k: the hand's number among its owner's")            \
    A(U8, hand_state, JA_BRAWLJACK_MAX_HANDS, "JA_BRAWLJACK_HAND_*")                               \
    A(U8, hand_len, JA_BRAWLJACK_MAX_HANDS, "cards in the hand")                                   \
    A(U8, hand_value, JA_BRAWLJACK_MAX_HANDS, "best value (21 at most); 0 when bust")              \
    A(U8, hand_21s, JA_BRAWLJACK_MAX_HANDS, "twenty-ones: 2 for an AK-47, 1 for another 21")       \
    A(U8, hand_card, JA_BRAWLJACK_MAX_HANDS * JA_BRAWLJACK_HAND_CARDS,                             \
      "hand*12+i: the hand's cards, bottom first; the last is its top card")                       \
    A(U8, done, JA_BRAWLJACK_MAX_SEATS, "1 when the seat is DONE (no LIVE hand)")                  \
    S(U8, mode, "JA_BRAWLJACK_MODE_*: the main phase's result, once over")                         \
    A(I8, result, JA_BRAWLJACK_MAX_SEATS, "score this deal (21s or best value); -1 none")          \
    A(U8, leader, JA_BRAWLJACK_MAX_SEATS, "1 for the seats with the best result")                  \
    S(U8, target, "the leaders' score, the dealer's target (255: none)")                           \
    S(U8, controller, "seat playing the dealer; 255 for auto or no dealer phase")                  \
    S(U16, blind_round, "blind rounds begun in this deal")                                         \
    A(U8, blind_player, JA_BRAWLJACK_MAX_SEATS, "1 for the seats in the current blind round")      \
    A(U8, blind_count, JA_BRAWLJACK_MAX_SEATS, "face-down cards in each blind hand")               \
    A(U8, blind_stayed, JA_BRAWLJACK_MAX_SEATS, "1 when that blind hand has stayed")               \
    A(U8, shown_count, JA_BRAWLJACK_MAX_SEATS, "cards of each blind hand at the last reveal")      \
    A(U8, shown_card, JA_BRAWLJACK_MAX_SEATS * JA_BRAWLJACK_BLIND_CARDS,                           \
      "seat*11+i: the blind hands shown at the last reveal of this deal")                          \
    A(U8, shown_value, JA_BRAWLJACK_MAX_SEATS, "their values (0 bust)")                            \
    A(I32, score, JA_BRAWLJACK_MAX_SEATS, "deals won so far, in units of 1/27720")                 \
    S(U32, event_seq, "number of public events so far in the match")                               \
    A(U32, ev_seq, JA_BRAWLJACK_EVENTS, "recent events, oldest first: number (1-based; 0 empty)")  \
    A(U8, ev_kind, JA_BRAWLJACK_EVENTS, "JA_BRAWLJACK_EV_*")                                       \
    A(U8, ev_seat, JA_BRAWLJACK_EVENTS, "the seat concerned (8 = dealer), or 255")                 \
    A(U8, ev_hand, JA_BRAWLJACK_EVENTS, "hand number in the hand list, or 255")                    \
    A(U8, ev_card, JA_BRAWLJACK_EVENTS, "card, or 255")                                            \
    A(U8, ev_value, JA_BRAWLJACK_EVENTS, "a value or count (see the kind), or 255")

typedef struct ja_brawljack_obs {
    JA_BRAWLJACK_OBS_FIELDS(JA__MEMBER_S, JA__MEMBER_A)
} ja_brawljack_obs;

#ifdef __cplusplus
}
#endif
#endif /* JA_BRAWLJACK_H */
