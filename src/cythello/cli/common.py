"""What the commands share: reading positions, search options, players from specs, and
terminal output."""
from __future__ import annotations

import argparse
import os
import sys
import threading
from typing import IO, TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from .._checks import shown
from .._cores import MAX_THREADS, THREADS_CAP
from .._files import check_writable, write_atomic
from ..core._board import Board
from ..errors import SettingsError
from ..records.position import board_from_text, looks_like_board_string
from ..search.engine import EnginePlayer
from ..search.presets import LEVEL_SEARCH, PRESETS, PUCT_EVALUATORS, PUCT_LEVELS
from ..search.settings import check_threads, parse_threads
from ..search.uct import MCTSPlayer

if TYPE_CHECKING:
    from ..search.puct import PUCTPlayer


def protect_board_strings(argv: List[str]) -> List[str]:
    """Board strings may start with '-', which argparse takes for an option: pass them as
    ``--board=STRING`` instead (what a user can also type)."""
    out: List[str] = []
    for i, arg in enumerate(argv):
        if arg == "--":
            return out + argv[i:]                 # everything after it is positional
        if arg.startswith("-") and looks_like_board_string(arg):
            if out and out[-1] == "--board":
                out[-1] = "--board=" + arg         # the value of a --board just before it
            else:
                out.append("--board=" + arg)
        else:
            out.append(arg)
    return out


def add_position(p: argparse.ArgumentParser, what: str = "the position") -> None:
    p.add_argument("position", nargs="?",
                   help=f"{what}: a board string (64 of X, O, -, then the side to move X "
                        "or O), an OBF line, or a transcript like f5d6c3 (default: the "
                        "start position)")
    p.add_argument("--board", metavar="STRING",
                   help="the position as a board string; use this (or --) when it starts "
                        "with '-'")


def position_from_args(args: argparse.Namespace, files: str = "") -> Board:
    """The position of the command line (``files``: what files the command reads instead,
    for the error a file name gets)."""
    if getattr(args, "board", None) and args.position:
        raise SettingsError("give the position once: as the argument or with --board")
    return board_from_text(getattr(args, "board", None) or args.position, files)


def add_search_options(p: argparse.ArgumentParser, default_preset: Optional[str] = "medium",
                       default_text: str = "%(default)s") -> None:
    """The preset and limit options shared by the commands that search."""
    p.add_argument("--preset", choices=list(PRESETS), default=default_preset,
                   help=f"difficulty preset (default: {default_text}); the options below "
                        "override its settings")
    p.add_argument("--iterations", "-n", type=int, help="iterations per move")
    p.add_argument("--time", "-t", type=float, dest="time_limit", help="seconds per move")
    p.add_argument("--exploration", "-c", type=float, help="UCB1 exploration constant")
    p.add_argument("--rollout", choices=["random", "heuristic"], help="playout policy")
    p.add_argument("--threads", metavar="N",
                   help="search threads (default: auto, the cores this process may run on, "
                        f"at most {THREADS_CAP}; 1: one thread, reproducible with --seed)")
    p.add_argument("--parallel", choices=["root", "tree"],
                   help="threads share one tree (tree, the default) or grow one each (root)")
    p.add_argument("--seed", type=int, help="seed for reproducible searches")
    p.add_argument("--max-nodes", type=int, help="node cap per tree")
    p.add_argument("--book", metavar="FILE", help="opening book: 'default' (the shipped "
                   "book), a book file, or 'none' (default: the preset's)")
    p.add_argument("--book-variety", type=float, metavar="DISCS",
                   help="play book moves within this many discs of the best (default: "
                        "the preset's, else 0)")


def threads_option(text: Optional[str]) -> int:
    """``--threads``: a count, or ``auto`` (0: the cores this process may run on, also
    when the option is not given); a SettingsError (one line) otherwise."""
    if text is None:
        return 0
    try:
        return check_threads("--threads", parse_threads(text))
    except ValueError:                     # a SettingsError too: one message for both
        raise SettingsError(f"--threads {shown(text)}: a number of threads from 1 to "
                            f"{MAX_THREADS}, or auto (0)") from None


def _threads(args: argparse.Namespace) -> int:
    """The threads a command's search runs on: ``--threads``, else all the cores this
    process may run on (0), as the classic engines' command lines and GUIs search."""
    return threads_option(getattr(args, "threads", None))


def player_from_args(args: argparse.Namespace) -> MCTSPlayer:
    """An MCTSPlayer from the preset, with any explicit option overriding it.  An explicit
    iteration or time limit replaces both limits of the preset."""
    overrides: Dict[str, Any] = {k: v for k, v in (
        ("iterations", args.iterations), ("time_limit", args.time_limit),
        ("exploration", args.exploration), ("rollout", args.rollout),
        ("threads", _threads(args)), ("seed", args.seed), ("max_nodes", args.max_nodes),
        ("parallel", args.parallel),
    ) if v is not None}
    overrides.update(_book_options(args))
    if args.preset is None:
        return MCTSPlayer(**overrides)
    settings: Dict[str, Any] = dict(PRESETS[args.preset])
    if "iterations" in overrides or "time_limit" in overrides:
        settings.pop("iterations", None)
        settings.pop("time_limit", None)
    settings.update(overrides)
    return MCTSPlayer(**settings)


def _book_options(args: argparse.Namespace) -> Dict[str, Any]:
    """The book settings the command line gives (``--book none``: no book), for any
    search's player; none when the command has no such options."""
    out: Dict[str, Any] = {}
    book, variety = getattr(args, "book", None), getattr(args, "book_variety", None)
    if book is not None:
        out["book"] = None if book.lower() == "none" else book
    if variety is not None:
        out["book_variety"] = variety
    return out


def _refuse(args: argparse.Namespace, options: Tuple[Tuple[str, str], ...],
            whose: str) -> None:
    """A SettingsError naming the given command-line options another search owns."""
    given = [flag for name, flag in options if getattr(args, name, None) is not None]
    if given:
        raise SettingsError(f"{', '.join(given)}: {whose}")


def _budget(args: argparse.Namespace, preset: Dict[str, Any], name: str) -> Dict[str, Any]:
    """The search's budget (``name``: its iterations' setting) and time: the command
    line's when it gives either, else the preset's."""
    if args.iterations is not None or args.time_limit is not None:
        return {name: args.iterations, "time_limit": args.time_limit}
    return {name: preset.get("iterations"), "time_limit": preset.get("time_limit")}


def add_search_choice(p: argparse.ArgumentParser) -> None:
    """``--search``: which search a command's engine player runs."""
    p.add_argument("--search", choices=("uct", "puct", "alphabeta"),
                   help="the search: UCT with evaluated leaves, PUCT guided by the same "
                        "evaluation (shallow-search values as priors and value), or the "
                        "classic alpha-beta with Multi-ProbCut (its --iterations are "
                        "nodes); with the preset's limits (default: the search that won "
                        "the preset's matches: PUCT for medium, hard and expert, UCT for "
                        "easy; without a preset, the expert's)")


def search_of(args: argparse.Namespace) -> str:
    """The search a command runs: ``--search``, else the preset's (the one that won its
    matches), else the expert's."""
    if getattr(args, "search", None) is not None:
        return str(args.search)
    return LEVEL_SEARCH.get(args.preset or "expert", "uct")


def engine_player(args: argparse.Namespace) -> EnginePlayer:
    """The player a command serves or plays with: the search of :func:`search_of` -- UCT,
    PUCT or alpha-beta -- at the preset's settings, the options overriding them."""
    search = search_of(args)
    if search == "puct":
        return puct_player_from_args(args)
    if search == "alphabeta":
        return alphabeta_player_from_args(args)
    return player_from_args(args)


_TREE_ONLY = (("exploration", "--exploration"), ("rollout", "--rollout"),
              ("parallel", "--parallel"), ("max_nodes", "--max-nodes"))


def alphabeta_player_from_args(args: argparse.Namespace) -> EnginePlayer:
    """An AlphaBetaPlayer (with its default Multi-ProbCut, as in Python) with the preset's
    limits (its iterations as nodes) and book unless the command line says otherwise; the
    tree searches' own options are refused by name."""
    from ..search.alphabeta import AlphaBetaPlayer
    _refuse(args, _TREE_ONLY, "options of the tree searches, not of alpha-beta "
            "(--search alphabeta)")
    preset: Dict[str, Any] = dict(PRESETS[args.preset]) if args.preset else {}
    return AlphaBetaPlayer(seed=args.seed, threads=_threads(args),
                           **_budget(args, preset, "nodes"), **_book_options(args))


# Options of the UCT search that PUCT does not have (--search puct refuses them).
_UCT_ONLY = (("exploration", "--exploration"), ("rollout", "--rollout"),
             ("parallel", "--parallel"))


def puct_player_from_args(args: argparse.Namespace) -> PUCTPlayer:
    """A PUCTPlayer guided by the shipped pattern evaluation (called in C), with the
    preset's limits and exact-solver threshold unless --iterations/--time/--max-nodes/
    --threads/--seed say otherwise; the UCT search's own options are refused by name."""
    from ..nn import PatternEvaluator
    from ..search.puct import PUCTPlayer
    whose = ("--search puct" if getattr(args, "search", None) else
             f"the {args.preset} preset" if args.preset else "the default")
    _refuse(args, _UCT_ONLY, f"the UCT search's options, not PUCT's (the search of {whose}; "
            "--search uct for UCT)")
    level = args.preset or "expert"  # no preset: the expert's settings ...
    preset: Dict[str, Any] = dict(PUCT_LEVELS.get(level, PRESETS[level]))
    if args.preset is None:          # ... with the command line's budget
        preset = {k: v for k, v in preset.items() if k not in ("iterations", "time_limit")}
    if level in PUCT_LEVELS:
        # A level PUCT plays: all of its settings (those of make_player(level)).
        settings: Dict[str, Any] = {k: v for k, v in preset.items()
                                    if k not in ("iterations", "time_limit")}
    else:                            # a UCT preset: its exact solver
        settings = {"endgame_empties": preset.get("endgame_empties", 0),
                    "endgame_by_time": preset.get("endgame_by_time", False)}
    settings.update(**_budget(args, preset, "iterations"), **_book_options(args))
    if args.seed is not None:
        settings["seed"] = args.seed
    if args.max_nodes is not None:
        settings["max_nodes"] = args.max_nodes
    settings["threads"] = _threads(args)
    # The level's evaluator settings, as make_player(level)'s.
    return PUCTPlayer(PatternEvaluator(**PUCT_EVALUATORS.get(level, {})), **settings)


# -- terminal output ----------------------------------------------------------------------------

def use_colour(stream: IO[str]) -> bool:
    """ANSI colours on a terminal, unless NO_COLOR is set (https://no-color.org)."""
    return hasattr(stream, "isatty") and stream.isatty() and "NO_COLOR" not in os.environ \
        and os.environ.get("TERM") != "dumb"


def say(text: str = "", stream: Optional[IO[str]] = None) -> None:
    print(text, file=stream or sys.stdout, flush=True)


def check_output(path: str, what: str) -> None:
    """Refuse now, before a long computation, an output file that cannot be written (a
    missing folder, a folder of that name, no permission); nothing is left behind, and a
    device or FIFO is not opened (it is written through later)."""
    check_writable(path, what, SettingsError)


def write_output(path: str, text: str, what: str) -> None:
    """Write an output file whole (atomically), or say in one line why it cannot be."""
    write_atomic(path, text.encode("utf-8"), what, SettingsError)


class StatusLine:
    """While a long step runs, a line on stderr that shows ``text()`` every ``interval``
    seconds and is cleared at the end, only on a terminal (off one, nothing).  Output of
    the command's own goes through :meth:`say`, which clears the line first so that the
    two never share a row.

        with StatusLine(lambda: f"{done} of {total}") as status:
            status.say("a result line")
    """

    def __init__(self, text: Callable[[], str], interval: float = 1.0,
                 stream: Optional[IO[str]] = None) -> None:
        self.text, self.interval = text, interval
        self.stream = stream or sys.stderr
        self.shown = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def __enter__(self) -> "StatusLine":
        if self.shown:
            self._thread = threading.Thread(target=self._run, name="cythello-status",
                                            daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        self._clear()

    def _run(self) -> None:
        while not self._done.wait(self.interval):
            line = self.text()
            with self._lock:
                self.stream.write("\r\033[K" + line)
                self.stream.flush()

    def _clear(self) -> None:
        if self.shown:
            with self._lock:
                self.stream.write("\r\033[K")
                self.stream.flush()

    def say(self, text: str = "") -> None:
        """A line of the command's output, with the status line out of its way (it comes
        back at its next update)."""
        with self._lock:
            if self.shown:
                self.stream.write("\r\033[K")
                self.stream.flush()
            say(text)


def progress_line(what: str) -> Optional[Callable[[Any], None]]:
    """On a terminal, a status line on stderr that follows a search (``what``: "searching",
    "cythello is thinking"), for ``on_progress``; None elsewhere (a script's output stays
    its own).  :func:`clear_progress` removes it."""
    if not sys.stderr.isatty():
        return None

    def show(snapshot: Any) -> None:
        discs = f", {snapshot.discs:+.1f} discs" if snapshot.discs is not None else ""
        done = (f"depth {snapshot.depth_text}" if snapshot.depth is not None
                else f"{snapshot.iterations:,} iterations")
        sys.stderr.write(f"\r\033[K{what} {snapshot.elapsed:4.1f} s: {done}, best "
                         f"{snapshot.best_move_name}{discs} ")
        sys.stderr.flush()
    return show


def clear_progress(progress: Optional[Callable[[Any], None]]) -> None:
    """The status line of :func:`progress_line` goes."""
    if progress is not None:
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()
