"""``cythello analyse``: one position, or a whole game move by move (with an evaluation
graph as SVG)."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, List

from ..core._board import Board
from ..errors import SettingsError
from ..records.ggf import read_ggf
from ..records.svg import board_svg, evaluation_graph_svg
from ..search.analysis import analyse_game, black_view, with_exact_scores
from ..search.engine import EnginePlayer
from ..search.results import SearchResult
from ..search.states import ValueKind
from ..squares import COLOR_NAMES, square_name
from .common import (
    add_position,
    add_search_choice,
    add_search_options,
    check_output,
    clear_progress,
    engine_player,
    position_from_args,
    progress_line,
    say,
    search_of,
    use_colour,
    write_output,
)
from .games import DATABASE_MOVES, add_database_options, quoted_database, stats_json

EARLY = 0.95                   # a search that used less of its time says why
ANALYSE_SECONDS = 2.0          # the default search of one position: the expert, this long


def format_result(board: Board, result: SearchResult, top: int = 0) -> str:
    """A search result as the board, a summary and the per-move table."""
    lines = [str(board), ""]
    # Each number says where it comes from, in the words of ValueKind (the same words
    # as NBoard's search lines and the JSON's value_kind).
    side = COLOR_NAMES[board.turn]
    value = result.value_text()
    proof = f", {value}" if value else ""
    if result.proof and result.value_kind() not in (ValueKind.EXACT, ValueKind.PROVEN):
        proof += f", proven {result.proof}"
    rate = "win rate" if result.depth is None else "win rate (from the score)"
    lines.append(f"best move: {result.best_move_name}   {rate} {result.win_rate:.3f}"
                 f" for {side}{proof}")
    if result.exact_score is not None:
        lines.append(f"solved exactly: {result.nodes:,} nodes in {result.elapsed:.2f} s")
    elif result.depth is not None:                 # an alpha-beta search
        lines.append(f"depth {result.depth_text}: {result.nodes:,} nodes in "
                     f"{result.elapsed:.2f} s ({result.iterations_per_second:,.0f}/s), "
                     f"stopped by {result.stop_reason}")
        lines.append("pv: " + " ".join(square_name(m) for m in result.principal_variation))
        return "\n".join(lines)
    else:
        lines.append(f"{result.iterations:,} iterations in {result.elapsed:.2f} s "
                     f"({result.iterations_per_second:,.0f}/s), {result.nodes:,} nodes, "
                     f"stopped by {result.stop_reason}")
    lines.append("pv: " + " ".join(square_name(m) for m in result.principal_variation))
    lines.append("")
    if result.exact_score is not None:
        lines.append(f"{'move':>5} {'exact score':>12}")
        for s in result.moves[:top or None]:
            score = f"{s.score:+d}" if s.score is not None else "?"
            lines.append(f"{s.name:>5} {score:>12}")
        return "\n".join(lines)
    # Discs as NBoard reports them (MoveStats.discs): the evaluation's value, else the win
    # rate mapped onto discs (PUCT's, a search without an evaluation).
    lines.append(f"{'move':>5} {'visits':>10} {'share':>7} {'win rate':>9} {'discs':>7}"
                 f"  {'from':<10} proof")
    total = sum(s.visits for s in result.moves) or 1
    for s in result.moves[:top or None]:
        discs, kind = s.discs, result.value_kind(s)
        value = f" {discs:>+7.1f}" if discs is not None else " " * 8
        lines.append(f"{s.name:>5} {s.visits:>10,} {s.visits / total:>7.1%} {s.win_rate:>9.3f}"
                     f"{value}  {kind or '':<10} {s.proof or ''}".rstrip())
    return "\n".join(lines)


def cmd_analyse(args: argparse.Namespace) -> int:
    """``cythello analyse``: search a position, or every position of a game."""
    if args.position and args.position.lower().endswith(".ggf"):
        games = read_ggf(args.position)
        if not games:
            raise ValueError(f"no game in {args.position}")
        if not 0 <= args.game_index < len(games):
            raise SettingsError(f"--game-index {args.game_index}: {args.position} holds "
                                f"{len(games)} game{'s' if len(games) > 1 else ''}, "
                                f"numbered from 0 to {len(games) - 1}")
        game = games[args.game_index]
        return _analyse_game(args, game.start, game.board().move_stack)
    board = position_from_args(args, files="analyse reads a game from a .ggf file; an "
                                            ".obf suite is for cythello solve")
    if args.game:
        root = board.root()
        return _analyse_game(args, root, board.move_stack)
    last = board.peek() if board.move_stack else None
    if board.is_game_over():
        outcome = board.outcome()
        assert outcome is not None
        say(str(board))
        say(f"game over: {outcome.result()}")
        if args.svg:
            write_output(args.svg, board_svg(board, last_move=last), "SVG file")
            say(f"wrote the position to {args.svg}")
        return 0
    if args.svg:
        check_output(args.svg, "SVG file")
    player = _player(args, whole_game=False)
    progress = progress_line("searching")
    result = with_exact_scores(board, player.search(board, on_progress=progress, book=False))
    clear_progress(progress)
    book = _book(args, player)
    known = book.moves(board) if book is not None else []
    database = quoted_database(args, board)
    if args.json:
        data = result.to_dict()
        data["board"] = board.board_string()
        if known:
            data["book"] = {"value": book.value(board),
                            "moves": [{"move": m.name, "value": m.value, "in_book": m.in_book}
                                      for m in known]}
        if database is not None:
            data["database"] = stats_json(database)
        say(json.dumps(data, indent=2))
    else:
        if known:
            # The book's value first: deep searches of every line from here, the value to
            # trust most where the book has the position (the search below is one move's).
            say(f"opening book: {book.value(board):+.2f} discs for {COLOR_NAMES[board.turn]} "
                "(the book's deep searches); book moves: "
                + ", ".join(f"{m.name} {m.value:+.2f}" for m in known) + "\n")
        say(format_result(board, result, args.top))
        if database is not None:
            say("\ngames database: " + database.table(DATABASE_MOVES))
        asked = player.settings.time_limit
        if asked is not None and result.elapsed < EARLY * asked:
            say(f"\nthe search ended after {result.elapsed:.2f} s of the {asked:g} s asked: "
                f"{result.stop_reason.explanation}")
    if args.svg:
        write_output(args.svg, board_svg(board, last_move=last, best_move=result.best_move),
                     "SVG file")
        if not args.json:
            say(f"wrote the position and the best move to {args.svg}")
    return 0


def _book(args: argparse.Namespace, player: EnginePlayer) -> Any:
    """The book an analysis quotes: the player's, else the shipped one (unless --book
    none)."""
    if player.book is not None or args.book is not None:
        return player.book
    from ..book.store import DEFAULT_PATH, default_book
    return default_book() if DEFAULT_PATH.exists() else None


def _player(args: argparse.Namespace, whole_game: bool) -> Any:
    """The player the options ask for (UCT, or PUCT with --search puct); without a preset
    or a limit, the expert for ANALYSE_SECONDS on one position (a first run shows the
    strong search at work, quickly), the medium preset for each position of a game."""
    return engine_player(_effective(args, whole_game))


def _effective(args: argparse.Namespace, whole_game: bool) -> argparse.Namespace:
    if args.preset is None and args.iterations is None and args.time_limit is None:
        changes = {"preset": "medium"} if whole_game else {"preset": "expert",
                                                           "time_limit": ANALYSE_SECONDS}
        args = argparse.Namespace(**{**vars(args), **changes})
    return args


def _judge(args: argparse.Namespace) -> str:
    """The search that judged the moves, as the closing line names it."""
    args = _effective(args, whole_game=True)
    name = {"puct": "PUCT", "alphabeta": "alpha-beta"}.get(search_of(args), "UCT")
    limit = (f" at {args.time_limit:g} s a move" if args.time_limit is not None else
             f" at {args.iterations:,} iterations a move" if args.iterations is not None
             else "")
    level = f"the {args.preset} level's" if args.preset else "the"
    return f"{level} {name} search{limit}"


def _losses_line(reviews: List[Any], judge: str, start: Board) -> str:
    """What the totals are: the discs each side's own moves gave away against the moves
    the judging search preferred, counted from the recorded start (a match's GGF starts
    after its opening, so the imposed moves are no one's)."""
    parts = []
    for colour in ("black", "white"):
        judged = [r for r in reviews if r.colour == colour and not r.forced
                  and r.loss is not None]
        parts.append(f"{colour} {sum(r.loss for r in judged):.1f} over {len(judged)} moves")
    where = ("" if start.board_string() == Board().board_string() else
             f", from the recorded start ({start.empties()} empties)")
    return (f"discs given away against the choices of {judge}{where}: "
            + ", ".join(parts))


def _analyse_game(args: argparse.Namespace, start: Board, moves: List[int]) -> int:
    if args.svg:
        check_output(args.svg, "SVG file")          # before the analysis, not after it
    player = _player(args, whole_game=True)
    show = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if show:
            sys.stderr.write(f"\ranalysed {done}/{total} moves ")
            sys.stderr.flush()

    reviews = analyse_game(start, moves, player, progress)
    if show:
        sys.stderr.write("\n")
    if args.json:
        say(json.dumps([r.to_dict() for r in reviews], indent=2))
    else:
        say(f"{'ply':>4} {'colour':<6} {'move':>5} {'value':>7} {'best':>5} {'value':>7} "
            f"{'loss':>6}")
        for r in reviews:
            if r.forced:
                say(f"{r.ply:>4} {r.colour:<6} {r.move:>5}   (forced)")
                continue
            v = f"{r.value:+7.1f}" if r.value is not None else "      ?"
            b = f"{r.best_value:+7.1f}" if r.best_value is not None else "      ?"
            loss = f"{r.loss:6.1f}" if r.loss is not None else "     ?"
            mark = "  <-" if (r.loss or 0) >= 4 else ""
            say(f"{r.ply:>4} {r.colour:<6} {r.move:>5} {v} {r.best:>5} {b} {loss}{mark}")
        final = start.copy(stack=False)
        for m in moves:
            final.push(m)
        say("")
        say(final.render(moves[-1] if moves else None, use_colour(sys.stdout)))
        say(_losses_line(reviews, _judge(args), start))
    if args.svg:
        write_output(args.svg, evaluation_graph_svg(black_view(reviews),
                                                    title="evaluation for black"), "SVG file")
        if not args.json:
            say(f"wrote the evaluation graph to {args.svg}")
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "analyse", aliases=["analyze"], help="analyse a position or a whole game",
        description="Search a position and print the best move and every move's statistics "
                    "(win rate, the evaluation in discs, exact scores near the end); or, "
                    "with a .ggf file or --game, analyse every move of a game: its value, "
                    "the best move and the discs lost, optionally as a graph (--svg).")
    add_position(p, "the position, or a .ggf game file")
    add_search_options(p, default_preset=None,
                       default_text=f"expert for {ANALYSE_SECONDS:g} s on a position, medium "
                                    "on each position of a game")
    add_search_choice(p)
    p.add_argument("--game", action="store_true",
                   help="analyse every move of the transcript instead of its last position")
    p.add_argument("--game-index", type=int, default=0,
                   help="which game of a .ggf file with several, from 0 (default: the first)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--top", type=int, default=0, help="show only the N most visited moves")
    p.add_argument("--svg", metavar="FILE",
                   help="draw to this SVG file: a position with its best move ringed, or "
                        "with a game the evaluation over the game")
    add_database_options(p, required=False)
    p.set_defaults(func=cmd_analyse)

