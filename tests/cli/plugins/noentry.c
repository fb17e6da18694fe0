/* A shared library that is not a bot plugin: no ja_bot_entry_v1. */
int not_a_bot(void);
__attribute__((visibility("default"))) int not_a_bot(void) { return 42; }
