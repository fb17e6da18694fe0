/* The ladders library's one-line error messages into caller storage: the
 * err/cap pair its checking functions take (plan.h, pairing.h, deals.h).
 * Internal to the library. */
#ifndef JA_LADDER_ERR_H
#define JA_LADDER_ERR_H

#include <stddef.h>

/* Formats one line into err (cap bytes, NUL-terminated, truncated when
 * longer); does nothing when err is NULL or cap is 0. */
__attribute__((format(printf, 3, 4))) void ladder_set_err(char *err, size_t cap,
                                                          const char *fmt, ...);

#endif /* JA_LADDER_ERR_H */
