/* Versions. Each interface is versioned on its own:
 *  - the project release (JA_VERSION_*), also available at run time;
 *  - the bot plugin ABI (JA_BOT_ABI_*), in ja_bot.h;
 *  - the wire protocol (JA_PROTOCOL);
 *  - each game's rules (rules_version in its ja_game_rules) and observation
 *    layout (JA_<GAME>_OBS_VERSION in the game's header);
 *  - the replay file format (JA_REPLAY_FORMAT). */
#ifndef JA_VERSION_H
#define JA_VERSION_H

#include "ja_common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JA_VERSION_MAJOR 0
#define JA_VERSION_MINOR 2
#define JA_VERSION_PATCH 0
#define JA_MAKE_VERSION(ma, mi, pa) ((ma) * 10000 + (mi) * 100 + (pa))
#define JA_VERSION JA_MAKE_VERSION(JA_VERSION_MAJOR, JA_VERSION_MINOR, JA_VERSION_PATCH)

/* Wire protocol version spoken by external bots (docs/protocol.md). */
#define JA_PROTOCOL 1

/* Replay file format version (docs/replay-format.md). */
#define JA_REPLAY_FORMAT 1

/* The release this library was built as, e.g. "0.2.0". Static storage. */
JA_API const char *ja_version(void);

#ifdef __cplusplus
}
#endif
#endif /* JA_VERSION_H */
