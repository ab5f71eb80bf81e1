"""What the exact solver's threshold changes near the end of a game: each held-out PUCT
self-play position of 21-24 empties (``data/heldout-puct-deep.txt``, exact scores known)
is searched once by each player at each time a move, solver on, and every move chosen is
then solved: a result thrown away is a chosen move whose outcome (win, draw, loss) is worse
than the position's.  Also how many positions each player answered exactly, and the time it
took.  The players' searches run one after another in this process (run two of these side
by side to use two cores); the checking solves are shared between players (a cache).

    python3 benchmarks/bench_solve_threshold.py --times 0.25,1,4 --players \\
        "mcts:preset=expert,endgame_by_time=false,endgame_empties=22" expert
"""
import argparse
import collections
import time
from pathlib import Path

import cythello as cy
from cythello.players import make_player
from cythello.search.internals import Solver

DEEP = Path(__file__).resolve().parent / "data" / "heldout-puct-deep.txt"


def sign(x):
    return (x > 0) - (x < 0)


def positions(low, high):
    rows = [line.rsplit(" ", 1) for line in DEEP.read_text().splitlines() if line.strip()]
    boards = [(cy.Board(text), int(score)) for text, score in rows]
    return [(board, score) for board, score in boards if low <= board.empties() <= high]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--times", default="0.25,1,4", help="seconds a move (default 0.25,1,4)")
    ap.add_argument("--players", nargs="+", default=["expert"], help="player specs")
    ap.add_argument("--empties", default="21-24", help="empties of the positions (21-24)")
    args = ap.parse_args()
    low, high = (int(x) for x in args.empties.split("-"))
    boards = positions(low, high)
    checker = Solver()
    outcomes = {}                     # (position, move) -> outcome for the mover

    def outcome(i, move):
        if (i, move) not in outcomes:
            child = boards[i][0].copy(stack=False)
            child.push(move)
            if child.is_game_over():
                # Wiped out or full: the final count decides (mover's view).
                diff = child.discs(0) - child.discs(1)
                outcomes[i, move] = sign(diff if child.turn == 1 else -diff)
            else:
                proof = cy.solve_outcome(child, solver=checker).outcome
                outcomes[i, move] = {"win": -1, "draw": 0, "loss": 1}[str(proof)]
        return outcomes[i, move]

    print(f"{len(boards)} positions of {low}-{high} empties; per empties: thrown away / "
          "solved exactly / mean seconds")
    for seconds in (float(t) for t in args.times.split(",")):
        for spec in args.players:
            player = make_player(spec, seed=1)
            rows = []
            start = time.perf_counter()
            for board, _ in boards:
                player.reset()
                r = player.search(board, time_limit=seconds)
                rows.append((r.best_move, str(r.stop_reason) == "exact", r.elapsed))
            spent = time.perf_counter() - start
            by = collections.defaultdict(lambda: [0, 0, 0, 0.0])
            for i, (move, exact, elapsed) in enumerate(rows):
                cell = by[boards[i][0].empties()]
                cell[0] += 1
                cell[1] += outcome(i, move) < sign(boards[i][1])
                cell[2] += exact
                cell[3] += elapsed
            lost = sum(c[1] for c in by.values())
            print(f"{spec} at {seconds:g} s ({spent:.0f} s): {lost} of {len(rows)} thrown "
                  f"away, {sum(c[2] for c in by.values())} solved; "
                  + ", ".join(f"{e}: {c[1]} / {c[2]} / {c[3] / c[0]:.2f}"
                              for e, c in sorted(by.items())), flush=True)


if __name__ == "__main__":
    main()
