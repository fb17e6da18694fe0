/* The games' headers of the engines this build has, for the code that
 * compiles the greedy heuristics in (the greedy plugin, ismcts's playouts,
 * the arena's luck adjustment): Taylor Blackjack always, each other game
 * when its GREEDY_HAVE_<GAME> switch is defined (bots/greedy/CMakeLists.txt
 * defines them for the engines built). */
#ifndef GREEDY_GAMES_H
#define GREEDY_GAMES_H

#include "jackarena/ja_taylor.h"
#ifdef GREEDY_HAVE_BRAWLJACK
#include "jackarena/ja_brawljack.h"
#endif
#ifdef GREEDY_HAVE_BRUISE_JACK
#include "jackarena/ja_bruise_jack.h"
#endif
#ifdef GREEDY_HAVE_JACK_IN_THE_BOX
#include "jackarena/ja_jack_in_the_box.h"
#endif
#ifdef GREEDY_HAVE_BOMBS
#include "jackarena/ja_bombs.h"
#endif

#endif /* GREEDY_GAMES_H */
