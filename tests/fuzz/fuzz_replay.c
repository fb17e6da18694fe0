/* Fuzz target: the replay decoder and verifier, the project's decoder of
 * untrusted files. Built for libFuzzer in a clang build with -DJA_FUZZ=ON
 * (scripts/fuzz.sh); in every other build, fuzz_driver.c runs it over the
 * checked-in corpus as a regression test. The replay's bot logs must come
 * out cleaned and bounded (ja_declog.h), whatever the file held. */
#include "jackarena/ja_error.h"
#include "replay.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ref_replay *r = NULL;
    char err[1024];
    if (ref_replay_parse((const char *)data, size, "fuzz", &r, err, sizeof err) == JA_OK) {
        uint8_t digest[REF_DIGEST_BYTES];
        ref_replay_verify(r, digest, err, sizeof err);
        /* Every bot log is found by its decision and seat, cleaned and
         * bounded (the viewers show it as it is). */
        for (uint32_t i = 0; i < r->n_logs; i++) {
            size_t len;
            const char *t = ref_replay_log_of(r, r->logs[i].step, r->logs[i].seat, &len);
            if (!t || len > JA_DECLOG_MAX || strlen(t) != len ||
                ja_declog_clean((char *)t, len) != len)
                __builtin_trap();
        }
        ref_replay_free(&r);
    }
    return 0;
}
