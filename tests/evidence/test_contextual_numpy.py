"""The numpy criterion of contextual discount rates (cold starts) against its numba kernels.

:func:`dstk.evidence._contextual.log_loss_contextual_rates` runs the criterion in numpy while its
kernels are neither compiled nor cached (small fits): the loss, gradient, Hessian blocks and Hessian
products must be the kernels' to rounding, and the fitted rates the same optimum.
"""

import numpy as np
import pytest

import dstk.evidence._contextual as contextual
from dstk._kernels._jit import every_kernel_compiled
from dstk._kernels.contextual import failure_hessian_product, failure_log_loss
from dstk.evidence._contextual import (
    _failure_hessian_product_numpy,
    _failure_log_loss_numpy,
    log_loss_contextual_rates,
)

RTOL = 1e-13


def _problem(n_sources, n_classes, n_points, n, seed, case):
    rng = np.random.default_rng(seed)
    logits = 2.0 * rng.normal(size=(n_sources, n, n_classes))
    contours = np.exp(logits) / np.exp(logits).sum(axis=2, keepdims=True)
    contours /= contours.max(axis=2, keepdims=True)  # consonant outputs: a class at 1
    points = rng.dirichlet(np.ones(n_classes), size=(n_sources, n_points))
    labels = rng.integers(0, n_classes, n)
    weights = rng.uniform(0.5, 2.0, n) if seed % 2 else np.ones(n)
    rates = rng.uniform(0.0, 1.0, size=(n_sources, n_classes))
    if case == "bounds":  # rates at 0 and at 1
        rates[rng.random(rates.shape) < 0.4] = 0.0
        rates[rng.random(rates.shape) < 0.3] = 1.0
    elif case == "dogmatic":  # outputs that rule classes out, rates at least 0.01 or 1
        contours = np.eye(n_classes)[rng.integers(0, n_classes, (n_sources, n))]
        rates = np.maximum(rates, 0.01)
        rates[0, 0] = 1.0
    elif case == "zero weights":
        weights[rng.random(n) < 0.3] = 0.0
    return contours, labels, weights, rates, points


def _both(contours, labels, weights, rates, points, contamination):
    """Loss, gradient, Hessian blocks, no-failure probabilities and a Hessian product, kernel and numpy."""
    n_sources, n, n_classes = contours.shape
    n_points = points.shape[1]
    main = (1.0 - contamination) * weights if n_points else weights.copy()
    per_point = contamination / (n_sources * max(n_points, 1)) * weights
    stand_in = np.maximum(points + rates[:, None, :] * (1.0 - points), 1e-300)
    args = (contours, labels, rates, main, per_point, stand_in, np.log(stand_in), (1.0 - points) / stand_in)
    vector = np.random.default_rng(n).normal(size=(n_sources, n_classes))
    results = []
    gradient, blocks = np.zeros((n_sources, n_classes)), np.zeros((n_classes, n_sources, n_sources))
    probabilities = np.zeros((n, n_classes))
    failure_probabilities = np.zeros((n_sources, n_points, n, n_classes))
    loss = failure_log_loss(*args, gradient, blocks, probabilities, failure_probabilities)
    product = np.zeros((n_sources, n_classes))
    failure_hessian_product(
        contours, labels, rates, main, per_point, args[-1], probabilities, failure_probabilities, vector,
        product,
    )  # fmt: skip
    results.append((loss, gradient, blocks, probabilities, product))
    gradient, blocks = np.zeros((n_sources, n_classes)), np.zeros((n_classes, n_sources, n_sources))
    with np.errstate(all="ignore"):  # (rates at 0 on dogmatic outputs overflow, as in the kernel)
        loss, kept = _failure_log_loss_numpy(*args, gradient, blocks)
        product = np.zeros((n_sources, n_classes))
        _failure_hessian_product_numpy(labels, main, per_point, stand_in, args[-1], kept, vector, product)
    results.append((loss, gradient, blocks, kept[0], product))
    # first order only (no blocks): the same loss and gradient
    first = np.zeros((n_sources, n_classes))
    with np.errstate(all="ignore"):
        assert _failure_log_loss_numpy(*args, first, np.zeros((0, n_sources, n_sources)))[0] == loss
    np.testing.assert_array_equal(first, gradient)
    return results


def _assert_close(name, kernel, numpy_value):
    kernel, numpy_value = np.asarray(kernel), np.asarray(numpy_value)
    scale = float(np.abs(kernel).max(initial=0.0))
    # atol: sums of terms of size ~1 that cancel (one class, rates at 1) round to ~1e-16 instead of 0
    np.testing.assert_allclose(numpy_value, kernel, rtol=RTOL, atol=RTOL * max(scale, 1.0), err_msg=name)


@pytest.mark.parametrize(
    "n_sources, n_classes, n_points, n",
    [
        (1, 1, 0, 5),
        (3, 1, 4, 10),
        (1, 2, 4, 10),
        (2, 3, 0, 30),
        (3, 4, 2, 30),
        (4, 2, 16, 136),
        (5, 10, 16, 60),
    ],
)
@pytest.mark.parametrize("case", ["random", "bounds", "dogmatic", "zero weights"])
@pytest.mark.parametrize("seed", [0, 1])
def test_numpy_criterion_equals_the_kernels_to_rounding(n_sources, n_classes, n_points, n, case, seed):
    contours, labels, weights, rates, points = _problem(n_sources, n_classes, n_points, n, seed, case)
    contamination = 0.2 if n_points else 0.0
    kernel, numpy_value = _both(contours, labels, weights, rates, points, contamination)
    for name, a, b in zip(("loss", "gradient", "blocks", "probabilities", "product"), kernel, numpy_value):
        assert np.isfinite(a).all()
        _assert_close(name, a, b)


def test_numpy_criterion_with_rates_at_zero_on_dogmatic_outputs_gives_the_kernels_loss_and_gradient():
    """pl' = 0 is floored at 1e-300: huge but finite losses and gradients (the Hessian overflows)."""
    contours, labels, weights, rates, points = _problem(3, 3, 4, 20, 0, "dogmatic")
    kernel, numpy_value = _both(contours, labels, weights, np.zeros_like(rates), points, 0.1)
    for name, a, b in zip(("loss", "gradient"), kernel[:2], numpy_value[:2]):
        _assert_close(name, a, b)


def _fit(contours, labels, weights, points, in_numpy, monkeypatch):
    monkeypatch.setattr(contextual, "_criterion_in_numpy", lambda work: in_numpy)
    return log_loss_contextual_rates(
        contours, labels, weights=weights, min_rate=0.01, failure_points=points, contamination=0.1
    )


@pytest.mark.parametrize("seed", range(6))
def test_fitted_rates_are_the_same_optimum_in_numpy_and_with_the_kernels(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    n_sources, n_classes, n = int(rng.integers(2, 6)), int(rng.integers(2, 5)), int(rng.integers(100, 300))
    labels = rng.integers(0, n_classes, n)
    logits = rng.normal(size=(n_sources, n, n_classes)) * rng.uniform(0.5, 3.0, (n_sources, 1, 1))
    logits += 2.0 * np.eye(n_classes)[labels] * rng.uniform(0.0, 2.0, (n_sources, 1, 1))
    contours = np.exp(logits) / np.exp(logits).max(axis=2, keepdims=True)
    weights = rng.integers(1, 3, n).astype(float)
    points = rng.dirichlet(np.ones(n_classes), size=(n_sources, 8))
    compiled = _fit(contours, labels, weights, points, False, monkeypatch)
    numpy_rates = _fit(contours, labels, weights, points, True, monkeypatch)
    np.testing.assert_allclose(numpy_rates, compiled, rtol=0, atol=1e-10)


def test_the_numpy_criterion_runs_only_for_small_fits_within_the_budget(monkeypatch):
    """One cold-start budget (dstk._kernels._jit.cold_alternative), the one of failure_log_loss's decorator."""
    from dstk._kernels import _jit
    from dstk._kernels.contextual import failure_hessian_product, failure_log_loss

    assert failure_hessian_product.budget_of is failure_log_loss
    account = (failure_log_loss, True)
    monkeypatch.setattr(_jit, "_interpreted_work", {})
    with every_kernel_compiled():  # python -m dstk compile: the kernels are compiled into the cache
        assert not contextual._criterion_in_numpy(1000)
    monkeypatch.setattr(_jit, "_compiled_or_cached", lambda kernel: True)
    assert not contextual._criterion_in_numpy(1000)
    monkeypatch.setattr(_jit, "_compiled_or_cached", lambda kernel: False)
    assert contextual._criterion_in_numpy(1000)
    assert _jit._interpreted_work[account] == 1000
    assert not contextual._criterion_in_numpy(contextual.NUMPY_MAX_WORK + 1)
    budget = _jit.INTERPRETED_BUDGET * failure_log_loss.cold_alternative_work
    _jit._interpreted_work[account] = budget
    assert not contextual._criterion_in_numpy(1000)


def test_a_fit_in_numpy_counts_its_work(monkeypatch):
    from dstk._kernels import _jit
    from dstk._kernels.contextual import failure_log_loss

    monkeypatch.setattr(contextual, "_criterion_in_numpy", lambda work: True)
    monkeypatch.setattr(_jit, "_compiled_or_cached", lambda kernel: False)
    monkeypatch.setattr(_jit, "_interpreted_work", {})
    rng = np.random.default_rng(0)
    contours = rng.dirichlet(np.ones(2), size=(2, 50))
    log_loss_contextual_rates(
        contours, rng.integers(0, 2, 50), failure_points=contours[:, :3], contamination=0.1
    )
    assert _jit._interpreted_work[(failure_log_loss, True)] >= 2 * 50 * 2 * 4


def test_within_every_kernel_compiled_a_small_fit_calls_the_kernels(monkeypatch):
    """What ``python -m dstk compile`` relies on to write the kernels of the fusion's rates to the cache."""
    import dstk._kernels.contextual as kernels

    calls = []
    for name in ("failure_log_loss", "failure_hessian_product"):
        kernel = getattr(kernels, name)
        monkeypatch.setattr(
            kernels, name, lambda *args, kernel=kernel, name=name: calls.append(name) or kernel(*args)
        )
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 3, 300)
    logits = 2.0 * rng.normal(size=(3, 300, 3)) + 2.0 * np.eye(3)[labels]
    contours = np.exp(logits) / np.exp(logits).max(axis=2, keepdims=True)
    with every_kernel_compiled():  # (a problem whose fit takes Newton steps)
        log_loss_contextual_rates(
            contours, labels, min_rate=0.01, failure_points=contours[:, :4], contamination=0.1
        )
    assert {"failure_log_loss", "failure_hessian_product"} <= set(calls)
