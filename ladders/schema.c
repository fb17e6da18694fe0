/* The ladder database schema, as numbered migrations (ladder_db_int.h).
 *
 * docs/database.md documents every table and column; keep the two in step.
 * Policy: migrations are append-only. To change the schema, add migration
 * N+1 (ALTER TABLE, or create-copy-drop-rename for what ALTER cannot do),
 * bump LADDER_DB_SCHEMA_VERSION, and add a test that opens a database of
 * version N. Never edit a migration that has been released. */
#include "ladder_db.h"
#include "ladder_db_int.h"

/* Conventions in the SQL below: seeds are canonical decimal TEXT (they
 * exceed 2^63); timestamps are ISO 8601 UTC TEXT ("2025-01-31T12:00:00Z");
 * scores are INTEGER in units of 1/27720 (JA_SCORE_UNIT); hex digests are
 * lowercase TEXT. */
static const char schema_v1[] =
    "PRAGMA application_id = 1245794894;\n" /* 0x4A41524E, "JARN" */

    /* Bots: identity (name, version, sha256). SQLite treats NULLs as
     * distinct in UNIQUE constraints, so the identity index is on
     * IFNULL(sha256, ''); the CHECK keeps '' out of the column itself. */
    "CREATE TABLE bots (\n"
    "  id         INTEGER PRIMARY KEY,\n"
    "  name       TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 127),\n"
    "  version    TEXT NOT NULL DEFAULT '' CHECK (length(version) <= 63),\n"
    "  kind       TEXT NOT NULL CHECK (length(kind) > 0),\n"
    "  spec       TEXT NOT NULL DEFAULT '',\n"
    "  sha256     TEXT CHECK (sha256 IS NULL OR\n"
    "                         (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*')),\n"
    "  created_at TEXT NOT NULL\n"
    ");\n"
    "CREATE UNIQUE INDEX bots_identity ON bots (name, version, IFNULL(sha256, ''));\n"

    /* Ladders: one per (game, seat count, canonical options). */
    "CREATE TABLE ladders (\n"
    "  id      INTEGER PRIMARY KEY,\n"
    "  game    TEXT NOT NULL CHECK (length(game) BETWEEN 1 AND 127),\n"
    "  n_seats INTEGER NOT NULL CHECK (n_seats BETWEEN 2 AND 12),\n"
    "  options TEXT NOT NULL CHECK (length(options) <= 511),\n"
    "  UNIQUE (game, n_seats, options)\n"
    ");\n"

    "CREATE TABLE tournaments (\n"
    "  id             INTEGER PRIMARY KEY,\n"
    "  ladder_id      INTEGER NOT NULL REFERENCES ladders (id),\n"
    "  seed           TEXT NOT NULL CHECK (length(seed) BETWEEN 1 AND 20\n"
    "                                      AND seed NOT GLOB '*[^0-9]*'),\n"
    "  format         TEXT NOT NULL CHECK (format IN ('round-robin', 'gauntlet')),\n"
    "  rounds         INTEGER NOT NULL CHECK (rounds >= 1),\n"
    "  duplicate      INTEGER NOT NULL CHECK (duplicate IN (0, 1)),\n"
    "  n_participants INTEGER NOT NULL CHECK (n_participants >= 2),\n"
    "  n_matches      INTEGER NOT NULL CHECK (n_matches >= 1),\n"
    "  status         TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done')),\n"
    "  created_at     TEXT NOT NULL,\n"
    "  finished_at    TEXT\n"
    ");\n"
    "CREATE INDEX tournaments_lookup ON tournaments (ladder_id, seed);\n"

    "CREATE TABLE participants (\n"
    "  tournament_id INTEGER NOT NULL REFERENCES tournaments (id),\n"
    "  slot          INTEGER NOT NULL CHECK (slot >= 0),\n"
    "  bot_id        INTEGER NOT NULL REFERENCES bots (id),\n"
    "  name          TEXT NOT NULL,\n"
    "  PRIMARY KEY (tournament_id, slot),\n"
    "  UNIQUE (tournament_id, name)\n"
    ") WITHOUT ROWID;\n"

    /* The plan: one row per match, stored before play. */
    "CREATE TABLE matches (\n"
    "  id            INTEGER PRIMARY KEY,\n"
    "  tournament_id INTEGER NOT NULL REFERENCES tournaments (id),\n"
    "  number        INTEGER NOT NULL CHECK (number >= 0),\n"
    "  round         INTEGER NOT NULL CHECK (round >= 0),\n"
    "  combo         INTEGER NOT NULL CHECK (combo >= 0),\n"
    "  rotation      INTEGER NOT NULL CHECK (rotation >= 0),\n"
    "  seed          TEXT NOT NULL CHECK (length(seed) BETWEEN 1 AND 20\n"
    "                                     AND seed NOT GLOB '*[^0-9]*'),\n"
    "  status        TEXT NOT NULL DEFAULT 'planned' CHECK (status IN ('planned', 'done')),\n"
    "  turns         INTEGER,\n"
    "  digest        TEXT,\n"
    "  replay        TEXT,\n"
    "  finished_at   TEXT,\n"
    "  UNIQUE (tournament_id, number)\n"
    ");\n"
    "CREATE INDEX matches_pending ON matches (tournament_id, number) WHERE status = 'planned';\n"

    "CREATE TABLE match_seats (\n"
    "  match_id INTEGER NOT NULL REFERENCES matches (id),\n"
    "  seat     INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 11),\n"
    "  slot     INTEGER NOT NULL CHECK (slot >= 0),\n"
    "  PRIMARY KEY (match_id, seat)\n"
    ") WITHOUT ROWID;\n"

    /* Facts: one row per seat of a finished match. */
    "CREATE TABLE results (\n"
    "  match_id   INTEGER NOT NULL REFERENCES matches (id),\n"
    "  seat       INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 11),\n"
    "  bot_id     INTEGER NOT NULL REFERENCES bots (id),\n"
    "  score      INTEGER NOT NULL,\n"
    "  place      INTEGER NOT NULL CHECK (place BETWEEN 1 AND 12),\n"
    "  faults     INTEGER NOT NULL DEFAULT 0 CHECK (faults >= 0),\n"
    "  elo_before REAL NOT NULL,\n"
    "  elo_delta  REAL NOT NULL,\n"
    "  PRIMARY KEY (match_id, seat)\n"
    ") WITHOUT ROWID;\n"
    "CREATE INDEX results_bot ON results (bot_id);\n"

    "CREATE TABLE result_faults (\n"
    "  match_id INTEGER NOT NULL,\n"
    "  seat     INTEGER NOT NULL,\n"
    "  kind     TEXT NOT NULL,\n"
    "  count    INTEGER NOT NULL CHECK (count > 0),\n"
    "  PRIMARY KEY (match_id, seat, kind),\n"
    "  FOREIGN KEY (match_id, seat) REFERENCES results (match_id, seat)\n"
    ") WITHOUT ROWID;\n"

    /* Live Elo per (ladder, bot). Derived data: it can be recomputed from
     * results.elo_before/elo_delta, or from scratch by replaying results in
     * match order. */
    "CREATE TABLE ratings (\n"
    "  ladder_id  INTEGER NOT NULL REFERENCES ladders (id),\n"
    "  bot_id     INTEGER NOT NULL REFERENCES bots (id),\n"
    "  games      INTEGER NOT NULL DEFAULT 0 CHECK (games >= 0),\n"
    "  elo        REAL NOT NULL,\n"
    "  wins       INTEGER NOT NULL DEFAULT 0,\n"
    "  draws      INTEGER NOT NULL DEFAULT 0,\n"
    "  losses     INTEGER NOT NULL DEFAULT 0,\n"
    "  updated_at TEXT NOT NULL,\n"
    "  PRIMARY KEY (ladder_id, bot_id)\n"
    ") WITHOUT ROWID;\n";

/* Version 2: imported results (`arena ladder import`).
 *
 * An imported file becomes one row of `imports` and, per ladder it feeds
 * (and per source tournament named in the file), one tournament of format
 * 'import' whose matches are the file's, already done. Imported matches
 * need no seed (a PGN game has none), and an import has no tournament
 * seed, so `tournaments` and `matches` are rebuilt with the new CHECKs and a
 * nullable seed (SQLite cannot alter a CHECK or NOT NULL in place). The
 * rebuild follows SQLite's "making other kinds of table schema changes"
 * procedure (sqlite.org/lang_altertable.html, section 7): the migration
 * runs with foreign keys off, creates each new table, copies the rows,
 * drops the old table, renames the new one, recreates its indexes, and
 * PRAGMA foreign_key_check runs before the commit (ladder_db.c). Columns
 * keep their names, order and meaning; only constraints change.
 *
 * matches_deal indexes (tournament_id, seed): matches of one tournament
 * with the same seed were dealt the same cards (a duplicate set), which is
 * what the Bradley-Terry fit clusters on. */
static const char schema_v2[] =
    "CREATE TABLE imports (\n"
    "  id         INTEGER PRIMARY KEY,\n"
    "  file       TEXT NOT NULL,\n"
    "  format     TEXT NOT NULL CHECK (format IN ('pgn', 'jsonl')),\n"
    "  sha256     TEXT NOT NULL UNIQUE CHECK (length(sha256) = 64\n"
    "                                          AND sha256 NOT GLOB '*[^0-9a-f]*'),\n"
    "  matches    INTEGER NOT NULL CHECK (matches >= 1),\n"
    "  skipped    INTEGER NOT NULL DEFAULT 0 CHECK (skipped >= 0),\n"
    "  created_at TEXT NOT NULL\n"
    ");\n"

    "CREATE TABLE tournaments_v2 (\n"
    "  id             INTEGER PRIMARY KEY,\n"
    "  ladder_id      INTEGER NOT NULL REFERENCES ladders (id),\n"
    "  seed           TEXT CHECK (seed IS NULL OR (length(seed) BETWEEN 1 AND 20\n"
    "                                              AND seed NOT GLOB '*[^0-9]*')),\n"
    "  format         TEXT NOT NULL CHECK (format IN ('round-robin', 'gauntlet', 'import')),\n"
    "  rounds         INTEGER NOT NULL CHECK (rounds >= 1),\n"
    "  duplicate      INTEGER NOT NULL CHECK (duplicate IN (0, 1)),\n"
    "  n_participants INTEGER NOT NULL CHECK (n_participants >= 2),\n"
    "  n_matches      INTEGER NOT NULL CHECK (n_matches >= 1),\n"
    "  status         TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done')),\n"
    "  created_at     TEXT NOT NULL,\n"
    "  finished_at    TEXT,\n"
    "  import_id      INTEGER REFERENCES imports (id),\n"
    "  CHECK ((format = 'import') = (import_id IS NOT NULL)),\n"
    "  CHECK ((format = 'import') = (seed IS NULL))\n"
    ");\n"
    "INSERT INTO tournaments_v2 (id, ladder_id, seed, format, rounds, duplicate,\n"
    "                            n_participants, n_matches, status, created_at, finished_at)\n"
    "  SELECT id, ladder_id, seed, format, rounds, duplicate, n_participants, n_matches,\n"
    "         status, created_at, finished_at FROM tournaments;\n"
    "DROP TABLE tournaments;\n"
    "ALTER TABLE tournaments_v2 RENAME TO tournaments;\n"
    "CREATE INDEX tournaments_lookup ON tournaments (ladder_id, seed);\n"

    "CREATE TABLE matches_v2 (\n"
    "  id            INTEGER PRIMARY KEY,\n"
    "  tournament_id INTEGER NOT NULL REFERENCES tournaments (id),\n"
    "  number        INTEGER NOT NULL CHECK (number >= 0),\n"
    "  round         INTEGER NOT NULL CHECK (round >= 0),\n"
    "  combo         INTEGER NOT NULL CHECK (combo >= 0),\n"
    "  rotation      INTEGER NOT NULL CHECK (rotation >= 0),\n"
    "  seed          TEXT CHECK (seed IS NULL OR (length(seed) BETWEEN 1 AND 20\n"
    "                                             AND seed NOT GLOB '*[^0-9]*')),\n"
    "  status        TEXT NOT NULL DEFAULT 'planned' CHECK (status IN ('planned', 'done')),\n"
    "  turns         INTEGER,\n"
    "  digest        TEXT,\n"
    "  replay        TEXT,\n"
    "  finished_at   TEXT,\n"
    "  UNIQUE (tournament_id, number)\n"
    ");\n"
    "INSERT INTO matches_v2 (id, tournament_id, number, round, combo, rotation, seed, status,\n"
    "                        turns, digest, replay, finished_at)\n"
    "  SELECT id, tournament_id, number, round, combo, rotation, seed, status, turns, digest,\n"
    "         replay, finished_at FROM matches;\n"
    "DROP TABLE matches;\n"
    "ALTER TABLE matches_v2 RENAME TO matches;\n"
    "CREATE INDEX matches_pending ON matches (tournament_id, number) WHERE status = 'planned';\n"
    "CREATE INDEX matches_deal ON matches (tournament_id, seed);\n";

/* Version 3: seat counts up to JA_MAX_SEATS (20, Bombs at four tables).
 *
 * Versions 1 and 2 bounded seat counts by 12 (n_seats 2..12, seats 0..11,
 * places 1..12), so no match of 13 to 20 seats could be recorded. The three
 * tables whose CHECKs name a seat count are rebuilt with the bounds of
 * JA_MAX_SEATS, by the same procedure as version 2; columns, rows, ids and
 * the meaning of every column stay. A larger JA_MAX_SEATS needs a new
 * migration (the _Static_assert below). */
static const char schema_v3[] =
    "CREATE TABLE ladders_v3 (\n"
    "  id      INTEGER PRIMARY KEY,\n"
    "  game    TEXT NOT NULL CHECK (length(game) BETWEEN 1 AND 127),\n"
    "  n_seats INTEGER NOT NULL CHECK (n_seats BETWEEN 2 AND 20),\n"
    "  options TEXT NOT NULL CHECK (length(options) <= 511),\n"
    "  UNIQUE (game, n_seats, options)\n"
    ");\n"
    "INSERT INTO ladders_v3 (id, game, n_seats, options)\n"
    "  SELECT id, game, n_seats, options FROM ladders;\n"
    "DROP TABLE ladders;\n"
    "ALTER TABLE ladders_v3 RENAME TO ladders;\n"

    "CREATE TABLE match_seats_v3 (\n"
    "  match_id INTEGER NOT NULL REFERENCES matches (id),\n"
    "  seat     INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 19),\n"
    "  slot     INTEGER NOT NULL CHECK (slot >= 0),\n"
    "  PRIMARY KEY (match_id, seat)\n"
    ") WITHOUT ROWID;\n"
    "INSERT INTO match_seats_v3 (match_id, seat, slot)\n"
    "  SELECT match_id, seat, slot FROM match_seats;\n"
    "DROP TABLE match_seats;\n"
    "ALTER TABLE match_seats_v3 RENAME TO match_seats;\n"

    "CREATE TABLE results_v3 (\n"
    "  match_id   INTEGER NOT NULL REFERENCES matches (id),\n"
    "  seat       INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 19),\n"
    "  bot_id     INTEGER NOT NULL REFERENCES bots (id),\n"
    "  score      INTEGER NOT NULL,\n"
    "  place      INTEGER NOT NULL CHECK (place BETWEEN 1 AND 20),\n"
    "  faults     INTEGER NOT NULL DEFAULT 0 CHECK (faults >= 0),\n"
    "  elo_before REAL NOT NULL,\n"
    "  elo_delta  REAL NOT NULL,\n"
    "  PRIMARY KEY (match_id, seat)\n"
    ") WITHOUT ROWID;\n"
    "INSERT INTO results_v3 (match_id, seat, bot_id, score, place, faults, elo_before,\n"
    "                        elo_delta)\n"
    "  SELECT match_id, seat, bot_id, score, place, faults, elo_before, elo_delta\n"
    "  FROM results;\n"
    "DROP TABLE results;\n"
    "ALTER TABLE results_v3 RENAME TO results;\n"
    "CREATE INDEX results_bot ON results (bot_id);\n";

_Static_assert(JA_MAX_SEATS == 20, "schema version 3 bounds seat counts by 20: a larger "
                                   "JA_MAX_SEATS needs a migration");

/* Version 4: the source tournament of an import.
 *
 * A JSON Lines file names the tournament each match came from ("tournament",
 * a number or a string); the matches of one ladder and one source become
 * one 'import' tournament. `source` keeps that name as the file gave it (an
 * INTEGER or a TEXT value: the column has no type affinity, so neither is
 * converted), so that exporting an imported tournament writes the same
 * "tournament" again whatever id it got here. NULL for played tournaments
 * and for imports that named none. ALTER TABLE ADD COLUMN: no rebuild, the
 * existing rows read NULL. */
static const char schema_v4[] =
    "ALTER TABLE tournaments ADD COLUMN source\n"
    "  CHECK (source IS NULL OR (format = 'import' AND typeof(source) IN ('integer', 'text')\n"
    "                            AND length(source) BETWEEN 1 AND 63));\n";

/* Version 5: the live Elo's step of each result.
 *
 * `games_before` is the bot's finished matches in the ladder before this
 * one: the count its live Elo update took (its K, elo.h), and the place of
 * the result in the bot's rating sequence. Matches played at once end, and
 * are rated, in any order, so the match ids do not give that sequence; a
 * bot's results by games_before do (each one's elo_before is the previous
 * one's elo_before plus its elo_delta). ALTER TABLE ADD COLUMN, then the
 * rows already there numbered per ladder and bot in match id order (their
 * tournament, then plan order: the order they were rated in when they were
 * not played at once; version 4 kept nothing better), a bot holding
 * several seats of a match giving each the same number. */
static const char schema_v5[] =
    "ALTER TABLE results ADD COLUMN games_before INTEGER\n"
    "  CHECK (games_before IS NULL OR games_before >= 0);\n"
    "CREATE TEMP TABLE v5_steps AS\n"
    "  SELECT r.match_id, r.bot_id,\n"
    "         dense_rank() OVER (PARTITION BY t.ladder_id, r.bot_id ORDER BY r.match_id) - 1\n"
    "           AS n\n"
    "  FROM results r JOIN matches m ON m.id = r.match_id\n"
    "  JOIN tournaments t ON t.id = m.tournament_id;\n"
    "CREATE INDEX temp.v5_steps_key ON v5_steps (match_id, bot_id);\n"
    "UPDATE results SET games_before = (SELECT n FROM v5_steps s\n"
    "  WHERE s.match_id = results.match_id AND s.bot_id = results.bot_id);\n"
    "DROP TABLE temp.v5_steps;\n";

/* Version 6: the seating of a tournament's plan (docs/tournament-plan.md).
 *
 * `cyclic` plays each combination in the rotations of one seat order, as
 * every plan before this version did; `balanced` in the rotations of a
 * neighbour-balanced set of orders. The plan is stored, so a tournament
 * resumes with its own seating whatever the default; the column says which
 * it was. ALTER TABLE ADD COLUMN: the existing rows, planned before
 * balanced seating existed, read 'cyclic'. */
static const char schema_v6[] =
    "ALTER TABLE tournaments ADD COLUMN seating TEXT NOT NULL DEFAULT 'cyclic'\n"
    "  CHECK (seating IN ('cyclic', 'balanced'));\n";

/* Version 7: swiss and knockout tournaments, and curated deal sets
 * (docs/tournament-plan.md).
 *
 * `format` takes 'swiss' and 'knockout', whose plans are stored one round
 * at a time: n_matches is the whole tournament's count, and the matches of
 * a round are stored once the rounds before are played, so a tournament is
 * done when its n_matches matches are (not merely when none is planned).
 * `deals` is the SHA-256 (lowercase hex) of the curated deal set a
 * tournament was planned with (--deals FILE: the seeds' canonical decimal
 * text, one a line), NULL for deals derived from its seed; a run with
 * another set is another tournament. The CHECK on `format` cannot be
 * altered in place: the table is rebuilt as in version 2, every column and
 * row kept. */
static const char schema_v7[] =
    "CREATE TABLE tournaments_v7 (\n"
    "  id             INTEGER PRIMARY KEY,\n"
    "  ladder_id      INTEGER NOT NULL REFERENCES ladders (id),\n"
    "  seed           TEXT CHECK (seed IS NULL OR (length(seed) BETWEEN 1 AND 20\n"
    "                                              AND seed NOT GLOB '*[^0-9]*')),\n"
    "  format         TEXT NOT NULL CHECK (format IN ('round-robin', 'gauntlet', 'import',\n"
    "                                                 'swiss', 'knockout')),\n"
    "  rounds         INTEGER NOT NULL CHECK (rounds >= 1),\n"
    "  duplicate      INTEGER NOT NULL CHECK (duplicate IN (0, 1)),\n"
    "  n_participants INTEGER NOT NULL CHECK (n_participants >= 2),\n"
    "  n_matches      INTEGER NOT NULL CHECK (n_matches >= 1),\n"
    "  status         TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done')),\n"
    "  created_at     TEXT NOT NULL,\n"
    "  finished_at    TEXT,\n"
    "  import_id      INTEGER REFERENCES imports (id),\n"
    "  source CHECK (source IS NULL OR (format = 'import' AND typeof(source) IN ('integer', 'text')\n"
    "                                  AND length(source) BETWEEN 1 AND 63)),\n"
    "  seating TEXT NOT NULL DEFAULT 'cyclic' CHECK (seating IN ('cyclic', 'balanced')),\n"
    "  deals TEXT CHECK (deals IS NULL OR (length(deals) = 64 AND deals NOT GLOB '*[^0-9a-f]*')),\n"
    "  CHECK ((format = 'import') = (import_id IS NOT NULL)),\n"
    "  CHECK ((format = 'import') = (seed IS NULL))\n"
    ");\n"
    "INSERT INTO tournaments_v7 (id, ladder_id, seed, format, rounds, duplicate, n_participants,\n"
    "                            n_matches, status, created_at, finished_at, import_id, source,\n"
    "                            seating)\n"
    "  SELECT id, ladder_id, seed, format, rounds, duplicate, n_participants, n_matches,\n"
    "         status, created_at, finished_at, import_id, source, seating FROM tournaments;\n"
    "DROP TABLE tournaments;\n"
    "ALTER TABLE tournaments_v7 RENAME TO tournaments;\n"
    "CREATE INDEX tournaments_lookup ON tournaments (ladder_id, seed);\n";

const ladder__migration ladder__migrations[] = {
    {1, "create the initial schema", schema_v1},
    {2, "imported results (imports table, 'import' tournaments, matches without a seed)",
     schema_v2},
    {3, "seat counts up to 20 (ladders, match_seats, results rebuilt)", schema_v3},
    {4, "the source tournament of an import (tournaments.source)", schema_v4},
    {5, "the live Elo's step of each result (results.games_before)", schema_v5},
    {6, "the seating of a tournament's plan (tournaments.seating)", schema_v6},
    {7, "swiss and knockout tournaments, curated deal sets (tournaments rebuilt, .deals)",
     schema_v7},
};

const int ladder__n_migrations = (int)(sizeof ladder__migrations / sizeof ladder__migrations[0]);

/* The build fails if the version constant and the table disagree. */
_Static_assert(sizeof ladder__migrations / sizeof ladder__migrations[0] ==
                   LADDER_DB_SCHEMA_VERSION,
               "LADDER_DB_SCHEMA_VERSION must equal the number of migrations");
