/* The human seat in a browser (human_web.h): the state the page shows,
 * and the server that answers it (libmicrohttpd, a thread a connection). */
#include "run/human_web.h"

#include "core/json_w.h"
#include "core/util.h"
#include "view/viewer.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The page's files (arena/run/human/, made C strings by embed.cmake) and
 * the replay viewer's (its renderers and style). */
extern const char human_page_human_html[];
extern const char human_page_human_js[];
extern const char human_page_human_css[];
extern const char viewer_tpl_replay_js[];
extern const char viewer_tpl_replay_css[];

#define KEY_BYTES 16
#define KEY_HEX (2 * KEY_BYTES + 1)
#define POLL_SECONDS 25      /* a long poll's longest wait */
#define LINGER_SECONDS 5     /* how long the end waits for the page to fetch it */
#define BODY_MAX 1024        /* a POST's body */
#define CONNECTIONS 16

typedef enum { ST_WAITING, ST_TURN, ST_OVER, ST_LEFT } status_t;

static const char *const STATUS_NAME[] = {"waiting", "turn", "over", "left"};

struct human_web {
    struct MHD_Daemon *d;
    char key[KEY_HEX];
    pthread_mutex_t mu;
    pthread_cond_t cond;         /* the state changed, an answer came, or closing */
    bool closing;
    uint64_t version;            /* of the state below: each change adds one */
    uint64_t delivered;          /* the newest version a response carried whole */
    uint32_t busy;               /* requests in progress */
    /* The match: its game, the seat, the seats' names. */
    const ja_game_rules *g;
    uint32_t seat, n_seats;
    char names[JA_MAX_SEATS][64];
    unsigned char *obs;          /* the seat's newest observation */
    bool seen;
    status_t status;
    /* The decision waiting (ST_TURN), and its answer. */
    uint32_t turn, n_legal;
    ja_action *legal;
    char (*label)[HUMAN_LABEL_MAX];
    bool answered;
    uint32_t answer;
    const char *left;            /* why the person left; NULL */
    ja_outcome outcome;          /* ST_OVER */
};

/* ---- the match's side ------------------------------------------------------------ */

/* A change of the state, told to every waiting request. Under the lock. */
static void changed(human_web *w)
{
    w->version++;
    pthread_cond_broadcast(&w->cond);
}

void human_web_begin(human_web *w, const ja_game_rules *g, uint32_t seat, uint32_t n_seats,
                     const char *const *names)
{
    pthread_mutex_lock(&w->mu);
    free(w->obs);
    free(w->legal);
    free(w->label);
    w->g = g;
    w->seat = seat;
    w->n_seats = n_seats < JA_MAX_SEATS ? n_seats : JA_MAX_SEATS;
    for (uint32_t s = 0; s < w->n_seats; s++)
        snprintf(w->names[s], sizeof w->names[s], "%s", names[s]);
    w->obs = ja_xcalloc(1, g->obs_size);
    w->legal = ja_xcalloc(g->max_actions, sizeof *w->legal);
    w->label = ja_xcalloc(g->max_actions, sizeof *w->label);
    w->seen = w->answered = false;
    w->left = NULL;
    w->status = ST_WAITING;
    changed(w);
    pthread_mutex_unlock(&w->mu);
}

void human_web_view(human_web *w, const void *obs)
{
    pthread_mutex_lock(&w->mu);
    if (!w->seen || memcmp(w->obs, obs, w->g->obs_size) != 0) {
        memcpy(w->obs, obs, w->g->obs_size);
        w->seen = true;
        changed(w);
    }
    pthread_mutex_unlock(&w->mu);
}

void human_web_ask(human_web *w, const void *obs, uint32_t turn, const ja_action *legal,
                   const char (*labels)[HUMAN_LABEL_MAX], uint32_t n)
{
    pthread_mutex_lock(&w->mu);
    memcpy(w->obs, obs, w->g->obs_size);
    w->seen = true;
    w->turn = turn;
    w->n_legal = n < w->g->max_actions ? n : w->g->max_actions;
    memcpy(w->legal, legal, w->n_legal * sizeof *legal);
    memcpy(w->label, labels, w->n_legal * sizeof *labels);
    w->answered = false;
    w->status = ST_TURN;
    changed(w);
    pthread_mutex_unlock(&w->mu);
}

/* Ctrl-C (SIGINT) or SIGTERM while a person plays: the person leaves at
 * the seat's next decision (or at once, if it waits), as the page's Quit
 * or the terminal's q do; a second one ends the process as before
 * (SA_RESETHAND). No SA_RESTART: a terminal's read is cut short. */
static volatile sig_atomic_t g_interrupted;
static struct sigaction g_old_int, g_old_term;
/* A byte is written into it by the handler: the signal may land on any of
 * the arena's threads, so a read on the terminal is not cut short by it;
 * the terminal's seat waits on this pipe too (human_signals_fd). */
static int g_sig_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
    int e = errno;
    g_interrupted = sig;
    if (g_sig_pipe[1] >= 0) {
        ssize_t w = write(g_sig_pipe[1], "s", 1);
        (void)w;
    }
    errno = e;
}

void human_signals_catch(void)
{
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESETHAND};
    sigemptyset(&sa.sa_mask);
    g_interrupted = 0;
    if (g_sig_pipe[0] < 0 && pipe2(g_sig_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        g_sig_pipe[0] = g_sig_pipe[1] = -1;
    sigaction(SIGINT, &sa, &g_old_int);
    sigaction(SIGTERM, &sa, &g_old_term);
}

void human_signals_release(void)
{
    sigaction(SIGINT, &g_old_int, NULL);
    sigaction(SIGTERM, &g_old_term, NULL);
    for (int i = 0; i < 2; i++)
        if (g_sig_pipe[i] >= 0) {
            close(g_sig_pipe[i]);
            g_sig_pipe[i] = -1;
        }
}

int human_signals_fd(void)
{
    return g_sig_pipe[0];
}

const char *human_signals_left(void)
{
    if (!g_interrupted)
        return NULL;
    return g_interrupted == SIGINT ? "it was interrupted (SIGINT: Ctrl-C)"
                                   : "it was interrupted (SIGTERM)";
}

const char *human_web_wait(human_web *w, uint32_t *index)
{
    pthread_mutex_lock(&w->mu);
    while (!w->answered && !w->left && !w->closing) {
        if (human_signals_left()) {
            w->left = human_signals_left();
            w->status = ST_LEFT;
            changed(w);
            break;
        }
        /* A signal does not wake a condition: looked at 4 times a second. */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 250 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&w->cond, &w->mu, &until);
    }
    const char *left = w->left ? w->left : w->answered ? NULL : "the page's server stopped";
    *index = w->answer;
    pthread_mutex_unlock(&w->mu);
    return left;
}

void human_web_end(human_web *w, const ja_outcome *o)
{
    pthread_mutex_lock(&w->mu);
    w->outcome = *o;
    w->status = ST_OVER;
    changed(w);
    pthread_mutex_unlock(&w->mu);
}

/* ---- the state as JSON ----------------------------------------------------------- */

/* "labels": the label of every value the observation holds that the game
 * labels as an action code (the page names the plays an observation
 * records by code, as a replay's model does). */
static void labels_json(json_w *jw, const human_web *w)
{
    enum { MAX_CODES = 1024 };
    int64_t done[MAX_CODES];
    uint32_t n = 0;
    jw_obj(jw, "labels");
    for (uint32_t k = 0; k < w->g->n_obs_fields; k++)
        for (uint32_t i = 0; i < w->g->obs_fields[k].count && n < MAX_CODES; i++) {
            int64_t v;
            viewer_field(w->g, w->obs, w->g->obs_fields[k].name, i, &v);
            bool seen = false;
            for (uint32_t j = 0; j < n && !seen; j++)
                seen = done[j] == v;
            if (seen || v < 0 || v > UINT32_MAX)
                continue;
            done[n++] = v;
            char lab[HUMAN_LABEL_MAX], code[24];
            if (w->g->label((ja_action){(uint32_t)v}, lab, sizeof lab) < 0)
                continue;
            snprintf(code, sizeof code, "%lld", (long long)v);
            jw_str(jw, code, lab);
        }
    jw_obj_end(jw);
}

/* The match's header: the game, the seats by name, the seat played, the
 * field table. */
static void header_json(json_w *jw, const human_web *w)
{
    jw_str(jw, "game", w->g->name);
    jw_str(jw, "title", w->g->title);
    jw_int(jw, "seats", w->n_seats);
    jw_int(jw, "seat", w->seat);
    jw_int(jw, "score_unit", JA_SCORE_UNIT);
    jw_arr(jw, "players");
    for (uint32_t s = 0; s < w->n_seats; s++) {
        jw_obj(jw, NULL);
        jw_str(jw, "name", w->names[s]);
        jw_obj_end(jw);
    }
    jw_arr_end(jw);
    viewer_fields_json(jw, w->g);
}

/* The decision waiting: its turn and legal actions with their labels. */
static void decision_json(json_w *jw, const human_web *w)
{
    jw_int(jw, "turn", w->turn);
    jw_arr(jw, "legal");
    for (uint32_t i = 0; i < w->n_legal; i++) {
        jw_obj(jw, NULL);
        jw_int(jw, "code", w->legal[i].code);
        jw_str(jw, "label", w->label[i]);
        jw_obj_end(jw);
    }
    jw_arr_end(jw);
}

/* The outcome: scores in points, places. */
static void outcome_json(json_w *jw, const human_web *w)
{
    jw_obj(jw, "outcome");
    viewer_points_json(jw, &w->outcome, w->n_seats);
    jw_obj_end(jw);
}

/* The whole state (human_web.h), malloc'd. Under the lock. */
static char *state_json(const human_web *w, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        return NULL;
    json_w jw;
    jw_init(&jw, f);
    jw_obj(&jw, NULL);
    jw_int(&jw, "version", (long long)w->version);
    jw_str(&jw, "status", w->g ? STATUS_NAME[w->status] : "waiting");
    if (w->g) {
        header_json(&jw, w);
        if (w->seen)
            viewer_obs_json(&jw, "obs", w->g, w->obs);
        else
            jw_null(&jw, "obs");
        if (w->seen)
            labels_json(&jw, w);
        if (w->status == ST_TURN && !w->answered)
            decision_json(&jw, w);
        if (w->status == ST_OVER)
            outcome_json(&jw, w);
    }
    jw_obj_end(&jw);
    jw_end(&jw);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ---- answers ----------------------------------------------------------------------- */

/* One request: its body as it arrives, and the state's version its answer
 * carries. */
typedef struct request {
    char body[BODY_MAX];
    size_t len;
    bool too_big;
    uint64_t carries;
} request;

static enum MHD_Result send_buf(struct MHD_Connection *c, unsigned code, const char *type,
                                void *buf, size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, buf, mode);
    if (!r) {
        if (mode == MHD_RESPMEM_MUST_FREE)
            free(buf);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'none'; script-src 'self'; style-src 'self'; "
                            "connect-src 'self'; base-uri 'none'; form-action 'none'; "
                            "frame-ancestors 'none'");
    if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, "Allow", "GET, POST");
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

/* {"error": msg} with the status code. */
static enum MHD_Result send_error(struct MHD_Connection *c, unsigned code, const char *msg)
{
    json_t *j = json_pack("{ss}", "error", msg);
    char *text = j ? json_dumps(j, 0) : NULL;
    json_decref(j);
    if (!text)
        return MHD_NO;
    return send_buf(c, code, "application/json", text, strlen(text), MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result send_ok(struct MHD_Connection *c)
{
    static const char ok[] = "{\"ok\":true}";
    return send_buf(c, MHD_HTTP_OK, "application/json", (void *)ok, sizeof ok - 1,
                    MHD_RESPMEM_PERSISTENT);
}

/* GET /api/KEY/state?after=V: waits (POLL_SECONDS at most) while the
 * state's version is V and the match goes on, then the state. */
static enum MHD_Result get_state(human_web *w, struct MHD_Connection *c, request *q)
{
    const char *after = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "after");
    uint64_t v = 0;
    if (after && !arena_parse_dec(after, strlen(after), UINT64_MAX, &v))
        return send_error(c, MHD_HTTP_BAD_REQUEST, "after must be a version number");
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += POLL_SECONDS;
    pthread_mutex_lock(&w->mu);
    while (after && v == w->version && !w->closing && w->status != ST_LEFT &&
           w->status != ST_OVER && pthread_cond_timedwait(&w->cond, &w->mu, &until) == 0)
        ;
    size_t len = 0;
    char *text = state_json(w, &len);
    q->carries = w->version;
    pthread_mutex_unlock(&w->mu);
    if (!text)
        return MHD_NO;
    return send_buf(c, MHD_HTTP_OK, "application/json", text, len, MHD_RESPMEM_MUST_FREE);
}

/* The body of POST /api/KEY/act: {"turn": T, "code": C} and nothing else.
 * False with the reason in *why. */
static bool parse_act(const request *q, uint32_t *turn, uint32_t *code, const char **why)
{
    *why = "the body must be a JSON object {\"turn\": T, \"code\": C}";
    json_t *j = json_loadb(q->body, q->len, JSON_REJECT_DUPLICATES, NULL);
    json_t *t = json_object_get(j, "turn"), *a = json_object_get(j, "code");
    bool ok = json_is_object(j) && json_object_size(j) == 2 && json_is_integer(t) &&
              json_is_integer(a) && json_integer_value(t) >= 0 &&
              json_integer_value(t) <= UINT32_MAX && json_integer_value(a) >= 0 &&
              json_integer_value(a) <= UINT32_MAX;
    if (ok) {
        *turn = (uint32_t)json_integer_value(t);
        *code = (uint32_t)json_integer_value(a);
    }
    json_decref(j);
    return ok;
}

/* POST /api/KEY/act: the choice, if it is one of the legal actions of the
 * decision waiting. */
static enum MHD_Result post_act(human_web *w, struct MHD_Connection *c, const request *q)
{
    uint32_t turn, code;
    const char *why;
    if (q->too_big || !parse_act(q, &turn, &code, &why))
        return send_error(c, MHD_HTTP_BAD_REQUEST, q->too_big ? "the body is too long" : why);
    char msg[160] = "";
    unsigned status = MHD_HTTP_OK;
    pthread_mutex_lock(&w->mu);
    uint32_t i = 0;
    while (i < w->n_legal && w->legal[i].code != code)
        i++;
    if (w->status != ST_TURN || w->answered) {
        status = MHD_HTTP_CONFLICT;
        snprintf(msg, sizeof msg, "no decision of yours is waiting");
    } else if (turn != w->turn) {
        status = MHD_HTTP_CONFLICT;
        snprintf(msg, sizeof msg, "stale: decision %u is over; the one waiting is %u",
                 (unsigned)turn, (unsigned)w->turn);
    } else if (i == w->n_legal) {
        status = MHD_HTTP_UNPROCESSABLE_CONTENT;
        snprintf(msg, sizeof msg, "code %u is not one of this decision's legal actions",
                 (unsigned)code);
    } else {
        w->answered = true;
        w->answer = i;
        w->status = ST_WAITING;
        changed(w);
    }
    pthread_mutex_unlock(&w->mu);
    return status == MHD_HTTP_OK ? send_ok(c) : send_error(c, status, msg);
}

/* POST /api/KEY/quit: leaves the match at a decision of the seat (as q
 * does in the terminal). */
static enum MHD_Result post_quit(human_web *w, struct MHD_Connection *c, request *q)
{
    pthread_mutex_lock(&w->mu);
    bool ok = w->status == ST_TURN && !w->answered;
    if (ok) {
        w->left = "it quit in the browser";
        w->status = ST_LEFT;
        changed(w);
        q->carries = w->version; /* the page's last answer: the server waits for it */
    }
    pthread_mutex_unlock(&w->mu);
    return ok ? send_ok(c)
              : send_error(c, MHD_HTTP_CONFLICT, "quit at one of your decisions");
}

/* ---- routes ------------------------------------------------------------------------ */

/* The text of a static file, or NULL. */
static const char *static_file(const char *url, const char **type)
{
    static const struct {
        const char *url, *type, *text;
    } files[] = {
        {"/replay.js", "text/javascript; charset=utf-8", viewer_tpl_replay_js},
        {"/replay.css", "text/css; charset=utf-8", viewer_tpl_replay_css},
        {"/human.js", "text/javascript; charset=utf-8", human_page_human_js},
        {"/human.css", "text/css; charset=utf-8", human_page_human_css},
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        if (strcmp(url, files[i].url) == 0) {
            *type = files[i].type;
            return files[i].text;
        }
    return NULL;
}

/* The rest of url after prefix and the key ("" for the page itself), or
 * NULL when url does not hold the key there. */
static const char *keyed(const human_web *w, const char *url, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(url, prefix, n) != 0 || strlen(url + n) < KEY_HEX - 1 ||
        sodium_memcmp(url + n, w->key, KEY_HEX - 1) != 0)
        return NULL;
    return url + n + KEY_HEX - 1;
}

/* A request whose body has arrived whole. */
static enum MHD_Result route(human_web *w, struct MHD_Connection *c, const char *url,
                             const char *method, request *q)
{
    bool get = strcmp(method, "GET") == 0, post = strcmp(method, "POST") == 0;
    const char *type, *text = static_file(url, &type), *rest;
    if (text || ((rest = keyed(w, url, "/play/")) && !*rest)) {
        if (!get)
            return send_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only");
        if (!text)
            type = "text/html; charset=utf-8";
        return send_buf(c, MHD_HTTP_OK, type, (void *)(text ? text : human_page_human_html),
                        strlen(text ? text : human_page_human_html), MHD_RESPMEM_PERSISTENT);
    }
    rest = keyed(w, url, "/api/");
    if (rest && strcmp(rest, "/state") == 0)
        return get ? get_state(w, c, q) : send_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only");
    if (rest && (strcmp(rest, "/act") == 0 || strcmp(rest, "/quit") == 0)) {
        if (!post)
            return send_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "POST only");
        return rest[1] == 'a' ? post_act(w, c, q) : post_quit(w, c, q);
    }
    return send_error(c, MHD_HTTP_NOT_FOUND,
                      "not found: open the address 'arena play' printed (it holds the page's key)");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    request *q = *con_cls;
    if (!q) {
        *con_cls = ja_xcalloc(1, sizeof *q);
        human_web *w = cls;
        pthread_mutex_lock(&w->mu);
        w->busy++;
        pthread_mutex_unlock(&w->mu);
        return MHD_YES;
    }
    if (*upload_data_size) {
        if (q->len + *upload_data_size > sizeof q->body)
            q->too_big = true;
        else
            memcpy(q->body + q->len, upload_data, *upload_data_size);
        q->len += q->too_big ? 0 : *upload_data_size;
        *upload_data_size = 0;
        return MHD_YES;
    }
    return route(cls, c, url, method, q);
}

/* A request done: the version its answer carried, if sent whole, is the
 * page's; one request fewer in progress. */
static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
                    enum MHD_RequestTerminationCode why)
{
    (void)c;
    human_web *w = cls;
    request *q = *con_cls;
    if (!q)
        return;
    pthread_mutex_lock(&w->mu);
    if (why == MHD_REQUEST_TERMINATED_COMPLETED_OK && q->carries > w->delivered)
        w->delivered = q->carries;
    w->busy--;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->mu);
    free(q);
    *con_cls = NULL;
}

/* ---- the server ------------------------------------------------------------------ */

/* A socket listening on host:port (v6: IPv6), its port (the one chosen
 * for port 0) in *bound; -1 with one line in err. Bound here rather than
 * by the server so that a port in use is told as such. */
static int listen_socket(const char *addr, const char *host, uint16_t port, bool v6,
                         uint16_t *bound, char *err, size_t cap)
{
    struct sockaddr_storage ss = {0};
    socklen_t len;
    if (v6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(port);
        inet_pton(AF_INET6, host, &a->sin6_addr);
        len = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_port = htons(port);
        inet_pton(AF_INET, host, &a->sin_addr);
        len = sizeof *a;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 32) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        int e = errno;
        if (e == EADDRINUSE)
            snprintf(err, cap, "--http %s: port %u is in use (another program listens there); "
                     "give another port, or 0 for any free one", addr, (unsigned)port);
        else if (e == EADDRNOTAVAIL)
            snprintf(err, cap, "--http %s: %s is not an address of this machine", addr, host);
        else if (e == EACCES)
            snprintf(err, cap, "--http %s: port %u needs privileges; give one from 1024, or 0",
                     addr, (unsigned)port);
        else
            snprintf(err, cap, "--http %s: cannot listen there: %s", addr, strerror(e));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *bound = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                      : ((struct sockaddr_in *)&ss)->sin_port);
    return fd;
}

int human_web_start(const char *addr, human_web **out, char *url, size_t url_cap, char *err,
                    size_t cap)
{
    char host[64];
    uint16_t port;
    bool v6, loopback;
    *out = NULL;
    if (!arena_http_addr(addr, 0, host, sizeof host, &port, &v6, &loopback, err, cap))
        return JA_EINVAL;
    if (sodium_init() < 0) {
        snprintf(err, cap, "--http %s: libsodium cannot start", addr);
        return JA_EIO;
    }
    int fd = listen_socket(addr, host, port, v6, &port, err, cap);
    if (fd < 0)
        return JA_EIO;
    human_web *w = ja_xcalloc(1, sizeof *w);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cond, NULL);
    unsigned char raw[KEY_BYTES];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(w->key, sizeof w->key, raw, sizeof raw);
    /* A thread a connection: a long poll waits in its own. The server
     * owns fd from here, and closes it when stopped. */
    w->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                                (v6 ? MHD_USE_IPv6 : 0),
                            port, NULL, NULL, on_request, w, MHD_OPTION_LISTEN_SOCKET, fd,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTIONS,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)(2 * POLL_SECONDS),
                            MHD_OPTION_NOTIFY_COMPLETED, on_done, w, MHD_OPTION_END);
    if (!w->d) {
        /* fd is not closed here: libmicrohttpd may have closed it already
         * (a second close could close another thread's file), and the
         * command ends with this error. */
        snprintf(err, cap, "--http %s: the page's server cannot start", addr);
        human_web_stop(&w);
        return JA_EIO;
    }
    snprintf(url, url_cap, "http://%s%s%s:%u/play/%s", v6 ? "[" : "", host, v6 ? "]" : "",
             (unsigned)port, w->key);
    *out = w;
    human_signals_catch();
    return JA_OK;
}

void human_web_stop(human_web **wp)
{
    human_web *w = *wp;
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    /* The page's last look first: the result or its quit answered, and no
     * request cut short; not when no page ever came (no browser to wait
     * for). */
    if (w->d && (w->delivered || w->busy) && (w->status == ST_OVER || w->status == ST_LEFT)) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += LINGER_SECONDS;
        while ((w->delivered < w->version || w->busy) &&
               pthread_cond_timedwait(&w->cond, &w->mu, &until) == 0)
            ;
    }
    w->closing = true;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->mu);
    if (w->d) {
        MHD_stop_daemon(w->d);
        human_signals_release();
    }
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->mu);
    sodium_memzero(w->key, sizeof w->key);
    free(w->obs);
    free(w->legal);
    free(w->label);
    free(w);
    *wp = NULL;
}
