/* msgpack-c helpers (mp.h). */
#include "ja_mp.h"

#include <string.h>

void ja_mp_put_str(msgpack_packer *pk, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, s ? s : "", n);
}

void ja_mp_put_kv_str(msgpack_packer *pk, const char *key, const char *val)
{
    ja_mp_put_str(pk, key);
    ja_mp_put_str(pk, val);
}

void ja_mp_put_kv_u64(msgpack_packer *pk, const char *key, uint64_t val)
{
    ja_mp_put_str(pk, key);
    msgpack_pack_uint64(pk, val);
}

void ja_mp_put_kv_i64(msgpack_packer *pk, const char *key, int64_t val)
{
    ja_mp_put_str(pk, key);
    msgpack_pack_int64(pk, val);
}

const msgpack_object *ja_mp_get(const msgpack_object *m, const char *key)
{
    if (!m || m->type != MSGPACK_OBJECT_MAP)
        return NULL;
    size_t klen = strlen(key);
    for (uint32_t i = 0; i < m->via.map.size; i++) {
        const msgpack_object *k = &m->via.map.ptr[i].key;
        if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == klen &&
            memcmp(k->via.str.ptr, key, klen) == 0)
            return &m->via.map.ptr[i].val;
    }
    return NULL;
}

bool ja_mp_as_u64(const msgpack_object *o, uint64_t *out)
{
    if (!o || o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return false;
    *out = o->via.u64;
    return true;
}

bool ja_mp_as_i64(const msgpack_object *o, int64_t *out)
{
    if (!o)
        return false;
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
        *out = o->via.i64;
        return true;
    }
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= (uint64_t)INT64_MAX) {
        *out = (int64_t)o->via.u64;
        return true;
    }
    return false;
}

bool ja_mp_as_bool(const msgpack_object *o, bool *out)
{
    if (!o || o->type != MSGPACK_OBJECT_BOOLEAN)
        return false;
    *out = o->via.boolean;
    return true;
}

bool ja_mp_as_str(const msgpack_object *o, char *buf, size_t cap)
{
    if (!o || o->type != MSGPACK_OBJECT_STR || o->via.str.size >= cap)
        return false;
    memcpy(buf, o->via.str.ptr, o->via.str.size);
    buf[o->via.str.size] = '\0';
    return true;
}

bool ja_mp_as_array(const msgpack_object *o, const msgpack_object **items, uint32_t *n)
{
    if (!o || o->type != MSGPACK_OBJECT_ARRAY)
        return false;
    *items = o->via.array.ptr;
    *n = o->via.array.size;
    return true;
}

bool ja_mp_get_u64(const msgpack_object *m, const char *key, uint64_t *out)
{
    return ja_mp_as_u64(ja_mp_get(m, key), out);
}

bool ja_mp_get_i64(const msgpack_object *m, const char *key, int64_t *out)
{
    return ja_mp_as_i64(ja_mp_get(m, key), out);
}

bool ja_mp_get_str(const msgpack_object *m, const char *key, char *buf, size_t cap)
{
    return ja_mp_as_str(ja_mp_get(m, key), buf, cap);
}

static uint64_t be(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

/* Walks the msgpack encoding (the format's own specification) keeping, per
 * open container, how many objects it still owes. */
int ja_mp_scan(const char *buf, size_t len, size_t off, size_t *end)
{
    const unsigned char *p = (const unsigned char *)buf;
    uint64_t owed[JA_MP_MAX_DEPTH + 1];
    int depth = 0;
    owed[0] = 1;
    while (depth >= 0) {
        if (owed[depth] == 0) {
            depth--;
            continue;
        }
        owed[depth]--;
        if (off >= len)
            return 0;
        unsigned c = p[off++];
        uint64_t skip = 0, items = 0;
        int lenbytes = 0;
        if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3)
            skip = 0;
        else if (c >= 0x80 && c <= 0x8f)
            items = 2 * (uint64_t)(c & 0x0f);
        else if (c >= 0x90 && c <= 0x9f)
            items = c & 0x0f;
        else if (c >= 0xa0 && c <= 0xbf)
            skip = c & 0x1f;
        else {
            switch (c) {
            case 0xc4: case 0xd9: lenbytes = 1; break;
            case 0xc5: case 0xda: lenbytes = 2; break;
            case 0xc6: case 0xdb: lenbytes = 4; break;
            case 0xc7: lenbytes = 1; skip = 1; break;
            case 0xc8: lenbytes = 2; skip = 1; break;
            case 0xc9: lenbytes = 4; skip = 1; break;
            case 0xca: skip = 4; break;
            case 0xcb: skip = 8; break;
            case 0xcc: case 0xd0: skip = 1; break;
            case 0xcd: case 0xd1: skip = 2; break;
            case 0xce: case 0xd2: skip = 4; break;
            case 0xcf: case 0xd3: skip = 8; break;
            case 0xd4: skip = 2; break;
            case 0xd5: skip = 3; break;
            case 0xd6: skip = 5; break;
            case 0xd7: skip = 9; break;
            case 0xd8: skip = 17; break;
            case 0xdc: case 0xde: lenbytes = -2; break;
            case 0xdd: case 0xdf: lenbytes = -4; break;
            default: return -1; /* 0xc1 is never used */
            }
        }
        if (lenbytes) {
            int nb = lenbytes < 0 ? -lenbytes : lenbytes;
            if (len - off < (size_t)nb)
                return 0;
            uint64_t n = be(p + off, nb);
            off += (size_t)nb;
            if (lenbytes > 0)
                skip += n;
            else
                items = (c == 0xde || c == 0xdf) ? 2 * n : n;
        }
        if (skip) {
            if (len - off < skip)
                return 0;
            off += (size_t)skip;
        }
        if (items) {
            /* Every object takes at least one byte. */
            if (items > len - off)
                return 0; /* cut short, or a count no file this size can hold */
            if (depth == JA_MP_MAX_DEPTH)
                return -1;
            owed[++depth] = items;
        }
    }
    *end = off;
    return 1;
}
