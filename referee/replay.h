/* Replays: one msgpack file per match, and the digest of a match.
 *
 * File format v1 (docs/replay-format.md): a stream of msgpack maps, a header,
 * one record per decision (each followed by the log records of the bots
 * that logged something for it), and an end record. The writer writes through
 * outfile.h (a fresh temporary file beside FILE, synced and renamed at the
 * end), so a replay either exists whole or not at all, and never replaces
 * anything but a regular file.
 *
 * The digest is SHA-256 over a canonical encoding of the match's game content
 * (game, rules version, options, seed, seat count, every decision's seats and
 * applied actions, the outcome), never of timings, timestamps, bot names,
 * versions or hashes: the same seed and the same choices give the same digest
 * on any machine. SHA-256 is Nettle's: the same function as any other
 * implementation, and it uses the CPU's SHA extensions where there are
 * some (chosen at run time, so the build stays baseline x86-64). */
#ifndef REF_REPLAY_H
#define REF_REPLAY_H

#include "jackarena/ja_bot.h"
#include "jackarena/ja_rules.h"
#include "ja_declog.h"

#include <nettle/sha2.h>
#include <stdio.h>

#define REF_DIGEST_BYTES 32
#define REF_DIGEST_HEX 65

/* ---- digest --------------------------------------------------------------- */

/* Bytes gathered before they are hashed: a decision adds a few bytes, and
 * SHA-256 is fed in batches of this size (the same bytes in the same order:
 * the same digest). */
#define REF_DIGEST_BATCH 512

typedef struct ref_digest {
    struct sha256_ctx st;                  /* Nettle's SHA-256 */
    uint32_t len;                          /* bytes waiting in buf */
    unsigned char buf[REF_DIGEST_BATCH];
} ref_digest;

void ref_digest_begin(ref_digest *d, const ja_game_rules *g, const ja_options *o,
                      uint64_t seed, uint32_t n_seats);
/* Hashes what waits in d's batch (ref_digest_step's slow path). */
void ref_digest_flush(ref_digest *d);

/* One decision of the seats in mask `seats`: the mask and each of those
 * seats' action codes, little-endian (inline: every step of every match). */
static inline void ref_digest_step(ref_digest *d, uint32_t seats, const ja_action *by_seat)
{
    /* Room for the mask and every seat's code, then written in place. */
    if (d->len + 4 * (1 + JA_MAX_SEATS) > sizeof d->buf)
        ref_digest_flush(d);
    unsigned char *b = d->buf + d->len;
    uint32_t v = seats;
    for (uint32_t left = seats & ((1u << JA_MAX_SEATS) - 1);; left &= left - 1) {
        b[0] = (unsigned char)v;
        b[1] = (unsigned char)(v >> 8);
        b[2] = (unsigned char)(v >> 16);
        b[3] = (unsigned char)(v >> 24);
        b += 4;
        if (!left)
            break;
        v = by_seat[__builtin_ctz(left)].code;
    }
    d->len = (uint32_t)(b - d->buf);
}
void ref_digest_end(ref_digest *d, const ja_outcome *o, uint8_t out[REF_DIGEST_BYTES]);
void ref_digest_hex(const uint8_t bin[REF_DIGEST_BYTES], char hex[REF_DIGEST_HEX]);

/* ---- records -------------------------------------------------------------- */

/* One seat's part of one decision. */
typedef struct ref_replay_rec {
    uint8_t seat;
    uint8_t fault;      /* ja_fault */
    uint8_t forced;     /* single legal action: answered by the referee */
    uint32_t code;      /* the action applied */
    int32_t index;      /* the bot's answer that was applied; -1 when forced or
                         * when none was (a fault: the default was played) */
    uint32_t n_legal;
    uint64_t think_us;
    uint8_t asked;      /* the decision was put to the bot (it had a turn):
                         * not forced, not after a forfeit, not a fallen flag */
    int32_t error;      /* fault `error`: the code act() returned (ref_answer.error;
                         * the replay's `e`), 0 when not known */
} ref_replay_rec;

/* The name of a code act() returned, for fault lines, replays shown and
 * bundles: "JA_EINVAL" for a code of ja_error.h, "code 7" for any other
 * (buf holds it; REF_ERROR_NAME_MAX bytes). */
#define REF_ERROR_NAME_MAX 24
const char *ref_error_name(int32_t rc, char buf[REF_ERROR_NAME_MAX]);

/* A seat's player: its display name, its kind, version and plugin file's
 * SHA-256, and `bot`, the bot's own name (its descriptor's or hello's,
 * whatever the display name: `random` for a second random seat shown as
 * `random#2`); "" in replays written before it. */
typedef struct ref_replay_player {
    char name[64], kind[16], version[32], sha256[65], bot[64];
} ref_replay_player;

/* What a replay's header holds. */
typedef struct ref_replay_header {
    char game[64];
    uint32_t rules_version, obs_version;
    ja_options options;            /* resolved */
    uint64_t seed;
    uint32_t n_seats;
    ref_replay_player players[JA_MAX_SEATS];
    char match_id[64];
    uint32_t move_ms;
    uint32_t bank_ms;              /* per-match time bank, 0 for none */
    char on_fault[16];             /* fault policy name; "" read as "default" */
} ref_replay_header;

/* ---- writer --------------------------------------------------------------- */

typedef struct ref_replay_writer ref_replay_writer;

/* Creates the temporary file for path (ref_out_open). JA_EIO with a message
 * naming the path (also when path is there and not a regular file). */
int ref_replay_writer_open(const char *path, ref_replay_writer **out, char *err, size_t cap);
int ref_replay_write_header(ref_replay_writer *w, const ja_game_rules *g,
                            const ref_replay_header *h);
int ref_replay_write_step(ref_replay_writer *w, uint32_t step, const ref_replay_rec *recs,
                          uint32_t n);
/* The log record of seat's log of decision step (len bytes of text,
 * cleaned: ja_declog.h), after that decision's record. */
int ref_replay_write_log(ref_replay_writer *w, uint32_t step, uint32_t seat, const char *text,
                         size_t len);
/* Writes the end record, syncs, puts the file in place, frees w. */
int ref_replay_writer_finish(ref_replay_writer **w, const ja_outcome *o,
                             const uint32_t faults[JA_MAX_SEATS], uint32_t decisions,
                             const uint8_t digest[REF_DIGEST_BYTES], char *err, size_t cap);
/* Removes the temporary file and frees w (NULL allowed). */
void ref_replay_writer_abort(ref_replay_writer **w);

/* ---- reader and verifier ---------------------------------------------------- */

typedef struct ref_replay_step {
    uint32_t seats;     /* mask of the seats of this decision */
    uint32_t first;     /* index of its first rec */
    uint32_t n;         /* recs, one per seat of the mask, ascending seats */
} ref_replay_step;

/* One bot log of a replay (docs/replay-format.md, "Bot logs"): seat's log
 * of decision step, len bytes at log_text + off (cleaned: ja_declog.h;
 * NUL after them). */
typedef struct ref_replay_log {
    uint32_t step, seat;
    size_t off;
    uint32_t len;
} ref_replay_log;

typedef struct ref_replay {
    ref_replay_header h;
    const ja_game_rules *game;     /* NULL if this build lacks the game */
    ref_replay_step *steps;
    uint32_t n_steps;
    ref_replay_rec *recs;
    uint32_t n_recs;
    ref_replay_log *logs;          /* by decision, then seat */
    uint32_t n_logs;
    char *log_text;                /* the logs' texts */
    size_t log_text_len;
    int has_end;
    ja_outcome outcome;
    uint32_t faults[JA_MAX_SEATS];
    uint8_t digest[REF_DIGEST_BYTES];
} ref_replay;

/* Loads a replay file. JA_ENOTFOUND (cannot open), JA_EFORMAT (corrupt or
 * truncated: err names the byte offset), JA_EVERSION (another format
 * version or rules version). */
int ref_replay_load(const char *path, ref_replay **out, char *err, size_t cap);
/* The same from bytes in memory (path only names the source in messages).
 * This is the decoder of untrusted bytes that tests/fuzz exercises. */
int ref_replay_parse(const char *buf, size_t len, const char *path, ref_replay **out, char *err,
                     size_t cap);
void ref_replay_free(ref_replay **r);

/* Seat's log of decision step (NUL-terminated, *len its length), or NULL
 * (*len 0) when its bot logged nothing there. len may be NULL. */
const char *ref_replay_log_of(const ref_replay *r, uint32_t step, uint32_t seat, size_t *len);

/* Writes the replay at src to dst (through outfile.h: whole or not at all)
 * without its log records, which is what a server publishes: the rest is
 * byte for byte the same, so it verifies with the same digest. JA_OK, or
 * JA_ENOTFOUND, JA_EIO, JA_EFORMAT (src is no msgpack stream) with err. */
int ref_replay_strip_logs(const char *src, const char *dst, char *err, size_t cap);

/* Re-simulates every decision of r under its game's rules and checks every
 * action, the outcome and the digest. JA_OK, or JA_EMISMATCH with the first
 * disagreement in err. The recomputed digest is written to digest. */
int ref_replay_verify(const ref_replay *r, uint8_t digest[REF_DIGEST_BYTES], char *err,
                      size_t cap);

#endif /* REF_REPLAY_H */
