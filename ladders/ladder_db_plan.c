/* The ladder store's bots, ladders, tournaments and their plans (see
 * ladder_db.h): identities checked, found and added; a tournament stored
 * with its whole plan before play, found again for --resume, and read back
 * (its state, its planned matches, those still to play). */
#include "ladder_db.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "jackarena/ja_error.h"
#include "deals.h"
#include "ladder_db_int.h"
#include "ja_xalloc.h"
#include "pairing.h"

/* ---- Bots ------------------------------------------------------------------ */

bool ldb_is_sha256_hex(const char *s)
{
    if (strlen(s) != 64)
        return false;
    for (const char *c = s; *c; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
            return false;
    return true;
}

int ldb_check_bot(ladder_db *db, const ladder_bot *b, bool need_kind)
{
    if (b == NULL || b->name == NULL || b->name[0] == '\0') {
        ldb_set_msg(db, "a bot needs a name");
        return JA_EINVAL;
    }
    if (strlen(b->name) >= LADDER_NAME_MAX) {
        ldb_set_msg(db, "bot name '%.40s...' is longer than %d bytes", b->name,
                    LADDER_NAME_MAX - 1);
        return JA_EINVAL;
    }
    if (b->version != NULL && strlen(b->version) >= LADDER_VERSION_MAX) {
        ldb_set_msg(db, "version of bot '%s' is longer than %d bytes", b->name,
                    LADDER_VERSION_MAX - 1);
        return JA_EINVAL;
    }
    if (need_kind && (b->kind == NULL || b->kind[0] == '\0')) {
        ldb_set_msg(db, "bot '%s' has no kind", b->name);
        return JA_EINVAL;
    }
    if (b->sha256 != NULL && !ldb_is_sha256_hex(b->sha256)) {
        ldb_set_msg(db, "sha256 of bot '%s' is not 64 lowercase hex digits", b->name);
        return JA_EINVAL;
    }
    return JA_OK;
}

static int bot_lookup(ladder_db *db, const ladder_bot *b, int64_t *out_id)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "SELECT id FROM bots WHERE name = ?1 AND version = ?2"
                         " AND IFNULL(sha256, '') = IFNULL(?3, '')",
                         &st, "looking up a bot");
    if (rc != JA_OK)
        return rc;
    ldb_bind_text(st, 1, b->name);
    ldb_bind_text(st, 2, b->version != NULL ? b->version : "");
    ldb_bind_text(st, 3, b->sha256);
    return ldb_step_int(db, st, out_id, "looking up a bot");
}

int ldb_bot_get_or_add(ladder_db *db, const ladder_bot *b, int64_t *out_id)
{
    int rc = bot_lookup(db, b, out_id);
    if (rc != JA_ENOTFOUND)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "INSERT INTO bots (name, version, kind, spec, sha256, created_at)"
                     " VALUES (?1, ?2, ?3, ?4, ?5, " LDB_SQL_NOW ")",
                     &st, "adding a bot");
    if (rc != JA_OK)
        return rc;
    ldb_bind_text(st, 1, b->name);
    ldb_bind_text(st, 2, b->version != NULL ? b->version : "");
    ldb_bind_text(st, 3, b->kind);
    ldb_bind_text(st, 4, b->spec != NULL ? b->spec : "");
    ldb_bind_text(st, 5, b->sha256);
    return ldb_insert_row(db, st, out_id, "adding a bot");
}

int ladder_db_bot_get_or_add(ladder_db *db, const ladder_bot *bot, int64_t *out_id)
{
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out_id == NULL)
        return JA_EINVAL;
    if ((rc = ldb_check_bot(db, bot, true)) != JA_OK)
        return rc;
    /* The common case, a known bot, needs no write lock. */
    rc = bot_lookup(db, bot, out_id);
    if (rc != JA_ENOTFOUND)
        return rc;
    if ((rc = ldb_begin_write(db, "adding a bot")) != JA_OK)
        return rc;
    rc = ldb_bot_get_or_add(db, bot, out_id);
    if (rc == JA_OK)
        return ldb_commit(db, "adding a bot");
    ldb_rollback(db);
    return rc;
}

int ladder_db_bot_find(ladder_db *db, const ladder_bot *bot, int64_t *out_id)
{
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out_id == NULL)
        return JA_EINVAL;
    if ((rc = ldb_check_bot(db, bot, false)) != JA_OK)
        return rc;
    rc = bot_lookup(db, bot, out_id);
    if (rc == JA_ENOTFOUND)
        ldb_set_msg(db, "no bot '%s' version '%s' in database '%s'", bot->name,
                    bot->version != NULL ? bot->version : "", db->path);
    return rc;
}

/* ---- Ladders --------------------------------------------------------------- */

int ldb_check_key(ladder_db *db, const ladder_key *k)
{
    if (k == NULL || k->game == NULL || k->game[0] == '\0') {
        ldb_set_msg(db, "a ladder needs a game");
        return JA_EINVAL;
    }
    if (strlen(k->game) >= LADDER_NAME_MAX) {
        ldb_set_msg(db, "game name is longer than %d bytes", LADDER_NAME_MAX - 1);
        return JA_EINVAL;
    }
    if (k->n_seats < 2 || k->n_seats > JA_MAX_SEATS) {
        ldb_set_msg(db, "seats must be between 2 and %d, not %u", JA_MAX_SEATS, k->n_seats);
        return JA_EINVAL;
    }
    if (k->options == NULL || strlen(k->options) >= LADDER_OPTIONS_MAX) {
        ldb_set_msg(db, "options of a ladder must be text of at most %d bytes",
                    LADDER_OPTIONS_MAX - 1);
        return JA_EINVAL;
    }
    return JA_OK;
}

const char ldb_ladder_lookup_sql[] =
    "SELECT id FROM ladders WHERE game = ?1 AND n_seats = ?2 AND options = ?3";

static int ladder_lookup(ladder_db *db, const ladder_key *k, int64_t *out_id)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db, ldb_ladder_lookup_sql, &st, "looking up a ladder");
    if (rc != JA_OK)
        return rc;
    ldb_bind_key(st, 1, k);
    return ldb_step_int(db, st, out_id, "looking up a ladder");
}

int ldb_ladder_get_or_add(ladder_db *db, const ladder_key *k, int64_t *out_id)
{
    int rc = ladder_lookup(db, k, out_id);
    if (rc != JA_ENOTFOUND)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db, "INSERT INTO ladders (game, n_seats, options) VALUES (?1, ?2, ?3)", &st,
                     "adding a ladder");
    if (rc != JA_OK)
        return rc;
    ldb_bind_key(st, 1, k);
    return ldb_insert_row(db, st, out_id, "adding a ladder");
}

/* ---- Tournaments ----------------------------------------------------------- */

static void spec_params(const ladder_tournament_spec *s, ladder_plan_params *p)
{
    memset(p, 0, sizeof *p);
    p->n_participants = s->n_bots;
    p->n_seats = s->ladder.n_seats;
    p->rounds = s->rounds;
    p->format = s->format;
    p->duplicate = s->duplicate;
    p->seed = s->seed;
    p->seating = s->seating;
    p->deals = s->deals;
    p->n_deals = s->n_deals;
    if (ladder_format_by_rounds(s->format))
        p->duplicate = true;
}

/* The deal set's hash into hex ("" when none). */
static const char *deals_hash(const ladder_tournament_spec *s, char hex[65])
{
    if (!s->deals)
        return NULL;
    ladder_deals_hash(s->deals, s->n_deals, hex);
    return hex;
}

/* Everything about a spec that can be checked without the database. */
static int check_spec(ladder_db *db, const ladder_tournament_spec *s, bool need_kind)
{
    if (s == NULL) {
        ldb_set_msg(db, "no tournament given");
        return JA_EINVAL;
    }
    int rc = ldb_check_key(db, &s->ladder);
    if (rc != JA_OK)
        return rc;
    ladder_plan_params p;
    spec_params(s, &p);
    char err[200];
    rc = ladder_plan_count(&p, NULL, err, sizeof err);
    if (rc != JA_OK) {
        ldb_set_msg(db, "%s", err);
        return rc;
    }
    if (s->bots == NULL) {
        ldb_set_msg(db, "no participants given");
        return JA_EINVAL;
    }
    for (uint32_t i = 0; i < s->n_bots; i++) {
        if ((rc = ldb_check_bot(db, &s->bots[i], need_kind)) != JA_OK)
            return rc;
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(s->bots[i].name, s->bots[j].name) == 0) {
                ldb_set_msg(db, "participant name '%s' is given twice", s->bots[i].name);
                return JA_EINVAL;
            }
        }
    }
    return JA_OK;
}

/* Inserts the plan's rows (inside the tournament's transaction). */
static int store_plan(ladder_db *db, int64_t tid, const ladder_plan_match *plan, uint32_t n)
{
    static const char what[] = "storing the tournament plan";
    sqlite3_stmt *m = NULL, *s = NULL;
    int rc = ldb_prepare(db,
                         "INSERT INTO matches (tournament_id, number, round, combo, rotation, seed)"
                         " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                         &m, what);
    if (rc == JA_OK)
        rc = ldb_prepare(db, "INSERT INTO match_seats (match_id, seat, slot) VALUES (?1, ?2, ?3)",
                         &s, what);
    for (uint32_t i = 0; rc == JA_OK && i < n; i++) {
        const ladder_plan_match *pm = &plan[i];
        char seed[21];
        ladder_seed_format(pm->seed, seed);
        sqlite3_bind_int64(m, 1, tid);
        sqlite3_bind_int64(m, 2, pm->number);
        sqlite3_bind_int64(m, 3, pm->round);
        sqlite3_bind_int64(m, 4, pm->combo);
        sqlite3_bind_int64(m, 5, pm->rotation);
        sqlite3_bind_text(m, 6, seed, -1, SQLITE_TRANSIENT);
        rc = ldb_step_done(db, m, what);
        int64_t mid = sqlite3_last_insert_rowid(db->sql);
        for (uint32_t seat = 0; rc == JA_OK && seat < pm->n_seats; seat++) {
            sqlite3_bind_int64(s, 1, mid);
            sqlite3_bind_int64(s, 2, seat);
            sqlite3_bind_int64(s, 3, pm->slot[seat]);
            rc = ldb_step_done(db, s, what);
        }
    }
    ldb_finish(db, m);
    ldb_finish(db, s);
    return rc;
}

/* The writes of ladder_db_tournament_create, inside its transaction. */
static int create_tournament(ladder_db *db, const ladder_tournament_spec *spec,
                             const ladder_plan_match *plan, uint32_t n_plan, uint32_t n_total,
                             int64_t *out_id)
{
    static const char what[] = "storing a new tournament";
    int64_t ladder_id = 0;
    int rc = ldb_ladder_get_or_add(db, &spec->ladder, &ladder_id);
    if (rc != JA_OK)
        return rc;

    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "INSERT INTO tournaments (ladder_id, seed, format, rounds, duplicate,"
                     " n_participants, n_matches, status, created_at, seating, deals)"
                     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'running', " LDB_SQL_NOW ", ?8, ?9)",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    char seed[21], hex[65];
    sqlite3_bind_int64(st, 1, ladder_id);
    ldb_bind_text(st, 2, ladder_seed_format(spec->seed, seed));
    ldb_bind_text(st, 3, ladder_format_name(spec->format));
    sqlite3_bind_int64(st, 4, spec->rounds);
    sqlite3_bind_int(st, 5, spec->duplicate || ladder_format_by_rounds(spec->format) ? 1 : 0);
    sqlite3_bind_int64(st, 6, spec->n_bots);
    sqlite3_bind_int64(st, 7, n_total);
    ldb_bind_text(st, 8, ladder_seating_name(spec->seating));
    ldb_bind_text(st, 9, deals_hash(spec, hex));
    int64_t tid;
    if ((rc = ldb_insert_row(db, st, &tid, what)) != JA_OK)
        return rc;

    rc = ldb_prepare(db,
                     "INSERT INTO participants (tournament_id, slot, bot_id, name)"
                     " VALUES (?1, ?2, ?3, ?4)",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    for (uint32_t i = 0; rc == JA_OK && i < spec->n_bots; i++) {
        int64_t bot_id;
        rc = ldb_bot_get_or_add(db, &spec->bots[i], &bot_id);
        if (rc != JA_OK)
            break;
        sqlite3_bind_int64(st, 1, tid);
        sqlite3_bind_int64(st, 2, i);
        sqlite3_bind_int64(st, 3, bot_id);
        ldb_bind_text(st, 4, spec->bots[i].name);
        rc = ldb_step_done(db, st, what);
    }
    ldb_finish(db, st);
    if (rc == JA_OK)
        rc = store_plan(db, tid, plan, n_plan);
    if (rc == JA_OK)
        *out_id = tid;
    return rc;
}

int ladder_db_tournament_create(ladder_db *db, const ladder_tournament_spec *spec,
                                int64_t *out_id)
{
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out_id == NULL)
        return JA_EINVAL;
    if ((rc = check_spec(db, spec, true)) != JA_OK)
        return rc;
    ladder_plan_params p;
    spec_params(spec, &p);
    ladder_plan_match *plan;
    uint32_t n, total;
    char err[300];
    ladder_plan_count(&p, &total, NULL, 0);
    /* Swiss and knockout: the first round only, the others as it is played. */
    if (ladder_format_by_rounds(p.format))
        rc = ladder_round_plan(&p, NULL, 0, 0, &plan, &n, err, sizeof err);
    else
        rc = ladder_plan_new(&p, &plan, &n);
    if (rc != JA_OK) {
        ldb_set_msg(db, "cannot generate the plan: %s", ja_strerror(rc));
        return rc;
    }
    rc = ldb_begin_write(db, "storing a new tournament");
    if (rc == JA_OK) {
        rc = create_tournament(db, spec, plan, n, total, out_id);
        if (rc == JA_OK)
            rc = ldb_commit(db, "storing a new tournament");
        else
            ldb_rollback(db);
    }
    ladder_plan_free(&plan);
    return rc;
}

/* True when the participants of tournament tid are exactly bot_ids (and
 * display names) in slot order. */
static int same_participants(ladder_db *db, int64_t tid, const ladder_tournament_spec *spec,
                             const int64_t *bot_ids, bool *same)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "SELECT slot, bot_id, name FROM participants WHERE tournament_id = ?1"
                         " ORDER BY slot",
                         &st, "reading participants");
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, tid);
    uint32_t i = 0;
    *same = true;
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *name = sqlite3_column_text(st, 2);
        if (i >= spec->n_bots || sqlite3_column_int64(st, 0) != i ||
            sqlite3_column_int64(st, 1) != bot_ids[i] || name == NULL ||
            strcmp((const char *)name, spec->bots[i].name) != 0) {
            *same = false;
            break;
        }
        i++;
    }
    if (src != SQLITE_ROW && src != SQLITE_DONE)
        rc = ldb_sql_fail(db, src, "reading participants");
    else if (i != spec->n_bots)
        *same = false;
    ldb_finish(db, st);
    return rc;
}

int ladder_db_tournament_find(ladder_db *db, const ladder_tournament_spec *spec, unsigned flags,
                              int64_t *out_id)
{
    static const char what[] = "looking for the tournament to resume";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out_id == NULL)
        return JA_EINVAL;
    if ((rc = check_spec(db, spec, false)) != JA_OK)
        return rc;
    char seed[21];
    ladder_seed_format(spec->seed, seed);

    int64_t ladder_id = 0;
    int64_t *bot_ids = ja_xcalloc(spec->n_bots, sizeof *bot_ids);
    rc = ladder_lookup(db, &spec->ladder, &ladder_id);
    for (uint32_t i = 0; rc == JA_OK && i < spec->n_bots; i++)
        rc = bot_lookup(db, &spec->bots[i], &bot_ids[i]);

    sqlite3_stmt *st = NULL;
    if (rc == JA_OK)
        rc = ldb_prepare(db,
                         "SELECT id FROM tournaments WHERE ladder_id = ?1"
                         " AND (?2 IS NULL OR seed = ?2) AND format = ?3 AND rounds = ?4"
                         " AND duplicate = ?5 AND n_participants = ?6"
                         " AND (?7 = 0 OR status = 'running') AND (?8 IS NULL OR seating = ?8)"
                         " AND deals IS ?9 ORDER BY id DESC",
                         &st, what);
    if (rc == JA_OK) {
        sqlite3_bind_int64(st, 1, ladder_id);
        ldb_bind_text(st, 2, (flags & LADDER_FIND_ANY_SEED) ? NULL : seed);
        ldb_bind_text(st, 3, ladder_format_name(spec->format));
        sqlite3_bind_int64(st, 4, spec->rounds);
        sqlite3_bind_int(st, 5, spec->duplicate || ladder_format_by_rounds(spec->format) ? 1 : 0);
        sqlite3_bind_int64(st, 6, spec->n_bots);
        sqlite3_bind_int(st, 7, (flags & LADDER_FIND_UNFINISHED) ? 1 : 0);
        ldb_bind_text(st, 8, (flags & LADDER_FIND_ANY_SEATING)
                                 ? NULL
                                 : ladder_seating_name(spec->seating));
        char hex[65];
        ldb_bind_text(st, 9, deals_hash(spec, hex));
        rc = JA_ENOTFOUND;
        int src;
        while ((src = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t tid = sqlite3_column_int64(st, 0);
            bool same;
            int r2 = same_participants(db, tid, spec, bot_ids, &same);
            if (r2 != JA_OK) {
                rc = r2;
                break;
            }
            if (same) {
                *out_id = tid;
                rc = JA_OK;
                break;
            }
        }
        if (src != SQLITE_ROW && src != SQLITE_DONE)
            rc = ldb_sql_fail(db, src, what);
    }
    ldb_finish(db, st);
    free(bot_ids);
    if (rc == JA_ENOTFOUND)
        ldb_set_msg(db, "no %stournament of %s with %s and these participants in database '%s'",
                    (flags & LADDER_FIND_UNFINISHED) ? "unfinished " : "", spec->ladder.game,
                    (flags & LADDER_FIND_ANY_SEED) ? "any seed" : "this seed", db->path);
    return rc;
}

int ladder_db_tournament_get(ladder_db *db, int64_t id, ladder_tournament_info *out)
{
    static const char what[] = "reading a tournament";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL)
        return JA_EINVAL;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT t.ladder_id, t.seed, t.format, t.rounds, t.duplicate, l.n_seats,"
                     " t.n_participants, t.n_matches,"
                     " (SELECT count(*) FROM matches m WHERE m.tournament_id = t.id"
                     "  AND m.status = 'done'), t.seating, t.deals,"
                     " (SELECT count(*) FROM matches m WHERE m.tournament_id = t.id)"
                     " FROM tournaments t JOIN ladders l ON l.id = t.ladder_id WHERE t.id = ?1",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    int src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        memset(out, 0, sizeof *out);
        out->id = id;
        out->ladder_id = sqlite3_column_int64(st, 0);
        const char *seed = (const char *)sqlite3_column_text(st, 1);
        char format[32], seating[32];
        ldb_column_copy(st, 2, format, sizeof format);
        ldb_column_copy(st, 9, seating, sizeof seating);
        /* An import has no seed and no plan format (schema version 2). */
        out->imported = strcmp(format, "import") == 0;
        if (ladder_seating_parse(seating, &out->seating) != JA_OK ||
            (out->imported ? seed != NULL
                           : (ladder_seed_parse(seed, &out->seed) != JA_OK ||
                              ladder_format_parse(format, &out->format) != JA_OK))) {
            ldb_set_msg(db, "database '%s': tournament %" PRId64
                        " has a malformed seed, format or seating", db->path, id);
            rc = JA_EFORMAT;
        } else {
            out->rounds = (uint32_t)sqlite3_column_int64(st, 3);
            out->duplicate = sqlite3_column_int(st, 4) != 0;
            out->n_seats = (uint32_t)sqlite3_column_int64(st, 5);
            out->n_participants = (uint32_t)sqlite3_column_int64(st, 6);
            out->n_matches = (uint32_t)sqlite3_column_int64(st, 7);
            out->n_done = (uint32_t)sqlite3_column_int64(st, 8);
            out->done = out->n_done == out->n_matches;
            ldb_column_copy(st, 10, out->deals, sizeof out->deals);
            out->n_stored = (uint32_t)sqlite3_column_int64(st, 11);
        }
    } else if (src == SQLITE_DONE) {
        ldb_set_msg(db, "no tournament %" PRId64 " in database '%s'", id, db->path);
        rc = JA_ENOTFOUND;
    } else {
        rc = ldb_sql_fail(db, src, what);
    }
    ldb_finish(db, st);
    return rc;
}

int ladder_db_match_get(ladder_db *db, int64_t tournament_id, uint32_t number,
                        ladder_plan_match *out)
{
    static const char what[] = "reading a planned match";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (out == NULL)
        return JA_EINVAL;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT m.round, m.combo, m.rotation, m.seed, s.seat, s.slot"
                     " FROM matches m JOIN match_seats s ON s.match_id = m.id"
                     " WHERE m.tournament_id = ?1 AND m.number = ?2 ORDER BY s.seat",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, tournament_id);
    sqlite3_bind_int64(st, 2, number);
    ladder_plan_match m;
    memset(&m, 0, sizeof m);
    m.number = number;
    int src = SQLITE_DONE;
    while (rc == JA_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t seat = sqlite3_column_int64(st, 4);
        if (m.n_seats == 0) {
            m.round = (uint32_t)sqlite3_column_int64(st, 0);
            m.combo = (uint32_t)sqlite3_column_int64(st, 1);
            m.rotation = (uint32_t)sqlite3_column_int64(st, 2);
            if (ladder_seed_parse((const char *)sqlite3_column_text(st, 3), &m.seed) != JA_OK)
                rc = JA_EFORMAT;
        }
        if (seat != m.n_seats || m.n_seats >= JA_MAX_SEATS)
            rc = JA_EFORMAT;
        else
            m.slot[m.n_seats++] = (uint16_t)sqlite3_column_int64(st, 5);
    }
    if (rc == JA_EFORMAT)
        ldb_set_msg(db, "database '%s': match %u of tournament %" PRId64 " is malformed", db->path,
                    number, tournament_id);
    else if (src != SQLITE_DONE)
        rc = ldb_sql_fail(db, src, what);
    else if (m.n_seats == 0) {
        ldb_set_msg(db, "no match %u of tournament %" PRId64 " in database '%s'", number,
                    tournament_id, db->path);
        rc = JA_ENOTFOUND;
    }
    ldb_finish(db, st);
    if (rc == JA_OK)
        *out = m;
    return rc;
}

int ladder_db_match_get_many(ladder_db *db, int64_t tournament_id, const uint32_t *numbers,
                             uint32_t n, ladder_plan_match *out, uint32_t *got)
{
    static const char what[] = "reading planned matches";
    uint32_t i = 0;
    int rc = ldb_enter(db);
    if (rc == JA_OK && n > 0 && (numbers == NULL || out == NULL))
        rc = JA_EINVAL;
    /* One transaction when there is more than one to read, and none of the
     * caller's is open (the statements would then be inside that one). */
    bool own = rc == JA_OK && n > 1 && sqlite3_get_autocommit(db->sql);
    if (own)
        rc = ldb_exec(db, "BEGIN", what);
    for (; rc == JA_OK && i < n; i++)
        if ((rc = ladder_db_match_get(db, tournament_id, numbers[i], &out[i])) != JA_OK)
            break;
    if (own && rc == JA_OK)
        rc = ldb_commit(db, what);
    else if (own)
        ldb_rollback(db); /* a read: nothing to undo, the message stays */
    if (got)
        *got = i;
    return rc;
}

int ldb_enter_rows(ladder_db *db, bool out_ok, uint32_t *out_n, const int64_t *tid,
                   const ladder_key *key)
{
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (!out_ok || out_n == NULL)
        return JA_EINVAL;
    *out_n = 0;
    if (tid != NULL)
        return ldb_tournament_exists(db, *tid);
    return key != NULL ? ldb_check_key(db, key) : JA_OK;
}

int ldb_tournament_exists(ladder_db *db, int64_t tid)
{
    sqlite3_stmt *st;
    int rc =
        ldb_prepare(db, "SELECT 1 FROM tournaments WHERE id = ?1", &st, "reading a tournament");
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, tid);
    int64_t one;
    rc = ldb_step_int(db, st, &one, "reading a tournament");
    if (rc == JA_ENOTFOUND)
        ldb_set_msg(db, "no tournament %" PRId64 " in database '%s'", tid, db->path);
    return rc;
}

static void read_pending(sqlite3_stmt *st, void *row)
{
    *(uint32_t *)row = (uint32_t)sqlite3_column_int64(st, 0);
}

int ladder_db_pending(ladder_db *db, int64_t tournament_id, uint32_t **out, uint32_t *out_n)
{
    static const char what[] = "listing pending matches";
    if (out != NULL)
        *out = NULL;
    int rc = ldb_enter_rows(db, out != NULL, out_n, &tournament_id, NULL);
    if (rc != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT number FROM matches WHERE tournament_id = ?1 AND status = 'planned'"
                     " ORDER BY number",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, tournament_id);
    void *rows;
    if ((rc = ldb_collect_rows(db, st, what, sizeof **out, read_pending, &rows, out_n)) == JA_OK)
        *out = rows;
    return rc;
}

/* ---- Rounds (swiss, knockout) ------------------------------------------------ */

/* The tournament's stored and planned counts, inside the caller's
 * transaction. */
static int stored_counts(ladder_db *db, int64_t tid, int64_t *stored, int64_t *total)
{
    sqlite3_stmt *st;
    int rc = ldb_prepare(db,
                         "SELECT (SELECT count(*) FROM matches WHERE tournament_id = ?1),"
                         " n_matches FROM tournaments WHERE id = ?1",
                         &st, "reading a tournament's size");
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, tid);
    int src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        *stored = sqlite3_column_int64(st, 0);
        *total = sqlite3_column_int64(st, 1);
    } else if (src == SQLITE_DONE) {
        ldb_set_msg(db, "no tournament %" PRId64 " in database '%s'", tid, db->path);
        rc = JA_ENOTFOUND;
    } else {
        rc = ldb_sql_fail(db, src, "reading a tournament's size");
    }
    ldb_finish(db, st);
    return rc;
}

int ladder_db_plan_round(ladder_db *db, int64_t tournament_id, const ladder_plan_match *plan,
                         uint32_t n)
{
    static const char what[] = "storing the next round";
    int rc = ldb_enter(db);
    if (rc != JA_OK)
        return rc;
    if (plan == NULL || n == 0)
        return JA_EINVAL;
    if ((rc = ldb_begin_write(db, what)) != JA_OK)
        return rc;
    int64_t stored = 0, total = 0;
    rc = stored_counts(db, tournament_id, &stored, &total);
    if (rc == JA_OK && (plan[0].number != stored || stored + n > total)) {
        ldb_set_msg(db, "tournament %" PRId64 " in database '%s': the round from match %u is "
                    "planned already", tournament_id, db->path, plan[0].number);
        rc = JA_ESTATE;
    }
    if (rc == JA_OK)
        rc = store_plan(db, tournament_id, plan, n);
    if (rc == JA_OK)
        return ldb_commit(db, what);
    ldb_rollback(db);
    return rc;
}

/* Adds the current row (one seat of a match) to the array being built. */
static void played_row(sqlite3_stmt *st, ladder_played **a, uint32_t *n, uint32_t *cap)
{
    uint32_t number = (uint32_t)sqlite3_column_int64(st, 0);
    if (*n == 0 || (*a)[*n - 1].number != number) {
        if (*n == *cap)
            *a = ja_xrealloc(*a, (*cap = *cap ? 2 * *cap : 64) * sizeof **a);
        ladder_played *m = &(*a)[(*n)++];
        memset(m, 0, sizeof *m);
        m->number = number;
        m->round = (uint32_t)sqlite3_column_int64(st, 1);
        m->combo = (uint32_t)sqlite3_column_int64(st, 2);
        const unsigned char *status = sqlite3_column_text(st, 3);
        m->done = status && strcmp((const char *)status, "done") == 0;
    }
    ladder_played *m = &(*a)[*n - 1];
    uint32_t seat = (uint32_t)sqlite3_column_int64(st, 4);
    if (seat != m->n_seats || seat >= JA_MAX_SEATS)
        return;
    m->slot[seat] = (uint16_t)sqlite3_column_int64(st, 5);
    m->score[seat] = sqlite3_column_int64(st, 6);
    m->place[seat] = (uint8_t)sqlite3_column_int64(st, 7);
    m->n_seats++;
}

int ladder_db_played(ladder_db *db, int64_t tournament_id, ladder_played **out, uint32_t *out_n)
{
    static const char what[] = "reading a tournament's matches";
    if (out != NULL)
        *out = NULL;
    int rc = ldb_enter_rows(db, out != NULL, out_n, &tournament_id, NULL);
    if (rc != JA_OK)
        return rc;
    sqlite3_stmt *st;
    rc = ldb_prepare(db,
                     "SELECT m.number, m.round, m.combo, m.status, s.seat, s.slot,"
                     " IFNULL(r.score, 0), IFNULL(r.place, 0)"
                     " FROM matches m JOIN match_seats s ON s.match_id = m.id"
                     " LEFT JOIN results r ON r.match_id = m.id AND r.seat = s.seat"
                     " WHERE m.tournament_id = ?1 ORDER BY m.number, s.seat",
                     &st, what);
    if (rc != JA_OK)
        return rc;
    sqlite3_bind_int64(st, 1, tournament_id);
    ladder_played *a = NULL;
    uint32_t n = 0, cap = 0;
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW)
        played_row(st, &a, &n, &cap);
    if (src != SQLITE_DONE) {
        rc = ldb_sql_fail(db, src, what);
        free(a);
        a = NULL;
        n = 0;
    }
    ldb_finish(db, st);
    *out = a;
    *out_n = n;
    return rc;
}
