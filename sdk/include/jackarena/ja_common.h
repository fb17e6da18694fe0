/* Common definitions for every Jack Arena SDK header: export macro, fixed
 * capacities shared by all games, and the action value type.
 *
 * Public SDK headers include only <stdint.h>, <stddef.h> and <stdbool.h>. */
#ifndef JA_COMMON_H
#define JA_COMMON_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define JA_API __attribute__((visibility("default")))
#else
#define JA_API
#endif

/* Most seats any match may have (Bombs' multiple-tables variant: 20). Games
 * size their own observations by their own maximum (e.g.
 * JA_TAYLOR_MAX_SEATS).
 *
 * Frozen for ABI major 1 (docs/plugin-abi.md, "Frozen for ABI 1"), as is
 * JA_SCORE_UNIT: ja_outcome's arrays and ja_forward.h's stack arrays are
 * sized by it inside compiled plugins, so another value is ABI 2 (seat
 * masks, uint32_t, would allow up to 32). */
#define JA_MAX_SEATS 20

/* Scores are integers in units of 1/JA_SCORE_UNIT of a point: 27720 is the
 * least common multiple of 1..12, so a point shared by up to 12 seats splits
 * exactly (games that share points among more seats round, and say so). */
#define JA_SCORE_UNIT 27720

/* An action is a small value with a canonical, self-describing encoding
 * chosen by its game: the game's label() turns the code alone into text. */
typedef struct ja_action {
    uint32_t code;
} ja_action;

#ifdef __cplusplus
}
#endif
#endif /* JA_COMMON_H */
