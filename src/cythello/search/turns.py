"""The concurrency contract every searching player keeps (:class:`~cythello.MCTSPlayer`,
:class:`~cythello.PUCTPlayer`), in one place.

A player owns one search tree, which one thing at a time may use: a search, a reset, or
the start of pondering.  So:

- ``search()``, ``choose_move()``, ``ponder()``, ``reset()`` and ``stop_pondering()``
  called from several threads **wait their turn** and run one after another; none is
  refused because another is running.
- Each of them first **ends pondering** (and waits for its threads) and takes its place:
  pondering never runs beside a search, and a ``ponder()`` called from another thread
  while a search runs starts when that search has returned.
- ``stop()`` never waits: from any thread it ends the running search soon (which returns
  what it has) and pondering.  A search that is still waiting its turn is not stopped by
  it, unless it was given ``stops_seen`` (the player's ``stops`` read before the stop).
- A call from **inside the player's own search** (its ``on_progress`` callback, its
  evaluator) raises :class:`~cythello.errors.PlayerBusyError`: waiting for the turn
  there would wait for ever.
"""
from __future__ import annotations

import threading
import time
import weakref
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional, Sequence, Set, Tuple

from ..errors import PlayerBusyError


class Turns:
    """The turn to use one player's tree.  ``end_pondering`` stops the player's pondering
    (if any) and waits for it; it is called at the start of every turn."""

    def __init__(self, end_pondering: Callable[[], None]) -> None:
        self._lock = threading.Lock()
        self.taken_at = 0.0
        self._owner: Optional[int] = None       # the thread whose turn it is
        self._end_pondering = end_pondering
        # The player's pondering threads, which add themselves: an evaluator called there
        # is inside the player's work too (waiting for the turn there would wait for a
        # turn-holder that waits for that very thread).  A plain set, so that a pondering
        # thread can hold it without holding the player.
        self.pondering_threads: Set[int] = set()

    @property
    def mine(self) -> bool:
        """Whether the calling thread is inside the player's own work: holds the turn (a
        search) or is one of its pondering threads."""
        me = threading.get_ident()
        return self._owner == me or me in self.pondering_threads

    @property
    def taken(self) -> bool:
        """Whether some thread holds the turn now."""
        return self._owner is not None

    def end_pondering(self) -> None:
        """End pondering and wait for it: by taking the turn (after any search running in
        another thread), or at once from inside the player's own work, where nothing
        ponders beside it."""
        if self.mine:
            return
        with self.turn("stop_pondering()"):
            pass                                # taking the turn ends pondering

    @contextmanager
    def turn(self, what: str) -> Iterator[None]:
        """Wait for the turn, end pondering, and hold the turn for the ``with`` block.
        ``what`` names the call for the error raised when its own search calls it."""
        if self.mine:
            raise PlayerBusyError(
                f"{what} was called from inside this player's own search (its on_progress "
                "callback or its evaluator); call it after the search returns")
        with self._lock:
            self._owner = threading.get_ident()
            # The moment this call got the player: a search's time counts from here, so
            # that ending the pondering is inside its budget, not added after it.
            self.taken_at = time.monotonic()
            try:
                self._end_pondering()
                yield
            finally:
                self._owner = None


class PonderJob:
    """A player's pondering: background threads that search until :meth:`end`.  Each
    thread runs one of ``work`` (a function and its arguments); ``halt()`` makes them
    all return soon; ``after()``, once they have, readies the search for the next turn.
    Neither the threads nor these functions may hold the player: a finalizer on ``owner``
    ends the job when the player is dropped, so no thread outlives its player."""

    def __init__(self, owner: object, name: str,
                 work: Sequence[Tuple[Callable[..., Any], Tuple[Any, ...]]],
                 halt: Callable[[], None], after: Optional[Callable[[], None]] = None
                 ) -> None:
        self._threads = [threading.Thread(target=fn, args=args, name=name, daemon=True)
                         for fn, args in work]
        self._halt = halt
        self._finalizer = weakref.finalize(owner, _end_job, halt, self._threads, after)
        for thread in self._threads:
            thread.start()

    def alive(self) -> bool:
        """Whether any of its threads still runs."""
        return any(thread.is_alive() for thread in self._threads)

    def signal(self) -> None:
        """Ask the threads to return, without waiting (``stop()`` from any thread)."""
        self._halt()

    def end(self) -> None:
        """Halt the threads and wait for them (once; later calls do nothing)."""
        self._finalizer()


def _end_job(halt: Callable[[], None], threads: Sequence[threading.Thread],
             after: Optional[Callable[[], None]]) -> None:
    halt()
    for thread in threads:
        if thread is not threading.current_thread():
            thread.join()
    if after is not None:
        after()
