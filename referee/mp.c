/* msgpack-c helpers (mp.h). */
#include "mp.h"

#include <string.h>

void mp_put_str(msgpack_packer *pk, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, s ? s : "", n);
}

void mp_put_kv_str(msgpack_packer *pk, const char *key, const char *val)
{
    mp_put_str(pk, key);
    mp_put_str(pk, val);
}

void mp_put_kv_u64(msgpack_packer *pk, const char *key, uint64_t val)
{
    mp_put_str(pk, key);
    msgpack_pack_uint64(pk, val);
}

void mp_put_kv_i64(msgpack_packer *pk, const char *key, int64_t val)
{
    mp_put_str(pk, key);
    msgpack_pack_int64(pk, val);
}

const msgpack_object *mp_get(const msgpack_object *m, const char *key)
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

bool mp_as_u64(const msgpack_object *o, uint64_t *out)
{
    if (!o || o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return false;
    *out = o->via.u64;
    return true;
}

bool mp_as_i64(const msgpack_object *o, int64_t *out)
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

bool mp_as_bool(const msgpack_object *o, bool *out)
{
    if (!o || o->type != MSGPACK_OBJECT_BOOLEAN)
        return false;
    *out = o->via.boolean;
    return true;
}

bool mp_as_str(const msgpack_object *o, char *buf, size_t cap)
{
    if (!o || o->type != MSGPACK_OBJECT_STR || o->via.str.size >= cap)
        return false;
    memcpy(buf, o->via.str.ptr, o->via.str.size);
    buf[o->via.str.size] = '\0';
    return true;
}

bool mp_as_array(const msgpack_object *o, const msgpack_object **items, uint32_t *n)
{
    if (!o || o->type != MSGPACK_OBJECT_ARRAY)
        return false;
    *items = o->via.array.ptr;
    *n = o->via.array.size;
    return true;
}

bool mp_get_u64(const msgpack_object *m, const char *key, uint64_t *out)
{
    return mp_as_u64(mp_get(m, key), out);
}

bool mp_get_i64(const msgpack_object *m, const char *key, int64_t *out)
{
    return mp_as_i64(mp_get(m, key), out);
}

bool mp_get_str(const msgpack_object *m, const char *key, char *buf, size_t cap)
{
    return mp_as_str(mp_get(m, key), buf, cap);
}
