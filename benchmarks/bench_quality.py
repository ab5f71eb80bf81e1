"""Move quality by thinking time: on the FFO positions (#1-#59, 14-34 empties and one of 6),
whose every move's exact score is known, the discs a player's chosen move gives away
against the best move, and how often it throws away the game's result (a win or draw that
the best move keeps), for each time per move. Whether more time buys better moves, where,
and for which settings; no match needed, and the same positions for every player. The
players' exact solvers are off (``search(solve=False)``): the search itself is judged. An
MCTS player plays to win, not for the margin: once it proves a win, any winning move will
do, so its disc losses can grow with time while it keeps every result.

    python3 benchmarks/bench_quality.py --times 0.25,1,4 --players expert "puct:"
    python3 benchmarks/bench_quality.py --players "mcts:preset=expert,exploration=2"

Each search starts from a fresh tree (the player is reset between positions).
"""
import argparse
import statistics
import time
from pathlib import Path

import cythello as cy
from cythello.players import make_player

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
SUITES = [("#1-19", "fforum-1-19.obf"), ("#20-39", "fforum-20-39.obf"),
          ("#40-59", "fforum-40-59.obf")]


def sign(score):
    return (score > 0) - (score < 0)


def losses(spec, seconds, positions):
    """(discs lost against the best move, whether the result was thrown away) for each
    position, one search each."""
    player = make_player(spec, seed=1)
    out = []
    for pos in positions:
        player.reset()
        move = player.search(pos.board, time_limit=seconds, solve=False).best_move
        out.append((pos.best_score - pos.scores[move],
                    sign(pos.scores[move]) < sign(pos.best_score)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--times", default="0.25,1,4", help="seconds a move (default 0.25,1,4)")
    ap.add_argument("--players", nargs="+", default=["expert"],
                    help="player specs, as for cythello match (default: expert)")
    args = ap.parse_args()
    suites = [(name, list(cy.read_obf(DATA / file))) for name, file in SUITES]
    print("discs lost against the best move, by suite; best: the best move chosen; "
          "result lost: a win or draw thrown away")
    print(f"{'player':<44}{'time':>6}" + "".join(f"{name:>9}" for name, _ in suites)
          + f"{'all':>8}{'best':>7}{'result lost':>13}{'s':>7}")
    for spec in args.players:
        for seconds in (float(t) for t in args.times.split(",")):
            start = time.perf_counter()
            row = [losses(spec, seconds, positions) for _, positions in suites]
            every = [x for part in row for x in part]
            print(f"{spec:<44}{seconds:>6g}"
                  + "".join(f"{statistics.mean(d for d, _ in part):>9.2f}" for part in row)
                  + f"{statistics.mean(d for d, _ in every):>8.2f}"
                  + f"{sum(d == 0 for d, _ in every) / len(every):>7.0%}"
                  + f"{sum(lost for _, lost in every):>9}/{len(every)}"
                  + f"{time.perf_counter() - start:>7.0f}", flush=True)


if __name__ == "__main__":
    main()
