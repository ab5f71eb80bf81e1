"""Environments for reinforcement learning.

    >>> from cythello.envs import VectorOthello
    >>> env = VectorOthello(256, seed=1)
    >>> obs, legal = env.reset()                 # (256, 2, 8, 8) float32, (256, 65) bool
    >>> obs, legal, rewards, dones = env.step(actions)   # actions: 256 ints 0-64

:class:`VectorOthello` steps many boards at once in C (no Python per board), NumPy in and
out: observations are the side to move's discs then the opponent's (as
``Board.planes``), action 64 is the pass.  With the optional extras:
:mod:`cythello.envs.gym` (a Gymnasium environment against an opponent) and
:mod:`cythello.envs.pettingzoo` (a PettingZoo AEC environment for two agents).
"""
from ._vector import VectorOthello

__all__ = ["VectorOthello"]
