// halving: a bot plugin in C++17 for every game, built on the forward model.
//
// For each decision it spends a budget of playouts (the parameter
// `playouts`, default 64) on the legal actions by sequential halving: every
// action still in the running is tried in the same sampled worlds, with the
// same random playout after it (so the luck of a world cancels out between
// actions), then the worse half is dropped, until one action is left. Good
// actions get most of the budget, hopeless ones only a few playouts.
//
//   c++ -std=c++17 -shared -fPIC halving.cpp $(pkg-config --cflags --libs jackarena) -o halving.so
//   arena play bruise-jack ./halving.so random
//   arena play bombs ./halving.so:playouts=200 random random
//
// What a C++ plugin must get right (docs/tutorial-cpp.md):
//  - the descriptor and JA_BOT_DECLARE: the entry point gets C linkage from
//    the macro, and the jackarena pkg-config module's link flags export it
//    alone (no template instantiation of the standard library leaks out);
//  - no exception may leave a function the arena calls: each one catches
//    at the boundary and returns a JA_E* code (an exception into the
//    arena's C frames would terminate it);
//  - act() allocates nothing: every buffer is sized in the constructor, and
//    std::vector::assign within its capacity does not allocate.
#include <jackarena/jackarena.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <numeric>
#include <vector>

namespace {

constexpr uint32_t kMaxSteps = 20000;  // a playout longer than this is not counted
const char *const kKeys[] = {"playouts", nullptr};

int read_playouts(const char *params, int64_t *playouts, char *err, size_t cap)
{
    return ja_params_int(params, "playouts", 1, 100000, 64, playouts, err, cap);
}

class Halving {
public:
    Halving(const ja_host_api *host, void *hctx, const ja_game_rules *g, int seat,
            int64_t playouts)
        : host_(host), hctx_(hctx), g_(g), seat_(seat), playouts_(playouts),
          world_(g->state_size), work_(g->state_size)
    {
        alive_.reserve(JA_MAX_ACTIONS);
        total_.reserve(JA_MAX_ACTIONS);
        tries_.reserve(JA_MAX_ACTIONS);
    }

    int act(const ja_decision &d, uint32_t &index)
    {
        if (d.obs_version != g_->obs_version)
            return JA_EVERSION;
        // The bot's own stream from the host: the same match seed gives the
        // same play, in-process, hosted: or as a program.
        ja_rng rng;
        ja_rng_seed(&rng, host_->rng_next(hctx_));
        alive_.resize(d.n_legal);
        std::iota(alive_.begin(), alive_.end(), 0u);
        total_.assign(d.n_legal, 0.0);
        tries_.assign(d.n_legal, 0u);
        uint32_t rounds = 0;
        for (uint32_t n = d.n_legal; n > 1; n = (n + 1) / 2)
            rounds++;
        const int64_t per_round = std::max<int64_t>(1, playouts_ / rounds);
        while (alive_.size() > 1) {
            const int64_t worlds = std::max<int64_t>(1, per_round / (int64_t)alive_.size());
            for (int64_t w = 0; w < worlds; w++) {
                // A full state this seat cannot tell from the real one.
                if (g_->sample(d.obs, seat_, ja_rng_next(&rng), world_.data()) != JA_OK)
                    return JA_EFORMAT;
                const uint64_t luck = ja_rng_next(&rng);
                for (uint32_t i : alive_) {
                    total_[i] += playout(d.legal[i], luck);
                    tries_[i]++;
                }
            }
            // The better half goes on; ties keep the lower index (stable).
            auto mean = [this](uint32_t i) { return total_[i] / tries_[i]; };
            std::stable_sort(alive_.begin(), alive_.end(),
                             [&](uint32_t a, uint32_t b) { return mean(a) > mean(b); });
            alive_.resize((alive_.size() + 1) / 2);
        }
        index = alive_.front();
        return JA_OK;
    }

private:
    // One playout in the sampled world: the action, then the rest of the
    // match at random (the same luck for every action); the pairwise score
    // in [0, 1], 0 for a playout that does not end.
    double playout(ja_action action, uint64_t luck)
    {
        ja_rng rng;
        ja_rng_seed(&rng, luck);
        ja_state_clone(g_, work_.data(), world_.data());
        ja_outcome o;
        if (ja_forward_step(g_, work_.data(), seat_, action, &rng) == JA_OK &&
            ja_forward_playout(g_, work_.data(), &rng, kMaxSteps, &o) == JA_OK)
            return ja_outcome_pairwise(&o, seat_);
        return 0.0;
    }

    const ja_host_api *host_;
    void *hctx_;
    const ja_game_rules *g_;
    int seat_;
    int64_t playouts_;
    std::vector<unsigned char> world_, work_;  // sampled state, and a copy to play on
    std::vector<uint32_t> alive_;              // indexes into d.legal still in the running
    std::vector<double> total_;                // summed scores, by index
    std::vector<uint32_t> tries_;              // playouts, by index
};

// ---- the C interface the arena calls: no exception gets past these ----

int supports(const char *game, uint32_t obs_version)
{
    const ja_game_rules *g = ja_game_find(game);  // the games this SDK knows
    return g && g->obs_version == obs_version;
}

int check_params(const char *params, char *err, size_t cap)
{
    int64_t playouts;
    int rc = ja_params_check_keys(params, kKeys, err, cap);
    return rc == JA_OK ? read_playouts(params, &playouts, err, cap) : rc;
}

int create(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
           uint32_t n_seats, void **out) noexcept
{
    (void)n_seats;
    const ja_game_rules *g = host->rules(game);
    if (!g)
        return JA_EUNSUPPORTED;
    const char *params = JA_HOST_HAS(host, params) ? host->params(hctx) : "";
    int64_t playouts;
    int rc = read_playouts(params, &playouts, nullptr, 0);  // checked already
    if (rc != JA_OK)
        return rc;
    try {
        *out = new Halving(host, hctx, g, seat, playouts);
        return JA_OK;
    } catch (const std::bad_alloc &) {
        return JA_ENOMEM;
    }
}

int act(void *bot, const ja_decision *d, uint32_t *index) noexcept
{
    try {
        return static_cast<Halving *>(bot)->act(*d, *index);
    } catch (...) {
        return JA_EBOT;  // a fault of this decision; the match goes on
    }
}

void destroy(void *bot) noexcept
{
    delete static_cast<Halving *>(bot);
}

constexpr ja_bot_desc make_desc()
{
    ja_bot_desc d{};
    d.struct_size = sizeof(ja_bot_desc);
    d.abi_major = JA_BOT_ABI_MAJOR;
    d.abi_minor = JA_BOT_ABI_MINOR;
    d.name = "halving";
    d.version = "1.0";
    d.supports = supports;
    d.create = create;
    d.act = act;
    d.destroy = destroy;
    d.check_params = check_params;
    return d;
}

constexpr ja_bot_desc desc = make_desc();

}  // namespace

JA_BOT_DECLARE(desc)
