/* Loading a bot plugin's code (plugin_load.h). */
#include "plugin_load.h"
#include "elf_check.h"

#include "jackarena/ja_error.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int ref_plugin_load(const char *path, void **dl_out, const ja_bot_desc **desc_out, char *err,
                    size_t cap)
{
    *dl_out = NULL;
    *desc_out = NULL;
    /* Not a complete shared object of this machine (a text file named .so,
     * a truncated download, an executable, another architecture): refused
     * from its headers, before dlopen maps anything (elf_check.h). */
    int rc = ref_elf_check(path, err, cap);
    if (rc != JA_OK)
        return rc == JA_ENOTFOUND ? JA_EFORMAT : rc;
    /* dlopen searches the library path for a bare name; "./x.so" is a file. */
    char full[4200];
    snprintf(full, sizeof full, "%s%s", strchr(path, '/') ? "" : "./", path);
    void *dl = dlopen(full, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *e = dlerror();
        snprintf(err, cap, "bot plugin '%s': cannot load: %s", path, e ? e : "unknown error");
        return JA_EFORMAT;
    }
    ja_bot_entry_fn entry;
    *(void **)&entry = dlsym(dl, JA_BOT_ENTRY_SYMBOL);
    if (!entry) {
        /* Name the ABI it was built for, when it exports another major. */
        for (int major = 2; major <= 9; major++) {
            char sym[32];
            snprintf(sym, sizeof sym, "ja_bot_entry_v%d", major);
            if (dlsym(dl, sym)) {
                snprintf(err, cap,
                         "bot plugin '%s': built for bot ABI %d (exports %s); this arena loads "
                         "ABI %d (%s)",
                         path, major, sym, JA_BOT_ABI_MAJOR, JA_BOT_ENTRY_SYMBOL);
                dlclose(dl);
                return JA_EVERSION;
            }
        }
        snprintf(err, cap, "bot plugin '%s': no entry point %s (not a Jack Arena bot plugin)",
                 path, JA_BOT_ENTRY_SYMBOL);
        dlclose(dl);
        return JA_EFORMAT;
    }
    const ja_bot_desc *d = entry();
    const char *why = NULL;
    if (!d)
        why = "its entry point returned no descriptor";
    else if (d->abi_major != JA_BOT_ABI_MAJOR)
        why = "wrong ABI major in its descriptor";
    else if (d->struct_size < offsetof(ja_bot_desc, destroy) + sizeof d->destroy)
        why = "its descriptor is too small for ABI 1";
    else if (!d->name || !d->create || !d->act || !d->destroy)
        why = "its descriptor lacks name, create, act or destroy";
    if (why) {
        int wrong_major = d && d->abi_major != JA_BOT_ABI_MAJOR;
        if (wrong_major)
            snprintf(err, cap, "bot plugin '%s': built for bot ABI %u; this arena loads ABI %d",
                     path, (unsigned)d->abi_major, JA_BOT_ABI_MAJOR);
        else
            snprintf(err, cap, "bot plugin '%s': %s", path, why);
        dlclose(dl); /* d points into the library: not read past here */
        return wrong_major ? JA_EVERSION : JA_EFORMAT;
    }
    *dl_out = dl;
    *desc_out = d;
    return JA_OK;
}
