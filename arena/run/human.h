/* Human seats (`arena play GAME human ./mybot.so`; docs/bots.md,
 * "Play against your bot"): a person
 * plays a seat of the match against bots, in the terminal or in a browser.
 *
 * A human is a bot of kind `human` (ref_bot_ops, seat.h): the match loop
 * asks it as it asks any seat, and its answer is the person's choice.
 * The person sees exactly the seat's view: the seat's own observation,
 * drawn by the terminal viewer's renderers (viewer_text_obs) or by the
 * replay page's in a browser, and the seat's legal actions, numbered, with
 * the game's labels; never the seed, another seat's records or another
 * seat's observation. A human has no time limit (ref_bot_ops.unlimited:
 * the bots' limits still apply) and cannot fault: the match records what
 * it chose as it records a bot's answer, so the same seed and the same
 * choices give the same replay and digest.
 *
 * In the terminal, each decision shows the seat's view, then the legal
 * actions numbered from 1, and reads a line from `in`: a number chooses,
 * anything else is refused with one line and asked again; `q` quits. A
 * quit, or the input's end, leaves the match (ref_answer.left): it stops
 * there, unfinished, and its replay is not written. In a browser
 * (opts.http), the page of human_web.h shows the same view, and its
 * buttons choose. */
#ifndef ARENA_HUMAN_H
#define ARENA_HUMAN_H

#include "match.h"
#include "seat.h"

#include <stdbool.h>
#include <stdio.h>

/* Where a human plays. */
typedef struct arena_human_opts {
    FILE *in;     /* the terminal's input: a line per choice */
    FILE *out;    /* where the seat's view and the prompts are written */
    const char *http; /* NULL: the terminal; else HOST:PORT where the page is
                       * served (human_web.h) */
} arena_human_opts;

/* A human participant, kind `human`, playing through o (borrowed until
 * ref_bot_destroy); with o->http its page's server is started and its
 * address written to stderr. JA_OK, or the server's failure (JA_EINVAL: a
 * bad address; JA_EIO: cannot listen) with one line in err; the caller
 * owns *out either way (ref_bot_destroy). */
int arena_human_open(const arena_human_opts *o, ref_bot **out, char *err, size_t cap);

/* True if b is a human participant. */
bool arena_human_is(const ref_bot *b);

/* The match's observer hook (ref_match_config.on_step): brings the view of
 * human b's seat up to date after a step, from the seat's own observation
 * of the state (the view shown at the end of the match). */
void arena_human_step(ref_bot *b, const ja_game_rules *g, const ref_step_info *info);

#endif /* ARENA_HUMAN_H */
