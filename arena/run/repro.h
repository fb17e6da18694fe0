/* Reproduction bundles: for a match with a fault, a JSON file next to its
 * replay (<replay stem>.repro.json) with what an author needs to re-run
 * the match locally against the same bots: the seed, the options, the time
 * control and fault policy, the `arena play` command line, every bot's
 * identity and file hash, and for each faulty seat every decision put to
 * it (the act message as sent on the wire, its observation as JSON, the
 * legal list, the answer or fault, the thinking time) and its stderr tail.
 * Format: docs/faults.md.
 *
 * The decisions are re-derived from the finished replay by re-simulating
 * it, so the match loop buffers nothing per decision. Written whole
 * through outfile.h, like replays. */
#ifndef ARENA_REPRO_H
#define ARENA_REPRO_H

#include "match.h"

/* Bytes of stderr tail kept per seat (ref_match_config.stderr_cap). */
#define ARENA_REPRO_TAIL 4096

/* What a bundle says about its match beyond the replay. Borrowed. */
typedef struct arena_repro_info {
    const ref_match_config *cfg;     /* what the match was; max_faults */
    int64_t tournament_id;           /* 0 for `arena play` */
    uint32_t number;                 /* the match's number in the plan */
    ref_bot *const *bots;            /* per seat */
    const char *const *names;        /* per seat: display names */
    const char *const *specs;        /* per seat: specifiers as given, or NULL */
    const char *stderr_tails;        /* n_seats * ARENA_REPRO_TAIL, or NULL */
} arena_repro_info;

/* The bundle's path for a replay path: its stem (without ".rpl") plus
 * ".repro.json". */
void arena_repro_path(char *buf, size_t cap, const char *replay_path);

/* Writes the bundle of the match whose replay is at replay_path and whose
 * result is res. Writes nothing (JA_OK) when no seat had a fault. JA_EIO
 * or JA_EFORMAT (the replay cannot be re-read) with a one-line message. */
int arena_repro_write(const char *replay_path, const arena_repro_info *info,
                      const ref_match_result *res, char *err, size_t cap);

#endif /* ARENA_REPRO_H */
