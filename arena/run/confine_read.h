/* What a confined `cmd:` bot may read (confine.h; docs/security.md,
 * "Confined cmd: bots"): the grants that arena/run/confine.c hands to
 * ja_confine as --read paths, besides the system ja_confine allows itself.
 *
 * Each grant has a kind, which says what happens when it would hold a path
 * the bot must not read (arena_confine_protect):
 *
 * - NAMED: a directory the command names (`cd DIR`, a word, an
 *   assignment's path) or a --confine-read path: the bot is refused, with a
 *   line naming both paths (the user asked for it by name);
 * - DIR_OF: the directory of a file the command names, by any path
 *   (absolute, relative or a bare name, resolved against the working
 *   directory now, as the bot's shell will): the file alone is granted
 *   instead (a script beside the database still runs, without reading its
 *   directory); unless the file itself is protected, which refuses the bot;
 * - AUTO: what the bot finds by itself: the entries of $PYTHONPATH,
 *   $LD_LIBRARY_PATH, $NODE_PATH, $CLASSPATH and $JACKARENA_LIB it inherits
 *   from the arena; the SDK installed with the arena (libjackarena and the
 *   client library in its LIBDIR, the Python package's directory); the
 *   library an installed Python package's jackarena/_install.py names; the
 *   home of the runtime the command runs (python, node or java in DIR/bin,
 *   outside the system: a virtual environment, a JDK in /opt): such a
 *   grant is dropped without a word; so is one that holds or lies within
 *   another confined bot's own files (the directories its command names
 *   but its program's, arena_confine_own), unless this bot's command names
 *   that directory too.
 *
 * A file stays a file and a directory a directory: Landlock rules follow
 * inodes, so a symbolic link's target is what is read. */
#ifndef ARENA_CONFINE_READ_H
#define ARENA_CONFINE_READ_H

#include "run/confine.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define ARENA_CONFINE_MAX_GRANTS 160 /* ja_confine takes up to 256 --read paths */

enum { CONFINE_NAMED, CONFINE_DIR_OF, CONFINE_AUTO, CONFINE_FILE };

typedef struct confine_grants {
    struct {
        char path[PATH_MAX];     /* canonical */
        int kind;                /* CONFINE_*; FILE: the file of DIR_OF entry `of` */
        int of;
        bool off;                /* not granted (a FILE until its directory is dropped) */
        bool prog;               /* NAMED, DIR_OF: only the directory of a program the
                                  * command runs (/usr/bin, a JDK's bin): not the bot's own */
    } g[ARENA_CONFINE_MAX_GRANTS];
    int n;
    bool in_prog;                /* (while adding a program's paths) */
} confine_grants;

/* path made absolute and free of symbolic links as far as it exists (the
 * rest, such as a file still to be written, appended as given). */
void confine_canonical(const char *path, char out[PATH_MAX]);

/* path with its directory made canonical and its last name kept as given
 * (a symbolic link stays the link). */
void confine_canonical_parent(const char *path, char out[PATH_MAX]);

/* True when path is dir or lies beneath it (both canonical). */
bool confine_beneath(const char *path, const char *dir);

/* The paths the command names; the home of the runtime it runs. */
void confine_grants_command(confine_grants *g, const char *command);

/* path (a --confine-read path, existing) as NAMED. */
void confine_grants_named(confine_grants *g, const char *path);

/* What the bot finds by itself (AUTO above, but the runtime's home). */
void confine_grants_found(confine_grants *g);

/* Applies the protected paths of c, and the own files of the confined bots
 * but b: JA_OK, with grants dropped or narrowed as their kinds say, or
 * JA_EINVAL with a one-line message. */
int confine_grants_check(confine_grants *g, const arena_confine *c, const arena_bot *b,
                         char *err, size_t cap);

/* The own files of a bot whose command is command: the directories it
 * names and those of the files it names, but its program's; up to max into
 * out, their number into *n. */
void confine_own_paths(const char *command, char (*out)[PATH_MAX], int *n, int max);

/* What a confined bot's output (out, its last bytes) says it was refused:
 * of the lines that say "Permission denied" (as the C library, Python,
 * Node.js and the shell write EACCES) or "EACCES", the path they hold, into
 * path: a quoted absolute path, else an absolute path after a blank, '('
 * or '=' (up to a blank, a quote, ',', ':' or ')'), else a quoted name
 * without blanks (not 'EACCES' itself); the last line's among the best.
 * false when no line says so; true with "" in path when none of those
 * lines holds a path. */
bool confine_refused_path(const char *out, char *path, size_t cap);

#endif /* ARENA_CONFINE_READ_H */
