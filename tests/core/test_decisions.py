"""Decisions: single-act criteria and sets of admissible acts, against definitions computed by brute force.

References are independent of dstk's code paths:

* ``Bel(A)`` is summed from the definition over the subsets of ``A``;
* the credal set ``{p : P(A) >= Bel(A) for all A}`` is reached two ways: its extreme points, the
  ``n!`` marginal vectors ``p_s(s_i) = Bel({s_1..s_i}) - Bel({s_1..s_{i-1}})`` of the orderings ``s``
  (Chateauneuf and Jaffray 1989), for lower/upper expectations, maximality and dominance (linear
  functions reach their extremes at extreme points); and a grid over the simplex (step 0.01), filtered
  by the inequalities themselves, for E-admissibility (a non-pairwise criterion);
* the single-act criteria are written out from their formulas (Denoeux 2019) with Python loops.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk import MassFunction, admissible_actions, decide
from dstk.core import ADMISSIBILITY_CRITERIA, CRITERIA, owa_weights
from dstk.core._frame import Frame

TIE = 1e-9


# -- brute-force references ------------------------------------------------------------------------
def random_mass(rng, n, step=None):
    """A normalised mass function on ``n`` labels with 1..5 random non-empty focal sets (dict bitmask -> mass)."""
    k = int(rng.integers(1, 6))
    subsets = rng.choice(np.arange(1, 2**n), size=min(k, 2**n - 1), replace=False)
    if step is None:
        w = rng.dirichlet(np.ones(subsets.size))
    else:  # masses on a grid: multiples of ``step``
        units = round(1 / step)
        cuts = np.sort(rng.integers(0, units + 1, size=subsets.size - 1))
        w = np.diff(np.concatenate([[0], cuts, [units]])) * step
    return {int(a): float(v) for a, v in zip(subsets, w) if v > 0}


def to_mass_function(masses, n):
    labels = [f"l{i}" for i in range(n)]
    frame = Frame(labels)
    vector = np.zeros(2**n)
    for a, v in masses.items():
        vector[a] = v
    return MassFunction.from_array(vector, frame=frame)


def belief_table(masses, n):
    return np.array([sum(v for b, v in masses.items() if b & a == b) for a in range(2**n)])


def extreme_points(masses, n):
    bel = belief_table(masses, n)
    points = []
    for order in itertools.permutations(range(n)):
        p, seen = np.zeros(n), 0
        for label in order:
            p[label] = bel[seen | (1 << label)] - bel[seen]
            seen |= 1 << label
        points.append(p)
    return np.array(points)


def simplex_grid(n, step):
    units = round(1 / step)
    rows = [c for c in itertools.product(range(units + 1), repeat=n - 1) if sum(c) <= units]
    head = np.array(rows, dtype=np.int64).reshape(-1, n - 1)
    return np.column_stack([head, units - head.sum(axis=1)]) / units


GRIDS = {}


def credal_grid(masses, n, step):
    if (n, step) not in GRIDS:
        grid = simplex_grid(n, step)
        member = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(float)
        GRIDS[n, step] = (grid, grid @ member.T)
    grid, probability_of = GRIDS[n, step]
    inside = np.all(probability_of >= belief_table(masses, n) - TIE, axis=1)
    return grid[inside]


def brute_lower_upper(masses, n, u):
    values = extreme_points(masses, n) @ u.T  # (points, acts)
    return values.min(axis=0), values.max(axis=0)


def brute_maximal(masses, n, u):
    points = extreme_points(masses, n)
    acts = u.shape[0]
    return np.array(
        [not any(b != a and (points @ (u[b] - u[a])).min() > TIE for b in range(acts)) for a in range(acts)]
    )


def brute_e_admissible(masses, n, u, step):
    values = credal_grid(masses, n, step) @ u.T
    best = values.max(axis=1, keepdims=True)
    return np.any(values >= best - TIE, axis=0)


def brute_dominance(masses, n, u, criterion):
    lower, upper = brute_lower_upper(masses, n, u)
    acts = u.shape[0]
    keep = []
    for a in range(acts):
        beaten = False
        for b in range(acts):
            if b == a:
                continue
            if criterion == "interval_dominance":
                beaten |= lower[b] > upper[a] + TIE
            elif criterion == "strong_dominance":
                beaten |= lower[b] >= upper[a] - TIE and not lower[a] >= upper[b] - TIE
            else:
                b_over_a = lower[b] >= lower[a] - TIE and upper[b] >= upper[a] - TIE
                a_over_b = lower[a] >= lower[b] - TIE and upper[a] >= upper[b] - TIE
                beaten |= b_over_a and not a_over_b
        keep.append(not beaten)
    return np.array(keep)


# -- the counterexample of the issue tracker (torchbelief rejects the hedge) -------------------------
def test_vacuous_hedge_is_e_admissible_and_maximal():
    vacuous = MassFunction({"x,y": 1.0})
    hedge = [[1.0, 0.0], [0.0, 1.0], [0.6, 0.6]]
    for criterion in ("e_admissibility", "maximality"):
        np.testing.assert_array_equal(
            admissible_actions(vacuous, criterion=criterion, utility=hedge), [1, 1, 1]
        )
    poor = [[1.0, 0.0], [0.0, 1.0], [0.4, 0.4]]
    np.testing.assert_array_equal(
        admissible_actions(vacuous, criterion="maximality", utility=poor), [1, 1, 1]
    )
    np.testing.assert_array_equal(
        admissible_actions(vacuous, criterion="e_admissibility", utility=poor), [1, 1, 0]
    )
    # the exact tie: (0.5, 0.5) is optimal at p = (0.5, 0.5) only
    tie = [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]
    np.testing.assert_array_equal(
        admissible_actions(vacuous, criterion="e_admissibility", utility=tie), [1, 1, 1]
    )


# -- 1,000 random mass functions on <= 5 labels with 4 acts ------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_admissible_sets_equal_brute_force(n):
    rng = np.random.default_rng(100 + n)
    step = 0.01 if n <= 4 else 0.025  # the n = 5 grid at 0.01 has 4.6 million points
    masses_step = 0.05
    for trial in range(250):
        masses = random_mass(rng, n, step=masses_step)
        m = to_mass_function(masses, n)
        if trial % 2:
            u = rng.integers(0, 5, size=(4, n)).astype(float)  # ties and hedges
        else:
            u = rng.random((4, n))
        for criterion in ("interval_dominance", "strong_dominance", "weak_dominance"):
            np.testing.assert_array_equal(
                admissible_actions(m, criterion=criterion, utility=u),
                brute_dominance(masses, n, u, criterion),
                err_msg=f"{criterion}, trial {trial}: {masses}, {u.tolist()}",
            )
        maximal = admissible_actions(m, criterion="maximality", utility=u)
        np.testing.assert_array_equal(maximal, brute_maximal(masses, n, u), err_msg=f"{masses}, {u.tolist()}")
        e_admissible = admissible_actions(m, criterion="e_admissibility", utility=u)
        np.testing.assert_array_equal(
            e_admissible,
            brute_e_admissible(masses, n, u, step),
            err_msg=f"trial {trial}: {masses}, {u.tolist()}",
        )


def test_lower_upper_expectations_equal_extreme_points():
    from dstk.core import lower_upper_expectations

    rng = np.random.default_rng(7)
    for _ in range(100):
        n = int(rng.integers(2, 6))
        masses = random_mass(rng, n)
        u = rng.normal(size=(3, n))
        lower, upper = lower_upper_expectations(to_mass_function(masses, n), u)
        expected_lower, expected_upper = brute_lower_upper(masses, n, u)
        np.testing.assert_allclose(lower, expected_lower, atol=1e-12)
        np.testing.assert_allclose(upper, expected_upper, atol=1e-12)


# -- single-act criteria written out from their formulas --------------------------------------------
def owa_value(values, weights):
    return float(np.sort(values)[::-1] @ weights)


def brute_criterion_values(masses, n, u, criterion, optimism=None, weights=None):
    out = np.zeros(u.shape[0])
    for a in range(u.shape[0]):
        for subset, v in masses.items():
            values = u[a, [i for i in range(n) if subset >> i & 1]]
            if criterion in ("maximin", "belief"):
                out[a] += v * values.min()
            elif criterion in ("maximax", "plausibility"):
                out[a] += v * values.max()
            elif criterion in ("hurwicz", "generalized_hurwicz"):
                out[a] += v * (optimism * values.max() + (1 - optimism) * values.min())
            elif criterion == "pignistic":
                out[a] += v * values.mean()
            else:  # owa
                out[a] += v * owa_value(values, weights[values.size])
    return out


@pytest.mark.parametrize("criterion", CRITERIA)
def test_decide_equals_formula(criterion):
    rng = np.random.default_rng(11)
    for _ in range(60):
        n = int(rng.integers(2, 6))
        masses = random_mass(rng, n)
        m = to_mass_function(masses, n)
        u = rng.normal(size=(4, n))
        optimism = float(rng.random())
        weights = {k: rng.dirichlet(np.ones(k)) for k in range(1, n + 1)}
        options = {"optimism": optimism} if "hurwicz" in criterion else {}
        if criterion == "owa":
            options = {"weights": weights}
        expected = brute_criterion_values(masses, n, u, criterion, optimism, weights)
        assert decide(m, criterion=criterion, utility=u, **options) == int(np.argmax(expected))
        if criterion == "owa":  # a callable gives the same weights
            assert decide(m, criterion="owa", utility=u, weights=weights.__getitem__) == int(
                np.argmax(expected)
            )


def test_decide_is_batched_and_returns_labels():
    rng = np.random.default_rng(3)
    n = 4
    rows = [random_mass(rng, n) for _ in range(30)]
    vectors = np.zeros((30, 2**n))
    for i, masses in enumerate(rows):
        for a, v in masses.items():
            vectors[i, a] = v
    frame = Frame(["w", "x", "y", "z"])
    batch = MassFunction.from_array(vectors, frame=frame)
    for criterion in CRITERIA:
        options = (
            {"optimism": 0.3} if "hurwicz" in criterion else {"orness": 0.8} if criterion == "owa" else {}
        )
        chosen = decide(batch, criterion=criterion, **options)
        indices = decide(batch, criterion=criterion, return_indices=True, **options)
        assert chosen.shape == (30,) and indices.shape == (30,)
        np.testing.assert_array_equal(chosen, np.array(frame.labels)[indices])
        for i in range(len(rows)):
            one = MassFunction.from_array(vectors[i], frame=frame)
            assert decide(one, criterion=criterion, return_indices=True, **options) == indices[i]


def test_hurwicz_by_hand():
    # m({a}) = 0.5, m({a, b}) = 0.5; act 0 = (1, 0), act 1 = (0.4, 0.6)
    m = MassFunction({"a": 0.5, "a,b": 0.5})
    u = [[1.0, 0.0], [0.4, 0.6]]
    # act 0: 0.5 * 1 + 0.5 * (alpha * 1 + (1 - alpha) * 0) = 0.5 + 0.5 alpha
    # act 1: 0.5 * 0.4 + 0.5 * (alpha * 0.6 + (1 - alpha) * 0.4) = 0.4 + 0.1 alpha: act 0 for every alpha
    for alpha in (0.0, 0.5, 1.0):
        assert decide(m, criterion="generalized_hurwicz", utility=u, optimism=alpha) == 0
    # loss matrix = minus the utility: act 0 = (0, 1) loss: lower utility 0.5 * 0 + 0.5 * -1 = -0.5
    assert decide(m, criterion="maximin", loss=[[0.0, 1.0], [0.3, 0.3]]) == 1


def test_owa_weights_and_orness():
    for k in range(1, 8):
        for beta in (0.0, 0.1, 0.3, 0.5, 0.7, 0.95, 1.0):
            w = owa_weights(k, orness=beta)
            assert w.shape == (k,) and np.all(w >= 0) and abs(w.sum() - 1) < 1e-12
            if k > 1:
                assert abs(w @ ((k - 1 - np.arange(k)) / (k - 1)) - beta) < 1e-9
    np.testing.assert_allclose(owa_weights(2, orness=0.3), [0.3, 0.7])
    # maximum entropy: no other weights of the same orness have larger entropy (random search)
    rng = np.random.default_rng(0)
    w = owa_weights(4, orness=0.7)
    entropy = -(w * np.log(w)).sum()
    position = (3 - np.arange(4)) / 3
    for _ in range(2000):
        v = rng.dirichlet(np.ones(4))
        if abs(v @ position - 0.7) < 1e-3:
            assert -(v * np.log(v)).sum() <= entropy + 1e-3


# -- hypothesis: algebraic laws -----------------------------------------------------------------------
@st.composite
def problems(draw):
    n = draw(st.integers(2, 5))
    seed = draw(st.integers(0, 2**31 - 1))
    acts = draw(st.integers(1, 5))
    rng = np.random.default_rng(seed)
    masses = random_mass(rng, n)
    u = rng.normal(size=(acts, n))
    return n, masses, u


@settings(max_examples=60, deadline=None)
@given(problems(), st.floats(0.0, 1.0))
def test_criteria_laws(problem, alpha):
    n, masses, u = problem
    m = to_mass_function(masses, n)
    # Hurwicz on the expectations and Jaffray's focal-set-wise criterion coincide; the ends are maximin/maximax
    assert decide(m, criterion="hurwicz", utility=u, optimism=alpha) == decide(
        m, criterion="generalized_hurwicz", utility=u, optimism=alpha
    )
    assert decide(m, criterion="hurwicz", utility=u, optimism=0.0) == decide(
        m, criterion="maximin", utility=u
    )
    assert decide(m, criterion="hurwicz", utility=u, optimism=1.0) == decide(
        m, criterion="maximax", utility=u
    )
    # OWA: orness 1 = maximax, 0 = maximin, 0.5 = pignistic
    assert decide(m, criterion="owa", utility=u, orness=1.0) == decide(m, criterion="maximax", utility=u)
    assert decide(m, criterion="owa", utility=u, orness=0.0) == decide(m, criterion="maximin", utility=u)
    assert decide(m, criterion="owa", utility=u, orness=0.5) == decide(m, criterion="pignistic", utility=u)
    # nested sets: E-admissible within maximal within interval-undominated; weak dominance within interval
    sets = {c: admissible_actions(m, criterion=c, utility=u) for c in ADMISSIBILITY_CRITERIA}
    assert sets["e_admissibility"].any()
    assert np.all(sets["e_admissibility"] <= sets["maximality"])
    assert np.all(sets["maximality"] <= sets["interval_dominance"])
    assert np.all(sets["weak_dominance"] <= sets["interval_dominance"])
    assert np.all(sets["strong_dominance"] <= sets["interval_dominance"])
    # every single-act choice of a criterion that is a lower/upper/pignistic expectation is maximal... for maximin
    # and pignistic (a maximiser of an expectation over one p of the credal set is E-admissible)
    assert sets["e_admissibility"][decide(m, criterion="pignistic", utility=u)]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5), st.integers(0, 2**31 - 1))
def test_precise_mass_all_criteria_agree(n, seed):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(n))
    m = to_mass_function({1 << i: float(p[i]) for i in range(n)}, n)
    u = rng.normal(size=(4, n))
    best = (u @ p) >= (u @ p).max() - 1e-9
    for criterion in ADMISSIBILITY_CRITERIA:
        np.testing.assert_array_equal(admissible_actions(m, criterion=criterion, utility=u), best)


# -- interface ---------------------------------------------------------------------------------------
def test_labels_and_batches_of_admissible_actions():
    batch = MassFunction.from_array(
        np.array([[0, 0.5, 0.2, 0.3], [0, 0.1, 0.1, 0.8], [0, 0.9, 0.0, 0.1]]), frame=Frame(["a", "b"])
    )
    masks = admissible_actions(batch, criterion="interval_dominance")
    np.testing.assert_array_equal(masks, [[1, 1], [1, 1], [1, 0]])
    labels = admissible_actions(batch, criterion="interval_dominance", return_labels=True)
    assert labels.tolist() == [frozenset({"a", "b"}), frozenset({"a", "b"}), frozenset({"a"})]
    with_utility = admissible_actions(batch, criterion="maximality", utility=np.eye(2), return_labels=True)
    assert with_utility.tolist() == [frozenset({0, 1}), frozenset({0, 1}), frozenset({0})]


def test_criteria_in_the_wrong_function_name_the_right_one():
    m = MassFunction({"a": 0.5, "a,b": 0.5})
    with pytest.raises(ValueError, match="admissible_actions"):
        decide(m, criterion="interval_dominance")
    with pytest.raises(ValueError, match="decide"):
        admissible_actions(m, criterion="pignistic")
    with pytest.raises(ValueError, match="optimism"):
        decide(m, criterion="hurwicz")
    with pytest.raises(ValueError, match="optimism"):
        decide(m, criterion="hurwicz", optimism=1.5)
    with pytest.raises(ValueError, match="exactly one"):
        decide(m, criterion="owa")
    with pytest.raises(ValueError, match="no OWA weight vector"):
        decide(m, criterion="owa", weights={1: [1.0]})
    with pytest.raises(ValueError, match="summing to one"):
        decide(m, criterion="owa", weights={1: [1.0], 2: [0.5, 0.6]})
