/* Bot identity hashing: the SHA-256 of a plugin file, as lowercase hex.
 *
 * A bot entry in the ladder is (name, version, sha256), so a changed file is
 * a new entry. libsodium's crypto_hash_sha256 (FIPS 180-4) does the work. */
#ifndef JA_LADDER_HASH_H
#define JA_LADDER_HASH_H

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of a SHA-256 in lowercase hex, with the terminating NUL. */
#define LADDER_SHA256_HEX_SIZE 65

/* Hashes the file at path (read in full, streaming) and writes 64
 * lowercase hex digits and a NUL to hex. Returns JA_OK; JA_EINVAL for a NULL
 * argument; JA_EIO when the file cannot be opened or read (errno is left as
 * the failing call set it, for the caller's message); JA_EUNSUPPORTED if
 * libsodium fails to initialise. Thread-safe. */
int ladder_sha256_file(const char *path, char hex[LADDER_SHA256_HEX_SIZE]);

#ifdef __cplusplus
}
#endif
#endif /* JA_LADDER_HASH_H */
