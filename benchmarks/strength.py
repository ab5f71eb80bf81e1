"""Strength table: matches between presets, against RandomPlayer, heuristic against random
rollouts at equal time, and the endgame solver's worth.  Colours alternate and each pair of games shares an opening
(random 4-ply openings), so neither side gets the easier colour of a position.

    python3 benchmarks/strength.py [--games 20] [--only ladder|rollouts|endgame]
    python3 benchmarks/strength.py --games 100 --pair hard,medium
"""
import argparse
import time

import cythello as cy
from cythello.match import random_openings, run_match


def report(name, first, second, games, openings):
    start = time.perf_counter()
    result = run_match(first, second, games, openings=openings)
    print(f"{name:<44} {result.summary()}   ({time.perf_counter() - start:.0f} s)", flush=True)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--only", choices=["ladder", "rollouts", "endgame"])
    ap.add_argument("--pair", help="only this preset pair, e.g. hard,medium")
    ap.add_argument("--move-time", type=float, default=0.05,
                    help="seconds per move for the equal-time rollout comparison")
    args = ap.parse_args()
    openings = random_openings(args.games, plies=4, seed=1)
    if args.pair:
        upper, lower = args.pair.split(",")
        report(f"{upper} vs {lower}", cy.MCTSPlayer.preset(upper, seed=3),
               cy.MCTSPlayer.preset(lower, seed=4), args.games, openings)
        return
    if args.only in (None, "rollouts"):
        t = args.move_time
        report(f"heuristic vs random rollouts, {t:g} s/move",
               cy.MCTSPlayer(time_limit=t, rollout="heuristic", seed=1),
               cy.MCTSPlayer(time_limit=t, rollout="random", seed=2), args.games, openings)
    if args.only in (None, "endgame"):
        report("hard vs hard without the endgame solver",
               cy.MCTSPlayer.preset("hard", seed=5),
               cy.MCTSPlayer.preset("hard", seed=6, endgame_empties=0), args.games, openings)
    if args.only in (None, "ladder"):
        report("easy vs RandomPlayer", cy.MCTSPlayer.preset("easy", seed=1), cy.RandomPlayer(2),
               args.games, openings)
        for upper, lower in (("medium", "easy"), ("hard", "medium"), ("expert", "hard")):
            report(f"{upper} vs {lower}", cy.MCTSPlayer.preset(upper, seed=3),
                   cy.MCTSPlayer.preset(lower, seed=4), args.games, openings)


if __name__ == "__main__":
    main()
