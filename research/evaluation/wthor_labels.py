"""How good are the WTHOR records' labels, and today's weights, against exact scores?
Draws ``--positions`` positions with ``--empties`` empties from the games of
``--years`` (held out from ``python -m cythello.training games``), solves each exactly and
prints the mean gap between the record's label (the perfect-play score from 24 empties
after the game as played) and the exact score, and the static error of a weights file
against both.

    python3 research/evaluation/wthor_labels.py --db ../shared/data/wthor --empties 24 --positions 40
    python3 research/evaluation/wthor_labels.py --db ../shared/data/wthor --empties 26 --positions 30
"""
import argparse
import time

import numpy as np

from cythello.core._board import Board
from cythello.eval.weights import load_weights
from cythello.games import GameDatabase
from cythello.search.endgame._solver import Solver
from cythello.training.games import game_positions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True, help="WTHOR files or folder")
    ap.add_argument("--empties", type=int, default=24)
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--years", default="2019-2023")
    ap.add_argument("--weights", default=None, help="weights file (default: the shipped)")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    lo, _, hi = args.years.partition("-")
    db = GameDatabase.open(args.db, index=None).filter(year=(int(lo), int(hi or lo)))
    positions = game_positions(db, [args.empties])
    pick = np.random.default_rng(args.seed).choice(len(positions), args.positions,
                                                   replace=False)
    solver = Solver()
    started = time.monotonic()
    exact = np.array([solver.solve(Board.from_bitboards(int(positions.own[i]),
                                                        int(positions.opp[i]), 0))[0]
                      for i in pick], dtype=np.float64)
    label = positions.label[pick]
    static = load_weights(args.weights).evaluate_many(positions.own[pick], positions.opp[pick])
    print(f"{args.empties} empties, {args.positions} positions of {args.years} "
          f"({time.monotonic() - started:.0f} s of solving)")
    print(f"  label vs exact: mean gap {np.abs(label - exact).mean():.2f} discs, "
          f"{np.mean(label == exact):.0%} equal")
    print(f"  static evaluation: {np.abs(static - exact).mean():.2f} discs from the exact "
          f"scores, {np.abs(static - label).mean():.2f} from the labels")


if __name__ == "__main__":
    main()
