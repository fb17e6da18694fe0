/* See ismcts_params.h. */
#include "ismcts_params.h"

#include "jackarena/ja_error.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEYS "iters=N, ms=N, c=X, nodes=N, rollout=auto|random|greedy, anchor=auto|X, verify=auto|N"

static int bad(char *err, size_t cap, const char *what, const char *kv, size_t len)
{
    snprintf(err, cap, "ismcts parameter '%.*s': %s (keys: " KEYS ")", (int)len, kv, what);
    return JA_EINVAL;
}

/* A whole decimal integer in [lo, hi]. */
static int parse_u32(const char *v, size_t len, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf || strspn(v, "0123456789") < len)
        return JA_EINVAL;
    memcpy(buf, v, len);
    buf[len] = '\0';
    errno = 0;
    unsigned long long x = strtoull(buf, NULL, 10);
    if (errno || x < lo || x > hi)
        return JA_EINVAL;
    *out = (uint32_t)x;
    return JA_OK;
}

/* A whole decimal number in [0, 10]. */
static int parse_real(const char *v, size_t len, double *out)
{
    char buf[32], *end;
    if (len == 0 || len >= sizeof buf)
        return JA_EINVAL;
    memcpy(buf, v, len);
    buf[len] = '\0';
    double x = strtod(buf, &end);
    if (*end || !isfinite(x) || x < 0 || x > 10)
        return JA_EINVAL;
    *out = x;
    return JA_OK;
}

int ismcts_params_parse(const char *text, ismcts_params *p, char *err, size_t cap)
{
    *p = (ismcts_params){ISMCTS_DEFAULT_ITERS, 0, ISMCTS_DEFAULT_C, ISMCTS_DEFAULT_NODES,
                         ISMCTS_ROLLOUT_AUTO, ISMCTS_ANCHOR_AUTO, ISMCTS_VERIFY_AUTO};
    int have_iters = 0, have_ms = 0;
    char msg[96];
    for (const char *kv = text ? text : ""; *kv;) {
        size_t len = strcspn(kv, ":");
        const char *eq = memchr(kv, '=', len);
        if (!eq)
            return bad(err, cap, "not key=value", kv, len);
        size_t klen = (size_t)(eq - kv), vlen = len - klen - 1;
        const char *v = eq + 1;
        if (klen == 5 && strncmp(kv, "iters", 5) == 0) {
            snprintf(msg, sizeof msg, "iters must be an integer from 1 to %u", ISMCTS_MAX_ITERS);
            if (parse_u32(v, vlen, 1, ISMCTS_MAX_ITERS, &p->iters))
                return bad(err, cap, msg, kv, len);
            have_iters = 1;
        } else if (klen == 2 && strncmp(kv, "ms", 2) == 0) {
            snprintf(msg, sizeof msg, "ms must be an integer from 1 to %u", ISMCTS_MAX_MS);
            if (parse_u32(v, vlen, 1, ISMCTS_MAX_MS, &p->ms))
                return bad(err, cap, msg, kv, len);
            have_ms = 1;
        } else if (klen == 5 && strncmp(kv, "nodes", 5) == 0) {
            snprintf(msg, sizeof msg, "nodes must be an integer from %u to %u", ISMCTS_MIN_NODES,
                     ISMCTS_MAX_NODES);
            if (parse_u32(v, vlen, ISMCTS_MIN_NODES, ISMCTS_MAX_NODES, &p->nodes))
                return bad(err, cap, msg, kv, len);
        } else if (klen == 1 && kv[0] == 'c') {
            if (parse_real(v, vlen, &p->c))
                return bad(err, cap, "c must be a number from 0 to 10", kv, len);
        } else if (klen == 6 && strncmp(kv, "anchor", 6) == 0) {
            if (vlen == 4 && strncmp(v, "auto", 4) == 0)
                p->anchor = ISMCTS_ANCHOR_AUTO;
            else if (parse_real(v, vlen, &p->anchor))
                return bad(err, cap, "anchor must be auto or a number from 0 to 10", kv, len);
        } else if (klen == 6 && strncmp(kv, "verify", 6) == 0) {
            snprintf(msg, sizeof msg, "verify must be auto or an integer from 0 to %u",
                     ISMCTS_MAX_VERIFY);
            if (vlen == 4 && strncmp(v, "auto", 4) == 0)
                p->verify = ISMCTS_VERIFY_AUTO;
            else if (parse_u32(v, vlen, 0, ISMCTS_MAX_VERIFY, &p->verify))
                return bad(err, cap, msg, kv, len);
        } else if (klen == 7 && strncmp(kv, "rollout", 7) == 0) {
            if (vlen == 6 && strncmp(v, "random", 6) == 0)
                p->rollout = ISMCTS_ROLLOUT_RANDOM;
            else if (vlen == 6 && strncmp(v, "greedy", 6) == 0)
                p->rollout = ISMCTS_ROLLOUT_GREEDY;
            else if (vlen == 4 && strncmp(v, "auto", 4) == 0)
                p->rollout = ISMCTS_ROLLOUT_AUTO;
            else
                return bad(err, cap, "rollout must be auto, random or greedy", kv, len);
        } else {
            return bad(err, cap, "unknown key", kv, len);
        }
        kv += len;
        if (*kv == ':') {
            kv++;
            if (!*kv)
                return bad(err, cap, "empty parameter after ':'", "", 0);
        }
    }
    if (have_iters && have_ms) {
        snprintf(err, cap, "ismcts parameters: give iters=N or ms=N, not both");
        return JA_EINVAL;
    }
    if (have_ms)
        p->iters = 0;
    return JA_OK;
}
