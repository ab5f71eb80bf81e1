"""The exceptions of cythello's core: bad input raises ``ValueError`` or ``TypeError``
subclasses, so code that already catches those keeps working; misuse of a running search
raises :class:`PlayerBusyError` (a ``RuntimeError``).

Errors that belong to one subsystem live beside it: ``ShardError`` (an ``OSError``:
self-play files, :mod:`cythello.selfplay.shards`), the ``EngineError`` family (an external
engine that died, timed out or broke its protocol, :mod:`cythello.protocols.engine`) and
``GtpError`` (a GTP command's failure, answered as ``? message``)."""


class InvalidMoveError(ValueError):
    """Text or a number that does not name a move (``"z9"``, ``99``)."""


class IllegalMoveError(ValueError):
    """A well-formed move that is not legal in the position."""


class InvalidBoardError(ValueError):
    """A malformed board string, transcript, bitboard pair or record."""


class SettingsError(ValueError):
    """Search or player settings that make no sense (negative iterations, unknown preset)."""


class WeightsError(ValueError):
    """An evaluation weights file that is missing, corrupt, or made for another feature
    layout."""


class PlayerBusyError(RuntimeError):
    """A player (or tree, or solver) was asked to do something while it searches: search
    again from its own progress callback, or reset from another thread."""


class BookError(ValueError):
    """An opening book file that is missing, corrupt or not a book, or a book asked for
    something it cannot do (a position outside it)."""


class EvaluatorError(ValueError):
    """A policy/value evaluator (:mod:`cythello.nn`) returned something the search cannot
    use: the wrong shapes, NaN, values outside [-1, 1]."""
