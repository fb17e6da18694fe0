/* The viewer model of a replay, shared by `arena replay show`, `arena replay
 * html` and `arena report` (docs/viewer.md).
 *
 * The model is built by re-simulating the replay with its game's engine:
 * frame 0 is the table after the deal, frame i + 1 the table after decision
 * i. For every frame it keeps each seat's observation (what that seat may
 * know, as observe() gives it) and describe()'s public line; for every
 * decision the replay's records and the label of each applied action. The
 * omniscient view is the union of the seats' views; a seat's view is its own
 * observations only. Observations become JSON through the game's field table
 * (ja_field), never through per-game code. */
#ifndef ARENA_VIEWER_H
#define ARENA_VIEWER_H

#include "core/json_w.h"
#include "core/util.h"
#include "replay.h"

#include <stdbool.h>
#include <stdio.h>

#define VIEWER_LABEL_MAX 64
#define VIEWER_DESCRIBE_MAX 256

typedef struct viewer_model {
    const ref_replay *r;
    const ja_game_rules *g;
    uint32_t n_seats;
    uint32_t n_frames;                     /* r->n_steps + 1 */
    uint8_t *obs;                          /* n_frames * n_seats * g->obs_size */
    char (*describe)[VIEWER_DESCRIBE_MAX]; /* per frame */
    char (*label)[VIEWER_LABEL_MAX];       /* per record of r (r->n_recs) */
    /* Per seat: the decision (frame) at which it forfeited the match, 0 if
     * it did not (viewer_build: see viewer_forfeits). */
    uint32_t forfeit_at[JA_MAX_SEATS];
    uint32_t *code_rec;                    /* one record per action code applied, by code */
    uint32_t n_codes;
    /* Every frame's public observation (JA_EXT_OBSERVE_PUBLIC: what the
     * table shows to everyone), n_frames * g->obs_size; NULL when the game
     * offers none. For the text viewer's public view only: the JSON model
     * leaves it out. */
    uint8_t *pub;
    /* The bots' logs of each decision (the replay's log records,
     * docs/replay-format.md "Bot logs") are in the model and the views
     * unless the caller sets this (a server publishing the page to all:
     * docs/server.md). */
    bool no_logs;
    /* Where the page may fetch an author's logs of the match (a server's
     * GET /api/matches/T-N/logs, docs/server.md "Bot logs"), or NULL: the
     * page then offers a form for the author's token, and shows what it
     * fetches beside the decisions as it shows a replay's logs. */
    const char *logs_url;
} viewer_model;

/* The `seat` of the text views that are not one seat's: the omniscient view
 * (every seat's cards, the replay's records) and the public view (the
 * public observation alone: what a spectator of the table sees). */
#define VIEWER_ALL (-1)
#define VIEWER_PUBLIC (-2)

/* Loads path and builds its model: viewer_load, then viewer_resimulate.
 * JA_OK with *r and *m the caller's (viewer_close); otherwise the code of
 * the step that failed, its line in err, and nothing kept (*r NULL, *m
 * empty). */
int viewer_open(const char *path, ref_replay **r, viewer_model *m, char *err, size_t cap);
void viewer_close(ref_replay **r, viewer_model *m);

/* Loads the replay at path for a model. JA_OK with *r the caller's
 * (ref_replay_free), or ref_replay_load's code (a file missing, corrupt,
 * truncated, of another format or version) or JA_EUNSUPPORTED (a game this
 * build lacks), with one line naming the file in err. */
int viewer_load(const char *path, ref_replay **r, char *err, size_t cap);

/* Re-simulates the loaded replay r of path under its game's rules
 * (ref_replay_verify) and builds its model into m (viewer_build). JA_OK
 * with *m the caller's (viewer_free); otherwise JA_EMISMATCH, m empty and
 * "replay 'PATH' does not re-simulate: WHY" in err. */
int viewer_resimulate(const char *path, const ref_replay *r, viewer_model *m, char *err,
                      size_t cap);

/* Builds the model of a loaded replay. JA_OK, or JA_EMISMATCH with the
 * first disagreement between the replay and the rules in err. */
int viewer_build(const ref_replay *r, viewer_model *m, char *err, size_t cap);
void viewer_free(viewer_model *m);

/* Seat s's observation at frame f. */
const void *viewer_obs(const viewer_model *m, uint32_t f, uint32_t s);

/* The public observation at frame f, or NULL when the game offers none. */
const void *viewer_obs_public(const viewer_model *m, uint32_t f);

/* The decision that led to frame f (f >= 1). */
const ref_replay_step *viewer_step(const viewer_model *m, uint32_t f);

/* The seats deciding at frame f (the mask of decision f + 1); 0 at the last
 * frame. The replay's truth: for the omniscient view only. */
uint32_t viewer_deciding(const viewer_model *m, uint32_t f);

/* The seat whose observation draws the omniscient view's public picture at
 * frame f: the lowest seat deciding now (at the last frame, the lowest that
 * decided last), so that a game of several tables shows the table in play. */
uint32_t viewer_table_seat(const viewer_model *m, uint32_t f);

/* Where seat s forfeited, from the replay's records alone: the forfeit
 * (docs/faults.md) happens at the seat's last fault before its first
 * `forfeit` record; without such a record (it forfeited at its last
 * decision) the end record's fault count is one more than its faulty
 * records. Returns the decision (frame) number, or 0 for no forfeit. */
uint32_t viewer_forfeits(const ref_replay *r, uint32_t s);

/* What the bot in seat s logged for the decision that led to frame f
 * (f >= 1), NUL-terminated and cleaned (ja_declog.h), or NULL: none, or the
 * model has no logs (no_logs). */
const char *viewer_log(const viewer_model *m, uint32_t f, uint32_t s);

/* Element i of the observation field named name (0 for i past its end),
 * read through the field table. False if the game has no such field. */
bool viewer_field(const ja_game_rules *g, const void *obs, const char *name, uint32_t i,
                  int64_t *out);

/* The label of action code (g's label(); "action N" when it has none), as
 * the viewers name a decision. A label depends on the code alone. */
void viewer_label(const ja_game_rules *g, uint32_t code, char label[VIEWER_LABEL_MAX]);

/* The action codes that observation obs of g names in its events numbered
 * after `after` (Bombs: the plays, in turn and out of turn), each once, at
 * most cap into codes; the number of its newest event into *newest (after
 * when none is newer). Returns how many. The labels of these codes tell
 * nothing obs does not: the live streams send them with it. */
uint32_t viewer_event_codes(const ja_game_rules *g, const void *obs, uint64_t after,
                            uint32_t *codes, uint32_t cap, uint64_t *newest);

/* Seat s's score at frame f in units of 1/JA_SCORE_UNIT, as seat `from`
 * sees it: the outcome at the last frame, before it the "score" field of
 * from's observation (in units when its doc says 1/27720, else in points). */
int64_t viewer_score(const viewer_model *m, uint32_t f, uint32_t from, uint32_t s);
/* The same as observation obs (of frame f) shows it. */
int64_t viewer_score_in(const viewer_model *m, uint32_t f, const void *obs, uint32_t s);
/* Seat s's running score as observation obs of game g shows it (its
 * "score" field, as above; 0 without one), in units of 1/JA_SCORE_UNIT. */
int64_t viewer_obs_score(const ja_game_rules *g, const void *obs, uint32_t s);

/* Writes one observation as a JSON object from the game's field table:
 * scalars as numbers, arrays as arrays with trailing zeros trimmed (a missing
 * element is 0). */
void viewer_obs_json(json_w *w, const char *key, const ja_game_rules *g, const void *obs);

/* "points" (the seats' scores as points, arena_format_score) and "places"
 * of outcome o, n_seats each. */
void viewer_points_json(json_w *w, const ja_outcome *o, uint32_t n_seats);

/* "fields": game g's field table (name, count, doc of each field), which
 * observations as JSON and their changes follow. */
void viewer_fields_json(json_w *w, const ja_game_rules *g);

/* Writes the whole model as one JSON object (docs/viewer.md, "The JSON
 * model"). */
void viewer_model_json(json_w *w, const viewer_model *m);
/* The same keys, inside an object the caller opened (to add its own). */
void viewer_model_json_keys(json_w *w, const viewer_model *m);

/* ---- text (viewer_text.c) --------------------------------------------------- */

typedef struct viewer_style {
    bool color;   /* ANSI colours */
    bool unicode; /* suit symbols and box characters */
} viewer_style;

/* The style for stream f: colours and symbols only on a terminal that
 * supports them (NO_COLOR and TERM=dumb turn them off; symbols need a UTF-8
 * locale). */
viewer_style viewer_style_for(FILE *f);

/* The header (game, seats, players; for the omniscient view, VIEWER_ALL,
 * also the seed and the number of decisions, which a seat's view and the
 * public view leave out). */
void viewer_text_header(FILE *f, const viewer_model *m, int seat, const viewer_style *st);
/* Frame fr as seat `seat` saw it, or omniscient (VIEWER_ALL), or as the
 * table shows it to everyone (VIEWER_PUBLIC: the public observation, no
 * hand, no record of a decision: a label can tell what only its seat
 * knew). */
void viewer_text_frame(FILE *f, const viewer_model *m, uint32_t fr, int seat,
                       const viewer_style *st);
/* One observation of a match in play as its seat sees it (the human seat
 * of `arena play`): the table, who decides now, and each seat's line as a
 * seat's view of a replay draws a frame (its score as obs shows it, the
 * seat's own hand, what obs shows of the others), from obs alone. names:
 * the n_seats display names. */
void viewer_text_obs(FILE *f, const ja_game_rules *g, uint32_t n_seats, const char *const *names,
                     uint32_t seat, const void *obs, const viewer_style *st);
/* The outcome: scores, places and faults per seat. */
void viewer_text_outcome(FILE *f, const viewer_model *m, const viewer_style *st);
/* True if frame fr is one seat `seat` perceives: the deal, the end, a
 * decision it was asked, or one that changed its observation (always true
 * for the omniscient view, VIEWER_ALL; for the public view, VIEWER_PUBLIC,
 * the deal, the end and the frames whose public observation changed). */
bool viewer_seat_sees(const viewer_model *m, uint32_t fr, int seat);
/* The whole match as text: header, every frame (for a seat: the frames in
 * which its observation changed; for the public view, those in which the
 * public observation changed), outcome. */
void viewer_text_dump(FILE *f, const viewer_model *m, int seat, const viewer_style *st);
/* Writes text (lines, each ending in a newline) to f with no line wider
 * than width columns (ANSI escapes take none, a UTF-8 character one): a
 * longer line is broken between words, so between cards, and continued
 * under its first item after ": " (a hand's first card) or indented. */
void viewer_text_wrap(FILE *f, const char *text, int width);

/* ---- HTML (viewer_html.c) ---------------------------------------------------- */

/* The files of the viewer's script and style, for pages that share them. */
#define VIEWER_JS_FILE "replay.js"
#define VIEWER_CSS_FILE "replay.css"

/* Writes one page from the embedded template: `title` escaped, `kind`
 * ("replay") on <body>, `data` (the packed model: base64 text) inside. With
 * shared false the page holds the viewer's script and style and needs no
 * other file; with shared true it refers to VIEWER_JS_FILE and
 * VIEWER_CSS_FILE in its own directory (viewer_html_assets). Returns false
 * on a write error. */
bool viewer_html_page(FILE *f, const char *title, const char *kind, bool shared, const char *data);

/* Writes VIEWER_JS_FILE and VIEWER_CSS_FILE into dir, for the pages that
 * share them. JA_OK, or an error code (outfile.h) with a message in err. */
int viewer_html_assets(const char *dir, char *err, size_t cap);

/* Writes the replay page of model m to path, whole (outfile.h; "-": the
 * standard output): its model as JSON (viewer_model_json_keys, plus "back":
 * back_href unless NULL), compressed with zlib and written in base64, and
 * the viewer's script and style inline, or with shared, in the files of
 * viewer_html_assets beside it. JA_OK, or JA_ENOMEM (the memory stream or
 * zlib ran out of their own memory), JA_EINVAL (path is there and not a
 * regular file) or JA_EIO with a message in err. */
int viewer_html_replay(const viewer_model *m, const char *path, const char *back_href, bool shared,
                       char *err, size_t cap);

#endif /* ARENA_VIEWER_H */
