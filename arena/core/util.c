/* Helpers of the arena library and its commands (util.h). */
#include "core/util.h"


#include <errno.h>
#include <arpa/inet.h>
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

bool arena_parse_dec(const char *s, size_t n, uint64_t max, uint64_t *out)
{
    if (n == 0 || n > 19 || (s[0] == '0' && n > 1))
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > max)
        return false;
    *out = v;
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

bool arena_http_addr(const char *s, uint16_t min_port, char *host, size_t host_cap, uint16_t *port,
                     bool *v6, bool *loopback, char *err, size_t cap)
{
    const char *colon = strrchr(s, ':');
    if (colon == NULL || colon == s) {
        snprintf(err, cap, "--http needs HOST:PORT (e.g. 127.0.0.1:8080), not '%s'", s);
        return false;
    }
    uint64_t p;
    if (!arena_parse_dec(colon + 1, strlen(colon + 1), 65535, &p) || p < min_port) {
        snprintf(err, cap, "--http '%s': the port must be a number from %u to 65535", s,
                 (unsigned)min_port);
        return false;
    }
    size_t hl = (size_t)(colon - s);
    const char *h = s;
    *v6 = false;
    if (h[0] == '[') {
        if (hl < 3 || h[hl - 1] != ']') {
            snprintf(err, cap, "--http '%s': an IPv6 address goes in brackets ([::1]:8080)", s);
            return false;
        }
        h++;
        hl -= 2;
        *v6 = true;
    }
    if (hl + 1 > host_cap || hl >= 64) {
        snprintf(err, cap, "--http '%s': the host is too long", s);
        return false;
    }
    char buf[64];
    memcpy(buf, h, hl);
    buf[hl] = '\0';
    if (!*v6 && strcmp(buf, "localhost") == 0)
        snprintf(buf, sizeof buf, "127.0.0.1");
    unsigned char a[16];
    if (inet_pton(*v6 ? AF_INET6 : AF_INET, buf, a) != 1) {
        snprintf(err, cap,
                 "--http '%s': the host must be a numeric IPv4 address, localhost or [IPv6]", s);
        return false;
    }
    static const unsigned char lo6[16] = {[15] = 1};
    *loopback = *v6 ? memcmp(a, lo6, 16) == 0 : a[0] == 127;
    snprintf(host, host_cap, "%s", buf);
    *port = (uint16_t)p;
    return true;
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
