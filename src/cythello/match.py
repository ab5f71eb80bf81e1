"""Games, matches and round robins between players, from paired balanced openings by
default, scored by :mod:`~cythello.stats` (Elo and discs over pairs of games, an SPRT)."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ._workers import Workers, WorkersDied
from .core._board import Board
from .errors import IllegalMoveError, SettingsError
from .openings import openings_for, random_openings
from .stats import SPRT, Pentanomial, elo_bound, elo_difference, mean_interval

__all__ = ["MatchResult", "Tournament", "play_game", "run_match", "round_robin",
           "random_openings"]      # random_openings: its home before cythello.openings


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
    """Wins, draws and losses of the first player, with the games' final boards and the
    first player's disc margin in each (empties to the winner).  Games ``2k`` and
    ``2k + 1`` are a *pair*: the same start, the first player black in the first of them;
    :meth:`pentanomial`, :meth:`elo` and :meth:`discs` take the complete pairs as their
    unit (:mod:`cythello.stats` says why).  A match run with an ``sprt`` holds the test,
    and :meth:`decision` its verdict."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    games: List[Board] = field(default_factory=list)
    times: List[List[float]] = field(default_factory=list)   # seconds per move, per game
    margins: List[int] = field(default_factory=list)         # the first player's, per game
    sprt: Optional[SPRT] = None

    @property
    def played(self) -> int:
        """Games finished."""
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Points of the first player per game (win 1, draw 0.5)."""
        return (self.wins + 0.5 * self.draws) / self.played if self.played else 0.5

    def _pairs(self) -> List[Tuple[int, int]]:
        m = self.margins
        return list(zip(m[0:len(m) - 1:2], m[1::2]))

    def pair_margins(self) -> List[float]:
        """The first player's disc margin averaged over each complete pair of games."""
        return [(a + b) / 2 for a, b in self._pairs()]

    def pentanomial(self) -> Pentanomial:
        """How many complete pairs scored 0, ½, 1, 1½ and 2 points for the first player."""
        return Pentanomial.from_pairs((a > 0) + (b > 0) + 0.5 * ((a == 0) + (b == 0))
                                      for a, b in self._pairs())

    def elo(self) -> Tuple[float, float]:
        """Elo difference of the first player and its 95% margin: from the pairs' spread
        (the pentanomial model) once two pairs are complete, else from the games' results
        taken as independent (Wilson's interval)."""
        pairs = self.pentanomial()
        if pairs.pairs >= 2:
            return pairs.elo()
        return elo_difference(self.wins, self.draws, self.losses)

    def elo_bound(self) -> Optional[float]:
        """For a match won (or lost) in every game, which has no finite Elo estimate, the
        95% bound its score supports (a lower bound after all wins, an upper one after all
        losses); else None."""
        if self.played and self.wins in (0, self.played) and self.draws == 0:
            return elo_bound(self.wins, self.draws, self.losses)
        return None

    def discs(self) -> Tuple[float, float]:
        """The first player's mean disc margin a game over the complete pairs, and the
        half-width of its 95% interval (t, on the pairs' means)."""
        return mean_interval(self.pair_margins())

    def decision(self) -> Optional[str]:
        """The SPRT's verdict (``"H1"``, ``"H0"``), or None: undecided or no test."""
        return self.sprt.decision(self.pentanomial()) if self.sprt is not None else None

    def summary(self) -> str:
        """``+W =D -L  score S  Elo E ± M  discs D ± M`` on one line (the discs once two
        pairs are complete); a perfect score (all won or all lost) has no finite
        estimate, so its line gives the 95% bound instead."""
        head = f"+{self.wins} ={self.draws} -{self.losses}  score {self.score:.3f}"
        bound = self.elo_bound()
        if bound is not None:
            relation = ">" if self.wins else "<"
            head += f"  Elo {relation} {bound:+.0f} (95% bound)"
        else:
            diff, margin = self.elo()
            head += f"  Elo {diff:+.0f} ± {margin:.0f}"
        if len(self.margins) >= 4:
            discs, half = self.discs()
            head += f"  discs {discs:+.2f} ± {half:.2f}"
        return head

    def pairs_summary(self) -> str:
        """How the complete pairs scored, and the SPRT's state if the match has one."""
        pairs = self.pentanomial()
        text = (f"{pairs.pairs} pair{'' if pairs.pairs == 1 else 's'}: {pairs}, "
                f"{pairs.splits:.0%} split 1-1")
        if self.sprt is not None:
            text += f"; {self.sprt.describe(pairs)}"
        return text


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
    margin = outcome.score if g % 2 == 0 else -outcome.score      # the first player's
    if margin == 0:
        result.draws += 1
    elif margin > 0:
        result.wins += 1
    else:
        result.losses += 1
    result.games.append(final)
    result.times.append(times)
    result.margins.append(margin)


def _as_player(player: Any, which: str) -> Any:
    """A player, or the player a spec names (as on the command line: ``"medium"``,
    ``"alphabeta:depth=8"``)."""
    if isinstance(player, str):
        from .players import make_player
        return make_player(player)
    if not callable(getattr(player, "choose_move", None)):
        raise TypeError(f"the {which} player must have choose_move(board) or be a player "
                        f"spec such as 'medium', not {type(player).__name__}")
    return player


def run_match(first: Any, second: Any, games: int,
              openings: Union[Sequence[Board], str, None] = "balanced",
              on_game: Optional[Callable[[int, Board, MatchResult], None]] = None,
              workers: int = 1, backend: str = "local",
              ray_address: Optional[str] = None, sprt: Optional[SPRT] = None) -> MatchResult:
    """``games`` games, colours alternating (``first`` is black in even-numbered games;
    each player an object with ``choose_move`` or a spec :func:`~cythello.make_player`
    takes, such as ``"medium"``),
    each pair of games from the same opening: by default the shipped balanced openings
    (:func:`~cythello.openings.balanced_openings`, in their seed-0 order), or the
    ``openings`` given (boards, used in turn), or a name :func:`~cythello.openings.
    openings_for` takes (``"random"``, a file); None: every game from the start position.

    With an ``sprt`` (:class:`~cythello.stats.SPRT`), the match ends as soon as the test
    decides after a pair, ``games`` being the most it plays; the result holds the test
    (:meth:`MatchResult.decision`).

    ``workers`` > 1 plays games in parallel processes (``backend="local"``) or as Ray
    tasks (``backend="ray"``, connecting to ``ray_address``); the players are then
    pickled into the workers (MCTS and random players are; engine clients are not).  The
    games and the result are the same as a serial run's, in game order, as long as the
    players' searches are reproducible (seeded, with iteration limits); a match ended by
    its SPRT stops the games still running."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise SettingsError(f"workers must be a positive int, not {workers!r}")
    if backend not in ("local", "ray"):
        raise SettingsError(f"backend must be 'local' or 'ray', not {backend!r}")
    first, second = _as_player(first, "first"), _as_player(second, "second")
    if sprt is not None and not isinstance(sprt, SPRT):
        raise TypeError(f"sprt must be an SPRT, not {type(sprt).__name__}")
    if isinstance(openings, str):
        openings = openings_for(openings, (games + 1) // 2)

    def opening(g: int) -> Optional[Board]:
        # Each opening serves two games in a row, one for each colour, in turn.
        return openings[(g // 2) % len(openings)] if openings else None

    result = MatchResult(sprt=sprt)
    finished: Dict[int, Tuple[Board, List[float]]] = {}
    next_game = 0

    def collect(g: int, outcome: Tuple[Board, List[float]]) -> bool:
        """Record the games finished in game order; True once the SPRT has decided."""
        nonlocal next_game
        finished[g] = outcome
        while next_game in finished:
            final, times = finished.pop(next_game)
            _record(result, next_game, final, times)
            if on_game is not None:
                on_game(next_game, final, result)
            next_game += 1
            if next_game % 2 == 0 and result.decision() is not None:
                return True
        return False

    try:
        with Workers(workers, backend, ray_address) as pool:
            for g, outcome in pool.run(_play_pairing, [(first, second, g, opening(g))
                                                       for g in range(games)]):
                if collect(g, outcome):
                    pool.abandon()            # the games still running are not needed
                    break
    except WorkersDied as exc:
        raise RuntimeError(f"the match stopped after {result.played} games: {exc}") from None
    return result


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
                openings: Union[Sequence[Board], str, None] = "balanced", workers: int = 1,
                backend: str = "local", ray_address: Optional[str] = None,
                on_pair: Optional[Callable[[str, str, MatchResult], None]] = None) -> Tournament:
    """Every player against every other, ``games_per_pair`` games each (colours and
    openings as in :func:`run_match`)."""
    if len(players) < 2:
        raise SettingsError("a tournament needs at least two players")
    names = list(players)
    if isinstance(openings, str):               # read (or drawn) once for every pairing
        openings = openings_for(openings, (games_per_pair + 1) // 2)
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
