"""The engine shell's cost: each search's iterations per second through its player (UCT
iterations, PUCT simulations with depth-1 and depth-2 leaf values, alpha-beta nodes;
midgame positions, one thread, timed searches without the book or the solver), beside the
portable-C yardstick's minimal UCT from the same run.  With ``--against SRC`` (another
checkout's ``src``, built; "this" is the cythello this Python imports, installed or on
PYTHONPATH) each figure is measured alternately with that code and this,
in fresh processes, so that a change to the shell is judged side by side:

    python3 benchmarks/bench_engine.py [--seconds 0.5] [--rounds 3]
    python3 benchmarks/bench_engine.py --against /tmp/old/src      # before / after
"""
import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Tuple

from _reference import ratio, reference

POSITIONS = ["c4c5f6c3b5g7e3e6c2f3g3a5h8b3f4f2", "f5d6c3d3c4f4f6f3e6e7",
             "f5f6e6f4e3c5c4e7b5e2"]
# puct2: PUCT with the expert level's depth-2 leaf values, where evaluating costs most.
SEARCHES = ("uct", "puct", "puct2", "alphabeta")

# One measurement, run in a fresh process with the package on its PYTHONPATH.
PROBE = """
import sys
import cythello as cy
from cythello.nn import PatternEvaluator
kind, seconds = sys.argv[1], float(sys.argv[2])
done = spent = 0.0
for moves in sys.argv[3:]:
    board = cy.Board.from_transcript(moves)
    if kind == "uct":
        player = cy.MCTSPlayer(time_limit=seconds, seed=1)
    elif kind in ("puct", "puct2"):
        depth = 2 if kind == "puct2" else 1
        player = cy.PUCTPlayer(PatternEvaluator(search_depth=depth), time_limit=seconds)
    else:
        player = cy.AlphaBetaPlayer(time_limit=seconds, probcut=1.5)
    result = player.search(board, book=False, solve=False)
    done += result.iterations
    spent += result.elapsed
print(done / spent)
"""


def measure(src: Optional[Path], kind: str, seconds: float) -> float:
    """One figure, in a fresh process: of the cythello this Python imports (``src=None``:
    the installed package, or whatever PYTHONPATH already names) or of ``src``."""
    env = dict(os.environ) if src is None else dict(os.environ, PYTHONPATH=str(src))
    out = subprocess.run([sys.executable, "-c", PROBE, kind, str(seconds), *POSITIONS],
                         env=env, capture_output=True, text=True)
    if out.returncode:
        last = (out.stderr.strip().splitlines() or ["no message"])[-1]
        where = "the installed cythello" if src is None else str(src)
        raise SystemExit(f"bench_engine: the {kind} probe failed with {where}: {last}")
    return float(out.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=0.5, help="each search's time")
    ap.add_argument("--rounds", type=int, default=3, help="measurements of each figure")
    ap.add_argument("--against", type=Path, help="another checkout's src/ to compare with")
    args = ap.parse_args()
    trees: List[Tuple[str, Optional[Path]]] = [("this", None)]
    trees += ([("against", args.against)] if args.against else [])
    ref = reference()
    uct_ref = ref["uct_iters_per_s"] if ref else None
    print(f"yardstick minimal UCT: {uct_ref:,.0f} it/s" if ref else "yardstick: no C compiler")
    print(f"{'search':10} " + " ".join(f"{name + ' (/s)':>16}" for name, _ in trees)
          + ("  this/against" if args.against else "") + "  this/yardstick UCT")
    for kind in SEARCHES:
        rates = {name: [] for name, _ in trees}
        for _ in range(args.rounds):
            for name, src in trees:               # alternately: the same load for each
                rates[name].append(measure(src, kind, args.seconds))
        med = {name: statistics.median(r) for name, r in rates.items()}
        row = f"{kind:10} " + " ".join(f"{med[name]:16,.0f}" for name, _ in trees)
        if args.against:
            row += f"  {med['this'] / med['against']:12.2f}"
        print(row + f"  {ratio(med['this'], uct_ref):>18}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
