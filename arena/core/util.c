/* Helpers of the arena library and its commands (util.h). */
#include "core/util.h"


#include <errno.h>
#include <inttypes.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void arena_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("arena: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

bool arena_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno)
        return false;
    *out = (uint64_t)v;
    return true;
}

bool arena_parse_u32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (!arena_parse_u64(s, &v) || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

uint64_t arena_random_seed(void)
{
    uint64_t v = 0;
    if (sodium_init() >= 0)
        randombytes_buf(&v, sizeof v);
    return v;
}

void arena_format_score(int64_t units, char *buf, size_t cap)
{
    if (units % JA_SCORE_UNIT == 0)
        snprintf(buf, cap, "%" PRId64, units / JA_SCORE_UNIT);
    else
        snprintf(buf, cap, "%.4g", (double)units / JA_SCORE_UNIT);
}

/* ---- outputs ------------------------------------------------------------------ */

int arena_text_cols(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

int arena_col_width(int floor, int cols)
{
    return cols > floor ? cols : floor;
}

void arena_put_col(FILE *out, const char *s, int width)
{
    fputs(s, out);
    for (int n = arena_text_cols(s); n < width; n++)
        fputc(' ', out);
}

void arena_html(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            if (c >= 0x20 || c == '\t' || c == '\n')
                fputc(c, f);
        }
    }
}
