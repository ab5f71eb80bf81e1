"""The statistics of engine matches: Elo from a score, intervals that use every game, and a
sequential test that stops a match when its evidence decides.

A match plays its games in *pairs*: one start position, each player black once.  The two
games of a pair share the opening's bias (a position worth +6 discs to black is likely a
win for whoever is black), so they are not independent, but pairs are.  Each measure here
therefore takes the pair as its unit, as the best-run engine projects do (fishtest,
OpenBench):

- **pentanomial**: a pair scores 0, ½, 1, 1½ or 2 points for the first player; the score's
  interval comes from the spread of those five outcomes (a pair split 1-1, common from a
  lopsided opening, says little, and the interval shows it);
- **disc difference**: the first player's final margin averaged over the pair's two games,
  whose mean and t interval react to every disc a player gains, not only to the games
  whose result changes;
- **SPRT**: a sequential probability ratio test of Elo ``elo0`` against ``elo1`` on the
  pentanomial counts (the generalised form: each hypothesis' likelihood at the pair-score
  distribution closest to the sample whose mean is that hypothesis' score), which ends a
  match when the log-likelihood ratio leaves ``(log(beta/(1-alpha)), log((1-beta)/alpha))``:
  a false acceptance of ``elo1`` at most ``alpha`` of the time when ``elo0`` holds, of
  ``elo0`` at most ``beta`` of the time when ``elo1`` holds.

Elo throughout is the logistic scale: a score ``s`` is ``-400 log10(1/s - 1)`` Elo.  Nothing
here knows about boards: the functions take counts and numbers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from ._checks import check_number
from .errors import SettingsError

Z95 = 1.959963984540054          # the normal distribution's 97.5 % point
# A pair's points for the first player, as a share of the pair's two points: the values
# of the pentanomial's five cells (LL, LD, LW or DD, DW, WW).
PAIR_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
# Empty cells of a pentanomial count this much when its spread or likelihood is computed
# (fishtest's regularisation): a sample with no 0-2 pair does not prove that none exists.
EMPTY_CELL = 1e-3
# A quarter of a pair added at each extreme for the score interval's variance (see
# Pentanomial.score_interval).
SMALL_SAMPLE_PRIOR = np.array([0.25, 0.0, 0.0, 0.0, 0.25])
_CELL_NAMES = ("0-2", "½-1½", "1-1", "1½-½", "2-0")


def elo_of(score: float) -> float:
    """Elo of a score (a share of the points, clipped to [0.001, 0.999])."""
    score = min(max(score, 1e-3), 1 - 1e-3)
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0   # + 0.0: no "-0" for an even score


def score_of(elo: float) -> float:
    """The expected score of a player ``elo`` Elo stronger (0 or 1 beyond +-120,000 Elo,
    where the power would overflow)."""
    exponent = min(max(-float(elo) / 400.0, -300.0), 300.0)
    return 1.0 / (1.0 + math.pow(10.0, exponent))


def _game_counts(wins: int, draws: int, losses: int) -> int:
    """The number of games, the counts checked (whole numbers, none negative)."""
    for name, value in (("wins", wins), ("draws", draws), ("losses", losses)):
        check_count(name, value)
    return int(wins) + int(draws) + int(losses)


def check_count(name: str, value: object) -> None:
    """A count of games or pairs: a whole number (int or NumPy integer), at least 0."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise SettingsError(f"{name} must be a whole number of games, not {value!r:.40}")
    if value < 0:
        raise SettingsError(f"{name} must be at least 0, not {value}")


def _wilson(wins: int, draws: int, losses: int) -> Tuple[float, float, float]:
    """The score of a match and the ends of its 95% Wilson interval."""
    n = wins + draws + losses
    score = (wins + 0.5 * draws) / n
    z = Z95
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return score, centre - half, centre + half


def elo_difference(wins: int, draws: int, losses: int) -> Tuple[float, float]:
    """Elo difference from a match score and the half-width of its 95% interval, the games
    taken as independent (the trinomial model).  The interval is Wilson's for the score, so
    it stays honest for 20-0 sweeps (where the point estimate is clipped at +1200)."""
    if _game_counts(wins, draws, losses) == 0:
        return 0.0, float("inf")
    score, low, high = _wilson(wins, draws, losses)
    return elo_of(score), (elo_of(high) - elo_of(low)) / 2


def elo_bound(wins: int, draws: int, losses: int) -> float:
    """The Elo bound a perfect score supports: the lower end of the 95% Wilson interval
    after all wins (the upper end after all losses); no games bound nothing (infinite)."""
    if _game_counts(wins, draws, losses) == 0:
        return math.inf
    score, low, high = _wilson(wins, draws, losses)
    return elo_of(low) if score >= 0.5 else elo_of(high)


def t_quantile_975(df: int) -> float:
    """Student's t distribution's 97.5 % point with ``df`` degrees of freedom (the
    Cornish-Fisher expansion about the normal's, within 0.001 of the exact value from 4
    degrees of freedom; exact values below)."""
    exact = {1: 12.706204736, 2: 4.302652730, 3: 3.182446305}
    if df < 1:
        return math.inf
    if df in exact:
        return exact[df]
    z = Z95
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4


def mean_interval(values: Sequence[float]) -> Tuple[float, float]:
    """The mean of ``values`` and the half-width of its 95% t interval (infinite with
    fewer than two values)."""
    n = len(values)
    if n == 0:
        return 0.0, math.inf
    mean = math.fsum(values) / n
    if n < 2:
        return mean, math.inf
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, t_quantile_975(n - 1) * sd / math.sqrt(n)


def _regularised(counts: "Union[Sequence[int], np.ndarray]") -> np.ndarray:
    """Pentanomial counts (last axis: the five cells) with empty cells at EMPTY_CELL."""
    array = np.asarray(counts, dtype=float)
    out: np.ndarray = np.where(array > 0, array, EMPTY_CELL)
    return out


@dataclass(frozen=True)
class Pentanomial:
    """How many pairs of games scored 0, ½, 1, 1½ and 2 points for the first player
    (``counts``: LL, LD, LW+DD, DW, WW)."""

    counts: Tuple[int, int, int, int, int]

    def __post_init__(self) -> None:
        if not isinstance(self.counts, (tuple, list)) or len(self.counts) != 5:
            raise SettingsError(f"a pentanomial has five counts, not {self.counts!r:.60}")
        for name, value in zip(_CELL_NAMES, self.counts):
            check_count(f"the {name} count", value)

    @classmethod
    def from_pairs(cls, pair_points: Iterable[float]) -> "Pentanomial":
        """From each pair's points (0, 0.5, 1, 1.5 or 2)."""
        counts = [0] * 5
        for points in pair_points:
            k = points * 2
            if k not in (0, 1, 2, 3, 4):
                raise SettingsError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points, not {points}")
            counts[int(k)] += 1
        return cls((counts[0], counts[1], counts[2], counts[3], counts[4]))

    @property
    def pairs(self) -> int:
        """Pairs counted."""
        return sum(self.counts)

    @property
    def score(self) -> float:
        """The first player's points per game."""
        if not self.pairs:
            return 0.5
        return float(np.dot(self.counts, PAIR_SCORES)) / self.pairs

    @property
    def splits(self) -> float:
        """The share of pairs that scored 1 point (1-1 or two draws): pairs that say
        nothing about which player is stronger."""
        return self.counts[2] / self.pairs if self.pairs else 0.0

    def score_interval(self) -> Tuple[float, float, float]:
        """The score, and the ends of its 95% interval from the pairs' spread: Student's t
        with ``pairs - 1`` degrees of freedom, and a variance that counts a quarter of a
        pair more at each extreme (0-2 and 2-0).  With many pairs that is fishtest's
        normal interval; with few it keeps a sample of identical pairs (2 pairs split
        1-1) from claiming a spread of nothing: by exact enumeration over five pentanomial
        distributions (even to +200 Elo, drawish to spread), it covers the true score at
        least 95 % of the time from 1 to 20 pairs, where the normal interval over the
        counts alone covered 0-95 % up to 10 pairs (tests/test_stats.py)."""
        n = self.pairs
        if n == 0:
            return 0.5, 0.0, 1.0
        p = np.asarray(self.counts, dtype=float) + SMALL_SAMPLE_PRIOR
        p = p / p.sum()
        mu = float(np.dot(p, PAIR_SCORES))
        var = float(np.dot(p, (PAIR_SCORES - mu) ** 2))
        half = t_quantile_975(max(n - 1, 1)) * math.sqrt(var / n)
        score = self.score
        return score, max(0.0, score - half), min(1.0, score + half)

    def elo(self) -> Tuple[float, float]:
        """Elo difference of the first player and the half-width of its 95% interval."""
        if not self.pairs:
            return 0.0, math.inf
        score, low, high = self.score_interval()
        return elo_of(score), (elo_of(high) - elo_of(low)) / 2

    def los(self) -> float:
        """The likelihood of superiority: how sure the sample is that the first player is
        the stronger (the normal approximation)."""
        score, low, high = self.score_interval()
        se = (high - low) / (2 * Z95)
        if se == 0:
            return 0.5
        return 0.5 * (1 + math.erf((score - 0.5) / se / math.sqrt(2)))

    def __str__(self) -> str:
        """``3 0-2, 4 ½-1½, 25 1-1, 10 1½-½, 8 2-0`` (the first player's points first)."""
        return ", ".join(f"{c} {name}" for c, name in zip(self.counts, _CELL_NAMES))


def _constrained_lambda(p: np.ndarray, s: np.ndarray) -> np.ndarray:
    """For distributions ``p`` (rows over the five pair scores, all cells > 0) and target
    means ``s`` (strictly inside (0, 1)), the Lagrange multiplier of the distribution
    nearest each ``p`` (in Kullback-Leibler divergence from ``p``) with mean ``s``: it has
    cells ``p / (1 + lambda (x - s))``, and lambda solves sum p (x - s) / (1 + lambda
    (x - s)) = 0, a decreasing function on the interval where every cell stays positive.
    Solved by bisection, every row at once."""
    d = PAIR_SCORES[None, :] - s[:, None]                   # x - s, rows x cells
    low = -1.0 / d.max(axis=1) * (1 - 1e-12)                # 1 + lambda d > 0 for all x
    high = -1.0 / d.min(axis=1) * (1 - 1e-12)
    for _ in range(50):                         # the bracket's width falls below 1e-14
        mid = (low + high) / 2
        g = (p * d / (1 + mid[:, None] * d)).sum(axis=1)
        low = np.where(g > 0, mid, low)
        high = np.where(g > 0, high, mid)
    lam: np.ndarray = (low + high) / 2
    return lam


def llr(counts: Union[Sequence[int], np.ndarray], elo0: float, elo1: float) -> np.ndarray:
    """The generalised log-likelihood ratio of Elo ``elo1`` against ``elo0`` for
    pentanomial ``counts`` (one row of five, or many rows: one ratio each): the sample's
    size times the mean log ratio of the two distributions nearest the sample whose means
    are the hypotheses' scores (the maximum likelihood under each)."""
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    n = counts.sum(axis=1)
    p = _regularised(counts)
    p = p / p.sum(axis=1, keepdims=True)
    out = np.zeros(len(counts))
    for sign, elo in ((1.0, elo1), (-1.0, elo0)):
        s = np.full(len(counts), score_of(elo))
        lam = _constrained_lambda(p, s)
        d = PAIR_SCORES[None, :] - s[:, None]
        # log(p_hyp / p) = -log(1 + lambda d), summed over the sample's own distribution
        out -= sign * (p * np.log1p(lam[:, None] * d)).sum(axis=1)
    return np.where(n > 0, n * out, 0.0)


@dataclass(frozen=True)
class SPRT:
    """A sequential probability ratio test: is the first player ``elo1`` Elo stronger
    (H1) or only ``elo0`` (H0)?  ``alpha``: how often it may accept H1 when H0 holds;
    ``beta``: how often it may accept H0 when H1 holds."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1"):
            check_number(name, getattr(self, name), -1000, 1000)
        for name in ("alpha", "beta"):
            check_number(name, getattr(self, name), 0, 0.5, low_open=True,
                         range_text="more than 0 and at most 0.5")
        if not self.elo0 < self.elo1:
            raise SettingsError(f"the SPRT's elo0 must be below elo1, not {self.elo0:g} "
                                f"and {self.elo1:g}")

    @property
    def bounds(self) -> Tuple[float, float]:
        """The log-likelihood ratios at which the test accepts H0 and H1."""
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def llr(self, pentanomial: Pentanomial) -> float:
        """The log-likelihood ratio of H1 against H0 for these pairs."""
        return float(llr(pentanomial.counts, self.elo0, self.elo1)[0])

    def decision(self, pentanomial: Pentanomial) -> Optional[str]:
        """``"H1"`` or ``"H0"`` once the ratio has left the bounds, else None."""
        ratio = self.llr(pentanomial)
        low, high = self.bounds
        return "H1" if ratio >= high else "H0" if ratio <= low else None

    def describe(self, pentanomial: Pentanomial) -> str:
        """``SPRT [0, 50]: LLR +1.23 of (-2.94, +2.94), going on`` (or the decision)."""
        ratio = self.llr(pentanomial)
        low, high = self.bounds
        verdict = {"H1": f"H1 accepted: Elo >= {self.elo1:g} rather than <= {self.elo0:g}",
                   "H0": f"H0 accepted: Elo <= {self.elo0:g} rather than >= {self.elo1:g}",
                   None: "undecided"}[self.decision(pentanomial)]
        return (f"SPRT [{self.elo0:g}, {self.elo1:g}] (alpha {self.alpha:g}, beta "
                f"{self.beta:g}): LLR {ratio:+.2f} of ({low:+.2f}, {high:+.2f}), {verdict}")


__all__: List[str] = [
    "Pentanomial", "SPRT", "elo_of", "score_of", "elo_difference", "elo_bound", "llr",
    "mean_interval", "t_quantile_975",
]
