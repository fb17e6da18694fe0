/* `arena serve`'s live routes (serve_live_http.h): the list of running
 * matches, a match's page, its event streams (the public view, or a seat's
 * with a ticket) and the tickets. */
#include "serve/serve_live_http.h"

#include "serve/serve_conn.h"
#include "serve/serve_live.h"
#include "serve/serve_util.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <inttypes.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

/* ---- the event stream ----------------------------------------------------------- */

typedef struct live_sse {
    srv_stream st;            /* first: the stream as serve_conn.h parks it */
    srv_live_reader *r;
    uint64_t sent;
    arena_sse_out out;        /* text not yet fully sent */
} live_sse;

static bool live_sse_ready(srv_stream *st)
{
    return srv_live_reader_ready(((live_sse *)st)->r);
}

static int live_sse_next(srv_stream *st, arena_sse_out *out)
{
    live_sse *e = (live_sse *)st;
    char *text = NULL;
    int rc = srv_live_reader_next(e->r, &text);
    if (rc == JA_EAGAIN)
        return SRV_NEXT_NONE;
    if (rc == JA_ESTATE)
        return SRV_NEXT_END;
    if (rc == JA_OK)
        arena_sse_set(out, ++e->sent, text);
    free(text);
    return rc == JA_OK ? SRV_NEXT_SET : SRV_NEXT_ERROR;
}

static ssize_t live_sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    live_sse *e = cls;
    return srv_stream_read(&e->st, &e->out, live_sse_next, buf, max);
}

static void live_sse_free(void *cls)
{
    live_sse *e = cls;
    srv_stream_remove(&e->st);
    srv_live_reader_close(&e->r);
    free(e->out.pending);
    free(e);
}

/* GET /api/live/ID/events: the public view; ?ticket=T: the seat's view the
 * ticket was made for (spent here). */
static enum MHD_Result events(arena_server *s, const srv_http_out *o,
                              srv_call *c, const char *id)
{
    const char *ticket = MHD_lookup_connection_value(c->conn, MHD_GET_ARGUMENT_KIND, "ticket");
    int seat = -1;
    if (ticket && !srv_live_ticket_use(s->live, id, ticket, &seat))
        return o->error(c, 403, "the ticket is unknown, used, expired or for another "
                                      "match: POST /api/live/ID/ticket for a new one");
    srv_live_reader *r = NULL;
    int rc = srv_live_reader_open(s->live, id, seat, &r);
    if (rc == JA_ENOTFOUND)
        return o->error(c, 404, "no such live match (it may have ended: see its replay)");
    if (rc != JA_OK)
        return o->error(c, 500, "the live match cannot be read");
    live_sse *e = ja_xcalloc(1, sizeof *e);
    e->r = r;
    e->st.c = c->conn;
    e->st.ready = live_sse_ready;
    struct MHD_Response *resp = MHD_create_response_from_callback(
        MHD_SIZE_UNKNOWN, SRV_STREAM_BLOCK, live_sse_read, e, live_sse_free);
    if (resp == NULL) {
        live_sse_free(e);
        return MHD_NO;
    }
    srv_stream_add(s->conns, &e->st);
    MHD_add_response_header(resp, "Content-Type", "text/event-stream");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    return srv_answer(c, 200, resp);
}

/* POST /api/live/ID/ticket with Authorization: Bearer TOKEN and {"seat": K}. */
static enum MHD_Result ticket(arena_server *s, const srv_http_out *o,
                              srv_call *c, const char *id, const char *body,
                              size_t len)
{
    char token[ARENA_SERVE_TOKEN_HEX], name[ARENA_SERVE_NAME_MAX + 1];
    int64_t author = 0;
    const char *h = MHD_lookup_connection_value(c->conn, MHD_HEADER_KIND, "Authorization");
    bool ok = arena_serve_bearer(h, token) &&
              arena_serve_db_author_auth(s->sdb, token, &author, name) == JA_OK;
    sodium_memzero(token, sizeof token);
    if (!ok)
        return o->error(c, 401, "a valid token is needed: Authorization: Bearer TOKEN");
    json_t *j = json_loadb(body ? body : "", len, 0, NULL);
    json_t *sv = json_object_get(j, "seat");
    json_int_t seat = json_is_integer(sv) ? json_integer_value(sv) : -1;
    json_decref(j);
    if (seat < 0 || seat >= JA_MAX_SEATS)
        return o->error(c, 400, "the body must be a JSON object {\"seat\": K}, K a seat "
                                      "of the match");
    char t[65];
    int rc = srv_live_ticket_new(s->live, id, (int)seat, name, t);
    if (rc == JA_ENOTFOUND)
        return o->error(c, 404, "no such live match (it may have ended: see its replay)");
    if (rc == JA_ERANGE)
        return o->error(c, 400, "the match has no such seat");
    if (rc == JA_EBUSY)
        return o->error(c, 403, "the bot in that seat is not this author's");
    char url[160];
    snprintf(url, sizeof url, "/api/live/%s/events?ticket=%s", id, t);
    enum MHD_Result ret =
        o->json(c, 200, json_pack("{ss si ss si}", "ticket", t, "seat", (int)seat,
                                        "events", url, "expires_in", SRV_LIVE_TICKET_SECONDS));
    sodium_memzero(t, sizeof t);
    sodium_memzero(url, sizeof url);
    return ret;
}

/* ---- the pages ------------------------------------------------------------------ */

/* A view's box on a match's page (box "pub" or "seat"): its table and
 * scores, and beside them its move history with the button that follows
 * the match again after a click on a move. */
static void live_box(FILE *f, const char *box)
{
    fprintf(f, "<div class=\"live-row\"><div class=\"live-table\"><div id=\"%s-table\"></div>"
               "<table id=\"%s-scores\"></table></div><section class=\"live-moves\"><h3>Moves "
               "<button id=\"%s-follow\" hidden>follow the match</button></h3>"
               "<ol id=\"%s-history\" class=\"history\" title=\"click a move to see the "
               "table then\"></ol></section></div>",
            box, box, box, box);
}

static enum MHD_Result page(arena_server *s, const srv_http_out *o, srv_call *c,
                            const char *id)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return MHD_NO;
    if (id == NULL) {
        o->page_begin(f, "Live matches");
        fputs("<p>The ladder's matches while they are played, each shown <span id=\"delay\">"
              "</span> decisions behind the play.</p><ul id=\"live\"></ul>\n"
              "<script src=\"/static/live.js\"></script>\n", f);
        return o->page_end(c, f, &buf, &len);
    }
    char title[96];
    snprintf(title, sizeof title, "Live match %s", id);
    o->page_begin(f, title);
    /* id is a canonical match id (srv_live_route): nothing to escape. */
    /* The table is drawn by the replay viewer's renderers (/matches/replay.js,
     * which draws nothing on a page without a match inside), its move
     * history beside it. */
    fprintf(f, "<div id=\"match\" data-id=\"%s\"><ul id=\"seats\"></ul>"
               "<p id=\"pub-status\">Waiting for the match...</p>"
               "<h2>The table (<span id=\"pub-count\">0</span> frames)</h2>"
               "<p><span id=\"pub-pos\"></span> <span id=\"pub-line\"></span></p>",
            id);
    live_box(f, "pub");
    fputs("<h2>A seat's view</h2><p>For the author of the bot in that seat only: what "
          "the bot saw, as delayed as the table.</p>"
          "<form id=\"seatform\"><p>Token: <input id=\"token\" size=\"70\" "
          "autocomplete=\"off\" required> <select id=\"seat\"></select> "
          "<button id=\"seatgo\">Watch</button></p></form>"
          "<p id=\"seat-status\"></p><p><span id=\"seat-count\">0</span> views</p>",
          f);
    live_box(f, "seat");
    fputs("<pre id=\"errlog\"></pre></div>\n"
          "<script src=\"/matches/replay.js\"></script>"
          "<script src=\"/static/live_match.js\"></script>\n",
          f);
    (void)s;
    return o->page_end(c, f, &buf, &len);
}

/* ---- routing -------------------------------------------------------------------- */

bool srv_live_http(arena_server *s, const srv_http_out *o, srv_call *c,
                   const char *method, const char *url, const char *body, size_t len,
                   enum MHD_Result *ret)
{
    if (s->live == NULL)
        return false;
    char id[SRV_LIVE_ID_MAX];
    switch (srv_live_route(method, url, id)) {
    case SRV_LIVE_NONE: return false;
    case SRV_LIVE_BAD_METHOD: *ret = o->error(c, 405, "method not allowed here"); break;
    case SRV_LIVE_LIST_PAGE: *ret = page(s, o, c, NULL); break;
    case SRV_LIVE_PAGE: *ret = page(s, o, c, id); break;
    case SRV_LIVE_EVENTS: *ret = events(s, o, c, id); break;
    case SRV_LIVE_TICKET: *ret = ticket(s, o, c, id, body, len); break;
    case SRV_LIVE_LIST: {
        char *text = srv_live_list_json(s->live);
        json_t *j = text ? json_loads(text, 0, NULL) : NULL;
        free(text);
        *ret = j ? o->json(c, 200, j) : o->error(c, 500, "out of memory");
        break;
    }
    }
    return true;
}
