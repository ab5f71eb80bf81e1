"""Training cythello's evaluation from its own games: self-play positions, exact and
bootstrapped labels, sparse ridge fits, a weights file (see :mod:`.pipeline`)."""
from .pipeline import PRESETS, Config, preset, run

__all__ = ["Config", "PRESETS", "preset", "run"]
