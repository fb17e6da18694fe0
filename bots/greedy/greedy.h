/* The `greedy` reference bot: one heuristic per game, each in its own file
 * greedy_<game>.c, behind one plugin (greedy.c). A heuristic chooses an
 * index into d->legal from d->obs alone (the observation version is checked
 * before it is called); it allocates nothing and keeps no state. */
#ifndef GREEDY_H
#define GREEDY_H

#include "jackarena/ja_bot.h"

/* One game's heuristic: JA_OK with *out_index < d->n_legal, or an error. */
typedef int (*greedy_act_fn)(const ja_decision *d, uint32_t *out_index);

int greedy_taylor_act(const ja_decision *d, uint32_t *out_index);
int greedy_bruise_jack_act(const ja_decision *d, uint32_t *out_index);
/* The same rule over a sample of the unseen cards: a cheap playout policy
 * for ismcts (greedy itself never calls it). */
int greedy_bruise_jack_fast_act(const ja_decision *d, uint32_t *out_index);
/* The rule over every stride-th unseen card, 1 to 7 (1: greedy itself, 7:
 * greedy_bruise_jack_fast_act): ismcts' stride=N. */
int greedy_bruise_jack_stride_act(const ja_decision *d, uint32_t *out_index, int stride);
int greedy_brawljack_act(const ja_decision *d, uint32_t *out_index);
int greedy_jack_in_the_box_act(const ja_decision *d, uint32_t *out_index);
/* Jack in the Box: the heuristic's plan search expands at most `budget`
 * nodes in all for one decision (out_nodes, if not NULL: how many it did;
 * 0 in the stages without a search). greedy_jack_in_the_box_act() is this
 * with GREEDY_JITB_BUDGET, which bounds its worst decision to about 5 ms
 * (docs/bots.md). Where the search finishes within the budget the answer
 * does not depend on it. */
#define GREEDY_JITB_BUDGET 30000u
int greedy_jack_in_the_box_plan(const ja_decision *d, uint32_t budget, uint32_t *out_index,
                                uint32_t *out_nodes);
int greedy_bombs_act(const ja_decision *d, uint32_t *out_index);

#endif /* GREEDY_H */
