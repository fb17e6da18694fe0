/* The keyboard view of `arena replay show` on a terminal (docs/viewer.md,
 * "In the terminal"): one frame per screen, fitted to the terminal's size,
 * stepped with keys or played back at a chosen speed, in any of the views
 * the non-interactive output offers (everything, public, one seat's). */
#ifndef ARENA_REPLAY_TERM_H
#define ARENA_REPLAY_TERM_H

#include "view/viewer.h"

#include <stdbool.h>
#include <stdio.h>

/* Puts the terminal on the standard input in raw mode (restored at exit and
 * on SIGINT, SIGTERM, SIGHUP and SIGQUIT). False if it is not a terminal or
 * its modes cannot be set. */
bool replay_term_raw(void);

/* Restores the modes replay_term_raw changed, if it changed them. */
void replay_term_restore(void);

/* Runs the keyboard view of model m to out (the terminal), starting in view
 * seat (a seat, VIEWER_ALL or VIEWER_PUBLIC), until q or the end of input.
 * The terminal must be raw (replay_term_raw). */
void replay_term_run(FILE *out, const viewer_model *m, int seat, const viewer_style *st);

#endif /* ARENA_REPLAY_TERM_H */
