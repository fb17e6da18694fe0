/* Small msgpack-c helpers shared by the replay files and the wire protocol.
 *
 * Writing: one call per string (header and body together, so the two can
 * never disagree). Reading: every msgpack_object is type-checked before its
 * value is read; a lookup that fails returns an error, never a wrong value. */
#ifndef JA_MP_H
#define JA_MP_H

#include <msgpack.h>
#include <msgpack/fbuffer.h>
#include <stdbool.h>
#include <stdint.h>

void ja_mp_put_str(msgpack_packer *pk, const char *s);
void ja_mp_put_kv_str(msgpack_packer *pk, const char *key, const char *val);
void ja_mp_put_kv_u64(msgpack_packer *pk, const char *key, uint64_t val);
void ja_mp_put_kv_i64(msgpack_packer *pk, const char *key, int64_t val);

/* The value under string key in map m, or NULL (also when m is no map). */
const msgpack_object *ja_mp_get(const msgpack_object *m, const char *key);

/* Typed reads of a value; false when absent or of the wrong type or range. */
bool ja_mp_as_u64(const msgpack_object *o, uint64_t *out);
bool ja_mp_as_i64(const msgpack_object *o, int64_t *out);
bool ja_mp_as_bool(const msgpack_object *o, bool *out);
/* Copies a string value (NUL-terminated, truncation is a failure). */
bool ja_mp_as_str(const msgpack_object *o, char *buf, size_t cap);
/* An array value: its items and count. */
bool ja_mp_as_array(const msgpack_object *o, const msgpack_object **items, uint32_t *n);

bool ja_mp_get_u64(const msgpack_object *m, const char *key, uint64_t *out);
bool ja_mp_get_i64(const msgpack_object *m, const char *key, int64_t *out);
bool ja_mp_get_str(const msgpack_object *m, const char *key, char *buf, size_t cap);

/* An observation map (as ref_wire_put_obs writes it) into g's struct at obs
 * (g->obs_size bytes, zeroed first), by g's field table. False when om is
 * no map or a field present has the wrong shape or does not fit its C type;
 * an absent field stays zero. mp_obs.c. */
struct ja_game_rules;
bool ja_mp_as_obs(const msgpack_object *om, const struct ja_game_rules *g, void *obs);

/* Observation src of game g into dst (g->obs_size bytes): zeroed, then the
 * bytes of every field of g's table copied from src. Exactly what
 * ja_mp_as_obs makes of ref_wire_put_obs(src): what a bot sees whatever the
 * form of the act, and never the bytes of src no field covers (padding).
 * mp_obs.c. */
void ja_obs_canonical(const struct ja_game_rules *g, const void *src, void *dst);



/* Checks that buf[off..len) starts with one well-formed msgpack object whose
 * every declared length fits in the bytes that remain, nested at most
 * JA_MP_MAX_DEPTH deep, before msgpack-c allocates for it (msgpack-c allocates
 * an array's slots from its declared size, which a hostile 6-byte header can
 * set to four billion). Returns 1 and the object's end in *end when
 * complete, 0 when the bytes end first (truncated), -1 when malformed. */
#define JA_MP_MAX_DEPTH 32
int ja_mp_scan(const char *buf, size_t len, size_t off, size_t *end);
#endif /* JA_MP_H */
