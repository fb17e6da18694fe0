/* The plugin file check before dlopen: is this a complete ELF shared object
 * of this machine? dlopen maps a plugin's segments as its headers describe
 * them; a segment that runs past the end of a truncated file is mapped all
 * the same, and touching it kills the process with SIGBUS. So every plugin
 * file, in-process (plugin_load.c), in the hosted child (host/ja_host.c) and
 * before the hosted probe (seat_hosted.c), is checked first, by reading its
 * headers with pread (never mmap; every offset and size is checked against
 * the file's size before it is read, so hostile headers read nothing out of
 * bounds):
 *
 * - the ELF magic; the class (64-bit on a 64-bit build), the data encoding
 *   (byte order) and the ELF version of this build;
 * - e_machine: the build's architecture (EM_X86_64, EM_AARCH64 ... chosen
 *   by the compiler's predefined macros);
 * - e_type ET_DYN, and not a position-independent executable (DF_1_PIE in
 *   its dynamic section);
 * - the program header table inside the file, at least one PT_LOAD, and
 *   every PT_LOAD's p_offset + p_filesz within the file size;
 * - a dynamic section (PT_DYNAMIC) inside the file, naming a symbol table
 *   and a string table that lie in the file-backed part of a PT_LOAD (the
 *   dynamic loader reads both unchecked);
 * - the section header table, when there is one, inside the file.
 *
 * It does not judge the code, the symbols or the relocations: dlopen and
 * the ABI checks of plugin_load.c do. A file changed between this check and
 * dlopen is not defended (plugin files are the organiser's). */
#ifndef REF_ELF_CHECK_H
#define REF_ELF_CHECK_H

#include <stddef.h>

/* Checks the plugin file at path. JA_OK, or JA_EFORMAT / JA_ENOTFOUND
 * (cannot open it) with one line in err: "bot plugin 'PATH': truncated:
 * its segments need 14232 bytes, the file has 3000", "...: not an ELF
 * file", "...: built for aarch64, this arena runs on x86_64", "...: an
 * executable, not a shared library". */
int ref_elf_check(const char *path, char *err, size_t cap);

/* The same on an open descriptor (read with pread only; its size from
 * fstat); path only names it in messages. The decoder of untrusted headers
 * that tests/fuzz exercises. */
int ref_elf_check_fd(int fd, const char *path, char *err, size_t cap);

#endif /* REF_ELF_CHECK_H */
