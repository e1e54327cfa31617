"""Evidential logistic (Platt) calibration (Xu et al. 2016, Sections 2 and 4.3)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from scipy import fft, special

from .._estimator import check_is_fitted
from .._kernels import _buffers
from .._kernels._jit import call_kernel
from .._kernels.calibration import chebyshev_clenshaw
from .._progress import progress
from .._validation import check_level, check_scores
from ..evidence._logistic import _Z_LIMIT, ScoreLogistic
from ._base import BinaryCalibrator, check_model

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["LogisticCalibrator", "LOGISTIC_MODELS"]

LOGISTIC_MODELS = ("bayes", "inverse_pignistic", "confidence_interval", "likelihood")
_TARGETS = ("smoothed", "labels")
_INTERPOLATION_TOLERANCE = 1e-8
_CENTRE_LIMIT = 3.0
_MIN_DEGREE = 32
_MAX_DEGREE = 1024
#: the first degree computed when the masses come from the profile table (``_build_interpolant``)
_FIRST_DEGREE_WITH_TABLE = 64


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
    targets : {"smoothed", "labels"}, default "smoothed"
        ``"smoothed"`` replaces the labels by Platt's targets t+ = (n+ + 1)/(n+ + 2)
        and t- = 1/(n- + 2) (Eq. 4) in the likelihood (as Platt and
        scikit-learn's sigmoid calibration do), which keeps the MLE finite even
        for separable scores; ``"labels"`` uses the raw 0/1 labels (Eq. 3).
    level : float, default 0.95
        Level 1 - alpha of the normal-approximation interval.
    interpolation : {"chebyshev", None}, default "chebyshev"
        For ``model="likelihood"``: ``"chebyshev"`` computes the masses
        at the Chebyshev-Lobatto points cos(pi j / d), j = 0, ..., d, of
        t = (2/pi) arctan((s - c)/h - z_0) (c, h: mean and standard deviation
        of the calibration scores; z_0: where tau_hat = 1/2 if within
        [-3, 3], else 0) during ``fit``, doubling the degree d (32 .. 1024;
        the points are nested, so a doubling computes only the d / 2 new ones)
        until the last quarter of the Chebyshev coefficients sums to less than
        5e-9 (the interpolant is then within about 1e-8 of the exact masses;
        Trefethen 2013, Chapters 3 and 8); the series, truncated where
        its tail is below 5e-9, is summed by Clenshaw's recurrence at
        prediction (fast for many scores).  The masses at the points come
        from a Chebyshev series of the profile log-likelihood over whitened
        parameters (see Notes) when that series converges, else each is
        computed exactly.  If the interpolant does not converge, or with
        ``None``, every score is computed exactly.
    verbose : int, default 0
        0: silent; 1 or more: progress of the interpolant's construction in
        ``fit`` (one step per degree tried; each costs ``degree``
        profile-likelihood masses over the compressed calibration data) through
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
        Degree d of the Chebyshev interpolant (``model="likelihood"``; d + 1
        Chebyshev-Lobatto points), None when exact.
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
    The masses m({1}) = int_0^tau_hat (1 - pl), m({0}) = int_tau_hat^1 (1 - pl)
    and m({0, 1}) = int_0^1 pl (Eqs. 22c, 23c) are integrated in eta on
    adaptive Gauss-Legendre panels on each side of eta_hat (see
    :mod:`dstk._kernels.calibration`), accurate to about 1e-12.

    Shared profile: in whitened parameters u (theta = theta_hat + B u, B B' =
    ``covariance_``), the profile at a score s is Q(e, xi) = max over the line
    e . u = xi of l - l(theta_hat), where e is the direction of B' (1, s) and
    xi = (eta - eta_hat) / sigma(s); e turns by pi as s runs over the real
    line.  ``fit`` tabulates Q once at equispaced angles of e (a trigonometric
    series: Q(e, xi) = Q(-e, -xi)) and Chebyshev-Lobatto points in xi in
    [-9, 9] or [-11, 11] (about 16 x 17 to 80 x 25 line maximisations,
    where the masses of the d + 1 interpolation points would need about 100
    each) and integrates every mass from the series, within 2e-11 of the
    exact masses on the benchmark sets; it falls back to the exact masses
    when the series does not converge to 1e-6 (small or nearly separable
    calibration sets, whose profile is far from the normal approximation).

    Numerics: the fit runs on standardised scores z = (s - c)/h (c, h: mean
    and standard deviation, computed without overflow) and ``theta_`` and
    ``covariance_`` are transformed back, so every output is invariant under
    affine changes of the scores; a fit that is not finite in the units of
    the scores raises a ValueError.  For large calibration sets the profile
    likelihood runs on a Gauss-compressed copy of the data (a few hundred
    weighted points whatever n, the same log-likelihood to ~1e-13; see
    :class:`dstk.evidence._logistic.ScoreLogistic`), so a fit costs about
    the same at 10^3 and 10^5 scores.

    References
    ----------
    Platt, J. C. (1999). Probabilistic outputs for support vector machines and
    comparisons to regularized likelihood methods. Advances in Large Margin
    Classifiers, MIT Press.
    Lin, H.-T., Lin, C.-J. and Weng, R. C. (2007). A note on Platt's
    probabilistic outputs for support vector machines. Machine Learning 68.
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. IJAR 72, 55-70.
    Trefethen, L. N. (2013). Approximation Theory and Approximation Practice. SIAM.

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
        targets: str = "smoothed",
        level: float = 0.95,
        interpolation: str | None = "chebyshev",
        verbose: int = 0,
    ) -> None:
        self.model = model
        self.targets = targets
        self.level = level
        self.interpolation = interpolation
        self.verbose = verbose

    # -- fitting -------------------------------------------------------------------

    def _fit(self, scores, y01):
        check_model(self.model, LOGISTIC_MODELS, type(self).__name__)
        if self.model == "dempster":  # pragma: no cover - caught by check_model
            pass
        if self.targets not in _TARGETS:
            raise ValueError(
                f"Unknown targets={self.targets!r}; choose 'smoothed' (Eq. 4) or 'labels' (Eq. 3)."
            )
        if self.interpolation not in ("chebyshev", None):
            raise ValueError(f"Unknown interpolation={self.interpolation!r}; choose 'chebyshev' or None.")
        check_level(self.level)
        if np.ptp(scores) == 0.0:
            raise ValueError(
                "All calibration scores are equal: the slope of the sigmoid cannot be estimated. "
                "Use scores that vary (e.g. decision_function values) or another calibrator."
            )
        n_positive = y01.sum()
        n_negative = y01.size - n_positive
        if self.targets == "smoothed":
            targets = np.where(y01 == 1.0, (n_positive + 1.0) / (n_positive + 2.0), 1.0 / (n_negative + 2.0))
        else:
            positive, negative = scores[y01 == 1.0], scores[y01 == 0.0]
            if positive.min() >= negative.max() or positive.max() <= negative.min():
                raise ValueError(
                    "The calibration scores separate the two classes perfectly, so the maximum-likelihood "
                    "sigmoid does not exist with raw labels (theta_1 diverges). Use targets='smoothed' "
                    "(Platt's targets, Eq. 4, the default) or more calibration data."
                )
            targets = y01
        fit = ScoreLogistic(scores, targets, name=type(self).__name__)
        self._logistic = fit
        self.theta_ = fit.theta
        self.max_log_likelihood_ = fit.max_log_likelihood
        self.covariance_ = fit.covariance
        self.interpolation_degree_ = None
        if self.model == "likelihood" and self.interpolation == "chebyshev":
            self._build_interpolant()

    # -- exact masses ------------------------------------------------------------------

    def _exact_likelihood_masses(self, scores):
        return self._logistic.predictive_masses(self._logistic.standardize(scores))

    def _fit_masses(self, z):
        # the masses at the interpolation points: from the series of the whitened profile
        # log-likelihood when it converges (ScoreLogistic.profile_grid), else one by one
        masses = self._logistic.grid_masses(z)
        return self._logistic.predictive_masses(z) if masses is None else masses

    def _build_interpolant(self):
        # Chebyshev-Lobatto points cos(pi j / degree), j = 0 .. degree, in t = (2 / pi) arctan(z - z_0),
        # z the standardised score; they are nested, so each doubling of the degree evaluates only
        # the new (odd) points.  The degree doubles until the last quarter of the Chebyshev
        # coefficients sums to less than half the tolerance (for a function analytic near [-1, 1]
        # the coefficients decay geometrically and the neglected ones are smaller still), then the
        # series is truncated where its tail sums to less than half the tolerance.  The end points
        # t = +-1 (z = +-inf) take the limits of the masses (``ScoreLogistic.limit_masses``), which
        # the masses approach as O(1/z) (a computation at z = 1e8 would cost 10-20 exact masses).
        # The map is centred at z_0, where tau_hat = 1/2, when |z_0| <= 3: the masses change fastest
        # around it and the map stretches its centre most (on 24 three-class one-vs-rest calibrators
        # of 60 scores, the median number of coefficients kept fell from 89 to 63 against z_0 = 0).
        # Beyond +-3 (a flat or far-shifted sigmoid) the masses have no sharp transition among the
        # scores, and z_0 = 0 keeps the map on the scores (a centre at +-3 slowed the decay there).
        fit = self._logistic
        alpha = fit.alpha
        centre = float(-alpha[0] / alpha[1]) if abs(alpha[1]) * _CENTRE_LIMIT > abs(alpha[0]) else 0.0
        self._interpolation_centre = centre
        degrees = []
        degree = _MIN_DEGREE
        while degree <= _MAX_DEGREE:
            degrees.append(degree)
            degree *= 2
        # with the profile table the masses are cheap (a few microseconds each) and the degree is
        # almost always 128 or more: the points of degree 64 come in one call (no call larger than the
        # doubling to 128, which keeps small fits' calls interpreted on a cold start), and degree 32 is
        # judged on their subset (the same points, bit for bit), so the interpolant is the one the
        # doublings give; without it each mass costs about 100 line maximisations, computed as needed
        first = (
            _FIRST_DEGREE_WITH_TABLE if alpha[1] != 0.0 and fit.profile_grid() is not None else _MIN_DEGREE
        )
        values = None
        for degree in progress(degrees, verbose=self.verbose, description="Chebyshev interpolation degrees"):
            if values is None:
                computed = max(degree, first)
                nodes = np.cos(np.pi * np.arange(computed + 1) / computed)
                if alpha[1] != 0.0:  # the end points z = +-inf: the closed-form limits
                    values = np.empty((computed + 1, 2))
                    values[1:-1] = self._fit_masses(centre + np.tan(0.5 * np.pi * nodes[1:-1]))[:, 1:3]
                    values[[0, -1]] = fit.limit_masses()[:, 1:3]
                else:
                    z = np.clip(centre + np.tan(0.5 * np.pi * nodes), -_Z_LIMIT, _Z_LIMIT)
                    values = self._fit_masses(z)[:, 1:3]
            elif degree > values.shape[0] - 1:  # the even points are those of the previous degree
                new_nodes = np.cos(np.pi * np.arange(1, degree, 2) / degree)
                nested = np.empty((degree + 1, 2))
                nested[::2] = values
                nested[1::2] = self._fit_masses(centre + np.tan(0.5 * np.pi * new_nodes))[:, 1:3]
                values = nested
            points = values[:: (values.shape[0] - 1) // degree]
            coefficients = fft.dct(points, type=1, axis=0) / degree
            coefficients[0] *= 0.5
            coefficients[-1] *= 0.5
            tail = np.cumsum(np.max(np.abs(coefficients), axis=1)[::-1])[::-1]  # tail[k] = sum_{j >= k}
            if tail[(3 * degree) // 4] <= 0.5 * _INTERPOLATION_TOLERANCE:
                kept = int(np.argmax(tail <= 0.5 * _INTERPOLATION_TOLERANCE))
                self._chebyshev_coefficients = np.ascontiguousarray(coefficients[: max(kept, 1)])
                self.interpolation_degree_ = degree
                return

    # -- outputs -----------------------------------------------------------------------

    def _tau_hat(self, scores):
        return self._logistic.tau_hat(self._logistic.standardize(scores))

    def _mass_array(self, scores):
        model = self.model
        out = _buffers.zeros((scores.shape[0], 4))  # reused pages inside dask tasks (dstk.dask.reuse_buffers)
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
            level = float(self.level)
            # on the standardised scores z: eta = alpha_0 + alpha_1 z, var = (1, z) C (1, z)'
            z = self._logistic.standardize(scores)
            alpha, c = self._logistic.alpha, self._logistic.alpha_covariance
            eta = alpha[0] + alpha[1] * z
            sigma = np.sqrt(np.maximum(c[0, 0] + 2.0 * z * c[0, 1] + z**2 * c[1, 1], 0.0))
            quantile = special.ndtri(0.5 + 0.5 * level)
            lower = special.expit(-(eta + quantile * sigma))
            upper = special.expit(-(eta - quantile * sigma))
            out[:, 2] = level * lower
            out[:, 1] = level * (1.0 - upper)
            out[:, 3] = 1.0 - out[:, 1] - out[:, 2]
            return out
        if self.interpolation_degree_ is None:
            return self._exact_likelihood_masses(scores)
        t = (2.0 / np.pi) * np.arctan(
            self._logistic.standardize(scores) - getattr(self, "_interpolation_centre", 0.0)
        )  # 0: fitted before the centred map
        values = call_kernel(
            chebyshev_clenshaw,
            t,
            self._chebyshev_coefficients,
            _buffers.empty((t.size, self._chebyshev_coefficients.shape[1])),
            np.empty((4, 128)),
            work=t.size * self._chebyshev_coefficients.size,
        )
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
            interpolant used by :meth:`predict_mass` agrees to 1e-8.
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
        values = self._logistic.contour(self._logistic.standardize(np.array([score]))[0], flat)
        return values.reshape(tau_arr.shape)
