"""Logistic regression of labels on scores: the one Newton solver and the profile likelihood.

Everything logistic in dstk goes through this module:

* :func:`fit_logistic` -- the safeguarded Newton solver of (penalised,
  weighted) logistic regression with soft targets (Lin, Lin & Weng 2007);
* :func:`standardize_scores` -- an overflow-free, affine-equivariant
  standardisation z = (s - c) / h;
* :class:`ScoreLogistic` -- Platt's two-parameter model on standardised scores
  with its maximum, information matrix, compressed data and the predictive
  masses and contour of Xu et al.'s profile likelihood (Eqs. 22-23, 40),
  evaluated by the numba kernels of :mod:`dstk._kernels.calibration`.

Sign convention of Xu et al. (2016, Eq. 2): tau(s) = 1 / (1 + exp(theta_0 + theta_1 s)).
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
from scipy import special

from .._kernels._jit import call_kernel
from .._kernels.calibration import (
    GAUSS_LEGENDRE_NODES,
    gauss_compress,
    logistic_grid_masses,
    logistic_profile_grid,
    logistic_profile_log_contour,
    logistic_profile_masses,
)
from ..exceptions import ConvergenceWarning

__all__ = ["fit_logistic", "standardize_scores", "ScoreLogistic", "cross_entropy", "sigmoid"]

#: slope bound of the compression: |alpha_1 - alpha_1_hat| <= this many standard errors (the profile
#: table reaches |u| = 11 whitened units, Q ~ -60; against 25: 10-25 % fewer nodes, the masses at 41
#: scores of 18 sets of 10^3 to 2 x 10^4 scores within 1.1e-12 of the uncompressed ones either way)
_COMPRESSION_STANDARD_ERRORS = 15.0
#: Gauss rules of the compression, (most points, nodes per bin q, reach): bins of half-width rho with
#: |alpha_1| rho <= reach for every slope within the bound.  Up to 5,000 points the profile table's
#: passes over the nodes dominate a fit and 12-node rules on wider bins need 30-45 % fewer nodes; above,
#: the rules' passes over the points dominate and 8 nodes cost less (the masses at 21 scores of 24 sets
#: of 300 to 5 x 10^4 scores within 5.9e-13 of the uncompressed ones with either rule)
_COMPRESSION_RULES = ((5_000, 12, 2.5), (math.inf, 8, 1.0))
#: standardised test scores are clipped to this many standard deviations (masses equal their limits)
_Z_LIMIT = 1e8
#: half-widths of the whitened profile grid tried in turn (Q ~ -xi^2 / 2 ~ -40 or -60 at the edges):
#: the wider one when the profile falls slower than Q = -25 at the edges of the narrower one
_GRID_HALF_WIDTHS = (9.0, 11.0)
#: the grid's edges must have Q below this: Q is concave in xi, so beyond them pl < exp(-25) and the
#: masses' integrals left out are below exp(-25) = 1.4e-11
_GRID_EDGE_LOG_PL = -25.0
#: largest coefficient of the last quarter in each dimension of an accepted grid (against 1e-7: the
#: masses from the grid within 1.2e-11 instead of 1.4e-13 of the exact ones at 61 scores of 24 sets of
#: 1,000 to 20,000 scores, far below the interpolant's 1e-8; 13-30 % fewer line maximisations)
_GRID_TOLERANCE = 1e-6
#: first grid: directions (equispaced angles in [0, pi), a trigonometric series over the circle) and xi
#: points (Chebyshev-Lobatto); a dimension whose series has not converged grows, up to these sizes
_GRID_START = (8, 17)
_GRID_MAX = 129
_GRID_MAX_DIRECTIONS = 128
#: the same for the frequencies in the direction's angle of a table of the first 17 xi points: the
#: frequencies the tail holds are those of the table's edges (|xi| near 9, pl < exp(-25)), where the
#: profile departs most from the normal approximation; against 1e-6: the masses at 49 scores of 80
#: sets of 60 to 2 x 10^4 scores within 1.4e-13, at 41 scores of 717 sets of 30 to 10^5 within
#: 8.3e-14; 11-17 % fewer line maximisations from 10^3 scores up (32 -> 16 directions at the 10^3
#: benchmark set, 16 -> 8 at 10^5).  Tables whose xi points grew (profiles far from normal, small
#: sets) keep 1e-6.
_GRID_DIRECTION_TOLERANCE = 1e-5


def _decay_degree(envelope):
    """Degree where the geometric decay of ``envelope`` reaches a tenth of the tolerance, or None.

    ``envelope[m]``: the largest |coefficient| of degree (or frequency) m of a series that has
    not converged.  The logarithm of its upper half (where it exceeds 1e-13, above rounding) is
    fitted by a straight line (geometric decay, as for a function analytic in a Bernstein ellipse
    or a strip; Trefethen 2013, Thm 8.1); None when the decay cannot be fitted.
    """
    size = envelope.size
    degrees = np.arange(size // 2, size)
    upper = envelope[degrees]
    kept = upper > 1e-13
    if kept.sum() < 3:
        return None
    x, y = degrees[kept].astype(np.float64), np.log(upper[kept])
    x_centred = x - x.mean()
    slope = float(x_centred @ (y - y.mean()) / (x_centred @ x_centred))  # least squares (np.polyfit's line)
    intercept = float(y.mean()) - slope * float(x.mean())
    if not slope < 0.0:
        return None
    return (math.log(0.1 * _GRID_TOLERANCE) - intercept) / slope


def _predicted_points(envelope):
    """Chebyshev-Lobatto points whose last quarter of coefficients should fall below the tolerance.

    ``envelope``: the largest |coefficient| of each degree of a grid of N = ``envelope.size``
    points that has not converged.  The degree m* of :func:`_decay_degree` must be in the first
    three quarters: N' = 4 m* / 3 + 1 points, odd, between N + 2 and 2 N - 1 (the doubling, taken
    when the decay cannot be fitted) or at most 129.
    """
    size = envelope.size
    degree = _decay_degree(envelope)
    if degree is None:
        return min(2 * size - 1, _GRID_MAX)
    points = math.ceil(4.0 * degree / 3.0) + 1
    points += 1 - points % 2  # odd: xi = 0 is a point
    return int(min(max(points, size + 2), _GRID_MAX))


def _predicted_directions(envelope):
    """Directions P' (2 P' equispaced angles over the circle) whose last quarter of frequencies converges.

    ``envelope[m]``, m = 0 .. P: the largest |coefficient| of frequency m of a table of P
    directions that has not converged; P' = 4 m* / 3 with m* of :func:`_decay_degree`, between
    P + 1 and 2 P (the doubling, taken when the decay cannot be fitted) or at most 128.
    """
    directions = envelope.size - 1
    degree = _decay_degree(envelope)
    if degree is None:
        return min(2 * directions, _GRID_MAX_DIRECTIONS)
    points = math.ceil(4.0 * degree / 3.0)
    return int(min(max(points, directions + 1), _GRID_MAX_DIRECTIONS))


@functools.lru_cache(maxsize=16)
def _chebyshev_matrix(n_xi):
    """The (K, K) matrix M with ``values @ M`` the Chebyshev coefficients of each row (K ascending points).

    The rows of ``values`` hold a function at y_k = -cos(pi k / (K - 1)): the DCT-I of each row divided
    by K - 1 (halved at degrees 0 and K - 1) with the odd degrees negated (T_k(-y) = (-1)^k T_k(y)).
    """
    last = n_xi - 1
    points = np.arange(n_xi)
    matrix = np.cos(np.pi * np.outer(points, points) / last) / last
    matrix[1:-1] *= 2.0  # the interior points count twice in the DCT-I
    matrix[:, [0, -1]] *= 0.5
    matrix[:, 1::2] *= -1.0
    matrix.flags.writeable = False
    return matrix


@functools.lru_cache(maxsize=16)
def _circle_matrices(directions):
    """(2 P, P) matrices of the trigonometric coefficients of the directions' rows, by the parity of degree.

    Row r of ``even @ a`` (``odd @ a``) is the coefficient of f_r(phi) (f_0 = 1, f_{2m-1} = cos(m phi),
    f_{2m} = sin(m phi), f_{2P-1} = cos(P phi)) of the 2 P samples a_0 .. a_{P-1}, (-1)^k a_0 .. (-1)^k
    a_{P-1} over the circle, for a Chebyshev degree k that is even (odd): only the frequencies m of the
    parity of k remain (the discrete Fourier transform of the 2 P samples is (1 + (-1)^(m + k)) times
    that of the first P).
    """
    angles = (np.pi / directions) * np.outer(np.arange(directions + 1), np.arange(directions))
    cosine = np.cos(angles) * (2.0 / directions)
    sine = np.sin(angles) * (2.0 / directions)
    full = np.empty((2 * directions, directions))
    full[0] = 0.5 * cosine[0]
    full[1:-1:2] = cosine[1:directions]
    full[2:-1:2] = sine[1:directions]
    full[-1] = 0.5 * cosine[directions]
    frequency = np.empty(2 * directions, dtype=np.int64)
    frequency[0] = 0
    frequency[1:-1:2] = frequency[2:-1:2] = np.arange(1, directions)
    frequency[-1] = directions
    even = np.where((frequency % 2 == 0)[:, None], full, 0.0)
    odd = np.where((frequency % 2 == 1)[:, None], full, 0.0)
    even.flags.writeable = False
    odd.flags.writeable = False
    return even, odd


def _series_coefficients(values):
    """The series of the profile table ``values`` (P directions x K xi points): (per direction, tensor).

    Per direction: the Chebyshev coefficients (P, K) in y = xi / half_width of each row (the K
    points ascend, xi_k = -xi_{K-1-k}).  Tensor: (2 P, K); row 0 and rows 2 m - 1, 2 m
    (m = 1 .. P - 1) hold the cosine and sine coefficients of frequency m in phi, row 2 P - 1 the
    cosine of frequency P, each of a Chebyshev series in y.  The rows at phi_j = pi j / P are
    extended to the circle by Q(phi + pi, xi) = Q(phi, -xi) (the same line, e -> -e), i.e. the
    Chebyshev coefficients of odd degree change sign; the frequencies of the parity of the degree
    are then the only ones (discrete transforms as small matrix products: :func:`_chebyshev_matrix`,
    :func:`_circle_matrices`).
    """
    directions, n_xi = values.shape
    per_direction = values @ _chebyshev_matrix(n_xi)
    even, odd = _circle_matrices(directions)
    coefficients = np.empty((2 * directions, n_xi))
    coefficients[:, 0::2] = even @ per_direction[:, 0::2]
    coefficients[:, 1::2] = odd @ per_direction[:, 1::2]
    return per_direction, coefficients


def cross_entropy(z, targets, sample_weight=None):
    """``sum_i w_i [-t_i log sigma(z_i) - (1 - t_i) log(1 - sigma(z_i))]`` computed stably.

    Written as ``sum_i w_i [(1 - t_i) z_i - log sigma(z_i)]`` (since
    ``-log(1 - sigma(z)) = z - log sigma(z)``): one logarithm per term.
    """
    values = special.log_expit(z)
    np.subtract((1.0 - targets) * z, values, out=values)
    return float(np.sum(values) if sample_weight is None else values @ sample_weight)


def sigmoid(z):
    """Logistic function 1 / (1 + exp(-z)), stable for large ``|z|``."""
    return special.expit(np.asarray(z, dtype=np.float64))


def fit_logistic(
    design,
    targets,
    *,
    sample_weight=None,
    penalty=None,
    max_iter=100,
    name="logistic regression",
    warn=True,
    start=None,
):
    """Minimise ``cross_entropy(design @ w, targets) + 0.5 w' penalty w`` by Newton's method.

    Parameters
    ----------
    design : ndarray of shape (n, d)
        Design matrix (callers standardise their columns for conditioning).
    targets : ndarray of shape (n,)
        Values in [0, 1]: 0/1 labels or soft targets such as Platt's (Eq. 4 of
        Xu et al. 2016).
    sample_weight : ndarray of shape (n,), optional
        Non-negative weights of the terms of the cross-entropy.
    penalty : ndarray of shape (d, d), optional
        Positive semi-definite quadratic penalty.
    max_iter : int, default 100
        Maximal number of Newton iterations.
    name : str
        Named in the convergence warning.
    warn : bool, default True
        Warn (:class:`~dstk.exceptions.ConvergenceWarning`) when not converged.
    start : ndarray of shape (d,), optional
        Starting point (zeros by default).

    Returns
    -------
    w : ndarray of shape (d,)
        The minimiser; P(class 1) = sigmoid(design @ w).
    objective : float
        The minimised objective.
    converged : bool

    Notes
    -----
    Each step solves ``H step = gradient`` with H the Hessian plus a 1e-12
    relative ridge and is accepted by Armijo backtracking (Lin, Lin & Weng
    2007, the safeguards proposed for Platt's problem); iterations stop when
    the Newton decrement ``gradient' H^-1 gradient`` is below
    ``1e-20 (1 + |objective|)`` (the remaining predicted decrease is below the
    rounding of the objective) or no decrease is representable any more.

    References
    ----------
    Lin, H.-T., Lin, C.-J. and Weng, R. C. (2007). A note on Platt's
    probabilistic outputs for support vector machines. Machine Learning 68,
    267-276.
    """
    X = np.asarray(design, dtype=np.float64)
    t = np.asarray(targets, dtype=np.float64)
    weight = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    d = X.shape[1]
    R = np.zeros((d, d)) if penalty is None else np.asarray(penalty, dtype=np.float64)
    w = np.zeros(d) if start is None else np.array(start, dtype=np.float64)

    def objective(v):
        z = X @ v
        return cross_entropy(z, t, weight) + 0.5 * v @ R @ v, z

    f, z = objective(w)
    converged = False
    for _ in range(max_iter):
        p = special.expit(z)
        residual = p - t
        curvature = p * (1.0 - p)
        if weight is not None:
            residual = residual * weight
            curvature = curvature * weight
        grad = X.T @ residual + R @ w
        H = (X * curvature[:, None]).T @ X + R
        H += (1e-12 * (np.trace(H) / d) + 1e-300) * np.eye(d)
        try:
            step = np.linalg.solve(H, grad)
        except np.linalg.LinAlgError:  # pragma: no cover - the ridge keeps H invertible
            step = np.linalg.lstsq(H, grad, rcond=None)[0]
        decrement = float(grad @ step)
        if not np.isfinite(decrement) or decrement <= 0.0:
            step, decrement = grad, float(grad @ grad)
        if decrement <= 1e-20 * (1.0 + abs(f)):
            converged = True
            break
        size = 1.0
        improved = False
        while size > 1e-12:
            candidate = w - size * step
            f_new, z_new = objective(candidate)
            if f_new <= f - 1e-4 * size * decrement:
                improved = True
                break
            size *= 0.5
        if not improved or not f_new < f:
            # no decrease is representable any more: at the optimum up to rounding
            if improved:
                w = candidate
            converged = decrement <= 1e-8 * (1.0 + abs(f))
            break
        w, f, z = candidate, f_new, z_new
    if not converged and warn:
        warnings.warn(
            f"{name}: Newton's method stopped after {max_iter} iterations without reaching the tolerance; "
            "the scores may be perfectly separable.",
            ConvergenceWarning,
            stacklevel=3,
        )
    return w, f, converged


def standardize_scores(scores):
    """Centre and scale ``(c, h)`` of ``scores`` (mean and standard deviation), free of overflow.

    The scores are first divided by a power of two (exact) so that neither the
    sum nor the squares overflow, even for |s| near the float64 maximum.  Both
    are affine-equivariant: the scores ``a s + b`` give ``(a c + b, |a| h)`` up
    to rounding.  ``h = 1`` when every score is equal.
    """
    largest = float(np.max(np.abs(scores)))
    exponent = math.frexp(largest)[1] if largest > 0.0 else 0
    scaled = np.ldexp(scores, -exponent)
    centre = float(np.mean(scaled))
    spread = float(np.std(scaled))
    if spread == 0.0:
        return math.ldexp(centre, exponent), 1.0
    return math.ldexp(centre, exponent), math.ldexp(spread, exponent)


class ScoreLogistic:
    """Platt's sigmoid tau(s) = 1 / (1 + exp(theta_0 + theta_1 s)) fitted on standardised scores.

    Parameters
    ----------
    scores : ndarray of float64 of shape (n,)
        Finite calibration scores, not all equal (validated by the callers).
    targets : ndarray of float64 of shape (n,)
        Values in [0, 1]: raw labels (Eq. 3) or Platt's targets (Eq. 4).
    name : str
        Named in warnings and errors.

    Attributes
    ----------
    centre, scale : float
        The standardisation z = (s - centre) / scale (:func:`standardize_scores`).
    alpha : ndarray (alpha_0, alpha_1)
        Maximum-likelihood parameters on z: tau = 1 / (1 + exp(alpha_0 + alpha_1 z)).
    alpha_covariance : ndarray of shape (2, 2)
        Inverse Fisher information sum_i tau_i (1 - tau_i) (1, z_i)(1, z_i)' at ``alpha``.
    theta, covariance : ndarray
        The same in the units of the scores: theta = A alpha, covariance = A C A'
        with A = [[1, -centre / scale], [0, 1 / scale]].
    max_log_likelihood : float
        The maximised log-likelihood (Eq. 3), the same in both parametrisations.
    nodes, node_targets, node_weights : ndarray
        The (compressed) calibration data of the profile likelihood, on z.

    Raises
    ------
    ValueError
        A fit whose parameters, log-likelihood or covariance are not finite.

    Notes
    -----
    Standardising makes the fit, its information matrix and every mass
    computed from them invariant under affine changes s -> a s + b of the
    scores (a > 0), up to the rounding of z itself.

    The profile likelihood pl(tau; s) (Eq. 40) maximises the log-likelihood
    along lines of the parameter plane; its cost is one pass over the
    calibration data per Newton step.  For large n the data are compressed
    without changing the log-likelihood beyond rounding: within each class,
    the standardised scores are cut into bins of half-width rho and each
    bin's empirical measure is replaced by its q-point Gauss rule
    (Golub & Welsch 1969; computed by the discrete Stieltjes procedure), which
    integrates exactly every polynomial of degree 2q - 1.  For
    |alpha_1| rho <= r the summand softplus(alpha_0 + alpha_1 z) is analytic
    in a strip pi / |alpha_1| >= (pi / r) rho wide on each side of the bin (its
    poles are at imaginary parts +-pi / |alpha_1|), i.e. in the Bernstein
    ellipse of parameter R = a + sqrt(a^2 + 1), a = pi / r, around it, so the
    rule's error is of order R^-2q per unit weight (Trefethen 2013, Thm
    19.3): q = 8 and r = 1 (R = 6.44, 6.44^-16 ~ 1e-13) above 5,000 points,
    q = 12 and r = 2.5 (R = 2.86, 2.86^-24 ~ 1e-11, with 30-45 % fewer nodes)
    up to 5,000; measured with either: masses within 6e-13 of the
    uncompressed computation on 24 sets of 300 to 50,000 scores.  rho is chosen from
    the bound |alpha_1| <= |alpha_1_hat| + 15 standard errors, outside the
    region the masses and the whitened profile table use (whitened
    parameters |u| <= 11, where Q > -60).  Bins of at most 2q points are kept as they are.

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. IJAR 72, 55-70.
    Golub, G. H. and Welsch, J. H. (1969). Calculation of Gauss quadrature
    rules. Mathematics of Computation 23, 221-230.
    Trefethen, L. N. (2013). Approximation Theory and Approximation Practice. SIAM.
    """

    def __init__(self, scores, targets, *, sample_weight=None, name="logistic calibration"):
        centre, scale = standardize_scores(scores)
        self.centre, self.scale = centre, scale
        z = self.standardize(scores)
        targets = np.asarray(targets, dtype=np.float64)
        weight = np.ones_like(z) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        positive = float(targets @ weight)
        negative = float(weight.sum()) - positive
        # Platt's starting point: alpha_1 = 0, alpha_0 = log((n_- + 1) / (n_+ + 1)); P = sigmoid(-eta)
        start = np.array([0.0, -math.log((negative + 1.0) / (positive + 1.0))])
        design = np.column_stack([z, np.ones_like(z)])
        w, objective, _ = fit_logistic(
            design, targets, sample_weight=sample_weight, start=start, max_iter=200, name=name
        )
        alpha = np.array([-w[1], -w[0]])
        tau = special.expit(-(alpha[0] + alpha[1] * z))
        curvature = tau * (1.0 - tau) * weight
        information = np.array(
            [[curvature.sum(), curvature @ z], [curvature @ z, curvature @ (z * z)]], dtype=np.float64
        )
        # a sigmoid so steep that every tau_i (1 - tau_i) underflows (tiny separable calibration sets
        # with Platt's targets) leaves a near-singular information: a relative ridge keeps the
        # covariance finite (huge), which only widens the normal-approximation interval
        ridge = 1e-12 * (np.trace(information) + 1e-300)
        covariance = np.linalg.inv(information + ridge * np.eye(2))
        transform = np.array([[1.0, -centre / scale], [0.0, 1.0 / scale]])
        with np.errstate(over="ignore", invalid="ignore"):  # checked just below
            theta = transform @ alpha
            theta_covariance = transform @ covariance @ transform.T
        if not (
            np.all(np.isfinite(alpha))
            and math.isfinite(objective)
            and np.all(np.isfinite(covariance))
            and np.all(np.isfinite(theta))
            and np.all(np.isfinite(theta_covariance))
        ):
            raise ValueError(
                f"{name}: the maximum-likelihood sigmoid is not finite in the units of the scores "
                f"(theta = {theta.tolist()}, scores centred at {centre:.6g} with spread {scale:.6g}). "
                "Rescale the scores to a moderate range (e.g. standardise them) before calibrating."
            )
        self.alpha = alpha
        self.alpha_covariance = covariance
        self.theta = theta
        self.covariance = theta_covariance
        self.max_log_likelihood = -objective
        self._z = z
        self._targets = targets
        self._weight = weight
        self._compressed = None
        self._grid: tuple | None = None
        self._grid_built = False

    def standardize(self, scores):
        """z = (s - centre) / scale, computed without overflow, clipped to +-1e8."""
        scores = np.asarray(scores, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            z = (scores - self.centre) / self.scale
            overflow = ~np.isfinite(z)
            if overflow.any():  # s - centre overflows only for |s| near the float64 maximum
                z[overflow] = scores[overflow] / self.scale - self.centre / self.scale
        return np.clip(z, -_Z_LIMIT, _Z_LIMIT)

    # -- compressed data of the profile likelihood ------------------------------------

    def _data(self):
        if self._compressed is None:
            slope_bound = abs(self.alpha[1]) + _COMPRESSION_STANDARD_ERRORS * math.sqrt(
                self.alpha_covariance[1, 1]
            )
            nodes_per_bin, reach = next((q, r) for most, q, r in _COMPRESSION_RULES if self._z.size <= most)
            half_width = reach / max(slope_bound, 1e-300)
            point_parts: list[np.ndarray] = []
            weight_parts: list[np.ndarray] = []
            start_parts: list[np.ndarray] = []
            value_parts: list[np.ndarray] = []
            offset = 0
            for value in np.unique(self._targets):
                chosen = self._targets == value
                z_chosen, w_chosen = self._z[chosen], self._weight[chosen]
                if np.all(w_chosen == w_chosen[0]):  # equal weights (no sample_weight): sort the values only
                    z_sorted, w_sorted = np.sort(z_chosen), w_chosen  # (5-10x faster than an argsort)
                else:
                    order = np.argsort(z_chosen)
                    z_sorted, w_sorted = z_chosen[order], w_chosen[order]
                bins = np.floor((z_sorted - z_sorted[0]) / (2.0 * half_width))
                starts = np.flatnonzero(np.concatenate(([True], bins[1:] != bins[:-1])))
                point_parts.append(z_sorted)
                weight_parts.append(w_sorted)
                start_parts.append(starts + offset)
                value_parts.append(np.full(starts.size, value))
                offset += z_sorted.size
            # every class's runs in one call (the runs of a class never reach into the next one)
            nodes, weights, counts = gauss_compress(
                np.concatenate(point_parts),
                np.concatenate(weight_parts),
                np.concatenate(start_parts).astype(np.int64),
                nodes_per_bin,
            )
            targets = np.repeat(np.concatenate(value_parts), counts)
            if nodes.size >= self._z.size:
                nodes, targets, weights = self._z, self._targets, self._weight
            nodes = np.ascontiguousarray(nodes, dtype=np.float64)
            targets = np.ascontiguousarray(targets, dtype=np.float64)
            weights = np.ascontiguousarray(weights, dtype=np.float64)
            eta = self.alpha[0] + self.alpha[1] * nodes
            # the maximum of the compressed log-likelihood (equal to the exact one up to rounding)
            log_likelihood = -float(
                (targets * np.logaddexp(0.0, eta) + (1.0 - targets) * np.logaddexp(0.0, -eta)) @ weights
            )
            self._compressed = (nodes, targets, weights, log_likelihood)
        return self._compressed

    @property
    def n_nodes(self):
        """Number of (weighted) points of the compressed calibration data."""
        return self._data()[0].size

    # -- outputs -------------------------------------------------------------------------

    def tau_hat(self, z):
        """tau_hat at standardised scores ``z``."""
        return special.expit(-(self.alpha[0] + self.alpha[1] * z))

    def predictive_masses(self, z):
        """Dense masses (N, 4) of the profile contour's predictive mass (Eqs. 22-23, 40) at ``z``."""
        nodes, targets, weights, log_likelihood = self._data()
        z = np.ascontiguousarray(z, dtype=np.float64)
        return logistic_profile_masses(
            z,
            nodes,
            targets,
            weights,
            self.alpha,
            self.alpha_covariance,
            log_likelihood,
            np.zeros((z.shape[0], 4)),
            np.empty(nodes.shape[0]),
        )

    def profile_grid(self):
        """Series of the whitened profile log-likelihood, or None when it does not converge.

        Returns ``(coefficients, cholesky, frame, half_width)`` for :func:`logistic_grid_masses`:
        with B the Cholesky factor of ``alpha_covariance`` and the whitened parameters u
        (alpha = alpha_hat + B u), the profile log-likelihood Q(e, xi) = max over the line
        e . u = xi of l - l_max depends on a test score z only through the direction e of
        B' (1, z), which turns by pi from z = -inf to z = +inf (angle phi), and xi =
        (eta - eta_hat) / sigma.  Q is periodic in phi: Q(phi + pi, xi) = Q(phi, -xi) (the
        same line), so it is tabulated at P equispaced angles pi j / P and expanded in a
        trigonometric series over the circle (2 P samples; about half the directions a
        Chebyshev series in phi on [0, pi] needs for the same tail), and on Chebyshev-Lobatto
        points in xi in [-9, 9], or in [-11, 11] when Q > -25 at an end of the narrower
        interval (:func:`logistic_profile_grid`): 8 x 17 points first; when the last quarter
        of the Chebyshev coefficients in xi of some direction exceeds 1e-6, a new grid of the
        sizes the geometric decay of the first one predicts (:func:`_predicted_points`,
        :func:`_predicted_directions`); afterwards xi doubles when it has not converged, or
        the directions double (only the new ones computed) while the last quarter of the
        frequencies exceeds 1e-5 (1e-6 once the xi points have grown).  The series is given
        up (None: the masses are then computed one by one by :meth:`predictive_masses`) when
        Q > -25 at an end of some direction of the wider interval (a profile far from the
        normal approximation, e.g. small or nearly separable calibration sets) or more than
        128 directions or 129 xi points would be needed.  Q is concave in xi, so pl < exp(-25) beyond the ends, and the part of
        each mass left out there is below exp(-25) = 1.4e-11.
        """
        if getattr(self, "_grid_built", False):  # (instances pickled before have no grid)
            return self._grid
        self._grid_built = True
        self._grid = None
        try:
            cholesky = np.linalg.cholesky(self.alpha_covariance)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(cholesky)):
            return None
        toward_plus = cholesky.T @ np.array([0.0, 1.0])
        toward_zero = cholesky.T @ np.array([1.0, 0.0])
        plus_norm = float(np.hypot(*toward_plus))
        if plus_norm == 0.0:
            return None
        toward_plus /= plus_norm
        normal = toward_zero - (toward_zero @ toward_plus) * toward_plus
        normal_norm = float(np.hypot(*normal))
        if normal_norm == 0.0:
            return None
        normal /= normal_norm
        minus = -toward_plus
        frame = np.ascontiguousarray(np.concatenate([minus, normal]))
        for half_width in _GRID_HALF_WIDTHS:
            grid, narrow = self._tabulate(cholesky, frame, half_width)
            if not narrow:
                break
        self._grid = grid
        return grid

    def _tabulate(self, cholesky, frame, half_width):
        """The series of :meth:`profile_grid` on xi in [-half_width, half_width]: (grid or None, narrow).

        ``narrow``: given up because Q > -25 at an end of some direction (a wider interval may do).
        """
        nodes, targets, weights, log_likelihood = self._data()
        minus, normal = frame[:2], frame[2:]
        n_directions, n_xi = _GRID_START
        values: np.ndarray | None = None
        while n_directions <= _GRID_MAX_DIRECTIONS and n_xi <= _GRID_MAX:
            xi = -half_width * np.cos(np.pi * np.arange(n_xi) / (n_xi - 1))
            xi[(n_xi - 1) // 2] = 0.0
            if values is not None and values.shape[1] == n_xi:  # doubled directions: the even ones are known
                rows = np.arange(1, n_directions, 2)
                known = values
                values = np.empty((n_directions, n_xi))
                values[::2] = known
            else:
                rows = np.arange(n_directions)
                values = np.empty((n_directions, n_xi))
            phi = (np.pi / n_directions) * rows
            e = np.cos(phi)[:, None] * minus + np.sin(phi)[:, None] * normal
            e_perp = np.column_stack([-e[:, 1], e[:, 0]])
            frames = np.ascontiguousarray(np.column_stack([e @ cholesky.T, e_perp @ cholesky.T]))
            values[rows] = call_kernel(
                logistic_profile_grid,
                nodes,
                targets,
                weights,
                self.alpha,
                frames,
                xi,
                log_likelihood,
                np.empty((rows.size, n_xi)),
                work=rows.size * (n_xi - 1) * nodes.size,
            )
            if not np.all(np.isfinite(values)):
                return None, False
            if max(values[:, 0].max(), values[:, -1].max()) > _GRID_EDGE_LOG_PL:
                return None, True  # a direction where the profile falls slower than the normal approximation
            per_direction, coefficients = _series_coefficients(values)
            magnitudes = np.abs(coefficients)
            # the largest coefficient of each frequency m = 0 .. P (rows 0, then (2 m - 1, 2 m), then 2 P - 1)
            by_row = magnitudes.max(axis=1)
            frequency_envelope = np.empty(n_directions + 1)
            frequency_envelope[0] = by_row[0]
            frequency_envelope[1:-1] = np.maximum(by_row[1:-1:2], by_row[2:-1:2])
            frequency_envelope[-1] = by_row[-1]
            direction_tail = frequency_envelope[(3 * n_directions) // 4 :].max()
            xi_envelope = np.abs(per_direction).max(axis=0)  # the tail of the worst direction
            xi_tail = xi_envelope[(3 * n_xi) // 4 :].max()
            direction_tolerance = _GRID_DIRECTION_TOLERANCE if n_xi == _GRID_START[1] else _GRID_TOLERANCE
            if direction_tail <= direction_tolerance and xi_tail <= _GRID_TOLERANCE:
                return (np.ascontiguousarray(coefficients), cholesky, frame, half_width), False
            if xi_tail > _GRID_TOLERANCE:
                if values.shape == _GRID_START:
                    # every row is recomputed for new xi: take the sizes the probe's decay predicts
                    if direction_tail > _GRID_TOLERANCE:
                        n_directions = _predicted_directions(frequency_envelope)
                    n_xi = _predicted_points(xi_envelope)
                else:
                    n_xi = 2 * n_xi - 1
            else:
                n_directions = 2 * n_directions
        return None, False

    def grid_masses(self, z):
        """:meth:`predictive_masses` from the series of :meth:`profile_grid` (None if it has none)."""
        grid = self.profile_grid()
        if grid is None:
            return None
        coefficients, cholesky, frame, half_width = grid
        z = np.ascontiguousarray(z, dtype=np.float64)
        return call_kernel(
            logistic_grid_masses,
            z,
            coefficients,
            self.alpha,
            cholesky,
            frame,
            half_width,
            np.zeros((z.shape[0], 4)),
            np.empty((5, max(coefficients.shape[1], GAUSS_LEGENDRE_NODES.size + 1))),
            work=z.shape[0] * coefficients.size,
        )

    def limit_masses(self):
        """Dense masses (2, 4) of the predictive mass as z -> +inf (row 0) and z -> -inf (row 1).

        For |s| -> inf the line theta_0 + theta_1 s = eta of Eq. 40 tends to the line
        theta_1 = 0 whatever eta, so the profile contour tends to the constant
        pl_inf = exp(l(tau_bar) - l(theta_hat)), the likelihood ratio of the
        intercept-only model, maximal at tau_bar = sum_i w_i t_i / sum_i w_i; tau_hat(s)
        tends to 0 or 1, so the masses (Eqs. 22-23) tend to m(Omega) = pl_inf and
        1 - pl_inf on the class tau_hat tends to.  The masses at finite z approach
        these limits as O(1/z) (1.6e-9 at z = 1e8 on a three-class benchmark).
        Requires alpha_1 != 0.
        """
        _nodes, targets, weights, log_likelihood = self._data()
        positive = float(targets @ weights)
        negative = float(weights.sum()) - positive
        mean = positive / (positive + negative)
        intercept_only = 0.0
        if positive > 0.0:
            intercept_only += positive * math.log(mean)
        if negative > 0.0:
            intercept_only += negative * math.log1p(-mean)
        plausibility = min(math.exp(intercept_only - log_likelihood), 1.0)
        # z -> +inf: eta_hat = alpha_0 + alpha_1 z -> -inf, tau_hat -> 1, when alpha_1 < 0
        column = 2 if self.alpha[1] < 0.0 else 1
        out = np.zeros((2, 4))
        out[0, column] = 1.0 - plausibility
        out[1, 3 - column] = 1.0 - plausibility
        out[:, 3] = plausibility
        return out

    def log_contour_eta(self, z, eta):
        """log pl(eta; s) (Eq. 40 in eta = ln(1/tau - 1)) at one standardised score ``z``, for each eta."""
        nodes, targets, weights, log_likelihood = self._data()
        return logistic_profile_log_contour(
            float(z),
            np.ascontiguousarray(eta, dtype=np.float64).reshape(-1),
            nodes,
            targets,
            weights,
            self.alpha,
            self.alpha_covariance,
            log_likelihood,
        )

    def contour(self, z, tau):
        """Profile contour pl(tau; s) (Eq. 40) at one standardised score ``z``; 0 at tau in {0, 1} (Eq. 35)."""
        tau = np.asarray(tau, dtype=np.float64)
        out = np.zeros(tau.shape)
        inside = (tau > 0.0) & (tau < 1.0)
        if inside.any():
            t = tau[inside]
            out[inside] = np.exp(self.log_contour_eta(z, np.log1p(-t) - np.log(t)))
        return out
