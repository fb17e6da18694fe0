/* One error-code table for the whole project.
 *
 * Every function that can fail returns int: 0 (JA_OK) on success or a
 * negative JA_E* code. Codes are never renumbered, only appended. A bot's
 * misbehaviour is not an error: it is a fault (ja_fault, in ja_bot.h),
 * recorded as data. */
#ifndef JA_ERROR_H
#define JA_ERROR_H

#include "ja_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, message) */
#define JA_ERRNO_MAP(X)                                              \
    X(OK, 0, "success")                                              \
    X(EINVAL, -1, "invalid argument")                                \
    X(ENOMEM, -2, "out of memory")                                   \
    X(EILLEGAL, -3, "illegal action")                                \
    X(EAGAIN, -4, "not available yet")                               \
    X(ENOTFOUND, -5, "not found")                                    \
    X(EIO, -6, "input/output error")                                 \
    X(EFORMAT, -7, "malformed data")                                 \
    X(EVERSION, -8, "version mismatch")                              \
    X(EUNSUPPORTED, -9, "not supported")                             \
    X(EBOT, -10, "bot failure")                                      \
    X(ETIMEOUT, -11, "timed out")                                    \
    X(EBUSY, -12, "resource busy")                                   \
    X(EDB, -13, "database error")                                    \
    X(ERANGE, -14, "value out of range")                             \
    X(ESTATE, -15, "operation not valid in this state")              \
    X(EMISMATCH, -16, "verification mismatch")

typedef enum ja_err {
#define JA__ERR_ENUM(name, value, msg) JA_##name = (value),
    JA_ERRNO_MAP(JA__ERR_ENUM)
#undef JA__ERR_ENUM
    JA_ERR_COUNT = 17 /* number of codes in the table */
} ja_err;

/* A sentence describing code rc ("illegal action"); "unknown error" for a
 * code not in the table. Static storage. */
JA_API const char *ja_strerror(int rc);

/* The code's name without prefix ("EILLEGAL"); "UNKNOWN" otherwise. */
JA_API const char *ja_err_name(int rc);

#ifdef __cplusplus
}
#endif
#endif /* JA_ERROR_H */
