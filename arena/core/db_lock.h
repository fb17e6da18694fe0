/* One arena at a time plays into a database (docs/database.md, "One
 * tournament run per database"): an advisory lock on DB.lock beside it.
 *
 * SQLite keeps every transaction whole, but two `arena tournament` runs of
 * the same plan would both play every pending match, write the same replay
 * files and fail each other's renames. The lock is a POSIX record lock
 * (fcntl F_SETLK, whole file) on DB.lock, which holds the holder's pid in
 * text for people; the kernel releases it when the process ends, however it
 * ends, so a crashed run never blocks the next one. The file is removed by
 * the holder when it lets go (while still holding the lock), and a taker
 * that finds the path replaced after locking tries again, so the removal
 * never lets two runs in at once (the usual unlink-safe lock-file pattern).
 * Processes the arena starts (referee workers) hold nothing: record locks
 * are not inherited, and the descriptor is close-on-exec. */
#ifndef ARENA_DB_LOCK_H
#define ARENA_DB_LOCK_H

#include <limits.h>
#include <stddef.h>

typedef struct arena_db_lock {
    int fd;                  /* -1: not held */
    char path[PATH_MAX];
} arena_db_lock;

/* Takes the lock of database db_path without waiting. JA_OK; JA_EBUSY when
 * another process holds it, with err "the database 'DB' is in use by another
 * arena (pid N)" (the pid when the kernel tells it); JA_EIO when the lock
 * file cannot be made, with err naming it. */
int arena_db_lock_take(const char *db_path, arena_db_lock *l, char *err, size_t cap);

/* Lets go (removes DB.lock first); a lock not held is left alone. */
void arena_db_lock_release(arena_db_lock *l);

/* Takes the lock of the database at db_path, then opens it into *db (made
 * when missing), as a writer that plays into it does: the lock first, so a
 * second writer writes nothing. JA_OK, or the failure's code with its line
 * in err: JA_EBUSY (the database is in use), JA_EDB (its lock file cannot
 * be made) or the open's code (arena_db_status judges it: a file that is
 * not a database of this version is the user's). On failure *db is NULL
 * and the lock, if taken, stays in *l for the caller to release. */
struct ladder_db;
int arena_db_lock_open(const char *db_path, arena_db_lock *l, struct ladder_db **db, char *err,
                       size_t cap);

#endif /* ARENA_DB_LOCK_H */
