import numpy as np
import pytest

from dstk import Frame, MassFunction, combine, combine_with_conflict
from dstk.exceptions import DogmaticError, FrameMismatchError, TotalConflictError

from . import reference as ref

NS = range(1, 9)


def _pair(n, seed, **kw):
    rng = np.random.default_rng(seed)
    return ref.random_mass(rng, n, **kw), ref.random_mass(rng, n, **kw)


@pytest.mark.parametrize("n", NS)
def test_conjunctive_dempster_disjunctive(n):
    a, b = _pair(n, n, n_focal=min(12, 2**n))
    f = Frame(range(n))
    A, B = MassFunction.from_array(a, f), MassFunction.from_array(b, f)
    np.testing.assert_allclose(
        combine([A, B], rule="conjunctive").to_array(), ref.conjunctive(a, b), atol=1e-12
    )
    np.testing.assert_allclose(
        combine([A, B], rule="disjunctive").to_array(), ref.disjunctive(a, b), atol=1e-12
    )
    exp, k = ref.dempster(a, b)
    if k < 1 - 1e-9:
        got, kappa = combine_with_conflict([A, B], rule="dempster")
        np.testing.assert_allclose(got.to_array(), exp, atol=1e-10)
        assert kappa == pytest.approx(k, abs=1e-12)
    np.testing.assert_allclose(combine([A, B], rule="yager").to_array(), ref.yager(a, b), atol=1e-12)
    np.testing.assert_allclose(
        combine([A, B], rule="dubois_prade").to_array(), ref.dubois_prade(a, b), atol=1e-12
    )


@pytest.mark.parametrize("n", range(1, 7))
def test_cautious_and_bold_match_definition(n):
    a, b = _pair(n, 50 + n)  # all focal sets: generally non-separable (weights > 1)
    f = Frame(range(n))
    A, B = MassFunction.from_array(a, f), MassFunction.from_array(b, f)
    np.testing.assert_allclose(combine([A, B], rule="cautious").to_array(), ref.cautious(a, b), atol=1e-10)
    np.testing.assert_allclose(combine([A, B], rule="bold").to_array(), ref.bold(a, b), atol=1e-10)


@pytest.mark.parametrize("n", range(1, 6))
def test_pcr6_matches_definition(n):
    rng = np.random.default_rng(90 + n)
    ms = [ref.random_mass(rng, n, n_focal=min(5, 2**n - 1), normal=True) for _ in range(3)]
    f = Frame(range(n))
    got = combine([MassFunction.from_array(x, f) for x in ms], rule="pcr6")
    np.testing.assert_allclose(got.to_array(), ref.pcr6(*ms), atol=1e-12)
    # two sources: PCR6 = PCR5 (Smarandache & Dezert), closed form
    a, b = ms[0], ms[1]
    exp = ref.conjunctive(a, b)
    exp[0] = 0
    for x in range(1, 2**n):
        for y in range(1, 2**n):
            if x & y == 0 and a[x] * b[y] > 0:
                exp[x] += a[x] ** 2 * b[y] / (a[x] + b[y])
                exp[y] += b[y] ** 2 * a[x] / (a[x] + b[y])
    np.testing.assert_allclose(
        combine([MassFunction.from_array(a, f), MassFunction.from_array(b, f)], rule="pcr6").to_array(),
        exp,
        atol=1e-12,
    )


@pytest.mark.parametrize("rule", ["conjunctive", "dempster", "disjunctive", "cautious", "yager", "average"])
def test_batched_axis_reduction_equals_loop(rule):
    rng = np.random.default_rng(3)
    n, N, K = 3, 5, 4
    arr = np.stack([ref.random_mass(rng, n) for _ in range(N * K)]).reshape(N, K, -1)
    f = Frame("abc")
    batch = MassFunction.from_array(arr, f)
    got = combine(batch, rule=rule, axis=1)
    assert got.batch_shape == (N,)
    for i in range(N):
        single = combine([MassFunction.from_array(arr[i, k], f) for k in range(K)], rule=rule)
        np.testing.assert_allclose(got.to_array()[i], single.to_array(), atol=1e-12)
    # reducing axis 0 of the transposed batch gives the same
    got0 = combine(MassFunction.from_array(arr.transpose(1, 0, 2), f), rule=rule, axis=0)
    np.testing.assert_allclose(got0.to_array(), got.to_array(), atol=1e-12)


def test_broadcasting_sequences():
    f = Frame("ab")
    batch = MassFunction.from_array([[0, 0.5, 0, 0.5], [0, 0, 0.5, 0.5], [0, 0.2, 0.2, 0.6]], f)
    single = MassFunction({"a": 0.3, "a,b": 0.7}, frame=f)
    got = combine([batch, single], rule="conjunctive")
    assert got.batch_shape == (3,)
    np.testing.assert_allclose(
        got.to_array()[1], ref.conjunctive(np.array([0, 0, 0.5, 0.5]), single.to_array())
    )
    with pytest.raises(ValueError, match="do not broadcast"):
        combine([batch, MassFunction.from_array(np.tile([0, 0.5, 0.5, 0], (2, 1)), f)])


def test_weighted_average():
    f = Frame("ab")
    a = MassFunction({"a": 1.0}, frame=f)
    b = MassFunction({"b": 1.0}, frame=f)
    got = combine([a, b], rule="average", weights=[3, 1])
    assert got["a"] == pytest.approx(0.75) and got["b"] == pytest.approx(0.25)
    with pytest.raises(ValueError, match="one entry per source"):
        combine([a, b], rule="average", weights=[1])


def test_methods_and_operators():
    m1 = MassFunction({"a": 0.6, "a,b": 0.4})
    m2 = MassFunction({"b": 0.7, "a,b": 0.3})
    assert (m1 & m2)[""] == pytest.approx(0.42)
    assert (m1 | m2)["a,b"] == pytest.approx(1.0)
    assert m1.combine(m2)["a"] == pytest.approx(0.18 / 0.58)


def test_errors():
    f = Frame("ab")
    a = MassFunction({"a": 1.0}, frame=f)
    b = MassFunction({"b": 1.0}, frame=f)
    with pytest.raises(TotalConflictError, match="total conflict"):
        combine([a, b], rule="dempster")
    with pytest.raises(DogmaticError, match=r"non-dogmatic.*discount\(1e-6\).*rule='dempster'"):
        combine([a, b], rule="cautious")
    with pytest.raises(DogmaticError, match=r"subnormal.*rule='cautious'.*rule='disjunctive'"):
        combine([a, b], rule="bold")
    with pytest.raises(FrameMismatchError, match="different frames"):
        combine([a, MassFunction({"a": 1.0}, frame="abc")])
    with pytest.raises(ValueError, match="Unknown rule"):
        combine([a, b], rule="nope")
    with pytest.raises(ValueError, match="axis"):
        combine(MassFunction.from_array(np.tile([0, 0.5, 0.5, 0], (2, 1)), f))
