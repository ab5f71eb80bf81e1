"""Rules-core benchmark: random playouts/s, perft(11) and the Python-level cost of
push/pop/legal_moves, with the portable-C yardstick from the same run.

    python3 benchmarks/bench_rules.py [--seconds 2]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time
import timeit

from _reference import ratio, reference

import cythello as cy


def playouts_per_second(seconds: float) -> float:
    rates = []
    board = cy.Board()
    for _ in range(5):
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / 5:
            cy.random_playouts(board, 2000, seed=n)
            n += 2000
        rates.append(n / (time.perf_counter() - start))
    return statistics.median(rates)


def portable_playouts_per_second(seconds: float) -> float:
    """The same figure from the portable build, in a child process that is told to keep it."""
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); "
            f"import bench_rules as b; print(b.playouts_per_second({seconds}))")
    env = dict(os.environ, CYTHELLO_PORTABLE="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True)
    return float(out.stdout)


def perft11_seconds() -> float:
    start = time.perf_counter()
    leaves = cy.perft(cy.Board(), 11)
    assert leaves == 212258216, leaves
    return time.perf_counter() - start


def python_call_costs() -> dict:
    board = cy.Board.from_transcript("f5d6c3d3c4f4f6f3e6e7")
    move = list(board.legal_moves)[0]

    def push_pop():
        board.push(move)
        board.pop()

    n = 200_000
    return {
        "push+pop_ns": min(timeit.repeat(push_pop, number=n, repeat=5)) / n * 1e9,
        "list(legal_moves)_ns": min(timeit.repeat(lambda: list(board.legal_moves), number=n, repeat=5)) / n * 1e9,
        "legal_moves_mask_ns": min(timeit.repeat(lambda: board.legal_moves_mask, number=n, repeat=5)) / n * 1e9,
        "is_legal_ns": min(timeit.repeat(lambda: board.is_legal(move), number=n, repeat=5)) / n * 1e9,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args()
    ref = reference(args.seconds) or {}
    ours_playouts = playouts_per_second(args.seconds)
    portable_playouts = portable_playouts_per_second(args.seconds)
    ours_perft = perft11_seconds()
    ref2 = reference(args.seconds) or {}     # again after ours: a drifting machine shows
    ref_playouts = statistics.mean([r["playouts_per_s"] for r in (ref, ref2) if r] or [0])
    ref_perft = statistics.mean([r["perft11_s"] for r in (ref, ref2) if r] or [0])
    print(f"{'figure':<28}{'cythello':>14}{'C reference':>14}{'ratio':>9}")
    print(f"playout build in use: {cy.build_info()['rules_path']}")
    print(f"{'random playouts / s':<28}{ours_playouts:>14,.0f}{ref_playouts:>14,.0f}"
          f"{ratio(ours_playouts, ref_playouts):>9}")
    print(f"{'  the same, portable build':<28}{portable_playouts:>14,.0f}{ref_playouts:>14,.0f}"
          f"{ratio(portable_playouts, ref_playouts):>9}")
    print(f"{'perft(11) seconds':<28}{ours_perft:>14.3f}{ref_perft:>14.3f}"
          f"{ratio(ours_perft, ref_perft):>9}  (time: lower is better)")
    for name, ns in python_call_costs().items():
        print(f"{name:<28}{ns:>14.0f}")


if __name__ == "__main__":
    main()
