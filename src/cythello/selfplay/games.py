"""One self-play game, recorded position by position.

Everything random in a game comes from its own seed, derived from the run's seed and the
game's index, so a game is the same whichever worker plays it and in whatever order.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Dict, List, Tuple

import numpy as np

from ..core._board import Board
from ..errors import SettingsError
from ..records.position import board_from_text
from ..search.puct import PUCTSettings, visit_weights
from ..search.uct import MCTSPlayer


@dataclass(frozen=True)
class GameSettings:
    """How the games of a run are played.

    ``player`` holds :class:`~cythello.MCTSPlayer` settings (an iteration limit, not a time
    limit, so that games are reproducible).  Each game starts from ``openings[game %
    len(openings)]`` (transcripts or board strings; none: the start position), then plays
    ``random_plies`` uniformly random moves (not recorded).  For the first
    ``temperature_moves`` recorded moves the move is drawn in proportion to
    visits ** (1 / temperature) (AlphaZero's exploration; ``inf``: any searched move
    alike); afterwards, with probability
    ``epsilon``, a uniformly random legal move is played instead of the search's.
    """

    player: Dict[str, Any] = field(default_factory=lambda: {"iterations": 400})
    openings: Tuple[str, ...] = ()
    random_plies: int = 0
    temperature: float = 1.0
    temperature_moves: int = 0
    epsilon: float = 0.0

    def check(self, puct: bool = False) -> "GameSettings":
        """Validate the settings (``puct``: ``player`` holds PUCT settings)."""
        if "time_limit" in self.player:
            raise SettingsError("self-play needs an iteration limit, not a time limit, "
                                "to be reproducible")
        if self.player.get("threads", 1) != 1:
            raise SettingsError("self-play searches use one thread each (workers run "
                                "games in parallel)")
        if puct:
            PUCTSettings(**self.player)
        else:
            MCTSPlayer.preset("classic", **self.player)    # validates the settings
        if not 0 <= self.random_plies <= 60:
            raise SettingsError(f"random_plies must be 0-60, not {self.random_plies}")
        if not self.temperature > 0:
            raise SettingsError(f"temperature must be positive, not {self.temperature}")
        if not 0 <= self.temperature_moves <= 60:
            raise SettingsError(f"temperature_moves must be 0-60, not {self.temperature_moves}")
        if not 0 <= self.epsilon <= 1:
            raise SettingsError(f"epsilon must be between 0 and 1, not {self.epsilon}")
        for text in self.openings:
            board_from_text(text)
        return self


def game_seed(seed: int, game: int) -> int:
    """The seed of one game of a run."""
    return int(np.random.SeedSequence([seed & 0xFFFFFFFFFFFFFFFF, game]).generate_state(2,
               dtype=np.uint64)[0])


def play_game(game: int, seed: int, settings: GameSettings) -> Dict[str, np.ndarray]:
    """Play game number ``game`` of a run seeded ``seed`` and return its positions."""
    s = game_seed(seed, game)
    rng = random.Random(s)
    board = start_board(game, settings, rng)
    # On top of plain UCT (the settings self-play always had as defaults): the data, and
    # the training pipeline that makes them, stay as they were.
    player = MCTSPlayer.preset("classic", **{**settings.player, "seed": s})
    rows: List[Row] = []
    recorded = 0
    while not board.is_game_over():
        legal = list(board.legal_moves)
        visits = np.zeros(65, dtype=np.uint32)
        if len(legal) == 1:
            move, value = legal[0], float("nan")
            visits[move] = 1
        else:
            result = player.search(board)
            for stats in result.moves:
                visits[stats.move] = stats.visits if stats.visits else 1
            value = result.win_rate
            move = result.best_move
            if recorded < settings.temperature_moves and visits.sum() > 0:
                move = _draw(rng, visit_weights(visits, settings.temperature))
            elif settings.epsilon and rng.random() < settings.epsilon:
                move = rng.choice(legal)
        rows.append((board.black, board.white, board.turn, move, visits, value, board.ply))
        board.push(move)
        recorded += 1
    return game_columns(game, rows, board)


Row = Tuple[int, int, int, int, np.ndarray, float, int]


def game_columns(game: int, rows: List[Row], board: Board) -> Dict[str, np.ndarray]:
    """The shard columns of a finished game: its ``rows`` (black, white, turn, move,
    visits, value, ply) and the final ``board`` for the results."""
    outcome = board.outcome()
    assert outcome is not None
    n = len(rows)
    turn = np.array([r[2] for r in rows], dtype=np.uint8)
    black_score = outcome.score                         # empties to the winner
    disc = np.where(turn == 0, black_score, -black_score).astype(np.int8)
    return {
        "black": np.array([r[0] for r in rows], dtype=np.uint64),
        "white": np.array([r[1] for r in rows], dtype=np.uint64),
        "turn": turn,
        "move": np.array([r[3] for r in rows], dtype=np.uint8),
        "visits": np.stack([r[4] for r in rows]) if n else np.zeros((0, 65), np.uint32),
        "value": np.array([r[5] for r in rows], dtype=np.float32),
        "result": np.where(disc > 0, 1.0, np.where(disc < 0, 0.0, 0.5)).astype(np.float32),
        "disc_diff": disc,
        "game": np.full(n, game, dtype=np.int64),
        "ply": np.array([r[6] for r in rows], dtype=np.uint8),
    }


def start_board(game: int, settings: GameSettings, rng: random.Random) -> Board:
    """Game ``game``'s first recorded position: its opening, then its random plies."""
    board = board_from_text(settings.openings[game % len(settings.openings)]) \
        if settings.openings else Board()
    for _ in range(settings.random_plies):
        if board.is_game_over():
            break
        board.push(rng.choice(list(board.legal_moves)))
    if board.is_game_over():           # a random start that ended at once: start again
        board = Board()
    return board


def _draw(rng: random.Random, weights: np.ndarray) -> int:
    total = float(weights.sum())
    x = rng.random() * total
    acc = 0.0
    last = int(np.flatnonzero(weights)[-1])
    for move in np.flatnonzero(weights):
        acc += float(weights[move])
        if x < acc:
            return int(move)
    return last


def replay_check(columns: Dict[str, np.ndarray]) -> None:
    """Raise AssertionError unless every recorded move is legal in its recorded position
    and each next position follows from it (for tests and data audits)."""
    for i in range(len(columns["black"])):
        b = Board.from_bitboards(int(columns["black"][i]), int(columns["white"][i]),
                                 int(columns["turn"][i]))
        move = int(columns["move"][i])
        assert b.is_legal(move), f"row {i}: {move} illegal in {b.board_string()}"
        if i + 1 < len(columns["black"]) and columns["game"][i + 1] == columns["game"][i]:
            b.push(move)
            nxt = (int(columns["black"][i + 1]), int(columns["white"][i + 1]),
                   int(columns["turn"][i + 1]))
            assert (b.black, b.white, b.turn) == nxt, f"row {i + 1} does not follow row {i}"
