/* Standard playing cards as small integers (shared by four of the games;
 * Bruise Jack has its own deck).
 *
 * Id = 13 * suit + rank, suits C=0 D=1 H=2 S=3, ranks A=0, 2=1 ... T=9, J=10,
 * Q=11, K=12; black joker 52, red joker 53. A second pack shuffled into the
 * same deck adds 54 to every id. The "identity" of a card (what a player
 * sees) is its id modulo 54. Labels: "AS", "TD", "7H", "XB", "XR". */
#ifndef JA_CARDS_H
#define JA_CARDS_H

#include "ja_common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JA_CARD_NONE 0xFFu
#define JA_CARDS_PER_PACK 54u /* 52 + 2 jokers, the id stride of a second pack */
#define JA_JOKER_BLACK 52u
#define JA_JOKER_RED 53u

enum { JA_SUIT_C, JA_SUIT_D, JA_SUIT_H, JA_SUIT_S, JA_SUIT_COUNT };
enum {
    JA_RANK_A, JA_RANK_2, JA_RANK_3, JA_RANK_4, JA_RANK_5, JA_RANK_6, JA_RANK_7,
    JA_RANK_8, JA_RANK_9, JA_RANK_T, JA_RANK_J, JA_RANK_Q, JA_RANK_K, JA_RANK_COUNT
};

static inline uint8_t ja_card_ident(uint8_t id) { return (uint8_t)(id % JA_CARDS_PER_PACK); }
static inline int ja_card_suit(uint8_t id) { return ja_card_ident(id) / 13; }
static inline int ja_card_rank(uint8_t id) { return ja_card_ident(id) % 13; }
static inline uint8_t ja_card_make(int suit, int rank) { return (uint8_t)(13 * suit + rank); }
static inline bool ja_card_is_joker(uint8_t id) { return ja_card_ident(id) >= 52; }
/* Clubs and spades are black; jokers count by their own colour. */
static inline bool ja_card_is_black(uint8_t id)
{
    uint8_t c = ja_card_ident(id);
    return c == JA_JOKER_BLACK || (c < 52 && (c / 13 == JA_SUIT_C || c / 13 == JA_SUIT_S));
}

/* Writes the label of id ("7H"; "XB"/"XR" for jokers; identity only) into
 * buf, which must hold 3 bytes. Returns JA_OK or JA_EINVAL for an id that is
 * no card. */
JA_API int ja_card_format(uint8_t id, char *buf, size_t cap);

/* Parses a label ("7H", "7h", "10H", "TH", "XB") to an identity 0..53, or
 * returns -1. */
JA_API int ja_card_parse(const char *s);

/* The suit letter ('C','D','H','S') of suit 0..3, or '?'. */
JA_API char ja_suit_letter(int suit);

#ifdef __cplusplus
}
#endif
#endif /* JA_CARDS_H */
