/* Swiss and knockout tournaments as they are played (pairing.h,
 * docs/tournament-plan.md): the next round planned from the recorded
 * results once the rounds before are all in, and the swiss standings or
 * the bracket shown with the tournament's standings. */
#ifndef ARENA_ROUNDS_H
#define ARENA_ROUNDS_H

#include "core/json_w.h"
#include "run/botspec.h"

#include "ladder_db.h"
#include "pairing.h"

#include <stdbool.h>
#include <stdio.h>

/* The plan parameters of stored tournament ti, with the deal set it was
 * planned with (deals, n_deals: NULL, 0 for none). */
void arena_rounds_params(const ladder_tournament_info *ti, const uint64_t *deals,
                         uint32_t n_deals, ladder_plan_params *pp);

/* When every stored match of swiss or knockout tournament tid is done and
 * rounds remain, plans the next one from the results and stores it;
 * *planned says whether a round was added. Nothing for the other formats.
 * JA_OK, or the failure with its line in err. */
int arena_rounds_advance(ladder_db *db, int64_t tid, const uint64_t *deals, uint32_t n_deals,
                         bool *planned, char *err, size_t cap);

/* What the standings show of a swiss or knockout tournament. */
typedef struct arena_rounds_view {
    ladder_plan_params pp;
    const arena_bots *bots;        /* the participants, by slot */
    ladder_played *hist;
    uint32_t n_hist;
    uint32_t rounds_done, rounds;  /* complete rounds, of all */
} arena_rounds_view;

/* Reads what v shows of tournament tid (ti); false (v empty) for the
 * formats planned whole or when it cannot be read. Free with
 * arena_rounds_view_free. */
bool arena_rounds_view_read(arena_rounds_view *v, ladder_db *db, const ladder_tournament_info *ti,
                            const uint64_t *deals, uint32_t n_deals, const arena_bots *bots);
void arena_rounds_view_free(arena_rounds_view *v);

/* The swiss standings or the bracket, as text after the standings, or as
 * the "swiss" or "knockout" member of the JSON object being written. */
void arena_rounds_print_text(FILE *out, const arena_rounds_view *v);
void arena_rounds_print_json(json_w *w, const arena_rounds_view *v);

#endif /* ARENA_ROUNDS_H */
