/* Fuzz target: the referee's decoder of bot messages (referee/wire.c), the
 * decoder of untrusted network bytes. Every input must either decode or be
 * refused with a reason, never crash, leak, read out of bounds or allocate
 * beyond what the bytes warrant; a decoded message's strings are always
 * NUL-terminated within their bounds. Built for libFuzzer in a clang build
 * with -DJA_FUZZ=ON (scripts/fuzz.sh); in every other build fuzz_driver.c
 * runs it over the checked-in corpus (tests/fuzz/corpus/wire). */
#include "jackarena/ja_error.h"
#include "wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > REF_WIRE_MAX_IN)
        return 0; /* the socket refuses larger frames before the decoder sees them */
    ref_wire_msg m;
    char why[256];
    int rc = ref_wire_decode(data, size, &m, why, sizeof why);
    if (rc != JA_OK && !why[0])
        abort(); /* a refusal always says why */
    if (memchr(m.name, '\0', sizeof m.name) == NULL ||
        memchr(m.match, '\0', sizeof m.match) == NULL ||
        memchr(m.version, '\0', sizeof m.version) == NULL ||
        memchr(m.token, '\0', sizeof m.token) == NULL ||
        memchr(m.type_name, '\0', sizeof m.type_name) == NULL)
        abort();
    if (rc == JA_OK && m.type == REF_WIRE_HELLO && (m.capacity < 1 || !m.name[0]))
        abort();
    return 0;
}
