"""Endgame solver benchmark on the FFO suite: ``cythello solve`` over a file, which checks
each exact score against the published one and prints nodes, time and nodes per second.

    python3 benchmarks/bench_endgame.py            # FFO #20-#39 (6-26 empties): minutes
    python3 benchmarks/bench_endgame.py 1-19       # FFO #1-#19 (14-16 empties): a second
    python3 benchmarks/bench_endgame.py 20-39 --time 20
"""
import sys
from pathlib import Path

from cythello.cli import main

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"

if __name__ == "__main__":
    args = sys.argv[1:]
    which = args.pop(0) if args and not args[0].startswith("-") else "20-39"
    sys.exit(main(["solve", str(DATA / f"fforum-{which}.obf")] + args))
