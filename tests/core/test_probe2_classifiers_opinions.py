"""Second probe of subjective logic: Jøsang (2016) written out in exact rationals, Sensoy et al. (2018).

The fusion references are the multi-source product forms of Jøsang (2016), Ch. 12 (cumulative Sec. 12.5,
averaging Sec. 12.6, weighted Sec. 12.7) in ``fractions.Fraction``, and belief-constraint fusion as
Dempster's rule summed over pairs of focal sets (Sec. 12.3); no dstk code is used in the references.
"""

from fractions import Fraction
from math import prod

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk.core import Opinion, fuse_opinions, trust_discount
from dstk.core._opinions import ACTIVATIONS, FUSION_OPERATORS


@st.composite
def _rational_opinion(draw, k):
    """Beliefs and uncertainty in multiples of 1/64, u > 0; a base rate in multiples of 1/16."""
    parts = draw(st.lists(st.integers(0, 16), min_size=k + 1, max_size=k + 1))
    parts[-1] += 1  # u > 0
    total = sum(parts)
    masses = [Fraction(p, total) for p in parts]
    rates = draw(st.lists(st.integers(0, 8), min_size=k, max_size=k))
    rates[0] += 1
    base = [Fraction(r, sum(rates)) for r in rates]
    return masses[:-1], masses[-1], base


def _josang(sources, operator):
    n, k = len(sources), len(sources[0][0])
    u = [s[1] for s in sources]
    others = [prod(u[:i] + u[i + 1 :]) for i in range(n)]
    every = prod(u)
    if operator == "cumulative":
        d = sum(others) - (n - 1) * every
        b = [sum(s[0][x] * o for s, o in zip(sources, others)) / d for x in range(k)]
        a_num = [sum(s[2][x] * (o - every) for s, o in zip(sources, others)) for x in range(k)]
        a_den = sum(others) - n * every
        a = [v / a_den for v in a_num] if a_den else [sum(s[2][x] for s in sources) / n for x in range(k)]
        return b, every / d, a
    if operator == "averaging":
        d = sum(others)
        b = [sum(s[0][x] * o for s, o in zip(sources, others)) / d for x in range(k)]
        return b, n * every / d, [sum(s[2][x] for s in sources) / n for x in range(k)]
    if operator == "weighted":
        d = sum(others) - n * every
        if d == 0:  # every source vacuous
            return [Fraction(0)] * k, Fraction(1), [sum(s[2][x] for s in sources) / n for x in range(k)]
        b = [sum(s[0][x] * (1 - s[1]) * o for s, o in zip(sources, others)) / d for x in range(k)]
        conf = n - sum(u)
        a = [sum(s[2][x] * (1 - s[1]) for s in sources) / conf for x in range(k)]
        return b, (n - sum(u)) * every / d, a
    # belief constraint: Dempster's rule on singletons (bits) and the frame
    frame = (1 << k) - 1

    def masses(s):
        m = {1 << x: s[0][x] for x in range(k) if s[0][x]}
        m[frame] = m.get(frame, 0) + s[1]
        return m

    m = masses(sources[0])
    for s in sources[1:]:
        out = {}
        for a1, v1 in m.items():
            for a2, v2 in masses(s).items():
                out[a1 & a2] = out.get(a1 & a2, 0) + v1 * v2
        conflict = out.pop(0, 0)
        m = {key: v / (1 - conflict) for key, v in out.items()}
    conf = [1 - s[1] for s in sources]
    a = (
        [sum(s[2][x] * c for s, c in zip(sources, conf)) / sum(conf) for x in range(k)]
        if sum(conf)
        else [sum(s[2][x] for s in sources) / n for x in range(k)]
    )
    return [m.get(1 << x, Fraction(0)) for x in range(k)], m.get(frame, Fraction(0)), a


@settings(max_examples=200, deadline=None)
@given(data=st.data(), k=st.integers(2, 4), n=st.integers(2, 4), operator=st.sampled_from(FUSION_OPERATORS))
def test_fusion_matches_josang_in_exact_rationals(data, k, n, operator):
    sources = [data.draw(_rational_opinion(k)) for _ in range(n)]
    opinions = [
        Opinion([float(v) for v in b], float(u), base_rate=[float(v) for v in a]) for b, u, a in sources
    ]
    fused = fuse_opinions(opinions, operator=operator)
    b, u, a = _josang(sources, operator)
    np.testing.assert_allclose(fused.belief, [float(v) for v in b], rtol=0, atol=1e-12)
    np.testing.assert_allclose(fused.uncertainty, float(u), rtol=0, atol=1e-12)
    np.testing.assert_allclose(fused.base_rate, [float(v) for v in a], rtol=0, atol=1e-12)
    # the order of the sources does not matter
    again = fuse_opinions(opinions[::-1], operator=operator)
    np.testing.assert_allclose(again.belief, fused.belief, rtol=0, atol=1e-12)
    np.testing.assert_allclose(again.uncertainty, fused.uncertainty, rtol=0, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(
    logits=st.lists(st.floats(-50, 50), min_size=2, max_size=6),
    activation=st.sampled_from(ACTIVATIONS),
)
def test_evidence_maps_match_sensoy_2018(logits, activation):
    z = np.array(logits)
    if activation == "identity":
        z = np.abs(z)
    evidence = {
        "identity": z,
        "relu": np.maximum(z, 0.0),
        "exp": np.exp(z),
        "softplus": np.log1p(np.exp(z)),
    }[activation]
    alpha = evidence + 1.0  # Sensoy et al. (2018): alpha_k = e_k + 1, u = K / S, b_k = e_k / S
    strength = alpha.sum()
    o = Opinion.from_evidence(z, activation=activation)
    np.testing.assert_allclose(o.belief, evidence / strength, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(o.uncertainty, z.size / strength, rtol=1e-12, atol=1e-15)
    d = Opinion.from_dirichlet(alpha)
    np.testing.assert_allclose(d.belief, o.belief, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(o.projected_probability().sum(), 1.0, atol=1e-12)


def test_trust_discount_hand_case_josang_sec_14_3():
    advice = Opinion([0.6, 0.3, 0.0], 0.1, base_rate=[0.2, 0.3, 0.5])
    out = trust_discount(advice, 0.25)
    np.testing.assert_allclose(out.belief, [0.15, 0.075, 0.0], atol=1e-15)
    np.testing.assert_allclose(out.uncertainty, 1 - 0.225, atol=1e-15)
    np.testing.assert_array_equal(out.base_rate, advice.base_rate)


@pytest.mark.parametrize("operator", FUSION_OPERATORS)
def test_fusion_of_different_prior_weights_is_refused(operator):
    x = Opinion.from_evidence([2.0, 0.0], prior_weight=2)
    y = Opinion.from_evidence([0.0, 2.0], prior_weight=10)
    # before: evidence [2, 0.4] in one order and [10, 2] in the other
    with pytest.raises(ValueError, match="must share one prior weight W"):
        fuse_opinions([x, y], operator=operator)
    with pytest.raises(ValueError, match="must share one prior weight W"):
        fuse_opinions([y, x, x], operator=operator)


def test_fusion_with_one_explicit_prior_weight_sums_the_evidence():
    x = Opinion.from_evidence([2.0, 0.0, 1.0], prior_weight=5)
    y = Opinion.from_evidence([0.5, 2.0, 0.0], prior_weight=5)
    np.testing.assert_allclose(fuse_opinions([x, y]).evidence(), [2.5, 2.0, 1.0], rtol=1e-12)
    np.testing.assert_allclose(fuse_opinions([y, x]).evidence(), [2.5, 2.0, 1.0], rtol=1e-12)


@pytest.mark.parametrize(
    "make",
    [
        lambda w: Opinion([0.5, 0.2], 0.3, prior_weight=w),
        lambda w: Opinion.from_evidence([1.0, 2.0], prior_weight=w),
        lambda w: Opinion.from_dirichlet([3.0, 2.0], prior_weight=w),
    ],
)
@pytest.mark.parametrize("weight", [True, np.bool_(True)])
def test_prior_weight_bool_is_refused(make, weight):
    # before: True was taken as W = 1, a fraction of the default W = K
    with pytest.raises(ValueError, match="`prior_weight` must be a positive number"):
        make(weight)


def test_opinion_from_mass_on_one_label_says_what_is_wrong():
    from dstk import Frame, MassFunction

    # before: "`belief` must have shape batch + (K,) with K >= 2 ...", about an argument never passed
    m = MassFunction.from_array(np.array([0.0, 1.0]), Frame(["a"]))
    with pytest.raises(ValueError, match="An opinion needs at least 2 classes; `m` is on a frame of 1 label"):
        Opinion.from_mass(m)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(2, 4),
    n=st.integers(2, 4),
    operator=st.sampled_from(["cumulative", "averaging", "weighted"]),
)
def test_dogmatic_fusion_is_the_limit_of_equal_relative_dogmatism(seed, k, n, operator):
    """Jøsang (2016), Sec. 12.5: dogmatic sources fuse as the limit u -> 0 with equal rates."""
    rng = np.random.default_rng(seed)
    exact, near = [], []
    for _ in range(n):
        m = rng.dirichlet(np.ones(k + 1))
        a = rng.dirichlet(np.ones(k))
        b = m[:k] / m[:k].sum()
        if rng.random() < 0.5:
            exact.append(Opinion(b, 0.0, base_rate=a))
            near.append(Opinion(b * (1 - 1e-12), 1e-12, base_rate=a))
        else:  # u >= 0.05: the limit is reached at a rate of about 1e-12 / u
            u = 0.05 + 0.9 * m[k]
            exact.append(Opinion(b * (1 - u), u, base_rate=a))
            near.append(exact[-1])
    f, g = fuse_opinions(exact, operator=operator), fuse_opinions(near, operator=operator)
    np.testing.assert_allclose(f.belief, g.belief, atol=1e-6)
    np.testing.assert_allclose(f.uncertainty, g.uncertainty, atol=1e-6)
