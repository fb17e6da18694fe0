/* The human seat in a browser (`arena play GAME human BOT --http
 * HOST:PORT`; docs/bots.md, "Play against your bot"): a small HTTP server
 * of its own, bound to the address given only, serving one page and its
 * state.
 *
 * The page (arena/run/human/) draws the seat's view with the replay
 * viewer's renderers (jaViewer.kit of replay.js) and its legal actions as
 * buttons. Its address holds a secret key, made afresh for each run: every
 * route but the page's scripts and styles answers only under it (404
 * otherwise), so neither another user of the machine nor another web site
 * open in the browser can read the seat's cards or play for it.
 *
 *   GET  /play/KEY              the page
 *   GET  /api/KEY/state?after=V the state (JSON), once its version is past
 *                               V (a long poll: at most 25 s, then the
 *                               same state again)
 *   POST /api/KEY/act           {"turn": T, "code": C}: the choice for
 *                               decision T; 200, or 400 (malformed), 409
 *                               (no decision waits, or T is not the one
 *                               waiting: stale), 422 (C is not one of its
 *                               legal actions), each with {"error": "..."}
 *   POST /api/KEY/quit          leaves the match at a decision of the seat
 *   GET  /replay.js, /replay.css, /human.js, /human.css
 *
 * The state holds only what the seat may know: the match's game, seats by
 * name, the field table, the seat's own newest observation, the labels of
 * the action codes that observation holds, the decision waiting (its turn,
 * legal actions and labels), and the outcome once the match is over.
 *
 * Threads: the server answers each connection in a thread of its own (a
 * handful at most); the match's thread calls the functions below, which
 * take the state's lock. One server a process (its signal handling). */
#ifndef ARENA_HUMAN_WEB_H
#define ARENA_HUMAN_WEB_H

#include "jackarena/ja_rules.h"

#include <stddef.h>
#include <stdint.h>

#define HUMAN_LABEL_MAX 64

typedef struct human_web human_web;

/* Starts the server on addr (HOST:PORT of arena_http_addr; port 0: any
 * free one). JA_OK with the page's address (http://HOST:PORT/play/KEY) in
 * url; JA_EINVAL (a bad address) or JA_EIO (cannot listen) with one line
 * in err. */
int human_web_start(const char *addr, human_web **out, char *url, size_t url_cap, char *err,
                    size_t cap);

/* A match begins: its game, the seat played and the seats' names. */
void human_web_begin(human_web *w, const ja_game_rules *g, uint32_t seat, uint32_t n_seats,
                     const char *const *names);
/* The seat's newest observation (after a step). */
void human_web_view(human_web *w, const void *obs);
/* A decision for the person: the seat's observation, its turn and its n
 * legal actions with their labels. */
void human_web_ask(human_web *w, const void *obs, uint32_t turn, const ja_action *legal,
                   const char (*labels)[HUMAN_LABEL_MAX], uint32_t n);
/* Waits for the person's choice: NULL with its index in *index, or why
 * the person left the match (static text): the page's Quit, or SIGINT or
 * SIGTERM since the server started (caught from human_web_start to
 * human_web_stop; a second one ends the process as it would have). */
const char *human_web_wait(human_web *w, uint32_t *index);
/* The match is over: its outcome. */
void human_web_end(human_web *w, const ja_outcome *o);
/* Stops the server (NULL allowed) and nulls the pointer. After a match's
 * end, or the person's quit, it first lets the page have its last answer
 * (for a few seconds at most). */
void human_web_stop(human_web **w);

/* SIGINT and SIGTERM caught while a person plays (human_web_start does it
 * for the page; the terminal's seat for itself): the first one makes
 * human_signals_left give why the person left (NULL until then), the
 * second ends the process. Release restores what was there. */
void human_signals_catch(void);
void human_signals_release(void);
const char *human_signals_left(void);
/* Readable once a signal was caught (-1 when none could be made): what a
 * wait on the terminal polls beside it. */
int human_signals_fd(void);

#endif /* ARENA_HUMAN_WEB_H */
