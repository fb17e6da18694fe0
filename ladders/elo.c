/* Live Elo updates (see elo.h and docs/elo.md).
 *
 * Invariant: ladder_elo_match reads only the "before" fields of every seat
 * and writes only the "out" fields, so the result does not depend on the
 * order of the seats and one match is one simultaneous update. */
#include "elo.h"

#include <math.h>

#include "jackarena/ja_error.h"

double ladder_elo_expected(double ra, double rb)
{
    return 1.0 / (1.0 + pow(10.0, (rb - ra) / LADDER_ELO_SCALE));
}

double ladder_elo_k(int64_t games)
{
    return games < LADDER_ELO_K_NEW_GAMES ? LADDER_ELO_K_NEW : LADDER_ELO_K;
}

double ladder_elo_pair_score(uint8_t place_a, uint8_t place_b)
{
    if (place_a < place_b)
        return 1.0;
    if (place_a == place_b)
        return 0.5;
    return 0.0;
}

int ladder_elo_match(ladder_elo_seat *seats, uint32_t n)
{
    if (seats == NULL || n < 2 || n > 64)
        return JA_EINVAL;
    for (uint32_t i = 0; i < n; i++)
        if (seats[i].place < 1 || seats[i].place > n)
            return JA_EINVAL;

    for (uint32_t i = 0; i < n; i++) {
        ladder_elo_seat *s = &seats[i];
        /* Scaling by 1/(n-1): a seat meets n-1 opponents, so a match is worth
         * one game's K in total. Self-pairs still count in n-1, so a player
         * holding two seats is not moved further by the other seats. */
        double k = ladder_elo_k(s->games) / (double)(n - 1);
        double sum = 0.0;
        s->wins = s->draws = s->losses = 0;
        for (uint32_t j = 0; j < n; j++) {
            const ladder_elo_seat *o = &seats[j];
            if (j == i || o->who == s->who)
                continue;
            double score = ladder_elo_pair_score(s->place, o->place);
            sum += score - ladder_elo_expected(s->rating, o->rating);
            if (score == 1.0)
                s->wins++;
            else if (score == 0.5)
                s->draws++;
            else
                s->losses++;
        }
        s->delta = k * sum;
    }
    return JA_OK;
}
