"""The ``cythello`` command line: one module per command group."""
from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional

from .._version import __version__
from ..protocols.engine import EngineError
from . import analyse, bench, book, engines, games, match, play, selfplay, solve
from .common import protect_board_strings

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="cythello",
        description="A strong, fast Othello engine in Cython: Monte Carlo Tree Search, PUCT "
                    "and alpha-beta searches on a learned evaluation, and an exact endgame "
                    "solver.  'cythello COMMAND --help' describes each command.")
    parser.add_argument("--version", action="version", version=f"cythello {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    analyse.add_parser(sub)
    play.add_parser(sub)
    match.add_parser(sub)
    match.add_tournament_parser(sub)
    engines.add_parsers(sub)
    bench.add_parser(sub)
    solve.add_parser(sub)
    selfplay.add_parser(sub)
    book.add_parser(sub)
    games.add_parser(sub)
    return parser


def _silence_stdout() -> None:
    """After the reader of our output went away: nothing more can reach it, and Python's
    final flush must not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of the ``cythello`` command; returns the exit status.  A user error
    gives one line on stderr and status 2, an external engine's failure one line and
    status 1, a closed output pipe ends quietly."""
    parser = build_parser()
    args = parser.parse_args(protect_board_strings(sys.argv[1:] if argv is None else argv))
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    where = f"cythello {args.command}"
    try:
        return int(args.func(args))
    except BrokenPipeError:
        _silence_stdout()
        return 141                       # as a shell reports a process ended by SIGPIPE
    except OSError as exc:               # a missing or unreadable file, a full disk
        name = f"{exc.filename}: " if exc.filename else ""
        print(f"{where}: error: {name}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as exc:   # every cythello input error is one of these
        print(f"{where}: error: {exc}", file=sys.stderr)
        return 2
    except EngineError as exc:           # an external engine that failed or fell silent
        print(f"{where}: error: {exc}", file=sys.stderr)
        return 1
    except MemoryError:                  # under a memory limit (a container, ulimit -v)
        print(f"{where}: error: out of memory (the machine, or a limit set on this "
              "process, allows less than the work needs)", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:     # Ctrl-C: searches and workers are stopped by now
        said = f": {exc}" if str(exc) else ""
        print(f"{where}: interrupted{said}", file=sys.stderr)
        return 130
