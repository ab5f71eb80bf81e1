"""How far the pattern evaluation can go: its error where the labels are exact, as data,
features and stages grow, and the logistic scale that turns its values into win rates.

    python3 research/evaluation/capacity.py --workdir /tmp/capacity             # ~45 min, 2 cores
    python3 research/evaluation/capacity.py --workdir /tmp/cap --games 8000     # ~6 min

1. Data: PUCT self-play guided by the shipped weights, as the training's next round would
   play it (seed 777: no training run or held-out set uses it), the positions with 11-16
   empties and off-path ones (one random move away), the held-out sets' positions dropped,
   each scored by the exact solver.  Cached in ``--workdir``; a second run only fits.
2. Fits of the 13-16-empties stage with the training's own fitter (``fit_stage``, no
   neighbour prior), judged on ``heldout-puct.txt`` (4,000 positions of the same empties,
   exact scores, other games):

   - the learning curve: an eighth, a quarter, a half and all of the positions, ridge 10
     and 30 (train and held-out error: a shrinking gap is data, a floor is the features);
   - candidate features beside the shipped ones: four 10-square patterns (NTest's corner
     triangle, Edax's angle + X, edge block and corner + block), one by one and together,
     and each side's stable discs;
   - finer stages: one weight set per 2 empties and per empties count, each pulled toward
     the 4-wide fit by the ridge;
   - the 11-12-empties positions added to the 13-16 stage's fit, at full and half weight.
3. The logistic scale (discs per unit; the search's ``eval_scale``) at which the shipped
   evaluation's value best predicts the exact outcome (win, draw, loss), by empties: the
   log-loss minimum, next to the log-loss at the search's default and at 8 (its value
   before this measurement); ``--scale-only`` prints just this table.
"""
import argparse
import time
from pathlib import Path

import numpy as np
from _evaldata import (
    CANDIDATES,
    DATA,
    heldout_arrays,
    heldout_positions,
    pattern_columns,
    puct_selfplay,
)

from cythello import Board
from cythello.eval import load_weights, patterns
from cythello.eval.patterns import Pattern
from cythello.search.internals import stable_squares
from cythello.search.uct import SearchSettings
from cythello.training.data import empties_of, off_path, unique_positions
from cythello.training.fit import fit_stage, packed_features, predict
from cythello.training.labels import exact_scores

SEED = 777
STAGE = (13, 16)
EXTRA = (11, 12)
STABLE_SLOTS = 40                      # 0..39 stable discs a side (more count as 39)
OLD_SCALE = 8.0                        # eval_scale before it was measured here


def make_data(workdir, games):
    """``(own, opp, empties, exact scores)`` of the experiment's positions (cached)."""
    cache = workdir / "labelled.npz"
    if cache.exists():
        with np.load(cache) as d:
            return d["own"], d["opp"], d["empties"], d["labels"]
    started = time.monotonic()
    own, opp = puct_selfplay(games, workdir / "selfplay", SEED)
    e = empties_of(own, opp)
    near = (e >= 10) & (e <= 19)          # around the positions kept, with their off-path ones
    own, opp = own[near], opp[near]
    extra_own, extra_opp = off_path(own, opp, 0.5, SEED)
    own, opp = unique_positions(np.concatenate([own, extra_own]), np.concatenate([opp, extra_opp]))
    e = empties_of(own, opp)
    held = heldout_positions()
    keep = (e >= EXTRA[0]) & (e <= STAGE[1]) & np.array(
        [(int(a), int(b)) not in held for a, b in zip(own.tolist(), opp.tolist())], dtype=bool)
    own, opp, e = own[keep], opp[keep], e[keep]
    print(f"self-play: {games:,} games, {len(own):,} positions of {EXTRA[0]}-{STAGE[1]} empties "
          f"({time.monotonic() - started:.0f} s)", flush=True)
    started = time.monotonic()
    labels = exact_scores(own, opp, workers=2)
    print(f"exact scores: {time.monotonic() - started:.0f} s", flush=True)
    np.savez(cache, own=own, opp=opp, empties=e, labels=labels)
    return own, opp, e, labels


def stable_columns(own, opp):
    """Each side's number of stable discs as one slot a side (capped; slots from 0), and
    the number of slots."""
    counts = np.zeros((len(own), 2), dtype=np.int32)
    for i, (p, o) in enumerate(zip(own.tolist(), opp.tolist())):
        board = Board.from_bitboards(p, o, 0)
        counts[i] = (bin(stable_squares(board, 0)).count("1"), bin(stable_squares(board, 1)).count("1"))
    counts = np.minimum(counts, STABLE_SLOTS - 1)
    return counts + np.array([0, STABLE_SLOTS], dtype=np.int32), 2 * STABLE_SLOTS


def errors(w, feats, y, held_feats, held_y):
    return (float(np.abs(predict(w, feats) - y).mean()),
            float(np.abs(predict(w, held_feats) - held_y).mean()))


def row(label, train, held, seconds):
    print(f"  {label:<46} {train:>6.2f} {held:>9.3f} {seconds:>6.0f}", flush=True)


def best_scale(values, scores):
    """The logistic scale (discs) of least log-loss predicting the exact outcome."""
    best = (0.0, np.inf)
    for scale in np.arange(1.0, 24.01, 0.25):
        loss = log_loss(values, scores, float(scale))
        if loss < best[1]:
            best = (float(scale), loss)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", type=Path, required=True, help="data cache folder")
    ap.add_argument("--games", type=int, default=80000, help="self-play games (default 80,000)")
    ap.add_argument("--scale-only", action="store_true", help="only the logistic scale table")
    args = ap.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    own, opp, e, labels = make_data(args.workdir, args.games)
    if args.scale_only:
        scale_table(load_weights(None), own, opp, e, labels)
        return
    held_own, held_opp, held_y = heldout_arrays(DATA / "heldout-puct.txt")
    held_e = empties_of(held_own, held_opp)
    size = patterns.packed_size()

    stage = np.flatnonzero((e >= STAGE[0]) & (e <= STAGE[1]))
    np.random.default_rng(SEED).shuffle(stage)
    feats, y = packed_features(own[stage], opp[stage]), labels[stage]
    held_feats = packed_features(held_own, held_opp)
    shipped = load_weights(None)
    print(f"\n{len(stage):,} positions of {STAGE[0]}-{STAGE[1]} empties, exact scores; held-out: "
          f"heldout-puct.txt ({len(held_y):,}), where the shipped weights err by "
          f"{np.abs(shipped.evaluate_many(held_own, held_opp) - held_y).mean():.3f} discs")
    print(f"  {'fit':<46} {'train':>6} {'held-out':>9} {'s':>6}")

    print("learning curve (the shipped features)")
    for part in (8, 4, 2, 1):
        n = len(stage) // part
        for ridge in (10.0, 30.0):
            started = time.monotonic()
            w = fit_stage(feats[:n], y[:n], ridge)
            row(f"{n:,} positions, ridge {ridge:g}", *errors(w, feats[:n], y[:n], held_feats, held_y),
                time.monotonic() - started)
            if n == len(stage) and ridge == 10.0:
                base = w                      # all positions: what finer stages pull toward

    print("candidate features (all positions, ridge 10)")
    candidates = []
    for name, squares in CANDIDATES.items():
        cols, n_slots = pattern_columns(own[stage], opp[stage], Pattern(name, squares))
        held_cols, _ = pattern_columns(held_own, held_opp, Pattern(name, squares))
        candidates.append((name, cols, held_cols, n_slots))
    cols, n_slots = stable_columns(own[stage], opp[stage])
    held_cols, _ = stable_columns(held_own, held_opp)
    candidates.append(("stable discs (each side)", cols, held_cols, n_slots))
    trials = [[c] for c in candidates] + [candidates[:4]]
    for trial in trials:
        extra_feats, extra_held, first = [feats], [held_feats], size
        for _, cols, held_cols, n_slots in trial:
            extra_feats.append(cols + first)
            extra_held.append(held_cols + first)
            first += n_slots
        f_all, h_all = np.concatenate(extra_feats, axis=1), np.concatenate(extra_held, axis=1)
        started = time.monotonic()
        w = fit_stage(f_all, y, 10.0, size=first)
        name = " + ".join(c[0] for c in trial) if len(trial) < 4 else "the four patterns"
        row(f"+ {name} (+{first - size:,} weights)", *errors(w, f_all, y, h_all, held_y),
            time.monotonic() - started)

    print("finer stages (each pulled toward the 4-wide fit)")
    stage_e = e[stage]
    for width in (2, 1):
        for ridge in (30.0, 100.0, 300.0):
            started = time.monotonic()
            pred_train, pred_held = np.zeros(len(y)), np.zeros(len(held_y))
            for lo in range(STAGE[0], STAGE[1] + 1, width):
                m = (stage_e >= lo) & (stage_e < lo + width)
                hm = (held_e >= lo) & (held_e < lo + width)
                w = fit_stage(feats[m], y[m], ridge, prior=base)
                pred_train[m], pred_held[hm] = predict(w, feats[m]), predict(w, held_feats[hm])
            row(f"one set per {width} empties, ridge {ridge:g}", float(np.abs(pred_train - y).mean()),
                float(np.abs(pred_held - held_y).mean()), time.monotonic() - started)

    print(f"more positions: {EXTRA[0]}-{EXTRA[1]} empties added to the stage's fit")
    near = np.flatnonzero((e >= EXTRA[0]) & (e <= EXTRA[1]))
    near_feats = packed_features(own[near], opp[near])
    for weight in (1.0, 0.5):
        started = time.monotonic()
        w = fit_stage(np.concatenate([feats, near_feats]), np.concatenate([y, labels[near]]), 10.0,
                      sample_weight=np.concatenate([np.ones(len(y)), np.full(len(near), weight)]))
        row(f"+{len(near):,} positions at weight {weight:g}", *errors(w, feats, y, held_feats, held_y),
            time.monotonic() - started)

    scale_table(shipped, own, opp, e, labels)


def log_loss(values, scores, scale):
    """Mean log-loss of win rates ``1 / (1 + exp(-value / scale))`` against the exact
    outcomes (a draw counts half)."""
    target = np.where(scores > 0, 1.0, np.where(scores < 0, 0.0, 0.5))
    p = np.clip(1.0 / (1.0 + np.exp(-values / scale)), 1e-9, 1 - 1e-9)
    return float(-(target * np.log(p) + (1 - target) * np.log(1 - p)).mean())


def scale_table(shipped, own, opp, e, labels):
    default = SearchSettings().eval_scale
    print(f"\nlogistic scale of the shipped evaluation against the exact outcome, and the "
          f"log-loss at the search's eval_scale ({default:g}) and at 0.3.0's first ({OLD_SCALE:g})")
    print(f"  {'empties':>7} {'positions':>10} {'best scale':>11} {'log-loss':>9} "
          f"{f'at {default:g}':>8} {f'at {OLD_SCALE:g}':>8}")
    deep_own, deep_opp, deep_y = heldout_arrays(DATA / "heldout-puct-deep.txt")
    deep_e = empties_of(deep_own, deep_opp)
    groups = [(f"{k}", shipped.evaluate_many(own[e == k], opp[e == k]), labels[e == k])
              for k in range(EXTRA[0], STAGE[1] + 1)]
    for lo, hi in ((17, 20), (21, 24)):
        m = (deep_e >= lo) & (deep_e <= hi)
        groups.append((f"{lo}-{hi}*", shipped.evaluate_many(deep_own[m], deep_opp[m]), deep_y[m]))
    for name, values, scores in groups:
        scale, loss = best_scale(values, scores)
        print(f"  {name:>7} {len(scores):>10,} {scale:>11.2f} {loss:>9.4f} "
              f"{log_loss(values, scores, default):>8.4f} {log_loss(values, scores, OLD_SCALE):>8.4f}")
    print("  (* the positions of heldout-puct-deep.txt)")

if __name__ == "__main__":
    main()
