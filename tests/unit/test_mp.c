/* ja_mp_scan: the pre-check that stops hostile msgpack headers before msgpack-c
 * allocates for them, and the typed readers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ja_mp.h"

#include <string.h>

#define SCAN(lit, want, want_end)                                           \
    do {                                                                    \
        size_t end_ = 0;                                                    \
        assert_int_equal(ja_mp_scan(lit, sizeof(lit) - 1, 0, &end_), want);   \
        if ((want) == 1)                                                    \
            assert_int_equal(end_, want_end);                               \
    } while (0)

static void test_scalars(void **state)
{
    SCAN("\x05", 1, 1);
    SCAN("\xff", 1, 1);                     /* negative fixint */
    SCAN("\xc0", 1, 1);                     /* nil */
    SCAN("\xcd\x01\x02", 1, 3);             /* uint16 */
    SCAN("\xcf\x00\x00\x00\x00\x00\x00\x00\x01", 1, 9);
    SCAN("\xcf\x00\x00", 0, 0);             /* uint64 cut short */
    SCAN("\xa3" "abc", 1, 4);               /* fixstr */
    SCAN("\xd9\x03" "abc", 1, 5);           /* str8 */
    SCAN("\xd9\x05" "abc", 0, 0);           /* str8 cut short */
    SCAN("\xc1", -1, 0);                    /* never used */
}

static void test_containers(void **state)
{
    SCAN("\x92\x01\x02", 1, 3);
    SCAN("\x81\xa1k\x01\x07", 1, 4);       /* map, trailing byte not read */
    SCAN("\x92\x01", 0, 0);
    /* An array that claims four billion items in five bytes. */
    SCAN("\xdd\xff\xff\xff\xff", 0, 0);
    SCAN("\xdf\x00\x00\x00\x02\x01\x01\x02\x02", 1, 9);
}

static void test_depth(void **state)
{
    char deep[JA_MP_MAX_DEPTH + 3];
    memset(deep, 0x91, sizeof deep);       /* [[[[...]]]] */
    deep[sizeof deep - 1] = 0x01;
    size_t end;
    assert_int_equal(ja_mp_scan(deep, sizeof deep, 0, &end), -1);
    assert_int_equal(ja_mp_scan(deep + 3, sizeof deep - 3, 0, &end), 1);
}

static void test_typed_reads(void **state)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 3);
    ja_mp_put_kv_str(&pk, "name", "bot");
    ja_mp_put_kv_u64(&pk, "n", 42);
    ja_mp_put_kv_i64(&pk, "i", -1);
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    assert_int_equal(msgpack_unpack_next(&u, sb.data, sb.size, &off), MSGPACK_UNPACK_SUCCESS);
    char buf[8];
    uint64_t v;
    int64_t i;
    assert_true(ja_mp_get_str(&u.data, "name", buf, sizeof buf));
    assert_string_equal(buf, "bot");
    assert_false(ja_mp_get_str(&u.data, "name", buf, 3)); /* too small: refused */
    assert_true(ja_mp_get_u64(&u.data, "n", &v));
    assert_int_equal(v, 42);
    assert_false(ja_mp_get_u64(&u.data, "name", &v));      /* wrong type */
    assert_false(ja_mp_get_u64(&u.data, "i", &v));         /* negative */
    assert_true(ja_mp_get_i64(&u.data, "i", &i));
    assert_int_equal(i, -1);
    assert_null(ja_mp_get(&u.data, "missing"));
    msgpack_unpacked_destroy(&u);
    msgpack_sbuffer_destroy(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_containers),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_typed_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
