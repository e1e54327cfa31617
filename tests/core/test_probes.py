"""The correctness probes of the research note (ds-anchors.md, section 6) as tests."""

import numpy as np
import pytest

from dstk import Frame, MassFunction, combine, combine_with_conflict
from dstk.exceptions import TotalConflictError


def _forest_workload(N=300, K=100, seed=0):
    """Workload (b): K sources on a binary frame, N samples (ds-anchors.md, section 5)."""
    rng = np.random.default_rng(seed)
    truth = rng.random(N)
    p = np.clip(truth[:, None] + 0.15 * rng.standard_normal((N, K)), 0, 1)
    e = rng.uniform(0.05, 0.5, (N, K))
    m = np.zeros((N, K, 4))
    m[..., 1] = (1 - e) * p
    m[..., 2] = (1 - e) * (1 - p)
    m[..., 3] = e
    return m


def test_probe1_long_dempster_fold_stays_exact():
    arr = _forest_workload()
    f = Frame((0, 1))
    got = combine(MassFunction.from_array(arr, f), rule="dempster", axis=1).to_array()
    # reference: exact log-domain computation on the binary frame
    # q({0}) = m0 + mT, q({1}) = m1 + mT, q(T) = mT; Dempster: product of q's, Moebius, normalise
    lq0 = np.log(arr[..., 1] + arr[..., 3]).sum(1)
    lq1 = np.log(arr[..., 2] + arr[..., 3]).sum(1)
    lqT = np.log(arr[..., 3]).sum(1)
    mx = np.maximum(lq0, lq1)
    q0, q1, qT = np.exp(lq0 - mx), np.exp(lq1 - mx), np.exp(lqT - mx)
    m0, m1, mT = q0 - qT, q1 - qT, qT
    s = m0 + m1 + mT
    exp = np.stack([np.zeros_like(s), m0 / s, m1 / s, mT / s], axis=1)
    np.testing.assert_allclose(got, exp, atol=1e-12)
    np.testing.assert_allclose(got.sum(1), 1.0, atol=1e-12)
    assert np.all(got >= 0)


def test_probe1_sequential_pairwise_fold_also_exact():
    arr = _forest_workload(N=20)
    f = Frame((0, 1))
    once = combine(MassFunction.from_array(arr, f), rule="dempster", axis=1)
    acc = MassFunction.from_array(arr[:, 0], f)
    for k in range(1, arr.shape[1]):
        acc = combine([acc, MassFunction.from_array(arr[:, k], f)], rule="dempster")
    np.testing.assert_allclose(acc.to_array(), once.to_array(), atol=1e-10)


@pytest.mark.parametrize("eps", [1e-6, 1e-12])
def test_probe2_to_5_near_total_conflict(eps):
    f = Frame("ab")
    a = MassFunction({"a": 1 - eps, "a,b": eps}, frame=f)
    b = MassFunction({"b": 1 - eps, "a,b": eps}, frame=f)
    m, k = combine_with_conflict([a, b], rule="dempster")
    # exact: m(a) = m(b) = (eps - eps^2) / (2 eps - eps^2), m(ab) = eps^2 / (2 eps - eps^2)
    den = 2 * eps - eps**2
    assert m["a"] == pytest.approx((eps - eps**2) / den, rel=1e-9)
    assert m["b"] == pytest.approx((eps - eps**2) / den, rel=1e-9)
    assert m["a,b"] == pytest.approx(eps**2 / den, rel=1e-6)
    assert m.to_array().sum() == pytest.approx(1.0, abs=1e-15)
    assert k == pytest.approx(1 - den, abs=1e-15)


def test_probe6_total_conflict_raises():
    f = Frame("ab")
    with pytest.raises(TotalConflictError):
        combine([MassFunction({"a": 1.0}, frame=f), MassFunction({"b": 1.0}, frame=f)])


def test_probe7_cautious_non_separable():
    f = Frame("ab")
    m1 = MassFunction.from_array([0, 0.5, 0.3, 0.2], f)
    m2 = MassFunction.from_array([0, 0.2, 0.5, 0.3], f)
    got = combine([m1, m2], rule="cautious").to_array()
    np.testing.assert_allclose(got, [0.2619, 0.3571, 0.2381, 0.1429], atol=5e-5)


def test_probe8_cautious_no_nan_at_n15():
    rng = np.random.default_rng(8)
    f = Frame(range(15))
    a = rng.random(2**15) ** 3
    b = rng.random(2**15) ** 3
    A = MassFunction.from_array(a / a.sum(), f)
    B = MassFunction.from_array(b / b.sum(), f)
    got = combine([A, B], rule="cautious").to_array()
    assert np.all(np.isfinite(got)) and np.all(got >= 0)
    assert got.sum() == pytest.approx(1.0, abs=1e-9)
    # idempotence at n = 15
    np.testing.assert_allclose(combine([A, A], rule="cautious").to_array(), A.to_array(), atol=1e-9)


def test_probe9_conjunctive_is_intersection():
    f = Frame("ab")
    m1 = MassFunction({"a": 0.6, "a,b": 0.4}, frame=f)
    m2 = MassFunction({"b": 0.7, "a,b": 0.3}, frame=f)
    got = combine([m1, m2], rule="conjunctive")
    assert got["a,b"] == pytest.approx(0.12)
    assert got[""] == pytest.approx(0.42)
    assert combine([m1, m2], rule="disjunctive")["a,b"] == pytest.approx(1.0)


def test_probe10_11_subnormal_pignistic_and_plausibility():
    m = MassFunction.from_array([0.2, 0.3, 0.1, 0.4], Frame("ab"))
    np.testing.assert_allclose(m.pignistic(), [0.625, 0.375])
    assert m.pl("a") == pytest.approx(0.7)
    np.testing.assert_allclose(m.to_array("pl")[1], 0.7)


def test_binary_combination_reference_values():
    """Raw combination examples of calib-ensemble-anchors.md section 1.4 ([empty, +, -, frame])."""
    f = Frame(("-", "+"))  # bit 0 = '-', bit 1 = '+': index 1 = {-}, 2 = {+}

    def mk(mp, mn, mo):
        return MassFunction.from_array([0, mn, mp, mo], f)

    srcs = [mk(0.6, 0.1, 0.3), mk(0.2, 0.5, 0.3), mk(0.7, 0, 0.3)]
    conj = combine(srcs, rule="conjunctive").to_array()
    np.testing.assert_allclose(conj[[0, 2, 1, 3]], [0.481, 0.423, 0.069, 0.027], atol=1e-12)
    demp = combine(srcs, rule="dempster").to_array()
    np.testing.assert_allclose(demp[[0, 2, 1, 3]], [0, 0.815029, 0.132948, 0.052023], atol=1e-6)
    caut = combine(srcs, rule="cautious").to_array()
    np.testing.assert_allclose(caut[[0, 2, 1, 3]], [0.4375, 0.2625, 0.1875, 0.1125], atol=1e-12)
