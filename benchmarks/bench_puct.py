"""What the PUCT search costs around a network: leaves evaluated per second through the
evaluator at several batch sizes (one game, a trivial NumPy network, so the figure is the
search's overhead per leaf), and self-play games per second with many games batched; then
the shipped pattern evaluation called through Python against the same called in C.

    python3 benchmarks/bench_puct.py            # about a minute on one core
"""
import argparse
import tempfile
import time

import numpy as np
from _reference import reference

import cythello as cy
from cythello import selfplay
from cythello.nn import PatternEvaluator, uniform_evaluator


class LinearNet:
    """A one-layer network: 128 inputs to 65 logits and a tanh value (NumPy only)."""

    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        self.w = rng.normal(0, 0.05, (128, 66)).astype(np.float32)

    def __call__(self, planes, legal):
        out = planes.reshape(len(planes), 128) @ self.w
        return out[:, :65], np.tanh(out[:, 65])


def leaves_per_second(evaluator, batch, seconds, board=None):
    player = cy.PUCTPlayer(evaluator, time_limit=seconds, batch_size=batch, reuse_tree=False)
    result = player.search(board or cy.Board())
    return result.iterations / result.elapsed, player.evaluator_calls


def selfplay_rate(evaluator, games, simulations, batch_games):
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        selfplay.generate(games, out, seed=1, evaluator=evaluator, batch_games=batch_games,
                          iterations=simulations, games_per_shard=games)
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
    pattern = PatternEvaluator()

    def through_python(planes, legal):     # the same answers, but called from Python
        return pattern(planes, legal)

    midgame = cy.Board.from_transcript("f5d6c3d3c4f4f6f3e6e7d7c5b6")
    print("\nthe shipped pattern evaluation, midgame, one search: leaves per second")
    for name, evaluator, batch in (("through Python", through_python, 1),
                                   ("through Python", through_python, 16),
                                   ("in C", pattern, 1)):
        rate, _ = leaves_per_second(evaluator, batch, args.seconds, midgame)
        print(f"{name:>15}, batch {batch:>3}: {rate:>10,.0f}")
    print(f"self-play, {args.games} games at {args.simulations} simulations a move")
    for name, evaluator, batch_games in (("through Python", through_python, args.games),
                                         ("in C", pattern, 1), ("in C", pattern, args.games)):
        g, p = selfplay_rate(evaluator, args.games, args.simulations, batch_games)
        print(f"{name:>15}, {batch_games:>3} games at once: {g:>7.2f} games/s "
              f"{p:>9,.0f} positions/s")


if __name__ == "__main__":
    main()
