/* Fuzz target: the replay decoder and verifier, the project's decoder of
 * untrusted files. Built for libFuzzer in a clang build with -DJA_FUZZ=ON
 * (scripts/fuzz.sh); in every other build, fuzz_driver.c runs it over the
 * checked-in corpus as a regression test. */
#include "jackarena/ja_error.h"
#include "replay.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ref_replay *r = NULL;
    char err[1024];
    if (ref_replay_parse((const char *)data, size, "fuzz", &r, err, sizeof err) == JA_OK) {
        uint8_t digest[REF_DIGEST_BYTES];
        ref_replay_verify(r, digest, err, sizeof err);
        ref_replay_free(&r);
    }
    return 0;
}
