/* Merging another arena database into this one (`arena ladder import
 * OTHER.db`, docs/database.md): every tournament of the other file is found
 * here by its spec (ladder, seed, format, rounds, participants; created
 * with its full plan when missing) and every match it finished is recorded
 * here under the same match number, through ladder_db_record_match, so the
 * merge is idempotent (a match already recorded is left alone) and a
 * tournament played in shards (--shard I/N, docs/scale.md) becomes whole.
 * The other file is only read. */
#ifndef JA_LADDER_MERGE_H
#define JA_LADDER_MERGE_H

#include "ladder_db.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ladder_merge_result {
    uint32_t tournaments;    /* tournaments of the other file merged */
    uint32_t created;        /* of them, new here */
    uint32_t matches;        /* matches recorded here by this merge */
    uint32_t already;        /* matches that were recorded here before */
    uint32_t skipped_imports;/* PGN/JSONL imports in the other file (not merged) */
} ladder_merge_result;

/* Whether path starts with the SQLite file header. */
bool ladder_merge_is_db(const char *path);

/* Merges the database at src_path into db. JA_OK; JA_EFORMAT / JA_EVERSION
 * (not an arena database, another schema version, or a tournament of a
 * format this arena does not know: found before anything is merged) or
 * JA_EMISMATCH (a tournament that exists here with another plan), with a
 * one-line message in err; the write errors of ladder_db_record_match (the
 * matches merged before stay merged: run it again). */
int ladder_db_merge(ladder_db *db, const char *src_path, ladder_merge_result *out, char *err,
                    size_t cap);

/* The finished matches of every tournament of the arena database at path,
 * read with a read-only connection (a shard's progress while another
 * process plays into it: the database is in WAL mode). JA_OK, or JA_EIO
 * when the file cannot be read yet (missing, not a database). */
int ladder_merge_count_done(const char *path, uint32_t *out);

#endif /* JA_LADDER_MERGE_H */
