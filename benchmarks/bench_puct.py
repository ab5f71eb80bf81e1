"""What the PUCT search costs around a network: leaves evaluated per second through the
evaluator at several batch sizes (one game, a trivial NumPy network, so the figure is the
search's overhead per leaf), and self-play games per second with many games batched.

    python3 benchmarks/bench_puct.py            # about a minute on one core
"""
import argparse
import tempfile
import time

import numpy as np
from _reference import reference

import cythello as cy
from cythello import selfplay
from cythello.nn import uniform_evaluator


class LinearNet:
    """A one-layer network: 128 inputs to 65 logits and a tanh value (NumPy only)."""

    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        self.w = rng.normal(0, 0.05, (128, 66)).astype(np.float32)

    def __call__(self, planes, legal):
        out = planes.reshape(len(planes), 128) @ self.w
        return out[:, :65], np.tanh(out[:, 65])


def leaves_per_second(evaluator, batch, seconds):
    player = cy.PUCTPlayer(evaluator, time_limit=seconds, batch_size=batch, reuse_tree=False)
    board = cy.Board()
    result = player.search(board)
    return result.iterations / result.elapsed, player.evaluator_calls


def selfplay_rate(evaluator, games, simulations, batch_games):
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        selfplay.generate(games, out, seed=1, evaluator=evaluator, batch_games=batch_games,
                          simulations=simulations, games_per_shard=games)
        elapsed = time.perf_counter() - start
        positions = len(selfplay.load(out)["black"])
    return games / elapsed, positions / elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="per batch-size measurement")
    ap.add_argument("--games", type=int, default=64, help="self-play games per measurement")
    ap.add_argument("--simulations", type=int, default=100)
    args = ap.parse_args()
    net = LinearNet()
    ref = (reference(args.seconds) or {}).get("uct_iters_per_s")
    if ref:     # not the same work (a random playout per iteration, no network): for scale
        print(f"the C yardstick's minimal UCT, same run: {ref:,.0f} iterations/s")
    print("one search, leaves evaluated per second (evaluator calls = leaves / batch)")
    print(f"{'batch':>6} {'uniform':>12} {'linear net':>12}")
    for batch in (1, 8, 64, 256):
        u, _ = leaves_per_second(uniform_evaluator, batch, args.seconds)
        n, _ = leaves_per_second(net, batch, args.seconds)
        print(f"{batch:>6} {u:>12,.0f} {n:>12,.0f}")
    print(f"\nself-play, {args.games} games at {args.simulations} simulations a move, "
          "linear net")
    print(f"{'games at once':>14} {'games/s':>9} {'positions/s':>12}")
    for batch_games in (1, 16, args.games):
        g, p = selfplay_rate(net, args.games, args.simulations, batch_games)
        print(f"{batch_games:>14} {g:>9.2f} {p:>12,.0f}")


if __name__ == "__main__":
    main()
