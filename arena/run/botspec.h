/* Bot specifiers: the participants named on a command line (`arena play
 * --help`), parsed, named, loaded and freed. Shared by `arena` and the
 * `referee` worker. */
#ifndef ARENA_BOTSPEC_H
#define ARENA_BOTSPEC_H

#include "jackarena/ja_rules.h"
#include "seat.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- bot specifiers ------------------------------------------------------- */

#define ARENA_MAX_BOTS 64

/* One participant as named on the command line. */
typedef struct arena_bot {
    char spec[1024];     /* as given */
    char name[64];       /* display name: NAME= prefix, or derived; "#2" for repeats */
    char kind[16];       /* plugin, hosted, cmd, zmq, human */
    char target[1024];   /* path of the .so for plugins; the command (cmd:); the name (zmq:) */
    bool builtin;        /* a reference bot (random, greedy, ismcts) */
    char params[256];    /* the bot's parameters ("iters=50" of ismcts:iters=50, of
                          * cmd[iters=50]:...); "" for none. The bot judges them */
    ref_bot *bot;        /* loaded, shared by participants with the same target+params */
    bool owns_bot;
    struct ref_proc *proc; /* a cmd: bot's process (extbots.h) */
    struct ref_tail *tail; /* the last bytes of its output, across restarts */
    char token[65];      /* a cmd: bot's credential, granted before any cmd: bot
                          * starts (arena_ext_reserve), until its process gets it */
} arena_bot;

typedef struct arena_bots {
    arena_bot b[ARENA_MAX_BOTS];
    int n;
    /* External-bot settings and state (extbots.h); NULL: the defaults. */
    struct arena_ext *ext;
    /* Where a `human` participant plays (human.h); NULL: the command has
     * no human seats (only `arena play` has), and `human` is refused. */
    const struct arena_human_opts *human;
} arena_bots;

/* Room for any line of the functions below: an err of this size never cuts
 * one (a line may quote two specifiers, or a bot's own words). */
#define ARENA_BOTS_ERR_CAP 4096

/* Each function below returns JA_OK or the code of its failure with one
 * line in err (docs/architecture.md, "Errors"); it prints nothing. */

/* Adds one specifier (`arena play --help`: reference word, path, hosted:,
 * cmd:, zmq:, each with parameters but zmq:; `human` where bs->human is
 * set; NAME=SPEC). JA_EINVAL: a usage error. */
int arena_bots_add(arena_bots *bs, const char *spec, char *err, size_t cap);
/* Splits a comma list and adds each. */
int arena_bots_add_list(arena_bots *bs, const char *list, char *err, size_t cap);
/* Gives repeated names their "#2", "#3" suffixes; rejects clashing NAME=
 * and a second `human` (JA_EINVAL: one person plays one seat). */
int arena_bots_finish_names(arena_bots *bs, char *err, size_t cap);
/* Loads every bot and checks it plays game g (NULL: no check). First the
 * external-bot flags are checked (arena_ext_check), whether or not a bot
 * is external. Its failures are the user's (missing file, not a plugin,
 * wrong ABI, does not play g; an external bot that never says hello), each
 * with its line. External bots start the hub (extbots.h). */
int arena_bots_load(arena_bots *bs, const ja_game_rules *g, char *err, size_t cap);
/* True if any participant is an external bot (cmd:, zmq:). */
bool arena_bots_external(const arena_bots *bs);
/* Frees every bot; stops external bots, their processes and the hub. */
void arena_bots_free(arena_bots *bs);

/* Participant b's label, its name with its parameters (ladders/names.h):
 * `ismcts#2(iters=200)`, or the name alone. out has LADDER_LABEL_MAX
 * bytes or fewer (cut to cap). */
void arena_bot_label(const arena_bot *b, char *out, size_t cap);

/* Directory holding the reference bot plugins (ja_<name>.so). */
const char *arena_bots_dir(void);

#endif /* ARENA_BOTSPEC_H */
