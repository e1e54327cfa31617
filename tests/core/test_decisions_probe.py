"""Probes of the decision criteria with the inputs a careless user would give.

Each test pins a defect that a review found, with the answer the definitions
give (Denoeux 2019, IJAR 109, Eqs. 13-14 and 26, Sec. 4.1) computed in exact
rationals.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk import MassFunction, admissible_actions, decide
from dstk.core._decisions import ADMISSIBILITY_CRITERIA, CRITERIA


def test_identical_acts_tie_to_the_smallest_index_under_every_criterion():
    # acts 0 and 2 are the same row; a matrix product may round their expectations apart
    # (2.727272727272727 against 2.7272727272727275 here), which picked act 2
    m = MassFunction({"l0": 2 / 11, "l1": 1 / 11, "l0,l1": 8 / 11})
    utility = np.array([[3.0, 0.0], [-1.0, 1.0], [3.0, 0.0]])
    # exact expectations: act 0 has lower 2/11 * 3 = 6/11 and upper (2/11 + 8/11) * 3 = 30/11; act 1 has
    # lower -2/11 + 1/11 - 8/11 = -9/11 and upper -2/11 + 1/11 + 8/11 = 7/11: act 0 (= act 2) wins both
    third = Fraction(1, 11)
    assert 6 * third > -9 * third and 30 * third > 7 * third
    for criterion in CRITERIA:
        for optimism in (0.25, 0.5, 0.75):
            options = {"orness": optimism} if criterion == "owa" else {"optimism": optimism}
            chosen = decide(m, criterion=criterion, utility=utility, **options)
            assert int(chosen) == 0, (criterion, optimism)


def test_owa_weights_are_needed_only_for_the_cardinalities_of_focal_sets():
    m = MassFunction({"a": 0.4, "b": 0.3, "a,b,c": 0.3})  # focal sets of 1 and 3 labels only
    utility = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.2, 0.2, 0.9]])
    weights = {1: [1.0], 3: [0.5, 0.3, 0.2]}
    # the definition, exactly: sum_A m(A) sum_i w_i u_(i)(a, A), utilities on A sorted best first
    masses = {("a",): Fraction(4, 10), ("b",): Fraction(3, 10), ("a", "b", "c"): Fraction(3, 10)}
    w = {k: [Fraction(x).limit_denominator() for x in v] for k, v in weights.items()}
    index = {"a": 0, "b": 1, "c": 2}
    values = []
    for act in utility:
        total = Fraction(0)
        for focal, mass in masses.items():
            sorted_u = sorted((Fraction(act[index[x]]).limit_denominator() for x in focal), reverse=True)
            total += mass * sum(wi * ui for wi, ui in zip(w[len(focal)], sorted_u, strict=True))
        values.append(total)
    assert int(decide(m, criterion="owa", weights=weights, utility=utility)) == values.index(max(values))
    # a cardinality that does carry mass still needs its vector, and the message names it
    with pytest.raises(ValueError, match="3 labels"):
        decide(m, criterion="owa", weights={1: [1.0], 2: [0.5, 0.5]}, utility=utility)


def test_decide_refuses_nan_rows_instead_of_choosing_the_first_act():
    import dstk

    first = MassFunction.from_array(np.array([[0, 1, 0, 0], [0, 0.5, 0, 0.5]], float), frame=["x", "y"])
    second = MassFunction.from_array(np.array([[0, 0, 1, 0], [0, 0.5, 0.5, 0]], float), frame=["x", "y"])
    with pytest.warns(dstk.exceptions.ConflictWarning):
        m = dstk.combine([first, second], rule="dempster", on_conflict="nan")  # row 0: NaN masses
    utility = np.array([[1.0, 0.0], [0.0, 1.0]])
    for criterion in CRITERIA:
        options = {"orness": 0.3} if criterion == "owa" else {"optimism": 0.3}
        for matrix in (None, utility):
            with pytest.raises(ValueError, match="NaN"):
                decide(m, criterion=criterion, utility=matrix, **options)
        # the rows without NaN are decided as on their own
        assert decide(m.batch[1:], criterion=criterion, **options).tolist() == ["x"]


def test_belief_without_utility_on_a_wide_frame_without_singleton_focal_sets():
    labels = [f"c{i}" for i in range(80)]
    m = MassFunction(
        {frozenset(labels[:3]): 0.5, frozenset(labels[2:40]): 0.3, frozenset(labels): 0.2}, frame=labels
    )
    # Bel({w}) = m({w}) = 0 for every label: a tie, which goes to the first label
    assert decide(m, criterion="belief") == "c0"


# ------------------------------------------------------------------ properties against the definitions


@st.composite
def masses_and_utilities(draw):
    """A mass function (possibly with m(empty) > 0) with exact masses, and an integer utility matrix."""
    n = draw(st.integers(1, 4))
    labels = [f"l{i}" for i in range(n)]
    subsets = [frozenset(c) for r in range(1, n + 1) for c in itertools.combinations(labels, r)]
    chosen = draw(st.lists(st.sampled_from(subsets), min_size=1, max_size=5, unique=True))
    weights = [Fraction(draw(st.integers(1, 9))) for _ in chosen]
    total = sum(weights)
    exact = {s: w / total for s, w in zip(chosen, weights, strict=True)}
    empty = Fraction(draw(st.integers(0, 3)), 10)
    masses = {s: float(m * (1 - empty)) for s, m in exact.items()}
    if empty:
        masses[frozenset()] = float(empty)
    n_actions = draw(st.integers(1, 4))
    rows = [[draw(st.integers(-3, 3)) for _ in labels] for _ in range(n_actions)]
    if n_actions > 1 and draw(st.booleans()):
        rows[-1] = rows[0]  # a duplicated act: ties
    return MassFunction(masses, frame=labels), exact, labels, rows


def exact_expectations(exact, labels, rows, alpha):
    index = {label: i for i, label in enumerate(labels)}
    out = {}
    for key, fold in (("lower", min), ("upper", max)):
        out[key] = [sum(m * fold(row[index[w]] for w in s) for s, m in exact.items()) for row in rows]
    out["pignistic"] = [
        sum(m * Fraction(sum(row[index[w]] for w in s), len(s)) for s, m in exact.items()) for row in rows
    ]
    out["hurwicz"] = [
        alpha * hi + (1 - alpha) * lo for lo, hi in zip(out["lower"], out["upper"], strict=True)
    ]
    return out


@settings(max_examples=150, deadline=None)
@given(masses_and_utilities(), st.integers(0, 4), st.floats(0.1, 10.0), st.integers(-5, 5))
def test_decisions_equal_exact_definitions_and_are_invariant_to_affine_maps(case, quarter, scale, shift):
    m, exact, labels, rows = case
    alpha = Fraction(quarter, 4)
    values = exact_expectations(exact, labels, rows, alpha)
    by_criterion = {
        "maximin": values["lower"],
        "belief": values["lower"],
        "maximax": values["upper"],
        "plausibility": values["upper"],
        "pignistic": values["pignistic"],
        "hurwicz": values["hurwicz"],
        "generalized_hurwicz": values["hurwicz"],
    }
    utility = np.array(rows, dtype=float)
    for criterion, value in by_criterion.items():
        first_best = value.index(max(value))  # ties to the smallest index
        for matrix in (utility, scale * utility + shift):
            assert int(decide(m, criterion=criterion, utility=matrix, optimism=float(alpha))) == first_best
        assert int(decide(m, criterion=criterion, loss=-utility, optimism=float(alpha))) == first_best
    # interval dominance, maximality: the definitions in exact arithmetic
    lower, upper = values["lower"], values["upper"]
    k = len(rows)
    index = {label: i for i, label in enumerate(labels)}
    dominated = [any(lower[b] > upper[a] for b in range(k) if b != a) for a in range(k)]
    gain = [
        [
            sum(mm * min(rows[b][index[w]] - rows[a][index[w]] for w in s) for s, mm in exact.items())
            for a in range(k)
        ]
        for b in range(k)
    ]
    not_maximal = [any(gain[b][a] > 0 for b in range(k) if b != a) for a in range(k)]
    for matrix in (utility, scale * utility + shift):
        assert admissible_actions(m, criterion="interval_dominance", utility=matrix).tolist() == [
            not d for d in dominated
        ]
        assert admissible_actions(m, criterion="maximality", utility=matrix).tolist() == [
            not d for d in not_maximal
        ]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_batch_equals_row_by_row_for_every_criterion(n, n_actions, seed):
    rng = np.random.default_rng(seed)
    array = rng.dirichlet(np.full(2**n, 0.5), size=(2, 3))
    m = MassFunction.from_array(array, frame=[f"l{i}" for i in range(n)])
    utility = rng.integers(-2, 3, size=(n_actions, n)).astype(float)
    for criterion in CRITERIA:
        options = {"orness": 0.4} if criterion == "owa" else {"optimism": 0.4}
        for matrix in (None, utility):
            together = decide(m, criterion=criterion, utility=matrix, **options)
            for i, j in itertools.product(range(2), range(3)):
                assert decide(m.batch[i, j], criterion=criterion, utility=matrix, **options) == together[i, j]
    for criterion in ADMISSIBILITY_CRITERIA:
        together = admissible_actions(m, criterion=criterion, utility=utility)
        for i, j in itertools.product(range(2), range(3)):
            alone = admissible_actions(m.batch[i, j], criterion=criterion, utility=utility)
            assert alone.tolist() == together[i, j].tolist()


@pytest.mark.parametrize(
    ("cardinality", "orness"), [(1000, 0.9995), (1000, 0.0005), (5000, 0.99995), (200, 0.9999)]
)
def test_owa_weights_reach_extreme_orness_on_large_focal_sets(cardinality, orness):
    from dstk.core._decisions import owa_weights

    w = owa_weights(cardinality, orness=orness)
    position = (cardinality - 1 - np.arange(cardinality)) / (cardinality - 1)
    assert w.sum() == pytest.approx(1.0, abs=1e-12) and np.all(w >= 0)
    assert w @ position == pytest.approx(orness, abs=1e-10)
    # maximum entropy weights are geometric (Fuller and Majlender 2001, Eq. 2): constant ratio
    kept = w[w > 1e-250]
    ratios = kept[1:] / kept[:-1]
    assert np.allclose(ratios, ratios[0], rtol=1e-8)
