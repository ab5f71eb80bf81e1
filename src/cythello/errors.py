"""The exceptions cythello raises.  All are ``ValueError`` or ``TypeError`` subclasses, so code
that already catches those keeps working."""


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
