"""``python -m cythello.training``: run the evaluation-training pipeline."""
import argparse
import sys
from pathlib import Path

from .._checks import check_int
from .._files import check_writable
from ..errors import SettingsError
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
