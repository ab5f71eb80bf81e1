"""``cythello nboard`` and ``cythello gtp``: serve a GUI."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import add_search_choice, add_search_options, engine_player


def cmd_nboard(args: argparse.Namespace) -> int:
    """``cythello nboard``: serve the NBoard protocol."""
    from ..protocols.nboard import NBoardEngine
    own_limits = args.iterations is not None or args.time_limit is not None
    NBoardEngine(sys.stdout, engine_player(args), depth_sets_budget=not own_limits,
                 ponder=args.ponder).run(sys.stdin)
    return 0


def cmd_gtp(args: argparse.Namespace) -> int:
    """``cythello gtp``: serve GTP."""
    from ..protocols.gtp import GtpEngine
    own_limits = args.iterations is not None or args.time_limit is not None
    GtpEngine(engine_player(args), ponder=args.ponder,
              limits=(args.iterations, args.time_limit) if own_limits else None
              ).run(sys.stdin, sys.stdout)
    return 0


def add_parsers(sub: Any) -> None:
    for name, func, what in (("nboard", cmd_nboard, "an NBoard protocol"),
                             ("gtp", cmd_gtp, "a GTP (Go Text Protocol)")):
        p = sub.add_parser(name, help=f"run as {what} engine",
                           description=f"Serve {what.split(' ', 1)[1]} on stdin/stdout "
                                       "for a GUI.  --iterations/--time, when given, win "
                                       "over the GUI's level and clock.")
        add_search_options(p, default_preset="expert")
        add_search_choice(p)
        p.add_argument("--ponder", action="store_true",
                       help="think on the opponent's time (the next search starts from "
                            "what it found)")
        p.set_defaults(func=func)
