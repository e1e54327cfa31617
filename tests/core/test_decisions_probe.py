"""Probes of the decision criteria with the inputs a careless user would give.

Each test pins a defect that a review found, with the answer the definitions
give (Denoeux 2019, IJAR 109, Eqs. 13-14 and 26, Sec. 4.1) computed in exact
rationals.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dstk import MassFunction, decide
from dstk.core._decisions import CRITERIA


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


@pytest.mark.xfail(
    strict=True,
    raises=ValueError,
    reason="dstk/core/_wide.py membership() cannot reshape zero focal sets, so the wide storage's "
    "singleton_masses fails when no focal set is a singleton (fix outside dstk/core/_decisions.py)",
)
def test_belief_without_utility_on_a_wide_frame_without_singleton_focal_sets():
    labels = [f"c{i}" for i in range(80)]
    m = MassFunction(
        {frozenset(labels[:3]): 0.5, frozenset(labels[2:40]): 0.3, frozenset(labels): 0.2}, frame=labels
    )
    # Bel({w}) = m({w}) = 0 for every label: a tie, which goes to the first label
    assert decide(m, criterion="belief") == "c0"
