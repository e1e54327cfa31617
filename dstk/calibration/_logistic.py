"""Evidential logistic (Platt) calibration (Xu et al. 2016, Sections 2 and 4.3)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from scipy import special

from .._estimator import check_is_fitted
from .._progress import progress
from .._kernels.calibration import (
    chebyshev_barycentric,
    logistic_profile_contour,
    logistic_profile_masses,
)
from .._validation import check_scores
from ..exceptions import ConvergenceWarning
from ._base import BinaryCalibrator, check_model

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["LogisticCalibrator", "platt_fit", "LOGISTIC_MODELS"]

LOGISTIC_MODELS = ("bayes", "inverse_pignistic", "confidence_interval", "likelihood")
_TARGETS = ("platt", "labels")
_INTERPOLATION_TOLERANCE = 1e-8
_MAX_DEGREE = 1024


def _log_likelihood(theta, scores, targets):
    eta = theta[0] + theta[1] * scores
    return float(-np.sum(targets * np.logaddexp(0.0, eta) + (1.0 - targets) * np.logaddexp(0.0, -eta)))


def platt_fit(
    scores: np.ndarray, targets: np.ndarray, max_iter: int = 200
) -> tuple[np.ndarray, float, np.ndarray]:
    """Maximum-likelihood sigmoid tau(s) = 1 / (1 + exp(theta_0 + theta_1 s)) (Eqs. 2-3).

    Newton's method with backtracking line search on the cross-entropy
    (Lin, Lin & Weng 2007, the improved version of Platt's algorithm).

    Parameters
    ----------
    scores : ndarray of float64 of shape (n,)
        Calibration scores s_i (finite; not all equal).
    targets : ndarray of float64 of shape (n,)
        Values t_i in [0, 1]: raw labels or Platt's targets (Eq. 4).
    max_iter : int, default 200
        Maximal number of Newton iterations.

    Returns
    -------
    theta : ndarray of shape (2,)
        ``(theta_0, theta_1)``; theta_1 < 0 when larger scores mean class 1.
    max_log_likelihood : float
        The maximised log-likelihood (Eq. 3).
    covariance : ndarray of shape (2, 2)
        Inverse of the Fisher information sum_i tau_i (1 - tau_i) (1, s_i)(1, s_i)^T
        at the maximum (the normal approximation of the GLM).

    Raises
    ------
    ValueError
        A singular information matrix in a Newton step (all scores equal).

    Warns
    -----
    ConvergenceWarning
        The Newton iterations did not converge within ``max_iter``.

    Notes
    -----
    The log-likelihood (Xu et al. 2016, Eq. 3) is
    l(theta) = sum_i t_i log tau_i + (1 - t_i) log(1 - tau_i) with
    tau_i = 1 / (1 + exp(theta_0 + theta_1 s_i)) (Eq. 2); at its maximum the
    score equations sum_i (tau_i - t_i) (1, s_i) = 0 hold.  The inputs are not
    validated here (the calibrators validate them before calling).

    References
    ----------
    Platt, J. (1999). Probabilistic outputs for support vector machines and
    comparisons to regularized likelihood methods. Advances in Large Margin
    Classifiers, 61-74.
    Lin, H.-T., Lin, C.-J. and Weng, R. C. (2007). A note on Platt's
    probabilistic outputs for support vector machines. Machine Learning 68,
    267-276.
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. IJAR 72, 55-70.

    Examples
    --------
    >>> import numpy as np
    >>> scores = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0])
    >>> targets = np.array([0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0])
    >>> theta, log_likelihood, covariance = platt_fit(scores, targets)
    >>> tau = 1.0 / (1.0 + np.exp(theta[0] + theta[1] * scores))
    >>> bool(np.allclose([np.sum(tau - targets), np.sum((tau - targets) * scores)], 0.0, atol=1e-8))
    True
    >>> bool(theta[1] < 0)
    True
    """
    design = np.column_stack([np.ones_like(scores), scores])
    prior_positive = targets.sum()
    prior_negative = targets.size - prior_positive
    # Platt's starting point: theta_1 = 0, theta_0 = log((n_- + 1) / (n_+ + 1))
    theta = np.array([math.log((prior_negative + 1.0) / (prior_positive + 1.0)), 0.0])
    current = _log_likelihood(theta, scores, targets)
    converged = False
    for _ in range(max_iter):
        tau = special.expit(-(design @ theta))
        gradient = design.T @ (tau - targets)
        weight = tau * (1.0 - tau)
        hessian = -(design * weight[:, None]).T @ design
        try:
            step = np.linalg.solve(hessian - 1e-12 * np.eye(2), -gradient)
        except np.linalg.LinAlgError:  # pragma: no cover - guarded by the equal-scores check
            raise ValueError("The calibration scores give a singular information matrix.") from None
        decrement = float(gradient @ step)  # predicted gain (> 0: H is negative definite)
        if decrement < 1e-20 * (1.0 + abs(current)):
            converged = True
            break
        scale = 1.0
        while True:
            candidate = theta + scale * step
            value = _log_likelihood(candidate, scores, targets)
            if value >= current + 1e-4 * scale * decrement or scale < 1e-12:
                break
            scale *= 0.5
        if value < current:
            converged = True
            break
        theta, current = candidate, value
        if decrement < 1e-14 * (1.0 + abs(current)):
            converged = True
            break
    if not converged:
        import warnings

        warnings.warn("Platt's Newton iterations did not converge.", ConvergenceWarning, stacklevel=3)
    tau = special.expit(-(design @ theta))
    weight = tau * (1.0 - tau)
    information = (design * weight[:, None]).T @ design
    # a sigmoid so steep that every tau_i (1 - tau_i) underflows (tiny separable calibration sets with
    # Platt's targets) leaves a (near) singular information: a relative ridge keeps the covariance finite
    # (huge), which only widens the normal-approximation interval and the first integration panel
    ridge = 1e-12 * (np.trace(information) + 1e-300)
    covariance = np.linalg.inv(information + ridge * np.eye(2))
    return theta, current, covariance


class LogisticCalibrator(BinaryCalibrator):
    """Platt's logistic calibration with evidential models (Xu et al. 2016, Section 4.3).

    Parameters
    ----------
    model : {"bayes", "inverse_pignistic", "confidence_interval", "likelihood"}, default "likelihood"
        ``"bayes"``: Platt's sigmoid tau_hat(s) itself (m({1}) = tau_hat).
        ``"inverse_pignistic"``: the least-committed consonant mass with pignistic
        probability tau_hat.  ``"confidence_interval"``: the normal-approximation
        interval of the GLM, [L, U] for tau(s), used in Eqs. 26-27
        (m({1}) = (1 - alpha) L, m({0}) = (1 - alpha)(1 - U)).
        ``"likelihood"``: the predictive mass (Eqs. 22-23) of the profile
        contour pl(tau; s) (Eq. 40).  Dempster's model needs counts: use a
        binning or isotonic calibrator for it.
    targets : {"platt", "labels"}, default "platt"
        ``"platt"`` replaces the labels by Platt's targets t+ = (n+ + 1)/(n+ + 2)
        and t- = 1/(n- + 2) (Eq. 4) in the likelihood (as Platt and
        scikit-learn's sigmoid calibration do), which keeps the MLE finite even
        for separable scores; ``"labels"`` uses the raw 0/1 labels (Eq. 3).
    confidence : float, default 0.95
        Level 1 - alpha of the normal-approximation interval.
    interpolation : {"chebyshev", None}, default "chebyshev"
        For ``model="likelihood"``: ``"chebyshev"`` computes the masses exactly
        at Chebyshev nodes of t = (2/pi) arctan((s - c)/h) (c, h: mean and
        standard deviation of the calibration scores) during ``fit``, doubling
        the number of nodes (64 .. 1024) until the interpolant agrees with the
        exact masses within 1e-8 at 32 check points; predictions are then
        barycentric interpolation (fast for many scores).  If it does not
        converge, or with ``None``, every score is computed exactly.
    verbose : int, default 0
        0: silent; 1 or more: progress of the interpolant's construction in
        ``fit`` (one step per degree tried; each costs ``degree`` exact
        profile-likelihood masses over all calibration scores) through
        :mod:`logging` (logger ``"dstk"``) and a :mod:`tqdm` bar when tqdm is
        installed.

    Attributes
    ----------
    theta_ : ndarray (theta_0, theta_1)
        Maximum-likelihood parameters of tau(s) = 1 / (1 + exp(theta_0 + theta_1 s)).
    covariance_ : ndarray of shape (2, 2)
        Inverse Fisher information at ``theta_``.
    max_log_likelihood_ : float
    interpolation_degree_ : int or None
        Number of Chebyshev nodes used (``model="likelihood"``), None when exact.
    classes_ : ndarray of shape (2,)

    Raises
    ------
    ValueError
        Unknown model or targets; with ``targets="labels"``, calibration scores
        that separate the classes perfectly (the MLE does not exist); all
        calibration scores equal; bad scores or labels.

    Notes
    -----
    Separable data: with raw labels the likelihood of Eq. 3 has no maximum when
    some threshold separates the classes (theta_1 diverges), so ``fit`` raises.
    Platt's targets (the default) are never 0 or 1, so the cross-entropy has a
    unique finite minimiser even then (Platt 1999); the fitted sigmoid is steep
    but finite and the likelihood-based masses keep some ignorance.

    Profile likelihood (Eq. 40): with eta = ln(1/tau - 1), the line
    theta_0 = eta - theta_1 s is searched by Newton's method over theta_1 (the
    log-likelihood is concave along it), giving
    pl(tau; s) = exp(max_{theta_1} l(eta - theta_1 s, theta_1) - l(theta_hat)).
    The masses m({1}) = tau_hat - int_0^tau_hat pl and
    m({0}) = 1 - tau_hat - int_tau_hat^1 pl (Eqs. 22c, 23c) are integrated in
    eta on adaptive Gauss-Legendre panels on each side of eta_hat (see
    :mod:`dstk._kernels.calibration`), accurate to about 1e-12.

    References
    ----------
    Platt, J. C. (1999). Probabilistic outputs for support vector machines and
    comparisons to regularized likelihood methods. Advances in Large Margin
    Classifiers, MIT Press.
    Lin, H.-T., Lin, C.-J. and Weng, R. C. (2007). A note on Platt's
    probabilistic outputs for support vector machines. Machine Learning 68.
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. IJAR 72, 55-70.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 60)
    >>> scores = rng.normal(2.0 * y - 1.0, 1.0)
    >>> calibrator = LogisticCalibrator(model="likelihood").fit(scores, y)
    >>> bel, pl = calibrator.predict_interval([0.0, 2.0])
    >>> bool(np.all(bel < pl)), bool(np.all((0 <= bel) & (pl <= 1)))
    (True, True)
    >>> calibrator.contour(0.0, [0.0, 1.0]).tolist()
    [0.0, 0.0]
    """

    def __init__(
        self,
        *,
        model: str = "likelihood",
        targets: str = "platt",
        confidence: float = 0.95,
        interpolation: str | None = "chebyshev",
        verbose: int = 0,
    ) -> None:
        self.model = model
        self.targets = targets
        self.confidence = confidence
        self.interpolation = interpolation
        self.verbose = verbose

    # -- fitting -------------------------------------------------------------------

    def _fit(self, scores, y01):
        check_model(self.model, LOGISTIC_MODELS, type(self).__name__)
        if self.model == "dempster":  # pragma: no cover - caught by check_model
            pass
        if self.targets not in _TARGETS:
            raise ValueError(f"Unknown targets={self.targets!r}; choose 'platt' (Eq. 4) or 'labels' (Eq. 3).")
        if self.interpolation not in ("chebyshev", None):
            raise ValueError(f"Unknown interpolation={self.interpolation!r}; choose 'chebyshev' or None.")
        confidence = float(self.confidence)
        if not 0.0 < confidence < 1.0:
            raise ValueError(f"`confidence` must lie in (0, 1); got {self.confidence!r}.")
        if np.ptp(scores) == 0.0:
            raise ValueError(
                "All calibration scores are equal: the slope of the sigmoid cannot be estimated. "
                "Use scores that vary (e.g. decision_function values) or another calibrator."
            )
        n_positive = y01.sum()
        n_negative = y01.size - n_positive
        if self.targets == "platt":
            targets = np.where(y01 == 1.0, (n_positive + 1.0) / (n_positive + 2.0), 1.0 / (n_negative + 2.0))
        else:
            positive, negative = scores[y01 == 1.0], scores[y01 == 0.0]
            if positive.min() >= negative.max() or positive.max() <= negative.min():
                raise ValueError(
                    "The calibration scores separate the two classes perfectly, so the maximum-likelihood "
                    "sigmoid does not exist with raw labels (theta_1 diverges). Use targets='platt' "
                    "(Platt's targets, Eq. 4, the default) or more calibration data."
                )
            targets = y01
        theta, max_loglik, covariance = platt_fit(scores, targets)
        self.theta_ = theta
        self.max_log_likelihood_ = max_loglik
        self.covariance_ = covariance
        self._scores = np.ascontiguousarray(scores)
        self._targets = np.ascontiguousarray(targets, dtype=np.float64)
        self.interpolation_degree_ = None
        if self.model == "likelihood" and self.interpolation == "chebyshev":
            self._build_interpolant()

    # -- exact masses ------------------------------------------------------------------

    def _exact_likelihood_masses(self, scores):
        # beyond 1e8 standard deviations of the calibration scores the masses equal
        # their limits (errors O(1/s)); clipping avoids overflow in the kernel
        center = float(self._scores.mean())
        spread = 1e8 * (float(self._scores.std()) or 1.0)
        scores = np.clip(scores, center - spread, center + spread)
        return logistic_profile_masses(
            np.ascontiguousarray(scores, dtype=np.float64),
            self._scores,
            self._targets,
            self.theta_,
            self.covariance_,
            self.max_log_likelihood_,
        )

    def _to_unit(self, scores):
        return (2.0 / np.pi) * np.arctan((scores - self._center) / self._scale)

    def _from_unit(self, t):
        return self._center + self._scale * np.tan(0.5 * np.pi * t)

    def _build_interpolant(self):
        self._center = float(self._scores.mean())
        self._scale = float(self._scores.std()) or 1.0
        check_t = np.cos(np.pi * (np.arange(32) + 0.37) / 32.0) * 0.999
        check_exact = self._exact_likelihood_masses(self._from_unit(check_t))[:, 1:3]
        degrees = []
        degree = 64
        while degree <= _MAX_DEGREE:
            degrees.append(degree)
            degree *= 2
        for degree in progress(degrees, verbose=self.verbose, description="Chebyshev interpolation degrees"):
            nodes = np.cos((2.0 * np.arange(degree) + 1.0) * np.pi / (2.0 * degree))
            values = np.ascontiguousarray(self._exact_likelihood_masses(self._from_unit(nodes))[:, 1:3])
            approx = chebyshev_barycentric(check_t, nodes, values)
            if np.max(np.abs(approx - check_exact)) <= _INTERPOLATION_TOLERANCE:
                self._cheb_nodes = nodes
                self._cheb_values = values
                self.interpolation_degree_ = degree
                return

    # -- outputs -----------------------------------------------------------------------

    def _tau_hat(self, scores):
        return special.expit(-(self.theta_[0] + self.theta_[1] * scores))

    def _mass_array(self, scores):
        model = self.model
        out = np.zeros((scores.shape[0], 4))
        if model == "bayes":
            tau = self._tau_hat(scores)
            out[:, 2] = tau
            out[:, 1] = 1.0 - tau
            return out
        if model == "inverse_pignistic":
            tau = self._tau_hat(scores)
            upper = tau >= 0.5
            out[:, 2] = np.where(upper, 2.0 * tau - 1.0, 0.0)
            out[:, 1] = np.where(upper, 0.0, 1.0 - 2.0 * tau)
            out[:, 3] = 1.0 - out[:, 1] - out[:, 2]
            return out
        if model == "confidence_interval":
            confidence = float(self.confidence)
            eta = self.theta_[0] + self.theta_[1] * scores
            c = self.covariance_
            sigma = np.sqrt(np.maximum(c[0, 0] + 2.0 * scores * c[0, 1] + scores**2 * c[1, 1], 0.0))
            z = special.ndtri(0.5 + 0.5 * confidence)
            lower = special.expit(-(eta + z * sigma))
            upper = special.expit(-(eta - z * sigma))
            out[:, 2] = confidence * lower
            out[:, 1] = confidence * (1.0 - upper)
            out[:, 3] = 1.0 - out[:, 1] - out[:, 2]
            return out
        if self.interpolation_degree_ is None:
            return self._exact_likelihood_masses(scores)
        values = chebyshev_barycentric(self._to_unit(scores), self._cheb_nodes, self._cheb_values)
        np.clip(values, 0.0, 1.0, out=values)
        out[:, 1] = values[:, 0]
        out[:, 2] = values[:, 1]
        out[:, 3] = np.maximum(1.0 - values[:, 0] - values[:, 1], 0.0)
        total = out.sum(axis=1)
        out /= total[:, None]
        return out

    def predict_mass_exact(self, scores: ArrayLike) -> np.ndarray:
        """Likelihood-based masses computed exactly at each score (no interpolation).

        Parameters
        ----------
        scores : array_like of shape (n_samples,)
            Test scores.

        Returns
        -------
        ndarray of shape (n_samples, 4)
            Dense masses ``[0, m({0}), m({1}), m({0, 1})]`` of the
            likelihood-based model: the predictive mass (Xu et al. 2016,
            Eqs. 22-23) of the profile contour (Eq. 40), each computed by
            numerical integration; the Chebyshev
            interpolant used by :meth:`predict_mass_array` agrees to 1e-8.
        """
        check_is_fitted(self, "theta_")
        return self._exact_likelihood_masses(check_scores(scores, "scores"))

    def contour(self, score: float, tau: ArrayLike) -> np.ndarray:
        """Profile contour pl(tau; s) of the success probability at one test score (Eq. 40).

        Parameters
        ----------
        score : float
            The test score s.
        tau : array_like
            Probabilities in [0, 1] (pl is 0 at 0 and 1, Eq. 35).

        Returns
        -------
        ndarray of float64, the shape of ``tau``
            Values in [0, 1], maximal (= 1) at tau_hat(s); for plots such as
            Xu et al. (2016), Fig. 6b.

        Raises
        ------
        ValueError
            Non-finite score, tau outside [0, 1] or NaN.
        """
        check_is_fitted(self, "theta_")
        try:
            score = float(score)
        except (TypeError, ValueError):
            raise ValueError(f"`score` must be one number; got {score!r}.") from None
        if not math.isfinite(score):
            raise ValueError(f"`score` must be finite; got {score!r}.")
        tau_arr = np.asarray(tau, dtype=np.float64)
        if np.isnan(tau_arr).any() or (tau_arr < 0).any() or (tau_arr > 1).any():
            raise ValueError("`tau` must hold probabilities in [0, 1] (no NaN).")
        flat = np.ascontiguousarray(tau_arr.reshape(-1))
        values = logistic_profile_contour(
            score, flat, self._scores, self._targets, self.theta_, self.covariance_, self.max_log_likelihood_
        )
        return values.reshape(tau_arr.shape)
