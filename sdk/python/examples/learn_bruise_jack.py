#!/usr/bin/python3
"""A learned bot for Bruise Jack: trained from scratch by policy gradient
against `random` in jackarena.env, then played through the ordinary
protocol as a `cmd:` bot (docs/training.md, "A learned bot").

    export PYTHONPATH=sdk/python
    python3 sdk/python/examples/learn_bruise_jack.py train --out bj.npz
    python3 sdk/python/examples/learn_bruise_jack.py eval bj.npz --vs random
    arena bench "cmd:/usr/bin/python3 sdk/python/examples/learn_bruise_jack.py play bj.npz" \\
        --game bruise-jack --vs random,greedy --games 200 --seed 1

The policy is a linear softmax over the legal actions (REINFORCE with a
learned linear baseline, Adam), its weights start at zero: the untrained
policy is uniform over the legal actions, exactly `random`. What it reads
is a fixed function of the environment's observation vector (the one
`jackarena.env` gives in training and `Encoding.encode_dict` makes of the
protocol's observation in play, so both see the same numbers): the row
arithmetic of the rules (each row's best total, bust or not, open or not,
what the drawn card would make of each row) and the opponents' public rows.
Which row to place a card in, and when to hit or stand, is learned; nothing
is copied from `greedy`.

Each decision's return is the points the learner wins in the hand it was
taken in (read from the observation's scores), so a match of several hands
gives several independent signals. Everything is seeded: the same seed and
the same number of episodes give the same weights, byte for byte (one BLAS
thread, set below before NumPy loads). The file is an .npz: `theta` (the
policy), `value` (the baseline) and `meta` (JSON: game, encoding and
feature versions, seed, episodes, opponent).
"""
import os

# One thread in every BLAS NumPy may use: the sums then happen in one order,
# so the same seed gives the same weights (and nothing competes for cores).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import hashlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import zipfile  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import jackarena  # noqa: E402
from jackarena import env as jenv  # noqa: E402
from jackarena.games import bruise_jack as bj  # noqa: E402

GAME = bj.GAME
FEATURES_VERSION = 1
UNITS = 27720  # score units per point (docs/rules/bruise-jack.md, section 4)

# ---- Features: a fixed function of the observation vector -----------------------

# The classes of a row's value: bust, 6 or less, 7, 8, 9, 10, 11, claimed.
N_CLASSES = 8
CLAIMED = 7


def row_total(cards, row):
    """(hard sum with wilds as 1, best total up to 11 or -1 when bust) of a
    row's cards in the row's attribute (the rules' row arithmetic)."""
    hard = wilds = 0
    for c in cards:
        level = (c // 25, c // 5 % 5, c % 5)[row]
        hard += 1 if level == bj.WILD else level + 1
        wilds += level == bj.WILD
    if hard > bj.TARGET:
        return hard, -1
    best = hard
    for _ in range(wilds):
        if best + 5 <= bj.TARGET:
            best += 5
    return hard, best


def value_class(best):
    return 0 if best < 0 else 1 if best <= 6 else best - 5


class Features:
    """The policy's inputs, made from the game's observation vector.

    - hit block (H values): the decision to hit, against stand (whose logit
      is 0): a bias; my rows as counts per value class, open and closed;
      the room left in my open rows; the opponents' public rows; the stock;
    - place block (P values, the same weights for the three rows): for each
      row, its value class before and after the drawn card, the card's level
      in the row, whether the row stays open, the change of its total.

    action_matrix(vec) gives one row of H + P per action of the game's
    action index (zeros for the actions of the other stage)."""

    H = 1 + 2 * N_CLASSES + 4 + 8 + 1
    P = 2 * N_CLASSES + bj.LEVELS + 3
    F = H + P

    def __init__(self, encoding):
        self.enc = encoding
        self.at = {name: at for name, at, _count, _typ in encoding.fields}
        self.i_hit = encoding.index(bj.HIT)
        self.i_stand = encoding.index(bj.STAND)
        self.i_place = [encoding.index(bj.PLACE(r)) for r in range(bj.ROWS)]

    def _get(self, vec, name, i=0):
        return int(vec[self.at[name] + i])

    def rows(self, vec, seat, centre):
        """[(cards, claimed, open)] of a seat's three rows."""
        out = []
        for r in range(bj.ROWS):
            i = seat * bj.ROWS + r
            n = self._get(vec, "up_count", i)
            up = vec[self.at["up"] + i * bj.MAX_UP: self.at["up"] + i * bj.MAX_UP + n]
            cards = ([] if centre is None else [centre]) + [int(c) for c in up]
            out.append((cards, bool(self._get(vec, "claimed", i)), bool(self._get(vec, "open", i))))
        return out

    def hit_block(self, vec, me, mine):
        f = np.zeros(self.H)
        f[0] = 1.0
        room = []
        for r, (cards, claimed, is_open) in enumerate(mine):
            best = row_total(cards, r)[1]
            k = CLAIMED if claimed else value_class(best)
            f[1 + k + (0 if is_open else N_CLASSES)] += 1.0
            if is_open and best >= 0:
                room.append(bj.TARGET - best)
        at = 1 + 2 * N_CLASSES
        room.sort()
        f[at] = len(room) / 3.0
        f[at + 1] = room[0] / 11.0 if room else 0.0
        f[at + 2] = room[-1] / 11.0 if room else 0.0
        f[at + 3] = sum(room) / 33.0
        at += 4
        # The opponents (the strongest public table among them).
        n = self._get(vec, "n_seats")
        active = self._get(vec, "active")
        opp = [s for s in range(n) if s != me and active >> s & 1]
        stood = [self._get(vec, "stood", s) for s in opp]
        shown = [[self._get(vec, "shown", s * bj.ROWS + r) for r in range(bj.ROWS)] for s in opp]
        opened = [sum(self._get(vec, "open", s * bj.ROWS + r) for r in range(bj.ROWS)) for s in opp]
        claimed = [sum(self._get(vec, "claimed", s * bj.ROWS + r) for r in range(bj.ROWS))
                   for s in opp]
        if opp:
            f[at] = min(stood)
            f[at + 1] = max(stood)
            f[at + 2] = max(opened) / 3.0
            f[at + 3] = max(claimed) / 3.0
            top = sorted(max(sh[r] for sh in shown) for r in range(bj.ROWS))
            f[at + 4: at + 7] = [t / 11.0 for t in top]
            f[at + 7] = float(all(st or not o for st, o in zip(stood, opened)))  # all done
        at += 8
        f[at] = self._get(vec, "stock_count") / float(bj.CARDS)
        return f

    def place_block(self, vec, mine, drawn, r):
        f = np.zeros(self.P)
        cards, claimed, _ = mine[r]
        best0 = row_total(cards, r)[1]
        hard1, best1 = row_total(cards + [drawn], r)
        f[value_class(best0)] = 1.0
        f[N_CLASSES + value_class(best1)] = 1.0
        at = 2 * N_CLASSES
        f[at + (drawn // 25, drawn // 5 % 5, drawn % 5)[r]] = 1.0
        at += bj.LEVELS
        shown1 = sum(1 if lv == bj.WILD else lv + 1 for lv in
                     ((c // 25, c // 5 % 5, c % 5)[r] for c in cards[1:] + [drawn]))
        f[at] = float(shown1 <= bj.TARGET - 1)
        f[at + 1] = (max(best1, 0) - max(best0, 0)) / 11.0
        f[at + 2] = len(cards) / 6.0
        return f

    def action_matrix(self, vec):
        """(A, F) features of every action of the index, for this observation."""
        me = self._get(vec, "seat")
        centre = self._get(vec, "centre")
        mine = self.rows(vec, me, None if centre == bj.NONE else centre)
        psi = np.zeros((self.enc.n_actions, self.F))
        psi[self.i_hit, :self.H] = self.hit_block(vec, me, mine)
        drawn = self._get(vec, "drawn")
        if drawn != bj.NONE:
            for r in range(bj.ROWS):
                psi[self.i_place[r], self.H:] = self.place_block(vec, mine, drawn, r)
        return psi

    def value_input(self, psi):
        """The baseline's input: the hit block and which stage it is."""
        return np.append(psi[self.i_hit, :self.H], float(psi[self.i_place].any()))


# ---- The policy ------------------------------------------------------------------------

def softmax_legal(logits, mask):
    z = np.where(mask, logits, -np.inf)
    z = np.exp(z - z.max())
    return z / z.sum()


class Policy:
    def __init__(self, feats, theta=None, value=None, meta=None):
        self.feats = feats
        self.theta = np.zeros(Features.F) if theta is None else theta
        self.value = np.zeros(Features.H + 1) if value is None else value
        self.meta = meta or {}

    def probs(self, psi, mask):
        return softmax_legal(psi @ self.theta, mask)

    def best(self, vec, mask):
        """The index of the most probable legal action (the lowest on ties)."""
        p = self.probs(self.feats.action_matrix(vec), mask)
        return int(np.argmax(p))

    def save(self, path):
        """An .npz whose bytes depend on the weights alone (fixed zip dates)."""
        arrays = {"theta": self.theta, "value": self.value,
                  "meta": np.array(json.dumps(self.meta, sort_keys=True))}
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
            for name, arr in arrays.items():
                buf = io.BytesIO()
                np.lib.format.write_array(buf, np.asarray(arr), allow_pickle=False)
                z.writestr(zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0)),
                           buf.getvalue())

    @classmethod
    def load(cls, path, feats):
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            theta, value = z["theta"], z["value"]
        want = {"game": GAME, "encoding_version": jenv.ENCODING_VERSION,
                "obs_version": feats.enc.obs_version, "features_version": FEATURES_VERSION}
        for k, v in want.items():
            if meta.get(k) != v:
                raise ValueError("%s: made for %s %r, this bot needs %r" % (path, k, meta.get(k), v))
        if theta.shape != (Features.F,) or value.shape != (Features.H + 1,):
            raise ValueError("%s: weights of shape %s, this bot needs (%d,)"
                             % (path, theta.shape, Features.F))
        return cls(feats, theta, value, meta)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# ---- Training -----------------------------------------------------------------------------

class Adam:
    def __init__(self, n, lr):
        self.lr, self.m, self.v, self.t = lr, np.zeros(n), np.zeros(n), 0

    def step(self, grad):
        """The change to add for ascending grad."""
        self.t += 1
        self.m = 0.9 * self.m + 0.1 * grad
        self.v = 0.999 * self.v + 0.001 * grad * grad
        mh = self.m / (1 - 0.9 ** self.t)
        vh = self.v / (1 - 0.999 ** self.t)
        return self.lr * mh / (np.sqrt(vh) + 1e-8)


def episode(one, policy, rng, seed, learner, sample=True):
    """One match of the learner against the single() environment's bots:
    [(psi, mask, action, return)] per decision (return: the points it won in
    that decision's hand) and the final place reward."""
    feats, at = policy.feats, policy.feats.at
    obs, _ = one.reset(seed=seed, options={"learner": learner})
    steps, hand_of, score_of = [], [], []
    while True:
        vec, mask = obs["observation"], obs["action_mask"].astype(bool)
        psi = feats.action_matrix(vec)
        p = policy.probs(psi, mask)
        a = int(np.searchsorted(np.cumsum(p), rng.random() * p.sum())) if sample else int(np.argmax(p))
        a = min(a, len(p) - 1)
        if not mask[a]:  # rounding at the edge of the last legal action
            a = int(np.flatnonzero(mask)[-1])
        steps.append([psi, mask, a, 0.0])
        hand_of.append((int(vec[at["hand"]]), int(vec[at["replay"]])))
        score_of.append(float(vec[at["score"] + int(vec[at["seat"]])]) / UNITS)
        obs, reward, term, trunc, info = one.step(a)
        if term or trunc:
            break
    final = info["score"]
    # The points won in each decision's hand: the score at the next hand's
    # first decision (or the final score) minus the score during this one.
    after = final
    for t in range(len(steps) - 1, -1, -1):
        if t + 1 < len(steps) and hand_of[t + 1] != hand_of[t]:
            after = score_of[t + 1]
        steps[t][3] = after - score_of[t]
    return steps, reward


def train(args):
    rng = np.random.default_rng(args.seed)
    one = jenv.single(GAME, seats=args.seats, opponents=[args.vs], reward="place")
    feats = Features(one.aec.encoding)
    meta = {"game": GAME, "encoding_version": jenv.ENCODING_VERSION,
            "obs_version": feats.enc.obs_version, "features_version": FEATURES_VERSION,
            "seed": args.seed, "episodes": args.episodes, "batch": args.batch, "lr": args.lr,
            "opponent": args.vs, "seats": args.seats, "method": "REINFORCE, linear softmax, "
            "linear baseline, Adam; from zero weights"}
    policy = Policy(feats, meta=meta)
    opt = Adam(Features.F, args.lr)
    t0, done, recent = time.time(), 0, []
    while done < args.episodes:
        n = min(args.batch, args.episodes - done)
        grad, vgrad, count = np.zeros(Features.F), np.zeros(Features.H + 1), 0
        for k in range(n):
            seed = int(rng.integers(0, 2 ** 63))
            steps, place = episode(one, policy, rng, seed, (done + k) % args.seats)
            recent.append(place)
            for psi, mask, a, ret in steps:
                x = feats.value_input(psi)
                adv = ret - policy.value @ x
                p = policy.probs(psi, mask)
                grad += adv * (psi[a] - p @ psi)
                vgrad += adv * x
                count += 1
        done += n
        policy.theta += opt.step(grad / max(count, 1))
        policy.value += args.lr_value * vgrad / max(count, 1)
        if args.progress and (done // args.batch) % args.progress == 0:
            print("episodes %7d  place score vs %s (last %d, sampled) %.3f  %.0f s" % (
                done, args.vs, len(recent), sum(recent) / len(recent), time.time() - t0),
                file=sys.stderr, flush=True)
            recent = []
    one.close()
    policy.save(args.out)
    print("%s  %s  (%d episodes, seed %d, %.0f s)" % (sha256(args.out), args.out, done,
                                                       args.seed, time.time() - t0))


def evaluate(args):
    """The mean place score of the policy (playing its most probable action)
    against a bot, on `episodes` seeded matches, the learner's seat rotating."""
    one = jenv.single(GAME, seats=args.seats, opponents=[args.vs], reward="place")
    feats = Features(one.aec.encoding)
    policy = Policy(feats) if args.weights == "untrained" else Policy.load(args.weights, feats)
    rng = np.random.default_rng(args.seed)
    total = 0.0
    for k in range(args.episodes):
        seed = int(rng.integers(0, 2 ** 63))
        _, place = episode(one, policy, rng, seed, k % args.seats, sample=args.weights == "untrained")
        total += place
    one.close()
    score = total / args.episodes
    print("%.4f  place score of %s against %s over %d matches (seed %d)" % (
        score, args.weights, args.vs, args.episodes, args.seed))
    return score


# ---- Playing through the protocol ------------------------------------------------------------

class LearnedBruiseJack(jackarena.Bot):
    name = "learned_bruise_jack"
    version = "1.0"
    games = [GAME]

    def __init__(self, weights):
        self.enc = jenv.encoding(GAME)
        self.policy = Policy.load(weights, Features(self.enc))
        self.vec = np.empty(self.enc.obs_length, np.float32)

    def start(self, match):
        if match.obs_version and match.obs_version != self.enc.obs_version:
            raise RuntimeError("%s: observation version %d, the policy was trained on %d"
                               % (match.game, match.obs_version, self.enc.obs_version))

    def act(self, match, obs, legal):
        vec = self.enc.encode_dict(obs, self.vec)  # the vector training saw
        codes = [a["code"] for a in legal]
        best = self.policy.best(vec, self.enc.mask(codes).astype(bool))
        return codes.index(self.enc.code(best))


def main(argv):
    ap = argparse.ArgumentParser(description="A learned Bruise Jack bot (docs/training.md).")
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train", help="train a policy from zero weights and save it")
    t.add_argument("--out", required=True, help="the .npz to write")
    t.add_argument("--episodes", type=int, default=20000, help="matches to learn from")
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--vs", default="random", help="the opponents' bot (jackarena.bots specifier)")
    t.add_argument("--seats", type=int, default=2)
    t.add_argument("--batch", type=int, default=64, help="matches per update")
    t.add_argument("--lr", type=float, default=0.03)
    t.add_argument("--lr-value", type=float, default=0.1)
    t.add_argument("--progress", type=int, default=0, help="report every N updates")
    e = sub.add_parser("eval", help="the place score of a policy against a bot, in-process")
    e.add_argument("weights", help="an .npz, or 'untrained' (zero weights, sampled: random)")
    e.add_argument("--vs", default="random")
    e.add_argument("--seats", type=int, default=2)
    e.add_argument("--episodes", type=int, default=400)
    e.add_argument("--seed", type=int, default=7)
    e.add_argument("--min", type=float, help="exit with status 1 unless the score exceeds this")
    p = sub.add_parser("play", help="play as a bot through the protocol (a cmd: bot)")
    p.add_argument("weights")
    args = ap.parse_args(argv)
    if args.cmd == "train":
        train(args)
    elif args.cmd == "eval":
        score = evaluate(args)
        if args.min is not None and not score > args.min:
            print("FAIL: %.4f is not above %.4f" % (score, args.min), file=sys.stderr)
            return 1
    else:
        LearnedBruiseJack(args.weights).run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
