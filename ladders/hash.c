/* SHA-256 of a file with libsodium (see hash.h). */
#include "hash.h"

#include <errno.h>
#include <stdio.h>

#include <sodium.h>

#include "jackarena/ja_error.h"

int ladder_sha256_file(const char *path, char hex[LADDER_SHA256_HEX_SIZE])
{
    if (path == NULL || hex == NULL)
        return JA_EINVAL;
    /* sodium_init is idempotent and thread-safe; it picks the fastest
     * implementation once per process. */
    if (sodium_init() < 0)
        return JA_EUNSUPPORTED;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return JA_EIO;
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    unsigned char buf[1 << 14];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        crypto_hash_sha256_update(&st, buf, n);
    int failed = ferror(f);
    int saved = errno;
    fclose(f);
    if (failed) {
        errno = saved;
        return JA_EIO;
    }
    unsigned char digest[crypto_hash_sha256_BYTES];
    crypto_hash_sha256_final(&st, digest);
    sodium_bin2hex(hex, LADDER_SHA256_HEX_SIZE, digest, sizeof digest);
    return JA_OK;
}
