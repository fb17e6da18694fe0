/* See ismcts_params.h. The text is read with the SDK's parameter helpers
 * (ja_params.h), so the messages are those of every bot. */
#include "ismcts_params.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_params.h"

#include <stdio.h>
#include <string.h>

static const char *const KEYS[] = {"iters", "ms", "c", "nodes", "rollout", "anchor", "verify",
                                   "early",   "steps",  "horizon", "drop", "infer", "stride", NULL};
/* In the order of ismcts_rollout. */
static const char *const ROLLOUTS[] = {"auto", "random", "greedy", NULL};
static const char *const ONOFF[] = {"off", "on", NULL};
/* In the order of ismcts_horizon. */
static const char *const HORIZONS[] = {"auto", "match", "hand", NULL};

/* key as "auto" (*out keeps its value) or a number in [lo, hi] (a whole
 * one when integer). Absent: JA_OK, *out untouched. */
static int auto_or(const char *text, const char *key, bool integer, double lo, double hi,
                   double *out, char *err, size_t cap)
{
    char v[JA_PARAMS_MAX];
    int r = ja_params_get(text, key, v, sizeof v, err, cap);
    if (r <= 0 || strcmp(v, "auto") == 0)
        return r < 0 ? r : JA_OK;
    int64_t n;
    if (integer ? ja_params_int(text, key, (int64_t)lo, (int64_t)hi, 0, &n, err, cap) == JA_OK
                : ja_params_double(text, key, lo, hi, 0, out, err, cap) == JA_OK) {
        if (integer)
            *out = (double)n;
        return JA_OK;
    }
    snprintf(err, cap, "parameter '%s' must be auto or %s from %.10g to %.10g, not '%.64s'", key,
             integer ? "an integer" : "a number", lo, hi, v);
    return JA_EINVAL;
}

int ismcts_params_parse(const char *text, ismcts_params *p, char *err, size_t cap)
{
    *p = (ismcts_params){ISMCTS_ITERS_AUTO, 0, ISMCTS_DEFAULT_C, ISMCTS_DEFAULT_NODES,
                         ISMCTS_ROLLOUT_AUTO, ISMCTS_ANCHOR_AUTO, ISMCTS_VERIFY_AUTO, ISMCTS_STEPS_AUTO,
                         true, ISMCTS_HORIZON_AUTO, ISMCTS_DROP_AUTO, ISMCTS_INFER_AUTO,
                         ISMCTS_STRIDE_AUTO};
    int64_t ms, nodes;
    int rollout = 0, early = 1, horizon = 0;
    double verify = -1, iters = 0, steps = -1, infer = -1, stride = -1;
    int rc = ja_params_check_keys(text, KEYS, err, cap);
    if (rc == JA_OK)
        rc = auto_or(text, "iters", true, 1, ISMCTS_MAX_ITERS, &iters, err, cap);
    if (rc == JA_OK)
        rc = ja_params_int(text, "ms", 1, ISMCTS_MAX_MS, 0, &ms, err, cap);
    if (rc == JA_OK)
        rc = ja_params_int(text, "nodes", ISMCTS_MIN_NODES, ISMCTS_MAX_NODES,
                           ISMCTS_DEFAULT_NODES, &nodes, err, cap);
    if (rc == JA_OK)
        rc = ja_params_double(text, "c", 0, 10, ISMCTS_DEFAULT_C, &p->c, err, cap);
    if (rc == JA_OK)
        rc = ja_params_word(text, "rollout", ROLLOUTS, ISMCTS_ROLLOUT_AUTO, &rollout, err, cap);
    if (rc == JA_OK)
        rc = auto_or(text, "anchor", false, 0, 10, &p->anchor, err, cap);
    if (rc == JA_OK)
        rc = auto_or(text, "verify", true, 0, ISMCTS_MAX_VERIFY, &verify, err, cap);
    if (rc == JA_OK)
        rc = auto_or(text, "steps", true, 0, ISMCTS_MAX_STEP_BUDGET, &steps, err, cap);
    if (rc == JA_OK)
        rc = ja_params_word(text, "early", ONOFF, 1, &early, err, cap);
    if (rc == JA_OK)
        rc = ja_params_word(text, "horizon", HORIZONS, ISMCTS_HORIZON_AUTO, &horizon, err, cap);
    if (rc == JA_OK)
        rc = auto_or(text, "drop", false, 0, 10, &p->drop, err, cap);
    if (rc == JA_OK)
        rc = auto_or(text, "infer", true, 0, ISMCTS_MAX_INFER, &infer, err, cap);
    if (rc == JA_OK)
        rc = auto_or(text, "stride", true, 1, ISMCTS_MAX_STRIDE, &stride, err, cap);
    if (rc != JA_OK)
        return rc;
    if (iters && ms) {
        snprintf(err, cap, "give iters=N or ms=N, not both");
        return JA_EINVAL;
    }
    p->iters = ms ? 0 : iters > 0 ? (uint32_t)iters : ISMCTS_ITERS_AUTO;
    p->early = early != 0;
    p->horizon = (ismcts_horizon)horizon;
    p->ms = (uint32_t)ms;
    p->nodes = (uint32_t)nodes;
    p->rollout = (ismcts_rollout)rollout;
    if (verify >= 0)
        p->verify = (uint32_t)verify;
    if (steps >= 0)
        p->steps = (uint32_t)steps;
    if (infer >= 0)
        p->infer = (uint32_t)infer;
    if (stride >= 0)
        p->stride = (uint32_t)stride;
    return JA_OK;
}
