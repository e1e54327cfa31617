"""Uncertainty measures against brute force from their definitions (n <= 6).

* nonspecificity, discord, strife, Jiroušek-Shenoy entropy: pure-Python sums
  over focal sets / pairs of focal sets, straight from the papers' formulas;
* aggregate uncertainty: scipy.optimize (SLSQP) maximising Shannon entropy over
  the credal set {p : sum_{x in A} p(x) >= bel(A) for every A}, started from
  several points; the Meyerowitz et al. algorithm must reach at least the
  optimiser's value and its maximiser must lie in the credal set.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import minimize

from dstk import Frame, MassFunction
from dstk.core import (
    aggregate_uncertainty,
    discord,
    jirousek_shenoy_entropy,
    maximum_entropy_probability,
    nonspecificity,
    shannon_entropy,
    strife,
    uncertainty_decomposition,
)
from dstk.exceptions import InvalidMassError


def card(a):
    return bin(a).count("1")


def focal(m_row):
    return [(a, v) for a, v in enumerate(m_row) if a and v > 0]


def ref_nonspecificity(m_row):
    return sum(v * math.log2(card(a)) for a, v in focal(m_row))


def ref_discord(m_row):
    fs = focal(m_row)
    return -sum(v * math.log2(1 - sum(w * card(b & ~a) / card(b) for b, w in fs)) for a, v in fs)


def ref_strife(m_row):
    fs = focal(m_row)
    return -sum(v * math.log2(1 - sum(w * card(a & ~b) / card(a) for b, w in fs)) for a, v in fs)


def ref_js(m_row, n):
    contour = [sum(v for a, v in focal(m_row) if a >> x & 1) for x in range(n)]
    total = sum(contour)
    pl_p = [c / total for c in contour]
    return sum(-p * math.log2(p) for p in pl_p if p > 0) + ref_nonspecificity(m_row)


def bel_of(m_row):
    size = len(m_row)
    return [sum(m_row[b] for b in range(1, size) if b & ~a == 0) for a in range(size)]


def ref_aggregate(m_row, n, starts=4, seed=0):
    """max H(p) over the credal set by SLSQP from several starting points."""
    bel = bel_of(m_row)
    members = [np.array([(a >> x) & 1 for x in range(n)], dtype=float) for a in range(1 << n)]
    constraints = [{"type": "eq", "fun": lambda p: p.sum() - 1.0, "jac": lambda p: np.ones(n)}]
    for a in range(1, (1 << n) - 1):
        if bel[a] > 0:
            constraints.append(
                {
                    "type": "ineq",
                    "fun": lambda p, a=a: members[a] @ p - bel[a],
                    "jac": lambda p, a=a: members[a],
                }
            )

    def negative_entropy(p):
        q = np.clip(p, 1e-300, None)
        return float(np.sum(q * np.log2(q)))

    def gradient(p):
        q = np.clip(p, 1e-12, None)
        return np.log2(q) + 1 / math.log(2)

    rng = np.random.default_rng(seed)
    best = -np.inf
    # feasible start: the pignistic probability; others: random points of the credal set
    start_points = []
    for _ in range(starts):
        p = np.zeros(n)
        for a, v in focal(m_row):
            share = rng.dirichlet(np.ones(card(a)))
            p[[x for x in range(n) if a >> x & 1]] += v * share
        start_points.append(p)
    for p0 in start_points:
        res = minimize(
            negative_entropy,
            p0,
            jac=gradient,
            bounds=[(0, 1)] * n,
            constraints=constraints,
            method="SLSQP",
            options={"ftol": 1e-13, "maxiter": 500},
        )
        p = np.clip(res.x, 0, 1)
        if all(members[a] @ p >= bel[a] - 1e-7 for a in range(1, 1 << n)):
            best = max(best, -negative_entropy(p))
    return best


@st.composite
def normal_masses(draw, n_min=1, n_max=5, batch=3):
    n = draw(st.integers(n_min, n_max))
    size = 2**n
    raw = draw(arrays(np.float64, (batch, size), elements=st.floats(0, 1)))
    raw = raw**3  # many near-zero focal sets
    raw[raw < 1e-6] = 0
    raw[:, 0] = 0
    raw[raw.sum(axis=1) <= 1e-6, -1] = 1
    return MassFunction.from_array(raw / raw.sum(axis=1, keepdims=True), Frame(range(n)))


@settings(max_examples=40, deadline=None)
@given(normal_masses(n_max=6))
def test_measures_against_definitions(m):
    rows = m.to_array()
    n = m.frame.n
    np.testing.assert_allclose(nonspecificity(m), [ref_nonspecificity(r) for r in rows], atol=1e-10)
    np.testing.assert_allclose(discord(m), [ref_discord(r) for r in rows], atol=1e-10)
    np.testing.assert_allclose(strife(m), [ref_strife(r) for r in rows], atol=1e-10)
    np.testing.assert_allclose(jirousek_shenoy_entropy(m), [ref_js(r, n) for r in rows], atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(normal_masses(n_min=2, n_max=5, batch=2))
def test_aggregate_uncertainty_against_convex_optimiser(m):
    rows = m.to_array()
    n = m.frame.n
    au = aggregate_uncertainty(m)
    p = maximum_entropy_probability(m)
    for row, value, prob in zip(rows, au, p):
        bel = bel_of(row)
        # the maximiser is a probability of the credal set
        assert abs(prob.sum() - 1) < 1e-9
        assert all(sum(prob[x] for x in range(n) if a >> x & 1) >= bel[a] - 1e-9 for a in range(1 << n))
        reference = ref_aggregate(row, n)
        assert value >= reference - 1e-6  # nothing in the credal set has larger entropy than the algorithm's
        assert value <= reference + 1e-4  # and the optimiser reaches it


def test_aggregate_uncertainty_n6_against_optimiser():
    rng = np.random.default_rng(3)
    raw = rng.dirichlet(np.full(63, 0.15), size=3)
    m = MassFunction.from_array(np.column_stack([np.zeros(3), raw]), Frame(range(6)))
    for row, value in zip(m.to_array(), aggregate_uncertainty(m)):
        reference = ref_aggregate(row, 6, starts=3)
        assert reference - 1e-6 <= value <= reference + 1e-4


def test_known_values():
    frame = Frame("abcd")
    vacuous = MassFunction.vacuous(frame)
    assert aggregate_uncertainty(vacuous) == pytest.approx(2.0)
    assert nonspecificity(vacuous) == pytest.approx(2.0)
    assert jirousek_shenoy_entropy(vacuous) == pytest.approx(4.0)  # 2 log2 n
    assert discord(vacuous) == 0.0 and strife(vacuous) == 0.0
    p = np.array([0.1, 0.2, 0.3, 0.4])
    bayes = MassFunction(dict(zip("abcd", p)), frame=frame)
    h = -np.sum(p * np.log2(p))
    for f in (aggregate_uncertainty, jirousek_shenoy_entropy, discord, strife):
        assert f(bayes) == pytest.approx(h, abs=1e-12)
    assert nonspecificity(bayes) == 0.0
    # Meyerowitz et al. steps by hand: bel({a})/1 = 0.5 is the largest ratio; then {b, c} share 0.3
    m = MassFunction({"a": 0.5, "b,c": 0.3, "a,b,c,d": 0.2}, frame=frame)
    np.testing.assert_allclose(maximum_entropy_probability(m), [0.5, 0.5 / 3, 0.5 / 3, 0.5 / 3])


def test_decomposition_binary_interval_width():
    """Binary calibrated output: epistemic = Pl - Bel, total = entropy of the point nearest 1/2."""
    bel = np.array([0.1, 0.3, 0.6, 0.0])
    pl = np.array([0.2, 0.8, 0.9, 1.0])
    m = MassFunction.from_array(np.column_stack([np.zeros(4), 1 - pl, bel, pl - bel]), Frame((0, 1)))
    d = uncertainty_decomposition(m)
    np.testing.assert_allclose(d.epistemic, pl - bel, atol=1e-12)
    nearest = np.clip(0.5, bel, pl)
    np.testing.assert_allclose(d.total, shannon_entropy(np.column_stack([1 - nearest, nearest])), atol=1e-12)
    np.testing.assert_allclose(d.total, d.aleatoric + d.epistemic, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(normal_masses(n_max=5), st.sampled_from(["aggregate", "jirousek_shenoy"]))
def test_decomposition_laws(m, measure):
    d = uncertainty_decomposition(m, measure=measure)
    np.testing.assert_allclose(d.total, d.aleatoric + d.epistemic, atol=1e-10)
    assert np.all(np.asarray(d.aleatoric) >= -1e-12) and np.all(np.asarray(d.epistemic) >= 0)
    n = m.frame.n
    bound = math.log2(n) * (1 if measure == "aggregate" else 2)
    assert np.all(np.asarray(d.total) <= bound + 1e-9)
    # AU >= entropy of the pignistic probability (BetP lies in the credal set)
    if measure == "aggregate":
        assert np.all(np.asarray(d.total) >= shannon_entropy(m.pignistic()) - 1e-9)


def test_batch_shapes_and_scalars():
    m = MassFunction.from_array(np.tile([0, 0.2, 0.3, 0.5], (2, 3, 1)), Frame("ab"))
    for f in (aggregate_uncertainty, nonspecificity, discord, strife, jirousek_shenoy_entropy):
        assert np.shape(f(m)) == (2, 3)
        assert isinstance(f(m.batch[0, 0]), float)


def test_large_frame_focal_form():
    frame = Frame(range(20))
    m = MassFunction.from_focal_sets([1, 2, (1 << 20) - 1], [[0.5, 0.3, 0.2]], frame)
    assert nonspecificity(m)[0] == pytest.approx(0.2 * math.log2(20))
    row = {1: 0.5, 2: 0.3, (1 << 20) - 1: 0.2}
    expected = -sum(
        v * math.log2(1 - sum(w * card(b & ~a) / card(b) for b, w in row.items())) for a, v in row.items()
    )
    assert discord(m)[0] == pytest.approx(expected)
    with pytest.raises(Exception, match="at most 16"):
        aggregate_uncertainty(m)


def test_bad_input():
    with pytest.raises(InvalidMassError, match="normalize"):
        aggregate_uncertainty(MassFunction({(): 0.2, "a": 0.8}, frame=Frame("ab")))
    with pytest.raises(TypeError, match="MassFunction"):
        discord(np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="measure"):
        uncertainty_decomposition(MassFunction({"a": 1.0}), measure="entropy")
    with pytest.raises(ValueError, match="sum to one"):
        shannon_entropy([0.5, 0.6])
