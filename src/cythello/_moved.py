"""Names that moved to another module, still found at their old import paths.

A module that gave a name away lists it in its own ``_MOVED`` table (old name -> the module
that holds it now) and hands lookups to :func:`moved_name` from its ``__getattr__``
(PEP 562), so ``from cythello.search.players import MCTSPlayer`` and pickles that name the
old place keep working.  A public name warns (DeprecationWarning: the old path goes in the
release after next); a private one, which only pickles name, does not.  The new home is
imported only when an old name is asked for, so no module imports the one it gave to.
"""
from __future__ import annotations

import importlib
import warnings
from typing import Any, Dict


def moved_name(module: str, name: str, moved: Dict[str, str]) -> Any:
    """``name`` of ``module`` from the module in ``moved`` that holds it now; an
    AttributeError, as for any missing name, where ``moved`` has none."""
    home = moved.get(name)
    if home is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    if not name.startswith("_"):
        warnings.warn(f"{module}.{name} is {home}.{name} now; the old name goes in a "
                      "later release", DeprecationWarning, stacklevel=3)
    return getattr(importlib.import_module(home), name)
