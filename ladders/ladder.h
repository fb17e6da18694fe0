/* The ladders library (libja_ladder): everything the arena needs to plan
 * tournaments, keep their results, and rate bots.
 *
 *   plan.h       tournament plans: seats and seeds of every match (pure)
 *   elo.h        live Elo updates, multiplayer decomposed into pairs (pure)
 *   ladder_db.h  the SQLite store: bots, tournaments, plans, results, ratings
 *   hash.h       SHA-256 of a plugin file, for bot identity
 *   names.h      display names that tell a ladder's bots apart
 *
 * Data flows one way: the arena builds a ladder_tournament_spec from its
 * command line, stores it (ladder_db_tournament_create, which generates and
 * stores the plan), runs the pending matches (ladder_db_pending,
 * ladder_db_match_get), records each finished one (ladder_db_record_match),
 * and prints ladder_db_standings / ladder_db_ratings, naming bots by
 * ladder_display_names. */
#ifndef JA_LADDER_H
#define JA_LADDER_H

#include "elo.h"
#include "hash.h"
#include "ladder_db.h"
#include "names.h"
#include "plan.h"

#endif /* JA_LADDER_H */
