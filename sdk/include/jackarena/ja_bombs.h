/* Bombs: action codes, ranks, forms and the observation a seat receives.
 * Rules as implemented: docs/rules/bombs.md.
 *
 * Ranks (JA_BOMBS_R_*) index the climbing order 3 4 5 6 7 8 9 10 J Q K A 2
 * XB XR as 0..14; suits never matter to play, so actions and the public
 * record name ranks, and only the observing seat's own hand names cards
 * (identities 0..53, ja_cards.h).
 *
 * Action codes are sorted in the order the specification lists each
 * decision's actions: plays by form (single, pair, run, double run,
 * completion, bomb, big bomb, super bomb), then PASS and DECLINE; the lead
 * kinds; the exchange actions. label() names a code alone ("pair 7",
 * "run 3-7", "lead run of 5", "request 9"). */
#ifndef JA_BOMBS_H
#define JA_BOMBS_H

#include "ja_common.h"
#include "ja_rules.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JA_BOMBS_OBS_VERSION 1
#define JA_BOMBS_MAX_SEATS 20  /* four tables of 5 (spec #28) */
#define JA_BOMBS_MAX_TABLES 6  /* 20 seats at tables of 3 to 5: at most 6 tables */
#define JA_BOMBS_MAX_CHAIRS 5  /* seats at one table */
#define JA_BOMBS_RANKS 15      /* 3 .. A, 2, XB, XR */
#define JA_BOMBS_CARDS 54      /* one pack with both jokers, per table */
#define JA_BOMBS_EVENTS 48     /* recent public events in an observation */
#define JA_BOMBS_MAX_RUN 12    /* 3 to A */

/* Ranks. */
enum {
    JA_BOMBS_R_3, JA_BOMBS_R_4, JA_BOMBS_R_5, JA_BOMBS_R_6, JA_BOMBS_R_7, JA_BOMBS_R_8,
    JA_BOMBS_R_9, JA_BOMBS_R_10, JA_BOMBS_R_J, JA_BOMBS_R_Q, JA_BOMBS_R_K, JA_BOMBS_R_A,
    JA_BOMBS_R_2, JA_BOMBS_R_XB, JA_BOMBS_R_XR
};

/* Forms of a play (top_form, lead_form). A completion makes a BOMB. */
enum {
    JA_BOMBS_FORM_NONE, JA_BOMBS_FORM_SINGLE, JA_BOMBS_FORM_PAIR, JA_BOMBS_FORM_RUN,
    JA_BOMBS_FORM_DRUN, JA_BOMBS_FORM_BOMB, JA_BOMBS_FORM_BIG, JA_BOMBS_FORM_SUPER
};

/* Plays (r = lowest rank, L = length 3..12). A run or double run covers
 * ranks r .. r+L-1, never past the ace; its codes go by rank within a
 * length, each length JA_BOMBS_RUN_STRIDE codes (above any rank) after the
 * one before. */
#define JA_BOMBS_RUN_STRIDE 16u
#define JA_BOMBS_SINGLE(r) (100u + (uint32_t)(r))
#define JA_BOMBS_PAIR(r) (200u + (uint32_t)(r))
#define JA_BOMBS_RUN(r, L) (300u + JA_BOMBS_RUN_STRIDE * ((uint32_t)(L) - 3u) + (uint32_t)(r))
#define JA_BOMBS_DRUN(r, L) (500u + JA_BOMBS_RUN_STRIDE * ((uint32_t)(L) - 3u) + (uint32_t)(r))
#define JA_BOMBS_COMPLETE(r) (700u + (uint32_t)(r)) /* a pair onto SINGLE(r): BOMB(r) */
#define JA_BOMBS_BOMB(r) (800u + (uint32_t)(r))
#define JA_BOMBS_BIG(r) (900u + (uint32_t)(r))
#define JA_BOMBS_SUPER 1000u
#define JA_BOMBS_PASS 1100u    /* in turn */
#define JA_BOMBS_DECLINE 1101u /* in an interrupt window */
/* The lead's first step: the kind of play (then its rank, stage LEAD_RANK). */
#define JA_BOMBS_LEAD_SINGLE 2001u
#define JA_BOMBS_LEAD_PAIR 2002u
#define JA_BOMBS_LEAD_RUN(L) (2010u + (uint32_t)(L))
#define JA_BOMBS_LEAD_DRUN(L) (2030u + (uint32_t)(L))
#define JA_BOMBS_LEAD_BOMB 2050u
#define JA_BOMBS_LEAD_BIG 2051u
#define JA_BOMBS_LEAD_SUPER 2052u
/* The exchange. */
#define JA_BOMBS_REVOLT 3001u
#define JA_BOMBS_NO_REVOLT 3002u
#define JA_BOMBS_ACCEPT 3011u
#define JA_BOMBS_REFUSE 3012u
#define JA_BOMBS_REQUEST(r) (3020u + (uint32_t)(r)) /* r = 3 .. 10 (JA_BOMBS_R_3 .. R_10) */
#define JA_BOMBS_NO_REQUEST 3030u
#define JA_BOMBS_RETURN(r) (3040u + (uint32_t)(r))

/* A play code taken apart (ja_bombs_play_decode). */
typedef struct ja_bombs_play {
    uint8_t form;  /* JA_BOMBS_FORM_SINGLE .. JA_BOMBS_FORM_SUPER; a completion is a BOMB */
    uint8_t rank;  /* the lowest rank (JA_BOMBS_R_*); JA_BOMBS_R_XB for the super bomb */
    uint8_t len;   /* ranks covered by a run or double run, else 0 */
    bool complete; /* JA_BOMBS_COMPLETE(rank): a pair onto SINGLE(rank), making BOMB(rank) */
} ja_bombs_play;

/* Takes the code c apart into *p: true for the code of a play (SINGLE ..
 * SUPER above; a run or double run only up to the ace), false for any
 * other code (PASS, DECLINE, the lead kinds, the exchange, no action at
 * all), when *p says nothing. The engine decodes every play with it. */
static inline bool ja_bombs_play_decode(uint32_t c, ja_bombs_play *p)
{
    p->form = JA_BOMBS_FORM_NONE;
    p->rank = p->len = 0;
    p->complete = false;
    if (c >= JA_BOMBS_SINGLE(0) && c <= JA_BOMBS_SINGLE(JA_BOMBS_R_XR)) {
        p->form = JA_BOMBS_FORM_SINGLE;
        p->rank = (uint8_t)(c - JA_BOMBS_SINGLE(0));
    } else if (c >= JA_BOMBS_PAIR(0) && c <= JA_BOMBS_PAIR(JA_BOMBS_R_2)) {
        p->form = JA_BOMBS_FORM_PAIR;
        p->rank = (uint8_t)(c - JA_BOMBS_PAIR(0));
    } else if ((c >= JA_BOMBS_RUN(0, 3) && c < JA_BOMBS_RUN(0, JA_BOMBS_MAX_RUN + 1)) ||
               (c >= JA_BOMBS_DRUN(0, 3) && c < JA_BOMBS_DRUN(0, JA_BOMBS_MAX_RUN + 1))) {
        const bool single = c < JA_BOMBS_DRUN(0, 3);
        const uint32_t k = c - (single ? JA_BOMBS_RUN(0, 3) : JA_BOMBS_DRUN(0, 3));
        p->form = single ? JA_BOMBS_FORM_RUN : JA_BOMBS_FORM_DRUN;
        p->rank = (uint8_t)(k % JA_BOMBS_RUN_STRIDE);
        p->len = (uint8_t)(3 + k / JA_BOMBS_RUN_STRIDE);
        if (p->rank + p->len - 1 > JA_BOMBS_R_A)
            return false;
    } else if (c >= JA_BOMBS_COMPLETE(0) && c <= JA_BOMBS_COMPLETE(JA_BOMBS_R_2)) {
        p->form = JA_BOMBS_FORM_BOMB;
        p->rank = (uint8_t)(c - JA_BOMBS_COMPLETE(0));
        p->complete = true;
    } else if (c >= JA_BOMBS_BOMB(0) && c <= JA_BOMBS_BOMB(JA_BOMBS_R_2)) {
        p->form = JA_BOMBS_FORM_BOMB;
        p->rank = (uint8_t)(c - JA_BOMBS_BOMB(0));
    } else if (c >= JA_BOMBS_BIG(0) && c <= JA_BOMBS_BIG(JA_BOMBS_R_2)) {
        p->form = JA_BOMBS_FORM_BIG;
        p->rank = (uint8_t)(c - JA_BOMBS_BIG(0));
    } else if (c == JA_BOMBS_SUPER) {
        p->form = JA_BOMBS_FORM_SUPER;
        p->rank = JA_BOMBS_R_XB;
    } else {
        return false;
    }
    return true;
}

/* Decision stages (spec §6, §7.1), as the observing seat sees them: a seat
 * that is not the leader sees LEAD while the leader picks the rank, and a
 * table that is not playing now shows IDLE. */
enum {
    JA_BOMBS_STAGE_IDLE,      /* this seat's table is not playing now */
    JA_BOMBS_STAGE_REVOLT,    /* E1: the Knave, REVOLT or NO_REVOLT */
    JA_BOMBS_STAGE_ACCEPT,    /* E3: the Master, ACCEPT or REFUSE the offered card */
    JA_BOMBS_STAGE_REQUEST,   /* E4: the Knave, REQUEST(r) or NO_REQUEST */
    JA_BOMBS_STAGE_RETURN,    /* E5: the Master, RETURN(r) */
    JA_BOMBS_STAGE_LEAD,      /* L1: the leader, the kind of play */
    JA_BOMBS_STAGE_LEAD_RANK, /* L2: the leader, its lowest rank */
    JA_BOMBS_STAGE_FOLLOW,    /* F: turn_seat, a play that beats the top or PASS */
    JA_BOMBS_STAGE_WINDOW,    /* W: every seat with cards but turn_seat, an interrupt or DECLINE */
    JA_BOMBS_STAGE_OVER       /* the match is over */
};

/* Public events (ev_kind); ev_arg as noted. */
enum {
    JA_BOMBS_EV_DEAL,        /* seat = dealer; arg = hand (0-based) */
    JA_BOMBS_EV_REVOLT,      /* seat = Knave, who holds both jokers and leads */
    JA_BOMBS_EV_OFFER,       /* seat = Knave; arg = rank of his highest card */
    JA_BOMBS_EV_ACCEPT,      /* seat = Master; arg = rank: the card is his */
    JA_BOMBS_EV_REFUSE,      /* seat = Master; arg = rank: the card stays, the Master leads */
    JA_BOMBS_EV_REQUEST,     /* seat = Knave; arg = rank the Master does not hold */
    JA_BOMBS_EV_REQUEST_MET, /* seat = Knave; arg = rank: the Master handed one over */
    JA_BOMBS_EV_RETURN,      /* seat = Master; arg = rank of the card handed to the Knave */
    JA_BOMBS_EV_PLAY,        /* seat played in turn (a lead or a follow); arg = play code */
    JA_BOMBS_EV_INTERRUPT,   /* seat played out of turn (a window); arg = play code */
    JA_BOMBS_EV_PASS,        /* seat passed */
    JA_BOMBS_EV_TRICK,       /* seat won the trick */
    JA_BOMBS_EV_OUT,         /* seat played its last card; arg = its finishing place */
    JA_BOMBS_EV_KNAVE,       /* seat is the last holding cards; arg = its place: the table's hand is over */
    JA_BOMBS_EV_HAND_END,    /* seat 255; arg = hand: every table is done, scores published */
    JA_BOMBS_EV_MOVE         /* seat = a Knave moving; arg = the table he moves to */
};

/* The observation's field list: S(type, name, doc) scalars and
 * A(type, name, count, doc) arrays. It generates ja_bombs_obs below, the
 * field table (ja_game_rules.obs_fields), the msgpack map and the JSON.
 * Fields about a table (cards, places, knowledge, played) cover only the
 * observing seat's own table; other entries are 0. */
#define JA_BOMBS_OBS_FIELDS(S, A)                                                            \
    S(U8, seat, "the seat observing")                                                        \
    S(U8, n_seats, "number of seats")                                                        \
    S(U16, hands, "option hands: hands in a game")                                           \
    S(U8, out_of_turn, "option out_of_turn: 1 on (interrupt windows), 0 off")                \
    S(U8, interrupt_after_pass, "option interrupt_after_pass: 1 on, 0 off")                  \
    S(U8, tables, "option tables, resolved: tables of the regular hands")                    \
    S(U8, tiebreak_hands, "option tiebreak_hands: most extra hands for a tie")               \
    S(U16, hand_no, "current hand, 0-based (hands and later: tiebreak hands)")                \
    S(U8, tiebreak, "0 in a regular hand, k in the k-th tiebreak hand")                      \
    S(U8, n_tables, "tables in this hand")                                                   \
    S(U8, table, "this seat's table in this hand, 255 if it sits out (tiebreak)")            \
    S(U8, stage, "JA_BOMBS_STAGE_* at this seat's table")                                    \
    S(U8, actor, "seat deciding in a one-seat stage (E1-E5, L1, L2, F), else 255")           \
    S(U8, dealer, "dealer at this table, 255 before the deal")                               \
    S(U8, lead_form, "the kind chosen in L1 (only the leader sees it, in L2), else 0")       \
    S(U8, lead_len, "its length for runs, else 0")                                           \
    S(U8, top_form, "JA_BOMBS_FORM_* of the top play, 0 before the lead")                    \
    S(U8, top_rank, "lowest rank of the top play")                                           \
    S(U8, top_len, "length of a top run or double run, else 0")                              \
    S(U8, top_owner, "seat that made the top play (w), 255 if none")                         \
    S(U8, turn_seat, "seat due to act in turn (n) in F and W, else 255")                     \
    S(U8, passes, "passes in turn since the top play")                                       \
    S(U8, offer, "rank of the card the Knave offered this hand, 255 if none")                \
    S(U16, requested, "bit r: rank r requested by the Knave and not held by the Master")     \
    S(U8, club3, "seat known to hold the 3 of clubs (first leader, until it plays a 3), else 255") \
    A(U8, table_seats, JA_BOMBS_MAX_CHAIRS, "this table clockwise from chair 0; 255 past its size") \
    A(U8, table_master, JA_BOMBS_MAX_TABLES, "each table's Master for this hand's exchange, 255 if none") \
    A(U8, table_knave, JA_BOMBS_MAX_TABLES, "each table's (arriving) Knave, 255 if none")    \
    A(U8, seat_table, JA_BOMBS_MAX_SEATS, "every seat's table in this hand, 255 if it sits out") \
    A(U8, seat_chair, JA_BOMBS_MAX_SEATS, "every seat's chair at its table")                 \
    A(I32, score, JA_BOMBS_MAX_SEATS, "points of finished hands (published when every table is done)") \
    A(U8, last_place, JA_BOMBS_MAX_SEATS, "every seat's finishing place at its table in the previous hand, 0 none") \
    A(U8, count, JA_BOMBS_MAX_SEATS, "cards held, seats at this table")                      \
    A(U8, place, JA_BOMBS_MAX_SEATS, "finishing place this hand at this table, 0 while holding cards") \
    A(U8, known, JA_BOMBS_MAX_SEATS * JA_BOMBS_RANKS, "seat*15+rank: cards of that rank known to be in that hand") \
    A(U16, absent, JA_BOMBS_MAX_SEATS, "bit r: the seat's cards not in `known` include no rank r") \
    A(U8, played, JA_BOMBS_RANKS, "cards of each rank played at this table this hand")       \
    A(U8, hand, JA_BOMBS_CARDS, "your hand: 1 for each card identity held")                  \
    S(U32, event_seq, "public events this seat has seen in the match")                       \
    A(U32, ev_seq, JA_BOMBS_EVENTS, "recent events, oldest first: this seat's number (1-based; 0 = empty)") \
    A(U8, ev_kind, JA_BOMBS_EVENTS, "JA_BOMBS_EV_*")                                         \
    A(U8, ev_seat, JA_BOMBS_EVENTS, "the seat concerned, 255 if none")                       \
    A(U16, ev_arg, JA_BOMBS_EVENTS, "rank, play code, place, table or hand (see the kind)")

typedef struct ja_bombs_obs {
    JA_BOMBS_OBS_FIELDS(JA__MEMBER_S, JA__MEMBER_A)
} ja_bombs_obs;

#ifdef __cplusplus
}
#endif
#endif /* JA_BOMBS_H */
