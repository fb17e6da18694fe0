/* Card labels: formatting and parsing (ja_cards.h). */
#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"

#include <ctype.h>
#include <string.h>

static const char RANKS[] = "A23456789TJQK";
static const char SUITS[] = "CDHS";

char ja_suit_letter(int suit)
{
    return (suit >= 0 && suit < 4) ? SUITS[suit] : '?';
}

int ja_card_format(uint8_t id, char *buf, size_t cap)
{
    if (cap < 3 || id >= 2 * JA_CARDS_PER_PACK)
        return JA_EINVAL;
    uint8_t c = ja_card_ident(id);
    if (c == JA_JOKER_BLACK || c == JA_JOKER_RED) {
        buf[0] = 'X';
        buf[1] = c == JA_JOKER_BLACK ? 'B' : 'R';
    } else {
        buf[0] = RANKS[c % 13];
        buf[1] = SUITS[c / 13];
    }
    buf[2] = '\0';
    return JA_OK;
}

int ja_card_parse(const char *s)
{
    if (!s)
        return -1;
    size_t n = strlen(s);
    if (n == 2 && toupper((unsigned char)s[0]) == 'X') {
        int k = toupper((unsigned char)s[1]);
        return k == 'B' ? (int)JA_JOKER_BLACK : k == 'R' ? (int)JA_JOKER_RED : -1;
    }
    int rank;
    const char *sp;
    if (n == 3 && s[0] == '1' && s[1] == '0') {
        rank = JA_RANK_T;
        sp = s + 2;
    } else if (n == 2) {
        const char *p = strchr(RANKS, toupper((unsigned char)s[0]));
        if (!p || !*p)
            return -1;
        rank = (int)(p - RANKS);
        sp = s + 1;
    } else {
        return -1;
    }
    const char *q = strchr(SUITS, toupper((unsigned char)*sp));
    if (!q || !*q)
        return -1;
    return ja_card_make((int)(q - SUITS), rank);
}
