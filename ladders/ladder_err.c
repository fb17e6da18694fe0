/* One-line error messages into caller storage (ladder_err.h). */
#include "ladder_err.h"

#include <stdarg.h>
#include <stdio.h>

void ladder_set_err(char *err, size_t cap, const char *fmt, ...)
{
    if (err == NULL || cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}
