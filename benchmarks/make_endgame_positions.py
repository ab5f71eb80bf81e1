"""Make the endgame-accuracy positions: positions of strong self-play games with the exact
score of every legal move, so that a player's move can be judged by the discs it gives away
(``bench_quality.py --endgame``).  The FFO suite alone has five positions at most of each
size from 21 empties; these add ``--per`` positions of every size from 16 to 24 empties.

    python3 benchmarks/make_endgame_positions.py          # writes benchmarks/data/endgame-16-24.obf

The positions are the first ``--per`` of each size in ``benchmarks/data/heldout-strong.txt``
(positions of strong self-play games, held out of every training set), in file order; each
move is solved exactly (``cythello.solve_moves``), so the file is the same on every machine.
Each position is written as soon as it is solved, and a rerun keeps the positions the file
already has (a run stopped part way goes on where it stopped).
"""
import argparse
import shlex
import sys
import time
from pathlib import Path

import cythello as cy
from cythello.records.obf import ObfPosition

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "data" / "heldout-strong.txt"
OUT = HERE / "data" / "endgame-16-24.obf"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per", type=int, default=8, help="positions of each size (default 8)")
    ap.add_argument("--empties", default="16-24", help="sizes, LOW-HIGH (default 16-24)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    low, _, high = args.empties.partition("-")
    sizes = range(int(low), int(high or low) + 1)
    chosen = {n: [] for n in sizes}
    for line in SOURCE.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        board = cy.Board(line[:66])
        n = board.empties()
        if n in chosen and len(chosen[n]) < args.per and board.legal_moves_mask:
            chosen[n].append(board)
    done = {pos.board.board_string() for pos in cy.read_obf(args.out)} if args.out.exists() else set()
    if not done:
        args.out.write_text(
            "# Endgame-accuracy positions: every legal move's exact score (cythello.solve_moves).\n"
            f"# {args.per} a size, {low}-{high or low} empties, the first of each size in "
            "benchmarks/data/heldout-strong.txt.\n"
            "# Made by: python3 benchmarks/" + " ".join(
                shlex.quote(a) for a in [Path(sys.argv[0]).name] + sys.argv[1:]) + "\n")
    start = time.perf_counter()
    with args.out.open("a") as out:
        for n in sizes:
            t = time.perf_counter()
            for board in chosen[n]:
                if board.board_string() not in done:
                    out.write(ObfPosition(board, cy.solve_moves(board)).to_line() + "\n")
                    out.flush()
            print(f"{n} empties: {len(chosen[n])} positions, {time.perf_counter() - t:.1f} s",
                  flush=True)
    print(f"wrote {args.out} ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
