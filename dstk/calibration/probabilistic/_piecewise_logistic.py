"""Piecewise logistic regression calibration (Zhang & Yang 2004; Gebel 2009, Sec. 4.2.2)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ...evidence._logistic import fit_logistic, sigmoid
from ._base import BinaryProbabilisticCalibrator

__all__ = ["PiecewiseLogisticCalibrator", "hat_basis"]


def hat_basis(values: ArrayLike, knots: ArrayLike) -> np.ndarray:
    """Linear B-spline (hat) basis ``l_j(m)`` at ``values`` for increasing ``knots``.

    Parameters
    ----------
    values : array_like of shape (N,)
        Points ``m`` at which to evaluate the basis.
    knots : array_like of shape (J,)
        Strictly increasing knots.

    Returns
    -------
    ndarray of shape (N, J)
        ``sum_j w_j l_j(m)`` is the continuous piecewise-linear interpolant of
        the values ``w_j`` at the knots (Gebel 2009, Eq. 4.5); values outside
        ``[knots[0], knots[-1]]`` are clamped to the end knots.

    Notes
    -----
    ``l_j(m)`` is 1 at knot ``theta_j``, 0 at the other knots and linear in
    between (Zhang & Yang 2004; Gebel 2009, Sec. 4.2.2, Eq. 4.5), so the
    piecewise-linear log-odds of the calibrator is ``sum_j w_j l_j(m)``.
    Computed column by column with :func:`numpy.interp` on the unit vectors.

    References
    ----------
    J. Zhang, Y. Yang, Probabilistic score estimation with piecewise logistic
    regression, ICML 2004.

    Examples
    --------
    >>> hat_basis([0.5, 2.0], [0.0, 1.0, 2.0]).tolist()
    [[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]]
    """
    m = np.asarray(values, dtype=np.float64)
    k = np.asarray(knots, dtype=np.float64)
    eye = np.eye(k.size)
    return np.column_stack([np.interp(m, k, eye[j]) for j in range(k.size)])


def _slope_change_matrix(knots):
    """Rows ``c_j`` with ``c_j . w`` = change of slope at inner knot ``j`` (j = 1, 2)."""
    k = knots
    rows = []
    for j in range(2, k.size):
        c = np.zeros(k.size)
        c[j] += 1.0 / (k[j] - k[j - 1])
        c[j - 1] -= 1.0 / (k[j] - k[j - 1])
        c[j - 1] -= 1.0 / (k[j - 1] - k[j - 2])
        c[j - 2] += 1.0 / (k[j - 1] - k[j - 2])
        rows.append(c)
    return np.array(rows)


class PiecewiseLogisticCalibrator(BinaryProbabilisticCalibrator):
    """Piecewise-linear log-odds with four knots and a change-of-slope penalty.

    Parameters
    ----------
    penalty : float, default=0.001
        ``lambda`` of the squared change-of-slope penalty (Zhang & Yang's value).
    quantile_step : float, default=0.05
        Candidate inner knots are the quantiles ``step, 2 step, ..., 1 - step``
        of the training scores.

    Attributes
    ----------
    knots_ : ndarray of shape (4,)
        ``theta_0 < theta_1 < theta_2 < theta_3``.
    weights_ : ndarray of shape (4,)
        Log-odds at the knots.
    objective_ : float
        The regularised objective of the chosen knot pair.
    classes_ : ndarray of shape (2,)

    Notes
    -----
    Gebel (2009), Sec. 4.2.2: ``g(m) = sum_{j=0..3} w_j l_j(m)`` with hat
    functions ``l_j``; ``theta_0`` and ``theta_3`` are the smallest and largest
    training score; every ordered pair of distinct candidate quantiles is
    tried as ``(theta_1, theta_2)`` and the pair with the lowest objective
    ``sum_i log(1 + exp(-c_i g(m_i))) + lambda sum_{j=2,3} (slope_j - slope_{j-1})**2``
    wins (the thesis says only "any pair of 5%-quantiles" and "best results";
    this is dstk's reading).  Plain labels ``c_i = +-1``
    are used.  Scores equal to ``theta_3`` belong to the last segment; test
    scores outside ``[theta_0, theta_3]`` are clamped to the end knots (the
    log-odds is constant there), which dstk chose over linear extrapolation.
    The penalty on slope changes is in units of the score, so the fit
    depends on the scale of the scores (rescaling them changes the
    probabilities); standardise the scores, or tune ``penalty`` per scale.
    When the scores lie so close together that the penalty swamps the data
    (no knot pair fits better than a log-odds linear in the score, which has
    no change of slope), ``fit`` raises a ``ValueError`` instead of
    returning the stalled fit.

    References
    ----------
    J. Zhang, Y. Yang, Probabilistic score estimation with piecewise logistic
    regression, ICML 2004.  Gebel (2009), Sec. 4.2.2.

    Examples
    --------
    >>> rng = np.random.RandomState(0)
    >>> s = np.r_[rng.normal(-1, 1, 100), rng.normal(1, 1, 100)]
    >>> y = np.r_[np.zeros(100), np.ones(100)]
    >>> cal = PiecewiseLogisticCalibrator().fit(s, y)
    >>> bool(cal.predict_proba([-3.0])[0, 1] < 0.5 < cal.predict_proba([3.0])[0, 1])
    True
    """

    def __init__(self, penalty: float = 0.001, *, quantile_step: float = 0.05):
        self.penalty = penalty
        self.quantile_step = quantile_step

    def _fit(self, s, y):
        lam = float(self.penalty)
        if not np.isfinite(lam) or lam < 0:
            raise ValueError(f"`penalty` must be a finite number >= 0; got {self.penalty!r}.")
        step = float(self.quantile_step)
        if not 0.0 < step < 0.5:
            raise ValueError(f"`quantile_step` must lie in (0, 0.5); got {self.quantile_step!r}.")
        lo, hi = float(s.min()), float(s.max())
        levels = np.arange(step, 1.0 - step / 2.0, step)
        candidates = np.unique(np.quantile(s, levels))
        candidates = candidates[(candidates > lo) & (candidates < hi)]
        if candidates.size < 2:
            raise ValueError(
                "PiecewiseLogisticCalibrator needs at least two distinct inner quantiles of the scores to "
                f"place its knots; the {s.size} training scores take too few distinct values. Use "
                "PlattCalibrator or IsotonicRegressionCalibrator for such scores."
            )
        best: tuple[float, np.ndarray, np.ndarray] | None = None
        for a in range(candidates.size):
            for b in range(a + 1, candidates.size):
                knots = np.array([lo, candidates[a], candidates[b], hi])
                design = hat_basis(s, knots)
                C = _slope_change_matrix(knots)
                R = 2.0 * lam * C.T @ C
                w, f, _ = fit_logistic(design, y, penalty=R, name="PiecewiseLogisticCalibrator", warn=False)
                if best is None or f < best[0]:
                    best = (f, knots, w)
        assert best is not None  # at least one pair of candidate knots
        # A log-odds linear in the score has no change of slope, so no penalised optimum exceeds the
        # cross-entropy of the best linear fit; a larger one means Newton's method failed (the penalty,
        # in units of the score, swamps the data when the scores lie very close together).
        unit = (s - lo) / (hi - lo)
        _, linear, _ = fit_logistic(np.column_stack([np.ones_like(unit), unit]), y, warn=False)
        if not np.isfinite(best[0]) or best[0] > linear + 1e-9 * (1.0 + abs(linear)):
            raise ValueError(
                f"PiecewiseLogisticCalibrator could not fit: the change-of-slope penalty (penalty={lam!r}) "
                f"is in units of the score, and the training scores span only {hi - lo:.3g}, so it swamps "
                "the data. Standardise the scores (subtract the mean, divide by the standard deviation) or "
                "lower `penalty`."
            )
        self.objective_, self.knots_, self.weights_ = float(best[0]), best[1], best[2]

    def _positive_probability(self, s):
        return sigmoid(hat_basis(s, self.knots_) @ self.weights_)
