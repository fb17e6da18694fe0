/* `arena serve`'s live matches (docs/server.md, "Live matches"): the
 * ladder's matches watched while they are played, each decision released
 * to spectators only once the match is `delay` decisions further (and the
 * rest when it ends), so that no spectator can help a bot in time.
 *
 * Two views of a running match:
 *  - the public view, for anyone: per frame (frame 0 the deal, frame f the
 *    table after decision f) describe()'s public line and the game's public
 *    observation (JA_EXT_OBSERVE_PUBLIC), and the outcome at the end. A
 *    frame is published only if its line is the same when the
 *    state is determinized for every seat (what each seat cannot see
 *    re-dealt, ja_rules.h): a line that depends on anything some seat
 *    cannot see is withheld, never sent (no game's line does today: the
 *    check found Jack in the Box's pending stage, since printed as public).
 *  - a seat's view, for the author of the bot in that seat only: that
 *    seat's observations (observe(), as JSON through the game's field
 *    table) and its own decisions (the action and its label), the frames
 *    in which it decided or its observation changed, with no decision
 *    numbers (as the replay viewer's seat view), under the same delay.
 * Labels of other decisions go out only where the observation sent names
 * their codes (Bombs' plays, viewer_event_codes): a decision's label can
 * name what only its seat knew.
 *
 * Memory: each running match keeps a ring of delay + SRV_LIVE_BACKLOG
 * frames (the state, the decision's actions and the public line of each), made when the match
 * starts; at most max_running matches are watched at once (the server's
 * concurrency), a match beyond that is played unwatched. A reader that
 * falls SRV_LIVE_BACKLOG released frames behind skips ahead.
 *
 * CPU: the match's thread only copies each frame's state into the ring.
 * The public line and its check (a determinization per seat) are made by
 * the first public reader of a frame, in its HTTP thread, and kept for the
 * others: a match nobody watches costs a copy a decision.
 *
 * Threads: the hook runs in the matches' threads, readers in the HTTP
 * threads; everything here locks its own mutex. */
#ifndef ARENA_SERVE_LIVE_H
#define ARENA_SERVE_LIVE_H

#include "run/executor.h"

#include <stdbool.h>
#include <stdint.h>

/* The streams' event format (docs/server.md, "Live matches"): 2 added the
 * match event's "version", "fields" and "score_unit", and the public
 * frames' "public" observation; 3 the "labels" of the action codes an
 * observation's events name (frame and seen events) and a seat's own
 * "action" (seen events, also sent when only the seat decided); nothing of
 * the earlier versions changed. */
#define SRV_LIVE_VERSION 3
#define SRV_LIVE_DELAY_DEFAULT 20u
#define SRV_LIVE_DELAY_MAX 500u
#define SRV_LIVE_BACKLOG 64u
/* Seat-view tickets kept per match, and how long one may wait to be used. */
#define SRV_LIVE_TICKETS 16u
#define SRV_LIVE_TICKET_SECONDS 60
/* "T-N": the ladder's match id. */
#define SRV_LIVE_ID_MAX 48

typedef struct srv_live srv_live;
typedef struct srv_live_reader srv_live_reader;

/* A registry of live matches of game g. */
srv_live *srv_live_new(const ja_game_rules *g, uint32_t delay, uint32_t max_running);
/* Frees it; every match has ended and every reader is closed. */
void srv_live_free(srv_live **l);

/* The executor hook (executor.h) that feeds l: a match's id is
 * "TOURNAMENT-NUMBER", its seats' bots the exec context's names, each
 * "AUTHOR@VERSION" or a plain name. */
const arena_live_hook *srv_live_hook(srv_live *l);

/* The running matches, as the JSON text of GET /api/live (malloc'ed), or
 * NULL when out of memory. */
char *srv_live_list_json(srv_live *l);

/* Opens a reader of match id: seat < 0 the public view, else that seat's.
 * JA_OK; JA_ENOTFOUND: no such match is live (or it ended and nobody reads
 * it any more); JA_ERANGE: no such seat; JA_ENOMEM. */
int srv_live_reader_open(srv_live *l, const char *id, int seat, srv_live_reader **out);
/* The next event of the reader (a JSON object's text, malloc'ed, into
 * *text): first a "match" event (the match, its seats, the delay), then a
 * "frame" (public: `decision`, `at`: the decisions played when it was
 * released, `line`, `public`, `labels`) or "seen" (seat: `obs`, `action`,
 * `labels`) per released frame, and at the
 * end an "end" event (`outcome` and the replay page, or `error`). JA_OK;
 * JA_EAGAIN: nothing more is released yet (srv_live_reader_ready); JA_ESTATE:
 * the end event has been given; JA_ENOMEM. */
int srv_live_reader_next(srv_live_reader *r, char **text);
/* Whether r's next call of srv_live_reader_next has something to give
 * (cheap, from any thread: what the stream's ticker asks). */
bool srv_live_reader_ready(srv_live_reader *r);
void srv_live_reader_close(srv_live_reader **r);

/* Seat-view tickets: a random ticket (64 hex digits, the shape of a token)
 * for seat `seat` of match id, to be used once within
 * SRV_LIVE_TICKET_SECONDS; only its hash is kept. author is who asks: the
 * bot in that seat must be theirs. JA_OK; JA_ENOTFOUND (no such live
 * match), JA_ERANGE (no such seat), JA_EBUSY (the seat is another
 * author's). */
int srv_live_ticket_new(srv_live *l, const char *id, int seat, const char *author,
                        char ticket[65]);
/* Spends ticket on match id: the seat it was made for into *seat. False for
 * a ticket that is unknown, used, expired or of another match. */
bool srv_live_ticket_use(srv_live *l, const char *id, const char *ticket, int *seat);

/* The live routes (docs/server.md), parsed from a request's method and
 * path alone: which one, and the match id into id (canonical "T-N", as
 * arena_serve_match_id reads it). */
typedef enum srv_live_route_kind {
    SRV_LIVE_NONE = 0,        /* not a live route */
    SRV_LIVE_BAD_METHOD,      /* a live path asked with another method: 405 */
    SRV_LIVE_LIST_PAGE,       /* GET /live */
    SRV_LIVE_PAGE,            /* GET /live/T-N */
    SRV_LIVE_LIST,            /* GET /api/live */
    SRV_LIVE_EVENTS,          /* GET /api/live/T-N/events */
    SRV_LIVE_TICKET,          /* POST /api/live/T-N/ticket */
} srv_live_route_kind;
srv_live_route_kind srv_live_route(const char *method, const char *path,
                                   char id[SRV_LIVE_ID_MAX]);

#endif /* ARENA_SERVE_LIVE_H */
