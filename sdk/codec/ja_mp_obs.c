/* Decoding an observation map (ref_wire_put_obs's output) back into the
 * game's C struct, by the game's field table. Shared by the C client library
 * (sdk/client) and the hosted child (referee/host/ja_host.c), so a bot sees
 * the same struct in every seat kind. */
#include "ja_mp.h"

#include "jackarena/ja_rules.h"

#include <string.h>

/* Writes one element of field f; false when v does not fit its C type. */
static bool put_value(const ja_field *f, unsigned char *p, int64_t v)
{
    switch (f->type) {
    case JA_FT_U8: if (v < 0 || v > UINT8_MAX) return false; *p = (uint8_t)v; return true;
    case JA_FT_I8: { if (v < INT8_MIN || v > INT8_MAX) return false; int8_t x = (int8_t)v; memcpy(p, &x, 1); return true; }
    case JA_FT_U16: { if (v < 0 || v > UINT16_MAX) return false; uint16_t x = (uint16_t)v; memcpy(p, &x, 2); return true; }
    case JA_FT_I16: { if (v < INT16_MIN || v > INT16_MAX) return false; int16_t x = (int16_t)v; memcpy(p, &x, 2); return true; }
    case JA_FT_U32: { if (v < 0 || v > (int64_t)UINT32_MAX) return false; uint32_t x = (uint32_t)v; memcpy(p, &x, 4); return true; }
    case JA_FT_I32: { if (v < INT32_MIN || v > INT32_MAX) return false; int32_t x = (int32_t)v; memcpy(p, &x, 4); return true; }
    case JA_FT_I64: memcpy(p, &v, 8); return true;
    default: return false;
    }
}

static size_t width(uint16_t type)
{
    static const size_t w[JA_FT_COUNT] = {1, 1, 2, 2, 4, 4, 8};
    return type < JA_FT_COUNT ? w[type] : 0;
}

/* Fields the map lacks stay zero: an older referee may not send them. */
bool ja_mp_as_obs(const msgpack_object *om, const ja_game_rules *g, void *obs)
{
    if (!om || om->type != MSGPACK_OBJECT_MAP)
        return false;
    memset(obs, 0, g->obs_size);
    unsigned char *base = obs;
    for (uint32_t i = 0; i < g->n_obs_fields; i++) {
        const ja_field *f = &g->obs_fields[i];
        const msgpack_object *v = ja_mp_get(om, f->name);
        int64_t x;
        if (!v)
            continue; /* an older referee: the field stays zero */
        if (f->count == 1) {
            if (!ja_mp_as_i64(v, &x) || !put_value(f, base + f->offset, x))
                return false;
            continue;
        }
        const msgpack_object *items;
        uint32_t n;
        if (!ja_mp_as_array(v, &items, &n) || n != f->count)
            return false;
        for (uint32_t k = 0; k < n; k++)
            if (!ja_mp_as_i64(&items[k], &x) || !put_value(f, base + f->offset + k * width(f->type), x))
                return false;
    }
    return true;
}


void ja_obs_canonical(const ja_game_rules *g, const void *src, void *dst)
{
    memset(dst, 0, g->obs_size);
    for (uint32_t i = 0; i < g->n_obs_fields; i++) {
        const ja_field *f = &g->obs_fields[i];
        memcpy((unsigned char *)dst + f->offset, (const unsigned char *)src + f->offset,
               (size_t)f->count * width(f->type));
    }
}
