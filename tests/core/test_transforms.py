import numpy as np
import pytest

from dstk import Frame, MassFunction, admissible_actions, consonant_from_contour, inverse_pignistic
from dstk.core import conflict, jousselme_distance
from dstk.exceptions import InvalidMassError, TotalConflictError

from . import reference as ref


@pytest.mark.parametrize("n", range(1, 8))
def test_discount_condition_normalize(n):
    rng = np.random.default_rng(n)
    f = Frame(range(n))
    m = ref.random_mass(rng, n)
    mf = MassFunction.from_array(m, f)
    d = mf.discount(0.3).to_array()
    exp = 0.7 * m
    exp[-1] += 0.3
    np.testing.assert_allclose(d, exp, atol=1e-15)
    a = int(rng.integers(1, 2**n))
    # conditioning = Dempster combination with the categorical mass function on A
    cat = np.zeros(2**n)
    cat[a] = 1
    exp_c, _ = ref.dempster(m, cat)
    np.testing.assert_allclose(mf.condition(f.labels_of(a)).to_array(), exp_c, atol=1e-12)
    unn = ref.conjunctive(m, cat)
    np.testing.assert_allclose(mf.condition(f.labels_of(a), normalize=False).to_array(), unn, atol=1e-12)
    norm = m.copy()
    norm[0] = 0
    np.testing.assert_allclose(mf.normalize().to_array(), norm / norm.sum(), atol=1e-15)


def test_discount_batched_rates_and_errors():
    f = Frame("ab")
    m = MassFunction.from_array(np.tile([0, 1.0, 0, 0], (3, 1)), f)
    d = m.discount([0.0, 0.5, 1.0])
    np.testing.assert_allclose(d.to_array()[:, 3], [0, 0.5, 1.0])
    with pytest.raises(ValueError, match="\\[0, 1\\]"):
        m.discount(1.5)


@pytest.mark.parametrize("n", range(1, 6))
def test_contextual_discount_definition(n):
    rng = np.random.default_rng(40 + n)
    f = Frame(range(n))
    m = ref.random_mass(rng, n)
    alpha = rng.random(n)
    exp = m
    for k in range(n):
        mk = np.zeros(2**n)
        mk[0] = 1 - alpha[k]
        mk[1 << k] = alpha[k]
        exp = ref.disjunctive(exp, mk)
    got = MassFunction.from_array(m, f).contextual_discount(alpha).to_array()
    np.testing.assert_allclose(got, exp, atol=1e-12)
    np.testing.assert_allclose(
        MassFunction.from_array(m, f).contextual_discount(np.zeros(n)).to_array(), m, atol=1e-14
    )


def test_inverse_pignistic_is_consonant_and_inverts():
    rng = np.random.default_rng(1)
    p = rng.dirichlet(np.ones(5), size=4)
    m = inverse_pignistic(p, frame="abcde")
    np.testing.assert_allclose(m.pignistic(), p, atol=1e-12)
    # consonant: contour is the possibility distribution pi_i = sum_j min(p_i, p_j)
    exp = np.minimum(p[:, :, None], p[:, None, :]).sum(-1)
    np.testing.assert_allclose(m.contour(), exp, atol=1e-12)
    with pytest.raises(InvalidMassError):
        inverse_pignistic([0.5, 0.6])


def test_consonant_from_contour():
    pi = np.array([0.2, 1.0, 0.5])
    m = consonant_from_contour(pi, frame="abc")
    np.testing.assert_allclose(m.contour(), pi)
    for a in range(1, 8):
        labels = Frame("abc").labels_of(a)
        assert m.pl(labels) == pytest.approx(max(pi[Frame("abc").index(l)] for l in labels))
    sub = consonant_from_contour([0.8, 0.3], frame="ab")
    assert sub.conflict == pytest.approx(0.2)


def test_pignistic_total_conflict_raises():
    m = MassFunction.from_array([1.0, 0, 0, 0], Frame("ab"))
    with pytest.raises(InvalidMassError, match="empty set"):
        m.pignistic()
    with pytest.raises(TotalConflictError):
        m.normalize()
    with pytest.raises(TotalConflictError, match="plausibility is 0"):
        MassFunction({"a": 1.0}, frame="ab").condition("b")


def test_plausibility_transform():
    m = MassFunction({"a": 0.5, "a,b": 0.3, "b,c": 0.2})
    c = np.array([0.8, 0.5, 0.2])
    np.testing.assert_allclose(m.contour(), c)
    np.testing.assert_allclose(m.plausibility_transform(), c / c.sum())


def test_decisions():
    m = MassFunction({"a": 0.4, "b": 0.3, "a,b,c": 0.3})
    assert m.decide("pignistic", return_indices=True) == 0
    assert m.decide("plausibility", return_indices=True) == 0
    assert m.decide("belief", return_indices=True) == 0
    assert m.decide("pignistic") == m.frame.labels[0]
    np.testing.assert_array_equal(admissible_actions(m, criterion="interval_dominance"), [True, True, False])
    # utility matrix: act 2 = "reject" with constant utility 0.6
    u = np.array([[1, 0, 0], [0, 1, 0], [0.6, 0.6, 0.6]])
    # lower expected utility: act0 0.4, act1 0.3, reject 0.6 -> maximin picks reject
    assert m.decide("belief", utility=u) == 2
    # upper: act0 0.7, act1 0.6, reject 0.6
    assert m.decide("plausibility", utility=u) == 0
    # pignistic: BetP = (.5, .4, .1): act0 .5, act1 .4, reject .6
    assert m.decide("pignistic", utility=u) == 2
    np.testing.assert_array_equal(
        admissible_actions(m, criterion="interval_dominance", utility=u), [True, True, True]
    )
    assert m.decide("pignistic", loss=1 - np.eye(3)) == 0
    with pytest.raises(ValueError, match="n_actions"):
        m.decide("pignistic", utility=np.eye(2))


@pytest.mark.parametrize("n", range(1, 7))
def test_jousselme_and_conflict(n):
    rng = np.random.default_rng(n)
    a, b = ref.random_mass(rng, n), ref.random_mass(rng, n)
    f = Frame(range(n))
    A, B = MassFunction.from_array(a, f), MassFunction.from_array(b, f)
    assert jousselme_distance(A, B) == pytest.approx(ref.jousselme(a, b), abs=1e-12)
    assert jousselme_distance(A, A) == pytest.approx(0, abs=1e-7)
    assert conflict(A, B) == pytest.approx(ref.conjunctive(a, b)[0], abs=1e-12)
