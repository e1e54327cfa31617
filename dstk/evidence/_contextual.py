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
    (:func:`dstk._kernels.contextual.failure_log_loss`), without copies of the outputs.

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
    x0 = (
        np.full((n_sources, n_classes), max(0.1, min_rate))
        if start is None
        else np.clip(start, min_rate, 1.0)
    )
    size = float(n_sources * n_classes)
    no_blocks = np.zeros((0, n_sources, n_sources))
    no_probabilities, no_failure_probabilities = np.zeros((0, n_classes)), np.zeros((0, 0, 0, n_classes))

    def evaluate(flat, blocks, probabilities, failure_probabilities):
        """Loss and gradient; the Hessian's blocks and the probabilities go to the arrays given."""
        rates = np.ascontiguousarray(flat.reshape(n_sources, n_classes))
        stand_in = np.maximum(points + rates[:, None, :] * point_doubt, _TINY)
        gradient = np.zeros((n_sources, n_classes))
        loss = failure_log_loss(
            contours, labels, rates, main_weights, point_weights, stand_in, np.log(stand_in),
            point_doubt / stand_in, gradient, blocks, probabilities, failure_probabilities,
        )  # fmt: skip
        loss = loss / total + penalty * float((rates**2).sum()) / size
        gradient = gradient / total + 2.0 * penalty * rates / size
        return loss, gradient.ravel()

    def objective(flat):
        return evaluate(flat, no_blocks, no_probabilities, no_failure_probabilities)

    blocks = np.zeros((n_classes, n_sources, n_sources))
    probabilities = np.zeros((n, n_classes))
    failure_probabilities = np.zeros((n_sources, points.shape[1], n, n_classes))
    ridge = 2.0 * penalty / size

    def second_order(flat):
        """Loss, gradient, the Hessian's diagonal blocks and its product with vectors (valid until the
        next call)."""
        blocks[:] = 0.0
        loss, gradient = evaluate(flat, blocks, probabilities, failure_probabilities)
        rates = np.ascontiguousarray(flat.reshape(n_sources, n_classes))
        stand_in_ratio = point_doubt / np.maximum(points + rates[:, None, :] * point_doubt, _TINY)

        def hessian_product(vector):
            product = np.zeros((n_sources, n_classes))
            failure_hessian_product(
                contours, labels, rates, main_weights, point_weights, stand_in_ratio, probabilities,
                failure_probabilities, np.ascontiguousarray(vector.reshape(n_sources, n_classes)), product,
            )  # fmt: skip
            return product.ravel() / total + ridge * vector

        return loss, gradient, blocks / total + ridge * np.eye(n_sources), hessian_product

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
