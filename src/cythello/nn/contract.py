"""The evaluator contract: what the PUCT search hands a network and what it takes back,
checked in one place.

An evaluator is any callable ``f(planes, legal) -> (logits, values)``:

* ``planes``: float32 ``(n, 2, 8, 8)``, 0/1, the side to move's discs first, square i at
  ``[:, :, i // 8, i % 8]`` (as :meth:`cythello.Board.planes`);
* ``legal``: bool ``(n, 65)``, index 64 the pass (set only when no placement exists);
* ``logits``: ``(n, 65)``, anything ``numpy.asarray`` takes; only legal entries are read,
  soft-maxed over the legal moves (a network need not mask; ``-inf`` is a zero prior);
* ``values``: ``(n,)`` (or ``(n, 1)``) in [-1, 1] for the side to move (a tanh head).

The input arrays are the search's buffers, reused by the next call: copy what you keep.
"""
from __future__ import annotations

from typing import Any, Protocol, Tuple

import numpy as np
import numpy.typing as npt

from ..errors import EvaluatorError

VALUE_SLACK = 1e-3     # rounding a float32 tanh may add beyond 1 (clipped, not refused)


class Evaluator(Protocol):
    """A batched policy/value network (see the module's docstring for the shapes)."""

    def __call__(self, planes: npt.NDArray[np.float32],
                 legal: npt.NDArray[np.bool_]) -> Tuple[Any, Any]: ...


def check_output(output: Any, legal: npt.NDArray[np.bool_], call: int = 0
                 ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """An evaluator's answer for the positions of ``legal`` as ``(logits, values)``
    float32 arrays, or an :class:`~cythello.errors.EvaluatorError` saying what is wrong
    (``call`` numbers the evaluator's calls in a search, for the message)."""
    n = len(legal)
    where = f"evaluator call {call}" if call else "the evaluator"
    if not isinstance(output, (tuple, list)) or len(output) != 2:
        raise EvaluatorError(f"{where} must return (logits, values), not "
                             f"{type(output).__name__}")
    try:
        logits = np.asarray(output[0], dtype=np.float32)
        values = np.asarray(output[1], dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EvaluatorError(f"{where} returned something that is not numbers: {exc}") from None
    if logits.shape != (n, 65):
        raise EvaluatorError(f"{where}: logits must have shape ({n}, 65), not {logits.shape}")
    if values.shape == (n, 1):
        values = values.reshape(n)
    if values.shape != (n,):
        raise EvaluatorError(f"{where}: values must have shape ({n},), not {values.shape}")
    # Legal logits may be -inf (a zero prior), never NaN or +inf.  The common case (all
    # finite, all in range) costs two scans: a batch of one leaf is checked per leaf.
    if not np.isfinite(logits[legal]).all():
        bad = legal & (np.isnan(logits) | (logits == np.inf))
        if bad.any():
            row, move = (int(x) for x in np.argwhere(bad)[0])
            raise EvaluatorError(f"{where}: logit of legal move {move} of position {row} is "
                                 f"{logits[row, move]}")
    size = np.abs(values)
    if not (size <= 1).all():                       # also false for NaN
        if not np.isfinite(values).all():
            row = int(np.flatnonzero(~np.isfinite(values))[0])
            raise EvaluatorError(f"{where}: value of position {row} is {values[row]}")
        if (size > 1 + VALUE_SLACK).any():
            row = int(np.flatnonzero(size > 1 + VALUE_SLACK)[0])
            raise EvaluatorError(f"{where}: values must lie in [-1, 1]; position {row} has "
                                 f"{values[row]}")
        values = np.clip(values, -1.0, 1.0)
    return np.ascontiguousarray(logits), values
