/* ABI 1 frozen (docs/plugin-abi.md, "Frozen for ABI 1"): the constants a
 * compiled plugin bakes in, and the size and every member's offset of each
 * struct that crosses the plugin boundary, at their values of ABI 1.3 on
 * LP64 (x86-64, aarch64).
 *
 * Checked twice: by _Static_assert (the build fails on a change) and at run
 * time, from the same table, so that the test names what moved. A change
 * here is an incompatible change (ABI 2), except appending a member to a
 * struct that starts with struct_size (ja_decision, ja_host_api,
 * ja_bot_desc, ja_game_rules): that is a minor version, and the new size
 * goes here with the new JA_BOT_ABI_MINOR. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "jackarena/ja_bot.h"
#include "jackarena/ja_params.h"
#include "jackarena/ja_rules.h"

/* The constants: C(name, value). */
#define ABI_CONSTANTS(C)          \
    C(JA_BOT_ABI_MAJOR, 1)        \
    C(JA_BOT_ABI_MINOR, 3)        \
    C(JA_MAX_SEATS, 20)           \
    C(JA_MAX_ACTIONS, 128)        \
    C(JA_MAX_OPTIONS, 16)         \
    C(JA_SCORE_UNIT, 27720)       \
    C(JA_PARAMS_MAX, 256)         \
    C(JA_LOG_ERROR, 0)            \
    C(JA_LOG_WARN, 1)             \
    C(JA_LOG_INFO, 2)             \
    C(JA_LOG_DEBUG, 3)            \
    C(JA_OPT_ENUM, 0)             \
    C(JA_OPT_INT, 1)              \
    C(JA_BOT_OBS_ON_DEMAND, 1)

/* The layouts on LP64: S(type, size), O(type, member, offset). */
#define ABI_LAYOUTS(S, O) \
    S(ja_action, 4) \
    O(ja_action, code, 0) \
    S(ja_options, 84) \
    O(ja_options, n, 0) \
    O(ja_options, value, 4) \
    O(ja_options, given, 68) \
    S(ja_outcome, 192) \
    O(ja_outcome, n_seats, 0) \
    O(ja_outcome, score, 8) \
    O(ja_outcome, place, 168) \
    S(ja_decision, 64) \
    O(ja_decision, struct_size, 0) \
    O(ja_decision, turn, 4) \
    O(ja_decision, deadline_ms, 8) \
    O(ja_decision, seat, 12) \
    O(ja_decision, n_seats, 16) \
    O(ja_decision, game, 24) \
    O(ja_decision, obs_version, 32) \
    O(ja_decision, obs_size, 36) \
    O(ja_decision, obs, 40) \
    O(ja_decision, legal, 48) \
    O(ja_decision, n_legal, 56) \
    S(ja_host_api, 56) \
    O(ja_host_api, struct_size, 0) \
    O(ja_host_api, log, 8) \
    O(ja_host_api, rng_next, 16) \
    O(ja_host_api, time_left_ms, 24) \
    O(ja_host_api, rules, 32) \
    O(ja_host_api, params, 40) \
    O(ja_host_api, observe, 48) \
    S(ja_bot_desc, 88) \
    O(ja_bot_desc, struct_size, 0) \
    O(ja_bot_desc, abi_major, 4) \
    O(ja_bot_desc, abi_minor, 6) \
    O(ja_bot_desc, name, 8) \
    O(ja_bot_desc, version, 16) \
    O(ja_bot_desc, supports, 24) \
    O(ja_bot_desc, create, 32) \
    O(ja_bot_desc, act, 40) \
    O(ja_bot_desc, end, 48) \
    O(ja_bot_desc, destroy, 56) \
    O(ja_bot_desc, extension, 64) \
    O(ja_bot_desc, check_params, 72) \
    O(ja_bot_desc, flags, 80) \
    S(ja_option_spec, 48) \
    O(ja_option_spec, name, 0) \
    O(ja_option_spec, kind, 8) \
    O(ja_option_spec, values, 16) \
    O(ja_option_spec, min, 24) \
    O(ja_option_spec, max, 28) \
    O(ja_option_spec, def, 32) \
    O(ja_option_spec, help, 40) \
    S(ja_field, 24) \
    O(ja_field, name, 0) \
    O(ja_field, offset, 8) \
    O(ja_field, type, 12) \
    O(ja_field, count, 14) \
    O(ja_field, doc, 16) \
    S(ja_game_rules, 176) \
    O(ja_game_rules, struct_size, 0) \
    O(ja_game_rules, rules_version, 4) \
    O(ja_game_rules, name, 8) \
    O(ja_game_rules, title, 16) \
    O(ja_game_rules, min_seats, 24) \
    O(ja_game_rules, max_seats, 25) \
    O(ja_game_rules, state_size, 28) \
    O(ja_game_rules, obs_size, 32) \
    O(ja_game_rules, max_actions, 36) \
    O(ja_game_rules, obs_version, 40) \
    O(ja_game_rules, options, 48) \
    O(ja_game_rules, obs_fields, 56) \
    O(ja_game_rules, n_obs_fields, 64) \
    O(ja_game_rules, resolve_options, 72) \
    O(ja_game_rules, setup, 80) \
    O(ja_game_rules, to_act, 88) \
    O(ja_game_rules, legal, 96) \
    O(ja_game_rules, apply, 104) \
    O(ja_game_rules, default_action, 112) \
    O(ja_game_rules, observe, 120) \
    O(ja_game_rules, outcome, 128) \
    O(ja_game_rules, determinize, 136) \
    O(ja_game_rules, sample, 144) \
    O(ja_game_rules, label, 152) \
    O(ja_game_rules, describe, 160) \
    O(ja_game_rules, extension, 168)

#define STATIC_CONST(name, value) _Static_assert((name) == (value), #name " is frozen for ABI 1");
ABI_CONSTANTS(STATIC_CONST)

#if UINTPTR_MAX == UINT64_MAX && defined(__LP64__)
#define ABI_LP64 1
#define STATIC_SIZE(T, n) _Static_assert(sizeof(T) == (n), "sizeof(" #T ") is frozen for ABI 1");
#define STATIC_OFFSET(T, m, n) \
    _Static_assert(offsetof(T, m) == (n), "offsetof(" #T ", " #m ") is frozen for ABI 1");
ABI_LAYOUTS(STATIC_SIZE, STATIC_OFFSET)
#else
#define ABI_LP64 0
#endif

typedef struct abi_fact {
    const char *what;
    long long actual, frozen;
} abi_fact;

#define FACT_CONST(name, value) {#name, (long long)(name), (value)},
static const abi_fact CONSTANTS[] = {ABI_CONSTANTS(FACT_CONST)};

#if ABI_LP64
#define FACT_SIZE(T, n) {"sizeof(" #T ")", (long long)sizeof(T), (n)},
#define FACT_OFFSET(T, m, n) {"offsetof(" #T ", " #m ")", (long long)offsetof(T, m), (n)},
static const abi_fact LAYOUTS[] = {ABI_LAYOUTS(FACT_SIZE, FACT_OFFSET)};
#endif

static void check(const abi_fact *f, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        if (f[i].actual != f[i].frozen) {
            print_error("%s is %lld; ABI 1 froze it at %lld\n", f[i].what, f[i].actual,
                        f[i].frozen);
            bad++;
        }
    assert_int_equal(bad, 0);
}

static void test_constants(void **state)
{
    (void)state;
    check(CONSTANTS, sizeof CONSTANTS / sizeof CONSTANTS[0]);
}

static void test_layouts(void **state)
{
    (void)state;
#if ABI_LP64
    check(LAYOUTS, sizeof LAYOUTS / sizeof LAYOUTS[0]);
#else
    skip();
#endif
}

/* What the frozen layouts are for: a host reads a member of a descriptor or
 * host table only when struct_size covers it, so a plugin built against
 * ABI 1.0 or 1.1 (a smaller descriptor) has no check_params, and a 1.0 host
 * table no params, whatever bytes follow them. */
static int no_params(const char *params, char *err, size_t cap)
{
    (void)params;
    (void)err;
    (void)cap;
    return 0;
}

static const char *params_of(void *hctx)
{
    (void)hctx;
    return "";
}

static void test_struct_size_gates_members(void **state)
{
    (void)state;
    ja_bot_desc d;
    memset(&d, 0, sizeof d);
    d.check_params = no_params;
    d.struct_size = sizeof d;
    assert_true(JA_BOT_HAS(&d, check_params));
    d.struct_size = (uint32_t)offsetof(ja_bot_desc, check_params); /* ABI 1.0, 1.1 */
    assert_false(JA_BOT_HAS(&d, check_params));
    ja_host_api h;
    memset(&h, 0, sizeof h);
    h.params = params_of;
    h.struct_size = sizeof h;
    assert_true(JA_HOST_HAS(&h, params));
    h.struct_size = (uint32_t)offsetof(ja_host_api, params); /* ABI 1.0 */
    assert_false(JA_HOST_HAS(&h, params));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constants),
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_struct_size_gates_members),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
