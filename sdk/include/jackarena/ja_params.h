/* A bot's parameters: helpers for reading and checking them.
 *
 * Every bot may take parameters, given after its specifier
 * (`ismcts:iters=2000:c=0.7`, `./mybot.so:depth=3`, `cmd[depth=3]:./mybot`)
 * and handed to it as one text of KEY=VALUE items separated by ':'
 * ("iters=2000:c=0.7"; "" for none): through ja_host_api.params to a
 * plugin, through $JACKARENA_PARAMS and the `start` message's `params` to an
 * external bot. A bot checks them in its descriptor's check_params
 * (ja_bot.h, ABI 1.2), so that a typo is refused before any match runs, and
 * reads them in create(). These functions do both without hand parsing:
 *
 *     static const char *const KEYS[] = {"depth", "style", NULL};
 *     static const char *const STYLES[] = {"calm", "wild", NULL};
 *     static int check_params(const char *params, char *err, size_t cap)
 *     {
 *         int64_t depth;
 *         int style;
 *         int rc = ja_params_check_keys(params, KEYS, err, cap);
 *         if (rc == JA_OK)
 *             rc = ja_params_int(params, "depth", 1, 20, 4, &depth, err, cap);
 *         if (rc == JA_OK)
 *             rc = ja_params_word(params, "style", STYLES, 0, &style, err, cap);
 *         return rc;
 *     }
 *
 * Grammar: items are separated by ':'; an item is KEY=VALUE, the key being
 * what precedes its first '=' (a value may hold '=', never ':'). An empty
 * item (a ':' at an end or twice in a row) and an empty key are malformed.
 * A key given twice is refused by ja_params_check_keys; the lookups read
 * its first occurrence.
 *
 * Errors: JA_OK, or JA_EINVAL with one line in err (cap bytes, always
 * NUL-terminated when cap > 0) naming the key and what is allowed, e.g.
 * "unknown parameter 'iterz' (known: iters, ms, c)" or "parameter 'iters'
 * must be an integer from 1 to 10000000, not '0'". params NULL reads as "".
 * Pure functions: no allocation, no global state, safe from any thread. */
#ifndef JA_PARAMS_H
#define JA_PARAMS_H

#include "ja_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of a bot's parameter text, its NUL included: hosts refuse longer.
 * Frozen for ABI major 1 (docs/plugin-abi.md, "Frozen for ABI 1"). */
#define JA_PARAMS_MAX 256

/* One KEY=VALUE item, pointing into the text (not NUL-terminated). */
typedef struct ja_param {
    const char *key;
    size_t key_len;          /* >= 1 */
    const char *value;       /* after the '='; NULL when the item has none */
    size_t value_len;
} ja_param;

/* Steps through the items of params. *pos starts at 0 and is advanced.
 * Returns 1 with *out, 0 after the last item, or JA_EINVAL (err) for an
 * empty item or an empty key. */
JA_API int ja_params_next(const char *params, size_t *pos, ja_param *out, char *err,
                          size_t cap);

/* Checks that every key is one of known (a NULL-terminated list; NULL or
 * an empty list: the bot takes no parameters), given once, with a value.
 * JA_OK, or JA_EINVAL with "unknown parameter 'K' (known: A, B)" (or "(this
 * bot takes no parameters)"), "parameter 'K' needs a value (K=VALUE)",
 * "parameter 'K' is given twice", or a malformed text's message. */
JA_API int ja_params_check_keys(const char *params, const char *const *known, char *err,
                                size_t cap);

/* The value of key, copied NUL-terminated into buf: 1 when present, 0 when
 * absent (buf ""), JA_EINVAL (err) for a malformed text, an item without a
 * value, or a value longer than cap - 1 bytes. */
JA_API int ja_params_get(const char *params, const char *key, char *buf, size_t cap,
                         char *err, size_t ecap);

/* Key as a decimal integer (an optional '-', digits only) in [lo, hi];
 * def when absent. JA_OK with *out, or JA_EINVAL with "parameter 'K' must
 * be an integer from LO to HI, not 'V'". */
JA_API int ja_params_int(const char *params, const char *key, int64_t lo, int64_t hi,
                         int64_t def, int64_t *out, char *err, size_t cap);

/* Key as a finite decimal number ("0.7", "-2", "1e3") in [lo, hi]; def when
 * absent. JA_OK with *out, or JA_EINVAL with "parameter 'K' must be a number
 * from LO to HI, not 'V'". */
JA_API int ja_params_double(const char *params, const char *key, double lo, double hi,
                            double def, double *out, char *err, size_t cap);

/* Key as one of words (a NULL-terminated list): *out is its index; def when
 * absent. JA_OK, or JA_EINVAL with "parameter 'K' must be one of A, B, not
 * 'V'". */
JA_API int ja_params_word(const char *params, const char *key, const char *const *words,
                          int def, int *out, char *err, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* JA_PARAMS_H */
