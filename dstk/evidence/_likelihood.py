"""Likelihood-based (consonant) belief functions on a parameter (Shafer 1976; Denoeux 2014).

After observing data x, the contour function of the parameter theta is the
relative likelihood (Xu et al. 2016, Eq. 11)

    pl(theta) = L(theta) / sup L,

the plausibility of a set A is ``Pl(A) = sup_{theta in A} pl(theta)`` (Eq. 12),
the belief is ``Bel(A) = 1 - Pl(complement of A)``, and the focal sets are the
level sets ``{theta : pl(theta) >= gamma}`` (Eq. 13).

Classes
-------
LikelihoodBeliefFunction
    From any log-likelihood callable of a scalar or vector parameter.
BinomialLikelihood
    k successes in n Bernoulli trials; exact sups, focal intervals and
    predictive mass (Eqs. 29-32).
MultinomialLikelihood
    Class counts; exact marginal (profile) contours of each class probability.
LogisticLikelihood
    Logistic regression of labels on scores in Xu et al.'s convention
    tau = 1 / (1 + exp(theta_0 + theta_1 s)) (Eq. 2); profile contour of tau
    at a score s (Eqs. 33-40) and the predictive mass (Eqs. 22-23).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special

from dstk._validation import check_level
from dstk.core._mass import MassFunction
from dstk.evidence._counts import _binary_mass_array, _check_counts
from dstk.evidence._logistic import ScoreLogistic
from dstk.evidence._predictive import _binary_mass, _mass_from_array

__all__ = [
    "LikelihoodBeliefFunction",
    "BinomialLikelihood",
    "MultinomialLikelihood",
    "LogisticLikelihood",
]


def _parameter_values(values: ArrayLike, name: str) -> np.ndarray:
    """``values`` (``mle`` or ``initial``) as float64, or a clear error naming the argument."""
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"`{name}` must be a number or an array of numbers; got {values!r}.") from None


def _interval_end(end: ArrayLike | None, default: float) -> np.ndarray:
    """An end of an interval or box as float64, ``default`` for None; a clear error for non-numbers."""
    if end is None:
        return np.asarray(default, dtype=np.float64)
    if np.iscomplexobj(end):
        raise TypeError("`lower` and `upper` must be real numbers; complex values are not supported.")
    try:
        return np.asarray(end, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"`lower` and `upper` must be numbers (or None for an unbounded side); got {end!r}."
        ) from None


class LikelihoodBeliefFunction:
    """Consonant belief function on a parameter induced by a likelihood (Eqs. 11-14).

    Parameters
    ----------
    log_likelihood : callable
        ``log_likelihood(theta) -> float``; ``theta`` is a float for a scalar
        parameter or a 1-D array of length ``dimension``.  May return -inf
        outside the parameter space.
    mle : float or array_like, optional
        The maximiser theta_hat, if known; otherwise found numerically from
        ``initial`` (Nelder-Mead, then L-BFGS-B within ``bounds``).
    initial : float or array_like, optional
        Starting point of the numerical maximisation (required without ``mle``).
    bounds : sequence of (low, high), optional
        Parameter space box, one pair per coordinate (None for unbounded).
    concave : bool, default False
        Declare the log-likelihood concave; then sups over boxes and
        half-spaces are convex problems solved by one local optimisation
        (exact up to the optimiser's tolerance).  Otherwise several starts are
        used and the result is a numerical lower bound of the sup.

    Attributes
    ----------
    mle_ : ndarray of shape (dimension,)
    max_log_likelihood_ : float
    dimension : int

    Raises
    ------
    ValueError
        ``log_likelihood`` is not callable, neither ``mle`` nor ``initial`` is
        given, ``bounds`` has the wrong number of pairs, or the log-likelihood
        at the maximiser is not finite.

    Notes
    -----
    Eq. 11: pl(theta) = L(theta) / L(theta_hat); Eq. 12: Pl(A) = sup_A pl;
    Eq. 13: focal sets Gamma(gamma) = {pl >= gamma}; Bel(A) = 1 - Pl(not A).
    For a box A = prod_j [a_j, b_j], the complement is the union of the
    half-spaces {theta_j < a_j} and {theta_j > b_j}, so Pl(not A) is the
    largest of their sups (each attained on its boundary hyperplane when the
    MLE is outside it and the log-likelihood is concave).

    References
    ----------
    Shafer, G. (1976). A Mathematical Theory of Evidence. Princeton.
    Denoeux, T. (2014). Likelihood-based belief function: justification and
    some extensions to low-quality data. IJAR 55(7), 1535-1547.
    Xu, P. et al. (2016). Evidential calibration of binary SVM classifiers. IJAR 72.

    Examples
    --------
    >>> belief = LikelihoodBeliefFunction(lambda mu: -0.5 * 25 * (mu - 1.0) ** 2, mle=1.0, concave=True)
    >>> round(belief.contour(1.2), 6)
    0.606531
    >>> round(belief.pl(1.2, 2.0), 6)
    0.606531
    >>> round(belief.bel(0.8, 1.2), 6)
    0.393469
    """

    mle_: np.ndarray
    max_log_likelihood_: float
    dimension: int

    def __init__(
        self,
        log_likelihood: Callable[[Any], float],
        *,
        mle: ArrayLike | None = None,
        initial: ArrayLike | None = None,
        bounds: Sequence[tuple[float | None, float | None]] | tuple[float | None, float | None] | None = None,
        concave: bool = False,
    ) -> None:
        if not callable(log_likelihood):
            raise ValueError("`log_likelihood` must be a callable theta -> log L(theta).")
        self._log_likelihood_callable = log_likelihood
        if not (
            isinstance(concave, (bool, np.bool_))
            or (isinstance(concave, (int, np.integer)) and concave in (0, 1))
        ):
            raise ValueError(f"`concave` must be True or False; got {concave!r}.")
        self.concave = bool(concave)
        if mle is None:
            if initial is None:
                raise ValueError(
                    "Pass either `mle` (the maximiser) or `initial` (a starting point to find it)."
                )
            start = np.atleast_1d(_parameter_values(initial, "initial"))
            self._scalar = np.ndim(initial) == 0
            self.dimension = start.size
            self.bounds = self._check_bounds(bounds)
            maximiser = self._maximise(start)
        else:
            self._scalar = np.ndim(mle) == 0
            maximiser = np.atleast_1d(_parameter_values(mle, "mle"))
            self.dimension = maximiser.size
            self.bounds = self._check_bounds(bounds)
        self.mle_ = maximiser
        self.max_log_likelihood_ = float(self._log_likelihood(maximiser))
        if not np.isfinite(self.max_log_likelihood_):
            raise ValueError(
                f"The log-likelihood at the MLE {maximiser!r} is not finite ({self.max_log_likelihood_!r})."
            )
        if mle is not None and not self._exact_mle:
            self._check_given_mle(maximiser)

    #: Subclasses that compute theta_hat themselves (closed form or Newton) skip the check of a given `mle`.
    _exact_mle = False

    def _check_given_mle(self, maximiser):
        """Raise unless ``maximiser`` lies in ``bounds`` and no coordinate step raises the log-likelihood."""
        lows = np.array([b[0] for b in self.bounds])
        highs = np.array([b[1] for b in self.bounds])
        if np.any(maximiser < lows) or np.any(maximiser > highs):
            raise ValueError(
                f"`mle` {maximiser.tolist()} lies outside `bounds` {self.bounds}; pass the maximiser within "
                "the parameter space, or `initial` to find it."
            )
        tolerance = 1e-9 * max(1.0, abs(self.max_log_likelihood_))
        for j in range(self.dimension):
            step = 1e-4 * max(1.0, abs(float(maximiser[j])))
            for direction in (-1.0, 1.0):
                moved = maximiser.copy()
                moved[j] += direction * step
                if not lows[j] <= moved[j] <= highs[j]:
                    continue
                value = self._log_likelihood(moved)
                if value > self.max_log_likelihood_ + tolerance:
                    raise ValueError(
                        f"`mle` {maximiser.tolist()} is not a maximiser of the log-likelihood: it is larger at "
                        f"{moved.tolist()} ({value!r} > {self.max_log_likelihood_!r}), so every contour value, "
                        "plausibility and focal set would be wrong. Pass the maximiser, or `initial` to find it."
                    )

    # -- helpers ------------------------------------------------------------
    def _check_bounds(self, bounds):
        if bounds is None:
            return [(-np.inf, np.inf)] * self.dimension
        bounds = [tuple(b) for b in (bounds if self.dimension > 1 or np.ndim(bounds) == 2 else [bounds])]
        if len(bounds) != self.dimension:
            raise ValueError(
                f"`bounds` needs one (low, high) pair per coordinate ({self.dimension}); got {len(bounds)}."
            )
        return [
            (-np.inf if lo is None else float(lo), np.inf if hi is None else float(hi)) for lo, hi in bounds
        ]

    def _log_likelihood(self, theta):
        theta = np.asarray(theta, dtype=np.float64).reshape(self.dimension)
        argument = float(theta[0]) if self._scalar else theta
        value = float(self._log_likelihood_callable(argument))
        return value if not np.isnan(value) else -np.inf

    def _maximise(self, start, lower=None, upper=None):
        """Maximise the log-likelihood over the box [lower, upper] ∩ bounds from ``start``."""
        box = []
        for j, (lo, hi) in enumerate(self.bounds):
            lo_j = lo if lower is None else max(lo, lower[j])
            hi_j = hi if upper is None else min(hi, upper[j])
            box.append((lo_j, hi_j))
        lows = np.array([b[0] for b in box])
        highs = np.array([b[1] for b in box])

        def negative(theta):
            value = self._log_likelihood(theta)
            return -value if np.isfinite(value) else 1e300

        starts = [np.clip(start, lows, highs)]
        if not self.concave:
            rng = np.random.default_rng(0)
            scale = np.maximum(np.abs(starts[0]), 1.0)
            for _ in range(4):
                starts.append(np.clip(starts[0] + rng.normal(0, 1, self.dimension) * scale, lows, highs))
        best = None
        bounded = [
            (None if not np.isfinite(lo) else lo, None if not np.isfinite(hi) else hi) for lo, hi in box
        ]
        for point in starts:
            if self.dimension == 1 and all(np.isfinite([lows[0], highs[0]])):
                result = optimize.minimize_scalar(
                    lambda t: negative([t]),
                    bounds=(lows[0], highs[0]),
                    method="bounded",
                    options={"xatol": 1e-12},
                )
                candidate = np.array([result.x])
            elif self.dimension == 1 and not np.isfinite(lows[0]) and not np.isfinite(highs[0]):
                step = max(abs(point[0]), 1.0) * 1e-2
                result = optimize.minimize_scalar(
                    lambda t: negative([t]), bracket=(point[0], point[0] + step), method="brent", tol=1e-12
                )
                candidate = np.array([result.x])
            else:
                result = optimize.minimize(
                    negative,
                    point,
                    method="L-BFGS-B",
                    bounds=bounded,
                    options={"ftol": 1e-15, "gtol": 1e-10, "maxiter": 2000},
                )
                candidate = result.x
                if not np.all(np.isfinite(lows)) or not np.all(np.isfinite(highs)):
                    polished = optimize.minimize(negative, candidate, method="BFGS", options={"gtol": 1e-11})
                    if (
                        polished.fun <= result.fun
                        and np.all(polished.x >= lows)
                        and np.all(polished.x <= highs)
                    ):
                        candidate = polished.x
            if best is None or negative(candidate) < negative(best):
                best = candidate
        return np.asarray(best, dtype=np.float64)

    # -- public API ---------------------------------------------------------
    def log_contour(self, theta: ArrayLike) -> float | np.ndarray:
        """Logarithm of the contour function, log pl(theta) = log L(theta) - log L(theta_hat).

        Parameters
        ----------
        theta : float or array_like
            Parameter values: scalars (any shape) for a scalar parameter, or an
            array of shape (..., dimension).

        Returns
        -------
        float or ndarray
            log pl at each parameter value (0 at the MLE, -inf outside the
            parameter space); shape (...,).

        Raises
        ------
        ValueError
            The last axis of ``theta`` does not have length ``dimension``.
        """
        theta = np.asarray(theta, dtype=np.float64)
        if self._scalar:
            flat = theta.reshape(-1, 1)
            shape = theta.shape
        else:
            if theta.shape[-1] != self.dimension:
                raise ValueError(
                    f"`theta` must have a last axis of length {self.dimension}; got shape {theta.shape}."
                )
            flat = theta.reshape(-1, self.dimension)
            shape = theta.shape[:-1]
        # a NaN parameter has a NaN contour (not the -inf of a NaN log-likelihood, which reads as pl = 0)
        values = (
            np.array([np.nan if np.isnan(row).any() else self._log_likelihood(row) for row in flat])
            - self.max_log_likelihood_
        )
        values = np.minimum(values, 0.0)
        return values.reshape(shape) if shape else float(values[0])

    def contour(self, theta: ArrayLike) -> float | np.ndarray:
        """Contour function pl(theta) = L(theta) / sup L (Eq. 11).

        Parameters
        ----------
        theta : float or array_like
            Parameter values, as in :meth:`log_contour`.

        Returns
        -------
        float or ndarray
            pl(theta) in [0, 1].
        """
        values = np.exp(self.log_contour(theta))
        return float(values) if np.ndim(values) == 0 else values

    def _box(self, lower: ArrayLike | None, upper: ArrayLike | None) -> tuple[np.ndarray, np.ndarray]:
        given = (_interval_end(lower, -np.inf), _interval_end(upper, np.inf))
        if any(values.ndim > 1 or values.size not in (1, self.dimension) for values in given):
            raise ValueError(
                f"A box needs one end per coordinate of the {self.dimension}-dimensional parameter "
                f"(or one number for all); got `lower` of shape {given[0].shape} and `upper` of "
                f"shape {given[1].shape}."
            )
        lower, upper = (np.broadcast_to(values, (self.dimension,)) for values in given)
        if np.any(np.isnan(lower)) or np.any(np.isnan(upper)) or np.any(lower > upper):
            raise ValueError(f"Invalid box: need lower <= upper coordinatewise; got {lower!r} and {upper!r}.")
        return lower.copy(), upper.copy()

    def pl(self, lower: ArrayLike | None = None, upper: ArrayLike | None = None) -> float:
        """Plausibility of the box ``[lower, upper]``: the sup of the contour over it (Eq. 12).

        Parameters
        ----------
        lower, upper : float or array_like of shape (dimension,), optional
            Corners of the box (an interval for a scalar parameter); None is
            unbounded on that side.

        Returns
        -------
        float
            Pl(box) in [0, 1]; 1 when the box contains the MLE.

        Raises
        ------
        ValueError
            ``lower > upper`` in some coordinate, or NaN corners.
        """
        lower, upper = self._box(lower, upper)
        if np.all(self.mle_ >= lower) and np.all(self.mle_ <= upper):
            return 1.0
        nearest = np.clip(self.mle_, lower, upper)
        nearest_value = self._log_likelihood(nearest)
        if self.concave and self.dimension == 1:
            # unimodal contour: the sup over an interval is at the end nearest to the MLE (exact)
            return float(np.exp(min(nearest_value - self.max_log_likelihood_, 0.0)))
        best = self._maximise(nearest, lower, upper)
        value = max(self._log_likelihood(best), nearest_value)
        return float(np.exp(min(value - self.max_log_likelihood_, 0.0)))

    def bel(self, lower: ArrayLike | None = None, upper: ArrayLike | None = None) -> float:
        """Belief of the box ``[lower, upper]``: 1 - Pl(complement).

        Parameters
        ----------
        lower, upper : float or array_like of shape (dimension,), optional
            Corners of the box; None is unbounded on that side.

        Returns
        -------
        float
            Bel(box) in [0, 1]; 0 when the box misses the MLE.
        """
        lower, upper = self._box(lower, upper)
        if not (np.all(self.mle_ >= lower) and np.all(self.mle_ <= upper)):
            return 0.0  # the complement contains the MLE, Pl(complement) = 1
        largest = 0.0
        for j in range(self.dimension):
            for side, bound in (("below", lower[j]), ("above", upper[j])):
                if not np.isfinite(bound):
                    continue
                half_lower = np.full(self.dimension, -np.inf)
                half_upper = np.full(self.dimension, np.inf)
                if side == "below":
                    half_upper[j] = bound
                else:
                    half_lower[j] = bound
                largest = max(largest, self.pl(half_lower, half_upper))
        return 1.0 - largest

    def focal_set(self, level: float) -> tuple[float, float]:
        """Focal interval {theta : pl(theta) >= level} of a scalar parameter (Eq. 13).

        Assumes the contour is unimodal (true for concave log-likelihoods);
        the two ends are found by Brent's method on each side of the MLE.

        Parameters
        ----------
        level : float
            The plausibility threshold gamma in (0, 1].

        Returns
        -------
        lower, upper : float
            Ends of the focal interval; an end is the parameter bound (possibly
            infinite) when the contour stays above ``level`` up to it.

        Raises
        ------
        ValueError
            A vector parameter, or ``level`` outside (0, 1].
        """
        if self.dimension != 1:
            raise ValueError("focal_set is defined here for a scalar parameter; use pl/bel for boxes.")
        level = check_level(level, meaning="a plausibility threshold gamma", upper_inclusive=True)
        target = math.log(level)
        mle = float(self.mle_[0])
        if level == 1.0:
            return mle, mle
        ends = []
        for direction, bound in ((-1.0, self.bounds[0][0]), (1.0, self.bounds[0][1])):
            step = max(abs(mle), 1.0) * 1e-3
            inner = mle
            while True:
                outer = mle + direction * step
                if (direction < 0 and outer <= bound) or (direction > 0 and outer >= bound):
                    outer = bound
                if not np.isfinite(outer):
                    ends.append(outer)
                    break
                value = self.log_contour(outer)
                if value < target:
                    root = optimize.brentq(
                        lambda t: self.log_contour(t) - target,
                        min(inner, outer),
                        max(inner, outer),
                        xtol=1e-13,
                        rtol=1e-15,
                    )
                    ends.append(root)
                    break
                if outer == bound:
                    ends.append(bound)
                    break
                inner = outer
                step *= 2.0
                if step > 1e15:
                    ends.append(direction * np.inf)
                    break
        return ends[0], ends[1]

    def profile_contour(
        self, parametrization: Callable[[Any, Any], ArrayLike], value: float, free_initial: ArrayLike
    ) -> float:
        """Profile contour of a function of the parameter: sup{pl(theta) : theta = parametrization(value, free)}.

        Parameters
        ----------
        parametrization : callable
            ``parametrization(value, free) -> theta``: every theta with
            g(theta) = value, as ``free`` ranges over R^r (e.g. the line of
            Eq. 39 for the logistic model, with free = theta_1).
        value : float
            The value of the function of interest (tau in Eq. 40).
        free_initial : float or array_like
            Starting point of the maximisation over the free coordinates.

        Returns
        -------
        float
            pl_g(value) = sup_free pl(parametrization(value, free)).
        """
        start = np.atleast_1d(np.asarray(free_initial, dtype=np.float64))

        def negative(free):
            theta = parametrization(value, free[0] if start.size == 1 else free)
            log_value = self._log_likelihood(theta) - self.max_log_likelihood_
            return -log_value if np.isfinite(log_value) else 1e300

        result = optimize.minimize(
            negative, start, method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 4000}
        )
        return float(np.exp(min(-result.fun, 0.0)))


class BinomialLikelihood(LikelihoodBeliefFunction):
    """Likelihood-based belief function on a binomial proportion tau from k successes in n trials.

    Parameters
    ----------
    k, n : int
        Successes and trials, 0 <= k <= n, n >= 1.

    Raises
    ------
    ValueError
        Counts that are negative, non-integer, not scalars, ``k > n``, or
        ``n = 0`` (a constant likelihood: use the vacuous mass function).

    Notes
    -----
    pl(tau) = tau^k (1 - tau)^(n-k) / (tau_hat^k (1 - tau_hat)^(n-k)), tau_hat = k/n
    (Xu et al. 2016, Eq. 29).  The contour is unimodal, so the sup over an
    interval is the contour at the point of the interval nearest to tau_hat
    (exact), focal sets are intervals, and the predictive mass has the closed
    form of Eqs. 30-32 (see :func:`dstk.evidence._counts.from_counts`).

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. IJAR 72, 55-70.

    Examples
    --------
    >>> belief = BinomialLikelihood(7, 10)
    >>> round(belief.pl(0.0, 0.5), 6)
    0.439188
    >>> belief.predictive_mass().to_array().round(6)
    array([0.      , 0.153349, 0.505948, 0.340703])
    """

    _exact_mle = True

    def __init__(self, k: float, n: float) -> None:
        k_arr, n_arr = _check_counts(k, n)
        if k_arr.ndim != 0:
            raise ValueError("BinomialLikelihood takes one count pair; use from_counts for arrays.")
        if n_arr == 0:
            raise ValueError(
                "n = 0 trials: the likelihood is constant and has no unique maximum; the belief function is vacuous."
            )
        self.k = float(k_arr)
        self.n = float(n_arr)
        super().__init__(
            self._binomial_log_likelihood, mle=self.k / self.n, bounds=[(0.0, 1.0)], concave=True
        )

    def _binomial_log_likelihood(self, tau):
        if not 0.0 <= tau <= 1.0:
            return -np.inf
        with np.errstate(divide="ignore"):
            return float(special.xlogy(self.k, tau) + special.xlog1py(self.n - self.k, -tau))

    def log_contour(self, theta: ArrayLike) -> float | np.ndarray:
        """Logarithm of the binomial contour, exact (Eq. 29).

        Parameters
        ----------
        theta : float or array_like
            Proportions tau (values outside [0, 1] give -inf).

        Returns
        -------
        float or ndarray
            k log(tau / tau_hat) + (n - k) log((1 - tau) / (1 - tau_hat)).
        """
        tau = np.asarray(theta, dtype=np.float64)
        tau_hat = self.k / self.n
        with np.errstate(divide="ignore", invalid="ignore"):
            values = (
                special.xlogy(self.k, tau)
                + special.xlog1py(self.n - self.k, -tau)
                - special.xlogy(self.k, tau_hat)
                - special.xlog1py(self.n - self.k, -tau_hat)
            )
        values = np.where((tau < 0) | (tau > 1), -np.inf, np.minimum(values, 0.0))
        return values if values.ndim else float(values)

    def _interval_ends(
        self, lower: ArrayLike | None, upper: ArrayLike | None
    ) -> tuple[np.ndarray, np.ndarray]:
        lower_arr = _interval_end(lower, -np.inf)
        upper_arr = _interval_end(upper, np.inf)
        lower_arr, upper_arr = np.broadcast_arrays(lower_arr, upper_arr)
        if np.any(np.isnan(lower_arr)) or np.any(np.isnan(upper_arr)) or np.any(lower_arr > upper_arr):
            raise ValueError(
                "Invalid interval: need lower <= upper (no NaN) for every interval; "
                f"got lower={lower!r}, upper={upper!r}."
            )
        return lower_arr, upper_arr

    def pl(self, lower: ArrayLike | None = None, upper: ArrayLike | None = None) -> Any:
        """Plausibility of the interval ``[lower, upper]``: the contour at its point nearest tau_hat (exact).

        Parameters
        ----------
        lower, upper : float or array_like, optional
            Ends of the interval(s); None is unbounded on that side.  Arrays
            broadcast against each other, so ``pl(0.0, thresholds)`` is the
            curve ``t -> Pl([0, t])``.

        Returns
        -------
        float or ndarray
            Pl([lower, upper]) in [0, 1] (0 when the interval misses [0, 1]);
            an array of the broadcast shape when an end is an array.
        """
        lower_arr, upper_arr = self._interval_ends(lower, upper)
        tau_hat = self.mle_[0]
        nearest = np.clip(tau_hat, lower_arr, upper_arr)
        values = np.where((nearest < 0.0) | (nearest > 1.0), 0.0, np.exp(self.log_contour(nearest)))
        values = np.where(nearest == tau_hat, 1.0, values)  # the interval holds the MLE: exactly 1
        return float(values) if values.ndim == 0 else values

    def bel(self, lower: ArrayLike | None = None, upper: ArrayLike | None = None) -> Any:
        """Belief of the interval ``[lower, upper]``: 1 - Pl(complement) (exact).

        Parameters
        ----------
        lower, upper : float or array_like, optional
            Ends of the interval(s); None is unbounded on that side.  Arrays
            broadcast, so ``bel(0.0, thresholds)`` is the curve
            ``t -> Bel([0, t])``.

        Returns
        -------
        float or ndarray
            Bel([lower, upper]) in [0, 1]: 0 when the interval misses tau_hat,
            else ``1 - max(pl(lower), pl(upper))`` (the contour is continuous
            and unimodal on [0, 1], Denoeux 2014, Eq. 12; an end at or beyond
            0 or 1 leaves no parameter value on that side).
        """
        lower_arr, upper_arr = self._interval_ends(lower, upper)
        tau_hat = self.mle_[0]
        with np.errstate(invalid="ignore"):
            below = np.where(lower_arr > 0.0, self.pl(None, np.clip(lower_arr, 0.0, tau_hat)), 0.0)
            above = np.where(upper_arr < 1.0, self.pl(np.clip(upper_arr, tau_hat, 1.0), None), 0.0)
        inside = (lower_arr <= tau_hat) & (tau_hat <= upper_arr)
        values = np.where(inside, 1.0 - np.maximum(below, above), 0.0)
        values = np.clip(values, 0.0, 1.0)
        return float(values) if values.ndim == 0 else values

    def predictive_mass(self) -> MassFunction:
        """Predictive mass on {0, 1} for the next trial, exact (Eqs. 30-32).

        Returns
        -------
        MassFunction
            On ``Frame((0, 1))``: the likelihood model of :func:`dstk.evidence.from_counts`.
        """
        masses = _binary_mass_array(self.k, self.n, "likelihood")
        return _binary_mass(masses[1], masses[2])


class MultinomialLikelihood(LikelihoodBeliefFunction):
    """Likelihood-based belief function on class probabilities from class counts.

    Parameters
    ----------
    counts : array_like of shape (n_classes,)
        Non-negative integer counts, at least one positive.

    Raises
    ------
    ValueError
        Negative or non-integer counts, counts that are not 1-D, or all counts
        zero (a constant likelihood).

    Notes
    -----
    pl(p) = prod_c (p_c / p_hat_c)^(n_c) on the simplex, p_hat = counts / N.
    The profile (marginal) contour of one class probability is exact:
    sup{pl(p) : p_c = t} = (t / p_hat_c)^(n_c) ((1 - t) / (1 - p_hat_c))^(N - n_c),
    attained when the other classes keep their relative proportions; it is
    the binomial contour of n_c successes in N trials.

    References
    ----------
    Denoeux, T. (2014). Likelihood-based belief function: justification and
    some extensions to low-quality data. IJAR 55(7), 1535-1547.
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. IJAR 72, 55-70 (Eqs. 11-13).

    Examples
    --------
    >>> belief = MultinomialLikelihood([2, 5, 3])
    >>> round(belief.marginal_contour(1, 0.3), 6)
    0.418212
    """

    _exact_mle = True

    def __init__(self, counts: ArrayLike) -> None:
        from dstk.evidence._counts import _check_class_counts

        self._set_counts(_check_class_counts(np.asarray(counts), False))

    def _set_counts(self, counts: np.ndarray) -> None:
        if counts.ndim != 1:
            raise ValueError(f"`counts` must be 1-D (one count per class); got shape {counts.shape}.")
        if counts.sum() == 0:
            raise ValueError("All counts are zero: the likelihood is constant and has no unique maximum.")
        self.counts = counts
        self.total = float(counts.sum())
        super().__init__(
            self._multinomial_log_likelihood,
            mle=counts / self.total,
            bounds=[(0.0, 1.0)] * counts.size,
            concave=True,
        )

    def _multinomial_log_likelihood(self, probabilities):
        probabilities = np.asarray(probabilities, dtype=np.float64)
        if np.any(probabilities < 0) or abs(probabilities.sum() - 1.0) > 1e-9:
            return -np.inf
        with np.errstate(divide="ignore"):
            return float(np.sum(special.xlogy(self.counts, probabilities)))

    def marginal_contour(self, class_index: int, value: ArrayLike) -> float | np.ndarray:
        """Exact profile (marginal) contour of the probability of one class.

        Parameters
        ----------
        class_index : int
            Position of the class in ``counts``.
        value : float or array_like
            Values t of the class probability p_c.

        Returns
        -------
        float or ndarray
            sup{pl(p) : p_c = t}, the binomial contour of n_c in N trials.

        Raises
        ------
        ValueError
            ``class_index`` out of range.
        """
        c = int(class_index)
        if not 0 <= c < self.counts.size:
            raise ValueError(f"`class_index` must be in [0, {self.counts.size}); got {class_index!r}.")
        return BinomialLikelihood(self.counts[c], self.total).contour(value)

    def pl(self, lower: ArrayLike | None = None, upper: ArrayLike | None = None) -> float:
        """Plausibility of a box of class probabilities: the sup of the contour over it and the simplex.

        A concave maximisation, solved by SLSQP under the sum-to-one constraint.

        Parameters
        ----------
        lower, upper : array_like of shape (n_classes,), optional
            Corners of the box; None is unbounded on that side.

        Returns
        -------
        float
            Pl(box) in [0, 1]; 0 when the box misses the simplex.
        """
        lower, upper = self._box(lower, upper)
        lows = np.clip(lower, 0.0, 1.0)
        highs = np.clip(upper, 0.0, 1.0)
        if lows.sum() > 1.0 + 1e-12 or highs.sum() < 1.0 - 1e-12:
            return 0.0  # the box misses the simplex
        if np.all(self.mle_ >= lows) and np.all(self.mle_ <= highs):
            return 1.0
        start = np.clip(self.mle_, lows, highs)
        start = start / start.sum() if start.sum() > 0 else np.full(start.size, 1.0 / start.size)

        def negative(p):
            with np.errstate(divide="ignore"):
                value = np.sum(special.xlogy(self.counts, np.maximum(p, 0.0)))
            return -value if np.isfinite(value) else 1e300

        result = optimize.minimize(
            negative,
            start,
            method="SLSQP",
            bounds=list(zip(lows, highs)),
            constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1.0}],
            options={"ftol": 1e-15, "maxiter": 500},
        )
        value = -negative(np.clip(result.x, lows, highs) / np.clip(result.x, lows, highs).sum())
        return float(np.exp(min(value - self.max_log_likelihood_, 0.0)))


class LogisticLikelihood(LikelihoodBeliefFunction):
    """Likelihood-based belief function on logistic-regression parameters (Xu et al. 2016, section 4.3).

    Parameters
    ----------
    scores : array_like of shape (n_samples,)
        Classifier scores (the x_i of Eq. 3).
    labels : array_like of shape (n_samples,)
        Binary labels in {0, 1}.
    targets : {"labels", "smoothed"}, default "labels"
        ``"smoothed"`` replaces the labels by Platt's targets
        ``t+ = (n+ + 1) / (n+ + 2)`` and ``t- = 1 / (n- + 2)`` (Eq. 4) inside the
        likelihood; ``"labels"`` uses the raw labels (Eq. 3).

    Attributes
    ----------
    target_values : ndarray of shape (n_samples,)
        The targets used in the likelihood (the labels, or Platt's targets).
    mle_ : ndarray (theta_0, theta_1)
        Maximum-likelihood parameters of tau(s) = 1 / (1 + exp(theta_0 + theta_1 s)).
    covariance_ : ndarray of shape (2, 2)
        Inverse observed information at ``mle_`` (its normal approximation
        gives the starting point of the profile maximisation).

    Raises
    ------
    ValueError
        Labels not binary, a single class, or perfectly separated scores with
        raw labels (the MLE does not exist; use ``targets="smoothed"``); an
        unknown ``targets``.

    Notes
    -----
    Eq. 40: pl_T(tau; s) = sup_{theta_1} pl(ln(1/tau - 1) - theta_1 s, theta_1)
    for tau in (0, 1), and 0 at tau in {0, 1} (Eq. 35).  Along that line the
    log-likelihood is concave in theta_1, so the sup is found by Newton's
    method started at the maximiser of the normal approximation on the line.
    The profile is unimodal with mode tau_hat = tau(s; theta_hat).  The fit,
    the profile and the predictive mass are those of
    :class:`~dstk.calibration.LogisticCalibrator` (one implementation, on
    standardised scores, so every result is invariant under affine changes
    of the scores).

    The predictive mass (Eqs. 22c, 23c) is integrated in ``eta = ln(1/tau - 1)``,
    where ``d tau = -tau (1 - tau) d eta``:
    ``m({1}) = int_{eta_hat}^{inf} (1 - pl) w``,
    ``m({0}) = int_{-inf}^{eta_hat} (1 - pl) w`` and
    ``m({0, 1}) = int pl w``, with ``w(eta) = tau (1 - tau)``, on adaptive
    Gauss-Legendre panels on each side of eta_hat (accurate to about 1e-12)
    plus the closed-form tails int w = expit.  Integrating 1 - pl instead of
    subtracting from tau_hat keeps every mass accurate in relative terms when
    tau_hat rounds to 0 or 1.  As ``|s|`` grows, m({0, 1}) tends to the
    relative likelihood of theta_1 = 0.

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. IJAR 72, 55-70 (Eqs. 2-4, 22-23, 33-40).
    Platt, J. C. (1999). Probabilistic outputs for support vector machines and
    comparisons to regularized likelihood methods. Advances in Large Margin
    Classifiers, MIT Press.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> labels = (rng.random(40) < 0.5).astype(int)
    >>> scores = rng.normal(2.0 * labels - 1.0, 1.0)
    >>> belief = LogisticLikelihood(scores, labels)
    >>> masses = belief.predictive_mass(0.0).to_array()
    >>> bool(abs(masses.sum() - 1) < 1e-12 and masses[3] > 0)
    True
    """

    _exact_mle = True

    def __init__(self, scores: ArrayLike, labels: ArrayLike, *, targets: str = "labels") -> None:
        from dstk._validation import check_scores

        if targets not in ("labels", "smoothed"):
            raise ValueError(
                f"Unknown targets={targets!r}; choose 'labels' (Eq. 3) or 'smoothed' (Platt's targets, Eq. 4)."
            )
        self._fit(check_scores(scores, "scores"), np.asarray(labels), targets == "smoothed")

    def _fit(self, scores: np.ndarray, labels: np.ndarray, smoothed_targets: bool) -> None:
        from dstk._validation import check_consistent_length

        check_consistent_length(scores, labels, names=["scores", "labels"])
        if not np.all(np.isin(labels, (0, 1))):
            raise ValueError("`labels` must be 0/1 (class 1 is the event whose probability is tau).")
        labels = labels.astype(np.float64)
        n_positive = labels.sum()
        n_negative = labels.size - n_positive
        if n_positive == 0 or n_negative == 0:
            raise ValueError("`labels` contain a single class; the logistic likelihood has no maximum.")
        if smoothed_targets:
            targets = np.where(labels == 1, (n_positive + 1) / (n_positive + 2), 1 / (n_negative + 2))
        else:
            targets = labels
            low_positive = scores[labels == 1].min()
            high_negative = scores[labels == 0].max()
            high_positive = scores[labels == 1].max()
            low_negative = scores[labels == 0].min()
            if low_positive > high_negative or high_positive < low_negative:
                raise ValueError(
                    "The scores separate the two classes perfectly, so the maximum-likelihood estimate does not "
                    "exist (theta diverges). Use targets='smoothed' (Platt's targets, Eq. 4) or more data."
                )
        self.scores = scores
        self.target_values = targets
        self.targets = "smoothed" if smoothed_targets else "labels"
        self._logistic = ScoreLogistic(scores, targets, name=type(self).__name__)
        super().__init__(self._logistic_log_likelihood, mle=self._logistic.theta, concave=True)
        self.covariance_ = self._logistic.covariance

    def _logistic_log_likelihood(self, theta):
        eta = theta[0] + theta[1] * self.scores
        # tau = 1/(1+e^eta): log tau = -log(1+e^eta), log(1-tau) = -log(1+e^-eta)
        return float(
            -np.sum(
                self.target_values * np.logaddexp(0.0, eta)
                + (1 - self.target_values) * np.logaddexp(0.0, -eta)
            )
        )

    def tau(self, score: ArrayLike, *, theta: ArrayLike | None = None) -> Any:
        """Success probability of Xu et al.'s sigmoid (Eq. 2) at a score.

        Parameters
        ----------
        score : float or array_like
            Classifier score(s) s.
        theta : array_like of shape (2,), optional
            Parameters (theta_0, theta_1); the MLE ``mle_`` by default.

        Returns
        -------
        float or ndarray
            tau = 1 / (1 + exp(theta_0 + theta_1 s)), with the shape of ``score``.
        """
        parameters = self.mle_ if theta is None else np.asarray(theta, dtype=np.float64)
        return special.expit(-(parameters[0] + parameters[1] * np.asarray(score, dtype=np.float64)))

    # -- profile likelihood of eta = theta_0 + theta_1 s = ln(1/tau - 1) --------------------------
    def _standardized_score(self, score):
        return float(self._logistic.standardize(np.array([float(score)]))[0])

    def _profile_log_contour_eta(self, score, eta):
        """log pl(eta; s) = max_{theta_1} l(eta - theta_1 s, theta_1) - l(theta_hat), for each ``eta``."""
        return self._logistic.log_contour_eta(self._standardized_score(score), eta)

    def profile_contour_tau(self, score: float, tau: ArrayLike) -> float | np.ndarray:
        """Profile contour pl_T(tau; s) of Eq. 40 at one score.

        Parameters
        ----------
        score : float
            Test score s.
        tau : float or array_like
            Success probabilities in [0, 1].

        Returns
        -------
        float or ndarray
            sup {pl(theta) : tau(s; theta) = tau}, with the shape of ``tau``;
            0 at tau in {0, 1} (Eq. 35) and 1 at tau_hat.
        """
        tau_values = np.asarray(tau, dtype=np.float64)
        values = self._logistic.contour(self._standardized_score(score), tau_values)
        values = np.where(np.isnan(tau_values), np.nan, values)
        return values if np.ndim(tau) else float(values)

    def predictive_mass(self, score: float) -> Any:
        """Predictive mass on {0, 1} at a test score (Eqs. 22-23 on the profile contour of Eq. 40).

        Parameters
        ----------
        score : float
            Test score s (any finite value; tau_hat may round to 0 or 1).

        Returns
        -------
        MassFunction
            On ``Frame((0, 1))``; dense ``[0, m({0}), m({1}), m({0, 1})]`` via
            ``.to_array()``, each mass accurate to about 1e-12 (relative
            accuracy kept for tiny masses).

        Raises
        ------
        ValueError
            A score that is not one finite number.
        """
        try:
            score = float(score)
        except (TypeError, ValueError):
            raise ValueError(f"`score` must be one finite number; got {score!r}.") from None
        if not np.isfinite(score):
            raise ValueError(f"`score` must be finite; got {score!r}.")
        values = self._logistic.predictive_masses(np.array([self._standardized_score(score)]))[0]
        return _mass_from_array(values)
