/* The registry of games: one explicit const array (C has no static
 * registration), in the order `arena games` lists them. CMake defines
 * JA_HAVE_<STEM> for each engine in the build (sdk/CMakeLists.txt). */
#include "jackarena/ja_rules.h"

#include <string.h>

extern const ja_game_rules ja_taylor_blackjack_rules;
extern const ja_game_rules ja_brawljack_rules;
extern const ja_game_rules ja_bruise_jack_rules;
extern const ja_game_rules ja_jack_in_the_box_rules;
extern const ja_game_rules ja_bombs_rules;

const ja_game_rules *const ja_games[] = {
#ifdef JA_HAVE_TAYLOR
    &ja_taylor_blackjack_rules,
#endif
#ifdef JA_HAVE_BRAWLJACK
    &ja_brawljack_rules,
#endif
#ifdef JA_HAVE_BRUISE_JACK
    &ja_bruise_jack_rules,
#endif
#ifdef JA_HAVE_JACK_IN_THE_BOX
    &ja_jack_in_the_box_rules,
#endif
#ifdef JA_HAVE_BOMBS
    &ja_bombs_rules,
#endif
    NULL,
};

const ja_game_rules *ja_game_find(const char *name)
{
    for (int i = 0; ja_games[i]; i++)
        if (strcmp(ja_games[i]->name, name) == 0)
            return ja_games[i];
    return NULL;
}
