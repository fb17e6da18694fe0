/* The `arena` command's own header: each command lives in cmd_<name>.c, a
 * parser over the arena library (util.h, botspec.h, flags.h, json_w.h and
 * the headers of each piece). */
#ifndef ARENA_CLI_H
#define ARENA_CLI_H

#include "run/botspec.h"
#include "cli/flags.h"
#include "core/json_w.h"
#include "core/util.h"

/* ---- commands ------------------------------------------------------------- */

int cmd_games(int argc, char **argv);
int cmd_bots(int argc, char **argv);
int cmd_play(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_tournament(int argc, char **argv);
int cmd_ladder(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_conformance(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_serve(int argc, char **argv);

#endif /* ARENA_CLI_H */
