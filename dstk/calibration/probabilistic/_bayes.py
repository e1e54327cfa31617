"""Bayes-rule calibration with class-conditional score densities (Bennett 2002; Gebel 2009, Sec. 4.3)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import betaincinv

from ..._estimator import check_is_fitted
from ..._kernels.probabilistic_calibration import asymmetric_laplace_fit
from ..._validation import check_in_range, check_level
from ...evidence._logistic import sigmoid
from ._base import BinaryProbabilisticCalibrator, interval_to_mass, log_odds

if TYPE_CHECKING:
    from ...core._mass import MassFunction

__all__ = ["GaussianBayesCalibrator", "AsymmetricLaplaceBayesCalibrator", "asymmetric_laplace_logpdf"]


def asymmetric_laplace_logpdf(values: ArrayLike, mode: float, beta: float, gamma: float) -> np.ndarray:
    """Log-density of the asymmetric Laplace distribution (Gebel 2009, Sec. 4.3.3).

    Parameters
    ----------
    values : array_like
        Scores ``s`` at which to evaluate the log-density (any shape).
    mode : float
        ``theta``.
    beta, gamma : float
        Positive inverse scales left and right of the mode.

    Returns
    -------
    ndarray
        ``log(beta gamma / (beta + gamma)) - beta (theta - s)`` for ``s <= theta``
        and ``log(beta gamma / (beta + gamma)) - gamma (s - theta)`` otherwise.

    Notes
    -----
    Gebel (2009), Sec. 4.3.3, after Bennett (2003): the density
    ``f(s) = beta gamma / (beta + gamma) exp(-beta (theta - s))`` for
    ``s <= theta`` and ``beta gamma / (beta + gamma) exp(-gamma (s - theta))``
    for ``s > theta``; it integrates to ``gamma/(beta+gamma) + beta/(beta+gamma) = 1``.
    The parameters are not validated here (the calibrator fits them).

    References
    ----------
    P. N. Bennett, Using asymmetric distributions to improve text classifier
    probability estimates, SIGIR 2003.

    Examples
    --------
    >>> float(np.exp(asymmetric_laplace_logpdf(0.0, 0.0, 1.0, 1.0)))
    0.5
    """
    s = np.asarray(values, dtype=np.float64)
    norm = np.log(beta) + np.log(gamma) - np.log(beta + gamma)
    return np.where(s <= mode, norm - beta * (mode - s), norm - gamma * (s - mode))


def _power_of_two_scale(values: np.ndarray) -> float:
    """The power of two nearest above ``max |values|`` (1.0 for zeros): dividing by it is exact."""
    largest = float(np.max(np.abs(values))) if values.size else 0.0
    if largest == 0.0:
        return 1.0
    return float(np.ldexp(1.0, int(np.frexp(largest)[1])))


class _BayesCalibrator(BinaryProbabilisticCalibrator):
    _fitted_attribute = "prior_positive_"
    input_kind: str
    clip: float
    level: float

    def _fit_densities(self, negative: np.ndarray, positive: np.ndarray) -> None:
        raise NotImplementedError

    def _prior(self, n_pos: int, n_neg: int) -> float:
        raise NotImplementedError

    def _log_density(self, x: np.ndarray, k: int) -> np.ndarray:
        raise NotImplementedError

    def _transform(self, s):
        if self.input_kind == "score":
            return s
        if self.input_kind == "probability":
            return log_odds(s, clip=self.clip)
        raise ValueError(f"`input_kind` must be 'score' or 'probability'; got {self.input_kind!r}.")

    def _fit(self, s, y):
        check_in_range(self.clip, "clip", low=0.0, high=0.5, low_inclusive=False, high_inclusive=False)
        check_level(self.level, meaning="a credible level")
        x = self._transform(s)
        n_pos = int(y.sum())
        n_neg = y.size - n_pos
        self._fit_densities(x[y == 0], x[y == 1])
        self.prior_positive_ = self._prior(n_pos, n_neg)
        self.n_positive_, self.n_negative_ = n_pos, n_neg

    def _density_log_ratio(self, x):
        return self._log_density(x, 1) - self._log_density(x, 0)

    def _positive_probability(self, s, prior=None):
        x = self._transform(s)
        pi = self.prior_positive_ if prior is None else prior
        return sigmoid(self._density_log_ratio(x) + np.log(pi) - np.log1p(-pi))

    def predict_interval(self, scores: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper posterior of the positive class over a credible interval of its prior.

        Parameters
        ----------
        scores : array_like of shape (N,)

        Returns
        -------
        lower, upper : ndarray of shape (N,)
            The posterior ``P(+ | s)`` evaluated at the ends of the
            equal-tailed ``level`` credible interval of the positive-class prior
            under the ``Beta(N+ + 1, N- + 1)`` posterior of a uniform prior.

        Notes
        -----
        dstk's own extension (not in Gebel 2009 or Bennett 2002): with few
        calibration data the class prior is uncertain, and the posterior is
        increasing in the prior, so the interval of priors maps to an
        interval of posteriors.  Only the prior's uncertainty is represented,
        not that of the density parameters.
        """
        check_is_fitted(self, self._fitted_attribute)
        s = self._check_input(scores)
        level = check_level(self.level, meaning="a credible level")
        a, b = self.n_positive_ + 1.0, self.n_negative_ + 1.0
        lo_prior = betaincinv(a, b, (1.0 - level) / 2.0)
        hi_prior = betaincinv(a, b, (1.0 + level) / 2.0)
        return self._positive_probability(s, lo_prior), self._positive_probability(s, hi_prior)

    def predict_mass(self, scores: ArrayLike) -> MassFunction:
        """Binary mass functions from :meth:`predict_interval` (dstk's own extension).

        Returns
        -------
        MassFunction of batch shape (N,)
            On ``Frame(classes_)``: ``m({classes_[1]}) = lower``,
            ``m({classes_[0]}) = 1 - upper``, ``m(frame) = upper - lower``.
        """
        lower, upper = self.predict_interval(scores)
        return interval_to_mass(lower, upper, self.classes_)


class GaussianBayesCalibrator(_BayesCalibrator):
    """Bayes-rule calibration with Gaussian class-conditional score densities.

    Parameters
    ----------
    input_kind : {"score", "probability"}, default="score"
        ``"probability"``: inputs are probabilities, turned into log-odds
        scores first (Gebel 2009, Eq. 4.7) after clipping into
        ``[clip, 1 - clip]``.
    clip : float, default=1e-12
        Clipping used for probability inputs.
    level : float, default=0.95
        Level of the prior interval used by :meth:`predict_interval` and
        :meth:`predict_mass`.

    Attributes
    ----------
    means_ : ndarray of shape (2,)
        ``mu_k``, the class means of the scores (index 0 = negative class).
    stds_ : ndarray of shape (2,)
        ``sigma_k`` with the ``n - 1`` divisor.
    prior_positive_ : float
        ``N+ / N``.
    classes_ : ndarray of shape (2,)

    Raises
    ------
    ValueError
        In ``fit``, when a class has fewer than two scores or zero spread.

    Notes
    -----
    Gebel (2009), Sec. 4.3.2: ``P(+ | s) = pi_+ f_+(s) / (pi_- f_-(s) + pi_+ f_+(s))``
    with normal densities, ``sigma_k**2 = sum (s_i - mean_k)**2 / (|S_k| - 1)``
    and priors ``pi_k = N_k / N``; evaluated on the log-odds scale.

    References
    ----------
    P. N. Bennett, Using asymmetric distributions to improve text classifier
    probability estimates, SIGIR 2003.

    Examples
    --------
    >>> cal = GaussianBayesCalibrator().fit([-2.0, -1.0, 0.0, 0.0, 1.0, 2.0], [0, 0, 0, 1, 1, 1])
    >>> float(cal.predict_proba([0.0])[0, 1])
    0.5
    """

    def __init__(self, input_kind: str = "score", *, clip: float = 1e-12, level: float = 0.95):
        self.input_kind = input_kind
        self.clip = clip
        self.level = level

    def _prior(self, n_pos, n_neg):
        return n_pos / (n_pos + n_neg)

    def _fit_densities(self, negative, positive):
        means, stds = [], []
        for name, group in (("negative", negative), ("positive", positive)):
            if group.size < 2:
                raise ValueError(
                    f"GaussianBayesCalibrator needs at least two scores of the {name} class to estimate a "
                    f"standard deviation; got {group.size}."
                )
            scale = float(np.max(np.abs(group))) or 1.0  # std of huge scores without overflow
            sd = scale * float(np.std(group / scale, ddof=1))
            if sd == 0.0:
                raise ValueError(
                    f"All scores of the {name} class are equal; a Gaussian density cannot be fitted. Use "
                    "IsotonicRegressionCalibrator or PlattCalibrator for such scores."
                )
            means.append(scale * float(np.mean(group / scale)))
            stds.append(sd)
        self.means_ = np.array(means)
        self.stds_ = np.array(stds)

    def _log_density(self, x, k):
        # beyond 1e150 standard deviations the posterior is at its limit; clipping keeps z**2 finite
        z = np.clip((x - self.means_[k]) / self.stds_[k], -1e150, 1e150)
        return -0.5 * z * z - np.log(self.stds_[k])


class AsymmetricLaplaceBayesCalibrator(_BayesCalibrator):
    """Bayes-rule calibration with asymmetric-Laplace class-conditional densities (``bay-alap``).

    Parameters
    ----------
    input_kind : {"score", "probability"}, default="score"
        As in :class:`GaussianBayesCalibrator`.
    clip : float, default=1e-12
        Clipping used for probability inputs.
    level : float, default=0.95
        Level of the prior interval used by :meth:`predict_interval` and
        :meth:`predict_mass`.

    Attributes
    ----------
    modes_, left_rates_, right_rates_ : ndarray of shape (2,)
        ``theta_k``, ``beta_k`` and ``gamma_k`` per class (index 0 = negative).
    prior_positive_ : float
        ``(N+ + 1) / (N + 2)``.
    classes_ : ndarray of shape (2,)

    Raises
    ------
    ValueError
        In ``fit``, when the scores of a class do not allow a valid mode
        (fewer than three distinct values, so every candidate mode has an
        empty side and an infinite scale).

    Notes
    -----
    Gebel (2009), Sec. 4.3.3 (after Bennett 2002): each observed score of a
    class is a candidate mode ``theta``; given ``theta`` the maximum-likelihood
    inverse scales are ``beta = n / (D_l + sqrt(D_l D_r))`` and
    ``gamma = n / (D_r + sqrt(D_l D_r))`` with ``D_l = N_l theta - sum_{s <= theta} s``
    and ``D_r = sum_{s > theta} s - N_r theta``; the candidate of largest
    likelihood (4.8) wins.  Candidates with ``D_l = 0`` or ``D_r = 0`` are
    skipped.  Priors are Laplace-smoothed, ``(N_k + 1) / (N + 2)``.

    References
    ----------
    P. N. Bennett, Assessing the calibration of naive Bayes' posterior
    estimates, CMU-CS-00-155, 2000; Using asymmetric distributions to
    improve text classifier probability estimates, SIGIR 2003.

    Examples
    --------
    >>> rng = np.random.RandomState(1)
    >>> s = np.r_[rng.laplace(-1, 1, 200), rng.laplace(1, 1, 200)]
    >>> y = np.r_[np.zeros(200), np.ones(200)]
    >>> cal = AsymmetricLaplaceBayesCalibrator().fit(s, y)
    >>> bool(cal.predict_proba([-2.0])[0, 1] < 0.5 < cal.predict_proba([2.0])[0, 1])
    True
    """

    def __init__(self, input_kind: str = "score", *, clip: float = 1e-12, level: float = 0.95):
        self.input_kind = input_kind
        self.clip = clip
        self.level = level

    def _prior(self, n_pos, n_neg):
        return (n_pos + 1.0) / (n_pos + n_neg + 2.0)

    def _fit_densities(self, negative, positive):
        modes, lefts, rights = [], [], []
        for name, group in (("negative", negative), ("positive", positive)):
            # fit on the scores divided by a power of two (exact): d_left * d_right overflows from |s| ~ 1e154
            scale = _power_of_two_scale(group)
            mode, beta, gamma, ll = asymmetric_laplace_fit(np.sort(group / scale))
            mode, beta, gamma = mode * scale, beta / scale, gamma / scale
            if not np.isfinite(ll):
                raise ValueError(
                    f"The {group.size} scores of the {name} class take fewer than three distinct values; an "
                    "asymmetric Laplace density cannot be fitted (every candidate mode leaves one side "
                    "empty). The method needs scores with some spread, including misclassified examples."
                )
            modes.append(mode)
            lefts.append(beta)
            rights.append(gamma)
        self.modes_ = np.array(modes)
        self.left_rates_ = np.array(lefts)
        self.right_rates_ = np.array(rights)

    def _log_density(self, x, k):
        return asymmetric_laplace_logpdf(x, self.modes_[k], self.left_rates_[k], self.right_rates_[k])
