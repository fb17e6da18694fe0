/* Loading a bot plugin's code: dlopen, the versioned entry point and the
 * descriptor's ABI checks. Shared by the in-process `plugin` seat
 * (seat_plugin.c) and the hosted child (host/ja_host.c), so a plugin is
 * accepted or refused with the same one-line message in either seat kind. */
#ifndef REF_PLUGIN_LOAD_H
#define REF_PLUGIN_LOAD_H

#include "jackarena/ja_bot.h"

#include <stddef.h>

/* Checks the file (ref_elf_check: a complete ELF shared object of this
 * machine), opens the shared library at path (RTLD_NOW | RTLD_LOCAL; a bare
 * name is taken as a file in the current directory, never searched for) and
 * checks its descriptor: entry point ja_bot_entry_v1, ABI major,
 * struct_size and the required members. JA_OK with *dl (the dlopen handle,
 * the caller's to dlclose) and *desc (static storage of the library, valid
 * until dlclose); JA_EFORMAT (not such a file, cannot load, no entry point,
 * a bad descriptor) or JA_EVERSION (built for another ABI major) with a
 * line "bot plugin 'PATH': ..." in err and nothing left open. Runs the library's constructors: trusted code only,
 * or inside the sandbox. */
int ref_plugin_load(const char *path, void **dl, const ja_bot_desc **desc, char *err, size_t cap);

#endif /* REF_PLUGIN_LOAD_H */
