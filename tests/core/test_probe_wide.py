"""Probes of mass functions on wide frames (65-1,000 labels) against brute force on frozensets.

Every result is compared with the definition evaluated by an explicit sum over focal sets
(pairs of focal sets for the combinations) in Python: Shafer (1976), Eqs. (2.1), (2.2), (2.3),
(3.1), (3.7), ch. 11; Smets & Kennes (1994), Eq. (3); Dubois & Prade (1986) for the
disjunctive rule; Yager (1987).
"""

import math

import numpy as np
import pytest

from dstk import Frame, MassFunction, combine
from dstk.core import jirousek_shenoy_entropy, maximum_entropy_probability, uncertainty_decomposition
from dstk.exceptions import FrameTooLargeError, InvalidMassError

N_CASES = 60


def _random_mass(rng, n, n_focal, *, empty=False, full=False):
    masses = {}
    for _ in range(n_focal):
        size = int(rng.integers(1, min(n, 8)))
        subset = frozenset(rng.choice(n, size, replace=False).tolist())
        masses[subset] = masses.get(subset, 0.0) + rng.random()
    if empty:
        masses[frozenset()] = rng.random()
    if full:
        masses[frozenset(range(n))] = rng.random()
    total = sum(masses.values())
    return {subset: value / total for subset, value in masses.items()}


def _build(masses, frame):
    keys = list(masses)
    return MassFunction.from_focal_sets(
        [sum(1 << i for i in subset) for subset in keys], [masses[k] for k in keys], frame
    )


def _indices(m, frame):
    out = {}
    for subset, value in m.focal_sets().items():
        key = frozenset(frame.index(label) for label in subset)
        out[key] = out.get(key, 0.0) + value
    return out


def _assert_same(got, expected, tol=1e-12):
    for key in set(got) | set(expected):
        assert abs(got.get(key, 0.0) - expected.get(key, 0.0)) <= tol, (
            sorted(key),
            got.get(key),
            expected.get(key),
        )


def _pairs(a, b, op):
    out = {}
    for s, x in a.items():
        for t, y in b.items():
            key = op(s, t)
            out[key] = out.get(key, 0.0) + x * y
    return out


@pytest.mark.parametrize("case", range(N_CASES))
def test_wide_operations_match_the_definitions(case):
    rng = np.random.default_rng(1000 + case)
    n = int(rng.choice([65, 100, 128, 129, 300, 1000]))
    frame = Frame([f"l{i}" for i in range(n)])
    everything = frozenset(range(n))
    a = _random_mass(rng, n, int(rng.integers(1, 6)), empty=rng.random() < 0.3, full=rng.random() < 0.5)
    b = _random_mass(rng, n, int(rng.integers(1, 6)), full=rng.random() < 0.5)
    ma, mb = _build(a, frame), _build(b, frame)
    _assert_same(_indices(ma, frame), a)
    conjunctive = _pairs(a, b, frozenset.__and__)
    _assert_same(_indices(combine([ma, mb], rule="conjunctive"), frame), conjunctive)
    _assert_same(_indices(combine([ma, mb], rule="disjunctive"), frame), _pairs(a, b, frozenset.__or__))
    kappa = conjunctive.get(frozenset(), 0.0)
    if kappa < 1 - 1e-9:
        dempster = {k: v / (1 - kappa) for k, v in conjunctive.items() if k}
        _assert_same(_indices(combine([ma, mb], rule="dempster"), frame), dempster)
    yager = {k: v for k, v in conjunctive.items() if k}
    yager[everything] = yager.get(everything, 0.0) + kappa
    _assert_same(_indices(combine([ma, mb], rule="yager"), frame), yager)
    average = {}
    for source in (a, b):
        for k, v in source.items():
            average[k] = average.get(k, 0.0) + v / 2
    _assert_same(_indices(combine([ma, mb], rule="average"), frame), average)
    for _ in range(3):
        event = frozenset(rng.choice(n, int(rng.integers(1, 10)), replace=False).tolist())
        labels = [frame.labels[i] for i in sorted(event)]
        assert abs(ma.bel(labels) - sum(v for k, v in a.items() if k and k <= event)) <= 1e-12
        assert abs(ma.pl(labels) - sum(v for k, v in a.items() if k & event)) <= 1e-12
        assert abs(ma.q(labels) - sum(v for k, v in a.items() if event <= k)) <= 1e-12
    nonempty = sum(v for k, v in a.items() if k)
    betp, contour = np.zeros(n), np.zeros(n)
    for k, v in a.items():
        for i in k:
            betp[i] += v / len(k) / nonempty
            contour[i] += v
    np.testing.assert_allclose(ma.pignistic(), betp, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ma.contour(), contour, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ma.plausibility_transform(), contour / contour.sum(), rtol=0, atol=1e-12)
    if (
        a.get(frozenset(), 0.0) > 1e-9
    ):  # defined for normalised mass functions only, as dstk.core.nonspecificity
        with pytest.raises(InvalidMassError, match="empty set"):
            ma.nonspecificity()
    else:
        assert abs(ma.nonspecificity() - sum(v * math.log2(len(k)) for k, v in a.items() if k)) <= 1e-12
    rate = rng.random()
    discounted = {k: v * (1 - rate) for k, v in a.items()}
    discounted[everything] = discounted.get(everything, 0.0) + rate
    _assert_same(_indices(ma.discount(rate), frame), discounted)
    event = frozenset(rng.choice(n, int(rng.integers(1, n)), replace=False).tolist())
    restricted = {}
    for k, v in a.items():
        restricted[k & event] = restricted.get(k & event, 0.0) + v
    labels = [frame.labels[i] for i in event]
    _assert_same(_indices(ma.condition(labels, normalize=False), frame), restricted)
    lost = restricted.pop(frozenset(), 0.0)
    if lost < 1 - 1e-9:
        total = sum(restricted.values())
        _assert_same(_indices(ma.condition(labels), frame), {k: v / total for k, v in restricted.items()})


@pytest.mark.parametrize("case", range(10))
def test_wide_results_do_not_depend_on_the_order_of_the_labels(case):
    rng = np.random.default_rng(2000 + case)
    n = 150
    labels = [f"l{i}" for i in range(n)]
    a, b = _random_mass(rng, n, 4, full=True), _random_mass(rng, n, 4)
    order = rng.permutation(n)
    frame, shuffled = Frame(labels), Frame([labels[i] for i in order])

    def rebuild(masses, target):
        return _build({frozenset(target.index(labels[i]) for i in k): v for k, v in masses.items()}, target)

    one = combine([rebuild(a, frame), rebuild(b, frame)], rule="dempster")
    other = combine([rebuild(a, shuffled), rebuild(b, shuffled)], rule="dempster")
    _assert_same(one.focal_sets(), other.focal_sets())
    p_one = dict(zip(frame.labels, one.pignistic()))
    p_other = dict(zip(shuffled.labels, other.pignistic()))
    for label in labels:
        assert abs(p_one[label] - p_other[label]) <= 1e-12


def test_wide_batch_equals_row_by_row():
    rng = np.random.default_rng(7)
    n = 200
    frame = Frame(range(n))
    focal = [sum(1 << int(i) for i in rng.choice(n, 3, replace=False)) for _ in range(5)] + [(1 << n) - 1]
    masses = rng.dirichlet(np.ones(6), size=4)
    other = MassFunction.from_focal_sets(focal[::-1], rng.dirichlet(np.ones(6)), frame)
    batch = MassFunction.from_focal_sets(focal, masses, frame)
    combined = combine([batch, other], rule="dempster")
    for row in range(4):
        single = combine([MassFunction.from_focal_sets(focal, masses[row], frame), other], rule="dempster")
        _assert_same(combined.batch[row].focal_sets(), single.focal_sets(), tol=1e-15)
        np.testing.assert_allclose(combined.pignistic()[row], single.pignistic(), rtol=0, atol=1e-15)


@pytest.mark.parametrize(
    "call",
    [
        maximum_entropy_probability,
        lambda m: uncertainty_decomposition(m, measure="aggregate"),
    ],
)
def test_aggregate_uncertainty_on_a_wide_frame_names_what_works(call):
    m = MassFunction.from_focal_sets([0b11, 1 << 80, (1 << 100) - 1], [0.5, 0.3, 0.2], Frame(range(100)))
    with pytest.raises(FrameTooLargeError, match="jirousek_shenoy"):
        call(m)
    decomposition = uncertainty_decomposition(m, measure="jirousek_shenoy")
    assert decomposition.total == pytest.approx(jirousek_shenoy_entropy(m), abs=1e-12)


def test_an_empty_batch_on_a_wide_frame_is_an_empty_batch():
    m = MassFunction.from_focal_sets([1, 2], np.zeros((0, 2)), Frame(range(100)))
    assert m.batch_shape == (0,)
    assert m.pignistic().shape == (0, 100)
