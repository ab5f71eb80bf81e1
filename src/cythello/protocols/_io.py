"""Lines read from another program, as bytes decoded leniently and bounded in length: the
commands a GUI sends the protocol engines, and the replies of engines cythello drives.

A GUI, a script or an engine can send anything: one invalid UTF-8 byte must not kill the
reader (as a strict decoder would), and one endless line must not make it buffer without
bound or stall.  Output is kept to ASCII, so that echoing such input back cannot fail
either.
"""
from __future__ import annotations

from typing import IO, Any, Iterator, Optional

MAX_LINE = 100_000          # characters; a whole GGF game is a few hundred


def command_lines(stream: IO[Any], skip_long: bool = True) -> Iterator[Optional[str]]:
    """The lines of ``stream`` (its binary buffer when it has one), invalid UTF-8 replaced
    by U+FFFD; ``None`` stands for a line longer than MAX_LINE, whose text is skipped
    (``skip_long``), or after which reading ends (nothing sane follows from an engine)."""
    source = getattr(stream, "buffer", None) or stream
    while True:
        line = source.readline(MAX_LINE + 1)
        if not line:
            return
        newline = b"\n" if isinstance(line, bytes) else "\n"
        if len(line) > MAX_LINE and not line.endswith(newline):
            if not skip_long:
                yield None
                return
            while True:                         # drop the rest of it, a chunk at a time
                chunk = source.readline(1 << 16)
                if not chunk or chunk.endswith(newline):
                    break
            yield None
            continue
        yield line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line


def ascii_line(text: str, limit: int = 500) -> str:
    """``text`` as one ASCII line for a reply: other characters escaped, and cut to
    ``limit`` characters (an error about a huge argument need not repeat it)."""
    text = text.replace("\r", " ").replace("\n", " ")
    if len(text) > limit:
        text = text[:limit] + "..."
    return text.encode("ascii", "backslashreplace").decode("ascii")
