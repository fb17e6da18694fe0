/* The registry of games: one explicit const array (C has no static
 * registration), in the order `arena games` lists them. */
#include "jackarena/ja_rules.h"

#include <string.h>

extern const ja_game_rules ja_taylor_blackjack_rules;

const ja_game_rules *const ja_games[] = {
    &ja_taylor_blackjack_rules,
    NULL,
};

const ja_game_rules *ja_game_find(const char *name)
{
    for (int i = 0; ja_games[i]; i++)
        if (strcmp(ja_games[i]->name, name) == 0)
            return ja_games[i];
    return NULL;
}
