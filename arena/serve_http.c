/* `arena serve`'s HTTP side (serve_int.h): libmicrohttpd, one thread per
 * connection, the routes of serve_util.h, the pages and the event stream
 * (docs/server.md). */
#include "serve_int.h"
#include "serve_live_http.h"
#include "serve_ext.h"

#include "executor.h"
#include "ladder_cmd.h"
#include "names.h"
#include "util.h"
#include "viewer.h"

#include "jackarena/ja_error.h"

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

/* Bodies other than uploads (POST /api/register) are small. */
#define SMALL_BODY 4096
/* Recent matches on a bot's page. */
#define RECENT_MATCHES 20
/* Recent batches on a bot's page (with the reason of a failed one). */
#define RECENT_BATCHES 10

/* One request's state across the calls of the access handler. */
typedef struct req {
    arena_route route;
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

static enum MHD_Result send_bytes(struct MHD_Connection *c, unsigned code, const char *type,
                                  char *data, size_t len)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
    if (r == NULL) {
        free(data);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'self' 'unsafe-inline' data: blob:; connect-src 'self'; "
                            "form-action 'self'; frame-ancestors 'none'");
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_json(struct MHD_Connection *c, unsigned code, json_t *v)
{
    char *text = v ? json_dumps(v, JSON_COMPACT) : NULL;
    json_decref(v);
    if (text == NULL)
        return MHD_NO;
    size_t n = strlen(text);
    char *t = realloc(text, n + 2);
    if (t == NULL) {
        free(text);
        return MHD_NO;
    }
    t[n] = '\n';
    t[n + 1] = '\0';
    return send_bytes(c, code, "application/json", t, n + 1);
}

static enum MHD_Result send_error(struct MHD_Connection *c, unsigned code, const char *msg)
{
    return send_json(c, code, json_pack("{ss}", "error", msg));
}

/* ---- the pages ----------------------------------------------------------------- */

static const char CSS[] =
    "body{font:15px/1.4 system-ui,sans-serif;margin:2em auto;max-width:60em;padding:0 1em}"
    "table{border-collapse:collapse}td,th{padding:.2em .7em;border-bottom:1px solid #ccc;"
    "text-align:left;overflow-wrap:anywhere}th{background:#eee}"
    "pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap;overflow-wrap:anywhere}"
    ".rejected,.suspended,.failed{color:#a00}.active{color:#070}nav a{margin-right:1em}";

/* The page's head and navigation; the title escaped. */
static void page_begin(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", f);
    arena_serve_html(f, title);
    fprintf(f, "</title><style>%s</style></head><body><nav><a href=\"/\">Ladder</a>"
               "<a href=\"/live\">Live</a><a href=\"/submit\">Submit a bot</a>"
               "<a href=\"/api/ladder\">JSON</a></nav><h1>",
            CSS);
    arena_serve_html(f, title);
    fputs("</h1>\n", f);
}

static enum MHD_Result page_end(struct MHD_Connection *c, FILE *f, char **buf, size_t *len)
{
    fputs("</body></html>\n", f);
    if (fclose(f) != 0) {
        free(*buf);
        return MHD_NO;
    }
    return send_bytes(c, 200, "text/html; charset=utf-8", *buf, *len);
}

/* The ladder: filled and refreshed by the script from /api/ladder on every
 * event; every text put in with textContent (never as HTML). */
static const char LADDER_JS[] =
    "<script>\n"
    "function cell(tr,t){var td=document.createElement('td');td.textContent=t;tr.appendChild(td);"
    "return td;}\n"
    "function fmt(x){return x==null?'':Math.round(x).toString();}\n"
    "function load(){fetch('/api/ladder').then(function(r){return r.json();}).then(function(d){\n"
    " var tb=document.getElementById('ladder');tb.textContent='';\n"
    " (d.ratings||[]).forEach(function(b,i){var tr=document.createElement('tr');\n"
    "  cell(tr,String(i+1));var td=cell(tr,'');var a=document.createElement('a');\n"
    "  a.href='/bots/'+encodeURIComponent(b.author);a.textContent=b.display_name;\n"
    "  td.appendChild(a);\n"
    "  cell(tr,b.version_status||'');cell(tr,fmt(b.elo));\n"
    "  cell(tr,b.elo_ci95?('['+fmt(b.elo_ci95[0])+', '+fmt(b.elo_ci95[1])+']'):'');\n"
    "  cell(tr,String(b.games));cell(tr,String(b.faults));tb.appendChild(tr);});\n"
    " document.getElementById('matches').textContent=String(d.matches);\n"
    " var pv=document.getElementById('pending');pv.textContent='';\n"
    " (d.versions||[]).forEach(function(v){if(v.status=='active')return;\n"
    "  var li=document.createElement('li');li.textContent=v.author+' version '+v.version+': '+\n"
    "  v.status+(v.reason?' ('+v.reason+')':'');pv.appendChild(li);});\n"
    "});}\n"
    "load();var t=null;var es=new EventSource('/api/events');\n"
    "es.onmessage=function(){if(!t)t=setTimeout(function(){t=null;load();},1000);};\n"
    "</script>\n";

static enum MHD_Result page_index(arena_server *s, struct MHD_Connection *c)
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
    arena_serve_html(f, s->opts_text[0] ? s->opts_text : "none");
    fprintf(f, "; %u seats. Matches recorded: <span id=\"matches\">-</span>. Ratings: "
               "Bradley-Terry fit with 95%% intervals, updated live.</p>\n"
               "<table><thead><tr><th>#</th><th>bot</th><th>status</th><th>Elo</th>"
               "<th>95%%</th><th>games</th><th>faults</th></tr></thead>"
               "<tbody id=\"ladder\"></tbody></table>\n<h2>Other versions</h2><ul id=\"pending\">"
               "</ul><noscript>The table needs JavaScript; the data is at "
               "<a href=\"/api/ladder\">/api/ladder</a>.</noscript>\n",
            s->a->seats);
    fputs(LADDER_JS, f);
    return page_end(c, f, &buf, &len);
}

static const char SUBMIT_HTML[] =
    "<h2>1. Register</h2><p>Name: 1 to 32 letters, digits, _ or -.</p>"
    "<form id=\"reg\"><input name=\"name\" id=\"name\" required> <button>Register</button></form>"
    "<pre id=\"regout\"></pre>"
    "<h2>2. Upload a plugin</h2><p>A bot plugin (.so) built against the Jack Arena SDK. It is "
    "validated (ELF check, sandboxed load, smoke matches against random with no fault) before "
    "it joins the ladder.</p>"
    "<form id=\"up\"><p>Token: <input id=\"token\" size=\"70\" required></p>"
    "<p><input type=\"file\" id=\"file\" required> <button>Upload</button></p></form>"
    "<pre id=\"upout\"></pre>\n"
    "<script>\n"
    "function show(id,r){r.text().then(function(t){document.getElementById(id).textContent="
    "r.status+' '+t;});}\n"
    "document.getElementById('reg').onsubmit=function(e){e.preventDefault();"
    "fetch('/api/register',{method:'POST',headers:{'Content-Type':'application/json'},"
    "body:JSON.stringify({name:document.getElementById('name').value})}).then(function(r){"
    "show('regout',r);});};\n"
    "document.getElementById('up').onsubmit=function(e){e.preventDefault();var fd=new FormData();"
    "fd.append('file',document.getElementById('file').files[0]);fetch('/api/bots',{method:'POST',"
    "headers:{'Authorization':'Bearer '+document.getElementById('token').value.trim()},body:fd})"
    ".then(function(r){show('upout',r);});};\n"
    "</script>\n";

static enum MHD_Result page_submit(arena_server *s, struct MHD_Connection *c)
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

static int open_ladder(arena_server *s, ladder_db **db)
{
    int rc = ladder_db_open(s->a->db_path, db);
    if (rc != JA_OK) {
        arena_error("%s", *db ? ladder_db_errmsg(*db) : ja_strerror(rc));
        ladder_db_close(db);
    }
    return rc;
}

/* Recent matches of one author (or one match): collected from the
 * ladder's matches in order. */
typedef struct match_scan {
    const char *author;       /* NULL: match (tid, number) */
    int64_t tid;
    uint32_t number;
    const ladder_bot_row *bots;
    uint32_t n_bots;
    json_t *list;             /* the newest RECENT_MATCHES, oldest first */
} match_scan;

static json_t *match_json(const match_scan *m, const ladder_match_row *row)
{
    json_t *seats = json_array();
    for (uint32_t s = 0; s < row->n_seats; s++) {
        int b = ladder_bot_index(m->bots, m->n_bots, row->bot_id[s]);
        json_array_append_new(
            seats, json_pack("{ss ss sf si}", "author", b >= 0 ? m->bots[b].name : "?", "version",
                             b >= 0 ? m->bots[b].version : "?", "score",
                             (double)row->score[s] / JA_SCORE_UNIT, "place", (int)row->place[s]));
    }
    char id[48], seed[21];
    snprintf(id, sizeof id, "%" PRId64 "-%u", row->tournament_id, row->number);
    return json_pack("{ss sI si ss sI ss ss so}", "id", id, "tournament",
                     (json_int_t)row->tournament_id, "number", (int)row->number, "seed",
                     row->has_seed ? ladder_seed_format(row->seed, seed) : "", "turns",
                     (json_int_t)row->turns, "digest", row->digest, "finished", row->finished,
                     "seats", seats);
}

static int scan_match(void *ctx, const ladder_match_row *row)
{
    match_scan *m = ctx;
    if (m->author == NULL) {
        if (row->tournament_id != m->tid || row->number != m->number)
            return 0;
    } else {
        bool mine = false;
        for (uint32_t s = 0; s < row->n_seats && !mine; s++) {
            int b = ladder_bot_index(m->bots, m->n_bots, row->bot_id[s]);
            mine = b >= 0 && strcmp(m->bots[b].name, m->author) == 0;
        }
        if (!mine)
            return 0;
    }
    json_array_append_new(m->list, match_json(m, row));
    if (json_array_size(m->list) > RECENT_MATCHES)
        json_array_remove(m->list, 0);
    return 0;
}

/* Scans the ladder's matches (m->author's, or one). JA_OK with m->list. */
static int scan_matches(arena_server *s, match_scan *m)
{
    ladder_db *db = NULL;
    ladder_bot_row *bots = NULL;
    uint32_t nb = 0;
    ladder_key key = {s->a->game->name, s->a->seats, s->opts_text};
    int rc = open_ladder(s, &db);
    if (rc == JA_OK && (rc = ladder_db_ladder_bots(db, &key, &bots, &nb)) == JA_OK) {
        m->bots = bots;
        m->n_bots = nb;
        m->list = json_array();
        rc = ladder_db_foreach_match(db, &key, scan_match, m);
    }
    free(bots);
    ladder_db_close(&db);
    return rc;
}

/* GET /api/ladder: `arena ladder GAME --fit --json` of the ladder database
 * (standings.h), each row joined with the server's version, and every
 * version of the server. */
static json_t *ladder_json(arena_server *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return NULL;
    int st = arena_ladder_show(f, s->a->db_path, s->a->game, &s->a->options, s->a->seats, true,
                               NULL, true);
    fclose(f);
    json_t *fit = st == EXIT_OK ? json_loadb(buf, len, 0, NULL) : NULL;
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
    arena_serve_batch b;
    if (out) {
        json_object_set(out, "fit", fit);
        /* Whether a batch is being played (or resumed at the next start). */
        json_object_set_new(out, "playing",
                            json_boolean(arena_serve_db_batch_unfinished(s->sdb, &b) == JA_OK));
    }
    json_decref(fit);
    return out;
}

/* The answer of GET /api/ladder: the one made since the last event, or a
 * new one (every event may change it; nothing else does). */
static enum MHD_Result api_ladder(arena_server *s, struct MHD_Connection *c)
{
    pthread_mutex_lock(&s->ladder_mu);
    pthread_mutex_lock(&s->mu);
    uint64_t seq = s->ev_seq;
    pthread_mutex_unlock(&s->mu);
    if (s->ladder_text == NULL || s->ladder_seq != seq) {
        json_t *j = ladder_json(s);
        char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
        json_decref(j);
        if (text) {
            free(s->ladder_text);
            s->ladder_text = text;
            s->ladder_seq = seq;
        }
    }
    size_t n = s->ladder_text && s->ladder_seq == seq ? strlen(s->ladder_text) : 0;
    char *out = n ? malloc(n + 2) : NULL;
    if (out) {
        memcpy(out, s->ladder_text, n);
        memcpy(out + n, "\n", 2);
    }
    pthread_mutex_unlock(&s->ladder_mu);
    return out ? send_bytes(c, 200, "application/json", out, n + 1)
               : send_error(c, 500, "the ladder cannot be read");
}

static int open_data_file(const char *path, struct stat *sb);

/* A match's `replay` and `page` URLs into j (null without a replay file). */
static void add_links(arena_server *s, json_t *j, int64_t tournament, uint32_t number)
{
    char path[4400];
    struct stat sb;
    arena_replay_name(path, sizeof path, s->replays_dir, tournament, number);
    int fd = open_data_file(path, &sb);
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

static json_t *bot_json(arena_server *s, const char *name, int64_t author)
{
    json_t *v = arena_serve_db_versions_json(s->sdb, author);
    json_t *bs = arena_serve_db_batches_json(s->sdb, author, RECENT_BATCHES);
    match_scan m = {name, 0, 0, NULL, 0, NULL};
    if (v == NULL || bs == NULL || scan_matches(s, &m) != JA_OK) {
        json_decref(v);
        json_decref(bs);
        json_decref(m.list);
        return NULL;
    }
    size_t i;
    json_t *row;
    json_array_foreach(m.list, i, row)
    {
        add_links(s, row, json_integer_value(json_object_get(row, "tournament")),
                  (uint32_t)json_integer_value(json_object_get(row, "number")));
    }
    return json_pack("{ss so so so}", "name", name, "versions", v, "matches", m.list, "batches",
                     bs);
}

/* GET /api/bots/NAME (JSON) and /bots/NAME (html): one author. */
static enum MHD_Result bot(arena_server *s, struct MHD_Connection *c, const char *name, bool html)
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
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL) {
        json_decref(j);
        return MHD_NO;
    }
    page_begin(f, name);
    fputs("<h2>Versions</h2><table><tr><th>version</th><th>status</th><th>faults</th>"
          "<th>SHA-256</th><th>parameters</th><th>reason</th></tr>\n", f);
    json_t *v;
    size_t i;
    json_array_foreach(json_object_get(j, "versions"), i, v)
    {
        const char *status = json_string_value(json_object_get(v, "status"));
        fprintf(f, "<tr><td>%" JSON_INTEGER_FORMAT "</td><td class=\"",
                json_integer_value(json_object_get(v, "version")));
        arena_serve_html(f, status);
        fputs("\">", f);
        arena_serve_html(f, status);
        const char *sha = json_string_value(json_object_get(v, "sha256"));
        fprintf(f, "</td><td>%" JSON_INTEGER_FORMAT "</td><td><code title=\"",
                json_integer_value(json_object_get(v, "faults")));
        arena_serve_html(f, sha);
        fprintf(f, "\">%.12s</code></td><td><code>", sha ? sha : "");
        arena_serve_html(f, json_string_value(json_object_get(v, "params")));
        fputs("</code></td><td>", f);
        arena_serve_html(f, json_string_value(json_object_get(v, "reason")));
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n<h2>Recent batches</h2><table><tr><th>batch</th><th>tournament</th>"
          "<th>state</th><th>reason</th></tr>\n", f);
    json_array_foreach(json_object_get(j, "batches"), i, v)
    {
        const char *state = json_string_value(json_object_get(v, "state"));
        fprintf(f, "<tr><td>%" JSON_INTEGER_FORMAT "</td><td>%" JSON_INTEGER_FORMAT
                   "</td><td class=\"",
                json_integer_value(json_object_get(v, "id")),
                json_integer_value(json_object_get(v, "tournament")));
        arena_serve_html(f, state);
        fputs("\">", f);
        arena_serve_html(f, state);
        fputs("</td><td>", f);
        arena_serve_html(f, json_string_value(json_object_get(v, "reason")));
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n<h2>Validation reports</h2>\n", f);
    json_array_foreach(json_object_get(j, "versions"), i, v)
    {
        json_t *rep = json_object_get(v, "report");
        if (!json_is_object(rep))
            continue;
        char *text = json_dumps(rep, JSON_INDENT(1));
        fprintf(f, "<h3>Version %" JSON_INTEGER_FORMAT "</h3><pre>",
                json_integer_value(json_object_get(v, "version")));
        arena_serve_html(f, text ? text : "");
        fputs("</pre>\n", f);
        free(text);
    }
    fputs("<h2>Recent matches</h2><table><tr><th>match</th><th>finished</th><th>seats "
          "(score)</th></tr>\n", f);
    json_array_foreach(json_object_get(j, "matches"), i, v)
    {
        const char *mid = json_string_value(json_object_get(v, "id"));
        fputs("<tr><td><a href=\"/matches/", f);
        arena_serve_html(f, mid);
        fputs(".html\">", f);
        arena_serve_html(f, mid);
        fputs("</a></td><td>", f);
        arena_serve_html(f, json_string_value(json_object_get(v, "finished")));
        fputs("</td><td>", f);
        json_t *seat;
        size_t k;
        json_array_foreach(json_object_get(v, "seats"), k, seat)
        {
            fputs(k ? ", " : "", f);
            arena_serve_html(f, json_string_value(json_object_get(seat, "author")));
            fputs("@", f);
            arena_serve_html(f, json_string_value(json_object_get(seat, "version")));
            fprintf(f, " (%g)", json_real_value(json_object_get(seat, "score")));
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
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

static enum MHD_Result send_file(struct MHD_Connection *c, int fd, const struct stat *sb,
                                 const char *type)
{
    struct MHD_Response *r = MHD_create_response_from_fd((uint64_t)sb->st_size, fd);
    if (r == NULL) {
        close(fd);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result api_match(arena_server *s, struct MHD_Connection *c, const arena_route *rt)
{
    if (!arena_serve_db_is_batch(s->sdb, rt->tournament))
        return send_error(c, 404, "no such match");
    match_scan m = {NULL, rt->tournament, rt->number, NULL, 0, NULL};
    if (scan_matches(s, &m) != JA_OK) {
        json_decref(m.list);
        return send_error(c, 500, "the ladder cannot be read");
    }
    json_t *j = json_incref(json_array_get(m.list, 0));
    json_decref(m.list);
    if (j == NULL)
        return send_error(c, 404, "no such match (not played yet)");
    add_links(s, j, rt->tournament, rt->number);
    return send_json(c, 200, j);
}

static enum MHD_Result match_file(arena_server *s, struct MHD_Connection *c,
                                  const arena_route *rt)
{
    if (!arena_serve_db_is_batch(s->sdb, rt->tournament))
        return send_error(c, 404, "no such match");
    char replay[4400], page[4400], err[1400];
    struct stat sb;
    arena_replay_name(replay, sizeof replay, s->replays_dir, rt->tournament, rt->number);
    if (rt->kind == ARENA_ROUTE_MATCH_REPLAY) {
        int fd = open_data_file(replay, &sb);
        return fd < 0 ? send_error(c, 404, "no replay of this match")
                      : send_file(c, fd, &sb, "application/vnd.msgpack");
    }
    snprintf(page, sizeof page, "%s/t%" PRId64 "-m%u.html", s->pages_dir, rt->tournament,
             rt->number);
    int fd = open_data_file(page, &sb);
    if (fd < 0) {
        /* Made once from the replay by the replay viewer (viewer.h). */
        ref_replay *r = NULL;
        viewer_model vm;
        if (open_data_file(replay, &sb) < 0 ? (errno = ENOENT, 1) : 0)
            return send_error(c, 404, "no replay of this match");
        int rc = viewer_open(replay, &r, &vm);
        if (rc != JA_OK)
            return send_error(c, 500, "the replay cannot be read");
        rc = viewer_html_replay(&vm, page, "/", false, err, sizeof err);
        viewer_close(&r, &vm);
        if (rc != JA_OK) {
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
    arena_server *s;
    uint64_t next;            /* the next event to send */
    arena_sse_out out;        /* text not yet fully sent */
} sse;

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    sse *e = cls;
    arena_server *s = e->s;
    if (e->out.pending == NULL) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 15;
        pthread_mutex_lock(&s->mu);
        while (e->next == s->ev_seq && !s->closing &&
               pthread_cond_timedwait(&s->cond, &s->mu, &ts) != ETIMEDOUT) {
        }
        if (s->closing) {
            pthread_mutex_unlock(&s->mu);
            return MHD_CONTENT_READER_END_OF_STREAM;
        }
        bool ok;
        if (e->next == s->ev_seq) {
            ok = arena_sse_set(&e->out, 0, NULL);
        } else {
            if (s->ev_seq - e->next > SRV_EVENT_RING) /* fell behind: skip ahead */
                e->next = s->ev_seq - SRV_EVENT_RING;
            ok = arena_sse_set(&e->out, e->next + 1, s->ev[e->next % SRV_EVENT_RING]);
            e->next++;
        }
        pthread_mutex_unlock(&s->mu);
        if (!ok)
            return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    return (ssize_t)arena_sse_copy(&e->out, buf, max);
}

static void sse_free(void *cls)
{
    sse *e = cls;
    free(e->out.pending);
    free(e);
}

static enum MHD_Result api_events(arena_server *s, struct MHD_Connection *c)
{
    sse *e = calloc(1, sizeof *e);
    if (e == NULL)
        return MHD_NO;
    e->s = s;
    pthread_mutex_lock(&s->mu);
    e->next = s->ev_seq;
    /* Last-Event-ID: the events after it that are still kept. */
    const char *last = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Last-Event-ID");
    uint64_t id;
    if (last && arena_parse_u64(last, &id) && id <= s->ev_seq)
        e->next = s->ev_seq - id > SRV_EVENT_RING ? s->ev_seq - SRV_EVENT_RING : id;
    pthread_mutex_unlock(&s->mu);
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1024, sse_read, e, sse_free);
    if (r == NULL) {
        free(e);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

/* ---- registration, uploads, retiring ------------------------------------------- */

static enum MHD_Result api_register(arena_server *s, struct MHD_Connection *c, req *q)
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
static bool authorize(arena_server *s, struct MHD_Connection *c, req *q)
{
    char token[ARENA_SERVE_TOKEN_HEX];
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    bool ok = arena_serve_bearer(h, token) &&
              arena_serve_db_author_auth(s->sdb, token, &q->author, q->author_name) == JA_OK;
    sodium_memzero(token, sizeof token);
    return ok;
}

/* Before an upload's body: the checks that need no body. 0 or a status. */
static int upload_precheck(arena_server *s, struct MHD_Connection *c, req *q, const char **msg)
{
    if (!authorize(s, c, q)) {
        *msg = "a valid token is needed: Authorization: Bearer TOKEN";
        return 401;
    }
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
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

static enum MHD_Result api_upload(arena_server *s, struct MHD_Connection *c, req *q)
{
    if (q->pp && !q->file_seen)
        return send_error(c, 400, "the multipart body has no 'file' field");
    if (q->len == 0)
        return send_error(c, 400, "the upload is empty");
    /* Parameters: the multipart field `params`, or the header X-Bot-Params
     * with a raw body; their meaning is the bot's (check_params, at its
     * validation), their shape is checked here. */
    const char *params = q->pp ? q->params
                               : MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Bot-Params");
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
static enum MHD_Result api_external(arena_server *s, struct MHD_Connection *c, req *q)
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

static enum MHD_Result api_retire(arena_server *s, struct MHD_Connection *c, req *q)
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

/* A smoke match's reproduction bundle, for the version's author only: it
 * holds the bot's log tail and its decisions. */
static enum MHD_Result api_smoke_bundle(arena_server *s, struct MHD_Connection *c, req *q)
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
    char *buf = (uint64_t)sb.st_size < (64u << 20) ? malloc((size_t)sb.st_size + 1) : NULL;
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
        char *b = realloc(q->body, cap);
        if (b == NULL) {
            q->fail = 500;
            q->fail_msg = "out of memory";
            return false;
        }
        q->body = b;
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

static enum MHD_Result dispatch(arena_server *s, struct MHD_Connection *c, req *q)
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
    case ARENA_ROUTE_EVENTS: return api_events(s, c);
    case ARENA_ROUTE_REGISTER: return api_register(s, c, q);
    case ARENA_ROUTE_UPLOAD: return api_upload(s, c, q);
    case ARENA_ROUTE_RETIRE: return api_retire(s, c, q);
    case ARENA_ROUTE_SMOKE_BUNDLE: return api_smoke_bundle(s, c, q);
    case ARENA_ROUTE_EXTERNAL: return api_external(s, c, q);
    case ARENA_ROUTE_SERVER: return send_json(c, 200, srv_ext_server_json(s));
    case ARENA_ROUTE_BAD_METHOD: return send_error(c, 405, "method not allowed here");
    case ARENA_ROUTE_NONE: break;
    }
    static const srv_http_out out = {send_json, send_error, page_begin, page_end};
    enum MHD_Result ret;
    if (srv_live_http(s, &out, c, q->method, q->url, q->body, q->len, &ret))
        return ret;
    return send_error(c, 404, "no such page");
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
        if ((q = calloc(1, sizeof *q)) == NULL)
            return MHD_NO;
        *con_cls = q;
        arena_serve_route(method, url, &q->route);
        snprintf(q->method, sizeof q->method, "%s", method ? method : "");
        if (url && strlen(url) < sizeof q->url) /* longer: no live route */
            snprintf(q->url, sizeof q->url, "%s", url);
        q->limit = SMALL_BODY;
        if (q->route.kind == ARENA_ROUTE_UPLOAD) {
            q->limit = s->a->max_upload;
            const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
            if (ct && strncasecmp(ct, "multipart/form-data", 19) == 0) {
                q->pp = MHD_create_post_processor(c, 65536, on_field, q);
                if (q->pp == NULL) {
                    q->fail = 400;
                    q->fail_msg = "malformed multipart/form-data (no boundary?)";
                }
            }
            const char *msg = NULL;
            int code = q->fail ? 0 : upload_precheck(s, c, q, &msg);
            if (code) {
                q->fail = code;
                q->fail_msg = msg;
            }
            /* Refused before the body: answered at once, the body unread. */
            if (q->fail)
                return send_error(c, (unsigned)q->fail, q->fail_msg);
        }
        return MHD_YES;
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
    if (q->pp) {
        if (MHD_destroy_post_processor(q->pp) != MHD_YES && !q->fail) {
            q->fail = 400;
            q->fail_msg = "malformed multipart/form-data body (incomplete)";
        }
        q->pp = NULL;
    }
    if (q->fail)
        return send_error(c, (unsigned)q->fail, q->fail_msg);
    return dispatch(s, c, q);
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
    (void)cls, (void)c, (void)toe;
    req *q = *con_cls;
    if (q == NULL)
        return;
    if (q->pp)
        MHD_destroy_post_processor(q->pp);
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
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                     (a->v6 ? MHD_USE_IPv6 : 0);
    s->mhd = MHD_start_daemon(flags, a->port, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR,
                              sa, MHD_OPTION_NOTIFY_COMPLETED, on_done, s,
                              MHD_OPTION_CONNECTION_LIMIT, (unsigned)a->max_clients,
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
                              MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)a->max_clients,
                              MHD_OPTION_UNESCAPE_CALLBACK, no_unescape, NULL,
                              MHD_OPTION_END);
    if (s->mhd == NULL) {
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
    if (s->mhd)
        MHD_stop_daemon(s->mhd);
    s->mhd = NULL;
}
