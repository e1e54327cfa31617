"""Isotonic-regression calibration by pair-adjacent violators (Gebel 2009, Sec. 4.2.3)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..._estimator import check_is_fitted
from ..._kernels._jit import call_kernel
from ..._kernels.calibration import pool_adjacent_violators, table_lookup
from ..._validation import check_scores
from ._base import BinaryProbabilisticCalibrator

__all__ = ["isotonic_fit", "isotonic_predict", "IsotonicRegressionCalibrator"]


def isotonic_fit(
    scores: ArrayLike, targets: ArrayLike, sample_weight: ArrayLike | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Non-decreasing least-squares fit of ``targets`` on ``scores`` (PAV; Gebel 2009, Algorithm 1).

    Parameters
    ----------
    scores : array_like of shape (N,)
        Finite scores.
    targets : array_like of shape (N,)
        Finite targets (0/1 labels for calibration).
    sample_weight : array_like of shape (N,), optional
        Positive weights (all ones by default).

    Returns
    -------
    thresholds : ndarray of shape (U,)
        The distinct scores in increasing order.
    values : ndarray of shape (U,)
        The fitted (non-decreasing) value at each threshold.

    Raises
    ------
    ValueError
        On non-finite input, non-positive weights or mismatched lengths.

    Notes
    -----
    Tied scores are pooled first (their weighted mean target with the summed
    weight), then blocks that violate monotonicity are merged with weights
    ``w_{k,l} = w_{k,i-1} + w_{i,l}`` and weighted means (Gebel 2009,
    Algorithm 1; Zadrozny & Elkan 2002).

    Examples
    --------
    The example of Gebel (2009), Fig. 4.4:

    >>> t, v = isotonic_fit(np.arange(7.0), [0, 1, 0, 0, 1, 0, 1])
    >>> v.round(4).tolist()
    [0.0, 0.3333, 0.3333, 0.3333, 0.5, 0.5, 1.0]
    """
    s = check_scores(scores)
    t = check_scores(targets, name="targets")
    w = np.ones_like(s) if sample_weight is None else check_scores(sample_weight, name="sample_weight")
    if not (s.shape == t.shape == w.shape):
        raise ValueError(
            f"`scores`, `targets` and `sample_weight` must have the same length; got {s.shape[0]}, "
            f"{t.shape[0]} and {w.shape[0]}."
        )
    if np.any(w <= 0):
        raise ValueError("`sample_weight` must be positive.")
    thresholds, inverse = np.unique(s, return_inverse=True)
    pooled_weight = np.bincount(inverse, weights=w)
    pooled_target = np.bincount(inverse, weights=w * t) / pooled_weight
    starts, block_sums, block_weights = call_kernel(
        pool_adjacent_violators,
        pooled_target * pooled_weight,
        pooled_weight,
        work=pooled_weight.size,
    )
    lengths = np.diff(np.append(starts, thresholds.size))
    values = np.repeat(block_sums / block_weights, lengths)
    return thresholds, values


def isotonic_predict(
    thresholds: np.ndarray, values: np.ndarray, scores: ArrayLike, interpolation: str = "step"
) -> np.ndarray:
    """Evaluate an isotonic fit at new scores.

    Parameters
    ----------
    thresholds, values : ndarray of shape (U,)
        Output of :func:`isotonic_fit`.
    scores : array_like of shape (N,)
        Scores at which to evaluate the fit.
    interpolation : {"step", "linear"}, default="step"
        ``"step"``: the value of the largest threshold ``<= score`` (the
        first value below the smallest threshold), the thesis's "interval
        that contains m".  ``"linear"``: linear interpolation between
        thresholds (as :class:`sklearn.isotonic.IsotonicRegression`).
        Both are constant outside the training range.

    Returns
    -------
    ndarray of shape (N,)

    Raises
    ------
    ValueError
        On an unknown ``interpolation``.

    Notes
    -----
    The PAV fit is a step function on the training scores (Gebel 2009,
    Sec. 4.2.3, Algorithm 1; Zadrozny & Elkan 2002): a new score takes the
    value of the block (interval between thresholds) that contains it.

    References
    ----------
    B. Zadrozny, C. Elkan, Transforming classifier scores into accurate
    multiclass probability estimates, KDD 2002.

    Examples
    --------
    >>> isotonic_predict(np.array([0.0, 1.0]), np.array([0.2, 0.8]), [-1.0, 0.5, 2.0]).tolist()
    [0.2, 0.2, 0.8]
    """
    s = np.asarray(scores, dtype=np.float64)
    if interpolation == "step":
        index = np.clip(np.searchsorted(thresholds, s, side="right") - 1, 0, thresholds.size - 1)
        return values[index]
    if interpolation == "linear":
        return np.interp(s, thresholds, values)
    raise ValueError(f"`interpolation` must be 'step' or 'linear'; got {interpolation!r}.")


class IsotonicRegressionCalibrator(BinaryProbabilisticCalibrator):
    """Isotonic-regression calibration ``P(+ | m) = g(m)``, ``g`` non-decreasing (PAV).

    Parameters
    ----------
    interpolation : {"step", "linear"}, default="step"
        How test scores between training scores are mapped (see
        :func:`isotonic_predict`); outside the training range the end values
        are used.

    Attributes
    ----------
    thresholds_ : ndarray of shape (U,)
        Distinct training scores.
    values_ : ndarray of shape (U,)
        Fitted probabilities at the thresholds.
    classes_ : ndarray of shape (2,)

    Notes
    -----
    Gebel (2009), Eq. (4.6) and Algorithm 1: ``g = argmin sum (c_i - g(m_i))**2``
    over non-decreasing ``g`` with ``c_i`` the 0/1 labels.  Ties are pooled
    before PAV.  This is the probabilistic isotonic calibrator; the evidential
    one is :class:`dstk.calibration.IsotonicCalibrator`.

    References
    ----------
    B. Zadrozny, C. Elkan, Transforming classifier scores into accurate
    multiclass probability estimates, KDD 2002.

    Examples
    --------
    >>> cal = IsotonicRegressionCalibrator().fit(np.arange(7.0), [0, 1, 0, 0, 1, 0, 1])
    >>> cal.predict_proba([4.5])[:, 1].tolist()
    [0.5]
    """

    def __init__(self, interpolation: str = "step"):
        self.interpolation = interpolation

    def _fit(self, s, y):
        if self.interpolation not in ("step", "linear"):
            raise ValueError(f"`interpolation` must be 'step' or 'linear'; got {self.interpolation!r}.")
        self.thresholds_, self.values_ = isotonic_fit(s, y)
        # the fit is constant on each PAV block: keep one breakpoint per block (step) or the two ends
        # of each block (linear), so a prediction searches the blocks, not every distinct score
        change = np.flatnonzero(self.values_[1:] != self.values_[:-1]) + 1
        starts = np.concatenate(([0], change))
        ends = np.concatenate((change - 1, [self.values_.size - 1]))
        # value of the largest threshold <= s: count the block starts e <= s as the starts just below
        # e that are < s (no float lies strictly between them), with the first block below everything
        self._step_edges = np.ascontiguousarray(np.nextafter(self.thresholds_[starts[1:]], -np.inf))
        block_values = self.values_[starts]
        self._step_table = np.ascontiguousarray(np.column_stack([1.0 - block_values, block_values]))
        corners = np.unique(np.concatenate((starts, ends)))
        self._linear_x = self.thresholds_[corners]
        self._linear_y = self.values_[corners]

    def _positive_probability(self, s):
        if self.interpolation == "step":
            return table_lookup(s, self._step_edges, self._step_table)[:, 1]
        return np.interp(s, self._linear_x, self._linear_y)

    def predict_proba(self, scores: ArrayLike) -> np.ndarray:
        """Calibrated probabilities.

        Parameters
        ----------
        scores : array_like of shape (N,)
            Scores of the same kind as in ``fit``.

        Returns
        -------
        ndarray of shape (N, 2)
            Column 0: ``P(classes_[0])``; column 1: ``P(classes_[1])`` (one
            lookup of the PAV blocks for ``interpolation="step"``).
        """
        if self.interpolation != "step":
            return super().predict_proba(scores)
        check_is_fitted(self, self._fitted_attribute)
        return table_lookup(self._check_input(scores), self._step_edges, self._step_table)
