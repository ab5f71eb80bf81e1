"""The ``cythello`` command line."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List, Optional

from .core._board import Board
from .errors import IllegalMoveError, InvalidBoardError, InvalidMoveError, SettingsError
from .records.obf import parse_obf_line
from .search.players import PRESETS, MCTSPlayer, SearchResult
from .squares import COLOR_NAMES, parse_move, square_name


def board_from_text(text: Optional[str]) -> Board:
    """A board from a board string, an OBF line or a transcript (empty: the start)."""
    if text is None or not text.strip():
        return Board()
    text = text.strip()
    if ";" in text or len(text.split()) == 2 and len(text.split()[0]) == 64:
        return parse_obf_line(text).board
    return Board.from_transcript(text)


def add_search_options(p: argparse.ArgumentParser, default_preset: Optional[str] = "medium") -> None:
    """The preset and limit options shared by the commands that search."""
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
    """An MCTSPlayer from the preset, with any explicit option overriding it."""
    overrides = {k: v for k, v in (
        ("iterations", args.iterations), ("time_limit", args.time_limit),
        ("exploration", args.exploration), ("rollout", args.rollout),
        ("threads", args.threads), ("seed", args.seed), ("max_nodes", args.max_nodes),
    ) if v is not None}
    if args.preset is None:
        return MCTSPlayer(**overrides)
    if "iterations" in overrides or "time_limit" in overrides:
        settings: Dict[str, Any] = dict(PRESETS[args.preset])
        settings.pop("iterations", None)
        settings.pop("time_limit", None)
        settings.update(overrides)
        return MCTSPlayer(**settings)
    return MCTSPlayer.preset(args.preset, **overrides)


def format_result(board: Board, result: SearchResult, top: int = 0) -> str:
    """A search result as the board, a summary and the per-move table."""
    lines = [str(board), ""]
    proof = f", proven {result.proof}" if result.proof else ""
    if result.exact_score is not None:
        proof = f", exact score {result.exact_score:+d}"
    lines.append(f"best move: {result.best_move_name}   win rate {result.win_rate:.3f}"
                 f" for {COLOR_NAMES[board.turn]}{proof}")
    if result.exact_score is not None:
        lines.append(f"solved exactly: {result.nodes:,} nodes in {result.elapsed:.2f} s")
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
    lines.append(f"{'move':>5} {'visits':>10} {'share':>7} {'win rate':>9}  proof")
    total = sum(s.visits for s in result.moves) or 1
    for s in result.moves[:top or None]:
        lines.append(f"{s.name:>5} {s.visits:>10,} {s.visits / total:>7.1%} {s.win_rate:>9.3f}"
                     f"  {s.proof or ''}")
    return "\n".join(lines)


def cmd_analyse(args: argparse.Namespace) -> int:
    """``cythello analyse``: search one position and print the result."""
    board = board_from_text(args.position)
    if board.is_game_over():
        outcome = board.outcome()
        assert outcome is not None
        print(str(board))
        print(f"game over: {outcome.result()}")
        return 0
    player = player_from_args(args)
    result = player.search(board)
    if result.stop_reason == "exact":
        # Solved: list the exact score of every move, as the .obf files do.
        from .search.endgame import SolveAborted, solve_moves
        from .search.players import MoveStats
        try:
            scores = solve_moves(board, time_limit=10.0)
            result.moves = sorted((MoveStats.exact(m, v) for m, v in scores.items()),
                                  key=lambda s: -(s.score or 0))
        except SolveAborted:
            pass
    if args.json:
        data = result.to_dict()
        data["board"] = board.board_string()
        print(json.dumps(data, indent=2))
    else:
        print(format_result(board, result, args.top))
    return 0


# -- play ------------------------------------------------------------------------------------

PLAY_HELP = "type a move (f5), pass (when forced), undo, hint, board, help or quit"


def cmd_play(args: argparse.Namespace) -> int:
    """``cythello play``: a game against the engine, commands read from stdin."""
    board = board_from_text(args.position)
    human = 0 if args.color == "black" else 1
    engine = player_from_args(args)
    out = sys.stdout
    print(f"You play {COLOR_NAMES[human]} (X is black, O is white). {PLAY_HELP}.", file=out)
    print(board, file=out)
    while not board.is_game_over():
        if board.turn != human:
            move = engine.choose_move(board)
            board.push(move)
            print(f"cythello plays {square_name(move)}", file=out)
            print(board, file=out)
            continue
        print(f"your move ({COLOR_NAMES[human]}): ", end="", file=out, flush=True)
        line = sys.stdin.readline()
        if not line:
            print("\nend of input: quitting", file=out)
            return 0
        text = line.strip().lower()
        if not text:
            continue
        if text in ("quit", "exit", "q"):
            print("bye", file=out)
            return 0
        if text in ("help", "?"):
            print(PLAY_HELP, file=out)
            continue
        if text == "board":
            print(board, file=out)
            continue
        if text == "hint":
            result = engine.search(board)
            print(f"hint: {result.best_move_name} (win rate {result.win_rate:.2f})", file=out)
            continue
        if text == "undo":
            if human not in _movers(board):
                print("nothing to undo", file=out)
                continue
            while board.move_stack:                # back to before your last move
                board.pop()
                if board.turn == human and not board.must_pass():
                    break
            engine.reset()
            print(board, file=out)
            continue
        try:
            move = parse_move(text)
            board.push(move)
        except (InvalidMoveError, IllegalMoveError) as exc:
            print(f"{exc}; legal: {' '.join(square_name(m) for m in board.legal_moves)}", file=out)
            continue
    outcome = board.outcome()
    assert outcome is not None
    winner = "draw" if outcome.winner is None else (
        "you win" if outcome.winner == human else "cythello wins")
    print(f"game over: {outcome.result()} ({winner})", file=out)
    print(f"transcript: {board.transcript()}", file=out)
    return 0


def _movers(board: Board) -> List[int]:
    """The colour that made each move on the stack."""
    colours, b = [], board.copy()
    while b.move_stack:
        b.pop()
        colours.append(b.turn)
    return colours


# -- match -----------------------------------------------------------------------------------

def make_player(spec: str, seed: Optional[int] = None) -> Any:
    """A player from a spec: a preset name, ``random``, ``mcts:key=value,…``,
    ``gtp:COMMAND`` or ``nboard:COMMAND``."""
    from .search.players import RandomPlayer
    from .protocols import engine as eng
    kind, _, rest = spec.partition(":")
    if spec in PRESETS:
        return MCTSPlayer.preset(spec, seed=seed)
    if spec == "random":
        return RandomPlayer(seed)
    if kind == "mcts":
        settings: Dict[str, Any] = {"seed": seed}
        for item in filter(None, rest.split(",")):
            key, _, value = item.partition("=")
            key = key.strip().replace("-", "_")
            if key in ("iterations", "threads", "max_nodes", "endgame_empties"):
                settings[key] = int(value)
            elif key in ("time_limit", "time", "exploration", "disc_weight", "progressive_bias"):
                settings["time_limit" if key == "time" else key] = float(value)
            elif key in ("rollout", "preset"):
                settings[key] = value
            else:
                raise SettingsError(f"unknown mcts setting {key!r} in {spec!r}")
        preset = settings.pop("preset", None)
        return MCTSPlayer.preset(preset, **settings) if preset else MCTSPlayer(**settings)
    if kind == "gtp" and rest:
        return eng.popen_gtp(rest)
    if kind == "nboard" and rest:
        return eng.popen_nboard(rest)
    raise SettingsError(f"unknown player {spec!r}: use a preset ({', '.join(PRESETS)}), random, "
                        "mcts:iterations=N,…, gtp:COMMAND or nboard:COMMAND")


def read_openings(path: str) -> List[Board]:
    """Start positions from a file: one transcript, board string or OBF line each."""
    boards = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip() and not line.lstrip().startswith(("%", "#")):
                boards.append(board_from_text(line))
    if not boards:
        raise InvalidBoardError(f"no openings in {path}")
    return boards


def cmd_match(args: argparse.Namespace) -> int:
    """``cythello match``: games with alternating colours, progress, Elo, GGF/SVG."""
    from .records.ggf import GgfGame, write_ggf
    from .match import run_match
    if args.games < 1:
        raise SettingsError(f"--games must be at least 1, not {args.games}")
    openings = read_openings(args.openings) if args.openings else None
    first = make_player(args.first, args.seed)
    try:
        second = make_player(args.second, None if args.seed is None else args.seed + 1)
    except Exception:
        getattr(first, "quit", lambda: None)()
        raise

    def progress(g: int, final: Board, result: Any) -> None:
        o = final.outcome()
        assert o is not None
        colour = "black" if g % 2 == 0 else "white"
        print(f"game {g + 1}/{args.games}: {args.first} ({colour}) {o.result()}  "
              f"[{result.summary()}]", flush=True)

    try:
        result = run_match(first, second, args.games, openings=openings, on_game=progress)
    finally:
        for p in (first, second):
            getattr(p, "quit", lambda: None)()
    print(f"{args.first} vs {args.second}: {result.summary()}")
    if args.ggf:
        games = []
        for g, final in enumerate(result.games):
            black, white = (args.first, args.second) if g % 2 == 0 else (args.second, args.first)
            times = [round(t, 2) for t in result.times[g]]
            games.append(GgfGame.from_board(final, black=black, white=white, times=times))
        write_ggf(args.ggf, games)
        print(f"wrote {len(games)} games to {args.ggf}")
    if args.svg:
        with open(args.svg, "w", encoding="utf-8") as fh:
            fh.write(result.games[-1].to_svg())
        print(f"wrote the last final position to {args.svg}")
    if args.svg_dir:
        import os
        os.makedirs(args.svg_dir, exist_ok=True)
        for g, final in enumerate(result.games, 1):
            with open(os.path.join(args.svg_dir, f"game-{g:03d}.svg"), "w", encoding="utf-8") as fh:
                fh.write(final.to_svg())
        print(f"wrote {len(result.games)} final positions to {args.svg_dir}")
    return 0


# -- solve ------------------------------------------------------------------------------------

def cmd_solve(args: argparse.Namespace) -> int:
    """``cythello solve``: exact scores of positions or of a whole ``.obf`` suite, checked
    against the scores the file lists."""
    import time
    from .search.endgame import SolveAborted, solve
    from .records.obf import ObfPosition, read_obf
    positions: List[ObfPosition] = []
    for item in args.positions:
        if item.endswith(".obf"):
            positions.extend(read_obf(item))
        elif ";" in item:
            positions.append(parse_obf_line(item))       # keeps the listed scores
        else:
            positions.append(ObfPosition(board_from_text(item)))
    if not positions:
        raise SettingsError("give positions (board strings, OBF lines, transcripts) or .obf files")
    print(f"{'#':>3} {'empties':>7} {'score':>6} {'move':>5} {'expected':>8} "
          f"{'nodes':>13} {'seconds':>8}")
    nodes, seconds, checked, correct, aborted = 0, 0.0, 0, 0, 0
    for i, pos in enumerate(positions, 1):
        started = time.perf_counter()
        try:
            r = solve(pos.board, time_limit=args.time)
        except SolveAborted:
            aborted += 1
            print(f"{i:>3} {pos.board.empties():>7} {'?':>6} {'?':>5} {'':>8} {'':>13} "
                  f"{time.perf_counter() - started:>8.3f}  out of time")
            continue
        nodes += r.nodes
        seconds += r.elapsed
        expected = ""
        if pos.scores:
            checked += 1
            ok = r.score == pos.best_score and r.best_move in pos.best_moves()
            correct += ok
            expected = f"{pos.best_score:+d}" + ("" if ok else " WRONG")
        print(f"{i:>3} {pos.board.empties():>7} {r.score:>+6} {r.best_move_name:>5} "
              f"{expected:>8} {r.nodes:>13,} {r.elapsed:>8.3f}")
    rate = nodes / seconds / 1e6 if seconds else 0.0
    print(f"{len(positions) - aborted} solved, {aborted} out of time; "
          + (f"{correct}/{checked} match the listed scores; " if checked else "")
          + f"{nodes:,} nodes in {seconds:.2f} s ({rate:.1f} M nodes/s)")
    return 1 if checked and correct < checked else 0


# -- engines and bench -----------------------------------------------------------------------

def cmd_nboard(args: argparse.Namespace) -> int:
    """``cythello nboard``: serve the NBoard protocol."""
    from .protocols.nboard import NBoardEngine
    own_limits = args.iterations is not None or args.time_limit is not None
    NBoardEngine(sys.stdout, player_from_args(args),
                 depth_sets_budget=not own_limits).run(sys.stdin)
    return 0


def cmd_gtp(args: argparse.Namespace) -> int:
    """``cythello gtp``: serve GTP."""
    from .protocols.gtp import GtpEngine
    GtpEngine(player_from_args(args)).run(sys.stdin, sys.stdout)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """``cythello bench``: the benchmark table."""
    from .bench import run_bench
    for line in run_bench(args.seconds):
        print(line, flush=True)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
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

    p = sub.add_parser("play", help="play against the engine in the terminal",
                       description="A game against cythello, one command per line on stdin. "
                                   + PLAY_HELP + ".")
    p.add_argument("position", nargs="?", help="start from this board string or transcript")
    p.add_argument("--color", "--colour", choices=["black", "white"], default="black",
                   help="your colour (default: black, who moves first)")
    add_search_options(p)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("match", help="engine against engine",
                       description="N games with alternating colours between two players: a "
                                   "preset (easy/medium/hard/expert), random, "
                                   "mcts:iterations=N,rollout=random,…, gtp:COMMAND or "
                                   "nboard:COMMAND.")
    p.add_argument("first")
    p.add_argument("second")
    p.add_argument("--games", "-g", type=int, default=10)
    p.add_argument("--openings", help="file of start positions (transcripts or board strings)")
    p.add_argument("--ggf", help="write every game to this GGF file")
    p.add_argument("--svg", help="write a picture of the last final position")
    p.add_argument("--svg-dir", help="write a picture of every final position (game-NNN.svg)")
    p.add_argument("--seed", type=int, help="seed for cythello players")
    p.set_defaults(func=cmd_match)

    for name, func, what in (("nboard", cmd_nboard, "an NBoard protocol"),
                             ("gtp", cmd_gtp, "a GTP (Go Text Protocol)")):
        p = sub.add_parser(name, help=f"run as {what} engine",
                           description=f"Serve {what.split(' ', 1)[1]} on stdin/stdout "
                                       "for a GUI.")
        add_search_options(p)
        p.set_defaults(func=func)

    p = sub.add_parser("solve", help="solve endgames exactly",
                       description="Exact scores and best moves, e.g. of an .obf test suite "
                                   "(the listed scores are checked; the exit status is 1 if "
                                   "any differs).")
    p.add_argument("positions", nargs="+",
                   help=".obf files, board strings, OBF lines or transcripts")
    p.add_argument("--time", type=float, default=60.0, help="seconds per position at most")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("bench", help="rules and search benchmarks")
    p.add_argument("--seconds", type=float, default=1.0, help="seconds per figure")
    p.set_defaults(func=cmd_bench)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of the ``cythello`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except (InvalidBoardError, InvalidMoveError, IllegalMoveError, SettingsError,
            TypeError, ValueError) as exc:
        print(f"cythello {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
