"""Subjective-logic opinions against Jøsang's closed forms (Subjective Logic, 2016) and dstk's own rules."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk import MassFunction, Opinion, combine, discount, fuse_opinions, trust_discount
from dstk.core._frame import Frame


def random_opinion(rng, k, dogmatic=False):
    e = rng.gamma(1.0, 3.0, size=k) * (rng.random(k) < 0.8)
    a = rng.dirichlet(np.ones(k))
    if dogmatic:
        b = rng.dirichlet(np.ones(k))
        return Opinion(b, 0.0, base_rate=a)
    return Opinion.from_evidence(e, base_rate=a)


# closed forms written out per class with Python scalars (Jøsang 2016, Ch. 12)
def cumulative(x, y):
    bx, by, ux, uy, ax, ay = (
        x.belief,
        y.belief,
        float(x.uncertainty),
        float(y.uncertainty),
        x.base_rate,
        y.base_rate,
    )
    k = bx.size
    d = ux + uy - ux * uy
    b = [(bx[i] * uy + by[i] * ux) / d for i in range(k)]
    a = [(ax[i] * uy + ay[i] * ux - (ax[i] + ay[i]) * ux * uy) / (ux + uy - 2 * ux * uy) for i in range(k)]
    return b, ux * uy / d, a


def averaging(x, y):
    bx, by, ux, uy = x.belief, y.belief, float(x.uncertainty), float(y.uncertainty)
    return [(bx[i] * uy + by[i] * ux) / (ux + uy) for i in range(bx.size)], 2 * ux * uy / (ux + uy)


def weighted(x, y):
    bx, by, ux, uy, ax, ay = (
        x.belief,
        y.belief,
        float(x.uncertainty),
        float(y.uncertainty),
        x.base_rate,
        y.base_rate,
    )
    d = ux + uy - 2 * ux * uy
    b = [(bx[i] * (1 - ux) * uy + by[i] * (1 - uy) * ux) / d for i in range(bx.size)]
    a = [(ax[i] * (1 - ux) + ay[i] * (1 - uy)) / (2 - ux - uy) for i in range(bx.size)]
    return b, (2 - ux - uy) * ux * uy / d, a


def belief_constraint(x, y):
    bx, by, ux, uy = x.belief, y.belief, float(x.uncertainty), float(y.uncertainty)
    k = bx.size
    con = sum(bx[i] * by[j] for i in range(k) for j in range(k) if i != j)
    b = [(bx[i] * by[i] + bx[i] * uy + by[i] * ux) / (1 - con) for i in range(k)]
    return b, ux * uy / (1 - con)


def test_uniform_dirichlet_is_vacuous():
    for k in (2, 3, 10, 100):
        o = Opinion.from_dirichlet(np.ones(k))
        assert float(o.uncertainty) == 1.0 and np.all(o.belief == 0)
        np.testing.assert_allclose(o.projected_probability(), np.full(k, 1 / k), rtol=0, atol=1e-15)


def test_uncertainty_is_k_over_s_and_beliefs_are_evidence_over_s():
    rng = np.random.default_rng(0)
    alpha = 1 + rng.gamma(0.5, 4.0, size=(200, 7))
    o = Opinion.from_dirichlet(alpha)
    s = alpha.sum(-1)
    np.testing.assert_allclose(o.uncertainty, 7 / s, rtol=1e-13)
    np.testing.assert_allclose(o.belief, (alpha - 1) / s[:, None], rtol=1e-13, atol=1e-16)
    # the Dirichlet mean is the projected probability (uniform base rate, W = K)
    np.testing.assert_allclose(o.projected_probability(), alpha / s[:, None], rtol=1e-13)
    m = MassFunction.from_dirichlet(alpha[0], frame=list("abcdefg"))
    assert m.frame.labels == tuple("abcdefg")
    np.testing.assert_allclose(m.pignistic(), alpha[0] / s[0], rtol=1e-12)  # BetP = projected probability


def test_evidence_maps_of_logits():
    logits = np.array([[-2.0, 0.0, 3.0]])
    for activation, evidence in {
        "relu": [0.0, 0.0, 3.0],
        "exp": np.exp([-2.0, 0.0, 3.0]),
        "softplus": np.log1p(np.exp([-2.0, 0.0, 3.0])),
    }.items():
        o = Opinion.from_evidence(logits, activation=activation)
        total = np.sum(evidence) + 3
        np.testing.assert_allclose(o.belief[0], np.asarray(evidence) / total, rtol=1e-13)
        np.testing.assert_allclose(o.uncertainty[0], 3 / total, rtol=1e-13)
    with pytest.raises(ValueError, match="non-negative"):
        Opinion.from_evidence(logits)
    with pytest.raises(ValueError, match="activation"):
        Opinion.from_evidence(logits, activation="sigmoid")
    with pytest.raises(ValueError, match="prior_weight"):
        Opinion.from_evidence([1.0, 2.0], prior_weight=0.0)
    with pytest.raises(ValueError, match="alpha"):
        Opinion.from_dirichlet([0.5, 2.0])


@pytest.mark.parametrize("k", [2, 3, 6])
def test_fusion_operators_equal_closed_forms(k):
    rng = np.random.default_rng(k)
    for _ in range(50):
        x, y = random_opinion(rng, k), random_opinion(rng, k)
        fused = fuse_opinions([x, y], operator="cumulative")
        b, u, a = cumulative(x, y)
        np.testing.assert_allclose(fused.belief, b, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(fused.uncertainty, u, rtol=1e-12)
        np.testing.assert_allclose(fused.base_rate, a, rtol=1e-12)
        # cumulative fusion adds the evidence vectors (same base rate, same prior weight)
        same = Opinion(y.belief, y.uncertainty, base_rate=x.base_rate)
        np.testing.assert_allclose(
            fuse_opinions([x, same]).evidence(), x.evidence() + same.evidence(), rtol=1e-10, atol=1e-12
        )
        fused = fuse_opinions([x, y], operator="averaging")
        b, u = averaging(x, y)
        np.testing.assert_allclose(fused.belief, b, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(fused.uncertainty, u, rtol=1e-12)
        np.testing.assert_allclose(
            fused.evidence(), (x.evidence() + y.evidence()) / 2, rtol=1e-10, atol=1e-12
        )
        fused = fuse_opinions([x, y], operator="weighted")
        b, u, a = weighted(x, y)
        np.testing.assert_allclose(fused.belief, b, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(fused.uncertainty, u, rtol=1e-12)
        np.testing.assert_allclose(fused.base_rate, a, rtol=1e-12)
        fused = fuse_opinions([x, y], operator="belief_constraint")
        b, u = belief_constraint(x, y)
        np.testing.assert_allclose(fused.belief, b, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(fused.uncertainty, u, rtol=1e-12)


def test_belief_constraint_is_dempster_and_trust_discounting_is_discount():
    rng = np.random.default_rng(5)
    frame = Frame(list("abcd"))
    for _ in range(50):
        x, y = random_opinion(rng, 4), random_opinion(rng, 4)
        fused = fuse_opinions([x, y], operator="belief_constraint").to_mass(frame)
        dempster = combine([x.to_mass(frame), y.to_mass(frame)], rule="dempster")
        np.testing.assert_allclose(fused.to_array("m"), dempster.to_array("m"), atol=1e-12)
        p = float(rng.random())
        np.testing.assert_allclose(
            trust_discount(x, p).to_mass(frame).to_array("m"),
            discount(x.to_mass(frame), 1 - p).to_array("m"),
            atol=1e-14,
        )


def test_dogmatic_and_vacuous_limits():
    rng = np.random.default_rng(9)
    x, y = random_opinion(rng, 3, dogmatic=True), random_opinion(rng, 3, dogmatic=True)
    for operator in ("cumulative", "averaging", "weighted"):
        fused = fuse_opinions([x, y], operator=operator)
        np.testing.assert_allclose(fused.belief, (x.belief + y.belief) / 2)
        assert float(fused.uncertainty) == 0.0
    vacuous = Opinion.from_evidence(np.zeros(3))
    for operator in ("cumulative", "averaging", "weighted", "belief_constraint"):
        fused = fuse_opinions([vacuous, vacuous], operator=operator)
        assert float(fused.uncertainty) == 1.0
    # a vacuous opinion is the neutral element of cumulative and belief-constraint fusion
    z = random_opinion(rng, 3)
    for operator in ("cumulative", "belief_constraint"):
        np.testing.assert_allclose(
            fuse_opinions([z, vacuous], operator=operator).belief, z.belief, atol=1e-15
        )


def test_large_frames_stay_vectors():
    alpha = np.ones(1000)
    alpha[3] = 51.0
    o = Opinion.from_dirichlet(alpha)
    assert o.belief.shape == (1000,) and float(o.uncertainty) == pytest.approx(1000 / 1050)


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**31 - 1))
def test_fusion_laws(k, seed):
    rng = np.random.default_rng(seed)
    x, y, z = (random_opinion(rng, k) for _ in range(3))
    for operator in ("cumulative", "averaging", "weighted", "belief_constraint"):
        xy = fuse_opinions([x, y], operator=operator)
        yx = fuse_opinions([y, x], operator=operator)
        np.testing.assert_allclose(xy.belief, yx.belief, atol=1e-12)  # commutative
        np.testing.assert_allclose(xy.belief.sum() + xy.uncertainty, 1.0, atol=1e-12)
    # cumulative fusion is associative (evidence adds up)
    left = fuse_opinions([fuse_opinions([x, y]), z])
    right = fuse_opinions([x, fuse_opinions([y, z])])
    np.testing.assert_allclose(left.belief, right.belief, atol=1e-12)
    np.testing.assert_allclose(left.uncertainty, right.uncertainty, atol=1e-12)
    # averaging an opinion with itself leaves it unchanged (idempotent)
    np.testing.assert_allclose(fuse_opinions([x, x], operator="averaging").belief, x.belief, atol=1e-12)
