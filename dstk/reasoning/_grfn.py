"""Gaussian random fuzzy numbers: belief functions on the real line (Denoeux 2023).

A Gaussian random fuzzy number (GRFN) ``X ~ GRFN(mu, sigma^2, h)`` is the
random fuzzy set whose focal fuzzy set is the Gaussian fuzzy number
``phi_M(x) = exp(-h (x - M)^2 / 2)`` with a random mode ``M ~ N(mu, sigma^2)``
(Denoeux 2023a, Sec. 4.2).  Its degrees of plausibility and belief of a set
``A`` are

    Pl(A)  = E[ sup_{x in A} phi_M(x) ],
    Bel(A) = E[ 1 - sup_{x not in A} phi_M(x) ].

For an interval ``[a, b]`` both expectations have closed forms in the
normal distribution function (Denoeux 2023a, Prop. 6 and Eq. (44)); they are
derived in the notes of :meth:`GaussianRandomFuzzyNumber.pl` and
:meth:`GaussianRandomFuzzyNumber.bel`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtr, ndtri

from dstk._validation import as_float_array, check_level, check_option

__all__ = ["GaussianRandomFuzzyNumber", "combine_grfn"]

#: the kinds of prediction interval of :meth:`GaussianRandomFuzzyNumber.interval`
INTERVAL_KINDS = ("belief", "plausibility", "probabilistic")

#: the normalisations of :func:`combine_grfn`
NORMALIZATIONS = ("soft", "hard")

#: bisection steps of the interval half-widths (each halves the bracket; 80 reach double precision)
_BISECTION_STEPS = 80


def _parameter(value: Any, name: str, *, nonnegative: bool) -> np.ndarray:
    arr = as_float_array(value, name, finite=True)
    if nonnegative and arr.size and (arr < 0).any():
        index = int(np.flatnonzero((arr < 0).ravel())[0])
        raise ValueError(f"`{name}` must be >= 0; got {arr.ravel()[index]!r} (flat index {index}).")
    return arr


def _normal_cdf(numerator: np.ndarray, scale: np.ndarray, *, strict: bool = False) -> np.ndarray:
    """``Phi(numerator / scale)``; when ``scale == 0`` the limit of a point mass at 0.

    The point mass is counted (``numerator >= 0``) unless ``strict``, which asks for ``P(X < 0)``.
    """
    positive = scale > 0
    safe = np.where(positive, scale, 1.0)
    with np.errstate(invalid="ignore", over="ignore"):  # a subnormal scale: +-inf, Phi's limit
        value = ndtr(numerator / safe)
    step = (numerator > 0) if strict else (numerator >= 0)
    # an infinite numerator is Phi's limit whatever the scale (an infinite scale would give inf / inf)
    return np.where(positive & ~np.isinf(numerator), value, step.astype(np.float64))


class GaussianRandomFuzzyNumber:
    """Gaussian random fuzzy numbers ``GRFN(mean, std^2, precision)``, batched (Denoeux 2023a, Sec. 4.2).

    The focal fuzzy set is the Gaussian fuzzy number ``exp(-precision (x - M)^2 / 2)`` whose mode ``M``
    is normal with mean ``mean`` and standard deviation ``std``.  ``precision = 0`` is total ignorance
    (the vacuous belief function), ``std = 0`` a consonant belief function with the Gaussian contour
    ``exp(-precision (x - mean)^2 / 2)``; as ``precision`` grows the number tends to the probability
    distribution ``N(mean, std^2)``.

    Parameters
    ----------
    mean : array_like of float
        Mean ``mu`` of the random mode.
    std : array_like of float
        Standard deviation ``sigma >= 0`` of the random mode.
    precision : array_like of float
        Precision ``h >= 0`` of the Gaussian fuzzy number.  The three arrays broadcast to the batch
        shape :attr:`shape`; every method broadcasts its arguments against it.

    Attributes
    ----------
    mean, std, precision : ndarray
        The parameters, broadcast to :attr:`shape` (read-only).
    shape : tuple of int
        The batch shape.

    Raises
    ------
    ValueError
        A parameter is NaN or infinite, ``std`` or ``precision`` negative, or the shapes do not
        broadcast.

    Notes
    -----
    evreg (Denoeux, R package on CRAN) encodes a GRFN as ``list(mu, sig, h)``; its ``pl_contour``,
    ``Pl``, ``Bel``, ``Belint`` and ``combination_GRFN`` correspond to :meth:`contour`, :meth:`pl`,
    :meth:`bel`, :meth:`interval` and :func:`combine_grfn`.

    References
    ----------
    T. Denoeux (2023a). Reasoning with fuzzy and uncertain evidence using epistemic random fuzzy
    sets: general framework and practical models. *Fuzzy Sets and Systems* 453, 1-36.

    T. Denoeux (2023b). Quantifying prediction uncertainty in regression using random fuzzy sets:
    the ENNreg model. *IEEE Transactions on Fuzzy Systems* 31(10), 3690-3699.

    Examples
    --------
    >>> from dstk.reasoning import GaussianRandomFuzzyNumber
    >>> number = GaussianRandomFuzzyNumber(2.0, 1.0, 2.0)
    >>> round(float(number.pl(1.0, 2.0)), 6), round(float(number.bel(1.0, 2.0)), 6)
    (0.746619, 0.027001)
    """

    def __init__(self, mean: ArrayLike, std: ArrayLike, precision: ArrayLike) -> None:
        mu = _parameter(mean, "mean", nonnegative=False)
        sigma = _parameter(std, "std", nonnegative=True)
        h = _parameter(precision, "precision", nonnegative=True)
        try:
            mu, sigma, h = np.broadcast_arrays(mu, sigma, h)
        except ValueError:
            raise ValueError(
                f"`mean`, `std` and `precision` must broadcast to one shape; got shapes {mu.shape}, "
                f"{sigma.shape} and {h.shape}."
            ) from None
        self.mean = np.array(mu)
        self.std = np.array(sigma)
        self.precision = np.array(h)
        for arr in (self.mean, self.std, self.precision):
            arr.flags.writeable = False

    @property
    def shape(self) -> tuple[int, ...]:
        """The batch shape."""
        return self.mean.shape

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a single GaussianRandomFuzzyNumber (its batch shape is ()).")
        return self.shape[0]

    def __getitem__(self, index: Any) -> GaussianRandomFuzzyNumber:
        return GaussianRandomFuzzyNumber(self.mean[index], self.std[index], self.precision[index])

    def __repr__(self) -> str:
        if self.mean.size == 1:
            return (
                f"GaussianRandomFuzzyNumber(mean={float(self.mean.ravel()[0]):.6g}, "
                f"std={float(self.std.ravel()[0]):.6g}, precision={float(self.precision.ravel()[0]):.6g})"
            )
        return f"GaussianRandomFuzzyNumber(shape={self.shape})"

    def _points(self, value: ArrayLike, name: str) -> np.ndarray:
        """``value`` as a float array that broadcasts against :attr:`shape` (a clear error if not)."""
        arr = as_float_array(value, name)
        try:
            np.broadcast_shapes(arr.shape, self.shape)
        except ValueError:
            raise ValueError(
                f"`{name}` of shape {arr.shape} does not broadcast against the batch shape {self.shape} of "
                f"the numbers. To evaluate every number at every point, give `{name}` the shape "
                f"{arr.shape + (1,) * len(self.shape)} (`{name}[:, None]` for one batch axis), which gives "
                f"{arr.shape + self.shape}."
            ) from None
        return arr

    # ------------------------------------------------------------------ evaluation
    def contour(self, x: ArrayLike) -> np.ndarray:
        """Contour function ``pl(x) = Pl({x})`` (Denoeux 2023a, Eq. (41)).

        Parameters
        ----------
        x : array_like of float
            Points; broadcast against :attr:`shape`.

        Returns
        -------
        ndarray
            ``(1 + h sigma^2)^(-1/2) exp(-h (x - mu)^2 / (2 (1 + h sigma^2)))``.
        """
        points = self._points(x, "x")
        if np.isnan(points).any():
            raise ValueError("`x` contains NaN; pass real points (infinite ones are allowed).")
        return self._contour(points)

    def _h_variance(self) -> np.ndarray:
        """``h sigma^2``, 0 when ``h = 0`` and ``inf`` when it overflows (never ``0 * inf``)."""
        with np.errstate(over="ignore", invalid="ignore"):
            return np.where(self.precision > 0, self.precision * self.std**2, 0.0)

    def _contour(self, points: np.ndarray) -> np.ndarray:
        z2 = 1.0 + self._h_variance()
        with np.errstate(invalid="ignore", over="ignore"):
            # (sqrt(h) (x - mu))^2: a subnormal h times a huge squared distance stays finite
            quadratic = np.where(
                self.precision > 0, (np.sqrt(self.precision) * (points - self.mean)) ** 2, 0.0
            )
            # an overflowing h sigma^2: the factor (1 + h sigma^2)^(-1/2) is 0, the exponential at most 1
            return np.where(np.isinf(z2), 0.0, np.exp(-0.5 * quadratic / z2) / np.sqrt(z2))

    def _bounds(self, lower: ArrayLike, upper: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        a = self._points(lower, "lower")
        b = self._points(upper, "upper")
        if np.isnan(a).any() or np.isnan(b).any():
            raise ValueError("`lower` and `upper` must not be NaN (infinite bounds are allowed).")
        a, b, _ = np.broadcast_arrays(a, b, self.mean)
        if (a > b).any():
            index = int(np.flatnonzero((a > b).ravel())[0])
            raise ValueError(
                f"`lower` must not exceed `upper`; got lower={a.ravel()[index]!r} > "
                f"upper={b.ravel()[index]!r} (flat index {index})."
            )
        return a, b

    def _tilted_cdf(self, point: np.ndarray, bound: np.ndarray, *, strict: bool = False) -> np.ndarray:
        """``P(M'_bound <= point)`` (``<`` when ``strict``) for the mode's law tilted by ``phi_M(bound)``.

        ``M'_bound ~ N((mu + h sigma^2 bound) / (1 + h sigma^2), sigma^2 / (1 + h sigma^2))``.
        """
        with np.errstate(over="ignore"):
            v = self.std**2
        h_variance = self._h_variance()
        z2 = 1.0 + h_variance
        with np.errstate(invalid="ignore", over="ignore"):
            numerator = np.where(np.isinf(point), point, z2 * point - self.mean - h_variance * bound)
            return _normal_cdf(numerator, np.sqrt(v * z2), strict=strict)

    def _weighted_by_contour(self, bound: np.ndarray, probability: np.ndarray) -> np.ndarray:
        """``pl(bound) * probability`` at finite bounds, 0 at infinite ones (the tilted terms of Bel and Pl)."""
        contour = self._contour(bound)
        with np.errstate(invalid="ignore"):
            # where pl(bound) = 0 the term is 0 whatever the tilted law (an overflowing h sigma^2)
            return np.where(np.isfinite(bound) & (contour > 0), contour * probability, 0.0)

    def _inside(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``P(a <= M <= b)``."""
        return _normal_cdf(b - self.mean, self.std) - _normal_cdf(a - self.mean, self.std, strict=True)

    def pl(self, lower: ArrayLike, upper: ArrayLike) -> np.ndarray:
        """Plausibility ``Pl([lower, upper])`` (Denoeux 2023a, Eq. (43)).

        Parameters
        ----------
        lower, upper : array_like of float
            Interval ends, ``lower <= upper`` (infinite ends allowed); broadcast against :attr:`shape`.

        Returns
        -------
        ndarray

        Notes
        -----
        Splitting on where the mode ``M`` falls: inside ``[a, b]`` the supremum is 1; below ``a`` it is
        ``phi_M(a)``, and ``E[phi_M(a) 1{M < a}] = pl(a) P(M'_a < a)`` where ``M'_a`` is the mode's normal
        law tilted by ``phi_M(a)``, ``N((mu + h sigma^2 a) / (1 + h sigma^2), sigma^2 / (1 + h sigma^2))``,
        so that

            Pl([a, b]) = Phi((b - mu)/sigma) - Phi((a - mu)/sigma)
                         + pl(a) Phi((a - mu)/sigma_1) + pl(b) (1 - Phi((b - mu)/sigma_1)),

        ``sigma_1 = sigma sqrt(1 + h sigma^2)``.
        """
        a, b = self._bounds(lower, upper)
        with np.errstate(invalid="ignore"):
            below = self._weighted_by_contour(a, self._tilted_cdf(a, a, strict=True))
            above = self._weighted_by_contour(b, 1.0 - self._tilted_cdf(b, b))
        return np.clip(self._inside(a, b) + below + above, 0.0, 1.0)

    def bel(self, lower: ArrayLike, upper: ArrayLike) -> np.ndarray:
        """Belief ``Bel([lower, upper])`` (Denoeux 2023a, Eq. (44), in the corrected form of evreg 1.1).

        Parameters
        ----------
        lower, upper : array_like of float
            As in :meth:`pl`.

        Returns
        -------
        ndarray

        Notes
        -----
        When the mode ``M`` falls outside ``[a, b]`` the supremum outside is 1 and the term is 0; inside,
        it is ``phi_M(a)`` for ``M <= c = (a + b) / 2`` and ``phi_M(b)`` above.  With the tilted modes
        ``M'_a``, ``M'_b`` of :meth:`pl`,

            Bel([a, b]) = P(a <= M <= b) - pl(a) P(a <= M'_a <= c) - pl(b) P(c < M'_b <= b).

        The midpoint enters each tilted law at its own mean, ``(mu + h sigma^2 a) / (1 + h sigma^2)``
        for ``M'_a``; evreg before version 1.1.0 standardised it by ``N(mu, sigma_1^2)`` instead, which
        overstates ``Bel([1, 2])`` of ``GRFN(2, 1, 2)`` as 0.2325 (the definition gives 0.0270).
        """
        a, b = self._bounds(lower, upper)
        finite_a, finite_b = np.isfinite(a), np.isfinite(b)
        with np.errstate(invalid="ignore"):
            middle = np.where(finite_a & finite_b, 0.5 * (a + b), np.where(finite_a, np.inf, -np.inf))
            middle = np.where(~finite_a & ~finite_b, 0.0, middle)
            low = self._tilted_cdf(middle, a) - self._tilted_cdf(a, a, strict=True)
            high = self._tilted_cdf(b, b) - self._tilted_cdf(middle, b)
            low_term = self._weighted_by_contour(a, np.maximum(low, 0.0))
            high_term = self._weighted_by_contour(b, np.maximum(high, 0.0))
        return np.clip(self._inside(a, b) - low_term - high_term, 0.0, 1.0)

    def cumulative(self, x: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper cumulative distribution functions ``Bel((-inf, x])`` and ``Pl((-inf, x])``.

        Parameters
        ----------
        x : array_like of float
            Points; broadcast against :attr:`shape`.

        Returns
        -------
        belief, plausibility : ndarray
        """
        points = self._points(x, "x")
        if np.isnan(points).any():
            raise ValueError("`x` contains NaN; pass real points (infinite ones are allowed).")
        return self.bel(-np.inf, points), self.pl(-np.inf, points)

    # ------------------------------------------------------------------ summaries
    def lower_expectation(self) -> np.ndarray:
        """Lower expectation ``mu - sqrt(pi / (2 h))`` (Denoeux 2023b, Eq. (14)); ``-inf`` when ``h = 0``.

        Returns
        -------
        ndarray

        Notes
        -----
        The lower expectation of the consonant belief function with contour ``phi_m`` is the mean over
        ``alpha`` in (0, 1) of the lower end of its alpha-cut, ``m - int_0^1 sqrt(-2 ln(alpha) / h)
        d alpha = m - sqrt(2 / h) Gamma(3/2)``; averaging over ``M`` replaces ``m`` by ``mu``.
        """
        with np.errstate(divide="ignore"):
            return self.mean - np.sqrt(np.pi / (2.0 * self.precision))

    def upper_expectation(self) -> np.ndarray:
        """Upper expectation ``mu + sqrt(pi / (2 h))`` (Denoeux 2023b, Eq. (14)); ``+inf`` when ``h = 0``.

        Returns
        -------
        ndarray
        """
        with np.errstate(divide="ignore"):
            return self.mean + np.sqrt(np.pi / (2.0 * self.precision))

    def interval(self, level: float, *, kind: str = "belief") -> tuple[np.ndarray, np.ndarray]:
        """Central interval ``[mean - r, mean + r]`` at a level.

        Parameters
        ----------
        level : float in (0, 1)
            The level.
        kind : {"belief", "plausibility", "probabilistic"}, default="belief"
            ``"belief"``: the smallest ``r`` with ``Bel([mean - r, mean + r]) >= level`` (evreg's
            ``Belint``; Denoeux 2023b, Sec. III-C); ``"plausibility"``: the smallest ``r`` with
            ``Pl >= level``; ``"probabilistic"``: the central ``level`` interval of ``N(mean, std^2)``,
            which ignores the fuzziness ``precision``.

        Returns
        -------
        lower, upper : ndarray
            Of :attr:`shape`.  A belief interval of a number with ``precision = 0`` is infinite.

        Notes
        -----
        ``Bel`` and ``Pl`` of ``[mean - r, mean + r]`` grow with ``r``; ``r`` is found by bisection
        to double precision.
        """
        q = check_level(level, "level")
        kind = check_option(kind, "kind", INTERVAL_KINDS)
        if kind == "probabilistic":
            half = self.std * ndtri(0.5 + q / 2.0)
            return self.mean - half, self.mean + half
        half = self._half_width(kind, q)
        return self.mean - half, self.mean + half

    def _half_width(self, kind: str, level: float) -> np.ndarray:
        measure = self.bel if kind == "belief" else self.pl
        mean = self.mean
        # Bel of a vacuous number is 0 below the whole line; Pl of any number is >= level from some r on
        unreachable = (self.precision == 0) & (kind == "belief")
        positive = self.precision > 0
        high = self.std * ndtri(0.5 + level / 2.0) + np.where(
            positive, np.sqrt(-2.0 * np.log1p(-level)) / np.sqrt(np.where(positive, self.precision, 1.0)), 0.0
        )  # the square roots apart: a subnormal precision would overflow the quotient
        high = np.maximum(high, 1e-12)
        for _ in range(1100):  # doubling from 1e-12 passes every finite double
            short = (measure(mean - high, mean + high) < level) & ~unreachable
            if not short.any():
                break
            high = np.where(short, 2.0 * high, high)
        low = np.zeros(self.shape)
        for _ in range(_BISECTION_STEPS):
            middle = 0.5 * (low + high)
            enough = measure(mean - middle, mean + middle) >= level
            high = np.where(enough, middle, high)
            low = np.where(enough, low, middle)
        return np.where(unreachable, np.inf, high)


def combine_grfn(
    numbers: Iterable[GaussianRandomFuzzyNumber], *, normalization: str = "soft"
) -> tuple[GaussianRandomFuzzyNumber, np.ndarray]:
    """Combine independent Gaussian random fuzzy numbers by the product-intersection rule.

    Parameters
    ----------
    numbers : iterable of GaussianRandomFuzzyNumber
        At least one number; their batch shapes broadcast.
    normalization : {"soft", "hard"}, default="soft"
        ``"soft"``: the generalized product-intersection rule with soft normalization, which
        reweights each pair of modes by the height of the product of their fuzzy numbers
        (Denoeux 2023a, Prop. 9); ``"hard"``: conditioning on a non-empty intersection, which for
        Gaussian fuzzy numbers is every pair, so the modes stay independent (Denoeux 2023a, Eq. (49)).

    Returns
    -------
    combined : GaussianRandomFuzzyNumber
        Precision ``sum_i h_i``, its mode the precision-weighted mean ``sum_i h_i M_i / sum_i h_i`` of
        the (reweighted) modes.
    conflict : ndarray
        The degree of conflict ``kappa = 1 - E[hgt(prod_i phi_{M_i})]``, the expected height of the
        product of the focal fuzzy numbers with independent modes, which is 0 for ``"hard"``.  For two
        numbers, ``kappa = 1 - D^(-1/2) exp(-hbar (mu_1 - mu_2)^2 / (2 D))`` with
        ``hbar = h_1 h_2 / (h_1 + h_2)`` and ``D = 1 + hbar (sigma_1^2 + sigma_2^2)``.

    Raises
    ------
    TypeError
        An element of ``numbers`` is not a :class:`GaussianRandomFuzzyNumber`.
    ValueError
        ``numbers`` is empty, the shapes do not broadcast, ``normalization`` is unknown or the
        combination overflows float64 (``std**2`` beyond 1e308: rescale the variable).

    Notes
    -----
    For two numbers the height of ``phi_{M_1} phi_{M_2}`` is ``exp(-hbar (M_1 - M_2)^2 / 2)``: the
    reweighted modes are bivariate normal with the means ``(mu_1 (1 + hbar s_2) + mu_2 hbar s_1) / D``
    (``s_i = sigma_i^2``), variances ``s_1 (1 + hbar s_2) / D`` and covariance ``hbar s_1 s_2 / D``.  As
    ``M_1 - M_2 ~ N(mu_1 - mu_2, s_1 + s_2)``, the expected height gives the conflict above.  The rule is
    associative (the heights multiply to ``exp(-sum_i h_i (M_i - M)^2 / 2)``), so more numbers are
    combined one after the other and ``1 - kappa`` is the product of the pairwise ``1 - kappa``.
    evreg's ``combination_GRFN`` agrees when both ``sigma_i > 0``; its branch for one ``sigma_i = 0``
    does not (it uses the reweighted variance where the prior one belongs).  Two vacuous numbers
    (``h_1 = h_2 = 0``) combine to a vacuous number with the mode of the first.

    Examples
    --------
    >>> from dstk.reasoning import GaussianRandomFuzzyNumber, combine_grfn
    >>> combined, conflict = combine_grfn(
    ...     [GaussianRandomFuzzyNumber(1.0, 1.0, 2.0), GaussianRandomFuzzyNumber(2.0, 2.0, 3.0)]
    ... )
    >>> combined
    GaussianRandomFuzzyNumber(mean=1.25714, std=0.956183, precision=5)
    >>> round(float(conflict), 6)
    0.653083
    """
    normalization = check_option(normalization, "normalization", NORMALIZATIONS)
    items = list(numbers) if not isinstance(numbers, GaussianRandomFuzzyNumber) else [numbers]
    if not items:
        raise ValueError("`numbers` must hold at least one GaussianRandomFuzzyNumber.")
    for i, item in enumerate(items):
        if not isinstance(item, GaussianRandomFuzzyNumber):
            raise TypeError(
                f"`numbers` must hold GaussianRandomFuzzyNumber objects; element {i} is {type(item).__name__}."
            )
    try:
        shape = np.broadcast_shapes(*(item.shape for item in items))
    except ValueError:
        raise ValueError(
            f"The batch shapes of `numbers` must broadcast; got {[item.shape for item in items]}."
        ) from None
    mean = np.broadcast_to(items[0].mean, shape).astype(np.float64)
    precision = np.broadcast_to(items[0].precision, shape).astype(np.float64)
    agreement = np.ones(shape)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below, once
        variance = np.broadcast_to(items[0].std, shape) ** 2
        for item in items[1:]:
            mean, variance, precision, factor = _combine_pair(
                mean,
                variance,
                precision,
                item.mean,
                item.std**2,
                item.precision,
                soft=normalization == "soft",
            )
            agreement = agreement * factor
        std = np.sqrt(variance)
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(std)) and np.all(np.isfinite(precision))):
        raise ValueError(
            "The combination overflows float64: some std**2 or precision * std**2 of `numbers` is beyond "
            "about 1e308. When std**2 alone overflows, rescale the variable: divide the means and stds by "
            "a common factor c and multiply the precisions by c**2 (precision * std**2 is unit-free)."
        )
    return GaussianRandomFuzzyNumber(mean, std, precision), 1.0 - agreement


def _combine_pair(mu1, s1, h1, mu2, s2, h2, *, soft):
    """Mean, variance and precision of the combination of two GRFNs, and ``1 - conflict``."""
    total = h1 + h2
    both_vacuous = total == 0
    safe_total = np.where(both_vacuous, 1.0, total)
    u1 = np.where(both_vacuous, 1.0, h1 / safe_total)
    u2 = 1.0 - u1
    if soft:
        product = h1 * h2
        # h1 h2 overflows from about 1e154 each although h1 h2 / (h1 + h2) is finite: divide first there
        hbar = np.where(both_vacuous, 0.0, np.where(np.isfinite(product), product / safe_total, h1 * u2))
        d = 1.0 + hbar * (s1 + s2)
        m1 = (mu1 * (1.0 + hbar * s2) + mu2 * hbar * s1) / d
        m2 = (mu2 * (1.0 + hbar * s1) + mu1 * hbar * s2) / d
        v1 = s1 * (1.0 + hbar * s2) / d
        v2 = s2 * (1.0 + hbar * s1) / d
        covariance = hbar * s1 * s2 / d
        agreement = np.exp(-0.5 * hbar * (mu1 - mu2) ** 2 / d) / np.sqrt(d)
    else:
        m1, m2, v1, v2, covariance = mu1, mu2, s1, s2, 0.0
        agreement = np.ones(np.shape(total))
    mean = u1 * m1 + u2 * m2
    variance = np.maximum(u1**2 * v1 + u2**2 * v2 + 2.0 * u1 * u2 * covariance, 0.0)
    return mean, variance, total, agreement
