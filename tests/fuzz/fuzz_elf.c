/* Fuzz target: the plugin file check before dlopen (referee/elf_check.c),
 * the reader of untrusted ELF headers. Every input must be accepted or
 * refused with one line naming the file, never crash or read out of
 * bounds; the bytes are read from a memory file with pread, as a plugin
 * file is. Built for libFuzzer in a clang build with -DJA_FUZZ=ON
 * (scripts/fuzz.sh); in every other build fuzz_driver.c runs it over the
 * checked-in corpus (tests/fuzz/corpus/elf: truncated, foreign and
 * complete shared objects). */
#include "elf_check.h"
#include "jackarena/ja_error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    if (fd < 0 && (fd = memfd_create("fuzz_elf", MFD_CLOEXEC)) < 0)
        abort();
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
        abort();
    char err[512] = "";
    int rc = ref_elf_check_fd(fd, "fuzz.so", err, sizeof err);
    if (rc != JA_OK && rc != JA_EFORMAT)
        abort(); /* the file is there and readable: only a verdict on its bytes */
    if (rc != JA_OK && (strncmp(err, "bot plugin 'fuzz.so': ", 22) != 0 || strchr(err, '\n')))
        abort(); /* a refusal is one line naming the file */
    return 0;
}
