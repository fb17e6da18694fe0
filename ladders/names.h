/* Display names of the bots of a ladder: one rule for every table that
 * shows them (`arena ladder`, its --fit, `arena tournament`'s standings,
 * `arena report`, PGN export) and for the flags that name one of them
 * (`arena ladder --fit --anchor BOT`). docs/database.md, "Display names".
 *
 * A ladder entry is a bot identity (name, version, sha256): two versions of
 * one bot, or two builds of one version (a rebuilt plugin), are entries
 * with the same name. Over a set of bots (ladder_bot_row, ladder_db.h),
 * the display name of a bot is
 *   - its name, when no other bot of the set has that name;
 *   - else name@version, when no other bot has that name and version;
 *   - else name@version~H, H the first 8 hex digits of its plugin file's
 *     SHA-256;
 *   - else (no hash: an external cmd: or zmq: bot, or imported results
 *     that carried none) name@version#ID, ID its database id (bots.id);
 * and should two of these still read alike (a name that itself contains
 * "@"), "#ID" is appended to each of them, so the names of a set are
 * always distinct.
 *
 * Pure functions: no I/O, no globals; any thread. */
#ifndef JA_LADDER_NAMES_H
#define JA_LADDER_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "ladder_db.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Room for a display name, NUL included: a name, "@" and a version, then
 * "~" and 8 hex digits or "#" and an id, and room for one more "#" and id. */
#define LADDER_DISPLAY_MAX (LADDER_NAME_MAX + LADDER_VERSION_MAX + 48)

typedef char ladder_display_name[LADDER_DISPLAY_MAX];

/* The display names of bots[0..n-1] (any order, distinct ids) by the rule
 * above, into *out: n names (an array owned by the caller: free()), name i
 * for bot i. Returns JA_OK, JA_EINVAL (a NULL argument). */
int ladder_display_names(const ladder_bot_row *bots, uint32_t n, ladder_display_name **out);

/* Which of bots[0..n-1], named names[0..n-1] by ladder_display_names, the
 * text q names: its display name exactly, or else a fuller spelling of one
 * identity that fits only one bot of the set: the name, name@version,
 * name@version~H with 8 to 64 leading hex digits of the SHA-256, or
 * name@version#ID. So every name a table prints is accepted as printed, and
 * "shedder@1.0" also names the only shedder 1.0 of a ladder.
 * Returns JA_OK with the bot's index in *out; JA_ENOTFOUND when no bot
 * answers to q ("no bot of this ladder is named so (its bots: A, B, C)"
 * into err); JA_EINVAL when several do ("N bots of this ladder fit this
 * name: A, B (give one of these names)", the candidates as the table
 * prints them), or for a NULL argument. err (cap bytes, cut to fit with
 * "...") may be NULL; the caller says which name it was. */
int ladder_display_find(const ladder_bot_row *bots, const ladder_display_name *names, uint32_t n,
                        const char *q, uint32_t *out, char *err, size_t cap);

/* ---- Labels: a name with the bot's parameters ----------------------------
 *
 * The tables people read (arena bench, a tournament's standings, arena
 * report) show a bot given parameters by its label, NAME(PARAMS):
 * `ismcts#2(iters=200)`, so that `ismcts` and `ismcts#2` say which is which.
 * The parameters are never part of a name: names stay the ladder's
 * identities, and what flags, exports and JSON's "bot" and "display_name"
 * carry. */

/* Room for a label, NUL included: a display name, the parentheses and the
 * longest parameters a host accepts (JA_PARAMS_MAX - 1 bytes). */
#define LADDER_LABEL_MAX (LADDER_DISPLAY_MAX + 258)

/* NAME(PARAMS) into out, or NAME alone when params is empty or NULL; cut to
 * cap bytes. */
void ladder_label(char *out, size_t cap, const char *name, const char *params);

/* The parameters a stored version carries: a bot given parameters is stored
 * with the version VERSION:PARAMS (`1.2:iters=200`), PARAMS being KEY=VALUE
 * items joined by ':'. Returns a pointer into version at the trailing run
 * of ':'-separated items that each hold an '=' (not the version's first
 * item, which is the bot's own version), or "" when there is none. A bot
 * whose own version holds ':' and '=' ("1:a=b") would read as having
 * parameters; a bot given items without '=' as having none. */
const char *ladder_version_params(const char *version);

/* The label of ladder bot b shown as `display` (its display name): display
 * with the parameters its version carries, when display is b's name alone;
 * display as it is when it already shows the version (name@version...). */
void ladder_display_label(char *out, size_t cap, const ladder_bot_row *b, const char *display);

/* The index of the bot with database id `id` in bots[0..n-1], sorted by id
 * (as ladder_db_ladder_bots returns them), or -1. */
int ladder_bot_index(const ladder_bot_row *bots, uint32_t n, int64_t id);

#ifdef __cplusplus
}
#endif
#endif /* JA_LADDER_NAMES_H */
