"""Second-order parts of the log-loss criterion of contextual discount rates and the optimiser using them.

References: the criterion written out sample by sample (every source replaced by every failure point)
in plain numpy, differentiated by central finite differences; scipy's L-BFGS-B on that written-out
criterion.
"""

import numpy as np
import pytest
from scipy import optimize

from dstk._kernels.contextual import failure_hessian_product, failure_log_loss
from dstk.evidence._contextual import log_loss_contextual_rates


def _problem(n_sources, n_classes, n_points, seed, n=30):
    rng = np.random.default_rng(seed)
    logits = 2.0 * rng.normal(size=(n_sources, n, n_classes))
    contours = np.exp(logits) / np.exp(logits).sum(axis=2, keepdims=True)
    points = rng.dirichlet(np.ones(n_classes), size=(n_sources, n_points))
    labels = rng.integers(0, n_classes, n)
    weights = rng.uniform(0.5, 2.0, n)
    return rng, contours, points, labels, weights


def _written_out(contours, points, labels, weights, contamination, rates):
    """Expected weighted log-loss of the plausibility transform under the failure model, sample by sample."""
    n_sources, n, n_classes = contours.shape

    def log_loss(sources):
        product = np.ones((n, n_classes))
        for contour, rate in zip(sources, rates):
            product = product * (contour + rate * (1.0 - contour))
        return -weights @ np.log(product[np.arange(n), labels] / product.sum(axis=1)) / weights.sum()

    if points.shape[1] == 0:
        return log_loss(list(contours))
    value = (1.0 - contamination) * log_loss(list(contours))
    for s in range(n_sources):
        for point in points[s]:
            failed = list(contours)
            failed[s] = np.broadcast_to(point, (n, n_classes))
            value += contamination / (n_sources * points.shape[1]) * log_loss(failed)
    return value


@pytest.mark.parametrize("n_sources, n_classes, n_points", [(2, 3, 0), (3, 4, 2), (2, 5, 1)])
def test_hessian_blocks_and_products_equal_second_differences_of_the_written_out_criterion(
    n_sources, n_classes, n_points
):
    rng, contours, points, labels, weights = _problem(
        n_sources, n_classes, n_points, n_sources + 7 * n_classes
    )
    contamination = 0.3 if n_points else 0.0
    n = labels.size
    rates = rng.uniform(0.2, 1.0, size=(n_sources, n_classes))
    main = (1.0 - contamination) * weights if n_points else weights.copy()
    per_point = contamination / (n_sources * max(n_points, 1)) * weights
    stand_in = points + rates[:, None, :] * (1.0 - points)
    blocks = np.zeros((n_classes, n_sources, n_sources))
    probabilities = np.zeros((n, n_classes))
    failure_probabilities = np.zeros((n_sources, n_points, n, n_classes))
    failure_log_loss(
        contours, labels, rates, main, per_point, stand_in, np.log(stand_in), (1.0 - points) / stand_in,
        np.zeros((n_sources, n_classes)), blocks, probabilities, failure_probabilities,
    )  # fmt: skip
    total = weights.sum()

    def value(flat):
        return _written_out(
            contours, points, labels, weights, contamination, flat.reshape(n_sources, n_classes)
        )

    size, h = n_sources * n_classes, 1e-4
    x, basis = rates.ravel(), np.eye(size) * h
    hessian = np.array(
        [
            [
                (
                    value(x + basis[i] + basis[j])
                    - value(x + basis[i] - basis[j])
                    - value(x - basis[i] + basis[j])
                    + value(x - basis[i] - basis[j])
                )
                / (4 * h * h)
                for j in range(size)
            ]
            for i in range(size)
        ]
    )
    scale = np.abs(hessian).max()
    for k in range(n_classes):
        indices = [s * n_classes + k for s in range(n_sources)]
        np.testing.assert_allclose(blocks[k] / total, hessian[np.ix_(indices, indices)], atol=1e-5 * scale)
    for _ in range(3):
        vector = rng.normal(size=(n_sources, n_classes))
        product = np.zeros((n_sources, n_classes))
        failure_hessian_product(
            contours, labels, rates, main, per_point, (1.0 - points) / stand_in, probabilities,
            failure_probabilities, vector, product,
        )  # fmt: skip
        np.testing.assert_allclose(product.ravel() / total, hessian @ vector.ravel(), atol=1e-5 * scale)


@pytest.mark.parametrize(
    "n_sources, n_classes, n_points, penalty", [(2, 3, 0, 0.0), (3, 4, 2, 0.0), (2, 6, 3, 0.1)]
)
def test_rates_are_a_local_minimum_of_the_written_out_criterion(n_sources, n_classes, n_points, penalty):
    """First-order conditions on [0.01, 1] (projected gradient by central differences) and a criterion no
    higher than at nearby feasible points nor than scipy's L-BFGS-B on the written-out criterion from the
    same start, beyond its tolerance."""
    rng, contours, points, labels, weights = _problem(n_sources, n_classes, n_points, 3 * n_classes, n=60)
    contamination = 0.2 if n_points else 0.0
    size = n_sources * n_classes

    def criterion(flat):
        rates = flat.reshape(n_sources, n_classes)
        written = _written_out(contours, points, labels, weights, contamination, rates)
        return written + penalty * float((rates**2).sum()) / size

    rates = log_loss_contextual_rates(
        contours,
        labels,
        weights=weights,
        failure_points=points if n_points else None,
        contamination=contamination,
        min_rate=0.01,
        penalty=penalty,
    ).ravel()
    assert rates.min() >= 0.01 and rates.max() <= 1.0
    gradient = np.array([(criterion(rates + e) - criterion(rates - e)) / 2e-7 for e in np.eye(size) * 1e-7])
    projected = np.clip(rates - gradient, 0.01, 1.0) - rates
    assert np.abs(projected).max() < 1e-4
    found = criterion(rates)
    for _ in range(100):
        nearby = np.clip(rates + rng.normal(scale=1e-3, size=size), 0.01, 1.0)
        assert criterion(nearby) >= found - 1e-9
    reference = optimize.minimize(
        criterion, np.full(size, 0.1), method="L-BFGS-B", bounds=[(0.01, 1.0)] * size
    )
    assert found <= reference.fun + 1e-6 * max(1.0, abs(reference.fun))
