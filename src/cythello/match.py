"""Games and matches between players, with the score as an Elo difference and error bar."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from ._workers import Workers, WorkersDied
from .core._board import Board
from .errors import IllegalMoveError, SettingsError
from .squares import BLACK, WHITE


def play_game(black: Any, white: Any, start: Optional[Board] = None,
              on_move: Optional[Callable[[Board, int], None]] = None,
              times: Optional[List[float]] = None) -> Board:
    """Play one game between two players (objects with ``choose_move``) and return the
    final board, its move stack holding the game.  ``times``, if given, receives each
    move's thinking time in seconds.  An illegal move from a player raises
    :class:`IllegalMoveError` naming the player."""
    board = Board() if start is None else start.copy()
    players = (black, white)
    while not board.is_game_over():
        player = players[board.turn]
        started = time.perf_counter()
        move = player.choose_move(board.copy())
        if times is not None:
            times.append(time.perf_counter() - started)
        if not board.is_legal(move):
            raise IllegalMoveError(f"{player!r} played the illegal move {move!r} in {board!r}")
        board.push(move)
        if on_move is not None:
            on_move(board, move)
    return board


@dataclass
class MatchResult:
    """Wins, draws and losses of the first player, with the games' final boards."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    games: List[Board] = field(default_factory=list)
    times: List[List[float]] = field(default_factory=list)   # seconds per move, per game

    @property
    def played(self) -> int:
        """Games finished."""
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Points of the first player per game (win 1, draw 0.5)."""
        return (self.wins + 0.5 * self.draws) / self.played if self.played else 0.5

    def elo(self) -> Tuple[float, float]:
        """Elo difference of the first player and its 95% error margin."""
        return elo_difference(self.wins, self.draws, self.losses)

    def summary(self) -> str:
        """``+W =D -L  score S  Elo E ± M`` on one line; a perfect score (all won or all
        lost) has no finite estimate, so its line gives the 95% bound instead."""
        head = f"+{self.wins} ={self.draws} -{self.losses}  score {self.score:.3f}"
        if self.played and self.wins in (0, self.played) and self.draws == 0:
            bound = elo_bound(self.wins, self.draws, self.losses)
            relation = ">" if self.wins else "<"
            return f"{head}  Elo {relation} {bound:+.0f} (95% bound)"
        diff, margin = self.elo()
        return f"{head}  Elo {diff:+.0f} ± {margin:.0f}"


def _elo(score: float) -> float:
    score = min(max(score, 1e-3), 1 - 1e-3)
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0   # + 0.0: no "-0" for an even score


def _wilson(wins: int, draws: int, losses: int) -> Tuple[float, float, float]:
    """The score of a match and the ends of its 95% Wilson interval."""
    n = wins + draws + losses
    score = (wins + 0.5 * draws) / n
    z = 1.96
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return score, centre - half, centre + half


def elo_difference(wins: int, draws: int, losses: int) -> Tuple[float, float]:
    """Elo difference from a match score and the half-width of its 95% interval.  The
    interval is Wilson's for the score, so it stays honest for 20-0 sweeps (where the point
    estimate is clipped at +1200)."""
    if wins + draws + losses == 0:
        return 0.0, float("inf")
    score, low, high = _wilson(wins, draws, losses)
    return _elo(score), (_elo(high) - _elo(low)) / 2


def elo_bound(wins: int, draws: int, losses: int) -> float:
    """The Elo bound a perfect score supports: the lower end of the 95% Wilson interval
    after all wins (the upper end after all losses)."""
    score, low, high = _wilson(wins, draws, losses)
    return _elo(low) if score >= 0.5 else _elo(high)


def _play_pairing(first: Any, second: Any, g: int,
                  opening: Optional[Board]) -> Tuple[Board, List[float]]:
    """Game ``g`` of a match: ``first`` is black in even-numbered games.  Players that can
    ``reset()`` start it afresh, so a game does not depend on the games before it (and a
    match gives the same games serially and in parallel)."""
    for player in (first, second):
        reset = getattr(player, "reset", None)
        if callable(reset):
            reset()
    black, white = (first, second) if g % 2 == 0 else (second, first)
    times: List[float] = []
    final = play_game(black, white, opening, times=times)
    return final, times


def _record(result: MatchResult, g: int, final: Board, times: List[float]) -> None:
    outcome = final.outcome()
    assert outcome is not None
    mine = BLACK if g % 2 == 0 else WHITE
    if outcome.winner is None:
        result.draws += 1
    elif outcome.winner == mine:
        result.wins += 1
    else:
        result.losses += 1
    result.games.append(final)
    result.times.append(times)


def run_match(first: Any, second: Any, games: int, openings: Optional[Sequence[Board]] = None,
              on_game: Optional[Callable[[int, Board, MatchResult], None]] = None,
              workers: int = 1, backend: str = "local",
              ray_address: Optional[str] = None) -> MatchResult:
    """``games`` games, colours alternating (``first`` is black in even-numbered games).
    Each pair of games starts from the same opening when ``openings`` are given.

    ``workers`` > 1 plays games in parallel processes (``backend="local"``) or as Ray
    tasks (``backend="ray"``, connecting to ``ray_address``); the players are then
    pickled into the workers (MCTS and random players are; engine clients are not).  The
    games and the result are the same as a serial run's, in game order, as long as the
    players' searches are reproducible (seeded, with iteration limits)."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise SettingsError(f"workers must be a positive int, not {workers!r}")
    if backend not in ("local", "ray"):
        raise SettingsError(f"backend must be 'local' or 'ray', not {backend!r}")

    def opening(g: int) -> Optional[Board]:
        return openings[(g // 2) % len(openings)] if openings else None

    result = MatchResult()
    finished: Dict[int, Tuple[Board, List[float]]] = {}
    next_game = 0

    def collect(g: int, outcome: Tuple[Board, List[float]]) -> None:
        nonlocal next_game
        finished[g] = outcome
        while next_game in finished:              # report in game order
            final, times = finished.pop(next_game)
            _record(result, next_game, final, times)
            if on_game is not None:
                on_game(next_game, final, result)
            next_game += 1

    try:
        with Workers(workers, backend, ray_address) as pool:
            for g, outcome in pool.run(_play_pairing, [(first, second, g, opening(g))
                                                       for g in range(games)]):
                collect(g, outcome)
    except WorkersDied as exc:
        raise RuntimeError(f"the match stopped after {result.played} games: {exc}") from None
    return result


def random_openings(count: int, plies: int, seed: int = 0) -> List[Board]:
    """Distinct positions after ``plies`` random moves from the start, for fairer matches."""
    import random
    rng = random.Random(seed)
    seen: Set[Board] = set()
    out: List[Board] = []
    attempts = 0
    while len(out) < count and attempts < count * 100:
        attempts += 1
        b = Board()
        for _ in range(plies):
            moves = list(b.legal_moves)
            if not moves:
                break
            b.push(rng.choice(moves))
        if not b.is_game_over() and b not in seen:
            seen.add(b)
            out.append(b)
    return out


# -- tournaments ---------------------------------------------------------------------------------

@dataclass
class Tournament:
    """A round robin: every pair's :class:`MatchResult` and Elo ratings for all."""

    names: List[str]
    results: Dict[Tuple[int, int], MatchResult]     # (i, j), i < j: from player i's side

    def points(self, i: int, j: int) -> float:
        """Player ``i``'s points against player ``j``."""
        if i < j:
            r = self.results[(i, j)]
            return r.wins + 0.5 * r.draws
        r = self.results[(j, i)]
        return r.losses + 0.5 * r.draws

    def ratings(self) -> List[float]:
        """Elo ratings from a Bradley-Terry fit (draws as half a win each way; the mean is
        0), by the minorisation-maximisation iteration.  A player who won or lost every
        game has no finite rating; a half point spread over its pairings keeps the fit
        finite (the order stays right, the gap is a lower bound)."""
        n = len(self.names)
        games = [[0.0] * n for _ in range(n)]
        wins = [0.0] * n
        for (i, j), r in self.results.items():
            games[i][j] = games[j][i] = float(r.played) + 1.0
            wins[i] += r.wins + 0.5 * r.draws + 0.5
            wins[j] += r.losses + 0.5 * r.draws + 0.5
        strength = [1.0] * n
        for _ in range(2000):
            new = []
            for i in range(n):
                denominator = sum(games[i][j] / (strength[i] + strength[j])
                                  for j in range(n) if j != i and games[i][j])
                new.append(wins[i] / denominator if denominator else strength[i])
            mean = math.exp(sum(math.log(s) for s in new) / n)
            new = [s / mean for s in new]
            done = max(abs(a - b) for a, b in zip(new, strength)) < 1e-12
            strength = new
            if done:
                break
        return [400.0 * math.log10(s) for s in strength]

    def crosstable(self) -> str:
        """Points of each row player against each column player, totals and ratings."""
        ratings = self.ratings()
        order = sorted(range(len(self.names)), key=lambda i: -ratings[i])
        width = max(len(name) for name in self.names)
        head = f"{'':<{width}} " + " ".join(f"{k + 1:>5}" for k in range(len(order)))
        lines = [head + f" {'points':>7} {'Elo':>6}"]
        for i in order:
            cells = []
            total = 0.0
            for j in order:
                if i == j:
                    cells.append(f"{'-':>5}")
                    continue
                p = self.points(i, j)
                total += p
                cells.append(f"{p:>5g}")
            lines.append(f"{self.names[i]:<{width}} " + " ".join(cells)
                         + f" {total:>7g} {ratings[i]:>+6.0f}")
        lines.append("column k is the k-th row's player; each cell: the row player's points")
        return "\n".join(lines)


def round_robin(players: Dict[str, Any], games_per_pair: int,
                openings: Optional[Sequence[Board]] = None, workers: int = 1,
                backend: str = "local", ray_address: Optional[str] = None,
                on_pair: Optional[Callable[[str, str, MatchResult], None]] = None) -> Tournament:
    """Every player against every other, ``games_per_pair`` games each (colours and
    openings as in :func:`run_match`)."""
    if len(players) < 2:
        raise SettingsError("a tournament needs at least two players")
    names = list(players)
    results: Dict[Tuple[int, int], MatchResult] = {}
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            result = run_match(players[names[i]], players[names[j]], games_per_pair,
                               openings=openings, workers=workers, backend=backend,
                               ray_address=ray_address)
            results[(i, j)] = result
            if on_pair is not None:
                on_pair(names[i], names[j], result)
    return Tournament(names, results)
