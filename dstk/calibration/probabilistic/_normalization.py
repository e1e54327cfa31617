"""Simple normalisation (Gebel 2009, Eq. 4.1) and softmax / E-calibration (Eq. 4.2)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import minimize_scalar

from ._base import BinaryProbabilisticCalibrator

__all__ = ["simple_normalization", "SimpleNormalization", "softmax", "SoftmaxCalibrator"]


def _check_rho(rho):
    try:
        r = float(rho)
    except (TypeError, ValueError):
        raise ValueError(f"`rho` must be a number >= 1; got {rho!r}.") from None
    if not np.isfinite(r) or r < 1.0:
        raise ValueError(f"`rho` must be >= 1 (1.05 keeps outputs strictly inside (0, 1)); got {rho!r}.")
    return r


def simple_normalization(scores: ArrayLike, rho: float = 1.0, scale: ArrayLike | None = None) -> np.ndarray:
    """Map scores into ``[0, 1]`` by ``(s + rho * M) / (2 * rho * M)`` (Gebel 2009, Eq. 4.1).

    Parameters
    ----------
    scores : array_like
        Scores of any shape (e.g. ``(N,)`` or ``(N, B)``).
    rho : float, default=1.0
        Stretch factor ``>= 1``; ``rho = 1.05`` keeps outputs strictly inside
        ``(0, 1)`` for scores within ``[-M, M]``.
    scale : float or array_like, optional
        ``M``; defaults to ``max |s|`` over the whole array.  Pass the
        training value to normalise test scores; an array broadcasts (e.g.
        one ``M`` per column).

    Returns
    -------
    ndarray
        Normalised scores, clipped to ``[0, 1]``.

    Raises
    ------
    ValueError
        On non-finite scores, ``rho < 1`` or a non-positive ``M``.

    Notes
    -----
    Gebel (2009), Eq. (4.1): a score of 0 (the SVM boundary) maps to 0.5.  A
    "pre-calibration" without probabilistic meaning.

    Examples
    --------
    >>> simple_normalization([-2.0, 0.0, 1.0]).tolist()
    [0.0, 0.5, 0.75]
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.size == 0 or not np.all(np.isfinite(s)):
        raise ValueError("`scores` must be a non-empty array of finite values.")
    r = _check_rho(rho)
    M = np.max(np.abs(s)) if scale is None else np.asarray(scale, dtype=np.float64)
    if not np.all(np.isfinite(M)) or np.any(M <= 0):
        raise ValueError(
            "The normalisation constant M = max|score| must be positive and finite; all scores are 0 "
            "(a constant classifier) or `scale` is invalid."
        )
    return np.clip((s + r * M) / (2.0 * r * M), 0.0, 1.0)


class SimpleNormalization(BinaryProbabilisticCalibrator):
    """Gebel's simple normalisation of binary scores into ``[0, 1]`` (Eq. 4.1).

    Parameters
    ----------
    rho : float, default=1.0
        Stretch factor ``>= 1``; 1.05 keeps outputs strictly inside ``(0, 1)``.

    Attributes
    ----------
    scale_ : float
        ``M = max |s|`` over the training scores (test outputs are clipped).
    classes_ : ndarray of shape (2,)

    Notes
    -----
    ``P(+) = (s + rho M) / (2 rho M)`` and ``P(-) = 1 - P(+)`` (Gebel 2009,
    Eq. 4.1 with ``s(+1) = f`` and ``s(-1) = -f``).  The thesis does not say
    which data supply ``M``; here it is fitted on the calibration scores.
    The labels are only used for ``classes_``.

    References
    ----------
    M. Gebel, *Multivariate calibration of classifier scores into the
    probability space*, PhD thesis, TU Dortmund, 2009, Sec. 4.1.

    Examples
    --------
    >>> cal = SimpleNormalization().fit([-2.0, 1.0, 2.0], [0, 1, 1])
    >>> cal.predict_proba([0.0, 1.0])[:, 1].tolist()
    [0.5, 0.75]
    """

    def __init__(self, rho: float = 1.0):
        self.rho = rho

    def _fit(self, s, y):
        _check_rho(self.rho)
        self.scale_ = float(np.max(np.abs(s)))
        if self.scale_ <= 0:
            raise ValueError("All training scores are 0: the normalisation constant M = max|score| is 0.")

    def _positive_probability(self, s):
        return simple_normalization(s, rho=self.rho, scale=self.scale_)


def softmax(scores: ArrayLike, alpha: float | None = None) -> np.ndarray:
    """Softmax / E-calibration of a score matrix (Gebel 2009, Eq. 4.2).

    Parameters
    ----------
    scores : array_like of shape (N, K)
        One score per class.
    alpha : array_like of shape (K,), optional
        Per-class slopes; all ones (the softmax of Bridle 1989) by default.

    Returns
    -------
    ndarray of shape (N, K)
        ``exp(alpha_k s_k) / sum_j exp(alpha_j s_j)``, computed stably.

    Raises
    ------
    ValueError
        On non-finite scores or a wrong ``alpha`` shape.

    Notes
    -----
    Gebel (2009), Eq. (4.2) with the normalising sum in the denominator (the
    printed ``exp(sum alpha_j s_j)`` is a typo).

    Examples
    --------
    >>> softmax([[0.0, 0.0], [0.0, np.log(3.0)]]).round(6).tolist()
    [[0.5, 0.5], [0.25, 0.75]]
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 2 or s.shape[0] == 0 or s.shape[1] < 2:
        raise ValueError(f"`scores` must have shape (n_samples, n_classes >= 2); got {s.shape}.")
    if not np.all(np.isfinite(s)):
        raise ValueError("`scores` contains NaN or infinite values.")
    if alpha is not None:
        a = np.asarray(alpha, dtype=np.float64)
        if a.shape != (s.shape[1],) or not np.all(np.isfinite(a)):
            raise ValueError(f"`alpha` must hold {s.shape[1]} finite values; got {alpha!r}.")
        s = s * a
    s = s - s.max(axis=1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=1, keepdims=True)


class SoftmaxCalibrator(BinaryProbabilisticCalibrator):
    """Softmax calibration of binary scores, optionally with a fitted slope (E-calibration).

    Parameters
    ----------
    fit_alpha : bool, default=False
        False: the plain softmax of the class scores ``(-s, s)``, i.e.
        ``P(+) = 1 / (1 + exp(-2 s))``.  True: a common slope ``alpha`` is
        fitted by maximum likelihood, ``P(+) = 1 / (1 + exp(-2 alpha s))``.

    Attributes
    ----------
    alpha_ : float
        The slope (1 unless ``fit_alpha``).
    classes_ : ndarray of shape (2,)

    Notes
    -----
    Gebel (2009), Eq. (4.2) with ``s(+1) = f`` and ``s(-1) = -f``.  For two
    classes only ``alpha_+ + alpha_-`` is identifiable, so one slope is
    fitted.  The thesis gives no fitting procedure for the alphas; the
    maximum-likelihood fit used here (bounded scalar search on the negative
    log-likelihood of the 0/1 labels) is dstk's own choice.

    References
    ----------
    J. S. Bridle, Probabilistic interpretation of feedforward classification
    network outputs, 1989.  Gebel (2009), Sec. 4.1.

    Examples
    --------
    >>> cal = SoftmaxCalibrator().fit([-1.0, 1.0], [0, 1])
    >>> round(float(cal.predict_proba([0.5 * np.log(3.0)])[0, 1]), 6)
    0.75
    """

    def __init__(self, fit_alpha: bool = False):
        self.fit_alpha = fit_alpha

    def _fit(self, s, y):
        if not self.fit_alpha:
            self.alpha_ = 1.0
            return
        sign = 2.0 * y - 1.0
        scale = max(np.max(np.abs(s)), 1e-300)

        def nll(alpha):
            return float(np.sum(np.logaddexp(0.0, -2.0 * alpha * sign * s)))

        bound = 50.0 / scale
        result = minimize_scalar(
            nll, bounds=(-bound, bound), method="bounded", options={"xatol": 1e-10 / scale}
        )
        self.alpha_ = float(result.x)

    def _positive_probability(self, s):
        z = 2.0 * self.alpha_ * s
        return 0.5 * (1.0 + np.tanh(0.5 * z))
