"""A PettingZoo AEC environment for Othello, in the layout of PettingZoo's classic board
games.  Needs ``pip install 'cythello[pettingzoo]'``.

    >>> from cythello.envs.pettingzoo import env
    >>> game = env()
    >>> game.reset(seed=1)
    >>> for agent in game.agent_iter():
    ...     obs, reward, termination, truncation, info = game.last()
    ...     mask = obs["action_mask"]
    ...     game.step(None if termination or truncation else pick(obs["observation"], mask))

Agents ``player_0`` (black, moves first) and ``player_1``.  An observation is a dict:
``observation`` (8, 8, 2) int8, the observing agent's discs then the opponent's
(channels-last, as PettingZoo's classic games), and ``action_mask`` (65,) int8, all zeros
for the agent not to move.  Actions 0-63 are squares, 64 the pass (the only legal action
when the agent to move has no placement).  Rewards +1/-1/0 at the end.  ``env()`` wraps
``raw_env()`` in PettingZoo's standard wrappers (an illegal move loses the game).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError:                                    # an optional extra
    raise ImportError("cythello.envs.pettingzoo needs PettingZoo: "
                      "pip install 'cythello[pettingzoo]'") from None

from ..core._board import Board
from ..errors import IllegalMoveError, SettingsError
from ..squares import PASS, square_name

__all__ = ["env", "raw_env"]


def env(render_mode: Optional[str] = None) -> Any:
    """:func:`raw_env` in PettingZoo's standard wrappers: an illegal move ends the game
    with -1 for its player, actions are checked in range, and the API order is enforced."""
    game: Any = raw_env(render_mode=render_mode)
    game = wrappers.TerminateIllegalWrapper(game, illegal_reward=-1)
    game = wrappers.AssertOutOfBoundsWrapper(game)
    return wrappers.OrderEnforcingWrapper(game)


class raw_env(AECEnv):  # type: ignore[misc,unused-ignore]  # noqa: N801 (PettingZoo's name)
    """Othello for two agents, without wrappers (an illegal move raises
    :class:`~cythello.IllegalMoveError`)."""

    metadata = {"render_modes": ["ansi"], "name": "cythello_othello_v0",
                "is_parallelizable": False}

    def __init__(self, render_mode: Optional[str] = None) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise SettingsError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]          # black, white
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(0, 1, (8, 8, 2), np.int8),
            "action_mask": spaces.Box(0, 1, (65,), np.int8),
        })
        self._action_space = spaces.Discrete(65)
        self.board = Board()

    def observation_space(self, agent: str) -> Any:
        return self._observation_space

    def action_space(self, agent: str) -> Any:
        return self._action_space

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        self.board = Board()
        self.agents: List[str] = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: Dict[str, Dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.board.turn]

    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        colour = self.possible_agents.index(agent)
        planes = self.board.planes(dtype=np.int8)               # side to move first
        if colour != self.board.turn:
            planes = planes[::-1]
        mask = np.zeros(65, dtype=np.int8)
        if colour == self.board.turn and not self.board.is_game_over():
            for move in self.board.legal_moves:
                mask[move] = 1
        return {"observation": np.ascontiguousarray(planes.transpose(1, 2, 0)),
                "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        move = int(action)
        if not (0 <= move <= PASS and self.board.is_legal(move)):
            raise IllegalMoveError(f"{square_name(move) if 0 <= move <= PASS else move} is "
                                   f"not legal for {agent}")
        self._cumulative_rewards[agent] = 0.0
        self.board.push(move)
        if self.board.is_game_over():
            outcome = self.board.outcome()
            assert outcome is not None
            for colour, name in enumerate(self.possible_agents):
                diff = outcome.score_for(colour)
                self.rewards[name] = 1.0 if diff > 0 else -1.0 if diff < 0 else 0.0
                self.terminations[name] = True
        else:
            self.rewards = {a: 0.0 for a in self.agents}
            self.agent_selection = self.possible_agents[self.board.turn]
        self._accumulate_rewards()

    def render(self) -> Optional[str]:
        return self.board.render() if self.render_mode == "ansi" else None

    def close(self) -> None:
        pass
