"""``cythello match``: engine against engine, with progress, Elo, GGF and SVG output."""
from __future__ import annotations

import argparse
import os
import time
from typing import Any, List, Optional

from .._files import is_stream
from ..core._board import Board
from ..errors import SettingsError
from ..match import MatchResult, round_robin, run_match
from ..openings import OPENINGS_HELP, describe_openings, openings_for
from ..players import SPEC_HELP, make_player
from ..records.ggf import GgfGame, write_ggf
from ..stats import SPRT
from .common import StatusLine, check_output, say, write_output


def describe(result: MatchResult, first: str, second: str) -> str:
    """The score from the first player's side, said so, and how its pairs scored."""
    return (f"{first} against {second}, from {first}'s side: {result.summary()}\n"
            f"  {result.pairs_summary()}")


def _openings_name(spec: str) -> str:
    """``balanced openings``, ``random 6-ply openings``, ``the openings of FILE``."""
    if spec == "balanced" or spec == "random" or spec.startswith("random:"):
        return f"{describe_openings(spec)} openings"
    return f"the openings of {spec}"


def game_line(g: int, games: int, final: Board, first: str, second: str) -> str:
    """``game 2/10: expert (white) won 34-30 against medium``: the first player's colour,
    result and discs, its own first."""
    outcome = final.outcome()
    assert outcome is not None
    black = g % 2 == 0
    mine, theirs = ((outcome.black, outcome.white) if black
                    else (outcome.white, outcome.black))
    margin = outcome.score if black else -outcome.score
    verb = "won" if margin > 0 else "lost" if margin < 0 else "drew"
    return (f"game {g + 1}/{games}: {first} ({'black' if black else 'white'}) {verb} "
            f"{mine}-{theirs} against {second}")


def _time_left(started: float, done: int, total: int) -> str:
    """``, about 3 min left`` from the pace so far (nothing once all are done)."""
    if done >= total:
        return ""
    left = (time.monotonic() - started) / done * (total - done)
    return f", about {left / 60:.0f} min left" if left >= 90 else f", about {left:.0f} s left"


def cmd_match(args: argparse.Namespace) -> int:
    """``cythello match``: games with alternating colours, progress, Elo, GGF/SVG."""
    if args.games < 1:
        raise SettingsError(f"--games must be at least 1, not {args.games}")
    sprt = SPRT(args.sprt[0], args.sprt[1], args.alpha, args.beta) if args.sprt else None
    openings = openings_for(args.openings, (args.games + 1) // 2, args.seed)
    for path, what in ((args.ggf, "GGF file"), (args.svg, "SVG file")):
        if path:
            check_output(path, what)          # before the games, not after them
    backend = "ray" if args.ray is not None else "local"
    if (args.workers > 1 or backend == "ray") and any(
            spec.startswith(("gtp:", "nboard:")) for spec in (args.first, args.second)):
        raise SettingsError("external engines play serially: drop --workers/--ray")
    first = make_player(args.first, args.seed)
    try:
        second = make_player(args.second, None if args.seed is None else args.seed + 1)
    except Exception:
        getattr(first, "quit", lambda: None)()
        raise

    played = 0
    started = time.monotonic()
    workers = "on Ray" if backend == "ray" else (
        f"on {args.workers} worker processes" if args.workers > 1 else "one at a time")
    starts = ("from the start position" if openings is None else
              f"from {_openings_name(args.openings)}, each played with both colours")
    most = f"up to {args.games} games (until the SPRT decides)" if sprt else f"{args.games} games"
    say(f"{most} of {args.first} against {args.second} {starts}, {workers}; a line as "
        "each game ends")

    last = time.monotonic()            # when the last game ended (or the match began)
    # Each game goes to the outputs as it ends (as cutechess-cli and fastchess write), so
    # an interrupted match, a kill or a full disk keeps the games played.
    records = GameOutputs(args.ggf, args.svg_dir, args.first, args.second)

    def progress(g: int, final: Board, result: MatchResult) -> None:
        nonlocal played, last
        played, last = g + 1, time.monotonic()
        records.add(g, final, result.times[g])
        line = game_line(g, args.games, final, args.first, args.second)
        status.say(f"{line}  [{args.first}: {result.summary()}]"
                   f"{_time_left(started, played, args.games)}")
        if sprt is not None and g % 2 == 1:
            status.say(f"  {sprt.describe(result.pentanomial())}")

    def running() -> str:
        at_once = min(args.workers, args.games - played) if backend == "local" else 1
        games = (f"game {played + 1}" if at_once <= 1
                 else f"games {played + 1}-{played + at_once}")
        return (f"  playing {games} of {args.games}: {time.monotonic() - last:.0f} s since "
                f"the last result, {(time.monotonic() - started) / 60:.1f} min in all")

    status = StatusLine(running)
    previous = _terminate_as_interrupt()
    try:
        with status:
            result = run_match(first, second, args.games, openings=openings,
                               on_game=progress, workers=args.workers, backend=backend,
                               ray_address=args.ray or None, sprt=sprt)
    except KeyboardInterrupt:
        raise KeyboardInterrupt(f"after {played} of {args.games} games") from None
    finally:
        _restore(previous)
        for p in (first, second):
            getattr(p, "quit", lambda: None)()
    say(describe(result, args.first, args.second))
    records.finish()
    if args.ggf:
        say(f"wrote {records.count} games to {args.ggf}")
    if args.svg:
        write_output(args.svg, result.games[-1].to_svg(), "SVG file")
        say(f"wrote the last final position to {args.svg}")
    if args.svg_dir:
        say(f"wrote {records.count} final positions to {args.svg_dir}")
    return 0


class GameOutputs:
    """The match's games as they end: a GGF line appended to ``ggf`` (flushed to disk), a
    picture in ``svg_dir``.  A GGF output that is a device or a FIFO is written through
    once, at the end."""

    def __init__(self, ggf: Optional[str], svg_dir: Optional[str], first: str,
                 second: str) -> None:
        self.ggf, self.svg_dir, self.first, self.second = ggf, svg_dir, first, second
        self.count = 0
        self.held: List[GgfGame] = []          # for a stream output
        self.stream = ggf is not None and is_stream(ggf)
        if ggf and not self.stream:
            write_output(ggf, "", "GGF file")    # a fresh file, whole, before the first game
        if svg_dir:
            os.makedirs(svg_dir, exist_ok=True)

    def add(self, g: int, final: Board, times: List[float]) -> None:
        self.count += 1
        if self.svg_dir:
            write_output(os.path.join(self.svg_dir, f"game-{g + 1:03d}.svg"), final.to_svg(),
                         "SVG file")
        if self.ggf:
            black, white = (self.first, self.second) if g % 2 == 0 else (self.second, self.first)
            # The record starts after the opening the match imposed (its BO is the
            # opening position): an analysis then judges only the players' own moves.
            game = GgfGame.from_board(final, black=black, white=white,
                                      times=[round(t, 2) for t in times],
                                      skip=len(final.move_stack) - len(times))
            if self.stream:
                self.held.append(game)
            else:
                try:
                    with open(self.ggf, "a", encoding="utf-8") as fh:
                        fh.write(game.to_ggf() + "\n")
                        fh.flush()
                        os.fsync(fh.fileno())
                except OSError as exc:
                    raise SettingsError(f"cannot write GGF file {self.ggf}: "
                                        f"{exc.strerror or exc}") from None

    def finish(self) -> None:
        if self.ggf and self.stream:
            write_ggf(self.ggf, self.held)


def _terminate_as_interrupt() -> Any:
    """SIGTERM ends the match as Ctrl-C does (players and worker pools closed, the games
    played kept); returns the handler it replaced (None where there is none to set)."""
    import signal
    import threading
    if not hasattr(signal, "SIGTERM") or threading.current_thread() is not threading.main_thread():
        return None

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt("terminated")
    return signal.signal(signal.SIGTERM, handler)


def _restore(previous: Any) -> None:
    import signal
    if previous is not None:
        signal.signal(signal.SIGTERM, previous)


def add_parser(sub: Any) -> None:
    p = sub.add_parser("match", help="engine against engine",
                       description="Games between two players, each opening played twice "
                                   "with the colours swapped (balanced 8-move openings "
                                   "unless --openings says otherwise).  The score is the "
                                   "first player's: Elo and disc margin over the pairs of "
                                   "games, with 95% intervals; --sprt ends the match when "
                                   "a sequential test decides.")
    p.add_argument("first", help="the first player: " + SPEC_HELP)
    p.add_argument("second", help="the second player (same forms)")
    p.add_argument("--games", "-g", type=int, default=10,
                   help="number of games (default: %(default)s; colours alternate)")
    p.add_argument("--openings", default="balanced",
                   help="the start of each pair of games: " + OPENINGS_HELP)
    p.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                   help="stop as soon as a sequential probability ratio test decides "
                        "between Elo ELO0 and ELO1 for the first player (--games: the most "
                        "played)")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="the SPRT's chance of accepting ELO1 when ELO0 holds "
                        "(default: %(default)s)")
    p.add_argument("--beta", type=float, default=0.05,
                   help="the SPRT's chance of accepting ELO0 when ELO1 holds "
                        "(default: %(default)s)")
    p.add_argument("--workers", type=int, default=1,
                   help="games played at once in worker processes (default: 1)")
    p.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                   help="play the games as Ray tasks (a local Ray, or the cluster at ADDRESS)")
    p.add_argument("--ggf", help="write every game to this GGF file")
    p.add_argument("--svg", help="write a picture of the last final position")
    p.add_argument("--svg-dir", help="write a picture of every final position (game-NNN.svg)")
    p.add_argument("--seed", type=int, help="seed for cythello players (the second gets "
                                            "seed+1) and for the order of the openings")
    p.set_defaults(func=cmd_match)


def cmd_tournament(args: argparse.Namespace) -> int:
    """``cythello tournament``: a round robin with a crosstable and Elo ratings."""
    if len(args.players) < 2:
        raise SettingsError("a tournament needs at least two players")
    if any(spec.startswith(("gtp:", "nboard:")) for spec in args.players) and args.workers > 1:
        raise SettingsError("external engines play serially: drop --workers")
    # The same spec twice is two entrants ("random", "random #2"), not one.
    names = [spec if args.players[:k].count(spec) == 0
             else f"{spec} #{args.players[:k].count(spec) + 1}"
             for k, spec in enumerate(args.players)]
    players = {name: make_player(spec, None if args.seed is None else args.seed + k)
               for k, (name, spec) in enumerate(zip(names, args.players))}
    openings = openings_for(args.openings, (args.games + 1) // 2, args.seed)

    def progress(a: str, b: str, result: MatchResult) -> None:
        say(f"{a} against {b}: {result.summary()}")
        say(f"  {result.pairs_summary()}")

    try:
        tournament = round_robin(players, args.games, openings=openings, workers=args.workers,
                                 on_pair=progress)
    finally:
        for p in players.values():
            getattr(p, "quit", lambda: None)()
    say("")
    say(tournament.crosstable())
    return 0


def add_tournament_parser(sub: Any) -> None:
    p = sub.add_parser("tournament", help="a round robin between several players",
                       description="Every player against every other, each opening played "
                                   "with both colours (balanced openings unless --openings "
                                   "says otherwise); prints a crosstable and Elo ratings "
                                   "from a Bradley-Terry fit.")
    p.add_argument("players", nargs="+", help="two or more players: " + SPEC_HELP)
    p.add_argument("--games", "-g", type=int, default=10,
                   help="games per pair (default: %(default)s)")
    p.add_argument("--openings", default="balanced",
                   help="the start of each pair of games: " + OPENINGS_HELP)
    p.add_argument("--workers", type=int, default=1,
                   help="games played at once in worker processes (default: 1)")
    p.add_argument("--seed", type=int, help="seed for cythello players (player k gets seed+k) "
                                            "and for the order of the openings")
    p.set_defaults(func=cmd_tournament)
