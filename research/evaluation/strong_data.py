"""Would positions of strong games teach the evaluation what it gets wrong there?  The
shipped weights err by 5.5 discs at 14-16 empties on positions of the expert's own games
(``heldout-strong.txt``) against Egaroucid's 4.3 on its own strong games; training sees
only exploring PUCT self-play (temperature, noise, off-path positions).  This fits the
13-16-empties stage with the training's fitter (ridge 10, no neighbour prior) to exact
scores of

- PUCT self-play positions as training has them (off_path.py's, seed 778), alone;
- the same with positions of expert self-play added (seed 779: the expert preset at a
  fixed iteration budget after 8 random moves, exact play from 16 empties), at weight 1
  and 3;
- the same number of positions again, all from PUCT self-play (a control for the size);

and judges each on expert-game positions of other games of the same run (a third of its
games, held out), on ``heldout-strong.txt`` (14-16 empties) and ``heldout-puct.txt``.

    python3 research/evaluation/strong_data.py --strong-games 3000     # ~20 minutes, 2 cores
"""
import argparse
import tempfile
import time

import numpy as np
from _evaldata import STAGE, first_unheld, held_out, judged, labelled_positions

from cythello import selfplay
from cythello.search.presets import PRESETS
from cythello.training.data import empties_of, side_to_move
from cythello.training.fit import fit_stage, packed_features
from cythello.training.labels import exact_scores

SEED = 779                      # no training run, held-out set or other benchmark uses it
HELD_SHARE = 3                  # every third game of the expert's is held out


def strong_positions(games, iterations):
    """``(own, opp, game)`` of the 13-16-empties positions of ``games`` expert self-play
    games (``iterations`` a move, exact play from 16 empties, after 8 random moves),
    deduplicated, the held-out sets' positions dropped."""
    expert = {**{k: v for k, v in PRESETS["expert"].items() if k != "time_limit"},
              "iterations": iterations, "endgame_empties": 16, "endgame_by_time": False}
    with tempfile.TemporaryDirectory() as run:
        selfplay.generate(games, run, seed=SEED, workers=2, games_per_shard=50,
                          random_plies=8, progress=False, **expert)
        data = selfplay.load(run)
    own, opp = side_to_move(data)
    game = data["game"]
    e = empties_of(own, opp)
    keep = first_unheld(own, opp, np.flatnonzero((e >= STAGE[0]) & (e <= STAGE[1])).tolist())
    return own[keep], opp[keep], game[keep]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--puct-games", type=int, default=12000,
                    help="PUCT self-play games (default 12,000)")
    ap.add_argument("--strong-games", type=int, default=3000,
                    help="expert self-play games (default 3,000)")
    ap.add_argument("--iterations", type=int, default=20000,
                    help="the expert's iterations a move (default 20,000)")
    args = ap.parse_args()
    started = time.monotonic()
    own, opp, _, y = labelled_positions(args.puct_games)
    print(f"PUCT self-play: {len(y):,} positions, {time.monotonic() - started:.0f} s",
          flush=True)
    started = time.monotonic()
    s_own, s_opp, s_game = strong_positions(args.strong_games, args.iterations)
    s_y = exact_scores(s_own, s_opp, workers=2).astype(float)
    test = s_game % HELD_SHARE == 0
    print(f"expert self-play: {len(s_y):,} positions ({int(test.sum()):,} of them, from every "
          f"third game, held out), mean |score| {np.abs(s_y).mean():.1f} (PUCT's "
          f"{np.abs(y).mean():.1f}), {time.monotonic() - started:.0f} s", flush=True)
    # The base is a random part of the PUCT positions (off-path ones in their share); the
    # control adds as many PUCT positions as the expert's training ones (more of the same).
    n_strong = int((~test).sum())
    base_n = len(y) - n_strong
    order = np.random.default_rng(SEED).permutation(len(y))
    own, opp, y = own[order], opp[order], y[order]
    feats = packed_features(own, opp)
    s_feats = packed_features(s_own, s_opp)
    held = [(f"expert games, held out ({int(test.sum())})", s_feats[test], s_y[test])]
    held += held_out((("heldout-strong.txt", 14, 16), ("heldout-puct.txt", 13, 16)))
    fits = [
        (f"PUCT {base_n:,}", feats[:base_n], y[:base_n], None),
        (f"PUCT {len(y):,} (control)", feats, y, None),
        (f"PUCT {base_n:,} + expert {n_strong:,}",
         np.concatenate([feats[:base_n], s_feats[~test]]),
         np.concatenate([y[:base_n], s_y[~test]]), None),
        (f"PUCT {base_n:,} + expert {n_strong:,} x3",
         np.concatenate([feats[:base_n], s_feats[~test]]),
         np.concatenate([y[:base_n], s_y[~test]]),
         np.concatenate([np.ones(base_n), np.full(n_strong, 3.0)])),
        (f"expert {n_strong:,} alone", s_feats[~test], s_y[~test], None),
    ]
    print(f"{'fit (ridge 10)':>34}" + "".join(f"  {name + ': MAE, mean error':>44}"
                                             for name, _, _ in held))
    for label, f, t, sw in fits:
        w = fit_stage(f, t, 10.0, sample_weight=sw)
        print(f"{label:>34}" + "".join(f"  {c:>44}" for c in judged(w, held)), flush=True)


if __name__ == "__main__":
    main()
