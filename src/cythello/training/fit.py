"""Fitting pattern weights: sparse ridge least squares, solved by conjugate gradients in
NumPy (no SciPy needed).

Each position is a row with one active feature per pattern instance (its packed weight
slot) plus parity; the prediction is the sum of those weights.  For one stage the fit
minimises

    sum_i (sum_f w[A[i, f]] - y_i)**2 + ridge * sum_j (w_j - prior_j)**2

where ``prior`` is the neighbouring stage's fitted weights (or zero), so configurations
seen rarely or never in this stage borrow the neighbour's value instead of collapsing to
zero (Logistello's and Edax's "temporal" smoothing, as a ridge penalty).
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from ..eval import feature_indices, patterns
from ..eval.weights import unpack_map


def packed_features(own: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """(N, 47) packed weight slots of the positions' features (int32)."""
    return unpack_map()[feature_indices(own, opp)].astype(np.int32)


def fit_stage(features: np.ndarray, labels: np.ndarray, ridge: float,
              prior: Optional[np.ndarray] = None, start: Optional[np.ndarray] = None,
              iterations: int = 300, tolerance: float = 1e-6,
              sample_weight: Optional[np.ndarray] = None,
              size: Optional[int] = None) -> np.ndarray:
    """Weights (float64, in discs, one per packed slot) fitting ``labels`` (discs).
    ``size`` is the number of weights (default: the shipped layout's per stage; a larger
    one fits candidate features appended as further slots, as research/evaluation/capacity.py does)."""
    m = patterns.packed_size() if size is None else size
    n, f = features.shape
    flat = features.ravel()
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    prior = np.zeros(m) if prior is None else np.asarray(prior, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)

    def normal(w: np.ndarray) -> np.ndarray:          # (A^T S A + ridge I) w
        pred = w[features].sum(axis=1) * sw
        return np.bincount(flat, weights=np.repeat(pred, f), minlength=m) + ridge * w

    # Solve for the difference from the prior: (A^T S A + rI) d = A^T S (y - A prior).
    resid = (y - prior[features].sum(axis=1)) * sw
    b = np.bincount(flat, weights=np.repeat(resid, f), minlength=m)
    d = np.zeros(m) if start is None else np.asarray(start, dtype=np.float64) - prior
    r = b - normal(d)
    p = r.copy()
    rr = float(r @ r)
    target = tolerance * tolerance * float(b @ b)
    for _ in range(iterations):
        if rr <= target:
            break
        q = normal(p)
        alpha = rr / float(p @ q)
        d += alpha * p
        r -= alpha * q
        rr_new = float(r @ r)
        p = r + (rr_new / rr) * p
        rr = rr_new
    return np.asarray(prior + d, dtype=np.float64)


def fit_stage_reweighted(features: np.ndarray, labels: np.ndarray, ridge: float,
                         weight_of: Callable[[np.ndarray], np.ndarray],
                         prior: Optional[np.ndarray] = None, rounds: int = 4) -> np.ndarray:
    """Iteratively reweighted least squares: after a plain fit, each of ``rounds`` rounds
    weights a position by ``weight_of(|residual|)`` (normalised to mean 1) and refits from
    the last fit, pulled to the same ``prior``.  A weight that falls with the residual
    fits a robust loss (Huber's, the absolute error)."""
    w = fit_stage(features, labels, ridge, prior=prior)
    y = np.asarray(labels, dtype=np.float64)
    for _ in range(rounds):
        sw = weight_of(np.abs(predict(w, features) - y))
        w = fit_stage(features, y, ridge, prior=prior, start=w, sample_weight=sw / sw.mean())
    return w


def fit_stage_huber(features: np.ndarray, labels: np.ndarray, ridge: float, delta: float,
                    prior: Optional[np.ndarray] = None, rounds: int = 4) -> np.ndarray:
    """Weights fitting ``labels`` under a Huber loss (squared within ``delta`` discs,
    absolute beyond): reweighted least squares with ``min(1, delta / |residual|)``.
    Exact scores have heavy tails (a position whose patterns cannot express its tactics),
    which a squared loss lets pull every weight they touch; the goal is a small mean
    absolute error."""
    return fit_stage_reweighted(features, labels, ridge,
                                lambda r: np.minimum(1.0, delta / np.maximum(r, 1e-9)),
                                prior=prior, rounds=rounds)


def predict(weights: np.ndarray, features: np.ndarray) -> np.ndarray:
    """The fitted evaluation (discs) of positions given their packed features."""
    return np.asarray(weights[features].sum(axis=1), dtype=np.float64)


def quantize(weights: np.ndarray) -> np.ndarray:
    """Float weights in discs to the int16 units of a weights file."""
    return np.asarray(np.clip(np.rint(weights * patterns.SCALE), -32767, 32767), dtype=np.int16)
