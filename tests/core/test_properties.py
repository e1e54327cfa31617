"""Hypothesis property tests of the algebraic laws of the combination rules."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dstk import Frame, MassFunction, combine

settings.register_profile("dstk", max_examples=60, deadline=None)
settings.load_profile("dstk")


@st.composite
def masses(draw, n=None, non_dogmatic=False, normal=False, subnormal=False):
    n = draw(st.integers(1, 4)) if n is None else n
    size = 2**n
    raw = draw(arrays(np.float64, size, elements=st.floats(0, 1)))
    raw = raw**2
    if normal:
        raw[0] = 0
    if non_dogmatic:
        raw[-1] = max(raw[-1], 0.05)
    if subnormal:
        raw[0] = max(raw[0], 0.05)
    if raw.sum() <= 1e-6:
        raw[-1] = 1
    return MassFunction.from_array(raw / raw.sum(), Frame(range(n)))


@st.composite
def mass_pairs(draw, k=2, **kw):
    n = draw(st.integers(1, 4))
    return [draw(masses(n=n, **kw)) for _ in range(k)]


def close(a, b, atol=1e-9):
    np.testing.assert_allclose(a.to_array(), b.to_array(), atol=atol)


@pytest.mark.parametrize("rule", ["conjunctive", "disjunctive", "yager", "dubois_prade", "average"])
@given(data=st.data())
def test_commutative(rule, data):
    a, b = data.draw(mass_pairs())
    close(combine([a, b], rule=rule), combine([b, a], rule=rule))


@given(ms=mass_pairs(non_dogmatic=True))
def test_cautious_commutative(ms):
    a, b = ms
    close(combine([a, b], rule="cautious"), combine([b, a], rule="cautious"))


@pytest.mark.parametrize("rule", ["conjunctive", "disjunctive"])
@given(data=st.data())
def test_associative(rule, data):
    a, b, c = data.draw(mass_pairs(k=3))
    left = combine([combine([a, b], rule=rule), c], rule=rule)
    right = combine([a, combine([b, c], rule=rule)], rule=rule)
    close(left, right)
    close(left, combine([a, b, c], rule=rule))


@given(ms=mass_pairs(k=3, non_dogmatic=True, normal=True))
def test_dempster_associative(ms):
    a, b, c = ms
    left = combine([combine([a, b]), c])
    right = combine([a, combine([b, c])])
    close(left, right, atol=1e-8)
    close(left, combine([a, b, c]), atol=1e-8)


@given(ms=mass_pairs(k=3, non_dogmatic=True))
def test_cautious_associative(ms):
    a, b, c = ms
    left = combine([combine([a, b], rule="cautious"), c], rule="cautious")
    close(left, combine([a, combine([b, c], rule="cautious")], rule="cautious"), atol=1e-8)
    close(left, combine([a, b, c], rule="cautious"), atol=1e-8)


@given(m=masses(non_dogmatic=True))
def test_cautious_idempotent(m):
    close(combine([m, m], rule="cautious"), m, atol=1e-9)


@given(m=masses(subnormal=True))
def test_bold_idempotent(m):
    close(combine([m, m], rule="bold"), m, atol=1e-9)


@given(m=masses())
def test_vacuous_is_neutral(m):
    v = MassFunction.vacuous(m.frame)
    close(combine([m, v], rule="conjunctive"), m, atol=1e-12)
    close(combine([m, v], rule="disjunctive"), v, atol=1e-12)


@given(n=st.integers(1, 4), data=st.data())
def test_vacuous_is_neutral_for_cautious_on_separable(n, data):
    # The vacuous mass function is neutral for the cautious rule exactly on the
    # separable mass functions (all conjunctive weights <= 1; Denoeux 2008, Prop. 4).
    w = data.draw(arrays(np.float64, 2**n, elements=st.floats(0.05, 1.0)))
    m = MassFunction.from_array(w, Frame(range(n)), kind="w")
    v = MassFunction.vacuous(m.frame)
    close(combine([m, v], rule="cautious"), m, atol=1e-9)


def test_vacuous_not_neutral_for_cautious_on_non_separable():
    m = MassFunction.from_array([0, 1 / 3, 1 / 3, 1 / 3], Frame("ab"))
    assert m.conjunctive_weights()[0] > 1
    got = combine([m, MassFunction.vacuous(m.frame)], rule="cautious")
    assert not got.allclose(m, atol=1e-3)


@given(m=masses())
def test_empty_mass_neutral_for_disjunctive(m):
    e = MassFunction.from_focal_sets([0], [1.0], m.frame)
    close(combine([m, e], rule="disjunctive"), m, atol=1e-12)


@pytest.mark.parametrize("kind", ["bel", "pl", "q", "b"])
@given(m=masses())
def test_round_trips(kind, m):
    close(MassFunction.from_array(m.to_array(kind), m.frame, kind=kind), m, atol=1e-9)


@given(m=masses(non_dogmatic=True))
def test_weights_round_trip(m):
    close(MassFunction.from_array(m.to_array("w"), m.frame, kind="w"), m, atol=1e-8)


@given(m=masses(normal=True))
def test_pignistic_sums_to_one_and_between_bel_and_pl(m):
    p = m.pignistic()
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    for i in range(m.frame.n):
        lab = m.frame.labels[i]
        assert m.bel({lab}) - 1e-12 <= p[i] <= m.pl({lab}) + 1e-12


@given(m=masses())
def test_bel_le_pl(m):
    bel, pl = m.to_array("bel"), m.to_array("pl")
    assert np.all(bel <= pl + 1e-12)
