"""The C rules core against published perft counts, the FFO files and a slow reference."""
import random

import pytest

import cythello as cy
import reference_rules as ref
from conftest import DATA, read_perft_table
from cythello import Board, perft, read_obf

PERFT = read_perft_table()


@pytest.mark.parametrize("depth", range(1, 11))
def test_perft_matches_published_counts(depth):
    assert perft(Board(), depth) == PERFT[depth]


@pytest.mark.slow
@pytest.mark.parametrize("depth", [11, 12])
def test_perft_deep(depth):
    assert perft(Board(), depth) == PERFT[depth]


def test_perft_depth_zero_and_finished_game():
    assert perft(Board(), 0) == 1
    assert perft(Board.empty(), 3) == 0        # a finished game has no children


def test_perft_counts_a_pass_as_a_ply():
    # White has no move, black does: the only child is the pass.
    board = Board("-O" + "X" * 62 + " O")
    assert board.must_pass()
    assert [perft(board, d) for d in (1, 2, 3)] == [1, 1, 0]


def _random_positions(count, seed):
    """Positions from random games, passes and finished games included."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        board = Board()
        while True:
            out.append(board.copy())
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
    return out[:count]


def test_differential_against_slow_reference():
    checked_pass = checked_over = 0
    for board in _random_positions(4000, seed=7):
        cells, side = ref.from_board_string(board.board_string())
        expected = ref.legal_moves(cells, side)
        got = sorted(m for m in board.legal_moves if m != cy.PASS)
        assert got == expected, board.board_string()
        assert sum(1 << m for m in expected) == board.legal_moves_mask
        for m in expected:
            assert board.flips(m) == ref.flips(cells, side, m)
            after = board.copy()
            after.push(m)
            exp_cells = ref.play(cells, side, m)
            assert after.board_string() == "".join(c if c != " " else "-" for c in exp_cells) + " " + ref.other(side)
        assert board.is_game_over() == ref.game_over(cells)
        if board.must_pass():
            checked_pass += 1
            assert list(board.legal_moves) == [cy.PASS]
            assert not expected and ref.legal_moves(cells, ref.other(side))
        if board.is_game_over():
            checked_over += 1
            assert list(board.legal_moves) == []
    assert checked_pass > 0 and checked_over > 0


@pytest.mark.parametrize("path", sorted(DATA.glob("*.obf")), ids=lambda p: p.name)
def test_ffo_positions_list_exactly_the_legal_moves(path):
    positions = list(read_obf(path))
    assert len(positions) >= 19
    for pos in positions:
        assert set(pos.board.legal_moves) == set(pos.scores), pos.board.board_string()


def test_random_playouts_count_every_game_and_are_reproducible():
    board = Board()
    a = cy.random_playouts(board, 2000, seed=42)
    b = cy.random_playouts(board, 2000, seed=42)
    assert a == b
    assert a.wins + a.draws + a.losses == 2000
    assert -64 <= a.mean_disc_difference <= 64
    assert cy.random_playouts(board, 0).wins == 0


def test_playout_of_finished_game_is_its_result():
    board = Board("XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXOO O")
    stats = cy.random_playouts(board, 10, seed=1)
    assert (stats.wins, stats.draws, stats.losses) == (0, 0, 10)
    assert stats.mean_disc_difference == -60


def test_heuristic_playouts_finish_games():
    stats = cy.random_playouts(Board(), 500, seed=3, policy="heuristic")
    assert stats.wins + stats.draws + stats.losses == 500
    with pytest.raises(ValueError, match="policy"):
        cy.random_playouts(Board(), 1, policy="greedy")
