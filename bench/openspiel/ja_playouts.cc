// ja_playouts: random playouts of an OpenSpiel game, the other side of
// ja_bench's "openspiel" section (docs/testing.md, "Against OpenSpiel").
// Built inside an OpenSpiel source tree, against OpenSpiel itself; not part
// of Jack Arena's build.
//
//   ja_playouts GAME N SEED
//
// Loads GAME (an OpenSpiel game string: "dou_dizhu",
// "crazy_eights(players=4)") and plays N whole games from their initial
// state with uniformly random choices from a std::mt19937_64 seeded with
// SEED: at a chance node an outcome drawn by its probability, at a player
// node one of LegalActions(). The whole loop is timed (CLOCK_MONOTONIC),
// from NewInitialState() to the terminal state of the last game. Prints a
// line "built: ..." (JA_PLAYOUTS_BUILD, set by whoever builds it: which
// OpenSpiel, which build type) and one line "RESULT key=value ..."
// that ja_bench reads: the game, N, the players, the player decisions
// (ApplyAction at player nodes), the chance steps, the seconds, player
// decisions per second, games per second, decisions and chance steps per
// game. Exit status 2 on bad arguments.
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "open_spiel/spiel.h"

// JA_PLAYOUTS_BUILD: words, not a string (-DJA_PLAYOUTS_BUILD=OpenSpiel-1a2b3c4-Release
// passes through any build system's flags unquoted); printed as they are.
#define JA_TEXT_(...) #__VA_ARGS__
#define JA_TEXT(...) JA_TEXT_(__VA_ARGS__)
#ifdef JA_PLAYOUTS_BUILD
#define JA_BUILT JA_TEXT(JA_PLAYOUTS_BUILD)
#else
#define JA_BUILT "unknown (define JA_PLAYOUTS_BUILD when building)"
#endif

static double Now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  char* end = nullptr;
  const long n = argc == 4 ? std::strtol(argv[2], &end, 10) : 0;
  if (argc != 4 || !end || *end || n <= 0) {
    std::fprintf(stderr, "usage: %s GAME N SEED (N games, N >= 1)\n", argv[0]);
    return 2;
  }
  const std::string game_name = argv[1];
  const uint64_t seed = std::strtoull(argv[3], nullptr, 10);
  std::shared_ptr<const open_spiel::Game> game = open_spiel::LoadGame(game_name);
  std::mt19937_64 rng(seed);
  std::printf("built: %s\n", JA_BUILT);

  long decisions = 0, chance_steps = 0;
  const double t0 = Now();
  for (long g = 0; g < n; ++g) {
    std::unique_ptr<open_spiel::State> state = game->NewInitialState();
    while (!state->IsTerminal()) {
      if (state->IsChanceNode()) {
        open_spiel::ActionsAndProbs outcomes = state->ChanceOutcomes();
        double z = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
        open_spiel::Action chosen = outcomes.back().first;
        double cum = 0.0;
        for (const auto& o : outcomes) {
          cum += o.second;
          if (z < cum) {
            chosen = o.first;
            break;
          }
        }
        state->ApplyAction(chosen);
        ++chance_steps;
      } else {
        std::vector<open_spiel::Action> legal = state->LegalActions();
        std::uniform_int_distribution<size_t> pick(0, legal.size() - 1);
        state->ApplyAction(legal[pick(rng)]);
        ++decisions;
      }
    }
  }
  const double secs = Now() - t0;
  std::printf(
      "RESULT game=%s N=%ld players=%d decisions=%ld chance_steps=%ld seconds=%.4f "
      "decisions_per_s=%.0f games_per_s=%.1f mean_decisions_per_game=%.2f "
      "mean_chance_steps_per_game=%.2f\n",
      game_name.c_str(), n, game->NumPlayers(), decisions, chance_steps, secs,
      decisions / secs, n / secs, static_cast<double>(decisions) / n,
      static_cast<double>(chance_steps) / n);
  return 0;
}
