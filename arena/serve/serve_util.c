/* The pure pieces of `arena serve` (serve_util.h). */
#include "serve/serve_util.h"
#include "core/util.h"
#include "run/executor.h"
#include "run/repro.h"

#include <inttypes.h>
#include <stdio.h>

#include "jackarena/ja_params.h"
#include "ja_xalloc.h"

#include <arpa/inet.h>
#include <math.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool arena_serve_name_ok(const char *name)
{
    if (name == NULL || !is_alnum(name[0]))
        return false;
    size_t n = 0;
    for (; name[n]; n++)
        if (n >= ARENA_SERVE_NAME_MAX || !(is_alnum(name[n]) || name[n] == '_' || name[n] == '-'))
            return false;
    return true;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

uint64_t arena_serve_seed(uint64_t server_seed, uint32_t purpose, uint64_t index)
{
    unsigned char in[20], h[16];
    put_le(in, server_seed, 8);
    put_le(in + 8, purpose, 4);
    put_le(in + 12, index, 8);
    crypto_generichash(h, sizeof h, in, sizeof in, NULL, 0);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | h[i];
    sodium_memzero(in, sizeof in);
    return v;
}

bool arena_serve_params_ok(const char *params, char *err, size_t cap)
{
    size_t len = strnlen(params, ARENA_SERVE_PARAMS_MAX + 1);
    if (len > ARENA_SERVE_PARAMS_MAX) {
        snprintf(err, cap, "the parameters are longer than %d bytes", ARENA_SERVE_PARAMS_MAX);
        return false;
    }
    for (size_t i = 0; i < len; i++)
        if (params[i] <= ' ' || params[i] > '~') {
            snprintf(err, cap, "the parameters may hold only printable ASCII without spaces "
                               "(KEY=VALUE items joined by ':')");
            return false;
        }
    size_t pos = 0;
    ja_param p;
    int rc;
    while ((rc = ja_params_next(params, &pos, &p, err, cap)) == 1)
        if (p.value == NULL || p.value_len == 0) {
            snprintf(err, cap, "parameter '%.*s' has no value (KEY=VALUE items joined by ':')",
                     (int)(p.key_len < 32 ? p.key_len : 32), p.key);
            return false;
        }
    return rc == 0;
}

void arena_serve_token_new(char out[ARENA_SERVE_TOKEN_HEX])
{
    unsigned char b[ARENA_SERVE_TOKEN_BYTES];
    randombytes_buf(b, sizeof b);
    sodium_bin2hex(out, ARENA_SERVE_TOKEN_HEX, b, sizeof b);
    sodium_memzero(b, sizeof b);
}

static bool is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return s[n] == '\0';
}

bool arena_serve_token_shape(const char *token)
{
    return token && strnlen(token, ARENA_SERVE_TOKEN_HEX) == ARENA_SERVE_TOKEN_HEX - 1 &&
           is_hex(token, ARENA_SERVE_TOKEN_HEX - 1);
}

void arena_serve_token_hash(const char *token, char out[ARENA_SERVE_HASH_HEX])
{
    unsigned char h[32];
    crypto_generichash(h, sizeof h, (const unsigned char *)token, strlen(token), NULL, 0);
    sodium_bin2hex(out, ARENA_SERVE_HASH_HEX, h, sizeof h);
}

bool arena_serve_token_check(const char *token, const char *stored_hash)
{
    if (!arena_serve_token_shape(token) || stored_hash == NULL ||
        strnlen(stored_hash, ARENA_SERVE_HASH_HEX) != ARENA_SERVE_HASH_HEX - 1)
        return false;
    char h[ARENA_SERVE_HASH_HEX];
    arena_serve_token_hash(token, h);
    return sodium_memcmp(h, stored_hash, ARENA_SERVE_HASH_HEX - 1) == 0;
}

bool arena_serve_bearer(const char *header, char out[ARENA_SERVE_TOKEN_HEX])
{
    if (header == NULL || strncasecmp(header, "Bearer ", 7) != 0)
        return false;
    const char *t = header + 7;
    while (*t == ' ')
        t++;
    size_t n = strnlen(t, ARENA_SERVE_TOKEN_HEX + 1);
    while (n > 0 && t[n - 1] == ' ')
        n--;
    if (n != ARENA_SERVE_TOKEN_HEX - 1)
        return false;
    memcpy(out, t, n);
    out[n] = '\0';
    return arena_serve_token_shape(out);
}

/* ---- routing ----------------------------------------------------------------- */

static bool match_id_n(const char *s, size_t len, int64_t *t, uint32_t *num)
{
    const char *dash = memchr(s, '-', len);
    uint64_t a, b;
    if (dash == NULL || !arena_parse_dec(s, (size_t)(dash - s), INT64_MAX, &a) || a == 0 ||
        !arena_parse_dec(dash + 1, len - (size_t)(dash + 1 - s), UINT32_MAX, &b))
        return false;
    *t = (int64_t)a;
    *num = (uint32_t)b;
    return true;
}

bool arena_serve_match_id(const char *s, int64_t *tournament, uint32_t *number)
{
    return s && match_id_n(s, strlen(s), tournament, number);
}

/* Copies the name s[0..n-1] into out if it is a valid name. */
static bool take_name(const char *s, size_t n, char out[ARENA_SERVE_NAME_MAX + 1])
{
    if (n == 0 || n > ARENA_SERVE_NAME_MAX)
        return false;
    memcpy(out, s, n);
    out[n] = '\0';
    return arena_serve_name_ok(out);
}

static bool ends_with(const char *s, size_t n, const char *suffix, size_t *stem)
{
    size_t k = strlen(suffix);
    if (n < k || memcmp(s + n - k, suffix, k) != 0)
        return false;
    *stem = n - k;
    return true;
}

const arena_serve_asset arena_serve_assets[] = {
    {"/static/site.css", "text/css; charset=utf-8"},
    {"/static/ladder.js", "text/javascript; charset=utf-8"},
    {"/static/submit.js", "text/javascript; charset=utf-8"},
    {"/static/live.js", "text/javascript; charset=utf-8"},
    {"/static/live_match.js", "text/javascript; charset=utf-8"},
    {"/matches/replay.js", "text/javascript; charset=utf-8"},
    {"/matches/replay.css", "text/css; charset=utf-8"},
};
const unsigned arena_serve_n_assets = sizeof arena_serve_assets / sizeof *arena_serve_assets;

void arena_serve_route(const char *method, const char *path, arena_route *out)
{
    memset(out, 0, sizeof *out);
    if (method == NULL || path == NULL)
        return;
    bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    bool post = strcmp(method, "POST") == 0;
    arena_route_kind k = ARENA_ROUTE_NONE;
    bool want_post = false;
    size_t n = strlen(path), stem;
    if (strcmp(path, "/") == 0)
        k = ARENA_ROUTE_INDEX;
    else if (strcmp(path, "/submit") == 0)
        k = ARENA_ROUTE_SUBMIT_PAGE;
    else if (strcmp(path, "/api/register") == 0)
        k = ARENA_ROUTE_REGISTER, want_post = true;
    else if (strcmp(path, "/api/bots") == 0)
        k = ARENA_ROUTE_UPLOAD, want_post = true;
    else if (strcmp(path, "/api/ladder") == 0)
        k = ARENA_ROUTE_LADDER;
    else if (strcmp(path, "/api/events") == 0)
        k = ARENA_ROUTE_EVENTS;
    else if (strcmp(path, "/api/external") == 0)
        k = ARENA_ROUTE_EXTERNAL, want_post = true;
    else if (strcmp(path, "/api/server") == 0)
        k = ARENA_ROUTE_SERVER;
    else if (strcmp(path, "/api/matches") == 0)
        k = ARENA_ROUTE_MATCHES;
    else if (strcmp(path, "/matches") == 0)
        k = ARENA_ROUTE_MATCHES_PAGE;
    else if (strncmp(path, "/bots/", 6) == 0) {
        if (ends_with(path + 6, n - 6, "/matches", &stem) && take_name(path + 6, stem, out->name))
            k = ARENA_ROUTE_BOT_MATCHES_PAGE;
        else if (take_name(path + 6, n - 6, out->name))
            k = ARENA_ROUTE_BOT_PAGE;
    } else if (strncmp(path, "/api/bots/", 10) == 0) {
        const char *s = path + 10;
        const char *vs = strstr(s, "/versions/"), *sm = vs ? strstr(vs + 10, "/smoke/") : NULL;
        uint64_t v, i;
        if (ends_with(s, n - 10, "/retire", &stem) && take_name(s, stem, out->name))
            k = ARENA_ROUTE_RETIRE, want_post = true;
        else if (ends_with(s, n - 10, "/matches", &stem) && take_name(s, stem, out->name))
            k = ARENA_ROUTE_BOT_MATCHES;
        else if (sm && take_name(s, (size_t)(vs - s), out->name) &&
                 arena_parse_dec(vs + 10, (size_t)(sm - (vs + 10)), UINT32_MAX, &v) && v >= 1 &&
                 arena_parse_dec(sm + 7, strlen(sm + 7), UINT32_MAX, &i)) {
            k = ARENA_ROUTE_SMOKE_BUNDLE;
            out->version = (uint32_t)v;
            out->number = (uint32_t)i;
        }
        else if (take_name(s, n - 10, out->name))
            k = ARENA_ROUTE_BOT;
    } else if (strncmp(path, "/api/matches/", 13) == 0) {
        if (match_id_n(path + 13, n - 13, &out->tournament, &out->number))
            k = ARENA_ROUTE_MATCH;
        else if (ends_with(path + 13, n - 13, "/logs", &stem) &&
                 match_id_n(path + 13, stem, &out->tournament, &out->number))
            k = ARENA_ROUTE_MATCH_LOGS;
    } else if (strncmp(path, "/matches/", 9) == 0) {
        const char *s = path + 9;
        if (ends_with(s, n - 9, ".html", &stem) &&
            match_id_n(s, stem, &out->tournament, &out->number))
            k = ARENA_ROUTE_MATCH_PAGE;
        else if (ends_with(s, n - 9, ".replay", &stem) &&
                 match_id_n(s, stem, &out->tournament, &out->number))
            k = ARENA_ROUTE_MATCH_REPLAY;
    }
    for (unsigned a = 0; k == ARENA_ROUTE_NONE && a < arena_serve_n_assets; a++)
        if (strcmp(path, arena_serve_assets[a].path) == 0) {
            k = ARENA_ROUTE_STATIC;
            out->number = a;
        }
    if (k == ARENA_ROUTE_NONE) {
        memset(out, 0, sizeof *out);
        return;
    }
    out->kind = (want_post ? post : get) ? k : ARENA_ROUTE_BAD_METHOD;
}

void arena_serve_smoke_dir(const char *data, int64_t id, char *out, size_t cap)
{
    snprintf(out, cap, "%s/validation/%" PRId64, data, id);
}

void arena_serve_smoke_bundle(const char *data, int64_t id, uint32_t i, char *out, size_t cap)
{
    char dir[4300], replay[4400];
    arena_serve_smoke_dir(data, id, dir, sizeof dir);
    arena_replay_name(replay, sizeof replay, dir, 0, i);
    arena_repro_path(out, cap, replay);
}

/* ---- server-sent events ---------------------------------------------------------- */

void arena_sse_set(arena_sse_out *o, uint64_t id, const char *data)
{
    size_t n = data ? strlen(data) + 48 : 16;
    o->pending = ja_xmalloc(n);
    if (data)
        snprintf(o->pending, n, "id: %" PRIu64 "\ndata: %s\n\n", id, data);
    else
        snprintf(o->pending, n, ": keep-alive\n\n");
    o->len = strlen(o->pending);
    o->off = 0;
}

size_t arena_sse_copy(arena_sse_out *o, char *buf, size_t max)
{
    size_t n = o->len - o->off < max ? o->len - o->off : max;
    memcpy(buf, o->pending + o->off, n);
    o->off += n;
    if (o->off == o->len) {
        free(o->pending);
        o->pending = NULL;
    }
    return n;
}

/* ---- --http ------------------------------------------------------------------- */

bool arena_serve_http_addr(const char *s, char *host, size_t host_cap, uint16_t *port, bool *v6,
                           bool *loopback, char *err, size_t cap)
{
    return arena_http_addr(s, 1, host, host_cap, port, v6, loopback, err, cap);
}

/* ---- pairing ------------------------------------------------------------------- */

bool arena_serve_pair(const arena_pair_cand *c, uint32_t n, uint32_t n_seats, uint32_t *pick)
{
    if (n_seats == 0 || n < n_seats)
        return false;
    uint32_t first = 0;
    for (uint32_t i = 1; i < n; i++)
        if (c[i].games < c[first].games || (c[i].games == c[first].games && c[i].id < c[first].id))
            first = i;
    pick[0] = first;
    for (uint32_t s = 1; s < n_seats; s++) {
        int best = -1;
        double bd = 0;
        for (uint32_t i = 0; i < n; i++) {
            bool taken = false;
            for (uint32_t j = 0; j < s; j++)
                taken |= pick[j] == i || c[pick[j]].author == c[i].author;
            if (taken)
                continue;
            double d = fabs(c[i].elo - c[first].elo);
            if (best < 0 || d < bd ||
                (d == bd && (c[i].games < c[best].games ||
                             (c[i].games == c[best].games && c[i].id < c[best].id)))) {
                best = (int)i;
                bd = d;
            }
        }
        if (best < 0)
            return false; /* fewer authors than seats */
        pick[s] = (uint32_t)best;
    }
    return true;
}

int arena_serve_fair_next(const int64_t *author, const bool *eligible, uint32_t n, int64_t last)
{
    /* The eligible author after `last` with the smallest id, else the
     * smallest of all; then that author's first (oldest) eligible version. */
    int after = -1, any = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (!eligible[i])
            continue;
        if (any < 0 || author[i] < author[any])
            any = (int)i;
        if (author[i] > last && (after < 0 || author[i] < author[after]))
            after = (int)i;
    }
    return after >= 0 ? after : any;
}
