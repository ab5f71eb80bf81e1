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

``--endgame`` judges the endgame a player plays in a game instead: its solver on (the
hand-off to the exact solve by time, as ``search()`` does by default), on the FFO positions
and 72 positions of strong self-play games at 16-24 empties (``data/endgame-16-24.obf``,
made by ``make_endgame_positions.py``), grouped by empty squares, with the discs lost per
move and the share of best moves in each group:

    python3 benchmarks/bench_quality.py --endgame --times 0.25,1 --players expert
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


ENDGAME_POSITIONS = Path(__file__).resolve().parent / "data" / "endgame-16-24.obf"
# Groups of the --endgame table, by empty squares: (lowest, highest).
EMPTIES_GROUPS = [(6, 16), (17, 20), (21, 22), (23, 24), (25, 26), (27, 34)]


def losses(spec, seconds, positions, solve=False):
    """(discs lost against the best move, whether the result was thrown away) for each
    position, one search each (``solve``: with the player's exact solver, as in a game)."""
    player = make_player(spec, seed=1)
    out = []
    for pos in positions:
        player.reset()
        move = player.search(pos.board, time_limit=seconds, solve=solve).best_move
        out.append((pos.best_score - pos.scores[move],
                    sign(pos.scores[move]) < sign(pos.best_score)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--times", default="0.25,1,4", help="seconds a move (default 0.25,1,4)")
    ap.add_argument("--players", nargs="+", default=["expert"],
                    help="player specs, as for cythello match (default: expert)")
    ap.add_argument("--endgame", action="store_true",
                    help="solver on, as in a game; results by empty squares")
    args = ap.parse_args()
    if args.endgame:
        endgame_table(args)
        return
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


def endgame_table(args):
    positions = [pos for _, file in SUITES for pos in cy.read_obf(DATA / file)]
    positions += list(cy.read_obf(ENDGAME_POSITIONS))
    groups = [(lo, hi, [i for i, p in enumerate(positions) if lo <= p.board.empties() <= hi])
              for lo, hi in EMPTIES_GROUPS]
    print("the endgame as played (solver on): discs lost against the best move a move / "
          "share of best moves, by empty squares (positions in each group)")
    print(f"{'player':<36}{'time':>6}"
          + "".join(f"{f'{lo}-{hi} ({len(ix)})':>15}" for lo, hi, ix in groups)
          + f"{'all':>13}{'result lost':>13}{'s':>6}")
    for spec in args.players:
        for seconds in (float(t) for t in args.times.split(",")):
            start = time.perf_counter()
            found = losses(spec, seconds, positions, solve=True)
            cells = []
            for _, _, ix in groups + [(0, 0, list(range(len(positions))))]:
                lost = [found[i][0] for i in ix]
                cells.append(f"{statistics.mean(lost):.2f} / {sum(d == 0 for d in lost) / len(lost):.0%}")
            print(f"{spec:<36}{seconds:>6g}" + "".join(f"{c:>15}" for c in cells[:-1])
                  + f"{cells[-1]:>13}"
                  + f"{sum(lost for _, lost in found):>9}/{len(found)}"
                  + f"{time.perf_counter() - start:>6.0f}", flush=True)


if __name__ == "__main__":
    main()
