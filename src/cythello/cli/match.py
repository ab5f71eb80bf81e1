"""``cythello match``: engine against engine, with progress, Elo, GGF and SVG output."""
from __future__ import annotations

import argparse
import os
import time
from typing import Any, List

from .._files import read_text
from ..core._board import Board
from ..errors import InvalidBoardError, SettingsError
from ..match import MatchResult, random_openings, round_robin, run_match
from ..players import SPEC_HELP, make_player
from ..records.ggf import GgfGame, write_ggf
from ..records.position import board_from_text
from .common import check_output, say, write_output


def read_openings(path: str) -> List[Board]:
    """Start positions from a file: one transcript, board string or OBF line each."""
    boards = []
    # As every record reader: a regular file of bounded size, UTF-8 (a BOM dropped).
    text = read_text(path, "openings file", InvalidBoardError)
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip() and not line.lstrip().startswith(("%", "#")):
            try:
                boards.append(board_from_text(line))
            except ValueError as exc:
                raise InvalidBoardError(f"{path}, line {n}: {exc}") from None
    if not boards:
        raise InvalidBoardError(f"no openings in {path}")
    return boards


def describe(result: MatchResult, first: str, second: str) -> str:
    """The score from the first player's side, said so."""
    return f"{first} against {second}, from {first}'s side: {result.summary()}"


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
    openings = read_openings(args.openings) if args.openings else None
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
    say(f"{args.games} games of {args.first} against {args.second}, {workers}; a line as "
        "each game ends")

    def progress(g: int, final: Board, result: Any) -> None:
        nonlocal played
        played = g + 1
        o = final.outcome()
        assert o is not None
        colour = "black" if g % 2 == 0 else "white"
        say(f"game {g + 1}/{args.games}: {args.first} ({colour}) {o.result()}  "
            f"[{args.first}: {result.summary()}]{_time_left(started, played, args.games)}")

    try:
        result = run_match(first, second, args.games, openings=openings, on_game=progress,
                           workers=args.workers, backend=backend,
                           ray_address=args.ray or None)
    except KeyboardInterrupt:
        raise KeyboardInterrupt(f"after {played} of {args.games} games") from None
    finally:
        for p in (first, second):
            getattr(p, "quit", lambda: None)()
    say(describe(result, args.first, args.second))
    if args.ggf:
        games = []
        for g, final in enumerate(result.games):
            black, white = (args.first, args.second) if g % 2 == 0 else (args.second, args.first)
            times = [round(t, 2) for t in result.times[g]]
            games.append(GgfGame.from_board(final, black=black, white=white, times=times))
        write_ggf(args.ggf, games)
        say(f"wrote {len(games)} games to {args.ggf}")
    if args.svg:
        write_output(args.svg, result.games[-1].to_svg(), "SVG file")
        say(f"wrote the last final position to {args.svg}")
    if args.svg_dir:
        os.makedirs(args.svg_dir, exist_ok=True)
        for g, final in enumerate(result.games, 1):
            with open(os.path.join(args.svg_dir, f"game-{g:03d}.svg"), "w",
                      encoding="utf-8") as fh:
                fh.write(final.to_svg())
        say(f"wrote {len(result.games)} final positions to {args.svg_dir}")
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("match", help="engine against engine",
                       description="Games with alternating colours between two players; each "
                                   "pair of games shares an opening when --openings are "
                                   "given.  The score is the first player's.")
    p.add_argument("first", help="the first player: " + SPEC_HELP)
    p.add_argument("second", help="the second player (same forms)")
    p.add_argument("--games", "-g", type=int, default=10,
                   help="number of games (default: %(default)s; colours alternate)")
    p.add_argument("--openings", help="file of start positions (transcripts or board strings), "
                                      "each used for a pair of games")
    p.add_argument("--workers", type=int, default=1,
                   help="games played at once in worker processes (default: 1)")
    p.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                   help="play the games as Ray tasks (a local Ray, or the cluster at ADDRESS)")
    p.add_argument("--ggf", help="write every game to this GGF file")
    p.add_argument("--svg", help="write a picture of the last final position")
    p.add_argument("--svg-dir", help="write a picture of every final position (game-NNN.svg)")
    p.add_argument("--seed", type=int, help="seed for cythello players (the second gets seed+1)")
    p.set_defaults(func=cmd_match)


def cmd_tournament(args: argparse.Namespace) -> int:
    """``cythello tournament``: a round robin with a crosstable and Elo ratings."""
    if len(args.players) < 2:
        raise SettingsError("a tournament needs at least two players")
    if any(spec.startswith(("gtp:", "nboard:")) for spec in args.players) and args.workers > 1:
        raise SettingsError("external engines play serially: drop --workers")
    players = {spec: make_player(spec, None if args.seed is None else args.seed + k)
               for k, spec in enumerate(args.players)}
    openings = (read_openings(args.openings) if args.openings
                else random_openings(max(1, args.games // 2), plies=4, seed=args.seed or 0))

    def progress(a: str, b: str, result: MatchResult) -> None:
        say(f"{a} against {b}: {result.summary()}")

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
                       description="Every player against every other, with paired random "
                                   "4-ply openings (or --openings); prints a crosstable and "
                                   "Elo ratings from a Bradley-Terry fit.")
    p.add_argument("players", nargs="+", help="two or more players: " + SPEC_HELP)
    p.add_argument("--games", "-g", type=int, default=10,
                   help="games per pair (default: %(default)s)")
    p.add_argument("--openings", help="file of start positions, each used for a pair of games")
    p.add_argument("--workers", type=int, default=1,
                   help="games played at once in worker processes (default: 1)")
    p.add_argument("--seed", type=int, help="seed for cythello players (player k gets seed+k)")
    p.set_defaults(func=cmd_tournament)
