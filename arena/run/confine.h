/* Confined `cmd:` bots (--confine; docs/security.md, "Confined cmd: bots").
 *
 * A confined bot's process is started through ja_confine
 * (referee/host/ja_confine.c), which limits itself and then runs the
 * command with /bin/sh -c. This file decides what it gets:
 *
 * - read and execute: the system (ja_confine's own list), the paths its
 *   command names, the --confine-read paths, and what the bot finds by
 *   itself (the SDK installed with the arena, its environment's
 *   PYTHONPATH..., its runtime's home): confine_read.h says which;
 * - write: its scratch directory, $TMPDIR/jackarena-bots-XXXXXX/N (0700,
 *   one per participant for the whole run, kept across --restart, removed
 *   at the end), which is its TMPDIR;
 * - TCP: connecting to the arena's --listen port when that is tcp.
 *
 * A readable path must not hold or lie within what the bot must not read: the
 * database, the replays, the decision export (the paths a command
 * registers with arena_confine_protect), the CurveZMQ key directory, the
 * endpoint's private directory, the scratch directories, and the user's
 * home directory itself (what lies within it may be read). Otherwise,
 * for a path the command names by name, the bot is refused before anything
 * is written (exit 2), with a line naming both paths; a script's directory
 * is narrowed to the script, what the bot finds by itself is dropped.
 *
 * Modes: off (the default of `play` and `conformance`), on (the default of
 * `tournament`: a kernel without Landlock is refused, exit 2), weak
 * (--confine-weak: on, accepting a kernel without Landlock, where only the
 * limits and the dropped privileges apply). */
#ifndef ARENA_CONFINE_H
#define ARENA_CONFINE_H

#include "core/util.h"
#include "run/botspec.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define ARENA_CONFINE_MAX_READ 32    /* --confine-read paths */
#define ARENA_CONFINE_MAX_PROTECT 32 /* paths registered as the arena's */
#define ARENA_CONFINE_TASKS 256      /* tasks a bot may add to its user's count */
#define ARENA_CONFINE_FSIZE_MB 64    /* largest file a bot may write */
/* The default address space (JACKARENA_CONFINE_MEM_MB): none in a build with
 * AddressSanitizer, whose own bots (the C example, test bots) reserve
 * terabytes of shadow memory and cannot start under RLIMIT_AS. */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_CONFINE_MEM_MB 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_CONFINE_MEM_MB 0
#endif
#endif
#ifndef ARENA_CONFINE_MEM_MB
#define ARENA_CONFINE_MEM_MB 4096
#endif

enum { ARENA_CONFINE_DEFAULT = 0, ARENA_CONFINE_OFF, ARENA_CONFINE_ON, ARENA_CONFINE_WEAK };

typedef struct arena_confine {
    int mode;                    /* ARENA_CONFINE_*; DEFAULT: the command's */
    bool by_default;             /* DEFAULT means ON (tournament) */
    const char *reads[ARENA_CONFINE_MAX_READ];
    int n_reads;
    struct {
        char path[PATH_MAX];
        const char *what;        /* "the database", ... */
        bool within_ok;          /* only the whole directory is the arena's (the home
                                  * directory): what lies within may be granted */
    } protect[ARENA_CONFINE_MAX_PROTECT];
    int n_protect;
    /* The confined bots' own files (arena_confine_own): no other bot's
     * grant found by itself (its environment's PYTHONPATH, ...) reaches them. */
    struct arena_confine_own {
        const arena_bot *bot;
        char path[PATH_MAX];
    } *own;
    int n_own;
    /* state */
    bool checked;                /* the kernel and the settings checked */
    char mem_mb[24];             /* JACKARENA_CONFINE_MEM_MB */
    char root[PATH_MAX];         /* the scratch directories' parent; "" until made */
    struct {
        const arena_bot *bot;
        char dir[PATH_MAX];
    } scratch[ARENA_MAX_BOTS];
    int n_scratch;
} arena_confine;

/* True when cmd: bots are confined (mode, or the command's default). */
bool arena_confine_enabled(const arena_confine *c);

/* Registers path (NULL: ignored) as the arena's, described by what ("the
 * database"): no confined bot may read it. Relative paths are resolved now,
 * against the working directory; the path need not exist yet. */
void arena_confine_protect(arena_confine *c, const char *path, const char *what);

/* Registers b's own files (the directories its command names and those of
 * the files it names, but its program's), before any confined bot starts:
 * what another confined bot finds by itself (its PYTHONPATH, ...) is not
 * granted where it would read them. */
void arena_confine_own(arena_confine *c, const arena_bot *b);

/* The launcher's argument vector for b (NULL-terminated, ending with "--":
 * ref_proc_spawn_via appends the command) and its TMPDIR ("TMPDIR=DIR")
 * into tmpdir. tcp_port: the arena's tcp port (0: ipc); keys: the CurveZMQ
 * key directory (protected like the registered paths). JA_OK with *argv
 * owned by the caller (arena_confine_argv_free); JA_EINVAL with a one-line
 * usage message (the settings, a refused path, no Landlock); JA_EIO with a
 * one-line message (the scratch directory). */
int arena_confine_launcher(arena_confine *c, const arena_bot *b, unsigned tcp_port,
                           const char *keys, char ***argv, char *tmpdir, size_t tmpdir_cap, char *err, size_t cap);
void arena_confine_argv_free(char **argv);

/* Removes every scratch directory and what the bots left in them (after
 * their processes have stopped), and forgets the bots' own files. */
void arena_confine_cleanup(arena_confine *c);

#endif /* ARENA_CONFINE_H */
