"""What fast self-play kept as games is worth to the evaluation, judged on expert games.

    python -m cythello.selfplay.alphabeta --games 20000 --out SP --workers 2   # the data
    python3 research/evaluation/selfplay_games.py --selfplay SP --wthor ../shared/data/wthor

Fits the middle-game stages (5-11: 21-48 empties) of the shipped weights, pulled toward
them (ridge 10), to the labelled positions of

- the self-play games alone (each position labelled by its game's final score, perfect
  from 20 empties: Egaroucid's labels),
- the WTHOR games before 2019 (the records' perfect-play scores from 24 empties),
- both together,
- with ``--search-labels``, the self-play positions labelled instead by depth-4 searches
  into the stages fitted before (Buro's bootstrapping, as the shipped weights were made),

and prints each weights file's static error on the WTHOR games of 2019-2023 (never
trained on): exact at 24 empties, and against the records' labels at 28, 32 and 36 (the
game as played to 24 empties, then perfect: noisy, but the same noise for every row).
``--out DIR`` keeps the fitted weights files for matches.
"""
import argparse
import time
from pathlib import Path

import numpy as np

from cythello.eval import patterns
from cythello.eval.weights import DEFAULT_PATH, read_weights, save_weights
from cythello.games import GameDatabase
from cythello.training.fit import packed_features, predict
from cythello.training.games import GamePositions, fit_from_games, game_positions, mean_error

STAGES = range(5, 12)
EMPTIES = range(21, 49)
JUDGED = (24, 28, 32, 36)


def _join(a: GamePositions, b: GamePositions) -> GamePositions:
    return GamePositions(*(np.concatenate([getattr(a, f), getattr(b, f)])
                           for f in ("own", "opp", "label", "empties", "row", "year", "exact")))


def _errors(packed: np.ndarray, held: GamePositions) -> str:
    cells = []
    for e in JUDGED:
        h = held.where(held.empties == e)
        stage = (e - 1) // patterns.STAGE_WIDTH
        w = packed[stage].astype(np.float64) / patterns.SCALE
        cells.append(f"{mean_error(predict(w, packed_features(h.own, h.opp)), h.label):6.2f}")
    return " ".join(cells)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--selfplay", required=True, help="folder of self-play games files")
    ap.add_argument("--wthor", required=True, help="WTHOR folder")
    ap.add_argument("--ridge", type=float, default=10.0)
    ap.add_argument("--out", type=Path, help="keep the fitted weights files here")
    ap.add_argument("--search-labels", action="store_true", help="also: the self-play "
                    "positions labelled by depth-4 searches into the stages fitted before "
                    "(Buro's bootstrapping) instead of the games' final scores")
    ap.add_argument("--skip", type=int, default=0, help="leave out the first N fits")
    ap.add_argument("--workers", type=int, default=2, help="labelling threads")
    args = ap.parse_args()
    started = time.monotonic()
    base, header = read_weights(DEFAULT_PATH)
    wthor = GameDatabase.open(args.wthor, index=None)
    train_w = game_positions(wthor.filter(year=(1900, 2018)), EMPTIES)
    held = game_positions(wthor.filter(year=(2019, 2100)), JUDGED)
    assert held.where(held.empties == 24).exact.all()
    sp_db = GameDatabase.open(args.selfplay, index=None)
    train_s = game_positions(sp_db, EMPTIES)
    print(f"self-play: {len(sp_db):,} games, {len(train_s):,} positions at 21-48 empties; "
          f"WTHOR before 2019: {len(train_w):,}; held out (2019-2023): "
          + ", ".join(f"{e}: {int((held.empties == e).sum()):,}" for e in JUDGED))
    print(f"{'weights':36} " + " ".join(f"{e:>6}" for e in JUDGED)
          + "   (mean absolute error, discs; 24: exact)")
    print(f"{'shipped':36} {_errors(base, held)}")
    rows = [("self-play games", train_s, 0.0), ("WTHOR before 2019", train_w, 0.0),
            ("both", _join(train_s, train_w), 0.0)]
    if args.search_labels:
        rows.append(("self-play games, depth-4 search labels", train_s, 1.0))
    for name, positions, search in rows[args.skip:]:
        packed, _ = fit_from_games(positions, base, STAGES, ridge=args.ridge,
                                   held_out_from=1 << 30, search=search, depth=4,
                                   workers=args.workers)
        print(f"{name:36} {_errors(packed, held)}", flush=True)
        if args.out is not None:
            args.out.mkdir(parents=True, exist_ok=True)
            path = args.out / (name.replace(",", "").replace(" ", "-").lower() + ".weights")
            save_weights(path, packed, {
                "base": dict(header.get("provenance", {})),
                "fitted": f"research/evaluation/selfplay_games.py, {name}, ridge {args.ridge}, "
                          f"{len(positions):,} positions"})
    print(f"{time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
