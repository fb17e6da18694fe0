/* What the SDK library's option handling (sdk/src/options.c) gives the rules
 * engines beyond ja_rules.h. INTERNAL: not installed, not part of the SDK's
 * interface, and not exported from libjackarena.so (no JA_API).
 *
 * It lives here, under the engines, because both sides read a spec's
 * default the same way: ja_options_resolve for the arena, and every
 * engine's setup() (engine_util.h, eu_option_values) for options it was
 * not given. The engines call down into this file; nothing here knows an
 * engine. */
#ifndef JA_OPTIONS_INTERNAL_H
#define JA_OPTIONS_INTERNAL_H

#include "jackarena/ja_rules.h"

#include <stdint.h>

/* The default of option sp with n_seats seats into *v: ENUM, the index of
 * `def` among `values`; INT, `def` read as "K", "N" or "K*N" (N = n_seats).
 * Returns 1 when it depends on the seat count, 0 when not, -1 (and *v = 0)
 * when `def` is none of those. */
int ja_option_default(const ja_option_spec *sp, uint32_t n_seats, int32_t *v);

#endif /* JA_OPTIONS_INTERNAL_H */
