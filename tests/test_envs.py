"""The vector environment agrees move for move with Board, and refuses bad input."""
import numpy as np
import pytest

import cythello as cy
from cythello.envs import VectorOthello


def _legal_of(board):
    mask = np.zeros(65, dtype=bool)
    for move in board.legal_moves:
        mask[move] = True
    return mask


def test_vector_boards_agree_with_board_move_for_move():
    n = 32
    env = VectorOthello(n, seed=3, random_plies=2)
    obs, legal = env.reset()
    assert obs.shape == (n, 2, 8, 8) and obs.dtype == np.float32
    assert legal.shape == (n, 65) and legal.dtype == np.bool_
    boards = [env.board(i) for i in range(n)]
    rng = np.random.default_rng(0)
    games = passes = 0
    for _ in range(300):
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in legal])
        results = {}
        for i, board in enumerate(boards):
            assert (obs[i] == board.planes()).all()
            assert (legal[i] == _legal_of(board)).all()
            assert env.turn[i] == board.turn
            mover = board.turn
            passes += actions[i] == cy.PASS
            board.push(int(actions[i]))
            if board.is_game_over():
                winner = board.outcome().winner
                results[i] = 0.0 if winner is None else 1.0 if winner == mover else -1.0
        obs, legal, rewards, dones = env.step(actions)
        for i in range(n):
            assert dones[i] == (i in results)
            assert rewards[i] == results.get(i, 0.0)
            if dones[i]:                     # a new game, from its random opening
                games += 1
                boards[i] = env.board(i)
                assert 60 - boards[i].empties() <= 2
            else:
                assert env.board(i) == boards[i].copy(stack=False)
    assert games > 50 and passes > 0         # game ends and passes were both checked


def test_a_seed_gives_the_same_openings():
    one, two = VectorOthello(16, seed=5, random_plies=6), VectorOthello(16, seed=5, random_plies=6)
    assert [one.board(i) for i in range(16)] == [two.board(i) for i in range(16)]
    assert len({one.board(i) for i in range(16)}) > 1
    one.reset(seed=9)
    two.reset(seed=9)
    assert (one.reset(seed=9)[0] == two.reset(seed=9)[0]).all()


def test_an_illegal_action_names_its_board_and_moves_none():
    env = VectorOthello(4, seed=1)
    before = [env.board(i) for i in range(4)]
    actions = np.array([19, 26, 37, 0])          # d3, c4, f5 are legal; a1 is not
    with pytest.raises(cy.IllegalMoveError, match="board 3: a1 is not legal for black"):
        env.step(actions)
    assert [env.board(i) for i in range(4)] == before
    with pytest.raises(cy.IllegalMoveError, match="board 0: pass"):
        env.step([64, 19, 19, 19])
    with pytest.raises(cy.IllegalMoveError, match="board 1"):
        env.step([19, 99, 19, 19])
    env.step([19, 26, 37, 44])                   # d3 c4 f5 e6: all legal


@pytest.mark.parametrize("bad, error", [
    (np.zeros(3, dtype=int), ValueError), (np.zeros((4, 1), dtype=int), ValueError),
    (["x"] * 4, TypeError), (None, TypeError),
])
def test_bad_actions_give_clear_errors(bad, error):
    with pytest.raises(error):
        VectorOthello(4).step(bad)


@pytest.mark.parametrize("kwargs", [{"n": 0}, {"n": True}, {"n": 1.5}, {"n": 2, "seed": "x"},
                                    {"n": 2, "random_plies": 61}, {"n": 2, "random_plies": -1}])
def test_bad_settings_give_clear_errors(kwargs):
    with pytest.raises(cy.SettingsError):
        VectorOthello(**kwargs)
