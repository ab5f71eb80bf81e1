"""A Gymnasium environment for Othello: the agent plays one colour against an opponent
(random play by default, or any cythello player).  Needs ``pip install 'cythello[gym]'``.

    >>> import gymnasium as gym
    >>> import cythello.envs.gym                    # registers "cythello/Othello-v0"
    >>> env = gym.make("cythello/Othello-v0", opponent=cy.MCTSPlayer.preset("easy"))
    >>> obs, info = env.reset(seed=1)               # obs (2, 8, 8) int8, side to move first
    >>> obs, reward, terminated, truncated, info = env.step(action)   # info["action_mask"]

Actions are squares 0-63 and 64, the pass (legal only when the agent has no placement).
An illegal action ends the game as a loss (``info["illegal"]``), as in PettingZoo's and
EnvPool's board games: Gymnasium's own checker steps with unmasked random actions.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple, Union

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError:                                    # an optional extra
    raise ImportError("cythello.envs.gym needs Gymnasium: pip install 'cythello[gym]'") from None

from ..core._board import Board
from ..errors import SettingsError
from ..squares import BLACK, PASS, WHITE

__all__ = ["OthelloEnv", "ENV_ID"]

ENV_ID = "cythello/Othello-v0"
Opponent = Union[str, Callable[[Board], int], Any]


def action_mask(board: Board) -> np.ndarray:
    """The legal actions of the side to move, as int8 (65,): 1 legal, 0 not."""
    mask = np.zeros(65, dtype=np.int8)
    if not board.is_game_over():
        for move in board.legal_moves:
            mask[move] = 1
    return mask


class OthelloEnv(gymnasium.Env):  # type: ignore[misc,unused-ignore]
    """Othello against ``opponent`` ("random", a player with ``choose_move(board)``, or a
    function of the board giving a move), the agent playing ``color`` ("black", "white"
    or "random": drawn at each reset).  ``reward="win"``: +1, -1 or 0 at the end;
    ``"discs"``: the final disc difference / 64."""

    # ansi renders text on request; render_fps says so to Gymnasium's checker (frames are not
    # timed, but the checker wants a rate declared).
    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, opponent: Opponent = "random", color: str = "black",
                 reward: str = "win", render_mode: Optional[str] = None) -> None:
        if color not in ("black", "white", "random"):
            raise SettingsError(f"color must be 'black', 'white' or 'random', not {color!r}")
        if reward not in ("win", "discs"):
            raise SettingsError(f"reward must be 'win' or 'discs', not {reward!r}")
        if render_mode not in (None, "ansi"):
            raise SettingsError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        choose = getattr(opponent, "choose_move", None)
        self._choose: Optional[Callable[[Board], int]] = (
            None if isinstance(opponent, str) and opponent == "random"
            else choose if callable(choose) else opponent if callable(opponent) else None)
        if self._choose is None and not (isinstance(opponent, str) and opponent == "random"):
            raise SettingsError("opponent must be 'random', a player with choose_move(board) "
                                "or a function of the board")
        self.opponent, self.color, self.reward_kind = opponent, color, reward
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0, 1, (2, 8, 8), np.int8)
        self.action_space = spaces.Discrete(65)
        self.board = Board()
        self.agent = BLACK

    def reset(self, *, seed: Optional[int] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[np.ndarray, Dict[str, Any]]:
        super().reset(seed=seed)
        reset = getattr(self.opponent, "reset", None)
        if callable(reset):
            reset()
        self.board = Board()
        self.agent = {"black": BLACK, "white": WHITE}.get(self.color)  # type: ignore[assignment]
        if self.color == "random":
            self.agent = int(self.np_random.integers(2))
        self._opponent_plays()
        return self._observation(), self._info()

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        move = int(action)
        if not (0 <= move <= PASS and self.board.is_legal(move)) or self.board.is_game_over():
            info = self._info()
            info["illegal"] = True
            return self._observation(), -1.0, True, False, info
        self.board.push(move)
        self._opponent_plays()
        over = self.board.is_game_over()
        return self._observation(), self._reward() if over else 0.0, over, False, self._info()

    def render(self) -> Optional[str]:
        return self.board.render() if self.render_mode == "ansi" else None

    def _opponent_plays(self) -> None:
        while not self.board.is_game_over() and self.board.turn != self.agent:
            legal = list(self.board.legal_moves)
            if legal == [PASS]:
                move = PASS
            elif self._choose is None:                      # random play, seeded by reset
                move = legal[int(self.np_random.integers(len(legal)))]
            else:
                move = self._choose(self.board.copy())
            self.board.push(move)

    def _observation(self) -> np.ndarray:
        return self.board.planes(dtype=np.int8)

    def _info(self) -> Dict[str, Any]:
        return {"action_mask": action_mask(self.board), "turn": self.board.turn}

    def _reward(self) -> float:
        outcome = self.board.outcome()
        assert outcome is not None
        diff = outcome.score_for(self.agent)
        if self.reward_kind == "discs":
            return diff / 64.0
        return 1.0 if diff > 0 else -1.0 if diff < 0 else 0.0


if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point="cythello.envs.gym:OthelloEnv")
