"""The midgame search (PVS, iterative deepening, transposition table): the same score as a
plain fixed-depth alpha-beta at every depth, exact once the leaves are the game's end,
fewer nodes, and a time limit that keeps the deepest finished iteration."""
import pickle
import random

import pytest

import cythello as cy
from conftest import random_endgame
from cythello import Board
from cythello.eval.weights import default_weights
from cythello.search._endgame import Solver
from cythello.search._midgame import deepen, reference_search, search, search_many

WEIGHTS = default_weights()


def _positions(count, low, high, seed):
    """Positions of random games with ``low``-``high`` empties, the game not over."""
    rng = random.Random(seed)
    return [random_endgame(rng, rng.randint(low, high)) for _ in range(count)]


MIDGAME = _positions(24, 30, 44, seed=5)


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5])
def test_the_score_is_the_plain_alpha_betas(depth):
    ours = theirs = 0
    for board in MIDGAME:
        score, move, nodes = search(board, depth, WEIGHTS)
        plain, _, plain_nodes = reference_search(board, depth, WEIGHTS)
        assert score == plain
        assert move in board.legal_moves
        ours, theirs = ours + nodes, theirs + plain_nodes
    if depth >= 5:
        assert ours < theirs              # the table and the ordering pay for themselves


def test_labels_of_many_positions_are_the_plain_scores():
    own = [b.position()[0] for b in MIDGAME[:8]]
    opp = [b.position()[1] for b in MIDGAME[:8]]
    values = search_many(own, opp, 4, WEIGHTS)
    assert list(values) == [reference_search(b, 4, WEIGHTS)[0] for b in MIDGAME[:8]]


def test_exact_when_the_leaves_are_the_end_of_the_game():
    solver = Solver()
    for board in _positions(12, 6, 9, seed=8):
        score, move, _ = search(board, board.empties() + 2, WEIGHTS)
        exact, _, aborted = solver.solve(board)
        assert not aborted and score == exact
        if move != cy.PASS:
            child = board.copy()
            child.push(move)
            assert -solver.solve(child)[0] == exact      # the move keeps the score


def test_a_forced_pass_and_a_finished_game():
    must_pass = Board("-O" + "X" * 62 + " O")
    assert must_pass.must_pass()
    score, move, _ = search(must_pass, 3, WEIGHTS)
    assert move == cy.PASS
    finished = Board("X" * 64 + " O")
    assert search(finished, 4, WEIGHTS)[:2] == (-64.0, cy.PASS)


def test_deepening_by_time_keeps_the_deepest_finished_iteration():
    board = MIDGAME[0]
    found = deepen(board, WEIGHTS, max_depth=6)
    assert found["depth"] == 6 and found["score"] == search(board, 6, WEIGHTS)[0]
    pv = found["pv"]
    assert pv and pv[0] == found["move"] and len(pv) <= 7
    replay = board.copy()
    for move in pv:
        replay.push(move)                                # a line of legal moves
    quick = deepen(board, WEIGHTS, seconds=1e-6)         # depth 1 always finishes
    assert quick["depth"] >= 1 and quick["move"] in board.legal_moves
    timed = deepen(board, WEIGHTS, max_depth=60, seconds=0.2)
    assert 1 <= timed["depth"] < 60 and timed["move"] in board.legal_moves
    assert timed["score"] == search(board, timed["depth"], WEIGHTS)[0]
    for bad in (0, -1, float("nan")):
        with pytest.raises(ValueError):
            deepen(board, WEIGHTS, seconds=bad)
    with pytest.raises(TypeError):
        deepen(board, WEIGHTS, seconds="1")
    with pytest.raises(ValueError):
        search(board, 61, WEIGHTS)


def test_the_alphabeta_player_by_depth_or_by_time():
    board = MIDGAME[1]
    by_depth = cy.AlphaBetaPlayer(depth=3, endgame_empties=0)
    assert by_depth.choose_move(board) == search(board, 3, WEIGHTS)[1]
    by_time = cy.make_player("alphabeta:time=0.05,endgame_empties=0")
    assert by_time.time_limit == 0.05 and by_time.depth == 60
    assert by_time.choose_move(board) in board.legal_moves
    capped = cy.AlphaBetaPlayer(depth=2, time_limit=30, endgame_empties=0)
    assert capped.choose_move(board) == search(board, 2, WEIGHTS)[1]    # its depth first
    again = pickle.loads(pickle.dumps(by_time))
    assert (again.depth, again.time_limit) == (60, 0.05)
    assert "time_limit=0.05" in repr(again)
    for bad in ("alphabeta:time=-1", "alphabeta:time=abc", "alphabeta:depth=61"):
        with pytest.raises(cy.SettingsError):
            cy.make_player(bad)
