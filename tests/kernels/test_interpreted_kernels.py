"""Kernels run interpreted for small inputs (cold start) give bit-identical results.

:func:`dstk._kernels._jit.call_kernel` runs a kernel's Python source instead of
its compiled version below a work threshold (``INTERPRETED_MAX_WORK``).  The
compiled kernel is the reference: both must agree bit for bit on inputs that
reach every branch, and every calibrator that uses them must fit and predict
the same numbers whichever way its kernels run.
"""

from __future__ import annotations

import numpy as np
import pytest

import dstk.calibration as calibration
from dstk._kernels import calibration as kernels
from dstk._kernels import counts as count_kernels
from dstk._kernels._jit import call_kernel


def same_bits(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same_bits(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def kernel_inputs(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    points = np.sort(np.round(rng.normal(size=n), int(rng.integers(1, 4))))  # ties
    point_weights = rng.random(n) + 0.1
    starts = np.unique(np.concatenate(([0], rng.integers(0, n, size=int(rng.integers(0, 5)))))).astype(
        np.int64
    )
    sums = rng.integers(0, 5, size=n).astype(np.float64)
    belief = rng.random(n) * 0.5
    plausibility = belief + rng.random(n) * 0.5
    thresholds = np.sort(rng.normal(size=int(rng.choice([0, 3, 40, 300]))))
    table = rng.random((thresholds.size + 1, 4))
    scores = np.concatenate((rng.normal(size=50), thresholds[:5], [np.nan, np.inf, -np.inf]))
    coefficients = rng.normal(size=(int(rng.integers(1, 30)), 3))
    return {
        "gauss_compress": (points, point_weights, starts, 8),
        "pool_adjacent_violators": (sums, sums + rng.integers(1, 4, size=n)),
        "isotonic_envelope": (belief, plausibility),
        "lookup_masses": (scores, thresholds, table),
        "chebyshev_clenshaw": (np.clip(rng.normal(size=200) / 2, -1, 1), coefficients),
    }


@pytest.mark.parametrize("seed", range(12))
def test_interpreted_kernels_match_the_compiled_ones_bit_for_bit(seed):
    for name, args in kernel_inputs(seed).items():
        kernel = getattr(kernels, name)
        compiled = kernel(*args)
        interpreted = call_kernel(kernel, *args, work=0, interpreted_max_work=0)
        assert same_bits(compiled, interpreted), name


@pytest.mark.parametrize("integer", [True, False])
def test_interpreted_likelihood_mass_loop_matches_the_compiled_one(integer):
    rng = np.random.default_rng(int(integer))
    k = rng.integers(0, 60, 500).astype(np.float64) if integer else rng.random(500) * 60
    n = k + (rng.integers(0, 60, 500) if integer else rng.random(500) * 60)
    n[:5] = k[:5] = 0.0
    compiled = count_kernels.likelihood_mass_kernel(k, n)
    assert same_bits(compiled, count_kernels.likelihood_mass_kernel.py_func(k, n))


def test_gauss_compress_interpreted_reaches_the_eigen_decomposition():
    rng = np.random.default_rng(3)
    points = np.sort(rng.normal(size=200))
    args = (points, np.ones(200), np.array([0, 90], dtype=np.int64), 8)
    compiled = kernels.gauss_compress(*args)
    assert compiled[0].size == 16  # two runs of more than 16 points -> 8 Gauss nodes each
    assert same_bits(compiled, kernels.gauss_compress.py_func(*args))


def test_every_thresholded_kernel_is_a_kernel_of_the_module():
    for name, limit in kernels.INTERPRETED_MAX_WORK.items():
        assert hasattr(getattr(kernels, name), "py_func") and limit > 0


CALIBRATORS = [
    ("LogisticCalibrator", {"model": "likelihood"}),
    ("LogisticCalibrator", {"model": "likelihood", "interpolation": None}),
    ("IsotonicCalibrator", {}),
    ("IsotonicCalibrator", {"envelope": False}),
    ("BinningCalibrator", {}),
    ("BinningCalibrator", {"model": "bayes"}),
    ("IsotonicRegressionCalibrator", {}),
]


def fit_predict(name, options, scores, y, test):
    fitted = getattr(calibration, name)(**options).fit(scores, y)
    out = [fitted.predict_proba(test)]
    if hasattr(fitted, "predict_mass"):
        out.append(fitted.predict_mass(test).to_array())
    return tuple(out)


@pytest.mark.parametrize(("name", "options"), CALIBRATORS)
@pytest.mark.parametrize("n", [40, 700])
def test_calibrators_give_the_same_bits_interpreted_and_compiled(name, options, n, monkeypatch):
    rng = np.random.default_rng(n)
    scores = rng.normal(size=n)
    scores[::5] = np.round(scores[::5], 1)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * scores))).astype(int)
    test = np.concatenate((3 * rng.normal(size=100), [scores.min() - 1, scores.max() + 1, 0.0]))
    limits = kernels.INTERPRETED_MAX_WORK  # the one dictionary every caller reads
    for key in limits:
        monkeypatch.setitem(limits, key, 10**12)
    monkeypatch.setattr("dstk.evidence._counts._LIKELIHOOD_INTERPRETED_MAX_ROWS", 10**12)
    interpreted = fit_predict(name, options, scores, y, test)
    for key in limits:
        monkeypatch.setitem(limits, key, -1)
    monkeypatch.setattr("dstk.evidence._counts._LIKELIHOOD_INTERPRETED_MAX_ROWS", -1)
    compiled = fit_predict(name, options, scores, y, test)
    assert same_bits(interpreted, compiled)
