"""Endgame solver benchmark on the FFO suite: correctness against the published exact
scores, nodes, time and nodes per second.

    python3 benchmarks/bench_endgame.py [--set easy|medium] [--limit 30]

``easy`` is FFO #1-#19 (14-16 empties, milliseconds each); ``medium`` is #21-#35
(15-21 empties, about 14 s in all here).
"""
import argparse
import time
from pathlib import Path

import cythello as cy

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
SETS = {"easy": ("fforum-1-19.obf", 0, 19, 1), "medium": ("fforum-20-39.obf", 1, 16, 20)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--set", choices=sorted(SETS), default="medium")
    ap.add_argument("--limit", type=float, default=60.0, help="seconds per position at most")
    args = ap.parse_args()
    name, first, last, number = SETS[args.set]
    positions = list(cy.read_obf(DATA / name))[first:last]
    total_nodes, total_time, correct = 0, 0.0, 0
    print(f"{'#':>3} {'empties':>7} {'score':>6} {'move':>5} {'nodes':>13} {'seconds':>8}  ok")
    for i, pos in enumerate(positions):
        start = time.perf_counter()
        result = cy.solve(pos.board, time_limit=args.limit)
        elapsed = time.perf_counter() - start
        ok = result.score == pos.best_score and result.best_move in pos.best_moves()
        correct += ok
        total_nodes += result.nodes
        total_time += elapsed
        print(f"{first + number + i:>3} {pos.board.empties():>7} {result.score:>+6} "
              f"{result.best_move_name:>5} {result.nodes:>13,} {elapsed:>8.3f}  {'yes' if ok else 'NO'}")
    print(f"{correct}/{len(positions)} correct, {total_nodes:,} nodes in {total_time:.2f} s "
          f"({total_nodes / total_time / 1e6:.1f} M nodes/s)")


if __name__ == "__main__":
    main()
