/* Internals of the ladder database shared between ladder_db.c and schema.c:
 * the numbered migrations. Not part of the API. */
#ifndef JA_LADDER_DB_INT_H
#define JA_LADDER_DB_INT_H

#include <stdint.h>

/* Migration i (0-based) takes a database from schema version i to i + 1.
 * Each is a script of SQL statements run by sqlite3_exec inside one
 * transaction, followed by PRAGMA user_version = i + 1 in the same
 * transaction. The table only grows: a released migration is never edited,
 * since databases in the field have already run it. */
typedef struct ladder__migration {
    int version;      /* the version it produces: its index + 1 */
    const char *what; /* one line, for error messages */
    const char *sql;
} ladder__migration;

extern const ladder__migration ladder__migrations[];
extern const int ladder__n_migrations; /* == LADDER_DB_SCHEMA_VERSION */

#endif /* JA_LADDER_DB_INT_H */
