"""Coupling against exact recovery of consistent rates and an independent optimiser of the KL objective."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize

from dstk.exceptions import ConvergenceWarning
from dstk.multiclass import (
    all_pairs_code,
    complete_code,
    couple_probabilities,
    one_vs_rest_code,
    sparse_random_code,
)


def rates_from(p, code):
    pos = (code == 1).astype(float)
    both = (code != 0).astype(float)
    return (p @ pos) / (p @ both)


def kl_objective(p, r, code, w):
    mu = rates_from(p[None, :], code)[0]
    return np.sum(w * (r * np.log(r / mu) + (1 - r) * np.log((1 - r) / (1 - mu))))


def reference_optimum(r, code, w):
    K = code.shape[0]

    def f(theta):
        p = np.exp(theta - theta.max())
        return kl_objective(p / p.sum(), r, code, w)

    best = None
    for start in (np.zeros(K), np.log(np.arange(1, K + 1.0))):
        res = optimize.minimize(f, start, method="BFGS", options={"gtol": 1e-12, "maxiter": 10000})
        if best is None or res.fun < best.fun:
            best = res
    p = np.exp(best.x - best.x.max())
    return p / p.sum(), best.fun


CODES = {
    "ovr": one_vs_rest_code(4),
    "pairs": all_pairs_code(4),
    "complete": complete_code(4),
    "ovr_permuted": one_vs_rest_code(4)[:, [2, 0, 3, 1]],
}


@pytest.mark.parametrize("name", sorted(CODES))
@pytest.mark.parametrize("method", ["bradley_terry", "zadrozny"])
def test_consistent_rates_are_recovered(name, method):
    code = CODES[name]
    rng = np.random.RandomState(0)
    p = rng.dirichlet(np.ones(4), size=30)
    res = couple_probabilities(rates_from(p, code), code, method=method)
    assert res.all_converged
    np.testing.assert_allclose(res.probabilities, p, atol=1e-7)


@pytest.mark.parametrize("name", sorted(CODES))
@pytest.mark.parametrize("seed", [1, 2])
def test_inconsistent_rates_match_independent_optimiser(name, seed):
    code = CODES[name]
    rng = np.random.RandomState(seed)
    r = rng.uniform(0.05, 0.95, size=(5, code.shape[1]))
    w = rng.randint(20, 60, size=code.shape[1]).astype(float)
    res = couple_probabilities(r, code, task_weights=w)
    assert res.all_converged
    for i in range(5):
        p_ref, f_ref = reference_optimum(r[i], code, w)
        f_ours = kl_objective(res.probabilities[i], r[i], code, w)
        assert f_ours <= f_ref + 1e-7
        np.testing.assert_allclose(res.probabilities[i], p_ref, atol=2e-4)


def test_sparse_code_matches_optimiser():
    code = sparse_random_code(10, n_draws=3000, random_state=0)
    rng = np.random.RandomState(4)
    p = rng.dirichlet(np.ones(10), size=3)
    r = np.clip(rates_from(p, code) + rng.normal(0, 0.05, (3, code.shape[1])), 0.02, 0.98)
    res = couple_probabilities(r, code, max_iter=5000)
    for i in range(3):
        _, f_ref = reference_optimum(r[i], code, np.ones(code.shape[1]))
        assert kl_objective(res.probabilities[i], r[i], code, np.ones(code.shape[1])) <= f_ref + 1e-6


def zadrozny_fixed_point_residual(p, r, code, w):
    """Zadrozny's fixed point, written out: observed / expected counts are equal for every class
    (the update multiplies p_k by that ratio and renormalises)."""
    mu = rates_from(p[None, :], code)[0]
    pos, neg = (code == 1), (code == -1)
    observed = pos @ (w * r) + neg @ (w * (1 - r))
    expected = pos @ (w * mu) + neg @ (w * (1 - mu))
    ratio = observed / expected
    return np.max(np.abs(ratio - ratio.mean()))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_zadrozny_pairwise_is_hastie_tibshirani_optimum(seed):
    code = all_pairs_code(5)
    rng = np.random.RandomState(seed)
    r = rng.uniform(0.05, 0.95, size=(3, code.shape[1]))
    w = rng.randint(20, 60, size=code.shape[1]).astype(float)
    z = couple_probabilities(r, code, task_weights=w, method="zadrozny")
    bt = couple_probabilities(r, code, task_weights=w)
    assert z.all_converged
    np.testing.assert_allclose(z.probabilities, bt.probabilities, atol=1e-7)
    for i in range(3):
        assert zadrozny_fixed_point_residual(z.probabilities[i], r[i], code, w) < 1e-6
        p_ref, _ = reference_optimum(r[i], code, w)
        np.testing.assert_allclose(z.probabilities[i], p_ref, atol=2e-4)


@pytest.mark.parametrize("seed", [0, 1])
def test_pairwise_code_with_flipped_columns_and_reordered_tasks(seed):
    # a pairwise code is coupled in the one-division form of Hastie & Tibshirani's update, with each
    # task's positive class first: a column whose sign is flipped (rate 1 - r) and a permutation of
    # the tasks describe the same problem, and the result is the KL optimum of the independent optimiser
    code = all_pairs_code(5)
    rng = np.random.RandomState(seed)
    r = rng.uniform(0.05, 0.95, size=(4, code.shape[1]))
    w = rng.randint(20, 60, size=code.shape[1]).astype(float)
    flip = rng.rand(code.shape[1]) < 0.5
    order = rng.permutation(code.shape[1])
    code2 = (code * np.where(flip, -1, 1))[:, order]
    r2 = np.where(flip, 1.0 - r, r)[:, order]
    base = couple_probabilities(r, code, task_weights=w)
    moved = couple_probabilities(r2, code2, task_weights=w[order])
    assert base.all_converged and moved.all_converged
    np.testing.assert_allclose(moved.probabilities, base.probabilities, atol=1e-9)
    for i in range(r.shape[0]):
        p_ref, _ = reference_optimum(r[i], code, w)
        np.testing.assert_allclose(base.probabilities[i], p_ref, atol=2e-4)


def test_zadrozny_general_code_reaches_its_fixed_point():
    code = complete_code(4)
    rng = np.random.RandomState(3)
    p = rng.dirichlet(np.ones(4), size=4)
    r = np.clip(rates_from(p, code) + rng.normal(0, 0.03, (4, code.shape[1])), 0.02, 0.98)
    res = couple_probabilities(r, code, method="zadrozny", max_iter=5000)
    for i in np.flatnonzero(res.converged):
        assert zadrozny_fixed_point_residual(res.probabilities[i], r[i], code, np.ones(code.shape[1])) < 1e-5


def test_zadrozny_one_vs_rest_fixed_point_differs_from_kl_optimum():
    r = np.array([[0.7, 0.6, 0.5]])
    code = one_vs_rest_code(3)
    z = couple_probabilities(r, code, method="zadrozny", max_iter=5000)
    assert z.all_converged
    assert zadrozny_fixed_point_residual(z.probabilities[0], r[0], code, np.ones(3)) < 1e-6
    p_ref, f_ref = reference_optimum(r[0], code, np.ones(3))
    assert kl_objective(z.probabilities[0], r[0], code, np.ones(3)) > f_ref + 1e-4
    bt = couple_probabilities(r, code)
    np.testing.assert_allclose(bt.probabilities[0], p_ref, atol=1e-5)


def test_hastie_tibshirani_pairwise_example():
    # p = (0.5, 0.3, 0.2): pairwise rates 5/8, 5/7, 3/5
    res = couple_probabilities([[5 / 8, 5 / 7, 3 / 5]], all_pairs_code(3))
    np.testing.assert_allclose(res.probabilities, [[0.5, 0.3, 0.2]], atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["ovr", "pairs"]))
def test_rows_are_probability_vectors(seed, name):
    code = CODES[name]
    r = np.random.RandomState(seed).uniform(0, 1, size=(4, code.shape[1]))
    P = couple_probabilities(r, code).probabilities
    assert np.all(P >= 0)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)


def test_non_convergence_is_reported():
    rng = np.random.RandomState(5)
    r = rng.uniform(0.05, 0.95, size=(20, 6))
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        res = couple_probabilities(r, all_pairs_code(4), max_iter=1)
    assert not res.all_converged
    assert res.converged.dtype == bool and res.n_iter.max() == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = couple_probabilities(r, all_pairs_code(4), max_iter=1, warn=False)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"task_probabilities": [[0.2, 1.2, 0.5]]}, r"\[0, 1\]"),
        ({"task_probabilities": [[0.2, 0.5]]}, "columns"),
        ({"task_weights": [1, 0, 1]}, "task_weights"),
        ({"max_iter": 0}, "max_iter"),
        ({"clip": 0.7}, "clip"),
        ({"method": "wu_lin_weng"}, "method"),
    ],
)
def test_errors(kwargs, match):
    args = {"task_probabilities": [[0.2, 0.4, 0.5]], "code": all_pairs_code(3)}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        couple_probabilities(**args)


def _one_vs_rest_coupling_by_decimal(rates, digits=50):
    """The one-vs-rest coupling (unit task weights) in 50-digit decimals: p_b(lam) the root in (0, 1) of
    (p - r_b) + lam p (1 - p) = 0, lam by bisection so that the p_b sum to one."""
    from decimal import Decimal, localcontext

    with localcontext() as context:
        context.prec = digits
        r = [Decimal(float(x)) for x in rates]

        def probabilities(lam):
            if lam == 0:
                return r
            a = lam + 1
            return [(a - (a * a - 4 * lam * x).sqrt()) / (2 * lam) for x in r]

        low, high = Decimal("-1e12"), Decimal("1e12")  # the sum decreases in lam
        for _ in range(400):
            mid = (low + high) / 2
            if sum(probabilities(mid)) > 1:
                low = mid
            else:
                high = mid
        return np.array([float(p) for p in probabilities((low + high) / 2)])


@pytest.mark.parametrize(
    "rates", [[0.0, 0.0, 0.0], [1e-9, 2e-9, 1e-8], [1e-7, 3e-6, 2e-5, 1e-9], [0.9, 0.95, 0.99]]
)
def test_one_vs_rest_coupling_of_extreme_rates_converges_to_the_exact_root(rates):
    """Rates all near 0 put the root at lam < -n, where the quadratic's usual form cancels: the coupling then
    ran to max_iter and warned, though its answer was right (a stable form for each sign of lam + n)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        result = couple_probabilities([rates], one_vs_rest_code(len(rates)), clip=1e-12)
    assert result.converged.all() and result.n_iter.max() < 100
    expected = _one_vs_rest_coupling_by_decimal(np.clip(rates, 1e-12, 1 - 1e-12))
    np.testing.assert_allclose(result.probabilities[0], expected, rtol=1e-9, atol=1e-12)
