"""The ``cythello`` command line."""
from __future__ import annotations

import argparse
import json
import sys
from typing import List, Optional

from ._board import Board
from .errors import IllegalMoveError, InvalidBoardError, InvalidMoveError, SettingsError
from .obf import parse_obf_line
from .players import PRESETS, MCTSPlayer, SearchResult
from .squares import COLOR_NAMES, square_name


def board_from_text(text: Optional[str]) -> Board:
    """A board from a board string, an OBF line or a transcript (empty: the start)."""
    if text is None or not text.strip():
        return Board()
    text = text.strip()
    if ";" in text or len(text.split()) == 2 and len(text.split()[0]) == 64:
        return parse_obf_line(text).board
    return Board.from_transcript(text)


def add_search_options(p: argparse.ArgumentParser, default_preset: Optional[str] = "medium") -> None:
    p.add_argument("--preset", choices=list(PRESETS), default=default_preset,
                   help="difficulty preset (default: %(default)s); other options override it")
    p.add_argument("--iterations", "-n", type=int, help="iterations per move")
    p.add_argument("--time", "-t", type=float, dest="time_limit", help="seconds per move")
    p.add_argument("--exploration", "-c", type=float, help="UCB1 exploration constant")
    p.add_argument("--rollout", choices=["random", "heuristic"], help="playout policy")
    p.add_argument("--threads", type=int, help="parallel trees (root parallelism)")
    p.add_argument("--seed", type=int, help="seed for reproducible searches")
    p.add_argument("--max-nodes", type=int, help="node cap per tree")


def player_from_args(args: argparse.Namespace) -> MCTSPlayer:
    overrides = {k: v for k, v in (
        ("iterations", args.iterations), ("time_limit", args.time_limit),
        ("exploration", args.exploration), ("rollout", args.rollout),
        ("threads", args.threads), ("seed", args.seed), ("max_nodes", args.max_nodes),
    ) if v is not None}
    if args.preset is None:
        return MCTSPlayer(**overrides)
    if "iterations" in overrides or "time_limit" in overrides:
        settings = dict(PRESETS[args.preset])
        settings.pop("iterations", None)
        settings.pop("time_limit", None)
        settings.update(overrides)
        return MCTSPlayer(**settings)
    return MCTSPlayer.preset(args.preset, **overrides)


def format_result(board: Board, result: SearchResult, top: int = 0) -> str:
    lines = [str(board), ""]
    proof = f", proven {result.proof}" if result.proof else ""
    lines.append(f"best move: {result.best_move_name}   win rate {result.win_rate:.3f}"
                 f" for {COLOR_NAMES[board.turn]}{proof}")
    lines.append(f"{result.iterations:,} iterations in {result.elapsed:.2f} s "
                 f"({result.iterations_per_second:,.0f}/s), {result.nodes:,} nodes, "
                 f"stopped by {result.stop_reason}")
    lines.append("pv: " + " ".join(square_name(m) for m in result.principal_variation))
    lines.append("")
    lines.append(f"{'move':>5} {'visits':>10} {'share':>7} {'win rate':>9}  proof")
    total = sum(s.visits for s in result.moves) or 1
    for s in result.moves[:top or None]:
        lines.append(f"{s.name:>5} {s.visits:>10,} {s.visits / total:>7.1%} {s.win_rate:>9.3f}"
                     f"  {s.proof or ''}")
    return "\n".join(lines)


def cmd_analyse(args: argparse.Namespace) -> int:
    board = board_from_text(args.position)
    if board.is_game_over():
        outcome = board.outcome()
        print(str(board))
        print(f"game over: {outcome.result()}")
        return 0
    player = player_from_args(args)
    result = player.search(board)
    if args.json:
        data = result.to_dict()
        data["board"] = board.board_string()
        print(json.dumps(data, indent=2))
    else:
        print(format_result(board, result, args.top))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cythello", description="A fast Othello engine: Monte Carlo Tree Search in Cython.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("analyse", aliases=["analyze"], help="analyse a position",
                       description="Search a position and print the best move and the "
                                   "per-move statistics.")
    p.add_argument("position", nargs="?",
                   help="board string ('X', 'O', '-' x64 then side), OBF line, or transcript "
                        "like f5d6c3 (default: the start position)")
    add_search_options(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--top", type=int, default=0, help="show only the N most visited moves")
    p.set_defaults(func=cmd_analyse)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except (InvalidBoardError, InvalidMoveError, IllegalMoveError, SettingsError,
            TypeError, ValueError) as exc:
        print(f"cythello {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
