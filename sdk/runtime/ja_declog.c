/* A decision's log (ja_declog.h). */
#include "ja_declog.h"

#include <string.h>

void ja_declog_clear(ja_declog *l)
{
    l->len = 0;
    l->cut = false;
    l->text[0] = '\0';
}

/* The length of the valid UTF-8 character at p (n bytes left), 0 if there
 * is none: no overlong form, no surrogate, nothing past U+10FFFF. *cp gets
 * its code point. */
static size_t utf8_char(const unsigned char *p, size_t n, uint32_t *cp)
{
    unsigned char c = p[0];
    size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    if (c < 0xc2 || c > 0xf4 || len > n)
        return 0;
    uint32_t v = c & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (p[i] & 0x3f);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < least[len] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return len;
}

/* Whether code point v (of two or more bytes) is shown as '?': the C1
 * controls, the line and paragraph separators, and the bidirectional
 * embeddings, overrides and isolates (text that reorders what follows it). */
static bool hidden_char(uint32_t v)
{
    return v <= 0x9f || v == 0x2028 || v == 0x2029 || (v >= 0x202a && v <= 0x202e) ||
           (v >= 0x2066 && v <= 0x2069);
}

/* One character of the n bytes at p, cleaned, into out (up to 4 bytes):
 * returns the bytes it took from p; *olen the bytes written (0: dropped). */
static size_t clean_char(const unsigned char *p, size_t n, char out[4], size_t *olen)
{
    unsigned char c = p[0];
    *olen = 1;
    if (c < 0x80) {
        out[0] = c == '\n' ? '\n' : c == '\t' ? ' ' : c < 0x20 || c == 0x7f ? '?' : (char)c;
        *olen = c == '\r' ? 0 : 1;
        return 1;
    }
    uint32_t v = 0;
    size_t len = utf8_char(p, n, &v);
    if (!len || hidden_char(v)) {
        out[0] = '?';
        return len ? len : 1;
    }
    memcpy(out, p, len);
    *olen = len;
    return len;
}

size_t ja_declog_clean(char *p, size_t n)
{
    size_t in = 0, out = 0;
    while (in < n) {
        char ch[4];
        size_t olen;
        in += clean_char((const unsigned char *)p + in, n - in, ch, &olen);
        memcpy(p + out, ch, olen); /* out + olen <= in: never ahead of what is read */
        out += olen;
    }
    return out;
}

void ja_declog_cut(ja_declog *l, size_t max, const char *marker)
{
    size_t m = strlen(marker);
    if (max > JA_DECLOG_MAX)
        max = JA_DECLOG_MAX;
    if (m > max)
        m = max;
    size_t keep = l->len < max - m ? l->len : max - m;
    /* Back to the start of a character: the text is valid UTF-8. */
    while (keep > 0 && keep < l->len && ((unsigned char)l->text[keep] & 0xc0) == 0x80)
        keep--;
    memcpy(l->text + keep, marker, m);
    l->len = (uint32_t)(keep + m);
    l->text[l->len] = '\0';
    l->cut = true;
}

void ja_declog_add(ja_declog *l, const char *p, size_t n)
{
    const unsigned char *u = (const unsigned char *)p;
    for (size_t i = 0; i < n && !l->cut;) {
        char ch[4];
        size_t olen;
        i += clean_char(u + i, n - i, ch, &olen);
        if (l->len + olen > JA_DECLOG_MAX) {
            ja_declog_cut(l, JA_DECLOG_MAX, JA_DECLOG_CUT);
            break;
        }
        memcpy(l->text + l->len, ch, olen);
        l->len += (uint32_t)olen;
    }
    l->text[l->len] = '\0';
}

void ja_declog_line(ja_declog *l, const char *msg)
{
    ja_declog_add(l, msg, strlen(msg));
    ja_declog_add(l, "\n", 1);
}

void ja_declog_take(ja_declog *dst, ja_declog *src)
{
    dst->len = src->len;
    dst->cut = src->cut;
    memcpy(dst->text, src->text, (size_t)src->len + 1);
    ja_declog_clear(src);
}
