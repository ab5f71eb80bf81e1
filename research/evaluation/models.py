"""Would another model of the same positions err less than the linear pattern fit?
``capacity.py`` found the shipped features levelling off near 6.1 discs at
13-16 empties, where labels are exact, and every richer pattern adding 0.00-0.08.  This
tries what is left besides patterns, on exact scores of the 13-16-empties positions of new
PUCT self-play (``off_path.py``'s, seed 778, off-path ones included):

- the loss: training's ridge least squares (ridge 10) against a Huber loss (8 discs) and
  the absolute error, both by reweighted least squares (the goal is a mean absolute
  error, and exact scores have heavy tails);
- richer patterns: capacity.py's four 10-square candidates beside the shipped
  set (+148 k weights), for how much data a larger model needs before it pays;
- region parity: for each empty region (8-connected), odd or even, and which side has a
  legal move in it, the number of such regions (0-4+) as 40 more weights (an endgame
  player's first rule: the last move in each odd region);
- a nonlinear head: a small network (64 ReLU units, Adam, squared error, 10 epochs) on the
  shipped stage's 49 feature values (46 pattern instances, parity, both mobilities), each
  side's discs and the empties, fitted to the residual of the shipped stage; a linear head
  on the same inputs beside it.  Interactions between the patterns' values are what a
  linear sum cannot express.

Each is judged on ``heldout-puct.txt`` (13-16 empties) and ``heldout-strong.txt`` (14-16),
next to the first row position by position (the change in MAE and its standard error;
the heads next to the shipped stage they sit on).
``--games 48000`` (271 k positions, about 20 minutes) shows which gains grow with data.

    python3 research/evaluation/models.py --workdir /tmp/models     # ~8 minutes, 2 cores

The labelled positions are cached in ``--workdir``.
"""
import argparse
from pathlib import Path

import numpy as np
from _evaldata import (
    CANDIDATES,
    DATA,
    HELD,
    cached,
    heldout_arrays,
    labelled_positions,
    pattern_columns,
)

from cythello import Board
from cythello.eval import patterns
from cythello.eval.patterns import Pattern
from cythello.eval.weights import DEFAULT_PATH, read_weights
from cythello.training.data import empties_of
from cythello.training.fit import (
    fit_stage,
    fit_stage_huber,
    fit_stage_reweighted,
    packed_features,
    predict,
)

RIDGE = 10.0
ALL = (1 << 64) - 1
NOT_A, NOT_H = 0xFEFEFEFEFEFEFEFE, 0x7F7F7F7F7F7F7F7F
REGION_CAP = 4                              # 0..4 regions of a kind (more count as 4)
REGION_KINDS = 8                            # odd/even x (neither, mover, opponent, both)


def _neighbours(x):
    return ((x << 8) | (x >> 8) | ((x << 1) & NOT_A) | ((x >> 1) & NOT_H) | ((x << 9) & NOT_A)
            | ((x << 7) & NOT_H) | ((x >> 7) & NOT_A) | ((x >> 9) & NOT_H)) & ALL


def empty_regions(empty):
    """The 8-connected regions of the ``empty`` bitboard (a list of bitboards)."""
    regions = []
    while empty:
        region = empty & -empty
        while True:
            grown = (region | _neighbours(region)) & empty
            if grown == region:
                break
            region = grown
        regions.append(region)
        empty &= ~region
    return regions


def region_counts(own, opp):
    """(N, 8): each position's number of empty regions of each kind, capped: kind = 4 *
    (region is odd) + (mover has a move there) + 2 * (opponent has)."""
    out = np.zeros((len(own), REGION_KINDS), dtype=np.int64)
    for i, (p, o) in enumerate(zip(own.tolist(), opp.tolist())):
        mover = Board.from_bitboards(p, o, 0).legal_moves_mask
        other = Board.from_bitboards(o, p, 0).legal_moves_mask
        for region in empty_regions(~(p | o) & ALL):
            kind = 4 * (bin(region).count("1") & 1) + bool(region & mover) + 2 * bool(region & other)
            out[i, kind] += 1
    return np.minimum(out, REGION_CAP)


def with_regions(own, opp):
    """Packed features with the region-parity slots appended after the shipped ones."""
    slots = patterns.packed_size() + np.arange(REGION_KINDS) * (REGION_CAP + 1) + region_counts(own, opp)
    return np.concatenate([packed_features(own, opp), slots], axis=1)


def _popcount(boards):
    return np.unpackbits(np.ascontiguousarray(boards, dtype=np.uint64).view(np.uint8)) \
        .reshape(-1, 64).sum(axis=1)


def head_inputs(own, opp, shipped):
    """The shipped stage's value of each position and a head's inputs: its 49 feature
    values, each side's discs and the empties."""
    f = packed_features(own, opp)
    parts = shipped[f]
    discs = np.stack([_popcount(own), _popcount(opp)], axis=1)
    return parts.sum(axis=1), np.concatenate([parts, discs, empties_of(own, opp)[:, None]], axis=1)


def fit_network(x, target, hidden=64, epochs=10, seed=0):
    """A one-hidden-layer ReLU network fitted by Adam (batches of 256, rate 1e-3) to
    ``target``; returns its prediction function (inputs standardised on ``x``)."""
    rng = np.random.default_rng(seed)
    mu, sd = x.mean(axis=0), x.std(axis=0) + 1e-6
    z = (x - mu) / sd
    params = [rng.normal(0, 1 / np.sqrt(z.shape[1]), (z.shape[1], hidden)), np.zeros(hidden),
              np.zeros(hidden), np.zeros(1)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(z))
        for at in range(0, len(z), 256):
            j = order[at:at + 256]
            h = np.maximum(z[j] @ params[0] + params[1], 0)
            g = (h @ params[2] + params[3][0] - target[j]) / len(j)
            gh = np.outer(g, params[2]) * (h > 0)
            grads = [z[j].T @ gh, gh.sum(axis=0), h.T @ g, np.array([g.sum()])]
            step += 1
            for k, (p, gp) in enumerate(zip(params, grads)):
                m[k] = 0.9 * m[k] + 0.1 * gp
                v[k] = 0.999 * v[k] + 0.001 * gp * gp
                p -= 1e-3 * (m[k] / (1 - 0.9 ** step)) / (np.sqrt(v[k] / (1 - 0.999 ** step)) + 1e-8)

    def net(xs):
        return np.maximum((xs - mu) / sd @ params[0] + params[1], 0) @ params[2] + params[3][0]
    return net


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--games", type=int, default=12000, help="self-play games (default 12,000)")
    args = ap.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    data = cached(args.workdir / f"labelled-{args.games}.npz", lambda: dict(
        zip(("own", "opp", "flag", "y"), labelled_positions(args.games))))
    own, opp, y = data["own"], data["opp"], data["y"].astype(float)
    packed, _ = read_weights(DEFAULT_PATH)
    shipped = packed[patterns.stage_of(16)].astype(float) / patterns.SCALE

    held = []
    for name, lo, hi in HELD:
        h_own, h_opp, h_y = heldout_arrays(DATA / name)
        e = empties_of(h_own, h_opp)
        keep = (e >= lo) & (e <= hi)
        held.append((f"{name} {lo}-{hi} ({int(keep.sum())})", h_own[keep], h_opp[keep], h_y[keep]))
    print(f"{len(y):,} positions of 13-16 empties, exact scores (mean |score| {np.abs(y).mean():.1f})")
    print(f"{'model':>44}  {'train MAE':>9}" + "".join(f"  {h[0] + ': MAE, mean (change)':>40}" for h in held))

    first_errors = []

    def report(name, value_of, train):
        """One row: each set's MAE and mean error, and the change in MAE from the first
        row with its standard error (paired by position; below 0: this model errs less)."""
        cells = []
        for k, (_, h_own, h_opp, h_y) in enumerate(held):
            q = value_of(h_own, h_opp)
            err = np.abs(q - h_y)
            if len(first_errors) < len(held):
                first_errors.append(err)
            d = err - first_errors[k]
            cells.append(f"{err.mean():.2f}, {np.mean(q - h_y):+.2f} "
                         f"({d.mean():+.2f} ± {d.std() / np.sqrt(len(d)):.2f})")
        print(f"{name:>44}  {np.abs(train - y).mean():>9.2f}" + "".join(f"  {c:>40}" for c in cells),
              flush=True)

    feats = packed_features(own, opp)
    for name, fit in (("squared error (training's fit)", lambda: fit_stage(feats, y, RIDGE)),
                      ("Huber, 8 discs (training's --huber 8)",
                       lambda: fit_stage_huber(feats, y, RIDGE, 8.0)),
                      ("absolute error",
                       lambda: fit_stage_reweighted(feats, y, RIDGE,
                                                   lambda r: 1.0 / np.maximum(r, 2.0)))):
        w = fit()
        report(name, lambda a, b, w=w: predict(w, packed_features(a, b)), predict(w, feats))

    def with_candidates(a, b):
        columns, first = [packed_features(a, b)], patterns.packed_size()
        for name, squares in CANDIDATES.items():
            cols, slots = pattern_columns(a, b, Pattern(name, squares))
            columns.append(cols + first)
            first += slots
        return np.concatenate(columns, axis=1), first
    richer, size = with_candidates(own, opp)
    w = fit_stage(richer, y, RIDGE, size=size)
    report(f"+ four 10-square patterns ({size - patterns.packed_size():,} weights)",
           lambda a, b: predict(w, with_candidates(a, b)[0]), predict(w, richer))

    regions = with_regions(own, opp)
    size = patterns.packed_size() + REGION_KINDS * (REGION_CAP + 1)
    w = fit_stage(regions, y, RIDGE, size=size)
    report("+ region parity (40 weights)", lambda a, b: predict(w, with_regions(a, b)),
           predict(w, regions))

    base, x = head_inputs(own, opp, shipped)
    first_errors.clear()                     # the heads are compared with the stage they sit on
    report("shipped 13-16 stage", lambda a, b: head_inputs(a, b, shipped)[0], base)
    design = np.c_[x, np.ones(len(x))]
    coef = np.linalg.lstsq(design, y, rcond=None)[0]

    def linear(a, b):
        hx = head_inputs(a, b, shipped)[1]
        return np.c_[hx, np.ones(len(hx))] @ coef
    report("its values, linear head", linear, design @ coef)
    net = fit_network(x, y - base)

    def network(a, b):
        hb, hx = head_inputs(a, b, shipped)
        return hb + net(hx)
    report("its values + network (64 units)", network, base + net(x))


if __name__ == "__main__":
    main()
