"""Training positions from a games database, labelled by what the records make cheap.

A WTHOR record carries black's perfect-play score from the position at 24 empties (its
*theoretical* score), so every position of the game up to that point gets a label without
a search: the side to move's score if the game goes on as played to 24 empties and
perfectly from there.  That is exact at 24 empties and far less noisy before it than the
final result (expert games lose about 12 discs between 24 empties and the end, on
average), while it still reflects real play.  Positions after that point get no label:
even a game whose final result equals its theoretical score was not played perfectly
(errors cancel; in the test files such games' 8-14-empties positions are off their exact
scores by up to 34 discs), and the exact solver labels those positions better.  A game
without a theoretical score (a GGF or transcript source) is labelled by its final result,
as Edax's builder and NTest's GGS positions were.

Held-out positions are chosen by year, so the games a fit is judged on were played after
every game it saw (tournament openings move with the years).

    python -m cythello.training games --db ../shared/data/wthor --out expert.weights
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Tuple

import numpy as np

from ..core._replay import positions_at
from ..eval import PatternWeights, patterns
from ..eval.weights import unpack
from ..games import GameDatabase
from ..games.table import UNKNOWN
from .data import empties_of
from .fit import fit_stage, fit_stage_huber, packed_features, predict, quantize
from .labels import search_scores


@dataclass(frozen=True)
class GamePositions:
    """Labelled positions (side to move ``own`` against ``opp``), one entry each:
    ``label`` in discs for the side to move, ``empties``, the database ``row`` of the game
    and its ``year`` (0: unknown), and ``exact`` where the label is the position's own
    perfect-play score (at the record's theoretical depth)."""

    own: np.ndarray
    opp: np.ndarray
    label: np.ndarray
    empties: np.ndarray
    row: np.ndarray
    year: np.ndarray
    exact: np.ndarray

    def __len__(self) -> int:
        return len(self.own)

    def where(self, mask: np.ndarray) -> "GamePositions":
        return GamePositions(*(getattr(self, f)[mask] for f in _FIELDS))


_FIELDS = ("own", "opp", "label", "empties", "row", "year", "exact")


def game_positions(db: GameDatabase, empties: Iterable[int],
                   results: bool = True) -> GamePositions:
    """The positions with ``empties`` empty squares of the database's games, labelled as
    the module says.  ``results=False`` leaves out games without a theoretical score
    instead of labelling them by their result.  The order is fixed (by empties, then by
    game), so the same database gives the same arrays."""
    table = db.table
    rows = db.rows()
    start_empties = empties_of(table.start_black[rows], table.start_white[rows])
    played = table.played[rows].astype(np.int64)
    theory = table.theoretical[rows].astype(np.int64)
    theory_at = table.theoretical_empties[rows].astype(np.int64)
    result = table.result[rows].astype(np.int64)
    known = theory != UNKNOWN
    parts = []
    for e in sorted(set(int(x) for x in empties)):
        ply = start_empties - e
        reached = (ply >= 0) & (ply < played)     # a move is made from it: not finished
        before = known & (e >= theory_at)
        by_result = ~known & (result != UNKNOWN) if results else np.zeros_like(known)
        take = reached & (before | by_result)
        idx = np.flatnonzero(take)
        if not len(idx):
            continue
        own, opp, colour = positions_at(table.moves, table.start_black, table.start_white,
                                        table.start_turn, rows[idx], ply[idx])
        # positions_at plays a forced pass first: keep only positions that still have
        # ``e`` empties and a side to move (always so for a game that goes on).
        black_score = np.where(before[idx], theory[idx], result[idx])
        sign = np.where(colour == 0, 1, -1)
        ok = empties_of(own, opp) == e
        parts.append(GamePositions(
            own[ok], opp[ok], (sign * black_score)[ok].astype(np.float64),
            np.full(int(ok.sum()), e, np.int64), rows[idx][ok],
            table.year[rows[idx]][ok].astype(np.int64),
            (known & (e == theory_at))[idx][ok]))
    if not parts:
        return GamePositions(np.zeros(0, np.uint64), np.zeros(0, np.uint64), np.zeros(0),
                             np.zeros(0, np.int64), np.zeros(0, np.int64),
                             np.zeros(0, np.int64), np.zeros(0, bool))
    return GamePositions(*(np.concatenate([getattr(p, f) for p in parts]) for f in _FIELDS))


def split_by_year(positions: GamePositions, held_out_from: int
                  ) -> Tuple[GamePositions, GamePositions]:
    """``(train, held_out)``: positions of games before ``held_out_from`` and from it on
    (a game of unknown year trains)."""
    late = positions.year >= held_out_from
    return positions.where(~late), positions.where(late)


def stage_range(stage: int, width: int) -> range:
    """The empties counts of stage ``stage`` (``width`` a stage, the first from 1)."""
    return range(stage * width + 1, stage * width + width + 1)


def mean_error(predicted: np.ndarray, label: np.ndarray,
               mask: Optional[np.ndarray] = None) -> float:
    """Mean absolute error in discs (NaN for no positions)."""
    if mask is not None:
        predicted, label = predicted[mask], label[mask]
    return float(np.abs(predicted - label).mean()) if len(label) else float("nan")


@dataclass(frozen=True)
class StageReport:
    """One refitted stage: its training positions and, per empties count, the held-out
    positions and the mean error of the base and the refitted weights on them."""

    stage: int
    train: int
    held_out: Tuple[Tuple[int, int, float, float], ...]   # (empties, n, base, new)


def fit_from_games(positions: GamePositions, base: np.ndarray, stages: Iterable[int],
                   ridge: float = 10.0, huber: float = 0.0, held_out_from: int = 2019,
                   search: float = 0.0, depth: int = 4, workers: int = 1,
                   log: Optional[Callable[[str], None]] = None
                   ) -> Tuple[np.ndarray, Tuple[StageReport, ...]]:
    """``base`` (packed int16 weights, stages x packed size) with ``stages`` refitted to
    the positions of games before ``held_out_from``, each pulled toward its own base
    weights by ``ridge`` (a configuration the games rarely show keeps the base value:
    the games refine, the self-play weights fill the rest).  Returns the new packed
    weights and each stage's held-out errors (against the records' labels).

    ``search`` > 0 labels a position that is not exact by ``search`` times the score of
    a ``depth``-ply alpha-beta search over the weights fitted so far (its leaves fall in
    the stages refitted before, fewest empties first: Buro's bootstrapping, on the
    experts' positions) plus ``1 - search`` times the record's label."""
    train, held = split_by_year(positions, held_out_from)
    packed = np.array(base, dtype=np.int16, copy=True)
    reports = []
    for stage in stages:
        counts = stage_range(stage, patterns.STAGE_WIDTH)
        tr = train.where(np.isin(train.empties, counts))
        prior = base[stage].astype(np.float64) / patterns.SCALE
        if len(tr):
            labels = tr.label
            if search > 0 and not tr.exact.all():
                scores = search_scores(tr.own, tr.opp, depth, PatternWeights(unpack(packed)),
                                       workers)
                labels = np.where(tr.exact, tr.label, search * scores + (1 - search) * tr.label)
            features = packed_features(tr.own, tr.opp)
            if huber > 0:
                w = fit_stage_huber(features, labels, ridge, huber, prior=prior)
            else:
                w = fit_stage(features, labels, ridge, prior=prior)
            packed[stage] = quantize(w)
        rows = []
        for e in counts:
            h = held.where(held.empties == e)
            if not len(h):
                continue
            hf = packed_features(h.own, h.opp)
            rows.append((e, len(h), mean_error(predict(prior, hf), h.label),
                         mean_error(predict(packed[stage].astype(np.float64)
                                            / patterns.SCALE, hf), h.label)))
        reports.append(StageReport(stage, len(tr), tuple(rows)))
        if log is not None:
            log(f"stage {stage} ({counts[0]}-{counts[-1]} empties): {len(tr):,} positions; "
                + ", ".join(f"{e}: {b:.2f} -> {n:.2f}" for e, _, b, n in rows))
    return packed, tuple(reports)
