/* Fuzz target: what `arena serve` parses from a request before anything
 * else (arena/serve/serve_util.h): the route of a method and path, the bearer
 * token of an Authorization header, a match id, the --http address, HTML
 * escaping, a submission's parameters, and the live routes
 * (arena/serve/serve_live.h). Every input must be
 * routed or refused, never crash or read out of bounds, and nothing with
 * "..", '%' or a backslash in its path may reach a route. Built for
 * libFuzzer in a clang build with -DJA_FUZZ=ON (scripts/fuzz.sh); in every
 * other build fuzz_driver.c runs it over the checked-in corpus
 * (tests/fuzz/corpus/serve). */
#include "serve/serve_live.h"
#include "core/util.h"
#include "serve/serve_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    /* The input as a string: the first byte picks the method. */
    char *s = malloc(size + 1);
    if (s == NULL)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    static const char *const methods[] = {"GET", "POST", "HEAD", "PUT"};
    const char *path = size ? s + 1 : s;
    arena_route r;
    arena_serve_route(methods[size ? (uint8_t)s[0] % 4 : 0], path, &r);
    if (r.kind != ARENA_ROUTE_NONE &&
        (strstr(path, "..") || strchr(path, '%') || strchr(path, '\\') || strchr(path, '?')))
        abort();
    if ((r.kind == ARENA_ROUTE_BOT || r.kind == ARENA_ROUTE_BOT_PAGE ||
         r.kind == ARENA_ROUTE_RETIRE || r.kind == ARENA_ROUTE_BOT_MATCHES ||
         r.kind == ARENA_ROUTE_BOT_MATCHES_PAGE) && !arena_serve_name_ok(r.name))
        abort();
    if (r.kind == ARENA_ROUTE_STATIC &&
        (r.number >= arena_serve_n_assets || strcmp(path, arena_serve_assets[r.number].path)))
        abort();
    if ((r.kind == ARENA_ROUTE_MATCH || r.kind == ARENA_ROUTE_MATCH_PAGE ||
         r.kind == ARENA_ROUTE_MATCH_REPLAY || r.kind == ARENA_ROUTE_MATCH_LOGS) &&
        r.tournament < 1)
        abort();

    /* The live routes: the same rules, and a canonical match id. */
    char id[SRV_LIVE_ID_MAX];
    srv_live_route_kind lk = srv_live_route(methods[size ? (uint8_t)s[0] % 4 : 0], path, id);
    if (lk != SRV_LIVE_NONE &&
        (strstr(path, "..") || strchr(path, '%') || strchr(path, '\\') || strchr(path, '?')))
        abort();
    int64_t lt;
    uint32_t ln;
    if (id[0] && (!arena_serve_match_id(id, &lt, &ln) || lt < 1 || !strstr(path, id)))
        abort();

    /* A submission's parameters (X-Bot-Params): accepted only in their
     * shape, printable ASCII without spaces, KEY=VALUE items. */
    char perr[200];
    if (arena_serve_params_ok(s, perr, sizeof perr)) {
        size_t pl = strlen(s);
        if (pl > ARENA_SERVE_PARAMS_MAX)
            abort();
        for (size_t i = 0; i < pl; i++)
            if (s[i] <= ' ' || s[i] > '~')
                abort();
        if (pl && (s[0] == ':' || s[pl - 1] == ':' || strstr(s, "::") || !strchr(s, '=')))
            abort();
    } else if (perr[0] == '\0' || strchr(perr, '\n')) {
        abort();
    }

    char tok[ARENA_SERVE_TOKEN_HEX];
    if (arena_serve_bearer(s, tok) && !arena_serve_token_shape(tok))
        abort();
    int64_t t;
    uint32_t n;
    if (arena_serve_match_id(s, &t, &n) && t < 1)
        abort();
    char host[64], err[512];
    uint16_t port;
    bool v6, lo;
    if (arena_serve_http_addr(s, host, sizeof host, &port, &v6, &lo, err, sizeof err)) {
        if (port == 0 || host[0] == '\0')
            abort();
    } else if (strchr(err, '\n') && !strchr(s, '\n')) {
        abort(); /* one line, unless the input itself has a newline */
    }

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        abort();
    arena_html(f, s);
    fclose(f);
    if (strpbrk(buf, "<>\"'"))
        abort();
    free(buf);
    free(s);
    return 0;
}
