/* Helpers of the unit tests that link the arena library (ja_arena) and run
 * a command's library functions into a memory stream. */
#ifndef JA_TESTS_ARENA_TEST_H
#define JA_TESTS_ARENA_TEST_H

#include "jackarena/ja_error.h"
#include "jackarena/ja_rules.h"

#include <stdio.h>
#include <stdlib.h>

/* The reference bots of this build tree: JACKARENA_BOTS_DIR set to
 * $JA_BUILD_DIR/bots (ctest sets JA_BUILD_DIR). */
static inline void arena_test_bots_dir(void)
{
    const char *b = getenv("JA_BUILD_DIR");
    if (b) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/bots", b);
        setenv("JACKARENA_BOTS_DIR", dir, 1);
    }
}

/* The default options of g for n_seats, resolved; JA_OK or the error. */
static inline int arena_test_options(const ja_game_rules *g, uint32_t n_seats, ja_options *o)
{
    char err[300];
    ja_options_init(g, o);
    return ja_options_resolve(g, o, n_seats, err, sizeof err);
}

/* Runs CALL, an expression that writes to the FILE *out it names, with out
 * a memory stream; the text into BUF (char *, caller frees) and CALL's value
 * into STATUS. Needs cmocka.h. */
#define ARENA_TEST_CAPTURE(BUF, STATUS, CALL)                                    \
    do {                                                                         \
        size_t len_ = 0;                                                         \
        FILE *out = open_memstream(&(BUF), &len_);                               \
        assert_non_null(out);                                                    \
        (STATUS) = (CALL);                                                       \
        fclose(out);                                                             \
    } while (0)

/* A command's two steps (docs/architecture.md, "Errors"): PREPARE's code
 * into PREPARED and, when it is JA_OK, RUN through ARENA_TEST_CAPTURE into
 * BUF (NULL otherwise), which must succeed (its line in ERR fails the test
 * otherwise); then CLOSE, whatever happened. Needs cmocka.h. */
#define ARENA_TEST_STEPS(BUF, PREPARED, PREPARE, RUN, CLOSE, ERR)                \
    do {                                                                         \
        (BUF) = NULL;                                                            \
        (PREPARED) = (PREPARE);                                                  \
        if ((PREPARED) == JA_OK) {                                               \
            int run_rc_;                                                         \
            ARENA_TEST_CAPTURE(BUF, run_rc_, RUN);                               \
            if (run_rc_ != JA_OK)                                                \
                fail_msg("%s", (ERR));                                           \
        }                                                                        \
        CLOSE;                                                                   \
    } while (0)

#endif /* JA_TESTS_ARENA_TEST_H */
