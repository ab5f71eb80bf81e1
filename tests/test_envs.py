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
    assert len({one.board(i).board_string() for i in range(16)}) > 1
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
    (["x"] * 4, TypeError), (None, TypeError), (np.full(4, 19.5), TypeError),
    (np.ones(4, dtype=bool), TypeError), ([2**70] * 4, TypeError),
])
def test_bad_actions_give_clear_errors(bad, error):
    with pytest.raises(error):
        VectorOthello(4).step(bad)


@pytest.mark.parametrize("kwargs", [{"n": 0}, {"n": True}, {"n": 1.5}, {"n": 2, "seed": "x"},
                                    {"n": 2, "random_plies": 61}, {"n": 2, "random_plies": -1}])
def test_bad_settings_give_clear_errors(kwargs):
    with pytest.raises(cy.SettingsError):
        VectorOthello(**kwargs)


# -- Gymnasium and PettingZoo (optional extras) ----------------------------------------------

def test_gymnasium_env_passes_its_checker_and_plays_board_games():
    gym = pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env

    from cythello.envs.gym import ENV_ID, OthelloEnv
    check_env(gym.make(ENV_ID).unwrapped)
    for color in ("black", "white"):
        env = OthelloEnv(color=color)
        obs, info = env.reset(seed=4)
        assert obs.shape == (2, 8, 8) and obs.dtype == np.int8
        rng = np.random.default_rng(4)
        replay = cy.Board()
        terminated = False
        while not terminated:
            assert (obs == env.board.planes(dtype=np.int8)).all()
            mask = info["action_mask"]
            assert (mask == _legal_of(env.board)).all()
            action = int(rng.choice(np.flatnonzero(mask)))
            obs, reward, terminated, truncated, info = env.step(action)
            assert not truncated and (terminated or reward == 0.0)
        for move in env.board.move_stack:          # the whole game was legal Othello
            replay.push(move)
        assert replay.is_game_over() and replay.board_string() == env.board.board_string()
        winner = env.board.outcome().winner
        assert reward == (0.0 if winner is None else 1.0 if winner == env.agent else -1.0)


def test_gymnasium_env_ends_the_game_on_an_illegal_action():
    pytest.importorskip("gymnasium")
    from cythello.envs.gym import OthelloEnv
    env = OthelloEnv(opponent=cy.MCTSPlayer(iterations=50, seed=1))
    env.reset(seed=1)
    _, reward, terminated, _, info = env.step(0)                 # a1 at the start
    assert (reward, terminated, info["illegal"]) == (-1.0, True, True)
    with pytest.raises(cy.SettingsError):
        OthelloEnv(color="green")


# The observation is PettingZoo's action-mask dict (as its chess and Connect Four have),
# which api_test warns about whatever the environment: expected, not a failure.
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably")
def test_pettingzoo_env_passes_its_api_test_and_plays_board_games():
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from cythello.envs.pettingzoo import env, raw_env
    api_test(env(), num_cycles=1000, verbose_progress=False)
    game = raw_env()
    game.reset(seed=2)
    rng = np.random.default_rng(2)
    replay = cy.Board()
    final = {}
    for agent in game.agent_iter():
        obs, reward, termination, truncation, info = game.last()
        if termination or truncation:
            final[agent] = reward
            game.step(None)
            continue
        colour = game.possible_agents.index(agent)
        assert colour == replay.turn
        assert (obs["observation"].transpose(2, 0, 1) == replay.planes(dtype=np.int8)).all()
        assert (obs["action_mask"] == _legal_of(replay)).all()
        other = game.observe(game.possible_agents[1 - colour])
        assert not other["action_mask"].any()
        move = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        replay.push(move)
        game.step(move)
    assert replay.is_game_over()
    winner = replay.outcome().winner
    expected = {name: 0.0 if winner is None else 1.0 if colour == winner else -1.0
                for colour, name in enumerate(game.possible_agents)}
    assert final == expected
