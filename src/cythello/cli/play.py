"""``cythello play``: a game against the engine in a terminal (or from a script: one
command per line on stdin)."""
from __future__ import annotations

import argparse
import sys
import time
from typing import Any, List, Optional, Tuple

from ..core._board import Board
from ..errors import IllegalMoveError, InvalidMoveError, SettingsError
from ..records.ggf import GgfGame, write_ggf
from ..search.clock import Clock, parse_clock
from ..search.engine import EnginePlayer
from ..search.results import SearchResult
from ..squares import COLOR_NAMES, PASS, parse_move, square_name
from .common import (
    add_position,
    add_search_choice,
    add_search_options,
    clear_progress,
    engine_player,
    position_from_args,
    progress_line,
    say,
    use_colour,
)

PLAY_HELP = ("type a move (f5), pass (when forced), undo, hint, moves, board, save FILE, "
             "new, help or quit")


def _movers(board: Board) -> List[int]:
    """The colour that made each move on the stack, first move first."""
    colours, b = [], board.copy()
    while b.move_stack:
        b.pop()
        colours.append(b.turn)
    return colours[::-1]


def _move_list(board: Board) -> str:
    """The moves so far, numbered, passes shown."""
    parts = []
    for n, (colour, move) in enumerate(zip(_movers(board), board.move_stack), 1):
        parts.append(f"{n}.{'X' if colour == 0 else 'O'} {square_name(move)}")
    return " ".join(parts) or "(no moves yet)"


GAME_OVER_HELP = "the game is over: save FILE, undo, new, moves, board or quit"


def cmd_play(args: argparse.Namespace) -> int:
    """``cythello play``: a game against the engine, commands read from stdin.  At game
    over the session goes on (save, undo, new, quit) until the user leaves."""
    start = position_from_args(args)
    board = start.copy()
    human = 0 if args.color == "black" else 1
    engine = engine_player(args)
    colour = use_colour(sys.stdout)
    last = board.peek() if board.move_stack else None
    first = len(board.move_stack)          # moves of the start position: not undone
    clock: Optional[Clock] = args.clock
    announced = False                      # the game-over lines were printed

    def show() -> None:
        say(board.render(last, colour))

    say(f"You play {COLOR_NAMES[human]} ({'X' if human == 0 else 'O'}); {PLAY_HELP}.")
    show()
    try:
        while True:
            over = board.is_game_over()
            if over and not announced:
                _announce(board, human)
                announced = True
            if not over and board.must_pass():
                mover = COLOR_NAMES[board.turn]
                board.push(PASS)
                last = PASS
                say(f"{mover} has no move and passes.")
                continue
            if not over and board.turn != human:
                started = time.monotonic()
                move, result = _engine_move(engine, board, clock)
                board.push(move)
                last = move
                if args.ponder:
                    engine.ponder(board)          # think while the human does
                used = time.monotonic() - started
                spent = f"{used:.1f} s"
                if clock is not None:
                    clock = clock.after(used)
                    spent += f"; {_clock_text(clock.time_left)} left"
                say(f"cythello plays {square_name(move)} ({spent})")
                if args.thinking and result is not None:
                    say("  " + thinking_text(result))
                show()
                continue
            prompt = ("game over (save, undo, new or quit): " if over
                      else f"your move ({COLOR_NAMES[human]}): ")
            sys.stdout.write(prompt)
            sys.stdout.flush()
            line = sys.stdin.readline()
            if not line:
                say("\nend of input: quitting")
                return 0
            text = line.strip()
            word = text.lower().split(" ", 1)[0] if text else ""
            if not word:
                continue
            if word in ("quit", "exit", "q"):
                say("bye")
                return 0
            if word in ("help", "?"):
                say(GAME_OVER_HELP if over else PLAY_HELP)
            elif word == "board":
                show()
            elif word == "moves":
                say(_move_list(board))
            elif word == "save":
                path = text.split(" ", 1)[1].strip() if " " in text else ""
                if not path:
                    say("save needs a file name: save game.ggf")
                    continue
                black, white = ("you", "cythello") if human == 0 else ("cythello", "you")
                write_ggf(path, [GgfGame.from_board(board, black=black, white=white)])
                say(f"saved the game to {path}")
            elif word == "undo":
                taken = _undo(board, human, first)
                if not taken:
                    say("nothing to undo")
                    continue
                engine.reset()
                announced = False
                last = board.peek() if board.move_stack else None
                say("took back " + ", ".join(taken))
                show()
            elif word == "new":
                board = start.copy()
                engine.reset()
                announced = False
                clock = args.clock
                last = board.peek() if board.move_stack else None
                say("a new game")
                show()
            elif over:
                say(GAME_OVER_HELP)
            elif word == "hint":
                progress = progress_line("thinking")
                result = engine.search(board, on_progress=progress)
                clear_progress(progress)
                say(f"hint: {result.best_move_name} ({hint_values(result)})")
            else:
                try:
                    move = parse_move(word)
                    board.push(move)
                    last = move
                except (InvalidMoveError, IllegalMoveError) as exc:
                    say(f"{exc}; legal: {' '.join(square_name(m) for m in board.legal_moves)}")
                    continue
                show()
    finally:
        engine.stop_pondering()


def _announce(board: Board, human: int) -> None:
    """The game's end, once (the board was shown after the last move)."""
    outcome = board.outcome()
    assert outcome is not None
    verdict = "a draw" if outcome.winner is None else (
        "you win" if outcome.winner == human else "cythello wins")
    say(f"{verdict}; transcript: {board.transcript()}")
    say(GAME_OVER_HELP)


def _engine_move(engine: EnginePlayer, board: Board, clock: Optional[Clock]
                 ) -> Tuple[int, Optional[SearchResult]]:
    """The engine's move and its search (None for a forced move, played at once): within
    its own limits, or budgeted from its game clock (and still within its preset's
    iteration cap, which a clock keeps: an easy preset stays easy).  On a terminal a
    status line shows that it is thinking, and what it thinks so far."""
    moves = list(board.legal_moves)
    if len(moves) == 1:
        return engine.choose_move(board), None
    progress = progress_line("cythello is thinking")
    try:
        result = engine.search(board, clock=clock, on_progress=progress)
    finally:
        clear_progress(progress)
    return result.best_move, result


def thinking_text(result: SearchResult) -> str:
    """What the search thought (``--thinking``): its value with its source, its work and
    the moves it weighed."""
    work = (f"depth {result.depth_text}" if result.depth is not None
            else f"{result.iterations:,} iterations")
    others = ", ".join(f"{m.name} {m.visits:,}" for m in result.moves[:3]) \
        if result.depth is None else ""
    text = f"{hint_values(result)}; {work} in {result.elapsed:.1f} s"
    return text + (f"; most visited: {others}" if others else "")


def _clock_argument(text: str) -> Clock:
    try:
        return parse_clock(text)
    except SettingsError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _clock_text(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}:{rest:02d}"


def _undo(board: Board, human: int, first: int = 0) -> List[str]:
    """Take back moves to before the human's last move, never past the position the game
    started from (the ``first`` moves on the stack came with it); what was taken back."""
    movers = _movers(board)
    if human not in movers[first:]:
        return []
    taken = []
    while len(board.move_stack) > first:
        colour = movers.pop()
        move = board.pop()
        who = "you" if colour == human else "cythello"
        taken.append(f"{square_name(move)} ({who})" if move != PASS else f"a pass ({who})")
        if colour == human and move != PASS:
            break
    return taken[::-1]


def add_parser(sub: Any) -> None:
    p = sub.add_parser("play", help="play against the engine in the terminal",
                       description="A game against cythello, one command per line on stdin: "
                                   + PLAY_HELP + ".  The board is shown after every move, "
                                   "the last move in brackets; forced passes are played "
                                   "and announced.")
    add_position(p, "start from this position")
    p.add_argument("--color", "--colour", choices=["black", "white"], default="black",
                   help="your colour (default: black, who moves first)")
    add_search_options(p)
    add_search_choice(p)
    p.add_argument("--clock", type=_clock_argument, metavar="MAIN[+INC]",
                   help="the engine's game clock, e.g. 5:00 or 5:00+2: each move's time "
                        "comes from what is left (instead of --time)")
    p.add_argument("--thinking", action="store_true",
                   help="after each of the engine's moves, say what its search thought "
                        "(value and its source, work, the moves it weighed)")
    p.add_argument("--ponder", action="store_true",
                   help="the engine thinks on your time too (its next search starts from "
                        "what it found)")
    p.set_defaults(func=cmd_play)


def hint_values(result: Any) -> str:
    """A hint's numbers, each with its source: the exact score; an alpha-beta score; the
    tree search's win rate and the evaluation's minimax (which may disagree: the one is a
    mean over the search, the other the best line's value); PUCT's discs from its win
    rate."""
    if result.exact_score is not None:
        return f"exact score {result.exact_score:+d}"
    if result.stop_reason == "book" and result.value is not None:
        return f"the opening book's value {result.value:+.1f} discs"
    if result.depth is not None and result.value is not None:
        return f"score {result.value:+.1f} discs at depth {result.depth_text}"
    text = f"win rate {result.win_rate:.2f}"
    if result.value is not None:
        return text + f", evaluation about {result.value:+.1f} discs"
    if result.discs is not None:
        return text + f", about {result.discs:+.1f} discs from it"
    return text
