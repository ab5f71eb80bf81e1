"""``python -m cythello.training``: run the evaluation-training pipeline."""
import argparse
import sys
from pathlib import Path

from .._checks import check_int, check_number, parse_range_text
from .._files import check_writable
from ..errors import SettingsError
from ..eval import patterns
from .pipeline import PRESETS, preset, run


def calibrate_main(argv: "list[str]") -> int:
    """``python -m cythello.training calibrate IN --selfplay DIR --out OUT``: the pipeline's
    last step on a weights file of its own."""
    from ..eval.weights import read_weights, save_weights
    from .calibrate import calibrate, sample_boards
    ap = argparse.ArgumentParser(prog="python -m cythello.training calibrate",
                                 description="Calibrate a weights file's bootstrapped stages "
                                             "on the positions of a self-play run.")
    ap.add_argument("weights", type=Path, help="the weights file to calibrate")
    ap.add_argument("--selfplay", required=True, type=Path,
                    help="a self-play run folder (the training's last round)")
    ap.add_argument("--out", required=True, type=Path, help="the weights file to write")
    ap.add_argument("--positions", type=int, default=20000, help="sample size")
    ap.add_argument("--seed", type=int, default=1, help="sample seed (the run's seed)")
    ap.add_argument("--exact-empties", type=int, default=16,
                    help="stages up to this many empties were fitted to exact scores")
    args = ap.parse_args(argv)
    try:
        check_int("--positions", args.positions, 1, 10 ** 9)
        check_int("--seed", args.seed, 0, 2 ** 40)
        check_int("--exact-empties", args.exact_empties, 0, 30)
        check_writable(args.out, "evaluation weights", SettingsError)
        packed, header = read_weights(args.weights)
        boards = sample_boards(args.selfplay, args.positions, args.seed)
        packed, offsets = calibrate(packed, boards, args.exact_empties)
        provenance = dict(header.get("provenance", {}))
        provenance["config"] = dict(provenance.get("config", {}), calibration=len(boards))
        save_weights(args.out, packed, provenance)
    except (ValueError, TypeError, OSError, MemoryError) as exc:
        return _error("python -m cythello.training calibrate", exc)
    print(f"wrote {args.out}: offsets up to {abs(offsets).max():.1f} discs "
          f"from {len(boards):,} positions")
    return 0


def games_main(argv: "list[str]") -> int:
    """``python -m cythello.training games --db DIR --out OUT``: refit the middle-game
    stages to the positions of a games database (cythello.training.games)."""
    from ..eval.weights import DEFAULT_PATH, read_weights, save_weights
    from ..games import GameDatabase
    from .games import fit_from_games, game_positions, stage_range
    ap = argparse.ArgumentParser(prog="python -m cythello.training games",
                                 description="Refit evaluation stages to the positions of a "
                                             "games database (WTHOR: labelled by each game's "
                                             "perfect-play score from 24 empties), holding "
                                             "out the games of the last years.")
    ap.add_argument("--db", required=True, action="append", metavar="SOURCE",
                    help="games: WTHOR files or folders, GGF or transcript files (repeatable)")
    ap.add_argument("--out", required=True, type=Path, help="the weights file to write")
    ap.add_argument("--base", default=str(DEFAULT_PATH),
                    help="the weights to start from and pull toward (default: the shipped)")
    ap.add_argument("--stages", default="5-11", metavar="LO-HI",
                    help="stages to refit (default %(default)s: 21-48 empties)")
    ap.add_argument("--ridge", type=float, default=10.0,
                    help="pull toward the base weights (default %(default)s)")
    ap.add_argument("--huber", type=float, default=0.0, metavar="DISCS",
                    help="Huber loss threshold (default 0: squared error)")
    ap.add_argument("--held-out-from", type=int, default=2019, metavar="YEAR",
                    help="games from this year on are held out (default %(default)s)")
    ap.add_argument("--search", type=float, default=1.0, metavar="SHARE",
                    help="label positions before the records' exact depth by this share of "
                         "a --depth search into the stages refitted before, the rest by the "
                         "record's score (default %(default)s: the search's, which won its "
                         "matches; 0: the records' scores)")
    ap.add_argument("--depth", type=int, default=4, help="the labels' search depth "
                                                         "(default %(default)s)")
    ap.add_argument("--workers", type=int, default=1, help="labelling threads (default 1)")
    args = ap.parse_args(argv)
    try:
        first, last = parse_range_text("--stages", args.stages)
        check_int("--stages", first, 0, patterns.N_STAGES - 1)
        check_int("--stages", last, first, patterns.N_STAGES - 1)
        check_number("--ridge", args.ridge, 0.0, 1e9)
        check_number("--huber", args.huber, 0.0, 128.0)
        check_int("--held-out-from", args.held_out_from, 0, 9999)
        check_number("--search", args.search, 0.0, 1.0)
        check_int("--depth", args.depth, 1, 12)
        check_int("--workers", args.workers, 1, 256)
        check_writable(args.out, "evaluation weights", SettingsError)
        base, header = read_weights(args.base)
        db = GameDatabase.open(*args.db, index=None)
        for line in db.problems:
            print(line, file=sys.stderr)
        stages = range(first, last + 1)
        counts = [e for s in stages for e in stage_range(s, patterns.STAGE_WIDTH)]
        positions = game_positions(db, counts)
        print(f"{len(db):,} games, {len(positions):,} positions "
              f"({int(positions.exact.sum()):,} exact)", flush=True)
        packed, reports = fit_from_games(positions, base, stages, ridge=args.ridge,
                                         huber=args.huber, held_out_from=args.held_out_from,
                                         search=args.search, depth=args.depth,
                                         workers=args.workers,
                                         log=lambda m: print(m, flush=True))
        provenance = {"base": dict(header.get("provenance", {})),
                      "games": {"sources": [str(s) for s in args.db], "count": len(db),
                                "positions": len(positions), "stages": [first, last],
                                "ridge": args.ridge, "huber": args.huber,
                                "held_out_from": args.held_out_from,
                                "search": args.search, "depth": args.depth,
                                "digest": db.table.digest()}}
        save_weights(args.out, packed, provenance)
    except (ValueError, TypeError, OSError, MemoryError) as exc:
        return _error("python -m cythello.training games", exc)
    print(f"wrote {args.out}")
    return 0


def _error(where: str, exc: BaseException) -> int:
    """One line for a bad argument, file or setting, and status 2 (no traceback)."""
    if isinstance(exc, MemoryError):
        print(f"{where}: out of memory (the machine, or a limit set on this process, "
              "allows less than the work needs)", file=sys.stderr)
    elif isinstance(exc, OSError) and exc.strerror:
        name = f"{exc.filename}: " if exc.filename else ""
        print(f"{where}: {name}{exc.strerror}", file=sys.stderr)
    else:
        print(f"{where}: {exc}", file=sys.stderr)
    return 2


def main(argv: "list[str] | None" = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["calibrate"]:
        return calibrate_main(argv[1:])
    if argv[:1] == ["games"]:
        return games_main(argv[1:])
    ap = argparse.ArgumentParser(prog="python -m cythello.training",
                                 description="Train cythello's pattern evaluation from "
                                             "self-play (see cythello.training.pipeline).")
    ap.add_argument("--preset", choices=list(PRESETS), default="full",
                    help="run size (default: %(default)s, what cythello ships)")
    ap.add_argument("--workdir", required=True, type=Path,
                    help="folder for self-play shards, labels and the report (resumable)")
    ap.add_argument("--out", required=True, type=Path, help="the weights file to write")
    ap.add_argument("--workers", type=int, default=1, help="processes/threads (default 1)")
    ap.add_argument("--seed", type=int, help="seed of the run (default: the preset's)")
    ap.add_argument("--games", type=int, help="self-play games per round")
    ap.add_argument("--rounds", type=int, help="self-play rounds")
    ap.add_argument("--start-weights", help="weights file guiding the first round's PUCT "
                                            "self-play (the full preset's)")
    ap.add_argument("--huber", type=float, metavar="DISCS",
                    help="fit under a Huber loss with this threshold (0: squared error)")
    args = ap.parse_args(argv)
    overrides = {k: v for k, v in (("seed", args.seed), ("games", args.games),
                                   ("rounds", args.rounds), ("huber", args.huber),
                                   ("start_weights", args.start_weights)) if v is not None}
    try:
        run(preset(args.preset, **overrides), args.workdir, args.out, workers=args.workers)
    except (ValueError, TypeError, OSError, MemoryError) as exc:   # SettingsError, ...
        return _error("python -m cythello.training", exc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
