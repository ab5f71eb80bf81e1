"""Bring your own network: the contract between the PUCT search
(:class:`cythello.PUCTPlayer`, :func:`cythello.selfplay.generate` with ``evaluator=``)
and a policy/value evaluator, and reference evaluators.

    >>> import numpy as np, cythello as cy
    >>> def net(planes, legal):                 # (n, 2, 8, 8) float32, (n, 65) bool
    ...     return np.zeros((len(planes), 65)), np.zeros(len(planes))
    >>> cy.PUCTPlayer(net, iterations=200).choose_move(cy.Board())

:func:`uniform_evaluator` knows nothing (equal priors, even values);
:class:`PatternEvaluator` is the shipped pattern evaluation in C: each move's prior from
the evaluation after it and the value the best of those (``search_depth=1``).  Only
numpy is needed; a framework's network is a function of the same shape (see
``examples/alphazero.py``).
"""
from __future__ import annotations

from typing import Tuple

import numpy as np
import numpy.typing as npt

from ..errors import EvaluatorError
from ._pattern import PatternEvaluator
from .contract import Evaluator, check_output

__all__ = ["Evaluator", "EvaluatorError", "check_output", "uniform_evaluator",
           "PatternEvaluator"]


def uniform_evaluator(planes: npt.NDArray[np.float32], legal: npt.NDArray[np.bool_]
                      ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Equal priors and an even value for every position: PUCT with it is a plain
    visit-count search, the baseline any network should beat."""
    n = len(planes)
    return np.zeros((n, 65), dtype=np.float32), np.zeros(n, dtype=np.float32)
