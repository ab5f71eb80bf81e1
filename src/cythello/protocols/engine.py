"""Drive external Othello engines over NBoard or GTP as players, the way python-chess's
``chess.engine`` drives UCI engines::

    with cythello.protocols.engine.popen_gtp(["edax", "-gtp"]) as edax:
        result = edax.play(board, Limit(time=1.0))
        board.push(result.move)

Every client is a context manager that always shuts its process down, has timeouts, and
raises :class:`EngineTerminatedError` when the engine dies or :class:`EngineProtocolError`
when it answers nonsense (an unparsable line, an illegal move).  Clients follow the player
protocol (``choose_move(board)``) with their default :class:`Limit`, so they plug into
:func:`cythello.match.run_match` and the ``match`` command.
"""
from __future__ import annotations

import itertools
import os
import queue
import shlex
import subprocess
import threading
import time
import weakref
from typing import Any, Dict, List, Optional, Sequence, Union

from ..core._board import Board
from ..errors import IllegalMoveError, InvalidMoveError
from ..records.ggf import GgfGame, parse_move_item
from ..search.limits import Limit, PlayResult
from ..squares import BLACK, square_name
from ._io import MAX_LINE, command_lines
from .nboard import level_for_iterations

Command = Union[str, Sequence[str]]


class EngineError(RuntimeError):
    """Base class of engine-client errors."""


class EngineTerminatedError(EngineError):
    """The engine process exited (or closed its output) unexpectedly."""


class EngineProtocolError(EngineError):
    """The engine answered something the protocol does not allow."""


class EngineTimeoutError(EngineError):
    """The engine did not answer in time."""


MAX_QUEUED = 10_000           # lines read ahead of the client; then the engine waits


class _Pipe:
    """A child process with line-oriented stdin/stdout; stdout is read on a thread, as
    bytes decoded leniently, line length and lines queued both bounded.  The child runs
    in a process group of its own, so closing kills whatever it started too."""

    def __init__(self, command: Command, stderr: Any = subprocess.DEVNULL) -> None:
        # A command string is split like a shell would (Windows paths keep backslashes).
        argv = (shlex.split(command, posix=os.name != "nt") if isinstance(command, str)
                else list(command))
        group: Dict[str, Any] = ({"start_new_session": True} if os.name != "nt" else
                                 {"creationflags": getattr(subprocess,
                                                           "CREATE_NEW_PROCESS_GROUP", 0)})
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                bufsize=0, **group)
        except OSError as exc:
            raise EngineTerminatedError(f"cannot start engine {argv!r}: {exc}") from exc
        self.argv = argv
        self.lines: "queue.Queue[Optional[str]]" = queue.Queue(maxsize=MAX_QUEUED)
        # The reader holds the stream and the queue, not this object, so a client dropped
        # without quit() is collected, and its finalizer ends the engine (and at exit).
        threading.Thread(target=_read_lines, args=(self.proc.stdout, self.lines),
                         daemon=True).start()
        self._finalizer = weakref.finalize(self, _end_process, self.proc)

    def send(self, line: str) -> None:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write((line + "\n").encode("utf-8"))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise EngineTerminatedError(f"engine {self.argv[0]} is gone ({exc})") from None

    def readline(self, deadline: float, allowed: float) -> str:
        """The next line, by ``deadline`` (``time.monotonic()``) however fast lines arrive
        (an engine that never stops talking is no answer); raises when the engine exits,
        even if a process it started still holds its output.  ``allowed``: the seconds the
        answer had, for the message."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EngineTimeoutError(f"engine {self.argv[0]} did not answer within "
                                         f"{allowed:.1f} s")
            try:
                line = self.lines.get(timeout=min(left, 0.1))
                break
            except queue.Empty:
                code = self.proc.poll()
                if code is not None and self.lines.empty():
                    raise EngineTerminatedError(f"engine {self.argv[0]} exited (code {code})") \
                        from None
        if line is None:
            self.lines.put(None)                  # stay terminated for later reads
            code = self.proc.poll()
            raise EngineTerminatedError(f"engine {self.argv[0]} exited (code {code})")
        if line is _TOO_LONG:
            self.lines.put(None)
            raise EngineProtocolError(f"engine {self.argv[0]} sent a line longer than "
                                      f"{MAX_LINE:,} characters")
        return line

    def close(self, timeout: float = 2.0) -> None:
        self._finalizer.detach()
        _end_process(self.proc, timeout)


def _read_lines(stream: Any, lines: "queue.Queue[Optional[str]]") -> None:
    try:
        for line in command_lines(stream, skip_long=False):
            lines.put(_TOO_LONG if line is None else line.rstrip("\r\n"))
    except (OSError, ValueError):
        pass
    lines.put(None)


def _end_process(proc: "subprocess.Popen[bytes]", timeout: float = 0.5) -> None:
    """Close the engine's input (it may leave by itself), then kill it and everything it
    started (its process group)."""
    if proc.poll() is None:
        try:
            if proc.stdin:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            pass
    _kill_group(proc)
    for stream in (proc.stdin, proc.stdout):
        try:
            if stream:
                stream.close()
        except OSError:
            pass


def _kill_group(proc: "subprocess.Popen[bytes]") -> None:
    """Kill the engine and everything it started (its process group)."""
    if os.name != "nt":
        import signal
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            pass
    elif proc.poll() is None:
        proc.kill()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        pass


_TOO_LONG = "<line too long>"


class _Client:
    default_limit = Limit(time=1.0)

    def __init__(self, command: Command, limit: Optional[Limit] = None,
                 timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.limit = limit or self.default_limit
        self.name = str(command)
        self._pipe = _Pipe(command)
        try:
            self._handshake()
        except BaseException:
            self._pipe.close()
            raise

    def _handshake(self) -> None:
        raise NotImplementedError

    def play(self, board: Board, limit: Optional[Limit] = None) -> PlayResult:
        raise NotImplementedError

    def choose_move(self, board: Board) -> int:
        return self.play(board, self.limit).move

    def _checked(self, board: Board, text: str) -> int:
        try:
            move = parse_move_item(text).move
        except (InvalidMoveError, ValueError):
            raise EngineProtocolError(f"{self.name} answered {text!r}, which is not a move") from None
        if not board.is_legal(move):
            raise EngineProtocolError(f"{self.name} played the illegal move "
                                      f"{square_name(move)} in {board.board_string()!r}")
        return move

    def _allowed(self, limit: Limit) -> float:
        """Seconds an answer to a move request may take: the search's time and the
        client's timeout."""
        return self.timeout + (limit.time or 0.0)

    def quit(self) -> None:
        self._pipe.close()

    close = quit

    def __enter__(self) -> "_Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class NBoardClient(_Client):
    """A player backed by an NBoard-protocol engine process."""

    default_limit = Limit(depth=4)
    _ping = itertools.count(1)

    def _handshake(self) -> None:
        self._pipe.send("nboard 2")
        self._sync()

    def _sync(self) -> List[str]:
        """Ping and wait for the matching pong; returns the lines seen before it."""
        n = next(self._ping)
        self._pipe.send(f"ping {n}")
        deadline = time.monotonic() + self.timeout
        seen: List[str] = []
        while True:
            line = self._pipe.readline(deadline, self.timeout)
            if line.startswith("set myname "):
                self.name = line[len("set myname "):].strip() or self.name
            if line.strip() == f"pong {n}":
                return seen
            seen.append(line)

    def play(self, board: Board, limit: Optional[Limit] = None) -> PlayResult:
        """Send the game (``set game``) and ``go``; the engine's move, eval and node count."""
        limit = limit or self.limit
        if board.is_game_over():
            raise IllegalMoveError("the game is over: there is no move to play")
        # cythello's own NBoard mode maps levels to iterations (level_iterations).
        depth = limit.depth or (level_for_iterations(limit.iterations)
                                if limit.iterations else 4)
        self._pipe.send(f"set depth {depth}")
        self._pipe.send("set game " + GgfGame.from_board(board).to_ggf())
        self._sync()
        self._pipe.send("go")
        allowed = self._allowed(limit)
        deadline = time.monotonic() + allowed
        info: Dict[str, Any] = {}
        while True:
            line = self._pipe.readline(deadline, allowed)
            if line.startswith("nodestats "):
                parts = line.split()
                try:
                    info["nodes"], info["seconds"] = int(parts[1]), float(parts[2])
                except (IndexError, ValueError):
                    pass
            if line.startswith("status error"):
                raise EngineProtocolError(f"{self.name}: {line[7:]}")
            if line.startswith("==="):
                body = line[3:].strip()
                fields = body.replace(" ", "/").split("/") if body else []
                if not fields:
                    raise EngineProtocolError(f"{self.name} sent an empty move line {line!r}")
                move = self._checked(board, fields[0])
                ev = None
                if len(fields) > 1 and fields[1]:
                    try:
                        ev = float(fields[1])
                    except ValueError:
                        raise EngineProtocolError(f"{self.name} sent a bad eval in {line!r}") from None
                return PlayResult(move, ev, info)


class GtpClient(_Client):
    """A player backed by a GTP engine process (cythello's ``gtp`` mode, Edax ``-gtp``).
    Without a time limit the engine thinks as its own settings say."""

    default_limit = Limit()

    _ids = itertools.count(1)
    _late = 0                     # replies still owed for commands that timed out

    def _command(self, text: str, timeout: Optional[float] = None) -> str:
        """Send one command with a fresh id and return the body of its reply.  A reply to
        an earlier command that timed out (it came late) is skipped, so a timeout never
        leaves the session out of step; engines that do not echo ids are followed by
        counting the replies owed."""
        ident = next(self._ids)
        self._pipe.send(f"{ident} {text}")
        allowed = timeout or self.timeout
        deadline = time.monotonic() + allowed
        try:
            while True:
                lines: List[str] = []
                while True:
                    line = self._pipe.readline(deadline, allowed)
                    if not line.strip():
                        if lines:
                            break
                        continue
                    lines.append(line)
                head = lines[0]
                if head[:1] not in ("=", "?"):
                    raise EngineProtocolError(f"{self.name} answered {head!r} to {text!r}")
                digits = len(head) - 1 - len(head[1:].lstrip("0123456789"))
                echoed = head[1:1 + digits]
                if (echoed and echoed != str(ident)) or (not echoed and self._late):
                    self._late = max(0, self._late - 1)
                    continue                          # an earlier command's late reply
                body = head[1 + digits:].strip()
                if head.startswith("?"):
                    raise EngineProtocolError(f"{self.name} refused {text!r}: {body}")
                return "\n".join([body] + lines[1:]).strip()
        except EngineTimeoutError:
            self._late += 1
            raise

    def _handshake(self) -> None:
        version = self._command("protocol_version")
        if version != "2":
            raise EngineProtocolError(f"{self.name} speaks GTP {version!r}, not 2")
        try:
            self.name = self._command("name") or self.name
        except EngineProtocolError:
            pass

    def play(self, board: Board, limit: Optional[Limit] = None) -> PlayResult:
        """Replay the game from ``clear_board`` and ``genmove``; the engine's move."""
        limit = limit or self.limit
        if board.is_game_over():
            raise IllegalMoveError("the game is over: there is no move to play")
        root = board.root()
        if root != Board():
            raise EngineError("GTP has no command to set up a position: games must start "
                              "from the initial position")
        self._command("clear_board")
        replay = root.copy()
        for move in board.move_stack:
            colour = "b" if replay.turn == BLACK else "w"
            self._command(f"play {colour} {square_name(move)}")
            replay.push(move)
        colour = "b" if board.turn == BLACK else "w"
        if limit.time:
            self._command(f"time_settings 0 {limit.time:g} 1")
            self._command(f"time_left {colour} {limit.time:g} 1")
        answer = self._command(f"genmove {colour}", timeout=self._allowed(limit))
        return PlayResult(self._checked(board, answer))


def popen_nboard(command: Command, limit: Optional[Limit] = None,
                 timeout: float = 30.0) -> NBoardClient:
    """Start an NBoard-protocol engine, e.g. ``popen_nboard("cythello nboard")``."""
    return NBoardClient(command, limit, timeout)


def popen_gtp(command: Command, limit: Optional[Limit] = None, timeout: float = 30.0) -> GtpClient:
    """Start a GTP engine, e.g. ``popen_gtp(["edax", "-gtp"])``."""
    return GtpClient(command, limit, timeout)
