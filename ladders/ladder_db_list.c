/* What is read out of the ladder store (see ladder_db.h): a tournament's
 * standings and fault counts, a ladder's ratings and the list of ladders,
 * the walks over a ladder's finished matches and seats in one read
 * snapshot, pages of matches found through indexes, and the bots. */
#include "ladder_db.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "elo.h"
#include "jackarena/ja_error.h"
#include "ladder_db_int.h"
#include "ja_xalloc.h"

/* ---- Standings and fault counts -------------------------------------------- */

static void read_standing(sqlite3_stmt *st, void *row)
{
    ladder_standing *s = row;
    s->slot = (uint32_t)sqlite3_column_int64(st, 0);
    s->bot_id = sqlite3_column_int64(st, 1);
    ldb_column_copy(st, 2, s->bot, sizeof s->bot);
    s->games = sqlite3_column_int64(st, 3);
    s->wins = sqlite3_column_int64(st, 4);
    s->score = sqlite3_column_int64(st, 5);
    s->faults = sqlite3_column_int64(st, 6);
    s->elo = sqlite3_column_double(st, 7);
    s->elo_games = sqlite3_column_int64(st, 8);
    ldb_column_copy(st, 9, s->version, sizeof s->version);
    ldb_column_copy(st, 10, s->sha256, sizeof s->sha256);
}

int ladder_db_standings(ladder_db *db, int64_t tournament_id, ladder_standing **out,
                        uint32_t *out_n)
{
    static const char what[] = "computing standings";
    if (out != NULL)
        *out = NULL;
    int rc = ldb_enter_rows(db, out != NULL, out_n, &tournament_id, NULL);
    if (rc != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(
        db,
        "SELECT p.slot, p.bot_id, p.name, IFNULL(s.games, 0) AS g, IFNULL(s.wins, 0) AS w,"
        " IFNULL(s.score, 0) AS sc, IFNULL(s.faults, 0), IFNULL(rt.elo, ?2) AS e,"
        " IFNULL(rt.games, 0), b.version, IFNULL(b.sha256, '')"
        " FROM participants p JOIN tournaments t ON t.id = p.tournament_id"
        " JOIN bots b ON b.id = p.bot_id"
        " LEFT JOIN (SELECT ms.slot AS slot, count(*) AS games, sum(r.place = 1) AS wins,"
        "            sum(r.score) AS score, sum(r.faults) AS faults"
        "            FROM matches m JOIN match_seats ms ON ms.match_id = m.id"
        "            JOIN results r ON r.match_id = m.id AND r.seat = ms.seat"
        "            WHERE m.tournament_id = ?1 GROUP BY ms.slot) s ON s.slot = p.slot"
        " LEFT JOIN ratings rt ON rt.ladder_id = t.ladder_id AND rt.bot_id = p.bot_id"
        " WHERE p.tournament_id = ?1"
        " ORDER BY g = 0, CAST(sc AS REAL) / max(g, 1) DESC, w DESC, e DESC, p.slot",
        &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, tournament_id);
    sqlite3_bind_double(st, 2, LADDER_ELO_INITIAL);
    void *rows;
    if ((rc = ldb_collect_rows(db, st, what, sizeof **out, read_standing, &rows, out_n)) == JA_OK)
        *out = rows;
    return rc;
}

/* Sums the (kind, count) rows of a prepared statement into out by kind;
 * gives st back (ldb_finish). */
static int sum_fault_rows(ladder_db *db, sqlite3_stmt *st, const char *what,
                          uint64_t out[JA_FAULT_COUNT])
{
    uint64_t counts[JA_FAULT_COUNT] = {0};
    int rc = JA_OK, src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        const char *kind = (const char *)sqlite3_column_text(st, 0);
        /* Kinds unknown to this build (written by a newer one) are skipped. */
        for (int k = 1; kind != NULL && k < JA_FAULT_COUNT; k++)
            if (strcmp(kind, ja_fault_name(k)) == 0)
                counts[k] += (uint64_t)sqlite3_column_int64(st, 1);
    }
    if (src != SQLITE_DONE)
        rc = ldb_sql_fail(db, src, what);
    ldb_finish(db, st);
    if (rc == JA_OK)
        memcpy(out, counts, sizeof counts);
    return rc;
}

int ladder_db_tournament_faults(ladder_db *db, int64_t tournament_id,
                                uint64_t out[JA_FAULT_COUNT])
{
    static const char what[] = "counting faults";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL)
        return JA_EINVAL;
    if ((rc = ldb_tournament_exists(db, tournament_id)) != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT f.kind, sum(f.count) FROM result_faults f"
                     " JOIN matches m ON m.id = f.match_id WHERE m.tournament_id = ?1"
                     " GROUP BY f.kind",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, tournament_id);
    return sum_fault_rows(db, st, what, out);
}

int ladder_db_slot_faults(ladder_db *db, int64_t tournament_id, uint32_t slot,
                          uint64_t out[JA_FAULT_COUNT])
{
    static const char what[] = "counting a participant's faults";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL)
        return JA_EINVAL;
    if ((rc = ldb_tournament_exists(db, tournament_id)) != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT f.kind, sum(f.count) FROM result_faults f"
                     " JOIN matches m ON m.id = f.match_id"
                     " JOIN match_seats ms ON ms.match_id = f.match_id AND ms.seat = f.seat"
                     " WHERE m.tournament_id = ?1 AND ms.slot = ?2 GROUP BY f.kind",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, tournament_id);
    sqlite3_bind_int64(st, 2, slot);
    return sum_fault_rows(db, st, what, out);
}

int ladder_db_bot_faults(ladder_db *db, const ladder_key *key, int64_t bot_id,
                         uint64_t out[JA_FAULT_COUNT])
{
    static const char what[] = "counting a bot's faults";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL)
        return JA_EINVAL;
    if ((rc = ldb_check_key(db, key)) != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT f.kind, sum(f.count) FROM result_faults f"
                     " JOIN results r ON r.match_id = f.match_id AND r.seat = f.seat"
                     " JOIN matches m ON m.id = f.match_id"
                     " JOIN tournaments t ON t.id = m.tournament_id"
                     " JOIN ladders l ON l.id = t.ladder_id"
                     " WHERE r.bot_id = ?1 AND l.game = ?2 AND l.n_seats = ?3 AND l.options = ?4"
                     " GROUP BY f.kind",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, bot_id);
    ldb_bind_key(st, 2, key);
    return sum_fault_rows(db, st, what, out);
}

/* ---- Ratings and ladders --------------------------------------------------- */

static void read_rating(sqlite3_stmt *st, void *row)
{
    ladder_rating *r = row;
    r->bot_id = sqlite3_column_int64(st, 0);
    ldb_column_copy(st, 1, r->bot, sizeof r->bot);
    ldb_column_copy(st, 2, r->version, sizeof r->version);
    r->games = sqlite3_column_int64(st, 3);
    r->elo = sqlite3_column_double(st, 4);
    r->wins = sqlite3_column_int64(st, 5);
    r->draws = sqlite3_column_int64(st, 6);
    r->losses = sqlite3_column_int64(st, 7);
}

int ladder_db_ratings(ladder_db *db, const ladder_key *key, ladder_rating **out, uint32_t *out_n)
{
    static const char what[] = "reading ratings";
    if (out != NULL)
        *out = NULL;
    int rc = ldb_enter_rows(db, out != NULL, out_n, NULL, key);
    if (rc != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT b.id, b.name, b.version, r.games, r.elo, r.wins, r.draws, r.losses"
                     " FROM ratings r JOIN ladders l ON l.id = r.ladder_id"
                     " JOIN bots b ON b.id = r.bot_id"
                     " WHERE l.game = ?1 AND l.n_seats = ?2 AND l.options = ?3"
                     " ORDER BY r.elo DESC, r.games DESC, b.name, b.id",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    ldb_bind_key(st, 1, key);
    void *rows;
    if ((rc = ldb_collect_rows(db, st, what, sizeof **out, read_rating, &rows, out_n)) == JA_OK)
        *out = rows;
    return rc;
}

static void read_summary(sqlite3_stmt *st, void *row)
{
    ladder_summary *s = row;
    s->id = sqlite3_column_int64(st, 0);
    ldb_column_copy(st, 1, s->game, sizeof s->game);
    s->n_seats = (uint32_t)sqlite3_column_int64(st, 2);
    ldb_column_copy(st, 3, s->options, sizeof s->options);
    s->bots = sqlite3_column_int64(st, 4);
    s->matches = sqlite3_column_int64(st, 5);
}

int ladder_db_ladders(ladder_db *db, const char *game, ladder_summary **out, uint32_t *out_n)
{
    static const char what[] = "listing ladders";
    if (out != NULL)
        *out = NULL;
    int rc = ldb_enter_rows(db, out != NULL, out_n, NULL, NULL);
    if (rc != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT l.id, l.game, l.n_seats, l.options,"
                     " (SELECT count(*) FROM ratings r WHERE r.ladder_id = l.id),"
                     " (SELECT count(*) FROM matches m JOIN tournaments t ON t.id = m.tournament_id"
                     "  WHERE t.ladder_id = l.id AND m.status = 'done')"
                     " FROM ladders l WHERE ?1 IS NULL OR l.game = ?1"
                     " ORDER BY l.game, l.n_seats, l.options",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    ldb_bind_text(st, 1, game);
    void *rows;
    if ((rc = ldb_collect_rows(db, st, what, sizeof **out, read_summary, &rows, out_n)) == JA_OK)
        *out = rows;
    return rc;
}

/* ---- Walks over a ladder's finished matches -------------------------------- */

/* The start of a walk over a ladder's rows (the foreach calls, and the
 * pages through begin_ladder_read): checks the handle, the caller's own
 * pointer arguments (args_ok false, a callback or an out missing: JA_EINVAL
 * without a message) and the key, opens one read transaction (a consistent
 * snapshot even while another process records matches: WAL readers do not
 * block the writer), and prepares sql with the key bound to ?1, ?2, ?3. On
 * JA_OK the caller steps *st, gives it back (ldb_finish) and ends the
 * transaction with ldb_rollback(); on failure nothing is left open. */
static int begin_ladder_walk(ladder_db *db, const ladder_key *key, bool args_ok,
                             const char *sql, sqlite3_stmt **st, const char *what)
{
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (!args_ok)
        return JA_EINVAL;
    if ((rc = ldb_check_key(db, key)) != JA_OK)
        return rc;
    if ((rc = ldb_exec(db, "BEGIN", what)) != JA_OK)
        return rc;
    if ((rc = ldb_prepare(db, sql, st, what)) != JA_OK) {
        ldb_rollback(db);
        return rc;
    }
    ldb_bind_key(*st, 1, key);
    return JA_OK;
}

/* A seat's live Elo update, the last columns of the statements that
 * read_match_seat reads (14 to 16). */
#define LDB_ELO_COLUMNS "r.elo_before, r.elo_delta, IFNULL(r.games_before, -1)"

double ladder_match_elo_after(const ladder_match_row *m, uint32_t seat)
{
    /* As update_ratings (ladder_db_record.c) sums them: from 0, in seat order. */
    double delta = 0.0;
    for (uint32_t t = 0; t < m->n_seats && t < JA_MAX_SEATS; t++)
        if (m->bot_id[t] == m->bot_id[seat])
            delta += m->elo_delta[t];
    return m->elo_before[seat] + delta;
}

/* Adds the current row of st, one seat of a match in the columns of
 * ladder_db_foreach_match's statement, to *row; on the match's first seat
 * (first, *row zeroed) the match's own fields too. */
static void read_match_seat(sqlite3_stmt *st, ladder_match_row *row, bool first)
{
    if (first) {
        row->match_id = sqlite3_column_int64(st, 0);
        row->tournament_id = sqlite3_column_int64(st, 1);
        row->number = (uint32_t)sqlite3_column_int64(st, 2);
        row->has_seed = sqlite3_column_type(st, 7) != SQLITE_NULL &&
                        ladder_seed_parse((const char *)sqlite3_column_text(st, 7),
                                          &row->seed) == JA_OK;
        row->deal = sqlite3_column_int64(st, 8);
        row->deal_tournament = sqlite3_column_int64(st, 12);
        switch (sqlite3_column_type(st, 13)) {
        case SQLITE_INTEGER:
            row->source_kind = 'i';
            row->source_int = sqlite3_column_int64(st, 13);
            break;
        case SQLITE_TEXT:
            row->source_kind = 's';
            ldb_column_copy(st, 13, row->source_text, sizeof row->source_text);
            break;
        default: row->source_kind = 0;
        }
        row->turns = sqlite3_column_type(st, 9) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 9);
        ldb_column_copy(st, 10, row->digest, sizeof row->digest);
        ldb_column_copy(st, 11, row->finished, sizeof row->finished);
    }
    int64_t seat = sqlite3_column_int64(st, 3);
    if (seat < 0 || seat >= JA_MAX_SEATS)
        return;
    row->bot_id[seat] = sqlite3_column_int64(st, 4);
    row->score[seat] = sqlite3_column_int64(st, 5);
    row->place[seat] = (uint8_t)sqlite3_column_int(st, 6);
    row->elo_before[seat] = sqlite3_column_double(st, 14);
    row->elo_delta[seat] = sqlite3_column_double(st, 15);
    row->games_before[seat] = sqlite3_column_int64(st, 16);
    if ((uint32_t)seat + 1 > row->n_seats)
        row->n_seats = (uint32_t)seat + 1;
}

int ladder_db_foreach_match(ladder_db *db, const ladder_key *key, ladder_match_fn fn, void *ctx)
{
    static const char what[] = "reading match results";
    sqlite3_stmt *st;
    int rc = begin_ladder_walk(
        db, key, fn != NULL,
        /* The deal: the first finished match of the ladder with
         * the seed, in any tournament (a window over the rows of
         * this ladder, one sort). */
        "SELECT m.id, m.tournament_id, m.number, r.seat, r.bot_id, r.score, r.place,"
        " m.seed,"
        " CASE WHEN m.seed IS NULL THEN m.id"
        "  ELSE min(m.id) OVER (PARTITION BY m.seed) END,"
        " m.turns, m.digest, m.finished_at,"
        " CASE WHEN m.seed IS NULL THEN m.tournament_id"
        "  ELSE min(m.tournament_id) OVER (PARTITION BY m.seed) END,"
        " t.source, " LDB_ELO_COLUMNS
        " FROM ladders l JOIN tournaments t ON t.ladder_id = l.id"
        " JOIN matches m ON m.tournament_id = t.id"
        " JOIN results r ON r.match_id = m.id"
        " WHERE l.game = ?1 AND l.n_seats = ?2 AND l.options = ?3"
        " AND m.status = 'done' ORDER BY t.id, m.number, r.seat",
        &st, what);
    if (rc != JA_OK)
        return rc;
    ladder_match_row row;
    memset(&row, 0, sizeof row);
    bool have = false;
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        bool first = !have || sqlite3_column_int64(st, 0) != row.match_id;
        if (have && first) {
            if ((rc = fn(ctx, &row)) != 0)
                break;
            memset(&row, 0, sizeof row);
        }
        read_match_seat(st, &row, first);
        have = true;
    }
    if (rc == JA_OK && src != SQLITE_ROW && src != SQLITE_DONE)
        rc = ldb_sql_fail(db, src, what);
    else if (rc == JA_OK && have)
        rc = fn(ctx, &row);
    ldb_finish(db, st);
    ldb_rollback(db); /* ends the read transaction */
    return rc;
}

int ladder_db_foreach_seat(ladder_db *db, const ladder_key *key, int64_t tournament_id,
                           ladder_seat_fn fn, void *ctx)
{
    static const char what[] = "reading match details";
    sqlite3_stmt *st;
    int rc = begin_ladder_walk(
        db, key, fn != NULL,
        "SELECT m.id, m.tournament_id, m.number, r.seat, r.bot_id, r.elo_before,"
        " r.elo_delta, IFNULL(m.replay, ''),"
        " (SELECT group_concat(f.kind || '=' || f.count, ' ') FROM result_faults f"
        "  WHERE f.match_id = r.match_id AND f.seat = r.seat)"
        " FROM ladders l JOIN tournaments t ON t.ladder_id = l.id"
        " JOIN matches m ON m.tournament_id = t.id"
        " JOIN results r ON r.match_id = m.id"
        " WHERE l.game = ?1 AND l.n_seats = ?2 AND l.options = ?3"
        " AND m.status = 'done' AND (?4 <= 0 OR t.id = ?4)"
        " ORDER BY t.id, m.number, r.seat",
        &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 4, tournament_id);
    ladder_seat_detail *d = ja_xmalloc(sizeof *d);
    int src = SQLITE_DONE;
    while (rc == JA_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        memset(d, 0, sizeof *d);
        d->match_id = sqlite3_column_int64(st, 0);
        d->tournament_id = sqlite3_column_int64(st, 1);
        d->number = (uint32_t)sqlite3_column_int64(st, 2);
        d->seat = (uint32_t)sqlite3_column_int64(st, 3);
        d->bot_id = sqlite3_column_int64(st, 4);
        d->elo_before = sqlite3_column_double(st, 5);
        d->elo_delta = sqlite3_column_double(st, 6);
        ldb_column_copy(st, 7, d->replay, sizeof d->replay);
        /* "kind=count kind=count"; kinds unknown to this build are skipped. */
        char kinds[512];
        ldb_column_copy(st, 8, kinds, sizeof kinds);
        char *save = NULL;
        for (char *kv = strtok_r(kinds, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
            char *eq = strchr(kv, '=');
            if (eq == NULL)
                continue;
            *eq = '\0';
            for (int k = 1; k < JA_FAULT_COUNT; k++)
                if (strcmp(kv, ja_fault_name(k)) == 0)
                    d->faults[k] += (uint32_t)strtoul(eq + 1, NULL, 10);
        }
        rc = fn(ctx, d);
    }
    if (rc == JA_OK && src != SQLITE_DONE)
        rc = ldb_sql_fail(db, src, what);
    free(d);
    ldb_finish(db, st);
    ldb_rollback(db); /* ends the read transaction */
    return rc;
}

/* ---- Pages of matches, through indexes ------------------------------------- */

/* begin_ladder_walk for the calls that find a ladder's rows through its
 * id: on JA_OK the read transaction is open (end it with ldb_rollback()) and
 * *ladder_id is the ladder's id, 0 for an unknown ladder. */
static int begin_ladder_read(ladder_db *db, const ladder_key *key, bool args_ok,
                             int64_t *ladder_id, const char *what)
{
    sqlite3_stmt *st;
    int rc = begin_ladder_walk(db, key, args_ok, ldb_ladder_lookup_sql, &st, what);
    if (rc != JA_OK)
        return rc;
    *ladder_id = 0;
    rc = ldb_step_int(db, st, ladder_id, what);
    if (rc == JA_ENOTFOUND)
        rc = JA_OK;
    if (rc != JA_OK)
        ldb_rollback(db);
    return rc;
}

/* Finished match `id` of ladder ladder_id into *row, its seats in order,
 * deal being the match itself: a few primary-key searches. JA_ENOTFOUND,
 * without a message, when there is no such finished match in the ladder. */
static int fetch_match(ladder_db *db, int64_t ladder_id, int64_t id, ladder_match_row *row,
                       const char *what)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "SELECT m.id, m.tournament_id, m.number, r.seat, r.bot_id, r.score,"
                         " r.place, m.seed, m.id, m.turns, m.digest, m.finished_at,"
                         " m.tournament_id, t.source, " LDB_ELO_COLUMNS
                         " FROM matches m JOIN tournaments t ON t.id = m.tournament_id"
                         " JOIN results r ON r.match_id = m.id"
                         " WHERE m.id = ?1 AND t.ladder_id = ?2 AND m.status = 'done'"
                         " ORDER BY r.seat",
                         &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, ladder_id);
    memset(row, 0, sizeof *row);
    bool first = true;
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        read_match_seat(st, row, first);
        first = false;
    }
    rc = src != SQLITE_DONE ? ldb_sql_fail(db, src, what) : first ? JA_ENOTFOUND : JA_OK;
    ldb_finish(db, st);
    return rc;
}

static void read_id(sqlite3_stmt *st, void *row)
{
    *(int64_t *)row = sqlite3_column_int64(st, 0);
}

/* The newest finished matches of ladder ?1 with id < ?2, at most ?3, of
 * bot ?4 (when `bot` is "r.bot_id = ?4 AND "), each once (GROUP BY: a bot
 * may hold two seats of a match). Results exist only for finished matches,
 * so the walk down results_bot (bot_id, match_id, seat) or the primary key
 * of results (match_id, seat) never steps over a planned match, where a
 * walk down matches would step over a whole unplayed plan. CROSS JOIN fixes the
 * join order: left to itself, SQLite starts from the ladder's tournaments
 * and sorts every match of the ladder, the scan this exists to avoid. */
#define PAGE_SQL(bot)                                                                             \
    "SELECT r.match_id FROM results r CROSS JOIN matches m CROSS JOIN tournaments t"             \
    " WHERE " bot "r.match_id < ?2 AND m.id = r.match_id AND t.id = m.tournament_id"            \
    " AND t.ladder_id = ?1 AND m.status = 'done'"                                                 \
    " GROUP BY r.match_id ORDER BY r.match_id DESC LIMIT ?3"

/* Appends the ids PAGE_SQL selects (at most n) to ids[*n_ids]. */
static int page_ids(ladder_db *db, int64_t ladder_id, int64_t before, uint32_t n,
                    const int64_t *bot_id, int64_t *ids, uint32_t *n_ids, const char *what)
{
    sqlite3_stmt *st;
    int rc =
        ldb_prepare(db, bot_id != NULL ? PAGE_SQL("r.bot_id = ?4 AND ") : PAGE_SQL(""), &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, ladder_id);
    sqlite3_bind_int64(st, 2, before);
    sqlite3_bind_int64(st, 3, n);
    if (bot_id != NULL)
        sqlite3_bind_int64(st, 4, *bot_id);
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW)
        ids[(*n_ids)++] = sqlite3_column_int64(st, 0);
    if (src != SQLITE_DONE)
        rc = ldb_sql_fail(db, src, what);
    ldb_finish(db, st);
    return rc;
}

static int cmp_i64_desc(const void *a, const void *b)
{
    return ldb_cmp_i64(b, a);
}

/* Sorts ids newest first and drops repeats; returns how many stay. */
static uint32_t newest_distinct(int64_t *ids, uint32_t n)
{
    if (n > 1) /* ids is NULL when there are none */
        qsort(ids, n, sizeof *ids, cmp_i64_desc);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (k == 0 || ids[i] != ids[k - 1])
            ids[k++] = ids[i];
    return k;
}

/* The ids of the bots named `name` (every version) into *bots (the
 * caller frees it; NULL when none): bots_identity leads with the name, so
 * one search finds them. */
static int name_bots(ladder_db *db, const char *name, int64_t **bots, uint32_t *n,
                     const char *what)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db, "SELECT id FROM bots WHERE name = ?1", &st, what);
    if (rc != JA_OK)
        return rc;
    ldb_bind_text(st, 1, name);
    void *rows;
    if ((rc = ldb_collect_rows(db, st, what, sizeof **bots, read_id, &rows, n)) == JA_OK)
        *bots = rows;
    return rc;
}

/* The ids of the page: the limit + 1 newest of each bot named `name` (or
 * of the whole ladder), merged, so that *n_ids > limit says there are
 * more. Every match of the true page is among them: a match that is among
 * the limit + 1 newest of the union is among the limit + 1 newest of each
 * of its bots. On JA_OK *ids is owned by the caller (NULL when none). */
static int page_select(ladder_db *db, int64_t ladder_id, const char *name, int64_t before,
                       uint32_t limit, int64_t **ids, uint32_t *n_ids, const char *what)
{
    int64_t *bots = NULL;
    uint32_t n_bots = ladder_id != 0;
    int rc = JA_OK;
    *ids = NULL;
    *n_ids = 0;
    if (name != NULL && ladder_id != 0 && (rc = name_bots(db, name, &bots, &n_bots, what)) != JA_OK)
        return rc;
    if (n_bots > 0)
        *ids = ja_xmalloc((size_t)n_bots * (limit + 1) * sizeof **ids);
    for (uint32_t i = 0; rc == JA_OK && i < n_bots; i++)
        rc = page_ids(db, ladder_id, before, limit + 1, name != NULL ? &bots[i] : NULL, *ids,
                      n_ids, what);
    free(bots);
    if (rc != JA_OK) {
        free(*ids);
        *ids = NULL;
        return rc;
    }
    *n_ids = newest_distinct(*ids, *n_ids);
    return JA_OK;
}

int ladder_db_match_page(ladder_db *db, const ladder_key *key, const char *name, int64_t before,
                         uint32_t limit, ladder_match_row **out, uint32_t *out_n, bool *more)
{
    static const char what[] = "reading a page of matches";
    int64_t ladder_id;
    int rc = begin_ladder_read(db, key, out != NULL && out_n != NULL && more != NULL,
                               &ladder_id, what);
    if (rc != JA_OK)
        return rc;
    if (limit < 1 || limit > LADDER_PAGE_MAX ||
        (name != NULL && (name[0] == '\0' || strlen(name) >= LADDER_NAME_MAX))) {
        ldb_set_msg(db, "a page of matches takes 1 to %d of them and a bot name of 1 to %d bytes",
                    LADDER_PAGE_MAX, LADDER_NAME_MAX - 1);
        ldb_rollback(db);
        return JA_EINVAL;
    }
    int64_t *ids = NULL;
    uint32_t n = 0;
    rc = page_select(db, ladder_id, name, before > 0 ? before : INT64_MAX, limit, &ids, &n, what);
    ladder_match_row *rows = NULL;
    bool over = rc == JA_OK && n > limit;
    if (over)
        n = limit;
    if (rc == JA_OK && n > 0)
        rows = ja_xmalloc(n * sizeof *rows);
    for (uint32_t i = 0; rc == JA_OK && i < n; i++)
        /* Found a moment ago in the same snapshot: missing now is a fault. */
        if ((rc = fetch_match(db, ladder_id, ids[i], &rows[i], what)) == JA_ENOTFOUND)
            rc = ldb_sql_fail(db, SQLITE_DONE, what);
    free(ids);
    ldb_rollback(db); /* ends the read transaction */
    if (rc != JA_OK) {
        free(rows);
        return rc;
    }
    *out = rows;
    *out_n = n;
    *more = over;
    return JA_OK;
}

int ladder_db_match_row(ladder_db *db, const ladder_key *key, int64_t tournament_id,
                        uint32_t number, ladder_match_row *out)
{
    static const char what[] = "reading a match";
    int64_t ladder_id, id = 0;
    int rc = begin_ladder_read(db, key, out != NULL, &ladder_id, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db, "SELECT id FROM matches WHERE tournament_id = ?1 AND number = ?2", &st,
                     what);
    if (rc == JA_OK) {
        sqlite3_bind_int64(st, 1, tournament_id);
        sqlite3_bind_int64(st, 2, number);
        rc = ldb_step_int(db, st, &id, what);
    }
    /* fetch_match checks the ladder and that the match is finished. */
    ladder_match_row row;
    if (rc == JA_OK)
        rc = fetch_match(db, ladder_id, id, &row, what);
    if (rc == JA_ENOTFOUND)
        ldb_set_msg(db,
                    "no finished match %u of tournament %" PRId64 " in the ladder of %s with %u"
                    " seats and options '%s' in database '%s'",
                    number, tournament_id, key->game, key->n_seats, key->options, db->path);
    ldb_rollback(db); /* ends the read transaction */
    if (rc == JA_OK)
        *out = row;
    return rc;
}

/* ---- A bot's live Elo, through indexes --------------------------------------- */

/* Appends the steps of bot bot_id in ladder ladder_id to *steps (room in
 * *cap): its results by results_bot (bot_id, match_id, seat) in that
 * order, each match's seats of the bot made one step. */
static int elo_steps(ladder_db *db, int64_t ladder_id, int64_t bot_id, ladder_elo_step **steps,
                     uint32_t *n, uint32_t *cap, const char *what)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "SELECT r.match_id, m.tournament_id, m.number,"
                         " IFNULL(r.games_before, -1), r.elo_before, r.elo_delta"
                         " FROM results r CROSS JOIN matches m CROSS JOIN tournaments t"
                         " WHERE r.bot_id = ?1 AND m.id = r.match_id AND t.id = m.tournament_id"
                         " AND t.ladder_id = ?2 AND m.status = 'done'"
                         " ORDER BY r.match_id, r.seat",
                         &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, bot_id);
    sqlite3_bind_int64(st, 2, ladder_id);
    uint32_t first = *n;
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t match_id = sqlite3_column_int64(st, 0);
        ladder_elo_step *p = *n > first ? &(*steps)[*n - 1] : NULL;
        /* Another seat of the bot in the same match: its change added, in
         * seat order from 0, as ladder_match_elo_after adds them. */
        double delta = sqlite3_column_double(st, 5);
        if (p != NULL && p->match_id == match_id) {
            p->elo_after += delta;
            continue;
        }
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 64;
            *steps = ja_xrealloc(*steps, (size_t)*cap * sizeof **steps);
        }
        p = &(*steps)[(*n)++];
        *p = (ladder_elo_step){.bot_id = bot_id, .match_id = match_id,
                               .tournament_id = sqlite3_column_int64(st, 1),
                               .number = (uint32_t)sqlite3_column_int64(st, 2),
                               .games_before = sqlite3_column_int64(st, 3),
                               .elo_before = sqlite3_column_double(st, 4),
                               .elo_after = delta};
    }
    if (src != SQLITE_DONE)
        rc = ldb_sql_fail(db, src, what);
    ldb_finish(db, st);
    /* elo_after held the summed change until here. */
    for (uint32_t i = first; i < *n; i++)
        (*steps)[i].elo_after += (*steps)[i].elo_before;
    return rc;
}

static int cmp_step(const void *a, const void *b)
{
    const ladder_elo_step *x = a, *y = b;
    if (x->tournament_id != y->tournament_id)
        return x->tournament_id < y->tournament_id ? -1 : 1;
    if (x->games_before != y->games_before)
        return x->games_before < y->games_before ? -1 : 1;
    return ldb_cmp_i64(&x->match_id, &y->match_id);
}

int ladder_db_elo_history(ladder_db *db, const ladder_key *key, const char *name,
                          ladder_elo_step **out, uint32_t *out_n)
{
    static const char what[] = "reading a bot's live Elo";
    int64_t ladder_id;
    int rc = begin_ladder_read(db, key, out != NULL && out_n != NULL && name != NULL,
                               &ladder_id, what);
    if (rc != JA_OK)
        return rc;
    if (name[0] == '\0' || strlen(name) >= LADDER_NAME_MAX) {
        ldb_set_msg(db, "a bot name has 1 to %d bytes", LADDER_NAME_MAX - 1);
        ldb_rollback(db);
        return JA_EINVAL;
    }
    int64_t *bots = NULL;
    uint32_t n_bots = 0, n = 0, cap = 0;
    ladder_elo_step *steps = NULL;
    if (ladder_id != 0)
        rc = name_bots(db, name, &bots, &n_bots, what);
    for (uint32_t i = 0; rc == JA_OK && i < n_bots; i++)
        rc = elo_steps(db, ladder_id, bots[i], &steps, &n, &cap, what);
    free(bots);
    ldb_rollback(db); /* ends the read transaction */
    if (rc != JA_OK) {
        free(steps);
        return rc;
    }
    if (n > 1)
        qsort(steps, n, sizeof *steps, cmp_step);
    *out = steps;
    *out_n = n;
    return JA_OK;
}

/* ---- Bots ------------------------------------------------------------------ */

static void read_bot_row(sqlite3_stmt *st, void *row)
{
    ladder_bot_row *b = row;
    b->id = sqlite3_column_int64(st, 0);
    ldb_column_copy(st, 1, b->name, sizeof b->name);
    ldb_column_copy(st, 2, b->version, sizeof b->version);
    ldb_column_copy(st, 3, b->kind, sizeof b->kind);
    ldb_column_copy(st, 4, b->sha256, sizeof b->sha256);
}

int ladder_db_bot_row(ladder_db *db, int64_t id, ladder_bot_row *out)
{
    static const char what[] = "reading a bot";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL)
        return JA_EINVAL;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT id, name, version, kind, IFNULL(sha256, '') FROM bots WHERE id = ?1",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    int src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        memset(out, 0, sizeof *out);
        read_bot_row(st, out);
    }
    rc = src == SQLITE_ROW    ? JA_OK
         : src == SQLITE_DONE ? JA_ENOTFOUND
                              : ldb_sql_fail(db, src, what);
    ldb_finish(db, st);
    return rc;
}

int ladder_db_ladder_bots(ladder_db *db, const ladder_key *key, ladder_bot_row **out,
                          uint32_t *out_n)
{
    static const char what[] = "reading the bots of a ladder";
    if (out != NULL)
        *out = NULL;
    int rc = ldb_enter_rows(db, out != NULL, out_n, NULL, key);
    if (rc != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT b.id, b.name, b.version, b.kind, IFNULL(b.sha256, '') FROM bots b"
                     " WHERE b.id IN (SELECT r.bot_id FROM ladders l"
                     "  JOIN tournaments t ON t.ladder_id = l.id"
                     "  JOIN matches m ON m.tournament_id = t.id"
                     "  JOIN results r ON r.match_id = m.id"
                     "  WHERE l.game = ?1 AND l.n_seats = ?2 AND l.options = ?3)"
                     " ORDER BY b.id",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    ldb_bind_key(st, 1, key);
    void *rows;
    if ((rc = ldb_collect_rows(db, st, what, sizeof **out, read_bot_row, &rows, out_n)) == JA_OK)
        *out = rows;
    return rc;
}
