"""``python -m cythello.training``: run the evaluation-training pipeline."""
import argparse
import sys
from pathlib import Path

from .pipeline import PRESETS, preset, run


def main(argv: "list[str] | None" = None) -> int:
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
    args = ap.parse_args(argv)
    overrides = {k: v for k, v in (("seed", args.seed), ("games", args.games),
                                   ("rounds", args.rounds)) if v is not None}
    run(preset(args.preset, **overrides), args.workdir, args.out, workers=args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
