"""Platt's logistic calibration with smoothed targets (Gebel 2009, Sec. 4.2.1)."""

from __future__ import annotations

import numpy as np

from ...evidence._logistic import fit_logistic, sigmoid, standardize_scores
from ._base import BinaryProbabilisticCalibrator

__all__ = ["PlattCalibrator"]


class PlattCalibrator(BinaryProbabilisticCalibrator):
    """Platt scaling: ``P(+ | m) = 1 / (1 + exp(-(A m + B)))``.

    Parameters
    ----------
    targets : {"smoothed", "labels"}, default="smoothed"
        ``"smoothed"``: Platt's targets ``(N+ + 1)/(N+ + 2)`` for positives and
        ``1/(N- + 2)`` for negatives; ``"labels"``: plain 0/1 labels.
    max_iter : int, default=100
        Newton iterations; a :class:`~dstk.exceptions.ConvergenceWarning`
        is issued if the tolerance is not reached.

    Attributes
    ----------
    slope_ : float
        ``A`` (positive when scores increase towards the positive class).
    intercept_ : float
        ``B``.
    converged_ : bool
    classes_ : ndarray of shape (2,)

    Notes
    -----
    Gebel (2009), Eqs. (4.3)-(4.4): minimise the cross-entropy
    ``-sum_i [t_i log P_i + (1 - t_i) log(1 - P_i)]`` with the smoothed
    targets.  Solved by a safeguarded Newton method (Lin, Lin & Weng 2007),
    which reaches the same optimum as Platt's model-trust algorithm.  Note the
    sign convention: Platt (1999) writes ``1 / (1 + exp(A f + B))``.  Scores
    and probabilities are both accepted as ``m`` (no log-odds transform).

    References
    ----------
    J. Platt, Probabilistic outputs for support vector machines and
    comparisons to regularized likelihood methods, 1999.
    H.-T. Lin, C.-J. Lin, R. C. Weng, A note on Platt's probabilistic outputs
    for support vector machines, *Machine Learning* 68 (2007) 267-276.

    Examples
    --------
    >>> scores = np.array([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0])
    >>> cal = PlattCalibrator().fit(scores, [0, 0, 1, 0, 1, 1])
    >>> bool(cal.slope_ > 0)
    True
    >>> cal.predict_proba([0.0]).shape
    (1, 2)
    """

    def __init__(self, targets: str = "smoothed", *, max_iter: int = 100):
        self.targets = targets
        self.max_iter = max_iter

    def _fit(self, s, y):
        if self.targets == "smoothed":
            n_pos = y.sum()
            n_neg = y.size - n_pos
            t = np.where(y == 1, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
        elif self.targets == "labels":
            t = y
        else:
            raise ValueError(f"`targets` must be 'smoothed' or 'labels'; got {self.targets!r}.")
        # standardise the score for conditioning (free of overflow); transform the coefficients back
        centre, spread = standardize_scores(s)
        self._centre, self._spread = centre, spread
        design = np.column_stack([(s - centre) / spread, np.ones_like(s)])
        w, _, converged = fit_logistic(design, t, max_iter=self.max_iter, name="PlattCalibrator")
        self._standardized = w
        self.slope_ = float(w[0] / spread)
        self.intercept_ = float(w[1] - w[0] * centre / spread)
        if not (np.isfinite(self.slope_) and np.isfinite(self.intercept_)):
            raise ValueError(
                f"PlattCalibrator: the fitted sigmoid is not finite in the units of the scores (slope "
                f"{self.slope_!r}, intercept {self.intercept_!r}; scores centred at {centre:.6g} with spread "
                f"{spread:.6g}). Rescale the scores to a moderate range before calibrating."
            )
        self.converged_ = bool(converged)

    def _positive_probability(self, s):
        # evaluated on the standardised scores: invariant under affine changes of the scores
        return sigmoid(self._standardized[0] * ((s - self._centre) / self._spread) + self._standardized[1])
