"""Self-play guided by an evaluator: many games at once, one evaluator call per step.

Up to ``batch_games`` games are in play together, one PUCT tree each in one C forest.
Every step each tree descends to ``batch_size`` new leaves (one by default), all the
leaves go to the evaluator in one batch, and the answers are backed up; a tree that has
its simulations plays its move (drawn by visits early in the game, as
:class:`~cythello.selfplay.GameSettings` says) and searches on from the subtree kept.
A finished game is handed over and the next game takes its place, so a GPU network sees
full batches until the last games.

Everything random in a game comes from its own seed, and each tree's search depends only
on its own leaves, so a game's record is the same whatever ``batch_games`` is.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional

import numpy as np

from ..core._board import Board
from ..search.puct import PUCTSettings
from ..search.puct.search import (
    Evaluate,
    best_root_move,
    draw_move,
    root_mean,
    root_noise,
    search_step,
)
from .games import GameSettings, Row, game_columns, game_seed, start_board

DEFAULT_SIMULATIONS = 200


@dataclass
class _Game:
    """One game in play in a slot of the forest."""

    index: int
    board: Board
    rng: random.Random                  # openings, epsilon moves (as play_game's)
    noise: np.random.Generator          # root noise and temperature draws
    rows: List[Row] = field(default_factory=list)
    noised: bool = False


def puct_settings(settings: GameSettings) -> PUCTSettings:
    """The PUCT settings of a self-play run (``settings.player``; 200 simulations unless
    it says otherwise)."""
    player = dict(settings.player)
    if "iterations" not in player and "simulations" not in player:     # the old name too
        player["iterations"] = DEFAULT_SIMULATIONS
    return PUCTSettings(**player)


def play_games(evaluator: Evaluate, games: Iterable[int], seed: int, settings: GameSettings,
               batch_games: int, on_game: Callable[[int, Dict[str, np.ndarray]], None],
               on_call: Optional[Callable[[int], None]] = None) -> int:
    """Play the ``games`` (their numbers in a run seeded ``seed``) with ``evaluator``,
    ``batch_games`` at a time; ``on_game(game, columns)`` gets each as it ends.  Returns
    the evaluator calls made (``on_call(leaves)`` hears of each)."""
    return _SelfPlay(evaluator, list(games), seed, settings, batch_games, on_game,
                     on_call).run()


class _SelfPlay:
    """The games in play, one per slot of the forest, and the games waiting."""

    def __init__(self, evaluator: Evaluate, games: List[int], seed: int,
                 settings: GameSettings, batch_games: int,
                 on_game: Callable[[int, Dict[str, np.ndarray]], None],
                 on_call: Optional[Callable[[int], None]]) -> None:
        self.evaluator, self.seed, self.settings = evaluator, seed, settings
        self.on_game, self.on_call = on_game, on_call
        self.puct = puct_settings(settings)
        self.budget = self.puct.iterations or DEFAULT_SIMULATIONS
        self.waiting = games[::-1]
        self.forest = self.puct.forest(max(1, min(batch_games, len(games))))
        self.slots: List[Optional[_Game]] = [None] * self.forest.n

    def run(self) -> int:
        for slot in range(self.forest.n):
            self._start(slot)
        calls = 0
        try:
            while any(self.slots):
                calls += self._step(calls + 1)
        finally:
            if self.forest.pending:       # interrupted between gathering and evaluating
                self.forest.cancel()
        return calls

    def _step(self, call: int) -> int:
        """One evaluator call for the leaves of every game in play, then the moves of the
        searches that are done; returns the calls made (0 or 1)."""
        forest = self.forest
        want = np.zeros(forest.n, dtype=np.uint32)
        for slot, game in enumerate(self.slots):
            if game is not None:
                want[slot] = min(self.puct.batch_size, self.budget - forest.simulations(slot))
        leaves = search_step(forest, self.evaluator, want, call)
        if leaves and self.on_call is not None:
            self.on_call(leaves)
        for slot, game in enumerate(self.slots):
            if game is None:
                continue
            if not game.noised and forest.root_expanded(slot):
                root_noise(forest, slot, self.puct, game.noise)
                game.noised = True
            if forest.simulations(slot) >= self.budget:
                self._play_searched(slot, game)
                if not self._forced_moves(slot, game):
                    self.on_game(game.index, game_columns(game.index, game.rows, game.board))
                    self._start(slot)
        return 1 if leaves else 0

    def _start(self, slot: int) -> None:
        """The next waiting game that needs a search takes ``slot`` (games over before
        their first choice are handed over at once); else the slot stays empty."""
        while self.waiting:
            g = self.waiting.pop()
            s = game_seed(self.seed, g)
            rng = random.Random(s)
            game = _Game(g, start_board(g, self.settings, rng), rng, np.random.default_rng(s))
            self.slots[slot] = game
            self.forest.set_root(slot, *game.board.position())
            if self._forced_moves(slot, game):
                return
            self.on_game(g, game_columns(g, game.rows, game.board))
        self.slots[slot] = None

    def _play_searched(self, slot: int, game: _Game) -> None:
        """Record the searched position and play its move."""
        moves, visits, values, _ = self.forest.root_children(slot)
        board, settings = game.board, self.settings
        row_visits = np.zeros(65, dtype=np.uint32)
        row_visits[moves] = visits
        if len(game.rows) < settings.temperature_moves and visits.sum():
            move = draw_move(moves, visits, settings.temperature, game.noise)
        elif settings.epsilon and game.rng.random() < settings.epsilon:
            move = game.rng.choice(list(board.legal_moves))
        else:
            move = best_root_move(moves, visits, values)
        game.rows.append((board.black, board.white, board.turn, move, row_visits,
                          (root_mean(visits, values) + 1) / 2, board.ply))
        self._push(slot, game, move)

    def _push(self, slot: int, game: _Game, move: int) -> None:
        game.board.push(move)
        if game.board.is_game_over():
            return
        if self.puct.reuse_tree:
            self.forest.advance(slot, move)
        else:
            self.forest.set_root(slot, *game.board.position())
        game.noised = False

    def _forced_moves(self, slot: int, game: _Game) -> bool:
        """Play (and record, unsearched) the moves that are the only legal one; False when
        the game is over."""
        board = game.board
        while not board.is_game_over():
            legal = list(board.legal_moves)
            if len(legal) > 1:
                return True
            visits = np.zeros(65, dtype=np.uint32)
            visits[legal[0]] = 1
            game.rows.append((board.black, board.white, board.turn, legal[0], visits,
                              float("nan"), board.ply))
            self._push(slot, game, legal[0])
        return False
