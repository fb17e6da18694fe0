/* Unit tests of the referee worker protocol's codec (arena/run/worker_msg.h):
 * every message packs and decodes back to what was packed; a result's
 * replay and export bytes point into the frame; truncated frames, trailing
 * bytes, wrong types, out-of-range seat counts and slots, and another
 * protocol version are refused with a reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_error.h"
#include "ja_mp.h"
#include "run/worker_msg.h"

static void test_hello_and_simple(void **state)
{
    (void)state;
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    worker_msg m;
    char why[256];
    worker_pack_hello(&sb, 3, 8, "box:42", 42);
    assert_int_equal(worker_msg_decode(sb.data, sb.size, &m, why, sizeof why), JA_OK);
    assert_int_equal(m.type, WORKER_HELLO);
    assert_int_equal(m.slots, 3);
    assert_string_equal(m.host, "box:42");
    assert_int_equal(m.pid, 42);
    assert_int_equal(m.depth, 8);
    worker_pack_hello(&sb, 0, 8, "box", 1);
    assert_int_equal(worker_msg_decode(sb.data, sb.size, &m, why, sizeof why), JA_EFORMAT);
    assert_non_null(strstr(why, "slots"));
    /* depth: 2..64; a string, or none (an older worker: 2 a slot). */
    worker_pack_hello(&sb, 1, WORKER_DEPTH_MIN - 1, "box", 1);
    assert_int_equal(worker_msg_decode(sb.data, sb.size, &m, why, sizeof why), JA_EFORMAT);
    assert_non_null(strstr(why, "depth"));
    worker_pack_hello(&sb, 1, WORKER_MAX_DEPTH + 1, "box", 1);
    assert_int_equal(worker_msg_decode(sb.data, sb.size, &m, why, sizeof why), JA_EFORMAT);
    assert_non_null(strstr(why, "depth"));
    for (int k = 0; k < 2; k++) {
        msgpack_packer pk;
        msgpack_sbuffer_clear(&sb);
        msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
        msgpack_pack_map(&pk, k ? 6 : 5);
        ja_mp_put_kv_str(&pk, "t", "hello");
        ja_mp_put_kv_u64(&pk, "v", WORKER_PROTO_VERSION);
        ja_mp_put_kv_u64(&pk, "slots", 2);
        ja_mp_put_kv_str(&pk, "host", "old:7");
        ja_mp_put_kv_i64(&pk, "pid", 7);
        if (k)
            ja_mp_put_kv_str(&pk, "depth", "deep");
        int rc = worker_msg_decode(sb.data, sb.size, &m, why, sizeof why);
        if (k) {
            assert_int_equal(rc, JA_EFORMAT);
            assert_non_null(strstr(why, "depth"));
        } else {
            assert_int_equal(rc, JA_OK);
            assert_int_equal(m.depth, WORKER_DEPTH_MIN);
            assert_int_equal(m.slots, 2);
        }
    }
    worker_pack_simple(&sb, WORKER_QUIT);
    assert_int_equal(worker_msg_decode(sb.data, sb.size, &m, why, sizeof why), JA_OK);
    assert_int_equal(m.type, WORKER_QUIT);
    msgpack_sbuffer_destroy(&sb);
}

static void test_job_round_trip(void **state)
{
    (void)state;
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    arena_job job = {17, 0xfedcba9876543210ull, 3, {2, 0, 1}};
    worker_pack_job(&sb, "CTX", 3, &job, true);
    worker_msg m;
    char why[256];
    assert_int_equal(worker_msg_decode(sb.data, sb.size, &m, why, sizeof why), JA_OK);
    assert_int_equal(m.type, WORKER_JOB);
    assert_int_equal(m.job.number, 17);
    assert_true(m.job.seed == 0xfedcba9876543210ull);
    assert_int_equal(m.job.n_seats, 3);
    assert_int_equal(m.job.slot[0], 2);
    assert_int_equal(m.job.slot[2], 1);
    assert_true(m.export_wanted);
    assert_int_equal(m.ctx_len, 3);
    assert_memory_equal(m.ctx, "CTX", 3);
    /* every shorter prefix is refused, never read past */
    for (size_t n = 0; n < sb.size; n++)
        assert_int_not_equal(worker_msg_decode(sb.data, n, &m, why, sizeof why), JA_OK);
    msgpack_sbuffer_destroy(&sb);
}

static void test_result_round_trip(void **state)
{
    (void)state;
    arena_job_result r;
    memset(&r, 0, sizeof r);
    r.number = 5;
    r.res.outcome.n_seats = 3;
    r.res.outcome.score[0] = -7;
    r.res.outcome.score[2] = 12;
    r.res.outcome.place[0] = 3;
    r.res.outcome.place[1] = 2;
    r.res.outcome.place[2] = 1;
    r.res.faults[1] = 2;
    r.res.fault_kinds[1][JA_FAULT_COUNT - 1] = 2;
    r.res.forfeit[1] = 1;
    r.res.decisions = 99;
    r.res.asked = 80;
    r.res.think_us[2] = 123456789012ull;
    for (int i = 0; i < REF_DIGEST_BYTES; i++)
        r.res.digest[i] = (uint8_t)i;
    char xd[] = "exported";
    r.export_data = xd;
    r.export_len = sizeof xd;
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    worker_pack_result(&sb, &r, "REPLAY", 6);
    worker_msg m;
    char why[256];
    assert_int_equal(worker_msg_decode(sb.data, sb.size, &m, why, sizeof why), JA_OK);
    assert_int_equal(m.type, WORKER_RESULT);
    assert_int_equal(m.res.number, 5);
    assert_int_equal(m.res.rc, JA_OK);
    assert_memory_equal(&m.res.res.outcome, &r.res.outcome, sizeof r.res.outcome);
    assert_memory_equal(m.res.res.fault_kinds, r.res.fault_kinds, sizeof r.res.fault_kinds);
    assert_memory_equal(m.res.res.faults, r.res.faults, sizeof r.res.faults);
    assert_memory_equal(m.res.res.forfeit, r.res.forfeit, sizeof r.res.forfeit);
    assert_memory_equal(m.res.res.think_us, r.res.think_us, sizeof r.res.think_us);
    assert_memory_equal(m.res.res.digest, r.res.digest, REF_DIGEST_BYTES);
    assert_int_equal(m.res.res.decisions, 99);
    assert_int_equal(m.res.res.asked, 80);
    assert_int_equal(m.replay_len, 6);
    assert_memory_equal(m.replay, "REPLAY", 6);
    assert_true(m.replay >= sb.data && m.replay + 6 <= sb.data + sb.size);
    assert_int_equal(m.res.export_len, sizeof xd);
    assert_memory_equal(m.res.export_data, xd, sizeof xd);
    /* trailing bytes are refused */
    msgpack_sbuffer_write(&sb, "\xc0", 1);
    assert_int_equal(worker_msg_decode(sb.data, sb.size, &m, why, sizeof why), JA_EFORMAT);
    /* a seat count beyond JA_MAX_SEATS is refused */
    r.res.outcome.n_seats = JA_MAX_SEATS + 1;
    worker_pack_result(&sb, &r, NULL, 0);
    assert_int_equal(worker_msg_decode(sb.data, sb.size, &m, why, sizeof why), JA_EFORMAT);
    /* a failed job carries its error and no match result */
    memset(&r, 0, sizeof r);
    r.number = 9;
    r.rc = JA_EMISMATCH;
    snprintf(r.err, sizeof r.err, "worker w: bot differs");
    worker_pack_result(&sb, &r, NULL, 0);
    assert_int_equal(worker_msg_decode(sb.data, sb.size, &m, why, sizeof why), JA_OK);
    assert_int_equal(m.res.rc, JA_EMISMATCH);
    assert_string_equal(m.res.err, "worker w: bot differs");
    assert_null(m.replay);
    msgpack_sbuffer_destroy(&sb);
}

static void test_refusals(void **state)
{
    (void)state;
    worker_msg m;
    char why[256];
    /* not msgpack, not a map, no type, unknown type, another version */
    assert_int_equal(worker_msg_decode("\xc1", 1, &m, why, sizeof why), JA_EFORMAT);
    assert_true(why[0]);
    assert_int_equal(worker_msg_decode("\x01", 1, &m, why, sizeof why), JA_EFORMAT);
    assert_int_equal(worker_msg_decode("\x80", 1, &m, why, sizeof why), JA_EFORMAT);
    assert_non_null(strstr(why, "type"));
    assert_int_equal(worker_msg_decode("\x81\xa1t\xa4nope", 8, &m, why, sizeof why), JA_EFORMAT);
    assert_non_null(strstr(why, "nope"));
    /* a 4-billion-entry array header in 8 bytes: refused before allocation */
    assert_int_equal(worker_msg_decode("\x81\xa1t\xdd\xff\xff\xff\xff", 8, &m, why, sizeof why),
                     JA_EFORMAT);
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 5);
    msgpack_pack_str(&pk, 1);
    msgpack_pack_str_body(&pk, "t", 1);
    msgpack_pack_str(&pk, 5);
    msgpack_pack_str_body(&pk, "hello", 5);
    const char *keys[] = {"v", "slots", "pid"};
    for (int i = 0; i < 3; i++) {
        msgpack_pack_str(&pk, strlen(keys[i]));
        msgpack_pack_str_body(&pk, keys[i], strlen(keys[i]));
        msgpack_pack_uint32(&pk, i == 0 ? 2 : 1);
    }
    msgpack_pack_str(&pk, 4);
    msgpack_pack_str_body(&pk, "host", 4);
    msgpack_pack_str(&pk, 1);
    msgpack_pack_str_body(&pk, "h", 1);
    assert_int_equal(worker_msg_decode(sb.data, sb.size, &m, why, sizeof why), JA_EVERSION);
    assert_non_null(strstr(why, "protocol 2"));
    msgpack_sbuffer_destroy(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hello_and_simple),
        cmocka_unit_test(test_job_round_trip),
        cmocka_unit_test(test_result_round_trip),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
