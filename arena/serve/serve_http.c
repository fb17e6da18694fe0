/* `arena serve`'s HTTP side (serve_int.h): libmicrohttpd, one thread per
 * connection, the routes of serve_util.h, the pages and the event stream
 * (docs/server.md). */
#include "serve/serve_int.h"
#include "serve/serve_conn.h"
#include "serve/serve_live.h"
#include "serve/serve_live_http.h"
#include "serve/serve_ext.h"

#include "run/executor.h"
#include "run/ladder_run.h"
#include "names.h"
#include "core/util.h"
#include "view/chart.h"
#include "view/viewer.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Every page's policy: scripts, styles and connections from the server
 * itself only, no inline script or style (each page's are files under
 * /static/), no frames, no plugins, forms posted only here. */
#define SRV_CSP                                                                               \
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "              \
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; "       \
    "object-src 'none'"
/* Bodies other than uploads (POST /api/register) are small. */
#define SMALL_BODY 4096
/* libmicrohttpd's polling threads (epoll each). */
#define SRV_POLL_THREADS 2
/* Sockets beyond --max-clients + --max-streams: kept-alive connections
 * between requests, and ones whose headers have not arrived. */
#define SRV_IDLE_SOCKETS 64
/* The memory pool of a connection: its headers and its send buffer. */
#define SRV_CONN_MEMORY (16 * 1024)
/* The shortest time between two fits of GET /api/ladder's answer. */
#define LADDER_REFRESH_MS 1000
/* Recent matches on a bot's page. */
#define RECENT_MATCHES 20
/* Recent batches on a bot's page (with the reason of a failed one). */
#define RECENT_BATCHES 10
/* Matches on a page of /matches and /bots/NAME/matches (limit=N: 1 to 100). */
#define PAGE_MATCHES 50
/* The most matches a bot page's rating chart draws: the author's newest. */
#define RATING_CHART_MAX 5000

/* One request's state across the calls of the access handler. */
typedef struct req {
    arena_server *s;
    arena_route route;
    srv_live_route_kind live; /* a live route (serve_live.h), when route.kind is NONE */
    srv_conn *conn;           /* its admission (serve_conn.h); NULL when refused */
    srv_call call;            /* the answer, made inline or by a worker */
    bool queued;              /* handed to a worker (the connection suspended) */
    bool answered;            /* the worker has made call's answer */
    bool started;
    int fail;                 /* an HTTP status decided while the body arrived */
    const char *fail_msg;
    char *body;               /* the raw body, or the multipart `file` field */
    size_t len, cap, limit;
    struct MHD_PostProcessor *pp;
    bool file_seen;
    char params[ARENA_SERVE_PARAMS_MAX + 2]; /* the multipart `params` field */
    size_t params_len;
    int64_t author;
    char author_name[ARENA_SERVE_NAME_MAX + 1];
    char method[8], url[160]; /* for the live routes (serve_live_http.h) */
} req;

/* ---- responses ----------------------------------------------------------------- */

/* The headers of every answer: its type, no sniffing, the policy, and how
 * long it may be cached. */
static enum MHD_Result with_headers(srv_call *c, unsigned code, struct MHD_Response *r,
                                    const char *type, const char *cache)
{
    if (r == NULL)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Cache-Control", cache);
    MHD_add_response_header(r, "Content-Security-Policy", SRV_CSP);
    return srv_answer(c, code, r);
}

static enum MHD_Result send_bytes(srv_call *c, unsigned code, const char *type,
                                  char *data, size_t len)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
    if (r == NULL)
        free(data);
    return with_headers(c, code, r, type, "no-store");
}

static enum MHD_Result send_json(srv_call *c, unsigned code, json_t *v)
{
    char *text = v ? json_dumps(v, JSON_COMPACT) : NULL;
    json_decref(v);
    if (text == NULL)
        return MHD_NO;
    size_t n = strlen(text);
    char *t = ja_xrealloc(text, n + 2);
    t[n] = '\n';
    t[n + 1] = '\0';
    return send_bytes(c, code, "application/json", t, n + 1);
}

static enum MHD_Result send_error(srv_call *c, unsigned code, const char *msg)
{
    return send_json(c, code, json_pack("{ss}", "error", msg));
}

/* arena/serve/pages/ and arena/view/viewer/, made C strings at build time. */
extern const char serve_page_site_css[], serve_page_ladder_js[], serve_page_submit_js[],
    serve_page_live_js[], serve_page_live_match_js[], viewer_tpl_replay_js[],
    viewer_tpl_replay_css[];

/* GET of asset k of arena_serve_assets (in its order). */
static enum MHD_Result send_asset(srv_call *c, unsigned k)
{
    static const char *const text[] = {serve_page_site_css, serve_page_ladder_js,
                                       serve_page_submit_js, serve_page_live_js,
                                       serve_page_live_match_js, viewer_tpl_replay_js,
                                       viewer_tpl_replay_css};
    if (k >= sizeof text / sizeof *text || k >= arena_serve_n_assets)
        return send_error(c, 404, "no such page");
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text[k]), (void *)text[k],
                                                             MHD_RESPMEM_PERSISTENT);
    /* The same for the server's life: a browser may keep it a while. */
    return with_headers(c, 200, r, arena_serve_assets[k].type, "max-age=300");
}

/* ---- the pages ----------------------------------------------------------------- */

/* The page's head and navigation; the title escaped. */
static void page_begin(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>",
          f);
    arena_html(f, title);
    fputs("</title><link rel=\"stylesheet\" href=\"/static/site.css\"></head><body><nav>"
          "<a href=\"/\">Ladder</a><a href=\"/matches\">Matches</a><a href=\"/live\">Live</a>"
          "<a href=\"/submit\">Submit a bot</a><a href=\"/api/ladder\">JSON</a></nav><h1>",
          f);
    arena_html(f, title);
    fputs("</h1>\n", f);
}

static enum MHD_Result page_end(srv_call *c, FILE *f, char **buf, size_t *len)
{
    fputs("</body></html>\n", f);
    if (fclose(f) != 0) {
        free(*buf);
        return MHD_NO;
    }
    return send_bytes(c, 200, "text/html; charset=utf-8", *buf, *len);
}

static enum MHD_Result page_index(arena_server *s, srv_call *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return MHD_NO;
    char title[256];
    snprintf(title, sizeof title, "%s ladder", s->a->game->name);
    page_begin(f, title);
    fputs("<p>Options: ", f);
    arena_html(f, s->opts_text[0] ? s->opts_text : "none");
    fprintf(f, "; %u seats. Matches recorded: <span id=\"matches\">-</span>. Ratings: "
               "Bradley-Terry fit with 95%% intervals, updated live.</p>\n"
               "<table><thead><tr><th>#</th><th>bot</th><th>status</th><th>Elo</th>"
               "<th>95%%</th><th>games</th><th>faults</th></tr></thead>"
               "<tbody id=\"ladder\"></tbody></table>\n<h2>Waiting, rejected and suspended "
               "versions</h2><ul id=\"pending\"></ul><noscript>The table needs JavaScript; the "
               "data is at <a href=\"/api/ladder\">/api/ladder</a>.</noscript>\n"
               "<script src=\"/static/ladder.js\"></script>\n",
            s->a->seats);
    return page_end(c, f, &buf, &len);
}

static const char SUBMIT_HTML[] =
    "<h2>1. Register</h2><p>Name: 1 to 32 letters, digits, _ or -.</p>"
    "<form id=\"reg\"><input name=\"name\" id=\"name\" required> <button>Register</button></form>"
    "<pre id=\"regout\"></pre>"
    "<h2>2. Upload a plugin</h2><p>A bot plugin (.so) built against the Jack Arena SDK. It is "
    "validated (ELF check, sandboxed load, smoke matches against random with no fault) before "
    "it joins the ladder, where it replaces your earlier version.</p>"
    "<form id=\"up\"><p>Token: <input id=\"token\" size=\"70\" autocomplete=\"off\" "
    "required></p><p><input type=\"file\" id=\"file\" required></p>"
    "<p>Parameters (optional, KEY=VALUE items joined by ':'): <input id=\"params\" size=\"40\">"
    "</p><p><button>Upload</button></p></form>"
    "<pre id=\"upout\"></pre>\n"
    "<script src=\"/static/submit.js\"></script>\n";

static enum MHD_Result page_submit(arena_server *s, srv_call *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return MHD_NO;
    page_begin(f, "Submit a bot");
    fputs(SUBMIT_HTML, f);
    srv_ext_page(s, f);
    return page_end(c, f, &buf, &len);
}

/* ---- ladder reads -------------------------------------------------------------- */

static int open_data_file(const char *path, struct stat *sb);

static int open_ladder(arena_server *s, ladder_db **db)
{
    int rc = ladder_db_open(s->a->db_path, db);
    if (rc != JA_OK) {
        arena_error("%s", *db ? ladder_db_errmsg(*db) : ja_strerror(rc));
        ladder_db_close(db);
    }
    return rc;
}

/* The identities of the bots a page of matches names, each looked up once
 * (by its primary key: a page never reads the whole ladder). */
typedef struct bot_names {
    ladder_bot_row *row;
    uint32_t n, cap;
} bot_names;

static const ladder_bot_row *bot_name(ladder_db *db, bot_names *bn, int64_t id)
{
    for (uint32_t i = 0; i < bn->n; i++)
        if (bn->row[i].id == id)
            return &bn->row[i];
    if (bn->n == bn->cap) {
        uint32_t cap = bn->cap ? 2 * bn->cap : 16;
        bn->row = ja_xrealloc(bn->row, cap * sizeof *bn->row);
        bn->cap = cap;
    }
    if (ladder_db_bot_row(db, id, &bn->row[bn->n]) != JA_OK)
        return NULL;
    return &bn->row[bn->n++];
}

/* Whether a match of tournament tid may show its seed and replay: once its
 * batch has ended. A match seed gives the batch's seed (the plan derives
 * one from the other invertibly, ladders/plan.h), and so the deals of the
 * batch's other matches, which may still be played (docs/server.md,
 * "Deals"). *batch false for a tournament that is no batch of the server. */
static bool published(arena_server *s, int64_t tid, bool *batch)
{
    bool ended = false;
    *batch = arena_serve_db_batch_of(s->sdb, tid, &ended) == JA_OK;
    return *batch && ended;
}

/* A match's `replay` and `page` URLs into j (null without a replay file,
 * or before its batch has ended). */
static void add_links(arena_server *s, json_t *j, int64_t tournament, uint32_t number, bool pub)
{
    char path[4400];
    struct stat sb;
    arena_replay_name(path, sizeof path, s->replays_dir, tournament, number);
    int fd = pub ? open_data_file(path, &sb) : -1;
    char url[96];
    snprintf(url, sizeof url, "/matches/%" PRId64 "-%u", tournament, number);
    if (fd >= 0) {
        close(fd);
        char u[112];
        snprintf(u, sizeof u, "%s.replay", url);
        json_object_set_new(j, "replay", json_string(u));
        snprintf(u, sizeof u, "%s.html", url);
        json_object_set_new(j, "page", json_string(u));
    } else {
        json_object_set_new(j, "replay", json_null());
        json_object_set_new(j, "page", json_null());
    }
}

/* One finished match as the API shows it (docs/server.md). */
static json_t *match_json(arena_server *s, ladder_db *db, bot_names *bn,
                          const ladder_match_row *row)
{
    json_t *seats = json_array();
    for (uint32_t k = 0; k < row->n_seats; k++) {
        const ladder_bot_row *b = bot_name(db, bn, row->bot_id[k]);
        json_t *seat = json_pack(
            "{ss ss sf si sf sf}", "author", b ? b->name : "?", "version", b ? b->version : "?",
            "score", (double)row->score[k] / JA_SCORE_UNIT, "place", (int)row->place[k],
            "elo_before", row->elo_before[k], "elo_after", ladder_match_elo_after(row, k));
        json_object_set_new(seat, "games_before", row->games_before[k] >= 0
                                                      ? json_integer(row->games_before[k])
                                                      : json_null());
        json_array_append_new(seats, seat);
    }
    bool batch, pub = published(s, row->tournament_id, &batch);
    char id[48], seed[21];
    snprintf(id, sizeof id, "%" PRId64 "-%u", row->tournament_id, row->number);
    json_t *j = json_pack("{ss sI si sI ss ss so sb}", "id", id, "tournament",
                          (json_int_t)row->tournament_id, "number", (int)row->number, "turns",
                          (json_int_t)row->turns, "digest", row->digest, "finished",
                          row->finished, "seats", seats, "published", pub);
    json_object_set_new(j, "seed", pub && row->has_seed
                                       ? json_string(ladder_seed_format(row->seed, seed))
                                       : json_null());
    add_links(s, j, row->tournament_id, row->number, pub);
    return j;
}

/* Reads the query's `before` (a cursor: a match's row id) and `limit`
 * (1 to max, default def). False for anything else. */
static bool page_query(srv_call *c, uint32_t def, uint32_t max, int64_t *before, uint32_t *limit)
{
    const char *b = MHD_lookup_connection_value(c->conn, MHD_GET_ARGUMENT_KIND, "before");
    const char *l = MHD_lookup_connection_value(c->conn, MHD_GET_ARGUMENT_KIND, "limit");
    uint64_t v;
    *before = 0;
    *limit = def;
    if (b && (!arena_parse_u64(b, &v) || v == 0 || v > INT64_MAX))
        return false;
    if (b)
        *before = (int64_t)v;
    if (l && (!arena_parse_u64(l, &v) || v == 0 || v > max))
        return false;
    if (l)
        *limit = (uint32_t)v;
    return true;
}

/* A page of finished matches, newest first: of the author `name` (NULL:
 * every match), before the cursor; {"matches", "next"} with `next` the
 * URL of the next page (prefix + "?before=..."), or null at the oldest.
 * Through the ladder's indexes (ladder_db_match_page). NULL on failure. */
static json_t *matches_json(arena_server *s, const char *name, int64_t before, uint32_t limit,
                            const char *prefix)
{
    ladder_db *db = NULL;
    ladder_key key = {s->a->game->name, s->a->seats, s->opts_text};
    ladder_match_row *rows = NULL;
    uint32_t n = 0;
    bool more = false;
    if (open_ladder(s, &db) != JA_OK ||
        ladder_db_match_page(db, &key, name, before, limit, &rows, &n, &more) != JA_OK) {
        if (db)
            arena_error("%s", ladder_db_errmsg(db));
        ladder_db_close(&db);
        return NULL;
    }
    bot_names bn = {0};
    json_t *list = json_array();
    for (uint32_t i = 0; i < n; i++)
        json_array_append_new(list, match_json(s, db, &bn, &rows[i]));
    json_t *next = json_null();
    if (more && n) {
        char url[200];
        snprintf(url, sizeof url, "%s?before=%" PRId64 "&limit=%u", prefix,
                 rows[n - 1].match_id, limit);
        next = json_string(url);
    }
    free(rows);
    free(bn.row);
    ladder_db_close(&db);
    return json_pack("{so so}", "matches", list, "next", next);
}

/* GET /api/ladder: `arena ladder GAME --fit --json` of the ladder database
 * (standings.h), each row joined with the server's version, and every
 * version of the server. */
static json_t *ladder_json(arena_server *s)
{
    /* Read before the fit: "playing": false then means that the fit holds
     * every match of the last batch (read after, a batch ending meanwhile
     * would show as over with its last matches missing). */
    arena_serve_batch b;
    bool playing = arena_serve_db_batch_unfinished(s->sdb, &b) == JA_OK;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return NULL;
    arena_ladder_args la = {.what = ARENA_LADDER_SHOW, .db_path = s->a->db_path,
                            .game = s->a->game, .given = s->a->options,
                            .want_seats = s->a->seats, .fit = true, .json = true};
    arena_ladder l;
    char err[4400];
    int rc = arena_ladder_prepare(&l, &la, err, sizeof err);
    if (rc == JA_OK)
        rc = arena_ladder_run(&l, f, err, sizeof err);
    if (rc != JA_OK && err[0])
        arena_error("%s", err); /* the server logs it; the request fails */
    arena_ladder_close(&l);
    fclose(f);
    json_t *fit = rc == JA_OK ? json_loadb(buf, len, 0, NULL) : NULL;
    free(buf);
    json_t *versions = arena_serve_db_versions_json(s->sdb, 0);
    if (fit == NULL || versions == NULL) {
        json_decref(fit);
        json_decref(versions);
        return NULL;
    }
    /* Each rated row gets its author and its version's status and faults. */
    /* A copy: "fit" stays exactly what `arena ladder --fit --json` prints. */
    json_t *rows = json_deep_copy(json_object_get(fit, "ratings")), *row;
    size_t i, k;
    int64_t matches = 0;
    json_array_foreach(rows, i, row)
    {
        const char *bot = json_string_value(json_object_get(row, "bot"));
        const char *ver = json_string_value(json_object_get(row, "version"));
        json_t *v;
        json_array_foreach(versions, k, v)
        {
            char num[24];
            snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT,
                     json_integer_value(json_object_get(v, "version")));
            if (bot && ver && strcmp(bot, json_string_value(json_object_get(v, "author"))) == 0 &&
                strcmp(ver, num) == 0) {
                json_object_set_new(row, "author", json_string(bot));
                json_object_set(row, "version_status", json_object_get(v, "status"));
                json_object_set(row, "faults", json_object_get(v, "faults"));
                json_object_set(row, "version_id", json_object_get(v, "id"));
            }
        }
        if (!json_object_get(row, "author"))
            json_object_set_new(row, "author", json_string(bot ? bot : ""));
    }
    matches = json_integer_value(json_object_get(fit, "matches"));
    json_t *out = json_pack("{ss si ss so sI so}", "game", s->a->game->name, "seats",
                            (int)s->a->seats, "options", s->opts_text, "ratings",
                            rows ? rows : json_array(), "matches",
                            (json_int_t)matches, "versions",
                            versions);
    if (out) {
        json_object_set(out, "fit", fit);
        /* Whether a batch is being played (or resumed at the next start). */
        json_object_set_new(out, "playing", json_boolean(playing));
    }
    json_decref(fit);
    return out;
}

/* The answer of GET /api/ladder: the one made since the last event, or a
 * new one (every event may change it; nothing else does). */
static enum MHD_Result api_ladder(arena_server *s, srv_call *c)
{
    /* Made again after an event, but at most once a LADDER_REFRESH_MS: a
     * busy ladder sends several events a second, and a fit per event would
     * take a core; between, requests share the answer made last. */
    pthread_mutex_lock(&s->ladder_mu);
    pthread_mutex_lock(&s->mu);
    uint64_t seq = s->ev_seq;
    pthread_mutex_unlock(&s->mu);
    int64_t now = srv_now_ms();
    if (s->ladder_text == NULL ||
        (s->ladder_seq != seq && now - s->ladder_ms >= LADDER_REFRESH_MS)) {
        json_t *j = ladder_json(s);
        char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
        json_decref(j);
        if (text) {
            free(s->ladder_text);
            s->ladder_text = text;
            s->ladder_seq = seq;
            s->ladder_ms = now;
        }
    }
    size_t n = s->ladder_text ? strlen(s->ladder_text) : 0;
    char *out = n ? ja_xmalloc(n + 2) : NULL;
    if (out) {
        memcpy(out, s->ladder_text, n);
        memcpy(out + n, "\n", 2);
    }
    pthread_mutex_unlock(&s->ladder_mu);
    return out ? send_bytes(c, 200, "application/json", out, n + 1)
               : send_error(c, 500, "the ladder cannot be read");
}

static json_t *bot_json(arena_server *s, const char *name, int64_t author)
{
    json_t *v = arena_serve_db_versions_json(s->sdb, author);
    json_t *bs = arena_serve_db_batches_json(s->sdb, author, RECENT_BATCHES);
    char prefix[96];
    snprintf(prefix, sizeof prefix, "/api/bots/%s/matches", name);
    json_t *m = matches_json(s, name, 0, RECENT_MATCHES, prefix);
    if (v == NULL || bs == NULL || m == NULL) {
        json_decref(v);
        json_decref(bs);
        json_decref(m);
        return NULL;
    }
    json_t *j = json_pack("{ss so sO sO so}", "name", name, "versions", v, "matches",
                          json_object_get(m, "matches"), "more_matches", json_object_get(m, "next"),
                          "batches", bs);
    json_decref(m);
    return j;
}

/* A page's memory stream, for the page made from j; NULL (j released)
 * when out of memory. */
static FILE *page_open(json_t *j, char **buf, size_t *len)
{
    FILE *f = open_memstream(buf, len);
    if (f == NULL)
        json_decref(j);
    return f;
}

/* The rows of a table of matches (newest first), each linked to its page
 * once its batch has ended. */
static void matches_rows(FILE *f, json_t *list)
{
    fputs("<table><tr><th>match</th><th>finished</th><th>seats (score)</th></tr>\n", f);
    json_t *v;
    size_t i;
    json_array_foreach(list, i, v)
    {
        const char *mid = json_string_value(json_object_get(v, "id"));
        const char *page = json_string_value(json_object_get(v, "page"));
        fputs("<tr><td>", f);
        if (page) {
            fputs("<a href=\"", f);
            arena_html(f, page);
            fputs("\">", f);
        }
        arena_html(f, mid);
        fputs(page ? "</a>" : " (replay once its batch ends)", f);
        fputs("</td><td>", f);
        arena_html(f, json_string_value(json_object_get(v, "finished")));
        fputs("</td><td>", f);
        json_t *seat;
        size_t k;
        json_array_foreach(json_object_get(v, "seats"), k, seat)
        {
            fputs(k ? ", " : "", f);
            arena_html(f, json_string_value(json_object_get(seat, "author")));
            fputs("@", f);
            arena_html(f, json_string_value(json_object_get(seat, "version")));
            fprintf(f, " (%g)", json_real_value(json_object_get(seat, "score")));
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* The link to the next (older) page of matches, if any: the API's `next`
 * made a page's, with `&limit=` when limit is not 0 (a page size asked
 * for). */
static void older_link(FILE *f, json_t *next, const char *page_prefix, uint32_t limit)
{
    const char *url = json_string_value(next);
    const char *q = url ? strchr(url, '?') : NULL;
    if (q == NULL)
        return;
    /* The query is the server's own (digits): the page takes its cursor. */
    const char *b = strstr(q, "before=");
    int64_t before = b ? strtoll(b + 7, NULL, 10) : 0;
    fprintf(f, "<p><a class=\"older\" href=\"%s?before=%" PRId64, page_prefix, before);
    if (limit)
        fprintf(f, "&amp;limit=%u", limit);
    fputs("\">Older matches</a></p>\n", f);
}

/* GET /api/matches and /api/bots/NAME/matches (json), /matches and
 * /bots/NAME/matches (html): the matches, newest first, a page at a time. */
static enum MHD_Result matches(arena_server *s, srv_call *c, const char *name, bool html)
{
    int64_t before, id;
    uint32_t limit, def = html ? PAGE_MATCHES : 20;
    if (!page_query(c, def, 100, &before, &limit))
        return send_error(c, 400, "the query takes before=CURSOR (a positive number, from a "
                                  "page's next) and limit=N (1 to 100)");
    if (name) {
        int rc = arena_serve_db_author_find(s->sdb, name, &id);
        if (rc == JA_ENOTFOUND)
            return send_error(c, 404, "no such author");
        if (rc != JA_OK)
            return send_error(c, 500, "the server database cannot be read");
    }
    char api[96], page[96];
    snprintf(api, sizeof api, name ? "/api/bots/%s/matches" : "/api/matches", name);
    snprintf(page, sizeof page, name ? "/bots/%s/matches" : "/matches", name);
    json_t *j = matches_json(s, name, before, limit, api);
    if (j == NULL)
        return send_error(c, 500, "the ladder cannot be read");
    if (!html)
        return send_json(c, 200, j);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = page_open(j, &buf, &len);
    if (f == NULL)
        return MHD_NO;
    char title[96];
    snprintf(title, sizeof title, name ? "Matches of %s" : "Matches", name);
    page_begin(f, title);
    if (before && limit != def)
        fprintf(f, "<p><a class=\"newest\" href=\"%s?limit=%u\">Newest matches</a></p>\n",
                page, limit);
    else if (before)
        fprintf(f, "<p><a class=\"newest\" href=\"%s\">Newest matches</a></p>\n", page);
    matches_rows(f, json_object_get(j, "matches"));
    older_link(f, json_object_get(j, "next"), page, limit != def ? limit : 0);
    json_decref(j);
    return page_end(c, f, &buf, &len);
}

/* A version's validation report, readable (docs/server.md, "Validation"):
 * each step passed or failed, then each smoke match's seat and faults by
 * kind, and its reproduction bundle's URL (for the author, with a token). */
static void version_report(FILE *f, json_t *v)
{
    json_t *rep = json_object_get(v, "report"), *e;
    if (!json_is_object(rep))
        return;
    fprintf(f, "<h3>Version %" JSON_INTEGER_FORMAT "</h3><table class=\"checks\"><tr>"
               "<th>check</th><th>result</th></tr>\n",
            json_integer_value(json_object_get(v, "version")));
    size_t i;
    json_array_foreach(json_object_get(rep, "steps"), i, e)
    {
        const char *res = json_string_value(json_object_get(e, "result"));
        bool ok = res && !strcmp(res, "ok");
        fputs("<tr><td>", f);
        arena_html(f, json_string_value(json_object_get(e, "step")));
        fprintf(f, "</td><td class=\"%s\">%s</td></tr>\n", ok ? "pass" : "fail",
                ok ? "passed" : "failed");
    }
    json_array_foreach(json_object_get(rep, "smoke"), i, e)
    {
        json_int_t n = json_integer_value(json_object_get(e, "faults"));
        fprintf(f, "<tr><td>smoke match %zu (seat %" JSON_INTEGER_FORMAT ")</td>"
                   "<td class=\"%s\">",
                i, json_integer_value(json_object_get(e, "seat")), n ? "fail" : "pass");
        if (n == 0)
            fputs("no fault", f);
        const char *kind;
        json_t *k;
        json_object_foreach(json_object_get(e, "fault_kinds"), kind, k)
        {
            arena_html(f, kind);
            fprintf(f, ": %" JSON_INTEGER_FORMAT " ", json_integer_value(k));
        }
        const char *bundle = json_string_value(json_object_get(e, "bundle"));
        if (bundle) {
            fputs("(reproduction bundle, for the author: <code>", f);
            arena_html(f, bundle);
            fputs("</code>)", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* The bot page's table of versions. */
static void bot_versions(FILE *f, json_t *j)
{
    fputs("<h2>Versions</h2><table><tr><th>version</th><th>status</th><th>faults</th>"
          "<th>SHA-256</th><th>parameters</th><th>reason</th></tr>\n", f);
    json_t *v;
    size_t i;
    json_array_foreach(json_object_get(j, "versions"), i, v)
    {
        const char *status = json_string_value(json_object_get(v, "status"));
        fprintf(f, "<tr><td>%" JSON_INTEGER_FORMAT "</td><td class=\"",
                json_integer_value(json_object_get(v, "version")));
        arena_html(f, status);
        fputs("\">", f);
        arena_html(f, status);
        const char *sha = json_string_value(json_object_get(v, "sha256"));
        fprintf(f, "</td><td>%" JSON_INTEGER_FORMAT "</td><td><code title=\"",
                json_integer_value(json_object_get(v, "faults")));
        arena_html(f, sha);
        fprintf(f, "\">%.12s</code></td><td><code>", sha ? sha : "");
        arena_html(f, json_string_value(json_object_get(v, "params")));
        fputs("</code></td><td>", f);
        arena_html(f, json_string_value(json_object_get(v, "reason")));
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* The bot page's table of recent batches. */
static void bot_batches(FILE *f, json_t *j)
{
    fputs("<h2>Recent batches</h2><table><tr><th>batch</th><th>tournament</th>"
          "<th>state</th><th>reason</th></tr>\n", f);
    json_t *v;
    size_t i;
    json_array_foreach(json_object_get(j, "batches"), i, v)
    {
        const char *state = json_string_value(json_object_get(v, "state"));
        fprintf(f, "<tr><td>%" JSON_INTEGER_FORMAT "</td><td>%" JSON_INTEGER_FORMAT
                   "</td><td class=\"",
                json_integer_value(json_object_get(v, "id")),
                json_integer_value(json_object_get(v, "tournament")));
        arena_html(f, state);
        fputs("\">", f);
        arena_html(f, state);
        fputs("</td><td>", f);
        arena_html(f, json_string_value(json_object_get(v, "reason")));
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* The lines of the rating chart into *out: one per version (bot id), in
 * order of first appearance, each point a step (x its place among the
 * steps, from 1; y the Elo after it), named AUTHOR@VERSION. Returns how
 * many; free them with free_lines. */
static size_t chart_lines(ladder_db *db, const ladder_elo_step *steps, uint32_t n,
                          chart_line **out)
{
    bot_names bn = {0};
    chart_line *lines = NULL;
    size_t n_lines = 0, *which = ja_xmalloc((n ? n : 1) * sizeof *which);
    int64_t *ids = NULL;
    for (uint32_t i = 0; i < n; i++) {
        size_t l = 0;
        while (l < n_lines && ids[l] != steps[i].bot_id)
            l++;
        if (l == n_lines) {
            lines = ja_xrealloc(lines, (n_lines + 1) * sizeof *lines);
            ids = ja_xrealloc(ids, (n_lines + 1) * sizeof *ids);
            ids[l] = steps[i].bot_id;
            const ladder_bot_row *b = bot_name(db, &bn, ids[l]);
            char name[LADDER_NAME_MAX + LADDER_VERSION_MAX + 2];
            snprintf(name, sizeof name, "%s@%s", b ? b->name : "?", b ? b->version : "?");
            lines[l] = (chart_line){ja_xstrdup(name), (unsigned)l, NULL, NULL, 0};
            n_lines++;
        }
        which[i] = l;
        lines[l].n++;
    }
    for (size_t l = 0; l < n_lines; l++) {
        lines[l].x = ja_xmalloc(lines[l].n * sizeof(double));
        lines[l].y = ja_xmalloc(lines[l].n * sizeof(double));
        lines[l].n = 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        chart_line *c = &lines[which[i]];
        ((double *)c->x)[c->n] = (double)i + 1;
        ((double *)c->y)[c->n++] = steps[i].elo_after;
    }
    free(which);
    free(ids);
    free(bn.row);
    *out = lines;
    return n_lines;
}

static void free_lines(chart_line *lines, size_t n)
{
    for (size_t l = 0; l < n; l++) {
        free((void *)lines[l].name);
        free((void *)lines[l].x);
        free((void *)lines[l].y);
    }
    free(lines);
}

/* The bot page's rating history: the live Elo after each of the author's
 * rated matches (its newest RATING_CHART_MAX), in the order they were
 * rated, a line per version (ladder_db_elo_history). */
static void bot_chart(arena_server *s, FILE *f, const char *name)
{
    fputs("<h2>Rating history</h2>\n", f);
    ladder_db *db = NULL;
    ladder_key key = {s->a->game->name, s->a->seats, s->opts_text};
    ladder_elo_step *steps = NULL;
    uint32_t n = 0;
    if (open_ladder(s, &db) != JA_OK || ladder_db_elo_history(db, &key, name, &steps, &n) != JA_OK) {
        if (db)
            arena_error("%s", ladder_db_errmsg(db));
        fputs("<p class=\"fail\">The ratings cannot be read.</p>\n", f);
        ladder_db_close(&db);
        return;
    }
    uint32_t first = n > RATING_CHART_MAX ? n - RATING_CHART_MAX : 0;
    if (n == 0) {
        fputs("<p class=\"muted\">No rated match yet.</p>\n", f);
    } else {
        chart_line *lines;
        size_t n_lines = chart_lines(db, steps + first, n - first, &lines);
        chart_axes ax = {(double)(n - first), "matches, in the order they were rated",
                         "live Elo after each rated match", true, true};
        chart_elo_lines(f, lines, n_lines, &ax);
        fprintf(f, "<p class=\"muted\">The live Elo after each of %s%u rated matches, in the "
                   "order they were rated: a line per version, a point per match. Live Elo "
                   "depends on that order; the ladder page ranks by the fitted Elo.</p>\n",
                first ? "the newest " : "its ", n - first);
        free_lines(lines, n_lines);
    }
    free(steps);
    ladder_db_close(&db);
}

/* GET /api/bots/NAME (JSON) and /bots/NAME (html): one author. */
static enum MHD_Result bot(arena_server *s, srv_call *c, const char *name, bool html)
{
    int64_t id;
    int rc = arena_serve_db_author_find(s->sdb, name, &id);
    if (rc == JA_ENOTFOUND)
        return send_error(c, 404, "no such author");
    json_t *j = rc == JA_OK ? bot_json(s, name, id) : NULL;
    if (j == NULL)
        return send_error(c, 500, "the bot cannot be read");
    if (!html)
        return send_json(c, 200, j);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = page_open(j, &buf, &len);
    if (f == NULL)
        return MHD_NO;
    page_begin(f, name);
    bot_versions(f, j);
    bot_chart(s, f, name);
    bot_batches(f, j);
    fputs("<h2>Validation reports</h2>\n", f);
    json_t *v;
    size_t i;
    json_array_foreach(json_object_get(j, "versions"), i, v)
        version_report(f, v);
    char prefix[96];
    snprintf(prefix, sizeof prefix, "/bots/%s/matches", name);
    fprintf(f, "<h2>Recent matches</h2>\n<p><a href=\"%s\">All matches, a page at a time</a>"
               "</p>\n", prefix);
    matches_rows(f, json_object_get(j, "matches"));
    older_link(f, json_object_get(j, "more_matches"), prefix, 0);
    json_decref(j);
    return page_end(c, f, &buf, &len);
}

/* ---- matches ------------------------------------------------------------------- */

/* Opens a regular file under the data folder, built from numbers only. */
static int open_data_file(const char *path, struct stat *sb)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, sb) != 0 || !S_ISREG(sb->st_mode)) {
        close(fd);
        return -1;
    }
    return fd;
}

static enum MHD_Result send_file(srv_call *c, int fd, const struct stat *sb,
                                 const char *type)
{
    struct MHD_Response *r = MHD_create_response_from_fd((uint64_t)sb->st_size, fd);
    if (r == NULL) {
        close(fd);
        return MHD_NO;
    }
    return with_headers(c, 200, r, type, "no-store");
}

static enum MHD_Result api_match(arena_server *s, srv_call *c, const arena_route *rt)
{
    bool batch;
    published(s, rt->tournament, &batch);
    if (!batch)
        return send_error(c, 404, "no such match");
    ladder_db *db = NULL;
    ladder_key key = {s->a->game->name, s->a->seats, s->opts_text};
    ladder_match_row row;
    if (open_ladder(s, &db) != JA_OK)
        return send_error(c, 500, "the ladder cannot be read");
    int rc = ladder_db_match_row(db, &key, rt->tournament, rt->number, &row);
    json_t *j = NULL;
    if (rc == JA_OK) {
        bot_names bn = {0};
        j = match_json(s, db, &bn, &row);
        free(bn.row);
    }
    ladder_db_close(&db);
    if (rc == JA_ENOTFOUND)
        return send_error(c, 404, "no such match (not played yet)");
    return j ? send_json(c, 200, j) : send_error(c, 500, "the ladder cannot be read");
}

/* The public copy of a match's replay, pub: the replay without its bots'
 * logs (docs/server.md, "Bot logs"), made once into the pages folder
 * (whole or not at all) and kept. JA_OK, or JA_ENOTFOUND (no replay), or
 * another code with err. */
static int public_replay(arena_server *s, const arena_route *rt, char *pub, size_t pcap,
                         char *err, size_t cap)
{
    char replay[4400];
    struct stat sb;
    snprintf(pub, pcap, "%s/t%" PRId64 "-m%u.replay", s->pages_dir, rt->tournament, rt->number);
    int fd = open_data_file(pub, &sb);
    if (fd >= 0) {
        close(fd);
        return JA_OK;
    }
    arena_replay_name(replay, sizeof replay, s->replays_dir, rt->tournament, rt->number);
    if ((fd = open_data_file(replay, &sb)) < 0)
        return JA_ENOTFOUND;
    close(fd);
    return ref_replay_strip_logs(replay, pub, err, cap);
}

/* The replay page of match rt, made once from its public replay pub by
 * the replay viewer (viewer.h) into page: no log in it, and a form for an
 * author's token that fetches theirs. */
static int make_page(const arena_route *rt, const char *pub, const char *page, char *err,
                     size_t cap)
{
    ref_replay *r = NULL;
    viewer_model vm;
    int rc = viewer_open(pub, &r, &vm, err, cap);
    if (rc != JA_OK)
        return rc;
    char url[96];
    snprintf(url, sizeof url, "/api/matches/%" PRId64 "-%u/logs", rt->tournament, rt->number);
    vm.no_logs = true; /* the public replay has none: and so says the page */
    vm.logs_url = url;
    /* Shared: its script and style are /matches/replay.{js,css}, so that
     * the page needs no inline script (the policy allows none). */
    rc = viewer_html_replay(&vm, page, "/", true, err, cap);
    viewer_close(&r, &vm);
    return rc;
}

/* /matches/T-N.replay and .html, once the match's batch has ended: the
 * replay and its page as everyone may see them, without the bots' logs. */
static enum MHD_Result match_file(arena_server *s, srv_call *c,
                                  const arena_route *rt)
{
    bool batch;
    if (!published(s, rt->tournament, &batch))
        return send_error(c, 404, batch ? "this match's replay is public once its batch has "
                                          "ended (its deal would tell the deals of the batch's "
                                          "other matches)"
                                        : "no such match");
    char pub[4400], page[4400], err[6000]; /* err: a line naming a replay */
    struct stat sb;
    int rc = public_replay(s, rt, pub, sizeof pub, err, sizeof err);
    if (rc == JA_ENOTFOUND)
        return send_error(c, 404, "no replay of this match");
    if (rc != JA_OK) {
        arena_error("%s", err);
        return send_error(c, 500, "the replay cannot be read");
    }
    if (rt->kind == ARENA_ROUTE_MATCH_REPLAY) {
        int fd = open_data_file(pub, &sb);
        return fd < 0 ? send_error(c, 500, "the replay cannot be read")
                      : send_file(c, fd, &sb, "application/vnd.msgpack");
    }
    snprintf(page, sizeof page, "%s/t%" PRId64 "-m%u.html", s->pages_dir, rt->tournament,
             rt->number);
    int fd = open_data_file(page, &sb);
    if (fd < 0) {
        if ((rc = make_page(rt, pub, page, err, sizeof err)) != JA_OK) {
            arena_error("%s", err);
            return send_error(c, 500, "the replay page cannot be written");
        }
        if ((fd = open_data_file(page, &sb)) < 0)
            return send_error(c, 500, "the replay page cannot be read");
    }
    return send_file(c, fd, &sb, "text/html; charset=utf-8");
}

/* ---- server-sent events -------------------------------------------------------- */

typedef struct sse {
    srv_stream st;            /* first: the stream as serve_conn.h parks it */
    arena_server *s;
    uint64_t next;            /* the next event to send */
    arena_sse_out out;        /* text not yet fully sent */
} sse;

static bool sse_ready(srv_stream *st)
{
    sse *e = (sse *)st;
    pthread_mutex_lock(&e->s->mu);
    bool ready = e->next != e->s->ev_seq || e->s->closing;
    pthread_mutex_unlock(&e->s->mu);
    return ready;
}

static int sse_next(srv_stream *st, arena_sse_out *out)
{
    sse *e = (sse *)st;
    arena_server *s = e->s;
    pthread_mutex_lock(&s->mu);
    int rc = SRV_NEXT_NONE;
    if (s->closing) {
        rc = SRV_NEXT_END;
    } else if (e->next != s->ev_seq) {
        if (s->ev_seq - e->next > SRV_EVENT_RING) /* fell behind: skip ahead */
            e->next = s->ev_seq - SRV_EVENT_RING;
        arena_sse_set(out, e->next + 1, s->ev[e->next % SRV_EVENT_RING]);
        rc = SRV_NEXT_SET;
        e->next++;
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    sse *e = cls;
    return srv_stream_read(&e->st, &e->out, sse_next, buf, max);
}

static void sse_free(void *cls)
{
    sse *e = cls;
    srv_stream_remove(&e->st);
    free(e->out.pending);
    free(e);
}

static enum MHD_Result api_events(arena_server *s, srv_call *c)
{
    sse *e = ja_xcalloc(1, sizeof *e);
    e->s = s;
    e->st.c = c->conn;
    e->st.ready = sse_ready;
    pthread_mutex_lock(&s->mu);
    e->next = s->ev_seq;
    /* Last-Event-ID: the events after it that are still kept. */
    const char *last = MHD_lookup_connection_value(c->conn, MHD_HEADER_KIND, "Last-Event-ID");
    uint64_t id;
    if (last && arena_parse_u64(last, &id) && id <= s->ev_seq)
        e->next = s->ev_seq - id > SRV_EVENT_RING ? s->ev_seq - SRV_EVENT_RING : id;
    pthread_mutex_unlock(&s->mu);
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, SRV_STREAM_BLOCK,
                                                               sse_read, e, sse_free);
    if (r == NULL) {
        free(e);
        return MHD_NO;
    }
    srv_stream_add(s->conns, &e->st);
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    return srv_answer(c, 200, r);
}

/* ---- registration, uploads, retiring ------------------------------------------- */

static enum MHD_Result api_register(arena_server *s, srv_call *c, req *q)
{
    json_error_t je;
    json_t *body = json_loadb(q->body ? q->body : "", q->len, 0, &je);
    const char *name = json_string_value(json_object_get(body, "name"));
    enum MHD_Result ret;
    if (!json_is_object(body))
        ret = send_error(c, 400, "the body must be a JSON object {\"name\": NAME}");
    else if (!arena_serve_name_ok(name))
        ret = send_error(c, 400, "a name is 1 to 32 letters, digits, '_' or '-', starting with "
                                 "a letter or a digit");
    else {
        char token[ARENA_SERVE_TOKEN_HEX], hash[ARENA_SERVE_HASH_HEX];
        arena_serve_token_new(token);
        arena_serve_token_hash(token, hash);
        int rc = arena_serve_db_author_add(s->sdb, name, hash);
        if (rc == JA_EBUSY)
            ret = send_error(c, 409, "that name is taken");
        else if (rc != JA_OK)
            ret = send_error(c, 500, "the author cannot be stored");
        else
            ret = send_json(c, 201, json_pack("{ss ss}", "name", name, "token", token));
        sodium_memzero(token, sizeof token);
    }
    json_decref(body);
    return ret;
}

/* Stores the upload as bots/SHA.so (written to tmp/, then renamed). */
static int store_plugin(arena_server *s, const char *data, size_t len, char sha[65],
                        char *file, size_t cap)
{
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(h, (const unsigned char *)data, len);
    sodium_bin2hex(sha, 65, h, sizeof h);
    snprintf(file, cap, "bots/%s.so", sha);
    char path[4400], tmp[4400];
    snprintf(path, sizeof path, "%s/%s", s->data, file);
    struct stat sb;
    if (lstat(path, &sb) == 0)
        return S_ISREG(sb.st_mode) ? JA_OK : JA_EIO;
    snprintf(tmp, sizeof tmp, "%s/upload-XXXXXX", s->tmp_dir);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return JA_EIO;
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    bool ok = off == len && fchmod(fd, 0600) == 0 && fsync(fd) == 0;
    ok &= close(fd) == 0;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return JA_EIO;
    }
    return JA_OK;
}

/* Checks the bearer token: the author into q. */
static bool authorize(arena_server *s, srv_call *c, req *q)
{
    char token[ARENA_SERVE_TOKEN_HEX];
    const char *h = MHD_lookup_connection_value(c->conn, MHD_HEADER_KIND, "Authorization");
    bool ok = arena_serve_bearer(h, token) &&
              arena_serve_db_author_auth(s->sdb, token, &q->author, q->author_name) == JA_OK;
    sodium_memzero(token, sizeof token);
    return ok;
}

/* Before an upload's body: the checks that need no body. 0 or a status. */
static int upload_precheck(arena_server *s, srv_call *c, req *q, const char **msg)
{
    if (!authorize(s, c, q)) {
        *msg = "a valid token is needed: Authorization: Bearer TOKEN";
        return 401;
    }
    const char *cl = MHD_lookup_connection_value(c->conn, MHD_HEADER_KIND, "Content-Length");
    uint64_t n;
    if (cl && arena_parse_u64(cl, &n) && n > s->a->max_upload + (q->pp ? 4096 : 0) + 4096) {
        *msg = "the upload is larger than this server accepts (--max-upload)";
        return 413;
    }
    int64_t recent = 0, validating = 0, mine = 0;
    if (arena_serve_db_counts(s->sdb, q->author, (int64_t)time(NULL) - 3600, &recent,
                              &validating, &mine) != JA_OK) {
        *msg = "the server database cannot be read";
        return 500;
    }
    if (recent >= s->a->upload_rate) {
        *msg = "too many uploads in the last hour (--upload-rate)";
        return 429;
    }
    /* Per author first: one author's burst waits on itself, never fills
     * the queue for the others (docs/server.md, "Validation"). */
    if (mine >= s->a->author_queue) {
        *msg = "you have as many versions waiting for validation as this server takes from "
               "one author (--author-queue); try again once one is validated";
        return 429;
    }
    if (validating >= s->a->queue_max) {
        *msg = "the validation queue is full; try again later";
        return 503;
    }
    return 0;
}

static enum MHD_Result api_upload(arena_server *s, srv_call *c, req *q)
{
    if (q->pp && !q->file_seen)
        return send_error(c, 400, "the multipart body has no 'file' field");
    if (q->len == 0)
        return send_error(c, 400, "the upload is empty");
    /* Parameters: the multipart field `params`, or the header X-Bot-Params
     * with a raw body; their meaning is the bot's (check_params, at its
     * validation), their shape is checked here. */
    const char *params = q->pp ? q->params
                               : MHD_lookup_connection_value(c->conn, MHD_HEADER_KIND, "X-Bot-Params");
    char perr[200];
    if (params == NULL)
        params = "";
    if (!arena_serve_params_ok(params, perr, sizeof perr)) {
        char msg[300];
        snprintf(msg, sizeof msg, "bad parameters: %s", perr);
        return send_error(c, 400, msg);
    }
    char sha[65], file[128];
    if (store_plugin(s, q->body, q->len, sha, file, sizeof file) != JA_OK)
        return send_error(c, 500, "the upload cannot be stored");
    int64_t id = 0, number = 0;
    int rc = arena_serve_db_version_add(s->sdb, q->author, sha, file, params, &id, &number);
    if (rc == JA_EBUSY) {
        char msg[160];
        snprintf(msg, sizeof msg, "this file%s is already your version %" PRId64,
                 params[0] ? " with these parameters" : "", number);
        return send_json(c, 409, json_pack("{ss sI}", "error", msg, "version", (json_int_t)number));
    }
    if (rc != JA_OK)
        return send_error(c, 500, "the version cannot be stored");
    srv_event_version(s, q->author_name, number, ARENA_V_VALIDATING, NULL);
    return send_json(c, 202, json_pack("{sI ss sI ss ss ss ss}", "id", (json_int_t)id, "author",
                                       q->author_name, "version", (json_int_t)number, "sha256",
                                       sha, "params", params, "status", ARENA_V_VALIDATING, "bot",
                                       q->author_name));
}

/* POST /api/external {"key": Z85}: a new external version (serve_ext.h). */
static enum MHD_Result api_external(arena_server *s, srv_call *c, req *q)
{
    const char *msg = NULL;
    int code = upload_precheck(s, c, q, &msg);
    if (code)
        return send_error(c, (unsigned)code, msg);
    json_error_t je;
    json_t *body = json_loadb(q->body ? q->body : "", q->len, 0, &je);
    const char *key = json_string_value(json_object_get(body, "key"));
    enum MHD_Result ret;
    char err[300];
    int64_t id = 0, number = 0;
    if (!json_is_object(body))
        ret = send_error(c, 400, "the body must be a JSON object {\"key\": Z85 public key}");
    else if (json_object_get(body, "params"))
        ret = send_error(c, 400, "parameters are for plugins: an external bot reads its own "
                                 "configuration on its machine");
    else if ((code = srv_ext_register(s, q->author, q->author_name, key, &id, &number, err,
                                      sizeof err)) != 202)
        ret = send_error(c, (unsigned)code, err);
    else
        ret = send_json(c, 202, json_pack("{sI ss sI ss ss ss}", "id", (json_int_t)id, "author",
                                          q->author_name, "version", (json_int_t)number, "kind",
                                          "external", "key", key, "status", ARENA_V_VALIDATING));
    json_decref(body);
    return ret;
}

static enum MHD_Result api_retire(arena_server *s, srv_call *c, req *q)
{
    if (!authorize(s, c, q))
        return send_error(c, 401, "a valid token is needed: Authorization: Bearer TOKEN");
    if (strcmp(q->author_name, q->route.name) != 0)
        return send_error(c, 403, "that token is not this author's");
    int64_t n = 0;
    if (arena_serve_db_retire(s->sdb, q->author, &n) != JA_OK)
        return send_error(c, 500, "the versions cannot be retired");
    srv_ext_sync(s); /* their keys refused from now on */
    srv_event(s, json_pack("{ss ss ss sI}", "type", "version", "author", q->author_name, "status",
                           ARENA_V_RETIRED, "versions", (json_int_t)n));
    return send_json(c, 200, json_pack("{ss sI}", "name", q->author_name, "retired",
                                       (json_int_t)n));
}

/* The seats of match rt whose bot is author's (a ladder bot's name is its
 * version's author), as a mask. JA_OK, JA_ENOTFOUND (not played), or
 * another code (logged). */
static int author_seats(arena_server *s, const arena_route *rt, const char *author,
                        uint32_t *mask)
{
    ladder_db *db = NULL;
    ladder_key key = {s->a->game->name, s->a->seats, s->opts_text};
    ladder_match_row row;
    *mask = 0;
    int rc = open_ladder(s, &db);
    if (rc == JA_OK)
        rc = ladder_db_match_row(db, &key, rt->tournament, rt->number, &row);
    ladder_bot_row b;
    for (uint32_t k = 0; rc == JA_OK && k < row.n_seats; k++) {
        rc = ladder_db_bot_row(db, row.bot_id[k], &b);
        if (rc == JA_OK && strcmp(b.name, author) == 0)
            *mask |= 1u << k;
    }
    if (rc != JA_OK && rc != JA_ENOTFOUND && db)
        arena_error("%s", ladder_db_errmsg(db));
    ladder_db_close(&db);
    return rc;
}

/* GET /api/matches/T-N/logs: what the token's author's bots logged in
 * match T-N, to that author only, once the match's batch has ended
 * (docs/server.md, "Bot logs"). */
static enum MHD_Result api_match_logs(arena_server *s, srv_call *c, req *q)
{
    const arena_route *rt = &q->route;
    bool batch;
    if (!published(s, rt->tournament, &batch))
        return send_error(c, 404, batch ? "a match's logs are given once its batch has ended"
                                        : "no such match");
    if (!authorize(s, c, q))
        return send_error(c, 401, "a valid token is needed: Authorization: Bearer TOKEN");
    uint32_t mine;
    int rc = author_seats(s, rt, q->author_name, &mine);
    if (rc == JA_ENOTFOUND)
        return send_error(c, 404, "no such match (not played yet)");
    if (rc != JA_OK)
        return send_error(c, 500, "the ladder cannot be read");
    if (mine == 0)
        return send_error(c, 403, "a match's logs are for the authors of its bots only");
    char replay[4400], err[6000];
    arena_replay_name(replay, sizeof replay, s->replays_dir, rt->tournament, rt->number);
    ref_replay *r = NULL;
    if ((rc = ref_replay_load(replay, &r, err, sizeof err)) != JA_OK) {
        if (rc == JA_ENOTFOUND)
            return send_error(c, 404, "no replay of this match");
        arena_error("%s", err);
        return send_error(c, 500, "the replay cannot be read");
    }
    json_t *seats = json_array(), *logs = json_array();
    for (uint32_t k = 0; k < r->h.n_seats; k++)
        if (mine >> k & 1)
            json_array_append_new(seats, json_integer(k));
    for (uint32_t i = 0; i < r->n_logs; i++)
        if (mine >> r->logs[i].seat & 1)
            json_array_append_new(
                logs, json_pack("{sI sI ss}", "decision", (json_int_t)r->logs[i].step + 1,
                                "seat", (json_int_t)r->logs[i].seat, "text",
                                r->log_text + r->logs[i].off));
    ref_replay_free(&r);
    char id[48];
    snprintf(id, sizeof id, "%" PRId64 "-%u", rt->tournament, rt->number);
    return send_json(c, 200, json_pack("{ss ss so so}", "id", id, "author", q->author_name,
                                       "seats", seats, "logs", logs));
}

/* A smoke match's reproduction bundle, for the version's author only: it
 * holds the bot's log tail and its decisions. */
static enum MHD_Result api_smoke_bundle(arena_server *s, srv_call *c, req *q)
{
    if (!authorize(s, c, q))
        return send_error(c, 401, "a valid token is needed: Authorization: Bearer TOKEN");
    if (strcmp(q->author_name, q->route.name) != 0)
        return send_error(c, 403, "a bundle is for its bot's author only");
    json_t *vs = arena_serve_db_versions_json(s->sdb, q->author);
    int64_t id = 0;
    size_t i;
    json_t *v;
    json_array_foreach(vs, i, v)
        if (json_integer_value(json_object_get(v, "version")) == (json_int_t)q->route.version)
            id = json_integer_value(json_object_get(v, "id"));
    json_decref(vs);
    if (id <= 0)
        return send_error(c, 404, "no such version");
    char path[4600];
    struct stat sb;
    arena_serve_smoke_bundle(s->data, id, q->route.number, path, sizeof path);
    int fd = open_data_file(path, &sb);
    if (fd < 0)
        return send_error(c, 404, "no bundle: that smoke match had no fault");
    /* The server's paths (the replay's, the plugin's) are shown relative
     * to its data folder, as in every message to authors. */
    char *buf = (uint64_t)sb.st_size < (64u << 20) ? ja_xmalloc((size_t)sb.st_size + 1) : NULL;
    size_t len = 0;
    ssize_t k;
    while (buf && len < (size_t)sb.st_size &&
           (k = read(fd, buf + len, (size_t)sb.st_size - len)) > 0)
        len += (size_t)k;
    close(fd);
    if (buf == NULL || len != (size_t)sb.st_size) {
        free(buf);
        return send_error(c, 500, "the bundle cannot be read");
    }
    buf[len] = '\0';
    char prefix[4200];
    snprintf(prefix, sizeof prefix, "%s/", s->data);
    size_t pl = strlen(prefix);
    for (char *p; (p = strstr(buf, prefix)) != NULL; len -= pl)
        memmove(p, p + pl, strlen(p + pl) + 1);
    return send_bytes(c, 200, "application/json", buf, len);
}

/* ---- the access handler -------------------------------------------------------- */

static bool body_add(req *q, const char *data, size_t n)
{
    if (n > q->limit - q->len) {
        q->fail = 413;
        q->fail_msg = "the upload is larger than this server accepts (--max-upload)";
        return false;
    }
    if (q->len + n > q->cap) {
        size_t cap = q->cap ? q->cap : 65536;
        while (cap < q->len + n)
            cap *= 2;
        if (cap > q->limit)
            cap = q->limit;
        q->body = ja_xrealloc(q->body, cap);
        q->cap = cap;
    }
    memcpy(q->body + q->len, data, n);
    q->len += n;
    return true;
}

static enum MHD_Result on_field(void *cls, enum MHD_ValueKind kind, const char *key,
                                const char *filename, const char *type, const char *enc,
                                const char *data, uint64_t off, size_t size)
{
    (void)kind, (void)filename, (void)type, (void)enc, (void)off;
    req *q = cls;
    if (key != NULL && strcmp(key, "params") == 0) {
        /* Kept whole up to one byte past the limit, so that a longer one
         * is refused by its length, not cut. */
        size_t room = sizeof q->params - 1 - q->params_len;
        size_t n = size < room ? size : room;
        memcpy(q->params + q->params_len, data, n);
        q->params_len += n;
        q->params[q->params_len] = '\0';
        return MHD_YES;
    }
    if (key == NULL || strcmp(key, "file") != 0)
        return MHD_YES;
    if (off == 0 && q->file_seen && q->len) {
        q->fail = 400;
        q->fail_msg = "the multipart body has more than one 'file' field";
        return MHD_NO;
    }
    q->file_seen = true;
    return size == 0 || body_add(q, data, size) ? MHD_YES : MHD_NO;
}

/* GET /api/server: the game, external bots, and the connections held now
 * against their limits (docs/server.md, "Connections"). */
static enum MHD_Result api_server(arena_server *s, srv_call *c)
{
    json_t *j = srv_ext_server_json(s);
    uint32_t requests = 0, streams = 0, open = 0;
    srv_conns_counts(s->conns, &requests, &streams, &open);
    json_object_set_new(j, "connections",
                        json_pack("{sI sI sI sI sI sI}", "requests", (json_int_t)requests,
                                  "streams", (json_int_t)streams, "open", (json_int_t)open,
                                  "max_clients", (json_int_t)s->a->max_clients, "max_streams",
                                  (json_int_t)s->a->max_streams, "max_per_address",
                                  (json_int_t)s->a->max_per_address));
    return send_json(c, 200, j);
}

static enum MHD_Result dispatch(arena_server *s, srv_call *c, req *q)
{
    arena_route *rt = &q->route;
    switch (rt->kind) {
    case ARENA_ROUTE_INDEX: return page_index(s, c);
    case ARENA_ROUTE_SUBMIT_PAGE: return page_submit(s, c);
    case ARENA_ROUTE_BOT_PAGE: return bot(s, c, rt->name, true);
    case ARENA_ROUTE_MATCH_PAGE:
    case ARENA_ROUTE_MATCH_REPLAY: return match_file(s, c, rt);
    case ARENA_ROUTE_LADDER: return api_ladder(s, c);
    case ARENA_ROUTE_BOT: return bot(s, c, rt->name, false);
    case ARENA_ROUTE_MATCH: return api_match(s, c, rt);
    case ARENA_ROUTE_MATCH_LOGS: return api_match_logs(s, c, q);
    case ARENA_ROUTE_EVENTS: return api_events(s, c);
    case ARENA_ROUTE_REGISTER: return api_register(s, c, q);
    case ARENA_ROUTE_UPLOAD: return api_upload(s, c, q);
    case ARENA_ROUTE_RETIRE: return api_retire(s, c, q);
    case ARENA_ROUTE_SMOKE_BUNDLE: return api_smoke_bundle(s, c, q);
    case ARENA_ROUTE_EXTERNAL: return api_external(s, c, q);
    case ARENA_ROUTE_SERVER: return api_server(s, c);
    case ARENA_ROUTE_STATIC: return send_asset(c, rt->number);
    case ARENA_ROUTE_MATCHES: return matches(s, c, NULL, false);
    case ARENA_ROUTE_MATCHES_PAGE: return matches(s, c, NULL, true);
    case ARENA_ROUTE_BOT_MATCHES: return matches(s, c, rt->name, false);
    case ARENA_ROUTE_BOT_MATCHES_PAGE: return matches(s, c, rt->name, true);
    case ARENA_ROUTE_BAD_METHOD: return send_error(c, 405, "method not allowed here");
    case ARENA_ROUTE_NONE: break;
    }
    static const srv_http_out out = {send_json, send_error, page_begin, page_end};
    enum MHD_Result ret;
    if (srv_live_http(s, &out, c, q->method, q->url, q->body, q->len, &ret))
        return ret;
    return send_error(c, 404, "no such page");
}

/* Whether a request is an event stream (admitted as one, answered at
 * once, then parked between events). */
static bool is_stream(const req *q)
{
    return q->route.kind == ARENA_ROUTE_EVENTS || q->live == SRV_LIVE_EVENTS;
}

/* Whether a request is answered at once in libmicrohttpd's thread: it
 * reads no database and no file, so it never blocks the polling. The
 * others go to a worker. */
static bool is_cheap(const req *q)
{
    switch (q->route.kind) {
    case ARENA_ROUTE_INDEX:
    case ARENA_ROUTE_SUBMIT_PAGE:
    case ARENA_ROUTE_SERVER:
    case ARENA_ROUTE_STATIC:
    case ARENA_ROUTE_BAD_METHOD: return true;
    case ARENA_ROUTE_NONE:
        return q->live != SRV_LIVE_TICKET; /* a ticket reads the server database */
    default: return false;
    }
}

/* A worker's part: the route's answer, queued when the connection is
 * resumed. */
static void work(void *arg)
{
    req *q = arg;
    if (dispatch(q->s, &q->call, q) != MHD_YES && q->call.resp) {
        MHD_destroy_response(q->call.resp);
        q->call.resp = NULL;
    }
    q->answered = true;
}

/* Queues q's answer on c (every answer is queued here, in the thread that
 * may: libmicrohttpd's). */
static enum MHD_Result answer(struct MHD_Connection *c, req *q)
{
    if (q->call.resp == NULL)
        return MHD_NO; /* out of memory: the connection is closed */
    enum MHD_Result ret = MHD_queue_response(c, q->call.code, q->call.resp);
    MHD_destroy_response(q->call.resp);
    q->call.resp = NULL;
    return ret;
}

/* An answer made at once, in libmicrohttpd's thread. */
static enum MHD_Result answer_error(struct MHD_Connection *c, req *q, unsigned code,
                                    const char *msg)
{
    send_error(&q->call, code, msg);
    return answer(c, q);
}

/* A request's headers have arrived: routed, admitted as a request or a
 * stream (serve_conn.h), and an upload checked before its body (a refusal
 * is answered at once, the body unread). */
static enum MHD_Result request_begin(arena_server *s, struct MHD_Connection *c,
                                     const char *method, const char *url, req *q)
{
    q->s = s;
    q->call.conn = c;
    arena_serve_route(method, url, &q->route);
    snprintf(q->method, sizeof q->method, "%s", method ? method : "");
    if (url && strlen(url) < sizeof q->url) /* longer: no live route */
        snprintf(q->url, sizeof q->url, "%s", url);
    if (q->route.kind == ARENA_ROUTE_NONE && s->live) {
        char id[SRV_LIVE_ID_MAX];
        q->live = srv_live_route(q->method, q->url, id);
    }
    const char *msg = NULL;
    int code = srv_conns_admit(s->conns, c, is_stream(q), &q->conn, &msg);
    if (code)
        return answer_error(c, q, (unsigned)code, msg);
    q->limit = SMALL_BODY;
    if (q->route.kind != ARENA_ROUTE_UPLOAD)
        return MHD_YES;
    q->limit = s->a->max_upload;
    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    if (ct && strncasecmp(ct, "multipart/form-data", 19) == 0) {
        q->pp = MHD_create_post_processor(c, 65536, on_field, q);
        if (q->pp == NULL) {
            q->fail = 400;
            q->fail_msg = "malformed multipart/form-data (no boundary?)";
        }
    }
    code = q->fail ? 0 : upload_precheck(s, &q->call, q, &msg);
    if (code) {
        q->fail = code;
        q->fail_msg = msg;
    }
    return q->fail ? answer_error(c, q, (unsigned)q->fail, q->fail_msg) : MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    arena_server *s = cls;
    req *q = *con_cls;
    if (q == NULL) {
        *con_cls = q = ja_xcalloc(1, sizeof *q);
        return request_begin(s, c, method, url, q);
    }
    if (q->queued) {
        /* Called again once the worker resumed the connection. */
        return q->answered ? answer(c, q) : MHD_YES;
    }
    if (*upload_data_size) {
        if (!q->fail) {
            if (q->pp) {
                if (MHD_post_process(q->pp, upload_data, *upload_data_size) != MHD_YES &&
                    !q->fail) {
                    q->fail = 400;
                    q->fail_msg = "malformed multipart/form-data body";
                }
            } else
                body_add(q, upload_data, *upload_data_size);
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    srv_conns_body_done(s->conns, q->conn);
    if (q->pp) {
        if (MHD_destroy_post_processor(q->pp) != MHD_YES && !q->fail) {
            q->fail = 400;
            q->fail_msg = "malformed multipart/form-data body (incomplete)";
        }
        q->pp = NULL;
    }
    if (q->fail)
        return answer_error(c, q, (unsigned)q->fail, q->fail_msg);
    if (is_stream(q) || is_cheap(q)) {
        dispatch(s, &q->call, q);
        return answer(c, q);
    }
    q->queued = true;
    if (srv_conns_submit(s->conns, c, work, q) != JA_OK) {
        q->queued = false;
        return answer_error(c, q, 503, srv_conns_closing(s->conns)
                                           ? "the server is stopping"
                                           : "the server is busy; try again later");
    }
    return MHD_YES;
}

/* Paths are taken as sent, never unescaped: no route has a '%', so an
 * escaped path (%2e%2e, %2f, %00) names nothing. */
static size_t no_unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls, (void)c;
    return strlen(s);
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
                    enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    arena_server *s = cls;
    srv_conns_done(s->conns, c);
    req *q = *con_cls;
    if (q == NULL)
        return;
    if (q->pp)
        MHD_destroy_post_processor(q->pp);
    if (q->call.resp)
        MHD_destroy_response(q->call.resp);
    free(q->body);
    free(q);
    *con_cls = NULL;
}

int srv_http_start(arena_server *s, char *err, size_t cap)
{
    const arena_serve_args *a = s->a;
    struct sockaddr_in v4 = {0};
    struct sockaddr_in6 v6 = {0};
    struct sockaddr *sa;
    if (a->v6) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(a->port);
        inet_pton(AF_INET6, a->host, &v6.sin6_addr);
        sa = (struct sockaddr *)&v6;
    } else {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(a->port);
        inet_pton(AF_INET, a->host, &v4.sin_addr);
        sa = (struct sockaddr *)&v4;
    }
    srv_http_limits lim = {a->max_clients, a->max_streams, a->max_per_address,
                           a->trusted_proxy};
    if (srv_conns_new(&lim, &s->conns) != JA_OK) {
        snprintf(err, cap, "cannot start the HTTP side's threads");
        return JA_EIO;
    }
    /* A few polling threads (epoll) that never block: event streams are
     * parked between events, and what reads a database or a file runs in
     * serve_conn.h's workers. */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                     (a->v6 ? MHD_USE_IPv6 : 0);
    s->mhd = MHD_start_daemon(
        flags, a->port, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, sa,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)SRV_POLL_THREADS, MHD_OPTION_NOTIFY_COMPLETED,
        on_done, s, MHD_OPTION_NOTIFY_CONNECTION, srv_conns_notify, s->conns,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)(a->max_clients + a->max_streams + SRV_IDLE_SOCKETS),
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        srv_conns_socket_limit(&lim), MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)SRV_CONN_MEMORY, MHD_OPTION_UNESCAPE_CALLBACK, no_unescape, NULL, MHD_OPTION_END);
    if (s->mhd == NULL) {
        srv_conns_stop(s->conns);
        srv_conns_free(&s->conns);
        snprintf(err, cap, "cannot listen on http://%s%s%s:%u/ (in use, or not an address of "
                           "this machine?)",
                 a->v6 ? "[" : "", a->host, a->v6 ? "]" : "", (unsigned)a->port);
        return JA_EIO;
    }
    return JA_OK;
}

void srv_http_stop(arena_server *s)
{
    pthread_mutex_lock(&s->mu);
    s->closing = true;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->mu);
    /* No connection may stay suspended when the daemon stops: the workers
     * finish, and every parked stream is resumed to end. */
    if (s->conns)
        srv_conns_stop(s->conns);
    if (s->mhd)
        MHD_stop_daemon(s->mhd);
    s->mhd = NULL;
    srv_conns_free(&s->conns);
}
