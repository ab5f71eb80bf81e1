"""``cythello games``: a games database (WTHOR, GGF, transcripts) -- a position's statistics,
finding games, exporting them, and the index behind the statistics."""
from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from ..errors import SettingsError
from .common import add_position, check_output, position_from_args, say

if TYPE_CHECKING:
    from ..games import GameDatabase

ENV = "CYTHELLO_GAMES"
SHOWN_PROBLEMS = 5          # problem lines printed before "... and N more"
DATABASE_MOVES = 8          # a database's moves quoted beside another command's answer


def database_sources(args: argparse.Namespace) -> List[str]:
    """The ``--db`` sources, else those of ``$CYTHELLO_GAMES`` (paths separated as in
    PATH); none is an error that says both ways."""
    sources = list(getattr(args, "db", None) or [])
    if not sources and os.environ.get(ENV):
        sources = [s for s in os.environ[ENV].split(os.pathsep) if s]
    if not sources:
        raise SettingsError(f"no games database: give --db FILE_OR_FOLDER (WTHOR .wtb, .ggf, "
                            f"or .txt transcripts) or set {ENV}")
    return sources


def open_database(args: argparse.Namespace) -> "GameDatabase":
    """The database of the command line's sources, its reading problems on stderr."""
    from ..games import GameDatabase
    index = getattr(args, "index", None)
    db = GameDatabase.open(*database_sources(args),
                           index=None if getattr(args, "no_index_file", False)
                           else (index or "auto"))
    for line in db.problems[:SHOWN_PROBLEMS]:
        say(f"cythello games: warning: {line}", sys.stderr)
    if len(db.problems) > SHOWN_PROBLEMS:
        say(f"cythello games: warning: ... and {len(db.problems) - SHOWN_PROBLEMS} more "
            f"problems ({db.skipped:,} games skipped in all)", sys.stderr)
    return db


def quoted_database(args: argparse.Namespace, board: Any) -> Any:
    """For the commands that may quote a database beside their own answer (``analyse``,
    ``book show``): the position's statistics when ``--db`` or ``$CYTHELLO_GAMES`` names a
    database, else None."""
    if not getattr(args, "db", None) and not os.environ.get(ENV):
        return None
    return open_database(args).stats(board)


def stats_json(stats: Any) -> Dict[str, Any]:
    """A position's statistics as JSON-ready data."""
    return {"games": stats.games,
            "moves": [{"move": m.name, "games": m.games, "wins": m.wins, "draws": m.draws,
                       "losses": m.losses, "mean_score": m.mean_score,
                       "mean_theoretical": m.mean_theoretical,
                       "players": [list(p) for p in m.players]} for m in stats.moves]}


def add_database_options(p: argparse.ArgumentParser, required: bool = True) -> None:
    """``--db`` (and the index options) for any command that reads a games database."""
    what = "the games database" if required else "a games database to show its moves from"
    p.add_argument("--db", action="append", metavar="PATH",
                   help=f"{what}: a WTHOR .wtb file, a .ggf or .txt (a transcript a line) "
                        "file, a folder of them or a glob; repeat for more "
                        f"(default: ${ENV}, paths separated by '{os.pathsep}')")
    p.add_argument("--index", metavar="FILE",
                   help="where the position index is kept (default: beside the games, or "
                        "the user's cache folder where that cannot be written)")
    p.add_argument("--no-index-file", action="store_true",
                   help="build the position index in memory only; write no file")


def _filters(p: argparse.ArgumentParser) -> None:
    p.add_argument("--player", help="games of a player, either colour (part of the name, "
                                    "any case)")
    p.add_argument("--black", help="games with this black player")
    p.add_argument("--white", help="games with this white player")
    p.add_argument("--tournament", help="games of a tournament (part of its name)")
    p.add_argument("--year", help="a year, or a range like 1990-1999")
    p.add_argument("--opening", metavar="LINE",
                   help="games through this position (a transcript like f5d6c3, or a "
                        "board string), up to symmetry")


def parse_years(text: Optional[str]) -> Any:
    if text is None:
        return None
    first, sep, last = text.partition("-")
    try:
        years = (int(first), int(last)) if sep else int(first)
    except ValueError:
        raise SettingsError(f"--year is a year or a range like 1990-1999, not {text!r}") \
            from None
    return years


def filtered(args: argparse.Namespace, db: "GameDatabase") -> "GameDatabase":
    return db.filter(player=args.player, black=args.black, white=args.white,
                     tournament=args.tournament, year=parse_years(args.year),
                     opening=args.opening)


def cmd_stats(args: argparse.Namespace) -> int:
    board = position_from_args(args)
    db = filtered(args, open_database(args))
    stats = db.stats(board, players=args.players)
    say(str(board))
    say(stats.table(args.limit))
    return 0


def _game_line(game: Any) -> str:
    result = "?" if game.result is None else f"{game.result:+d}"
    perfect = "" if game.theoretical is None else f" (perfect {game.theoretical:+d})"
    year = game.year or "-"
    return (f"{year}  {game.tournament}  {game.black} - {game.white}  {result}{perfect}  "
            f"{game.transcript()}")


def cmd_find(args: argparse.Namespace) -> int:
    db = filtered(args, open_database(args))
    shown = 0
    for game in db:
        if args.limit is not None and shown >= args.limit:
            break
        say(_game_line(game))
        shown += 1
    more = len(db) - shown
    say(f"{len(db):,} games" + (f" ({more:,} not shown: --limit)" if more else ""),
        sys.stderr)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    check_output(args.output, "export file")
    db = filtered(args, open_database(args))
    n = db.write_ggf(args.output) if args.format == "ggf" else db.write_transcripts(args.output)
    say(f"{args.output}: {n:,} games ({args.format})", sys.stderr)
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    db = open_database(args)
    table = db.table
    years = table.year[table.year > 0]
    span = f", {years.min()}-{years.max()}" if len(years) else ""
    say(f"{len(db):,} games{span}, {len(table.players):,} players, "
        f"{len(table.tournaments):,} tournaments, from {len(table.sources):,} files"
        + (f"; {db.skipped:,} games skipped" if db.skipped else ""))
    return 0


def cmd_index(args: argparse.Namespace) -> int:
    import time
    db = open_database(args)
    start = time.perf_counter()
    index = db.index()
    say(f"{len(db):,} games, {len(index):,} positions ({index.nbytes / 2**20:.1f} MiB): "
        f"{db.index_state} in {time.perf_counter() - start:.1f} s")
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "games", help="a games database: a position's statistics, finding and exporting games",
        description="Games databases: WTHOR files (the .wtb of a year, with WTH.JOU and "
                    "WTH.TRN beside them for the names), GGF files and transcript lists.  "
                    "'stats' shows what was played in a position (up to symmetry) and how "
                    "it turned out.")
    games = p.add_subparsers(dest="games_command", metavar="ACTION", required=True,
                             help="stats, find, export, info or index")
    s = games.add_parser("stats", help="the moves played in a position and their results",
                         description="The moves the database's games played in a position, "
                                     "up to the board's 8 symmetries: how often, their "
                                     "results for the side to move (wins, draws, losses, "
                                     "mean disc difference, and the mean perfect-play score "
                                     "from the records' theoretical-score position), and "
                                     "who played them.")
    add_position(s)
    add_database_options(s)
    _filters(s)
    s.add_argument("--limit", type=int, help="show this many moves at most")
    s.add_argument("--players", type=int, default=3,
                   help="most frequent players named for each move (default: 3)")
    s.set_defaults(func=cmd_stats)
    f = games.add_parser("find", help="list the games that match",
                         description="One line a game: year, tournament, players, black's "
                                     "result (and perfect-play score), the transcript.")
    add_database_options(f)
    _filters(f)
    f.add_argument("--limit", type=int, default=20,
                   help="list this many games at most (default: 20)")
    f.set_defaults(func=cmd_find)
    e = games.add_parser("export", help="write the games that match to a file")
    add_database_options(e)
    _filters(e)
    e.add_argument("--format", choices=["ggf", "transcript"], default="ggf",
                   help="GGF records (default) or transcripts, a game a line")
    e.add_argument("--output", "-o", required=True, help="the file to write")
    e.set_defaults(func=cmd_export)
    i = games.add_parser("info", help="how many games, players and tournaments")
    add_database_options(i)
    i.set_defaults(func=cmd_info)
    x = games.add_parser("index", help="build (or check) the position index now",
                         description="Builds the position index the statistics use and "
                                     "saves it (an index already there is checked against "
                                     "the games and rebuilt when stale or damaged).")
    add_database_options(x)
    x.set_defaults(func=cmd_index)


__all__ = ["add_parser", "add_database_options", "open_database", "database_sources"]
