/* A plugin whose v1 entry point returns a descriptor claiming ABI major 3. */
#include "jackarena/ja_bot.h"
static const ja_bot_desc desc = {.struct_size = sizeof(ja_bot_desc), .abi_major = 3, .name = "badmajor"};
JA_BOT_DECLARE(desc)
