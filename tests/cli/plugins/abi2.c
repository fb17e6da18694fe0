/* A plugin built for a future bot ABI 2: it exports ja_bot_entry_v2 only. */
#include "jackarena/ja_bot.h"
static const ja_bot_desc desc = {.struct_size = sizeof(ja_bot_desc), .abi_major = 2, .name = "abi2"};
JA_API const ja_bot_desc *ja_bot_entry_v2(void);
const ja_bot_desc *ja_bot_entry_v2(void) { return &desc; }
