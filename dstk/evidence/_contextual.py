"""Learning contextual discount rates of several sources from labelled data (one implementation).

Used by :class:`dstk.calibration.EvidentialFusionClassifier` and
:class:`dstk.classifiers.ContextualDiscountingCombiner`.  A source's output on
a sample is summarised by its contour ``pl({w_k})``; contextual discounting
with rates ``alpha_k`` turns it into ``pl_k + alpha_k (1 - pl_k)`` (Mercier,
Quost & Denoeux 2008), and the conjunctive (or Dempster's) combination of
sources has the product of their contours as contour.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import optimize

__all__ = [
    "separate_contextual_rates",
    "joint_contextual_rates",
    "log_loss_contextual_rates",
    "plausibility_transform_of_product",
    "discount_contours",
]

#: smallest contour value used inside logarithms (a source that rules a class out gives 0)
_TINY = 1e-300
#: L-BFGS-B iterations of :func:`log_loss_contextual_rates` before its Newton iterations
_FIRST_ITERATIONS = 20
#: Largest work ``S n K (M + 1)`` of a fit of :func:`log_loss_contextual_rates` that runs the criterion
#: in numpy while its kernels are neither compiled nor cached: the (S, M, n) and (S, n, K) temporaries
#: stay within a few megabytes.  Measured on one core (2026-11-29): numpy 0.2-0.3 ms per first-order
#: evaluation against the kernel's 0.15-0.4 ms for 2-5 sources, 130-140 samples, 2 classes and 16
#: failure points (the demo's fits), 2.5 against 4.8 ms at 5 sources, 1000 samples, 5 classes; the
#: two kernels compile in about 5 s of CPU.
NUMPY_MAX_WORK = 1 << 20


def separate_contextual_rates(
    contour: np.ndarray, indicators: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """Discount rates minimising the plausibility error of one source, in closed form.

    The criterion ``E_pl = sum_i w_i sum_k (pl'_ik - delta_ik)^2`` (Mercier, Quost & Denoeux 2008, Eq. 33)
    is a convex parabola in each ``alpha_k``; its minimiser is
    ``alpha_k = sum_i w_i (1 - pl_ik)(delta_ik - pl_ik) / sum_i w_i (1 - pl_ik)^2``, projected on [0, 1].

    Parameters
    ----------
    contour : ndarray of shape (n, K)
        ``pl_i({w_k})`` of the source on the samples.
    indicators : ndarray of shape (n, K)
        ``delta_ik`` = 1 if sample i is of class k.
    weights : ndarray of shape (n,), optional
        Sample weights (default 1).

    Returns
    -------
    ndarray of shape (K,)
    """
    w = np.ones(contour.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    doubt = 1.0 - contour
    denominator = (w[:, None] * doubt**2).sum(axis=0)
    numerator = (w[:, None] * doubt * (indicators - contour)).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), 0.0)
    return np.clip(rates, 0.0, 1.0)


def joint_contextual_rates(
    contours: np.ndarray, indicators: np.ndarray, start: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """Rates of all sources minimising the plausibility error of their conjunctive combination.

    ``sum_i w_i sum_k (prod_s pl'_sik - delta_ik)^2`` over ``alpha_sk`` in [0, 1], by L-BFGS-B with the
    analytic gradient, from ``start``.

    Parameters
    ----------
    contours : ndarray of shape (S, n, K)
    indicators : ndarray of shape (n, K)
    start : ndarray of shape (S, K)
    weights : ndarray of shape (n,), optional

    Returns
    -------
    ndarray of shape (S, K)
    """
    n_sources, n, n_classes = contours.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    total = w.sum()
    doubt = 1.0 - contours

    def objective(flat):
        rates = flat.reshape(n_sources, n_classes)
        discounted = contours + rates[:, None, :] * doubt  # (S, n, K)
        product = discounted.prod(axis=0)
        residual = product - indicators
        loss = float((w[:, None] * residual**2).sum()) / total
        grad = np.empty_like(rates)
        for s in range(n_sources):
            others = np.prod(np.delete(discounted, s, axis=0), axis=0)
            grad[s] = (2.0 * w[:, None] * residual * others * doubt[s]).sum(axis=0) / total
        return loss, grad.ravel()

    result = optimize.minimize(
        objective, start.ravel(), jac=True, method="L-BFGS-B", bounds=[(0.0, 1.0)] * start.size
    )
    return result.x.reshape(n_sources, n_classes)


def discount_contours(contours: np.ndarray, rates: np.ndarray) -> np.ndarray:
    """Contextually discounted contours ``pl'_sik = pl_sik + alpha_sk (1 - pl_sik)`` (Mercier, Quost & Denoeux 2008).

    Parameters
    ----------
    contours : ndarray of shape (S, n, K)
        Each source's contour on each sample.
    rates : ndarray of shape (S, K)
        Contextual discount rates.

    Returns
    -------
    ndarray of shape (S, n, K)
    """
    return contours + rates[:, None, :] * (1.0 - contours)


def plausibility_transform_of_product(
    contours: np.ndarray, rates: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The plausibility transform of Dempster's combination of contextually discounted sources.

    Parameters
    ----------
    contours : ndarray of shape (S, n, K)
        Each source's contour on each sample.
    rates : ndarray of shape (S, K)
        Contextual discount rates.

    Returns
    -------
    probabilities : ndarray of shape (n, K)
        ``prod_s pl'_sik / sum_k prod_s pl'_sik``: the plausibility transform, which commutes with
        Dempster's rule (Cobb & Shenoy 2006, Theorem 3.1), so it is that of the combined mass function.
        Rows of total conflict (every class ruled out by some source) are NaN.
    log_contour : ndarray of shape (n, K)
        ``sum_s log pl'_sik`` (``-inf`` where a source rules the class out).
    """
    discounted = discount_contours(contours, rates)
    with np.errstate(divide="ignore"):
        log_contour = np.log(discounted).sum(axis=0)
    top = log_contour.max(axis=1, keepdims=True)
    finite = np.isfinite(top[:, 0])
    scaled = np.exp(log_contour - np.where(finite[:, None], top, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        probabilities = scaled / scaled.sum(axis=1, keepdims=True)
    probabilities[~finite] = np.nan
    return probabilities, log_contour


def log_loss_contextual_rates(
    contours: np.ndarray,
    labels: np.ndarray,
    *,
    weights: np.ndarray | None = None,
    start: np.ndarray | None = None,
    penalty: float = 0.0,
    min_rate: float = 0.0,
    failure_points: np.ndarray | None = None,
    contamination: float = 0.0,
) -> np.ndarray:
    """Rates minimising the log-loss of the plausibility transform of the discounted sources' combination.

    The criterion is ``-sum_i w_i log P_i(y_i) / sum_i w_i + penalty * mean(alpha^2)`` with
    ``P_i(k) = prod_s pl'_sik / sum_l prod_s pl'_sil`` and ``pl'_sik = pl_sik + alpha_sk (1 - pl_sik)``:
    the negative log-likelihood of the labels under the probability that Dempster's combination of the
    contextually discounted sources gives them (:func:`plausibility_transform_of_product`), a proper
    scoring rule, in place of the plausibility error of Mercier, Quost & Denoeux (2008, Eq. 33).
    Its gradient is ``d/d alpha_sk = sum_i w_i (P_ik - delta_ik) (1 - pl_sik) / pl'_sik / sum_i w_i``;
    its Hessian is, per sample, block diagonal (the S rates of one class) minus a rank-one term
    coupling the classes through the normalisation, so its products with vectors cost one pass over
    the outputs without logarithms or exponentials.  Minimised over ``alpha_sk`` in [min_rate, 1] by a
    projected truncated Newton method (the active set and projected search of Bertsekas 1982, SIAM J.
    Control Optim. 20(2), 221-246; the Newton-CG step of Nocedal & Wright 2006, Algorithm 7.1, with the
    conjugate gradients preconditioned by the Hessian's diagonal blocks, Algorithm 5.3) started after
    20 iterations of L-BFGS-B with the gradient (which choose the local minimum: the criterion is not
    convex) and finished by L-BFGS-B with its default tolerances.

    With ``failure_points`` the criterion is an expectation over a failure model: with probability
    ``1 - contamination`` every source gives its output; with probability ``contamination / S`` source
    ``s`` fails and gives instead one of its ``M`` points ``failure_points[s]`` (probability ``1 / M``
    each), whatever the sample.  The failure terms are computed in closed form, sample by sample, from
    the product ``R_s`` of the other sources' discounted contours: the failure of ``s`` with point ``c``
    gives ``P_i(k) = R_sik c'_k / sum_l R_sil c'_l`` with ``c' = c + alpha_s (1 - c)``
    (:func:`dstk._kernels.contextual.failure_log_loss`), without copies of the outputs.  While those
    kernels are neither compiled nor cached, small fits (:data:`NUMPY_MAX_WORK`, within the kernels'
    cold-start budget) compute the same criterion in numpy instead (:func:`_failure_log_loss_numpy`): a cold start
    compiles nothing for them, and the rates are the same optimum to rounding.

    Parameters
    ----------
    contours : ndarray of shape (S, n, K)
        Each source's contour on each sample.
    labels : ndarray of shape (n,)
        Class indices in ``range(K)``.
    weights : ndarray of shape (n,), optional
        Sample weights (default 1).
    start : ndarray of shape (S, K), optional
        Initial rates (default 0.1).
    penalty : float, default 0.0
        Weight of the ridge term ``mean(alpha^2)``.
    min_rate : float, default 0.0
        Least rate: the rates are sought in ``[min_rate, 1]``.
    failure_points : ndarray of shape (S, M, K), optional
        Each source's outputs standing in for its failures (no failure model when None).
    contamination : float, default 0.0
        Probability that one of the sources fails (used with ``failure_points``).

    Returns
    -------
    ndarray of shape (S, K)
    """
    n_sources, _, n_classes = contours.shape
    x0 = (
        np.full((n_sources, n_classes), max(0.1, min_rate))
        if start is None
        else np.clip(start, min_rate, 1.0)
    )
    evaluate = _rates_criterion(
        contours, labels, weights, penalty=penalty, failure_points=failure_points, contamination=contamination
    )

    def objective(flat):
        return evaluate(flat, False)

    def second_order(flat):
        return evaluate(flat, True)

    bounds = [(min_rate, 1.0)] * x0.size
    # the first L-BFGS-B iterations pick the local minimum (the criterion is not convex), Newton gets
    # there, L-BFGS-B checks it with its default tolerances
    first = optimize.minimize(
        objective,
        x0.ravel(),
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        options={"maxiter": _FIRST_ITERATIONS},
    )
    x = _projected_newton(objective, second_order, first.x, min_rate, n_sources, n_classes)
    result = optimize.minimize(objective, x, jac=True, method="L-BFGS-B", bounds=bounds)
    return result.x.reshape(n_sources, n_classes)


def _rates_criterion(contours, labels, weights, *, penalty, failure_points, contamination):
    """The criterion of :func:`log_loss_contextual_rates` as a function ``evaluate(flat, hessian)``.

    ``evaluate`` returns the loss and its gradient at the rates ``flat`` (S K values), and with ``hessian``
    also the Hessian's diagonal blocks (K, S, S) and its product with vectors (valid until the next call).
    """
    from .._kernels.contextual import failure_hessian_product, failure_log_loss

    n_sources, n, n_classes = contours.shape
    contours = np.ascontiguousarray(contours, dtype=np.float64)
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    total = float(w.sum())
    failing = failure_points is not None and contamination > 0.0
    if failing:
        points = np.ascontiguousarray(failure_points, dtype=np.float64)
    else:
        points = np.zeros((n_sources, 0, n_classes))
    point_doubt = 1.0 - points
    # each sample's weight in the no-failure term and in each of the S M failure terms
    main_weights = np.ascontiguousarray((1.0 - contamination) * w if failing else w)
    point_weights = np.ascontiguousarray(contamination / (n_sources * max(points.shape[1], 1)) * w)
    size = float(n_sources * n_classes)
    ridge = 2.0 * penalty / size
    work = n_sources * n * n_classes * (points.shape[1] + 1)
    in_numpy = _criterion_in_numpy(work)
    kept_arrays: list[np.ndarray] = []
    no_kept = (np.zeros((0, n_classes)), np.zeros((0, 0, 0, n_classes)))

    def evaluate(flat, hessian):
        rates = np.ascontiguousarray(flat.reshape(n_sources, n_classes))
        stand_in = np.maximum(points + rates[:, None, :] * point_doubt, _TINY)
        stand_in_ratio = point_doubt / stand_in
        gradient = np.zeros((n_sources, n_classes))
        blocks = np.zeros((n_classes if hessian else 0, n_sources, n_sources))
        if in_numpy:
            _charge_numpy(work)
            with np.errstate(all="ignore"):  # as the kernel: overflow to inf, no warning
                loss, kept = _failure_log_loss_numpy(
                    contours, labels, rates, main_weights, point_weights, stand_in, np.log(stand_in),
                    stand_in_ratio, gradient, blocks,
                )  # fmt: skip
        else:
            # the kept probabilities: allocated once per fit (pages written once, not at every call)
            if hessian and not kept_arrays:
                kept_arrays.extend(
                    (np.empty((n, n_classes)), np.empty((n_sources, points.shape[1], n, n_classes)))
                )
            probabilities, failure_probabilities = kept_arrays if hessian else no_kept
            loss = failure_log_loss(
                contours, labels, rates, main_weights, point_weights, stand_in, np.log(stand_in),
                stand_in_ratio, gradient, blocks, probabilities, failure_probabilities,
            )  # fmt: skip
        loss = loss / total + penalty * float((rates**2).sum()) / size
        gradient = gradient / total + 2.0 * penalty * rates / size
        if not hessian:
            return loss, gradient.ravel()

        def hessian_product(vector):
            product = np.zeros((n_sources, n_classes))
            matrix = np.ascontiguousarray(vector.reshape(n_sources, n_classes))
            if in_numpy:
                _charge_numpy(work)
                with np.errstate(all="ignore"):
                    _failure_hessian_product_numpy(
                        labels, main_weights, point_weights, stand_in, stand_in_ratio, kept, matrix, product
                    )
            else:
                failure_hessian_product(
                    contours, labels, rates, main_weights, point_weights, stand_in_ratio, probabilities,
                    failure_probabilities, matrix, product,
                )  # fmt: skip
            return product.ravel() / total + ridge * vector

        return loss, gradient.ravel(), blocks / total + ridge * np.eye(n_sources), hessian_product

    return evaluate


def _criterion_in_numpy(work: int) -> bool:
    """Whether a fit of ``work`` runs the criterion in numpy (:func:`_failure_log_loss_numpy`).

    True for fits of at most :data:`NUMPY_MAX_WORK` while the criterion's kernels are neither compiled
    in this process nor cached, within the process's cold-start budget of
    :func:`dstk._kernels.contextual.failure_log_loss` (:func:`dstk._kernels._jit.cold_alternative`,
    charged by every evaluation of a fit in numpy): a cold start compiles nothing for the small fits
    (the demo's), while large fits and programs that keep fitting compile the kernels.  Within
    :func:`dstk._kernels._jit.every_kernel_compiled` (what ``python -m dstk compile`` runs) the kernels
    are used, so they are compiled into the cache.
    """
    from .._kernels._jit import cold_alternative
    from .._kernels.contextual import failure_hessian_product

    # (failure_hessian_product's budget is failure_log_loss's: asking for it checks that it is compiled too)
    return work <= NUMPY_MAX_WORK and cold_alternative(failure_hessian_product, work)


def _charge_numpy(work: int) -> None:
    """Charge one evaluation in numpy to the budget (a fit that started in numpy stays there)."""
    from .._kernels._jit import cold_alternative
    from .._kernels.contextual import failure_log_loss

    cold_alternative(failure_log_loss, work)


def _projected_newton(
    first_order: Callable[[np.ndarray], tuple[float, np.ndarray]],
    second_order: Callable[[np.ndarray], tuple[float, np.ndarray, np.ndarray, Callable]],
    x: np.ndarray,
    lower: float,
    n_sources: int,
    n_classes: int,
    *,
    iterations: int = 500,
    tolerance: float = 1e-5,
    relative_decrease: float = float(np.finfo(float).eps) * 1e7,
) -> np.ndarray:
    """Projected truncated Newton (Bertsekas 1982) on ``[lower, 1]``, from ``x``.

    Each iteration fixes the variables at a bound whose gradient points outwards (within the
    projected-gradient distance), solves the Newton system on the others by conjugate gradients with
    the Hessian's products and its diagonal blocks (made positive definite) as preconditioner,
    stopped at negative curvature or at a relative residual of ``min(0.5, sqrt(|g|))``, and
    backtracks on the projected arc until the Armijo condition holds; the free variables' step is
    kept within a radius that doubles after a full step and otherwise becomes the accepted length.
    Stops, as L-BFGS-B with its defaults, when the projected gradient is below ``tolerance`` or the
    loss decreases by less than ``relative_decrease`` (relative) in an iteration.
    """
    loss, gradient, blocks, hessian_product = second_order(x)
    radius = 0.5  # largest change of a rate in one step
    index = np.arange(n_sources)

    def per_class(flat):
        return flat.reshape(n_sources, n_classes).T

    def flat_of(matrix):
        return np.ascontiguousarray(matrix.T).ravel()

    for _ in range(iterations):
        projected = np.clip(x - gradient, lower, 1.0) - x
        size = float(np.abs(projected).max())
        if size <= tolerance:
            break
        margin = min(1e-3, float(np.linalg.norm(projected)))
        active = ((x <= lower + margin) & (gradient > 0)) | ((x >= 1.0 - margin) & (gradient < 0))
        free = ~active
        # preconditioner: the free variables' diagonal blocks, eigenvalues made positive
        block_active = per_class(active)
        restricted = blocks.copy()
        restricted[block_active[:, :, None] | block_active[:, None, :]] = 0.0
        restricted[:, index, index] += block_active
        values, vectors = np.linalg.eigh(restricted)
        values = np.abs(values)
        values = np.maximum(values, 1e-12 * max(float(values.max()), 1e-300))
        inverse = np.einsum("kij,kj,klj->kil", vectors, 1.0 / values, vectors)

        def precondition(flat, inverse=inverse):
            return flat_of(np.einsum("kst,kt->ks", inverse, per_class(flat)))

        # conjugate gradients on the free variables
        residual = np.where(free, -gradient, 0.0)
        target = min(0.5, np.sqrt(float(np.linalg.norm(residual)))) * float(np.linalg.norm(residual))
        step = np.zeros_like(x)
        z = np.where(free, precondition(residual), 0.0)
        direction = z.copy()
        rz = float(residual @ z)
        for _cg in range(200):
            product = np.where(free, hessian_product(np.where(free, direction, 0.0)), 0.0)
            curvature = float(direction @ product)
            if curvature <= 0.0:
                if not step.any():
                    step = direction
                break
            alpha = rz / curvature
            step += alpha * direction
            residual -= alpha * product
            if float(np.linalg.norm(residual)) <= target:
                break
            z = np.where(free, precondition(residual), 0.0)
            rz, previous = float(residual @ z), rz
            direction = z + rz / previous * direction
        # the free variables' step within the trust radius; the others go to their bound; then Armijo
        # backtracking on the projected arc (trial points without second order)
        step *= min(1.0, radius / max(float(np.abs(step).max()), 1e-300))
        step = np.where(active, np.where(gradient > 0, lower, 1.0) - x, step)
        t = 1.0
        while True:
            candidate = np.clip(x + t * step, lower, 1.0)
            trial, _ = first_order(candidate)
            if trial <= loss + 1e-4 * float(gradient @ (candidate - x)) or t < 1e-12:
                break
            t *= 0.5
        if not trial < loss:
            break
        radius = (
            2.0 * radius if t == 1.0 else max(t * float(np.abs(np.where(active, 0.0, step)).max()), 1e-12)
        )
        new = second_order(candidate)
        decrease = (loss - new[0]) / max(abs(loss), abs(new[0]), 1.0)
        x = candidate
        loss, gradient, blocks, hessian_product = new
        if decrease <= relative_decrease:
            break
    return x


# ---------------------------------------------------------------- the criterion in numpy (cold starts)


def _transposed(array: np.ndarray) -> np.ndarray:
    """``array`` (B, r, c) as (B, c, r)."""
    return array.transpose(0, 2, 1)


def _failure_log_loss_numpy(
    contours: np.ndarray,
    labels: np.ndarray,
    rates: np.ndarray,
    main_weights: np.ndarray,
    point_weights: np.ndarray,
    stand_in: np.ndarray,
    stand_in_log: np.ndarray,
    stand_in_ratio: np.ndarray,
    gradient: np.ndarray,
    curvature: np.ndarray,
) -> tuple[float, tuple[np.ndarray, ...]]:
    """:func:`dstk._kernels.contextual.failure_log_loss` in numpy, for the small fits of a cold start.

    Same arguments (but the kept probabilities) and formulas; returns the loss and what
    :func:`_failure_hessian_product_numpy` needs at these rates.  Every sample at once: the failure
    terms' probabilities ``P_fmik = R_fik c'_fmk / z_fmi`` are never formed, their sums over the failure
    points ``m`` or the samples ``i`` are products of (S, M, n) and (S, n, K) matrices.  The sums are
    in another order than the kernel's, so the results agree with it to rounding, not bit for bit.
    """
    n_sources, n, n_classes = contours.shape
    n_points = stand_in.shape[1]
    rows = np.arange(n)
    index = np.arange(n_sources)
    indicators = (labels[:, None] == np.arange(n_classes)).astype(np.float64)  # (n, K)
    doubt = 1.0 - contours
    discounted = np.maximum(contours + rates[:, None, :] * doubt, _TINY)
    log_discounted = np.log(discounted)  # (S, n, K)
    ratio = doubt / discounted  # g_sik
    total = log_discounted.sum(axis=0)  # (n, K)
    top = total.max(axis=1)
    spread = np.exp(total - top[:, None])
    normaliser = spread.sum(axis=1)
    loss = -float(main_weights @ (total[rows, labels] - top - np.log(normaliser)))
    p = spread / normaliser[:, None]  # (n, K)
    labelled = main_weights[:, None] * indicators
    wp = main_weights[:, None] * p
    gradient += ((wp - labelled)[None] * ratio).sum(axis=1)
    hessian = curvature.shape[0] > 0
    squared_ratio = ratio * ratio
    if hessian:
        curvature += np.einsum("sik,tik->kst", ratio * (wp * (1.0 - p))[None], ratio)
        curvature[:, index, index] -= ((wp - labelled)[None] * squared_ratio).sum(axis=1).T
    if n_points == 0:
        return loss, (p, ratio)
    # the failure of source f with point m: P_fmik = R_fik c'_fmk / z_fmi
    others = total[None] - log_discounted  # (S, n, K)
    others_top = others.max(axis=2)
    scaled = np.exp(others - others_top[:, :, None])  # R, at most 1
    z = np.maximum(np.matmul(stand_in, _transposed(scaled)), _TINY)  # (S, M, n)
    inverse = 1.0 / z
    v = point_weights
    loss -= float(
        v @ (n_points * (others[:, rows, labels] - others_top).sum(axis=0) - np.log(z).sum(axis=(0, 1)))
        + v @ stand_in_log[:, :, labels].sum(axis=(0, 1))
    )
    class_weights = v @ indicators  # (K,) the weight of each class
    weighted = v * inverse  # v / z (S, M, n)
    point_ratio = stand_in * stand_in_ratio  # c' g (S, M, K)
    # the failed source f: sum_{m,i} v P_fmik g_fmk - delta_ky sum_m v g_fmy
    gradient += (np.matmul(weighted, scaled) * point_ratio).sum(axis=1)
    gradient -= stand_in_ratio.sum(axis=1) * class_weights
    # another source s: sum over f != s of sum_i (sum_m v P_fmik - delta_ky M v) g_sik
    share = scaled * np.matmul(_transposed(weighted), stand_in)  # (S, n, K): sum_m v P_fmik
    share_others = share.sum(axis=0)[None] - share
    gradient += (share_others * ratio).sum(axis=1)
    labelled_points = v[:, None] * indicators
    gradient -= (n_sources - 1) * n_points * (labelled_points[None] * ratio).sum(axis=1)
    if not hessian:
        return loss, (p, ratio, scaled, inverse)
    scaled_squared = scaled * scaled
    weighted_squared = weighted * inverse  # v / z^2
    # the failed source: -sum v P^2 g_fm^2 + delta_ky sum_m v g_fmy^2
    curvature[:, index, index] += (
        (stand_in_ratio**2).sum(axis=1) * class_weights
        - (np.matmul(weighted_squared, scaled_squared) * point_ratio**2).sum(axis=1)
    ).T
    # the failed source with another: sum_{m,i} v P (1 - P) g_fmk g_sik
    mixed = scaled * np.matmul(_transposed(weighted), point_ratio) - scaled_squared * np.matmul(
        _transposed(weighted_squared), stand_in * point_ratio
    )  # (S, n, K)
    cross = np.einsum("fik,sik->ksf", mixed, ratio)
    cross[:, index, index] = 0.0
    curvature += cross + cross.transpose(0, 2, 1)
    # two other sources s != t: sum over f not in {s, t} of sum v P (1 - P) g_s g_t
    squared = scaled_squared * np.matmul(_transposed(weighted_squared), stand_in**2)  # sum_m v P^2
    spare = share - squared  # (S, n, K)
    pairs = np.einsum("sik,tik->kst", ratio * spare.sum(axis=0)[None], ratio)
    own = np.einsum("sik,tik->kst", ratio * spare, ratio)
    pairs -= own + own.transpose(0, 2, 1)
    pairs[:, index, index] = 0.0
    curvature += pairs
    # one other source s: sum over f != s of sum v (delta_ky - P^2) g_s^2
    squared_others = squared.sum(axis=0)[None] - squared
    curvature[:, index, index] += (
        (((n_sources - 1) * n_points * labelled_points[None] - squared_others) * squared_ratio).sum(axis=1).T
    )
    return loss, (p, ratio, scaled, inverse)


def _failure_hessian_product_numpy(
    labels: np.ndarray,
    main_weights: np.ndarray,
    point_weights: np.ndarray,
    stand_in: np.ndarray,
    stand_in_ratio: np.ndarray,
    kept: tuple[np.ndarray, ...],
    vector: np.ndarray,
    product: np.ndarray,
) -> None:
    """:func:`dstk._kernels.contextual.failure_hessian_product` in numpy, from what
    :func:`_failure_log_loss_numpy` kept at the same rates (``kept``)."""
    p, ratio = kept[0], kept[1]
    n_sources, _, n_classes = ratio.shape
    n_points = stand_in.shape[1]
    indicators = (labels[:, None] == np.arange(n_classes)).astype(np.float64)
    squared_ratio = ratio * ratio
    gv = ratio * vector[:, None, :]  # g_sik v_sk
    projection = gv.sum(axis=0)  # (n, K)
    # the no-failure term: H = D - u u^T, u_sk = P_k g_sk, D block diagonal
    dot = (p * projection).sum(axis=1)
    wp = main_weights[:, None] * p
    product += (wp[None] * ratio * (projection[None] - gv - dot[None, :, None])).sum(axis=1)
    product += ((main_weights[:, None] * indicators)[None] * squared_ratio).sum(axis=1) * vector
    if n_points == 0:
        return
    scaled, inverse = kept[2], kept[3]  # R (S, n, K), 1 / z (S, M, n)
    point_ratio = stand_in * stand_in_ratio  # c' g
    others = projection[None] - gv  # (S, n, K): the sources but the failed one
    # u_m . v = sum_k P_fmik (others_fik + g_fmk v_fk)
    dot_m = inverse * (
        np.matmul(stand_in, _transposed(scaled * others))
        + np.matmul(point_ratio * vector[:, None, :], _transposed(scaled))
    )  # (S, M, n)
    transposed_inverse = _transposed(inverse)
    share = scaled * np.matmul(transposed_inverse, stand_in)  # sum_m P_fmik
    share_ratio = scaled * np.matmul(transposed_inverse, point_ratio)  # sum_m P_fmik g_fmk
    dotted = _transposed(inverse * dot_m)
    share_dot = scaled * np.matmul(dotted, stand_in)  # sum_m P_fmik (u_m . v)
    share_ratio_dot = scaled * np.matmul(dotted, point_ratio)
    v = point_weights[:, None]
    # the failed source
    product += (v[None] * (others * share_ratio - share_ratio_dot)).sum(axis=1)
    product += (stand_in_ratio**2).sum(axis=1) * (point_weights @ indicators) * vector
    # another source s: the sum over f != s
    h = share * others + share_ratio * vector[:, None, :] - share_dot  # (S, n, K)
    h_others = h.sum(axis=0)[None] - h
    share_others = share.sum(axis=0)[None] - share
    product += (v[None] * ratio * (h_others - share_others * gv)).sum(axis=1)
    product += (n_sources - 1) * n_points * ((v * indicators)[None] * squared_ratio).sum(axis=1) * vector
