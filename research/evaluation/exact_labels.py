"""Would exact labels beyond 16 empties make a better evaluation than bootstrapped ones?
Training labels the 13-16-empties stage by the exact solver and every earlier stage by a
4-ply search into the stages already fitted (Buro's bootstrapping), because exact scores
of 17-20 empties cost 20-200 ms a position here.  This fits the 17-20-empties stage as
training does (ridge 30 toward the 13-16 stage's weights, the shipped ones) to labels of
new PUCT self-play positions (seed 780, with off-path ones, held-out positions dropped):

- depth-4 search labels on all of them (what training does);
- depth-8 search labels on all of them;
- on a sample of them, the same depth-4 and depth-8 labels, and exact scores;
- exact scores on the sample and depth-4 labels on the rest;

and judges each, next to the shipped weights' stage, on exact scores of other self-play
games (seed 781), on ``heldout-strong.txt`` and on ``heldout-puct-deep.txt`` (17-20).
It also prints how far each kind of label is from the exact score.

    python3 research/evaluation/exact_labels.py --workdir /tmp/exl      # ~20 minutes, 2 cores

Labels are cached in ``--workdir``; a second run only fits.
"""
import argparse
from pathlib import Path

import numpy as np
from _evaldata import cached, held_out, judged, stage_positions

from cythello.eval import load_weights
from cythello.eval.patterns import SCALE, stage_of
from cythello.eval.weights import DEFAULT_PATH, read_weights
from cythello.training.fit import fit_stage, packed_features
from cythello.training.labels import exact_scores, search_scores

SEED, TEST_SEED = 780, 781          # no training run, held-out set or other benchmark uses them
STAGE = (17, 20)
RIDGE = 30.0                        # training's pull toward the previous stage


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--games", type=int, default=12000, help="training self-play games (12,000)")
    ap.add_argument("--exact", type=int, default=16000,
                    help="training positions scored exactly (16,000)")
    ap.add_argument("--test-games", type=int, default=300, help="test self-play games (300)")
    args = ap.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    weights = load_weights(None)
    packed, _ = read_weights(DEFAULT_PATH)
    prior = packed[stage_of(STAGE[0]) - 1].astype(float) / SCALE
    shipped = packed[stage_of(STAGE[0])].astype(float) / SCALE

    def train():
        own, opp, _ = stage_positions(args.games, args.workdir / "selfplay", SEED, STAGE)
        sample = np.random.default_rng(SEED).permutation(len(own))[:args.exact]
        return {"own": own, "opp": opp, "sample": np.sort(sample),
                "d4": search_scores(own, opp, 4, weights, workers=2)}
    t = cached(args.workdir / "train.npz", train)
    s = t["sample"]
    t.update(cached(args.workdir / "train-deep.npz", lambda: {
        "d8": search_scores(t["own"], t["opp"], 8, weights, workers=2)}))
    t.update(cached(args.workdir / "train-exact.npz", lambda: {
        "exact": exact_scores(t["own"][s], t["opp"][s], workers=2).astype(float)}))

    def test():
        own, opp, _ = stage_positions(args.test_games, args.workdir / "test-selfplay", TEST_SEED,
                                      STAGE)
        return {"own": own, "opp": opp, "exact": exact_scores(own, opp, workers=2).astype(float)}
    te = cached(args.workdir / "test.npz", test)

    exact = t["exact"]
    print(f"\n{len(t['own']):,} training positions of {STAGE[0]}-{STAGE[1]} empties "
          f"({args.games:,} games), {len(s):,} of them scored exactly; mean |exact score| "
          f"{np.abs(exact).mean():.1f}")
    static = weights.evaluate_many(t["own"][s], t["opp"][s])
    for name, lab in (("static evaluation", static), ("d4 labels", t["d4"][s]),
                      ("d8 labels", t["d8"][s])):
        print(f"  {name} against the exact score: MAE {np.abs(lab - exact).mean():.2f}, "
              f"mean error {np.mean(lab - exact):+.2f}")
    held = [(f"test games {STAGE[0]}-{STAGE[1]} ({len(te['exact'])})",
             packed_features(te["own"], te["opp"]), te["exact"])]
    held += held_out((("heldout-strong.txt",) + STAGE, ("heldout-puct-deep.txt",) + STAGE))

    feats = packed_features(t["own"], t["opp"])
    mixed = t["d4"].astype(float).copy()
    mixed[s] = exact
    fits = [("shipped weights' stage", None),
            (f"depth 4, all {len(feats):,}", (feats, t["d4"])),
            (f"depth 4, sample {len(s):,}", (feats[s], t["d4"][s])),
            (f"depth 8, all {len(feats):,}", (feats, t["d8"])),
            (f"depth 8, sample {len(s):,}", (feats[s], t["d8"][s])),
            (f"exact, sample {len(s):,}", (feats[s], exact)),
            ("exact sample + depth 4 rest", (feats, mixed))]
    print(f"\n{'fit (ridge 30 toward the 13-16 stage)':>38}"
          + "".join(f"  {name + ': MAE, mean':>34}" for name, _, _ in held))
    for name, data in fits:
        w = shipped if data is None else fit_stage(data[0], data[1], RIDGE, prior=prior)
        print(f"{name:>38}" + "".join(f"  {c:>34}" for c in judged(w, held)), flush=True)


if __name__ == "__main__":
    main()
