"""The data the evaluation studies share (capacity.py,
off_path.py, strong_data.py, exact_labels.py, models.py):
the held-out sets, new PUCT self-play positions that none of them holds, the
exact-scored 13-16-empties positions several studies fit to, and candidate patterns'
feature columns.
"""
import tempfile
import time
from pathlib import Path

import numpy as np

import cythello as cy
from cythello import selfplay
from cythello.eval import load_weights
from cythello.eval.patterns import layout_of
from cythello.nn import PatternEvaluator
from cythello.training.data import empties_of, off_path, side_to_move
from cythello.training.fit import packed_features, predict
from cythello.training.labels import exact_scores

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data"   # the held-out sets
STAGE = (13, 16)                 # the stage whose labels are exact and studies fit
STAGE_SEED = 778                 # the self-play of labelled_positions (no training run uses it)
HELD = (("heldout-puct.txt", 13, 16), ("heldout-strong.txt", 14, 16))
# Candidate 10-square patterns beside the shipped set (capacity.py, models.py).
CANDIDATES = {
    "corner triangle": ("a1", "b1", "c1", "d1", "a2", "b2", "c2", "a3", "b3", "a4"),
    "angle + X": ("a1", "b1", "c1", "d1", "e1", "a2", "b2", "a3", "a4", "a5"),
    "edge block": ("a1", "c1", "d1", "e1", "f1", "h1", "c2", "d2", "e2", "f2"),
    "corner + block": ("a1", "b1", "c1", "d1", "a2", "b2", "c2", "d2", "a3", "b3"),
}


def read_heldout(path):
    """``(board, exact score)`` of each line of a held-out file (make_heldout.py's format)."""
    rows = [line.rsplit(" ", 1) for line in Path(path).read_text().splitlines() if line.strip()]
    return [(cy.Board(text), int(score)) for text, score in rows]


def heldout_arrays(path):
    """``(own, opp, exact scores)`` arrays of a held-out file."""
    held = read_heldout(path)
    own = np.array([board.position()[0] for board, _ in held], dtype=np.uint64)
    opp = np.array([board.position()[1] for board, _ in held], dtype=np.uint64)
    return own, opp, np.array([score for _, score in held], dtype=float)


def heldout_positions():
    """Every position of the held-out sets (none may be trained on)."""
    return {board.position() for path in DATA.glob("heldout*.txt")
            for board, _ in read_heldout(path)}


def first_unheld(own, opp, rows=None):
    """The indices, in order, of the first occurrence of each position among ``rows`` (all
    by default) that no held-out set holds."""
    held = heldout_positions()
    first = {}
    for i in (range(len(own)) if rows is None else rows):
        key = (int(own[i]), int(opp[i]))
        if key not in held:
            first.setdefault(key, i)
    return np.array(sorted(first.values()), dtype=np.int64)


def puct_selfplay(games, run, seed):
    """``(own, opp)`` of every position of ``games`` PUCT self-play games guided by the
    shipped weights, played into ``run`` as the training's next round would play them."""
    selfplay.generate(games, run, seed=seed, workers=2, games_per_shard=1000,
                      evaluator=PatternEvaluator(load_weights(None)), batch_games=256,
                      iterations=100, dirichlet_alpha=0.5, dirichlet_fraction=0.25,
                      temperature_moves=16, epsilon=0.03, progress=False)
    return side_to_move(selfplay.load(run))


def stage_positions(games, run, seed, stage=STAGE):
    """``(own, opp, off-path flag)`` of the positions with ``stage`` (lowest, highest)
    empties of ``games`` new PUCT self-play games played into ``run`` and their off-path
    ones (one for every two game positions, as training has them), deduplicated (a game
    position wins a tie), held-out positions dropped."""
    own, opp = puct_selfplay(games, run, seed)
    e = empties_of(own, opp)
    near = (e >= stage[0]) & (e <= stage[1] + 1)     # a random move from one more lands inside
    own, opp = own[near], opp[near]
    extra_own, extra_opp = off_path(own, opp, 0.5, seed)
    flag = np.concatenate([np.zeros(len(own), dtype=bool), np.ones(len(extra_own), dtype=bool)])
    own, opp = np.concatenate([own, extra_own]), np.concatenate([opp, extra_opp])
    keep = first_unheld(own, opp)
    own, opp, flag = own[keep], opp[keep], flag[keep]
    e = empties_of(own, opp)
    inside = (e >= stage[0]) & (e <= stage[1])
    return own[inside], opp[inside], flag[inside]


def labelled_positions(games):
    """``stage_positions`` of 13-16 empties from ``games`` games of seed 778, with their
    exact scores: ``(own, opp, off-path flag, exact score)``."""
    with tempfile.TemporaryDirectory() as run:
        own, opp, flag = stage_positions(games, run, STAGE_SEED)
    return own, opp, flag, exact_scores(own, opp, workers=2).astype(float)


def cached(path, make):
    """``make()``'s dict of arrays, saved to / read from ``path``."""
    if path.exists():
        with np.load(path) as d:
            return {k: d[k] for k in d.files}
    started = time.monotonic()
    out = make()
    np.savez(path, **out)
    print(f"  {path.name}: {time.monotonic() - started:.0f} s", flush=True)
    return out


def held_out(sets=HELD):
    """``(label, features, exact scores)`` of each held-out file's positions of the given
    empties (file, lowest, highest)."""
    held = []
    for name, lo, hi in sets:
        h_own, h_opp, h_y = heldout_arrays(DATA / name)
        h_e = empties_of(h_own, h_opp)
        m = (h_e >= lo) & (h_e <= hi)
        held.append((f"{name} {lo}-{hi} ({int(m.sum())})", packed_features(h_own[m], h_opp[m]),
                     h_y[m]))
    return held


def judged(w, held):
    """A fit's "MAE, mean error" (discs; mean error above 0: it leans toward the side to
    move) on each of ``held``."""
    cells = []
    for _, h_feats, h_y in held:
        q = predict(w, h_feats)
        cells.append(f"{np.abs(q - h_y).mean():.2f}, {np.mean(q - h_y):+.2f}")
    return cells


def pattern_columns(own, opp, pattern):
    """The packed weight slot (from 0) of every instance of a candidate ``pattern``, and
    its number of slots."""
    lay = layout_of(pattern)
    powers = 3 ** np.arange(pattern.size)
    columns = []
    for k in lay.instances:
        index = np.zeros(len(own), dtype=np.int64)
        for digit, square in enumerate(lay.instance_squares(k)):
            bit = np.uint64(1) << np.uint64(square)
            index += (((own & bit) != 0) + 2 * ((opp & bit) != 0)) * powers[digit]
        columns.append(lay.pack[index])
    return np.stack(columns, axis=1).astype(np.int32), lay.packed_size
