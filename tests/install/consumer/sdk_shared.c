/* Linked with JackArena::sdk_shared: prints what the shared SDK library
 * answers (tests/install/test_install.sh compares it). */
#include "jackarena/jackarena.h"

#include <stdio.h>

int main(void)
{
    const ja_game_rules *g = ja_game_find("bombs");
    ja_rng r;
    ja_rng_seed(&r, 1);
    printf("%s %s %s %u\n", ja_version(), ja_fault_name(JA_FAULT_CRASH), g ? g->name : "-",
           (unsigned)(ja_rng_below(&r, 1000) < 1000));
    return g ? 0 : 1;
}
