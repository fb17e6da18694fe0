/* A plugin whose descriptor claims a struct_size below the ABI 1 minimum
 * (built against an impossible older layout): refused at load. */
#include "jackarena/ja_bot.h"
static const ja_bot_desc desc = {.struct_size = 8, .abi_major = JA_BOT_ABI_MAJOR, .name = "tiny"};
JA_BOT_DECLARE(desc)
