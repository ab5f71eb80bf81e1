"""Print the move, value and node count of a fixed-budget search of each kind on a set of
positions: a change that should alter nothing but the code's layout (a module moved, a
file renamed) prints the same lines before and after.

    python3 tools/search_fingerprint.py > before.txt      # on the old code
    python3 tools/search_fingerprint.py | diff before.txt -

Every search here is deterministic (one thread, a seed, an iteration, simulation, depth or
exact budget), and only the public API is used, so the script runs unchanged on both sides.
"""
import sys

import cythello as cy


def _random_game(empties: int, seed: int) -> cy.Board:
    """A position of a seeded random game (Python's own generator: the same on both sides)."""
    board, player = cy.Board(), cy.RandomPlayer(seed)
    while board.empties() > empties and not board.is_game_over():
        board.push(player.choose_move(board))
    return board


# The start, an opening, two middle games and an FFO endgame (#40: 20 empties).
POSITIONS = [
    ("start", cy.Board()),
    ("f5d6c3", cy.Board.from_transcript("f5d6c3")),
    ("mid-40", _random_game(40, 1)),
    ("mid-30", _random_game(30, 2)),
    ("ffo-40", cy.Board("O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X")),
]


def players():
    yield "uct", cy.MCTSPlayer(iterations=3000, seed=1)
    yield "uct-classic", cy.MCTSPlayer(cy.SearchSettings.preset("classic", iterations=3000, seed=1))
    yield "uct-rave-tt", cy.MCTSPlayer(iterations=3000, seed=2, rave=1000.0, transpositions=True)
    yield "puct", cy.PUCTPlayer(iterations=400, endgame_empties=0)
    yield "alphabeta-d6", cy.AlphaBetaPlayer(depth=6, endgame_empties=0)
    yield "alphabeta-d8-probcut", cy.AlphaBetaPlayer(depth=8, probcut=1.5, endgame_empties=0)
    yield "expert-200", cy.make_player("expert:iterations=200")


def main() -> int:
    for name, player in players():
        for where, board in POSITIONS:
            r = player.search(board)
            best = r.best_stats
            value = "-" if best is None else f"{best.win_rate:.6f}/{best.value}"
            print(f"{name:22s} {where:8s} move={cy.square_name(r.best_move)} value={value} "
                  f"nodes={r.nodes} iterations={r.iterations}")
    for where, board in [("mid-22", _random_game(22, 3)), POSITIONS[-1]]:
        s = cy.solve(board)
        print(f"{'solve':22s} {where:8s} move={cy.square_name(s.best_move)} score={s.score} "
              f"nodes={s.nodes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
