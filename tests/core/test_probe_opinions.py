"""Probes of subjective-logic opinions: multi-source fusion and extreme logits.

The references are written from the definitions: the fusion operators in
evidence form (Jøsang 2016, Secs. 12.5-12.7: cumulative fusion adds the
evidence vectors, averaging fusion averages them, weighted fusion averages the
beliefs with weights the confidences ``1 - u``), evaluated with exact rationals.
"""

import pickle
from fractions import Fraction
from itertools import permutations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk import Opinion, fuse_opinions, trust_discount


def _opinion(evidence, base_rate):
    return Opinion.from_evidence(np.array(evidence, dtype=float), base_rate=np.array(base_rate, dtype=float))


def _exact(evidence, base_rate, operator):
    """Fused (b, u, a) from evidence vectors with Fractions (prior weight W = K, all u > 0)."""
    k = len(evidence[0])
    w = Fraction(k)
    r = [[Fraction(x) for x in e] for e in evidence]
    a = [[Fraction(x) for x in row] for row in base_rate]
    n = len(r)
    u_src = [w / (w + sum(e)) for e in r]
    b_src = [[x / (w + sum(e)) for x in e] for e in r]
    if operator in ("cumulative", "averaging"):
        total = [sum(e[i] for e in r) for i in range(k)]
        if operator == "averaging":
            total = [t / n for t in total]
        s = w + sum(total)
        b, u = [t / s for t in total], w / s
        if operator == "averaging":
            base = [sum(row[i] for row in a) / n for i in range(k)]
        else:  # weights (1 - u_A) / u_A: the evidence each source holds
            weights = [(1 - ua) / ua for ua in u_src]
            base = [sum(wt * row[i] for wt, row in zip(weights, a)) / sum(weights) for i in range(k)]
        return b, u, base
    # weighted: beliefs with weights c_A / u_A, u = sum c_A / sum (c_A / u_A)
    c = [1 - ua for ua in u_src]
    v = [ca / ua for ca, ua in zip(c, u_src)]
    b = [sum(vi * bs[i] for vi, bs in zip(v, b_src)) / sum(v) for i in range(k)]
    u = sum(c) / sum(v)
    base = [sum(ci * row[i] for ci, row in zip(c, a)) / sum(c) for i in range(k)]
    return b, u, base


EVIDENCE = [[2, 0, 1], [0, 3, 1], [5, 1, 0], [1, 1, 1]]
BASE = [[0.2, 0.3, 0.5], [0.5, 0.25, 0.25], [0.125, 0.375, 0.5], [0.25, 0.25, 0.5]]


@pytest.mark.parametrize("operator", ["cumulative", "averaging", "weighted"])
@pytest.mark.parametrize("n_sources", [3, 4])
def test_multi_source_fusion_matches_the_closed_form_in_any_order(operator, n_sources):
    evidence, base = EVIDENCE[:n_sources], BASE[:n_sources]
    b, u, a = _exact(evidence, base, operator)
    for order in permutations(range(n_sources)):
        fused = fuse_opinions([_opinion(evidence[i], base[i]) for i in order], operator=operator)
        np.testing.assert_allclose(fused.belief, [float(x) for x in b], rtol=0, atol=1e-14)
        np.testing.assert_allclose(fused.uncertainty, float(u), rtol=0, atol=1e-14)
        np.testing.assert_allclose(fused.base_rate, [float(x) for x in a], rtol=0, atol=1e-14)


@pytest.mark.parametrize("operator", ["cumulative", "averaging", "weighted"])
def test_dogmatic_sources_weigh_equally_in_any_order(operator):
    # equal relative dogmatism (Jøsang 2016, Sec. 12.5): the mean of the dogmatic beliefs
    sources = [Opinion(np.eye(3)[i], 0.0) for i in range(3)]
    for order in permutations(range(3)):
        fused = fuse_opinions([sources[i] for i in order], operator=operator)
        np.testing.assert_allclose(fused.belief, [1 / 3] * 3, rtol=0, atol=1e-15)
        assert float(fused.uncertainty) == 0.0


@pytest.mark.parametrize("operator", ["cumulative", "averaging", "weighted"])
def test_dogmatic_sources_dominate_the_others(operator):
    dogmatic = [Opinion([1.0, 0.0], 0.0), Opinion([0.0, 1.0], 0.0)]
    other = Opinion.from_evidence([0.0, 7.0])
    fused = fuse_opinions([dogmatic[0], other, dogmatic[1]], operator=operator)
    np.testing.assert_allclose(fused.belief, [0.5, 0.5], rtol=0, atol=1e-15)
    assert float(fused.uncertainty) == 0.0


def test_belief_constraint_base_rate_does_not_depend_on_the_order():
    sources = [_opinion(e, a) for e, a in zip(EVIDENCE[:3], BASE[:3])]
    c = [1 - float(s.uncertainty) for s in sources]
    expected = sum(ci * np.array(a) for ci, a in zip(c, BASE[:3])) / sum(c)
    for order in permutations(range(3)):
        fused = fuse_opinions([sources[i] for i in order], operator="belief_constraint")
        np.testing.assert_allclose(fused.base_rate, expected, rtol=0, atol=1e-14)


@settings(max_examples=60, deadline=None)
@given(
    evidence=st.lists(
        st.lists(st.floats(0, 50, allow_subnormal=False), min_size=3, max_size=3), min_size=3, max_size=5
    ),
    operator=st.sampled_from(["cumulative", "averaging", "weighted", "belief_constraint"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_fusion_is_invariant_to_the_order_of_the_sources(evidence, operator, seed):
    sources = [Opinion.from_evidence(e) for e in evidence]
    order = np.random.default_rng(seed).permutation(len(sources))
    try:
        one = fuse_opinions(sources, operator=operator)
    except Exception as error:  # total conflict: the same in every order
        with pytest.raises(type(error)):
            fuse_opinions([sources[i] for i in order], operator=operator)
        return
    other = fuse_opinions([sources[i] for i in order], operator=operator)
    np.testing.assert_allclose(one.belief, other.belief, rtol=0, atol=1e-12)
    np.testing.assert_allclose(one.uncertainty, other.uncertainty, rtol=0, atol=1e-12)
    np.testing.assert_allclose(one.base_rate, other.base_rate, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    ("logits", "expected"),
    [
        # b_k = exp(z_k) / (sum_j exp(z_j) + W), u = W / (...): written out with the largest logit factored
        ([800.0, 700.0], [1 / (1 + np.exp(-100.0)), np.exp(-100.0) / (1 + np.exp(-100.0))]),
        ([710.0, 710.0, 0.0], [0.5, 0.5, 0.0]),
        ([1000.0, 0.0], [1.0, 0.0]),
    ],
)
def test_exp_evidence_of_large_logits_keeps_their_ratios(logits, expected):
    opinion = Opinion.from_evidence(logits, activation="exp")
    np.testing.assert_allclose(opinion.belief, expected, rtol=1e-12, atol=1e-300)
    assert 0.0 <= float(opinion.uncertainty) < 1e-300


def test_exp_evidence_of_many_large_logits_does_not_overflow():
    opinion = Opinion.from_evidence(np.full((2, 500), 709.0), activation="exp")
    np.testing.assert_allclose(opinion.belief, 1 / 500, rtol=1e-12)
    assert np.all(np.isfinite(opinion.uncertainty))


def test_exp_evidence_of_an_infinite_logit_is_its_limit():
    opinion = Opinion.from_evidence([np.inf, 3.0, -np.inf], activation="exp")
    np.testing.assert_array_equal(opinion.belief, [1.0, 0.0, 0.0])
    assert float(opinion.uncertainty) == 0.0


@pytest.mark.parametrize("activation", ["identity", "relu", "softplus"])
def test_huge_evidence_does_not_overflow_its_total(activation):
    opinion = Opinion.from_evidence([1e308, 1e308, 0.0], activation=activation)
    np.testing.assert_allclose(opinion.belief, [0.5, 0.5, 0.0], rtol=1e-12, atol=1e-300)
    assert float(opinion.uncertainty) < 1e-300


@pytest.mark.parametrize(
    ("attribute", "value"),
    [
        ("belief", np.array([2.0, -1.0])),
        ("belief", np.array([np.nan, 0.5])),
        ("uncertainty", np.array(0.9)),
        ("base_rate", np.array([0.9, 0.9])),
        ("prior_weight", -1.0),
    ],
)
def test_a_tampered_pickled_opinion_is_refused(attribute, value):
    opinion = Opinion([0.5, 0.2], 0.3)
    setattr(opinion, attribute, value)
    with pytest.raises(ValueError):
        pickle.loads(pickle.dumps(opinion))


def test_a_pickled_opinion_round_trips_exactly():
    opinion = Opinion.from_evidence([[3.0, 1.0, 0.0], [0.5, 0.25, 7.0]], base_rate=[0.5, 0.25, 0.25])
    restored = pickle.loads(pickle.dumps(opinion))
    for name in ("belief", "uncertainty", "base_rate"):
        np.testing.assert_array_equal(getattr(restored, name), getattr(opinion, name))
    assert restored.prior_weight == opinion.prior_weight


@pytest.mark.parametrize(
    "call",
    [
        lambda: fuse_opinions(
            [Opinion(np.full((2, 2), 0.25), np.full(2, 0.5)), Opinion(np.full((3, 2), 0.25), np.full(3, 0.5))]
        ),
        lambda: fuse_opinions(
            [Opinion(np.full((2, 2), 0.25), np.full(2, 0.5))] * 2
            + [Opinion(np.full((3, 2), 0.25), np.full(3, 0.5))]
        ),
        lambda: trust_discount(Opinion(np.full((2, 2), 0.25), np.full(2, 0.5)), [0.2, 0.5, 0.3]),
        lambda: Opinion(np.full((2, 2), 0.25), np.full(2, 0.5), base_rate=np.full((3, 2), 0.5)),
    ],
)
def test_batches_that_do_not_broadcast_are_named(call):
    # numpy's "operands could not be broadcast together with shapes (2,1) (3,1)" before
    with pytest.raises(ValueError, match=r"batch shapes .* do not broadcast"):
        call()
