/* Results coming into the ladder store (see ladder_db.h): a played match
 * recorded in one transaction (its per-seat results and fault counts, the
 * live Elo of its bots, its "done" mark and, with the last one, the
 * tournament's), and a file's results imported as tournaments whose
 * matches are recorded exactly as played ones are. */
#include "ladder_db.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "elo.h"
#include "jackarena/ja_error.h"
#include "ladder_db_int.h"
#include "ja_xalloc.h"

/* ---- Recording a match ----------------------------------------------------- */

static int check_result(ladder_db *db, const ladder_match_result *r)
{
    if (r == NULL) {
        ldb_set_msg(db, "no result given");
        return JA_EINVAL;
    }
    uint32_t n = r->outcome.n_seats;
    if (n < 2 || n > JA_MAX_SEATS) {
        ldb_set_msg(db, "a result must have between 2 and %d seats, not %u", JA_MAX_SEATS, n);
        return JA_EINVAL;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (r->outcome.place[i] < 1 || r->outcome.place[i] > n) {
            ldb_set_msg(db, "seat %u has place %u, outside 1..%u", i, r->outcome.place[i], n);
            return JA_EINVAL;
        }
    }
    return JA_OK;
}

/* What record_match learns about the match before writing. */
typedef struct match_ctx {
    int64_t tid;
    uint32_t number;
    int64_t match_id;
    int64_t ladder_id;
    uint32_t n_seats;
    int64_t bot[JA_MAX_SEATS];
    ladder_elo_seat elo[JA_MAX_SEATS];
    int64_t wins[JA_MAX_SEATS], draws[JA_MAX_SEATS], losses[JA_MAX_SEATS]; /* before */
    bool turns_unknown; /* imported without a turn count: store NULL */
    char what[96];
} match_ctx;

/* Finds match c->number of tournament c->tid: its id, seat count and
 * ladder into *c. Refuses a match already recorded (JA_ESTATE) and a result
 * with another seat count (JA_EINVAL). */
static int find_match(ladder_db *db, match_ctx *c, const ladder_match_result *r)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "SELECT m.id, m.status, l.n_seats, t.ladder_id FROM matches m"
                         " JOIN tournaments t ON t.id = m.tournament_id"
                         " JOIN ladders l ON l.id = t.ladder_id"
                         " WHERE m.tournament_id = ?1 AND m.number = ?2",
                         &st, c->what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, c->tid);
    sqlite3_bind_int64(st, 2, c->number);
    int src = sqlite3_step(st);
    char status[16] = "";
    if (src == SQLITE_ROW) {
        c->match_id = sqlite3_column_int64(st, 0);
        ldb_column_copy(st, 1, status, sizeof status);
        c->n_seats = (uint32_t)sqlite3_column_int64(st, 2);
        c->ladder_id = sqlite3_column_int64(st, 3);
    } else if (src == SQLITE_DONE) {
        rc = ldb_tournament_exists(db, c->tid);
        if (rc == JA_OK) {
            ldb_set_msg(db, "tournament %" PRId64 " has no match %u", c->tid, c->number);
            rc = JA_ENOTFOUND;
        }
    } else {
        rc = ldb_sql_fail(db, src, c->what);
    }
    ldb_finish(db, st);
    if (rc != JA_OK)
        return rc;
    if (strcmp(status, "planned") != 0) {
        ldb_set_msg(db, "match %u of tournament %" PRId64 " is already recorded", c->number,
                    c->tid);
        return JA_ESTATE;
    }
    if (r->outcome.n_seats != c->n_seats) {
        ldb_set_msg(db, "the result has %u seats, tournament %" PRId64 " plays with %u",
                    r->outcome.n_seats, c->tid, c->n_seats);
        return JA_EINVAL;
    }
    return JA_OK;
}

/* Reads the bots of the found match's seats in seat order, with their live
 * Elo and pairwise counts before it, into *c; JA_EFORMAT for stored seats
 * that are not 0 .. n_seats - 1. */
static int load_seats(ladder_db *db, match_ctx *c, const ladder_match_result *r)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "SELECT s.seat, p.bot_id, IFNULL(rt.elo, ?4), IFNULL(rt.games, 0),"
                         " IFNULL(rt.wins, 0), IFNULL(rt.draws, 0), IFNULL(rt.losses, 0)"
                         " FROM match_seats s"
                         " JOIN participants p ON p.tournament_id = ?1 AND p.slot = s.slot"
                         " LEFT JOIN ratings rt ON rt.ladder_id = ?3 AND rt.bot_id = p.bot_id"
                         " WHERE s.match_id = ?2 ORDER BY s.seat",
                         &st, c->what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, c->tid);
    sqlite3_bind_int64(st, 2, c->match_id);
    sqlite3_bind_int64(st, 3, c->ladder_id);
    sqlite3_bind_double(st, 4, LADDER_ELO_INITIAL);
    uint32_t n = 0;
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        if (n >= c->n_seats || sqlite3_column_int64(st, 0) != n) {
            n = UINT32_MAX;
            break;
        }
        c->bot[n] = sqlite3_column_int64(st, 1);
        c->elo[n].who = c->bot[n];
        c->elo[n].rating = sqlite3_column_double(st, 2);
        c->elo[n].games = sqlite3_column_int64(st, 3);
        c->elo[n].place = r->outcome.place[n];
        c->wins[n] = sqlite3_column_int64(st, 4);
        c->draws[n] = sqlite3_column_int64(st, 5);
        c->losses[n] = sqlite3_column_int64(st, 6);
        n++;
    }
    if (n != c->n_seats) {
        ldb_set_msg(db,
                    "database '%s': the seats of match %u of tournament %" PRId64 " are malformed",
                    db->path, c->number, c->tid);
        rc = JA_EFORMAT;
    } else if (src != SQLITE_DONE) {
        rc = ldb_sql_fail(db, src, c->what);
    }
    ldb_finish(db, st);
    return rc;
}

static int insert_results(ladder_db *db, const match_ctx *c, const ladder_match_result *r)
{
    sqlite3_stmt *res = NULL, *flt = NULL;
    int rc = ldb_prepare(db,
                         "INSERT INTO results (match_id, seat, bot_id, score, place, faults,"
                         " elo_before, elo_delta, games_before)"
                         " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                         &res, c->what);
    if (rc == JA_OK)
        rc = ldb_prepare(db,
                         "INSERT INTO result_faults (match_id, seat, kind, count)"
                         " VALUES (?1, ?2, ?3, ?4)",
                         &flt, c->what);
    for (uint32_t s = 0; rc == JA_OK && s < c->n_seats; s++) {
        int64_t total = 0;
        for (int k = 1; k < JA_FAULT_COUNT; k++)
            total += r->faults[s][k];
        sqlite3_bind_int64(res, 1, c->match_id);
        sqlite3_bind_int64(res, 2, s);
        sqlite3_bind_int64(res, 3, c->bot[s]);
        sqlite3_bind_int64(res, 4, r->outcome.score[s]);
        sqlite3_bind_int64(res, 5, r->outcome.place[s]);
        sqlite3_bind_int64(res, 6, total);
        sqlite3_bind_double(res, 7, c->elo[s].rating);
        sqlite3_bind_double(res, 8, c->elo[s].delta);
        sqlite3_bind_int64(res, 9, c->elo[s].games);
        rc = ldb_step_done(db, res, c->what);
        /* JA_FAULT_NONE (0) is not a fault. Kinds are stored by name, so
         * the table survives a renumbering of the enum. */
        for (int k = 1; rc == JA_OK && k < JA_FAULT_COUNT; k++) {
            if (r->faults[s][k] == 0)
                continue;
            sqlite3_bind_int64(flt, 1, c->match_id);
            sqlite3_bind_int64(flt, 2, s);
            ldb_bind_text(flt, 3, ja_fault_name(k));
            sqlite3_bind_int64(flt, 4, r->faults[s][k]);
            rc = ldb_step_done(db, flt, c->what);
        }
    }
    ldb_finish(db, res);
    ldb_finish(db, flt);
    return rc;
}

/* Adds the match's Elo changes to its bots' ratings. A bot holding several
 * seats gets the sum of their changes and one game. */
static int update_ratings(ladder_db *db, const match_ctx *c)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "INSERT INTO ratings (ladder_id, bot_id, games, elo, wins, draws, losses,"
                         " updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, " LDB_SQL_NOW ")"
                         " ON CONFLICT (ladder_id, bot_id) DO UPDATE SET games = excluded.games,"
                         " elo = excluded.elo, wins = excluded.wins, draws = excluded.draws,"
                         " losses = excluded.losses, updated_at = excluded.updated_at",
                         &st, c->what);
    if (rc != JA_OK)
        return rc;
    for (uint32_t s = 0; rc == JA_OK && s < c->n_seats; s++) {
        bool first = true;
        for (uint32_t t = 0; t < s; t++)
            if (c->bot[t] == c->bot[s])
                first = false;
        if (!first)
            continue;
        double delta = 0.0;
        int64_t w = c->wins[s], d = c->draws[s], l = c->losses[s];
        for (uint32_t t = s; t < c->n_seats; t++) {
            if (c->bot[t] != c->bot[s])
                continue;
            delta += c->elo[t].delta;
            w += c->elo[t].wins;
            d += c->elo[t].draws;
            l += c->elo[t].losses;
        }
        sqlite3_bind_int64(st, 1, c->ladder_id);
        sqlite3_bind_int64(st, 2, c->bot[s]);
        sqlite3_bind_int64(st, 3, c->elo[s].games + 1);
        sqlite3_bind_double(st, 4, c->elo[s].rating + delta);
        sqlite3_bind_int64(st, 5, w);
        sqlite3_bind_int64(st, 6, d);
        sqlite3_bind_int64(st, 7, l);
        rc = ldb_step_done(db, st, c->what);
    }
    ldb_finish(db, st);
    return rc;
}

static int mark_done(ladder_db *db, const match_ctx *c, const ladder_match_result *r)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "UPDATE matches SET status = 'done', turns = ?2, digest = ?3, replay = ?4,"
                         " finished_at = " LDB_SQL_NOW " WHERE id = ?1 AND status = 'planned'",
                         &st, c->what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, c->match_id);
    if (c->turns_unknown)
        sqlite3_bind_null(st, 2);
    else
        sqlite3_bind_int64(st, 2, r->turns);
    ldb_bind_text(st, 3, r->digest);
    ldb_bind_text(st, 4, r->replay_path);
    rc = ldb_step_done(db, st, c->what);
    ldb_finish(db, st);
    if (rc == JA_OK && sqlite3_changes(db->sql) != 1) {
        ldb_set_msg(db, "match %u of tournament %" PRId64 " changed while being recorded",
                    c->number, c->tid);
        rc = JA_ESTATE;
    }
    if (rc != JA_OK)
        return rc;
    /* The last match closes the tournament, in the same transaction. */
    rc = ldb_prepare(db,
                     "UPDATE tournaments SET status = 'done', finished_at = " LDB_SQL_NOW
                     " WHERE id = ?1 AND status = 'running' AND NOT EXISTS"
                     " (SELECT 1 FROM matches WHERE tournament_id = ?1 AND status = 'planned')"
                     /* swiss, knockout: only once every round is stored */
                     " AND (format NOT IN ('swiss', 'knockout') OR n_matches ="
                     "      (SELECT count(*) FROM matches WHERE tournament_id = ?1))",
                     &st, c->what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, c->tid);
    rc = ldb_step_done(db, st, c->what);
    ldb_finish(db, st);
    return rc;
}

/* The writes of recording one match, inside the caller's transaction:
 * shared by ladder_db_record_match and ladder_db_import, so an imported
 * match is stored, rated and closed exactly as a played one. */
static int record_in_tx(ladder_db *db, match_ctx *c, const ladder_match_result *r)
{
    int rc = find_match(db, c, r);
    if (rc == JA_OK)
        rc = load_seats(db, c, r);
    if (rc == JA_OK)
        rc = ladder_elo_match(c->elo, c->n_seats);
    if (rc == JA_OK)
        rc = insert_results(db, c, r);
    if (rc == JA_OK)
        rc = update_ratings(db, c);
    if (rc == JA_OK)
        rc = mark_done(db, c, r);
    return rc;
}

int ladder_db_record_match(ladder_db *db, int64_t tournament_id, uint32_t number,
                           const ladder_match_result *r)
{
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if ((rc = check_result(db, r)) != JA_OK)
        return rc;
    match_ctx c;
    memset(&c, 0, sizeof c);
    c.tid = tournament_id;
    c.number = number;
    snprintf(c.what, sizeof c.what, "recording match %u of tournament %" PRId64, number,
             tournament_id);

    if ((rc = ldb_begin_write(db, c.what)) != JA_OK)
        return rc;
    rc = record_in_tx(db, &c, r);
    if (rc == JA_OK)
        return ldb_commit(db, c.what);
    ldb_rollback(db);
    return rc;
}

int ladder_db_record_matches(ladder_db *db, int64_t tournament_id, uint32_t n,
                             const uint32_t *numbers, const ladder_match_result *const *results,
                             int *rcs)
{
    int rc = ldb_enter(db);
    if (rc == JA_OK && n == 0)
        return JA_OK;
    char what[96];
    snprintf(what, sizeof what, "recording %u matches of tournament %" PRId64, n, tournament_id);
    if (rc == JA_OK)
        rc = ldb_begin_write(db, what);
    char first[LDB_ERRMSG_MAX] = "";
    for (uint32_t i = 0; rc == JA_OK && i < n; i++) {
        match_ctx c;
        memset(&c, 0, sizeof c);
        c.tid = tournament_id;
        c.number = numbers[i];
        snprintf(c.what, sizeof c.what, "recording match %u of tournament %" PRId64, numbers[i],
                 tournament_id);
        rcs[i] = check_result(db, results[i]);
        if (rcs[i] == JA_OK)
            rcs[i] = record_in_tx(db, &c, results[i]);
        if (rcs[i] == JA_OK)
            continue;
        if (rcs[i] != JA_ESTATE && rcs[i] != JA_EINVAL && rcs[i] != JA_ENOTFOUND)
            rc = rcs[i]; /* a write failed: the transaction is lost */
        else if (!first[0])
            snprintf(first, sizeof first, "%s", db->errmsg); /* refused before any write */
    }
    if (rc == JA_OK)
        rc = ldb_commit(db, what);
    else
        ldb_rollback(db);
    if (rc != JA_OK) {
        /* Nothing of the batch is written: each match on its own, so that
         * one failure does not take the others with it. */
        char why[LDB_ERRMSG_MAX];
        snprintf(why, sizeof why, "%s", db->errmsg);
        for (uint32_t i = 0; i < n; i++)
            rcs[i] = ladder_db_record_match(db, tournament_id, numbers[i], results[i]);
        snprintf(db->errmsg, sizeof db->errmsg, "%s", why);
        return rc;
    }
    if (first[0])
        snprintf(db->errmsg, sizeof db->errmsg, "%s", first);
    return JA_OK;
}

/* ---- Imports ----------------------------------------------------------------- */

/* Everything about an import that can be checked without the database;
 * messages name the file and line. */
static int check_import(ladder_db *db, const ladder_import *imp)
{
    if (imp == NULL || imp->file == NULL || imp->format == NULL || imp->sha256 == NULL ||
        (imp->n_matches && (imp->matches == NULL || imp->seats == NULL)) ||
        (imp->n_ladders && imp->ladders == NULL) || (imp->n_bots && imp->bots == NULL) ||
        (imp->n_sources && imp->sources == NULL)) {
        ldb_set_msg(db, "no import given");
        return JA_EINVAL;
    }
    if (strcmp(imp->format, "pgn") != 0 && strcmp(imp->format, "jsonl") != 0) {
        ldb_set_msg(db, "%s: unknown import format '%s'", imp->file, imp->format);
        return JA_EINVAL;
    }
    if (!ldb_is_sha256_hex(imp->sha256)) {
        ldb_set_msg(db, "%s: the file hash is not 64 lowercase hex digits", imp->file);
        return JA_EINVAL;
    }
    if (imp->n_matches == 0) {
        ldb_set_msg(db, "%s: no results to import", imp->file);
        return JA_EINVAL;
    }
    int rc;
    for (uint32_t i = 0; i < imp->n_ladders; i++)
        if ((rc = ldb_check_key(db, &imp->ladders[i])) != JA_OK)
            return rc;
    for (uint32_t i = 0; i < imp->n_bots; i++)
        if ((rc = ldb_check_bot(db, &imp->bots[i], true)) != JA_OK)
            return rc;
    for (uint32_t i = 0; i < imp->n_sources; i++) {
        const char *l = imp->sources[i].label;
        if (l == NULL || l[0] == '\0' || strlen(l) >= LADDER_SOURCE_MAX) {
            ldb_set_msg(db, "%s: a source tournament name is empty or longer than %d bytes",
                        imp->file, LADDER_SOURCE_MAX - 1);
            return JA_EINVAL;
        }
    }
    for (uint32_t k = 0; k < imp->n_matches; k++) {
        const ladder_import_match *m = &imp->matches[k];
        const char *bad = NULL;
        if (m->ladder >= imp->n_ladders)
            bad = "no such ladder";
        else if (m->n_seats != imp->ladders[m->ladder].n_seats)
            bad = "the seat count differs from its ladder's";
        else if ((uint64_t)m->first_seat + m->n_seats > imp->n_seats)
            bad = "its seats are outside the seat table";
        else if (m->source > imp->n_sources)
            bad = "no such source tournament";
        for (uint32_t s = 0; bad == NULL && s < m->n_seats; s++) {
            const ladder_import_seat *st = &imp->seats[m->first_seat + s];
            if (st->bot >= imp->n_bots)
                bad = "no such bot";
            else if (st->place < 1 || st->place > m->n_seats)
                bad = "a place outside 1..seats";
        }
        bool two = false;
        for (uint32_t s = 1; bad == NULL && s < m->n_seats; s++)
            if (imp->seats[m->first_seat + s].bot != imp->seats[m->first_seat].bot)
                two = true;
        if (bad == NULL && !two)
            bad = "a match needs at least two different bots";
        if (bad != NULL) {
            ldb_set_msg(db, "%s:%u: %s", imp->file, m->line, bad);
            return JA_EINVAL;
        }
    }
    return JA_OK;
}

static int check_not_imported(ladder_db *db, const ladder_import *imp)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db, "SELECT id, file, created_at FROM imports WHERE sha256 = ?1", &st,
                         "looking for an earlier import");
    if (rc != JA_OK)
        return rc;
    ldb_bind_text(st, 1, imp->sha256);
    int src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        ldb_set_msg(db, "%s: this file was already imported into '%s' (import %lld of '%s', %s)",
                    imp->file, db->path, (long long)sqlite3_column_int64(st, 0),
                    (const char *)sqlite3_column_text(st, 1),
                    (const char *)sqlite3_column_text(st, 2));
        rc = JA_ESTATE;
    } else if (src != SQLITE_DONE) {
        rc = ldb_sql_fail(db, src, "looking for an earlier import");
    }
    ldb_finish(db, st);
    return rc;
}

/* True when the matches of imp with ladder and source as first's each have
 * a number of their own in the file (0 .. INT32_MAX, distinct): the
 * imported tournament then keeps them. *ok false on ENOMEM too. */
static int file_numbers(const ladder_import *imp, uint32_t first, bool *ok)
{
    const ladder_import_match *m0 = &imp->matches[first];
    *ok = false;
    int64_t *num = ja_xmalloc(imp->n_matches * sizeof *num);
    uint32_t n = 0;
    for (uint32_t k = first; k < imp->n_matches; k++) {
        const ladder_import_match *m = &imp->matches[k];
        if (m->ladder != m0->ladder || m->source != m0->source)
            continue;
        if (m->number < 0 || m->number > INT32_MAX) {
            free(num);
            return JA_OK;
        }
        num[n++] = m->number;
    }
    qsort(num, n, sizeof *num, ldb_cmp_i64);
    *ok = true;
    for (uint32_t i = 1; i < n; i++)
        if (num[i] == num[i - 1])
            *ok = false;
    free(num);
    return JA_OK;
}

/* One tournament of an import as it is stored: the matches of imp with the
 * ladder and source of matches[first], the first of them. */
typedef struct import_group {
    const ladder_import *imp;
    uint32_t first;
    const ladder_import_match *m0; /* &imp->matches[first] */
    int32_t *slot;     /* by bot index: its slot, -1 when it does not play (n_bots) */
    int64_t *bot_id;   /* by bot index: its id, for those that play (n_bots) */
    uint32_t n_part;   /* participants */
    uint32_t n_m;      /* matches */
    bool keep_numbers; /* the matches keep the file's numbers (file_numbers) */
    int64_t ladder_id; /* its ladder */
    int64_t tid;       /* the tournament, once stored */
} import_group;

/* Participants in order of first appearance (g->slot, g->n_part), and the
 * number of matches (g->n_m). */
static void import_slots(import_group *g)
{
    const ladder_import *imp = g->imp;
    const ladder_import_match *m0 = g->m0;
    for (uint32_t b = 0; b < imp->n_bots; b++)
        g->slot[b] = -1;
    for (uint32_t k = g->first; k < imp->n_matches; k++) {
        const ladder_import_match *m = &imp->matches[k];
        if (m->ladder != m0->ladder || m->source != m0->source)
            continue;
        g->n_m++;
        for (uint32_t s = 0; s < m->n_seats; s++) {
            uint32_t b = imp->seats[m->first_seat + s].bot;
            if (g->slot[b] < 0)
                g->slot[b] = (int32_t)g->n_part++;
        }
    }
}

/* The tournament's row, of format 'import' and without a seed; its id into
 * g->tid. */
static int import_tournament_row(ladder_db *db, import_group *g, int64_t import_id,
                                 int64_t ladder_id)
{
    static const char what[] = "importing results";
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "INSERT INTO tournaments (ladder_id, seed, format, rounds, duplicate,"
                         " n_participants, n_matches, status, created_at, import_id, source)"
                         " VALUES (?1, NULL, 'import', 1, 0, ?2, ?3, 'running', "
                         LDB_SQL_NOW ", ?4, ?5)",
                         &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, ladder_id);
    sqlite3_bind_int64(st, 2, g->n_part);
    sqlite3_bind_int64(st, 3, g->n_m);
    sqlite3_bind_int64(st, 4, import_id);
    /* The source's name as the file gave it: an integer stays one. */
    if (g->m0->source > 0) {
        const ladder_import_source *so = &g->imp->sources[g->m0->source - 1];
        char *end = NULL;
        errno = 0;
        long long v = so->integer ? strtoll(so->label, &end, 10) : 0;
        if (so->integer && errno == 0 && end != so->label && *end == '\0')
            sqlite3_bind_int64(st, 5, v);
        else
            ldb_bind_text(st, 5, so->label);
    }
    return ldb_insert_row(db, st, &g->tid, what);
}

/* The one bot that has played in ladder_id under `name` (and `version`,
 * unless NULL) into *out_id; JA_ENOTFOUND when none or several have. */
static int played_bot(ladder_db *db, int64_t ladder_id, const char *name, const char *version,
                      int64_t *out_id)
{
    static const char what[] = "looking up a bot of the ladder";
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "SELECT b.id FROM bots b WHERE b.name = ?1"
                         " AND (?3 IS NULL OR b.version = ?3) AND EXISTS (SELECT 1 FROM results r"
                         "  JOIN matches m ON m.id = r.match_id"
                         "  JOIN tournaments t ON t.id = m.tournament_id"
                         "  WHERE r.bot_id = b.id AND t.ladder_id = ?2) LIMIT 2",
                         &st, what);
    if (rc != JA_OK)
        return rc;
    ldb_bind_text(st, 1, name);
    sqlite3_bind_int64(st, 2, ladder_id);
    ldb_bind_text(st, 3, version);
    int n = 0, src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW)
        if (n++ == 0)
            *out_id = sqlite3_column_int64(st, 0);
    if (src != SQLITE_DONE)
        rc = ldb_sql_fail(db, src, what);
    else if (n != 1)
        rc = JA_ENOTFOUND;
    ldb_finish(db, st);
    return rc;
}

/* The id of imported bot b (added when new). A bot with neither version
 * nor hash (PGN names bots by name alone) is the bot of the ladder that
 * played under that name when exactly one did, or under `name@version`
 * (as `ladder export --pgn` names two versions of one name) the one of
 * that name and version: so results exported and imported again continue
 * their bots. Otherwise, its own identity (name, '', no hash). */
static int import_bot_id(ladder_db *db, const import_group *g, const ladder_bot *b,
                         int64_t *out_id)
{
    if ((b->version == NULL || b->version[0] == '\0') && b->sha256 == NULL) {
        int rc = played_bot(db, g->ladder_id, b->name, NULL, out_id);
        const char *at = strrchr(b->name, '@');
        if (rc == JA_ENOTFOUND && at != NULL && at != b->name && at[1] != '\0') {
            char name[LADDER_NAME_MAX];
            snprintf(name, sizeof name, "%.*s", (int)(at - b->name), b->name);
            rc = played_bot(db, g->ladder_id, name, at + 1, out_id);
        }
        if (rc != JA_ENOTFOUND)
            return rc;
    }
    return ldb_bot_get_or_add(db, b, out_id);
}

/* Participants: display names unique in the tournament (a repeated name
 * gets "#2", "#3"); each bot's id into g->bot_id. */
static int import_participants(ladder_db *db, import_group *g)
{
    static const char what[] = "importing results";
    const ladder_import *imp = g->imp;
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "INSERT INTO participants (tournament_id, slot, bot_id, name)"
                         " VALUES (?1, ?2, ?3, ?4)",
                         &st, what);
    if (rc != JA_OK)
        return rc;
    for (uint32_t b = 0; rc == JA_OK && b < imp->n_bots; b++) {
        if (g->slot[b] < 0)
            continue;
        if ((rc = import_bot_id(db, g, &imp->bots[b], &g->bot_id[b])) != JA_OK)
            break;
        char name[LADDER_NAME_MAX];
        int count = 1;
        for (uint32_t c = 0; c < imp->n_bots; c++)
            if (g->slot[c] >= 0 && g->slot[c] < g->slot[b] &&
                strcmp(imp->bots[c].name, imp->bots[b].name) == 0)
                count++;
        if (count == 1)
            snprintf(name, sizeof name, "%s", imp->bots[b].name);
        else
            snprintf(name, sizeof name, "%.118s#%d", imp->bots[b].name, count);
        sqlite3_bind_int64(st, 1, g->tid);
        sqlite3_bind_int64(st, 2, g->slot[b]);
        sqlite3_bind_int64(st, 3, g->bot_id[b]);
        sqlite3_bind_text(st, 4, name, -1, SQLITE_TRANSIENT);
        rc = ldb_step_done(db, st, what);
    }
    ldb_finish(db, st);
    return rc;
}

/* Records imported match m, stored as number num, as a played one is. */
static int import_record(ladder_db *db, const import_group *g, const ladder_import_match *m,
                         uint32_t num)
{
    const ladder_import *imp = g->imp;
    ladder_match_result r;
    memset(&r, 0, sizeof r);
    r.outcome.n_seats = m->n_seats;
    for (uint32_t s = 0; s < m->n_seats; s++) {
        r.outcome.score[s] = imp->seats[m->first_seat + s].score;
        r.outcome.place[s] = imp->seats[m->first_seat + s].place;
    }
    r.turns = m->turns >= 0 ? (uint32_t)m->turns : 0;
    r.digest = m->digest[0] ? m->digest : NULL;
    match_ctx c;
    memset(&c, 0, sizeof c);
    c.tid = g->tid;
    c.number = num;
    c.turns_unknown = m->turns < 0;
    snprintf(c.what, sizeof c.what, "importing %s:%u", imp->file, m->line);
    return record_in_tx(db, &c, &r);
}

/* The "plan": the matches in file order, then each recorded. */
static int import_matches(ladder_db *db, const import_group *g)
{
    static const char what[] = "importing results";
    const ladder_import *imp = g->imp;
    const ladder_import_match *m0 = g->m0;
    sqlite3_stmt *mst = NULL, *sst = NULL;
    int rc = ldb_prepare(db,
                         "INSERT INTO matches (tournament_id, number, round, combo, rotation, seed)"
                         " VALUES (?1, ?2, 0, ?2, 0, ?3)",
                         &mst, what);
    if (rc == JA_OK)
        rc = ldb_prepare(db, "INSERT INTO match_seats (match_id, seat, slot) VALUES (?1, ?2, ?3)",
                         &sst, what);
    uint32_t number = 0;
    for (uint32_t k = g->first; rc == JA_OK && k < imp->n_matches; k++) {
        const ladder_import_match *m = &imp->matches[k];
        if (m->ladder != m0->ladder || m->source != m0->source)
            continue;
        char seed[21];
        uint32_t num = g->keep_numbers ? (uint32_t)m->number : number;
        sqlite3_bind_int64(mst, 1, g->tid);
        sqlite3_bind_int64(mst, 2, num);
        ldb_bind_text(mst, 3, m->has_seed ? ladder_seed_format(m->seed, seed) : NULL);
        rc = ldb_step_done(db, mst, what);
        int64_t mid = sqlite3_last_insert_rowid(db->sql);
        for (uint32_t s = 0; rc == JA_OK && s < m->n_seats; s++) {
            sqlite3_bind_int64(sst, 1, mid);
            sqlite3_bind_int64(sst, 2, s);
            sqlite3_bind_int64(sst, 3, g->slot[imp->seats[m->first_seat + s].bot]);
            rc = ldb_step_done(db, sst, what);
        }
        if (rc != JA_OK)
            break;
        rc = import_record(db, g, m, num);
        number++;
    }
    ldb_finish(db, mst);
    ldb_finish(db, sst);
    return rc;
}

/* Stores one imported tournament: the matches of imp with the ladder and
 * source of matches[first], the first of them. slot and bot_id are scratch
 * of n_bots. */
static int import_tournament(ladder_db *db, const ladder_import *imp, int64_t import_id,
                             uint32_t first, int32_t *slot, int64_t *bot_id)
{
    import_group g = {.imp = imp, .first = first, .m0 = &imp->matches[first], .slot = slot,
                      .bot_id = bot_id};
    int rc = ldb_ladder_get_or_add(db, &imp->ladders[g.m0->ladder], &g.ladder_id);
    if (rc != JA_OK)
        return rc;
    import_slots(&g);
    if ((rc = file_numbers(imp, first, &g.keep_numbers)) != JA_OK)
        return rc;
    rc = import_tournament_row(db, &g, import_id, g.ladder_id);
    if (rc == JA_OK)
        rc = import_participants(db, &g);
    if (rc == JA_OK)
        rc = import_matches(db, &g);
    return rc;
}

int ladder_db_import(ladder_db *db, const ladder_import *imp, ladder_import_result *out)
{
    static const char what[] = "importing results";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if ((rc = check_import(db, imp)) != JA_OK)
        return rc;
    int32_t *slot = ja_xmalloc(imp->n_bots * sizeof *slot);
    int64_t *bot_id = ja_xmalloc(imp->n_bots * sizeof *bot_id);
    bool *done = ja_xcalloc(imp->n_matches, sizeof *done);
    ladder_import_result res = {0, 0, imp->n_matches};
    if ((rc = ldb_begin_write(db, what)) != JA_OK)
        goto out;
    rc = check_not_imported(db, imp);
    sqlite3_stmt *st = NULL;
    if (rc == JA_OK)
        rc = ldb_prepare(db,
                         "INSERT INTO imports (file, format, sha256, matches, skipped, created_at)"
                         " VALUES (?1, ?2, ?3, ?4, ?5, " LDB_SQL_NOW ")",
                         &st, what);
    if (rc == JA_OK) {
        ldb_bind_text(st, 1, imp->file);
        ldb_bind_text(st, 2, imp->format);
        ldb_bind_text(st, 3, imp->sha256);
        sqlite3_bind_int64(st, 4, imp->n_matches);
        sqlite3_bind_int64(st, 5, imp->skipped);
        rc = ldb_step_done(db, st, what);
        res.import_id = sqlite3_last_insert_rowid(db->sql);
    }
    ldb_finish(db, st);
    /* One tournament per (ladder, source), in order of first appearance. */
    for (uint32_t k = 0; rc == JA_OK && k < imp->n_matches; k++) {
        if (done[k])
            continue;
        for (uint32_t j = k; j < imp->n_matches; j++)
            if (imp->matches[j].ladder == imp->matches[k].ladder &&
                imp->matches[j].source == imp->matches[k].source)
                done[j] = true;
        rc = import_tournament(db, imp, res.import_id, k, slot, bot_id);
        res.tournaments++;
    }
    if (rc == JA_OK)
        rc = ldb_commit(db, what);
    else
        ldb_rollback(db);
out:
    free(slot);
    free(bot_id);
    free(done);
    if (rc == JA_OK && out != NULL)
        *out = res;
    return rc;
}
