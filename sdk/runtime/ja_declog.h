/* A decision's log: what a bot logged for one decision, bounded and made
 * safe to show (docs/replay-format.md, "Bot logs").
 *
 * Every place that gathers a bot's log lines for a decision keeps them in a
 * ja_declog: the in-process plugin seat, the hosted child (which sends them
 * with its answer), the C client (likewise), and the referee's seats of
 * hosted and external bots (what came with the answer, and a cmd: bot's
 * output). The text is at most JA_DECLOG_MAX bytes; when more comes, what
 * fits is kept and the marker JA_DECLOG_CUT ends it, and the rest of that
 * decision's log is dropped. The text is cleaned as it is added, so that a
 * viewer (a terminal, a page) can show it as it is: valid UTF-8 only (a
 * byte that is no part of a valid character becomes '?', a character is
 * never cut in two), no control character but the newline (a tab becomes a
 * space, a carriage return is dropped; any other, C1 controls and the
 * Unicode bidirectional overrides included, becomes '?'), no NUL inside.
 * Cleaning never makes a text longer.
 *
 * No allocation: the buffer is in the struct (4 KiB), so a seat keeps one
 * for its bot and a match one per seat, made when the match starts. */
#ifndef JA_DECLOG_H
#define JA_DECLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of one decision's log of one seat, the marker included. */
#define JA_DECLOG_MAX 4096
/* What ends a log cut at JA_DECLOG_MAX bytes. */
#define JA_DECLOG_CUT "\n[log cut: a decision keeps 4096 bytes]\n"

typedef struct ja_declog {
    uint32_t len;                 /* bytes of text, the NUL not counted */
    bool cut;                     /* more came than fit: a marker ends text */
    char text[JA_DECLOG_MAX + 1]; /* cleaned, NUL-terminated */
} ja_declog;

/* Empties l. */
void ja_declog_clear(ja_declog *l);

/* Appends the n bytes at p, cleaned; past JA_DECLOG_MAX bytes, cuts (what
 * fits and JA_DECLOG_CUT) and ignores what comes after. */
void ja_declog_add(ja_declog *l, const char *p, size_t n);

/* Appends msg (a NUL-terminated line) and a newline. */
void ja_declog_line(ja_declog *l, const char *msg);

/* Ends l with marker (a text of a few dozen bytes) within max bytes (at
 * most JA_DECLOG_MAX): keeps what fits before it, never a character cut in
 * two. For a source that dropped part of the log before it came here (a
 * message's log cut on the wire: JA_DECLOG_CUT), and for a match's own
 * bound on a seat's logs (the referee's marker). */
void ja_declog_cut(ja_declog *l, size_t max, const char *marker);

/* Moves src's text into dst (replacing dst's) and empties src. */
void ja_declog_take(ja_declog *dst, ja_declog *src);

/* Cleans the n bytes at p in place (see above); returns their new length. */
size_t ja_declog_clean(char *p, size_t n);

#endif /* JA_DECLOG_H */
