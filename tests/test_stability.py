"""Stable discs (cythello.core._stability), which the solver's stability cutoff trusts: a
disc reported stable must keep its colour in every continuation of the game."""
import random

from cythello import Board
from cythello.core._stability import stable_squares

PASS = 64
INNER = 0x007E7E7E7E7E7E00     # squares off the edges: stable only through full lines


def _random_game_position(rng, empties):
    """A position of a random game with ``empties`` empty squares (None if it ended)."""
    board = Board()
    while board.empties() > empties:
        if board.is_game_over():
            return None
        moves = list(board.legal_moves)
        board.push(rng.choice(moves) if moves else PASS)
    return board


def _random_full_board(rng, empties):
    """A board filled at random but for ``empties`` squares: many full lines and
    diagonals, which games this close to the end seldom give a test."""
    squares = rng.sample(range(64), empties)
    cells = ["X" if rng.random() < 0.5 else "O" for _ in range(64)]
    for sq in squares:
        cells[sq] = "-"
    return Board("".join(cells) + (" X" if rng.random() < 0.5 else " O"))


def _check_never_flipped(board, black, white):
    """Every continuation keeps the discs of ``black`` black and of ``white`` white;
    returns the positions visited."""
    assert board.black & black == black
    assert board.white & white == white
    if board.is_game_over():
        return 1
    visited = 1
    for move in list(board.legal_moves) or [PASS]:
        board.push(move)
        visited += _check_never_flipped(board, black, white)
        board.pop()
    return visited


def test_stable_discs_are_never_flipped_in_any_continuation():
    rng = random.Random(2026)
    boards = [b for b in (_random_game_position(rng, 6) for _ in range(40)) if b is not None]
    boards += [_random_full_board(rng, 5) for _ in range(60)]
    stable_total = inner_total = visited = 0
    for board in boards:
        black = stable_squares(board, 0)
        white = stable_squares(board, 1)
        assert black & white == 0
        assert black & ~board.black == 0 and white & ~board.white == 0
        stable_total += bin(black | white).count("1")
        inner_total += bin((black | white) & INNER).count("1")
        visited += _check_never_flipped(board, black, white)
    # Not a vacuous check: many discs were claimed stable, inner ones (full lines) too.
    assert stable_total > 1000 and inner_total > 300, (stable_total, inner_total)
    assert visited > len(boards) * 10


def test_a_full_board_is_all_stable_and_an_open_one_only_at_its_anchored_corner():
    full = Board("XO" * 32 + " X")
    assert stable_squares(full, 0) == full.black
    assert stable_squares(full, 1) == full.white
    # One black corner on an otherwise empty board but for the centre: only it is safe.
    board = Board("X" + "-" * 26 + "OX" + "-" * 6 + "XO" + "-" * 27 + " X")
    assert stable_squares(board, 0) == 1
    assert stable_squares(board, 1) == 0
