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
from ..search._puct import PuctForest
from ..search.puct import (
    Evaluate,
    PUCTSettings,
    best_root_move,
    draw_move,
    evaluate_batch,
    root_noise,
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
    return PUCTSettings(**{"simulations": DEFAULT_SIMULATIONS, **settings.player})


def play_games(evaluator: Evaluate, games: Iterable[int], seed: int, settings: GameSettings,
               batch_games: int, on_game: Callable[[int, Dict[str, np.ndarray]], None],
               on_call: Optional[Callable[[int], None]] = None) -> int:
    """Play the ``games`` (their numbers in a run seeded ``seed``) with ``evaluator``,
    ``batch_games`` at a time; ``on_game(game, columns)`` gets each as it ends.  Returns
    the evaluator calls made (``on_call(leaves)`` hears of each)."""
    puct = puct_settings(settings)
    budget = puct.simulations or DEFAULT_SIMULATIONS
    waiting = list(games)[::-1]
    forest = puct.forest(max(1, min(batch_games, len(waiting))))
    slots: List[Optional[_Game]] = [None] * forest.n
    calls = 0

    def start(slot: int) -> None:
        while waiting:
            g = waiting.pop()
            s = game_seed(seed, g)
            rng = random.Random(s)
            game = _Game(g, start_board(g, settings, rng), rng, np.random.default_rng(s))
            slots[slot] = game
            forest.set_root(slot, *game.board.position())
            if _forced_moves(forest, slot, game, puct):
                return
            on_game(g, game_columns(g, game.rows, game.board))
        slots[slot] = None

    for slot in range(forest.n):
        start(slot)
    while any(slots):
        want = np.zeros(forest.n, dtype=np.uint32)
        for slot, game in enumerate(slots):
            if game is not None:
                want[slot] = min(puct.batch_size, budget - forest.simulations(slot))
        leaves, _ = forest.gather(want)
        if leaves:
            calls += 1
            evaluate_batch(forest, evaluator, leaves, calls)
            if on_call is not None:
                on_call(leaves)
        for slot, game in enumerate(slots):
            if game is None:
                continue
            if not game.noised and forest.root_expanded(slot):
                root_noise(forest, slot, puct, game.noise)
                game.noised = True
            if forest.simulations(slot) >= budget or forest.is_full(slot):
                _play_searched(forest, slot, game, settings, puct)
                if not _forced_moves(forest, slot, game, puct):
                    on_game(game.index, game_columns(game.index, game.rows, game.board))
                    start(slot)
    return calls


def _play_searched(forest: PuctForest, slot: int, game: _Game, settings: GameSettings,
                   puct: PUCTSettings) -> None:
    """Record the searched position and play its move."""
    moves, visits, values, _ = forest.root_children(slot)
    board = game.board
    row_visits = np.zeros(65, dtype=np.uint32)
    row_visits[moves] = visits
    total = int(visits.sum())
    mean = float((visits * values).sum() / total) if total else 0.0
    if len(game.rows) < settings.temperature_moves and total:
        move = draw_move(moves, visits, settings.temperature, game.noise)
    elif settings.epsilon and game.rng.random() < settings.epsilon:
        move = game.rng.choice(list(board.legal_moves))
    else:
        move = best_root_move(moves, visits, values)
    game.rows.append((board.black, board.white, board.turn, move, row_visits,
                      (mean + 1) / 2, board.ply))
    _push(forest, slot, game, move, puct)


def _push(forest: PuctForest, slot: int, game: _Game, move: int, puct: PUCTSettings) -> None:
    game.board.push(move)
    if game.board.is_game_over():
        return
    if puct.reuse_tree:
        forest.advance(slot, move)
    else:
        forest.set_root(slot, *game.board.position())
    game.noised = False


def _forced_moves(forest: PuctForest, slot: int, game: _Game, puct: PUCTSettings) -> bool:
    """Play (and record, unsearched) the moves that are the only legal one; False when the
    game is over."""
    board = game.board
    while not board.is_game_over():
        legal = list(board.legal_moves)
        if len(legal) > 1:
            return True
        visits = np.zeros(65, dtype=np.uint32)
        visits[legal[0]] = 1
        game.rows.append((board.black, board.white, board.turn, legal[0], visits,
                          float("nan"), board.ply))
        _push(forest, slot, game, legal[0], puct)
    return False
