/* Live Elo: the rating shown while a ladder is being played.
 *
 * Standard logistic Elo (A. E. Elo, "The Rating of Chessplayers, Past and
 * Present", Arco, 1978; the same formula as the FIDE Rating Regulations,
 * FIDE Handbook B.02): a player rated Ra expects against Rb the score
 *     E = 1 / (1 + 10^((Rb - Ra) / 400))
 * and after scoring S moves by K * (S - E).
 *
 * Multiplayer matches are decomposed into every pair of seats: the better
 * place scores 1, an equal place 0.5, the worse 0, and each pairwise change
 * is scaled by 1/(n-1) so that one n-seat match moves a rating about as much
 * as one two-player game. All changes of a match are computed from the
 * ratings before it (simultaneous update). docs/elo.md explains the choices.
 *
 * Live Elo is display-only: it depends on the order in which matches finish.
 * Official ratings come from a Bradley-Terry fit over all results.
 *
 * Pure functions: no I/O, no allocation, no globals; any thread. */
#ifndef JA_LADDER_ELO_H
#define JA_LADDER_ELO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The rating of a bot with no games in a ladder. */
#define LADDER_ELO_INITIAL 1500.0

/* K schedule: K = LADDER_ELO_K_NEW while a bot has played fewer than
 * LADDER_ELO_K_NEW_GAMES matches in the ladder, then LADDER_ELO_K. */
#define LADDER_ELO_K_NEW 32.0
#define LADDER_ELO_K 16.0
#define LADDER_ELO_K_NEW_GAMES 30

/* The logistic scale: a 400-point gap means 10:1 odds. */
#define LADDER_ELO_SCALE 400.0

/* One seat of a finished match, as ladder_elo_match reads and fills it. */
typedef struct ladder_elo_seat {
    int64_t who;    /* identity of the player (a bot id); seats with equal
                       `who` are the same player and are never paired */
    double rating;  /* before the match */
    int64_t games;  /* matches the player finished in this ladder before this one */
    uint8_t place;  /* 1 = best; equal places are a draw between those seats */
    double delta;   /* out: the change of this seat's rating */
    uint32_t wins, draws, losses; /* out: this seat's pairwise results */
} ladder_elo_seat;

/* Expected score of a player rated ra against one rated rb, in (0, 1). */
double ladder_elo_expected(double ra, double rb);

/* The K factor of a player with `games` finished matches in the ladder. */
double ladder_elo_k(int64_t games);

/* The pairwise score of place a against place b: 1.0 if a < b (better),
 * 0.5 if equal, 0.0 if worse. */
double ladder_elo_pair_score(uint8_t place_a, uint8_t place_b);

/* Computes the live Elo changes of one match of n seats (2 <= n <= 64):
 * for every seat i, delta = sum over seats j with another `who` of
 *     K(games_i) / (n - 1) * (S_ij - E(rating_i, rating_j))
 * and the pairwise wins, draws and losses of seat i. Reads who, rating,
 * games and place; writes delta, wins, draws, losses. Ratings are not
 * changed: the caller adds delta (summing the seats of a player who holds
 * several). Returns JA_OK, or JA_EINVAL (nothing written) for seats NULL,
 * n out of range or a place of 0 or above n. */
int ladder_elo_match(ladder_elo_seat *seats, uint32_t n);

#ifdef __cplusplus
}
#endif
#endif /* JA_LADDER_ELO_H */
