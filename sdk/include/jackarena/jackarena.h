/* Jack Arena SDK: everything a bot author needs, in one include. */
#ifndef JA_JACKARENA_H
#define JA_JACKARENA_H

#include "ja_common.h"
#include "ja_version.h"
#include "ja_error.h"
#include "ja_rng.h"
#include "ja_cards.h"
#include "ja_rules.h"
#include "ja_bot.h"
#include "ja_params.h"
#include "ja_forward.h"
#include "ja_taylor.h"
#include "ja_brawljack.h"
#include "ja_bruise_jack.h"
#include "ja_jack_in_the_box.h"
#include "ja_bombs.h"

#endif /* JA_JACKARENA_H */
