import numpy as np
import pytest

from dstk import Frame, MassFunction
from dstk.exceptions import DogmaticError

from . import reference as ref

NS = range(1, 9)


@pytest.mark.parametrize("n", NS)
def test_every_representation_matches_definition(n):
    rng = np.random.default_rng(n)
    frame = Frame(range(n))
    m = ref.random_mass(rng, n)
    mf = MassFunction.from_array(m, frame)
    np.testing.assert_allclose(mf.to_array("q"), ref.q(m), atol=1e-12)
    np.testing.assert_allclose(mf.to_array("b"), ref.b(m), atol=1e-12)
    np.testing.assert_allclose(mf.to_array("bel"), ref.bel(m), atol=1e-12)
    np.testing.assert_allclose(mf.to_array("pl"), ref.pl(m), atol=1e-12)
    np.testing.assert_allclose(mf.pignistic(), ref.pignistic(m, n), atol=1e-12)
    # single queries
    for a in range(0, 1 << n, max(1, (1 << n) // 7)):
        assert mf.q(frame.labels_of(a)) == pytest.approx(ref.q(m)[a], abs=1e-12)
        assert mf.bel(frame.labels_of(a)) == pytest.approx(ref.bel(m)[a], abs=1e-12)
        assert mf.pl(frame.labels_of(a)) == pytest.approx(ref.pl(m)[a], abs=1e-12)
        assert mf.b(frame.labels_of(a)) == pytest.approx(ref.b(m)[a], abs=1e-12)


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("kind", ["m", "bel", "pl", "q", "b", "w"])
def test_round_trip_batched(n, kind):
    rng = np.random.default_rng(100 + n)
    frame = Frame(range(n))
    arr = np.stack([ref.random_mass(rng, n) for _ in range(6)]).reshape(2, 3, -1)
    mf = MassFunction.from_array(arr, frame)
    back = MassFunction.from_array(mf.to_array(kind), frame, kind=kind)
    np.testing.assert_allclose(back.to_array(), arr, atol=1e-9)


@pytest.mark.parametrize("n", range(1, 7))
def test_weights_match_definition_and_decomposition(n):
    rng = np.random.default_rng(7 + n)
    m = ref.random_mass(rng, n)  # non-dogmatic, subnormal: both weights defined
    mf = MassFunction.from_array(m, Frame(range(n)))
    w = mf.conjunctive_weights()
    np.testing.assert_allclose(w, ref.conjunctive_weights(m), rtol=1e-9)
    # the canonical decomposition rebuilds m (Denoeux 2008, Eq. 12)
    np.testing.assert_allclose(ref.from_conjunctive_weights(w), m, atol=1e-10)
    v = mf.disjunctive_weights()
    np.testing.assert_allclose(v, ref.disjunctive_weights(m), rtol=1e-9)
    np.testing.assert_allclose(ref.from_disjunctive_weights(v), m, atol=1e-10)
    back = MassFunction.from_array(v, mf.frame, kind="v")
    np.testing.assert_allclose(back.to_array(), m, atol=1e-10)


def test_weights_undefined_raise():
    m = MassFunction({"a": 0.5, "b": 0.5})
    with pytest.raises(DogmaticError, match="m\\(frame\\) > 0"):
        m.conjunctive_weights()
    with pytest.raises(DogmaticError, match="m\\(empty set\\) > 0"):
        m.disjunctive_weights()


def test_queries_and_measures():
    m = MassFunction({"a": 0.5, "a,b": 0.3, "a,b,c": 0.2})
    assert m["a"] == 0.5 and m[{"a", "b"}] == 0.3 and m["c"] == 0.0
    assert m.bel("ab") == pytest.approx(0.8)
    assert m.pl("b") == pytest.approx(0.5)
    assert m.q("ab") == pytest.approx(0.5)
    assert m.conflict == 0.0
    assert m.focal_sets() == {frozenset("a"): 0.5, frozenset("ab"): 0.3, frozenset("abc"): 0.2}
    assert m.core() == frozenset("abc")
    assert m.specificity() == pytest.approx(0.5 + 0.3 / 2 + 0.2 / 3)
    assert m.nonspecificity() == pytest.approx(0.3 * 1 + 0.2 * np.log2(3))
    assert "{a,b}" in repr(m)
    html = m._repr_html_()
    assert "<table>" in html and "bel" in html and "{a,b}" in html


def test_batched_queries_and_repr():
    frame = Frame("ab")
    mf = MassFunction.from_array([[0, 0.2, 0.3, 0.5], [0, 0.6, 0, 0.4]], frame)
    np.testing.assert_allclose(mf.pl("a"), [0.7, 1.0])
    np.testing.assert_allclose(mf.bel("a"), [0.2, 0.6])
    assert mf.batch_shape == (2,)
    assert "batch_shape=(2,)" in repr(mf)
    assert "BetP" in mf._repr_html_()
    one = mf.batch[1]
    assert one.batch_shape == () and one["a"] == 0.6


def test_mapping_with_array_masses_is_a_batch():
    p = np.array([0.1, 0.5, 0.9])
    m = MassFunction({"a": p, "b": 1 - p}, frame="ab")
    assert m.batch_shape == (3,)
    np.testing.assert_allclose(m.pignistic()[:, 0], p)
