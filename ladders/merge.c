/* Merging another arena database (merge.h). The other file is read with
 * its own read-only SQLite connection; everything written here goes through
 * the public ladder_db calls, so the merge obeys the same rules as a run. */
#include "merge.h"
#include "plan.h"

#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ladder_merge_is_db(const char *path)
{
    char head[16];
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    bool yes = fread(head, 1, sizeof head, f) == sizeof head &&
               memcmp(head, "SQLite format 3", 16) == 0;
    fclose(f);
    return yes;
}

static const char *col(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? (const char *)t : NULL;
}

static int64_t pragma(sqlite3 *s, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Participants of src tournament tid as ladder_bot rows (strings copied
 * into pool). */
typedef struct bots_buf {
    ladder_bot b[256];
    char pool[256][5][1100]; /* name, version, kind, spec, sha256 */
    uint32_t n;
} bots_buf;

static int read_bots(sqlite3 *s, int64_t tid, bots_buf *bb)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s,
        "SELECT b.name, b.version, b.kind, b.spec, b.sha256 FROM participants p "
        "JOIN bots b ON b.id = p.bot_id WHERE p.tournament_id = ? ORDER BY p.slot", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return JA_EFORMAT;
    sqlite3_bind_int64(st, 1, tid);
    bb->n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && bb->n < 256) {
        char(*p)[1100] = bb->pool[bb->n];
        for (int i = 0; i < 5; i++)
            snprintf(p[i], sizeof p[i], "%s", col(st, i) ? col(st, i) : "");
        bb->b[bb->n] = (ladder_bot){p[0], p[1], p[2], p[3], p[4][0] ? p[4] : NULL};
        bb->n++;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? JA_OK : JA_EFORMAT;
}

/* Records the finished matches of src tournament stid as tournament tid. */
static int merge_matches(ladder_db *db, sqlite3 *s, int64_t stid, int64_t tid,
                         ladder_merge_result *out, char *err, size_t cap)
{
    sqlite3_stmt *m = NULL, *r = NULL, *f = NULL;
    int rc = JA_EFORMAT;
    if (sqlite3_prepare_v2(s, "SELECT id, number, turns, digest, replay FROM matches "
                              "WHERE tournament_id = ? AND status = 'done' ORDER BY number",
                           -1, &m, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s, "SELECT seat, score, place FROM results WHERE match_id = ? "
                              "ORDER BY seat", -1, &r, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s, "SELECT seat, kind, count FROM result_faults WHERE match_id = ?",
                           -1, &f, NULL) != SQLITE_OK) {
        snprintf(err, cap, "cannot read the matches: %s", sqlite3_errmsg(s));
        goto out;
    }
    sqlite3_bind_int64(m, 1, stid);
    int step;
    while ((step = sqlite3_step(m)) == SQLITE_ROW) {
        int64_t mid = sqlite3_column_int64(m, 0);
        uint32_t number = (uint32_t)sqlite3_column_int64(m, 1);
        ladder_match_result lr;
        memset(&lr, 0, sizeof lr);
        lr.turns = (uint32_t)sqlite3_column_int64(m, 2);
        char digest[80] = "", replay[4200] = "";
        if (col(m, 3))
            snprintf(digest, sizeof digest, "%s", col(m, 3));
        if (col(m, 4))
            snprintf(replay, sizeof replay, "%s", col(m, 4));
        lr.digest = digest[0] ? digest : NULL;
        lr.replay_path = replay[0] ? replay : NULL;
        sqlite3_reset(r);
        sqlite3_bind_int64(r, 1, mid);
        while (sqlite3_step(r) == SQLITE_ROW) {
            int seat = sqlite3_column_int(r, 0);
            if (seat < 0 || seat >= JA_MAX_SEATS)
                continue;
            lr.outcome.score[seat] = sqlite3_column_int64(r, 1);
            lr.outcome.place[seat] = (uint8_t)sqlite3_column_int(r, 2);
            if ((uint32_t)seat + 1 > lr.outcome.n_seats)
                lr.outcome.n_seats = (uint32_t)seat + 1;
        }
        sqlite3_reset(f);
        sqlite3_bind_int64(f, 1, mid);
        while (sqlite3_step(f) == SQLITE_ROW) {
            int seat = sqlite3_column_int(f, 0);
            const char *kind = col(f, 1);
            for (int k = 1; kind && k < JA_FAULT_COUNT && seat >= 0 && seat < JA_MAX_SEATS; k++)
                if (strcmp(kind, ja_fault_name(k)) == 0)
                    lr.faults[seat][k] = (uint32_t)sqlite3_column_int64(f, 2);
        }
        int wr = ladder_db_record_match(db, tid, number, &lr);
        if (wr == JA_ESTATE) {
            out->already++;
        } else if (wr == JA_OK) {
            out->matches++;
        } else {
            snprintf(err, cap, "match %u: %s", (unsigned)number, ladder_db_errmsg(db));
            rc = wr;
            goto out;
        }
    }
    rc = step == SQLITE_DONE ? JA_OK : JA_EFORMAT;
    if (rc != JA_OK)
        snprintf(err, cap, "cannot read the matches: %s", sqlite3_errmsg(s));
out:
    sqlite3_finalize(m);
    sqlite3_finalize(r);
    sqlite3_finalize(f);
    return rc;
}

/* The format of src tournament id, in column i of st. JA_OK, or JA_EFORMAT
 * (a format this arena does not know) with its message in err. */
static int read_format(sqlite3_stmt *st, int i, int64_t id, const char *src_path,
                       ladder_format *format, char *err, size_t cap)
{
    if (col(st, i) && ladder_format_parse(col(st, i), format) == JA_OK)
        return JA_OK;
    snprintf(err, cap, "'%s': tournament %lld has an unknown format", src_path, (long long)id);
    return JA_EFORMAT;
}

/* A tournament whose plan cannot be made again here from its spec: swiss
 * and knockout (planned from their results), or one planned with a deal
 * set (kept by its hash only). JA_EFORMAT with its message in err. */
static int check_replannable(sqlite3_stmt *st, int64_t id, ladder_format format,
                             const char *src_path, char *err, size_t cap)
{
    if (!ladder_format_by_rounds(format) && sqlite3_column_type(st, 2) == SQLITE_NULL)
        return JA_OK;
    snprintf(err, cap, "'%s': tournament %lld is %s: only its own database holds its plan "
             "(merging is for the shards of a plan made from its seed)", src_path,
             (long long)id, ladder_format_by_rounds(format) ? "a swiss or knockout tournament"
                                                            : "played with a deal set");
    return JA_EFORMAT;
}

/* Every tournament of src has a format this arena knows and a plan it can
 * make again: checked before anything is written, so that a file that
 * cannot be merged whole merges nothing. JA_OK, or JA_EFORMAT with its
 * message in err. */
static int check_formats(sqlite3 *s, const char *src_path, char *err, size_t cap)
{
    sqlite3_stmt *t = NULL;
    if (sqlite3_prepare_v2(s, "SELECT id, format, deals FROM tournaments WHERE format != 'import' "
                              "ORDER BY id", -1, &t, NULL) != SQLITE_OK) {
        snprintf(err, cap, "'%s': %s", src_path, sqlite3_errmsg(s));
        return JA_EFORMAT;
    }
    int rc = JA_OK, step;
    ladder_format format;
    while (rc == JA_OK && (step = sqlite3_step(t)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(t, 0);
        rc = read_format(t, 1, id, src_path, &format, err, cap);
        if (rc == JA_OK)
            rc = check_replannable(t, id, format, src_path, err, cap);
    }
    if (rc == JA_OK && step != SQLITE_DONE) {
        snprintf(err, cap, "'%s': %s", src_path, sqlite3_errmsg(s));
        rc = JA_EFORMAT;
    }
    sqlite3_finalize(t);
    return rc;
}

/* Opens the other file read-only and checks that it can be merged: an arena
 * database of this schema version, every tournament of a known format.
 * JA_OK, or JA_EFORMAT / JA_EVERSION with the message in err; *s is set
 * either way (the caller closes it). */
static int open_source(const char *src_path, sqlite3 **s, char *err, size_t cap)
{
    if (sqlite3_open_v2(src_path, s, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, cap, "'%s': %s", src_path, *s ? sqlite3_errmsg(*s) : "cannot open");
        return JA_EFORMAT;
    }
    if (pragma(*s, "PRAGMA application_id") != LADDER_DB_APPLICATION_ID) {
        snprintf(err, cap, "'%s' is a SQLite database but not an arena database", src_path);
        return JA_EFORMAT;
    }
    int64_t v = pragma(*s, "PRAGMA user_version");
    if (v != LADDER_DB_SCHEMA_VERSION) {
        snprintf(err, cap, "'%s' has schema version %lld, this arena %d (open it once with "
                 "`arena ladder --db %s` to migrate it)", src_path, (long long)v,
                 LADDER_DB_SCHEMA_VERSION, src_path);
        return JA_EVERSION;
    }
    return check_formats(*s, src_path, err, cap);
}

/* One tournament of the other file: its spec (whose strings live here and
 * in the bots_buf it was read with) and its planned match count. */
typedef struct src_tournament {
    int64_t id;
    char game[128], options[600];
    ladder_tournament_spec spec;
    uint32_t planned;
} src_tournament;

/* Reads the tournament of row t (the query of merge_tournaments) and its
 * participants into st and bb. JA_OK, or JA_EFORMAT with err. */
static int read_tournament(sqlite3 *s, sqlite3_stmt *t, const char *src_path, src_tournament *st,
                           bots_buf *bb, char *err, size_t cap)
{
    st->id = sqlite3_column_int64(t, 0);
    snprintf(st->game, sizeof st->game, "%s", col(t, 1) ? col(t, 1) : "");
    snprintf(st->options, sizeof st->options, "%s", col(t, 3) ? col(t, 3) : "");
    ladder_tournament_spec *spec = &st->spec;
    memset(spec, 0, sizeof *spec);
    spec->ladder = (ladder_key){st->game, (uint32_t)sqlite3_column_int(t, 2), st->options};
    spec->seed = col(t, 4) ? strtoull(col(t, 4), NULL, 10) : 0;
    int rc = read_format(t, 5, st->id, src_path, &spec->format, err, cap);
    if (rc != JA_OK)
        return rc;
    spec->rounds = (uint32_t)sqlite3_column_int(t, 6);
    spec->duplicate = sqlite3_column_int(t, 7) != 0;
    st->planned = (uint32_t)sqlite3_column_int64(t, 8);
    /* Its own seating: the plan here is made again from the spec. */
    if (ladder_seating_parse(col(t, 9), &spec->seating) != JA_OK) {
        snprintf(err, cap, "'%s': tournament %lld has an unknown seating", src_path,
                 (long long)st->id);
        return JA_EFORMAT;
    }
    if ((rc = read_bots(s, st->id, bb)) != JA_OK) {
        snprintf(err, cap, "'%s': cannot read the participants of tournament %lld", src_path,
                 (long long)st->id);
        return rc;
    }
    spec->n_bots = bb->n;
    spec->bots = bb->b;
    return JA_OK;
}

/* Finds the tournament st here (creating it with its plan when missing)
 * and records its finished matches into it. JA_OK; JA_EMISMATCH for
 * another plan here; the store's errors; err says which. */
static int merge_tournament(ladder_db *db, sqlite3 *s, const char *src_path,
                            const src_tournament *st, ladder_merge_result *out, char *err,
                            size_t cap)
{
    int64_t tid = 0;
    int rc = ladder_db_tournament_find(db, &st->spec, 0, &tid);
    if (rc == JA_ENOTFOUND) {
        rc = ladder_db_tournament_create(db, &st->spec, &tid);
        out->created += rc == JA_OK;
    }
    ladder_tournament_info ti;
    if (rc == JA_OK)
        rc = ladder_db_tournament_get(db, tid, &ti);
    if (rc != JA_OK) {
        snprintf(err, cap, "%s", ladder_db_errmsg(db));
        return rc;
    }
    if (ti.n_matches != st->planned) {
        snprintf(err, cap, "tournament %lld of '%s' plans %u matches, here %u: not the same "
                 "tournament", (long long)st->id, src_path, st->planned, ti.n_matches);
        return JA_EMISMATCH;
    }
    return merge_matches(db, s, st->id, tid, out, err, cap);
}

/* Merges every tournament of the other file but its imports, in id order,
 * stopping at the first that fails. */
static int merge_tournaments(ladder_db *db, sqlite3 *s, const char *src_path,
                             ladder_merge_result *out, char *err, size_t cap)
{
    bots_buf *bb = ja_xmalloc(sizeof *bb);
    sqlite3_stmt *t = NULL;
    src_tournament st;
    int rc = JA_EFORMAT;
    if (sqlite3_prepare_v2(s, "SELECT t.id, l.game, l.n_seats, l.options, t.seed, t.format, "
                              "t.rounds, t.duplicate, t.n_matches, t.seating FROM tournaments t "
                              "JOIN ladders l ON l.id = t.ladder_id "
                              "WHERE t.format != 'import' ORDER BY t.id",
                           -1, &t, NULL) != SQLITE_OK) {
        snprintf(err, cap, "'%s': %s", src_path, sqlite3_errmsg(s));
        goto out;
    }
    int step;
    while ((step = sqlite3_step(t)) == SQLITE_ROW) {
        if ((rc = read_tournament(s, t, src_path, &st, bb, err, cap)) != JA_OK ||
            (rc = merge_tournament(db, s, src_path, &st, out, err, cap)) != JA_OK)
            goto out;
        out->tournaments++;
    }
    rc = step == SQLITE_DONE ? JA_OK : JA_EFORMAT;
    if (rc != JA_OK)
        snprintf(err, cap, "'%s': %s", src_path, sqlite3_errmsg(s));
out:
    sqlite3_finalize(t);
    free(bb);
    return rc;
}

int ladder_db_merge(ladder_db *db, const char *src_path, ladder_merge_result *out, char *err,
                    size_t cap)
{
    memset(out, 0, sizeof *out);
    sqlite3 *s = NULL;
    int rc = open_source(src_path, &s, err, cap);
    if (rc == JA_OK) {
        out->skipped_imports = (uint32_t)pragma(s, "SELECT count(*) FROM tournaments "
                                                   "WHERE format = 'import'");
        rc = merge_tournaments(db, s, src_path, out, err, cap);
    }
    sqlite3_close(s);
    return rc;
}

int ladder_merge_count_done(const char *path, uint32_t *out)
{
    *out = 0;
    sqlite3 *s = NULL;
    int rc = JA_EIO;
    if (sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        pragma(s, "PRAGMA application_id") == LADDER_DB_APPLICATION_ID) {
        sqlite3_busy_timeout(s, 1000);
        int64_t n = pragma(s, "SELECT count(*) FROM matches WHERE status = 'done'");
        if (n >= 0) {
            *out = (uint32_t)n;
            rc = JA_OK;
        }
    }
    sqlite3_close(s);
    return rc;
}
