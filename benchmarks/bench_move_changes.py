"""How often more thinking time changes a player's move: on middle-game positions of
``medium`` self-play (random 4-ply openings, then 16-33 plies), each player searches every
position with each time in turn (a fresh player each search, solver off) and the script
counts the positions whose move differs from the previous time's.  A search that rarely
changes its mind cannot gain much from the time; repeating a time measures the noise.

    python3 benchmarks/bench_move_changes.py --times 0.25,1,1,4 --players expert "puct:endgame_empties=20"

No ground truth: a changed move is not a better one (bench_quality.py and matches judge).
"""
import argparse
import random

import cythello as cy
from cythello.players import make_player


def positions(count, seed):
    """``count`` positions with the side to move having a choice (fewer if games end)."""
    rng = random.Random(seed)
    player = make_player("medium", seed=seed)
    out = []
    for _ in range(count):
        board, plies = cy.Board(), rng.randrange(16, 34)
        while not board.is_game_over() and board.ply < plies:
            board.push(rng.choice(list(board.legal_moves)) if board.ply < 4
                       else player.choose_move(board.copy()))
        if not board.is_game_over() and not board.must_pass():
            out.append(board)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--times", default="0.25,1,1,4", help="seconds a search, in turn")
    ap.add_argument("--players", nargs="+", default=["expert"], help="player specs")
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    times = [float(t) for t in args.times.split(",")]
    boards = positions(args.positions, args.seed)
    print(f"{len(boards)} positions; moves changed from the previous time")
    for spec in args.players:
        moves = [[make_player(spec, seed=1).search(b, time_limit=t, solve=False).best_move
                  for t in times] for b in boards]
        steps = "  ".join(f"{times[i - 1]:g}->{times[i]:g} s: "
                          f"{sum(m[i] != m[i - 1] for m in moves)}"
                          for i in range(1, len(times)))
        print(f"{spec:<40} {steps}  first->last: {sum(m[-1] != m[0] for m in moves)}",
              flush=True)


if __name__ == "__main__":
    main()
