"""``cythello bench``: the speed of the rules and the search on this machine."""
from __future__ import annotations

import argparse
from typing import Any

from .common import say


def cmd_bench(args: argparse.Namespace) -> int:
    """``cythello bench``: the benchmark table."""
    from ..bench import run_bench
    for line in run_bench(args.seconds):
        say(line)
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("bench", help="rules and search benchmarks",
                       description="Playouts, perft and MCTS speed on this machine (the "
                                   "repository's benchmarks/ compare with a C yardstick).")
    p.add_argument("--seconds", type=float, default=1.0,
                   help="seconds per figure (default: %(default)g)")
    p.set_defaults(func=cmd_bench)
