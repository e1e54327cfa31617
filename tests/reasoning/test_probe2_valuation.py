"""Second review of the reasoning layer: inputs a careless user would give.

Each test pins a defect that the review found: the input, the answer the
definitions give (Shafer 1976, ch. 3; Smets 1993) or the error that must
name what was wrong and how to mend it.
"""

from __future__ import annotations

import numpy as np
import pytest

import dstk
from dstk.exceptions import DataTypeError, FrameError, TotalConflictError
from dstk.reasoning import Valuation, ValuationNetwork, Variable, generalized_bayes

A = Variable("a", [0, 1])
B = Variable("b", ["x", "y", "z"])


@pytest.mark.parametrize("missing", [float("nan"), np.float64("nan"), np.float32("nan")])
def test_variable_refuses_nan_labels(missing):
    # NaN != NaN: a label NaN could never be looked up (two NaNs even count as two labels)
    with pytest.raises(FrameError, match="NaN"):
        Variable("s", [missing, 1.0])
    with pytest.raises(FrameError, match="NaN"):
        Variable("s", [float("nan"), float("nan")])


def test_conjunctive_combination_refuses_an_unknown_on_conflict():
    v = Valuation.relation([A], [(0,)], mass=0.5)
    with pytest.raises(ValueError, match="on_conflict"):
        v.combine(v, rule="conjunctive", on_conflict="banana")
    with pytest.raises(ValueError, match="on_conflict"):
        ValuationNetwork([v]).marginal([A], normalize=False, on_conflict="banana")
    with pytest.raises(ValueError, match="on_conflict"):
        ValuationNetwork([v]).marginals(normalize=False, on_conflict="banana")


def test_rounding_residue_below_zero_is_not_kept_as_a_negative_mass():
    # masses within the tolerance below 0 are accepted as rounding residue, as by MassFunction,
    # which stores 0 for them; a focal set of negative mass must not be reported
    v = Valuation([A], [{(0,)}, {(1,)}], [1.0 + 1e-12, -1e-12])
    assert all(m >= 0 for _, m in v.focal_sets())
    assert v.pl({(1,)}) >= 0.0
    reference = dstk.MassFunction({0: 1.0 + 1e-12, 1: -1e-12}, frame=[0, 1])
    assert v.pl({(1,)}) == reference.pl({1})


def test_a_set_of_focal_sets_is_refused_since_its_order_is_arbitrary():
    # the masses are paired with the focal sets by position; a set has no position
    sets = {frozenset({(0,)}), frozenset({(1,)})}
    with pytest.raises(DataTypeError, match="list"):
        Valuation([A], sets, [0.3, 0.7])
    v = Valuation([A], [frozenset({(0,)}), frozenset({(1,)})], [0.3, 0.7])
    assert v.bel({(0,)}) == pytest.approx(0.3)


def test_generalized_bayes_names_an_observation_impossible_under_every_label():
    y = Variable("y", ["y1", "y2"])
    sure_y1 = dstk.MassFunction({"y1": 1.0}, frame=["y1", "y2"])
    with pytest.raises(TotalConflictError, match="observation"):
        generalized_bayes(
            {0: sure_y1, 1: sure_y1}, dstk.MassFunction({"y2": 1.0}, frame=["y1", "y2"]), given=A, target=y
        )


def test_network_sees_evidence_appended_to_its_valuations():
    x, y, z = Variable("x", [0, 1]), Variable("y", [0, 1]), Variable("z", [0, 1, 2])
    net = ValuationNetwork([Valuation.relation([x, y], [(0, 0)], mass=0.5)])
    added = Valuation.relation([y, z], [(0, 0)], mass=0.5)
    net.valuations.append(added)
    fresh = ValuationNetwork([*net.valuations])
    assert [v.name for v in net.variables] == ["x", "y", "z"]
    for got, want in [
        (net.marginal([z]), fresh.marginal([z])),
        (net.marginals()["z"], fresh.marginals()["z"]),
        (net.marginal([x], elimination_order=[z, y]), fresh.marginal([x], elimination_order=[z, y])),
    ]:
        assert sorted(got.focal_sets(), key=repr) == sorted(want.focal_sets(), key=repr)
    net.valuations.append("not a valuation")
    with pytest.raises(DataTypeError, match="Valuation"):
        net.marginal([x])


def test_combination_checks_the_batch_of_masses_against_the_memory_cap():
    # the focal sets fit, but their pairwise masses over a broadcast batch of 10**8 samples
    # (7 TiB) do not: refuse before allocating, naming the batch
    from dstk.exceptions import FrameTooLargeError

    x = Variable("x", range(12))
    rng = np.random.default_rng(0)
    focal = rng.random((100, 12)) < 0.5
    focal[:, 0] = True
    a = Valuation([x], focal, rng.dirichlet(np.ones(100), size=(10**4, 1)))
    b = Valuation([x], focal[::-1].copy(), rng.dirichlet(np.ones(100), size=(1, 10**4)))
    with pytest.raises(FrameTooLargeError, match="batch"):
        a.combine(b)
    with pytest.raises(FrameTooLargeError, match="batch"):
        ValuationNetwork([a, b]).marginal([x])


def test_marginals_name_an_elimination_variable_with_other_labels():
    # the names listed were the network's, so "must list every variable ... got the same names" misled
    from dstk.exceptions import FrameMismatchError

    x, y = Variable("x", [0, 1]), Variable("y", [0, 1])
    net = ValuationNetwork([Valuation.relation([x, y], [(0, 0)], mass=0.5)])
    with pytest.raises(FrameMismatchError, match=r"Variable\('y', \(0, 1, 2\)\) has other labels"):
        net.marginals(elimination_order=[x, Variable("y", [0, 1, 2])])


@pytest.mark.parametrize("residue", [1e-10, 1e-12, 1e-15])
def test_strong_but_not_total_conflict_is_normalised_as_by_dempsters_rule(residue):
    # K = 1 - residue is not a total conflict: Dempster's rule is defined, and dstk.combine gives it
    x = Variable("x", [0, 1])
    doubt = Valuation.relation([x], [(0,)], mass=1 - residue)
    sure_one = Valuation.relation([x], [(1,)], mass=1.0)
    mf = dstk.combine([doubt.to_mass_function(), sure_one.to_mass_function()])
    assert mf.mass({(1,)}) == 1.0
    assert doubt.combine(sure_one).bel({(1,)}) == 1.0
    assert ValuationNetwork([doubt, sure_one]).marginal([x]).bel({(1,)}) == 1.0
    assert doubt.condition({(1,)}).bel({(1,)}) == 1.0
    # the normalised masses keep their ratio although 1 - K is tiny
    three = Variable("t", [0, 1, 2])
    soft = Valuation([three], [{(0,)}, {(1,)}, {(2,)}], [1 - 3 * residue, 2 * residue, residue])
    posterior = soft.condition({(1,), (2,)})
    assert posterior.bel({(1,)}) == pytest.approx(2 / 3, rel=1e-12)


def test_pignistic_of_a_nearly_total_conflict_is_defined():
    x = Variable("x", [0, 1])
    unnormalised = Valuation([x], [set(), {(1,)}], [1 - 1e-10, 1e-10])
    reference = dstk.MassFunction({(): 1 - 1e-10, 1: 1e-10}, frame=[0, 1]).pignistic()
    assert unnormalised.pignistic({(1,)}) == pytest.approx(reference[1], rel=1e-12)
    with pytest.raises(dstk.exceptions.InvalidMassError, match="total"):
        Valuation([x], [set()], [1.0]).pignistic({(1,)})


def test_a_conditional_on_the_target_name_with_other_labels_is_named():
    # the valuation was on 'y' alone, so "must be a valuation on 'y' alone" did not say what was wrong
    from dstk.exceptions import FrameMismatchError
    from dstk.reasoning import conditional_embedding

    x, y, reordered = Variable("x", [0, 1]), Variable("y", ["a", "b"]), Variable("y", ["b", "a"])
    conditional = Valuation.relation([reordered], [("a",)])
    with pytest.raises(FrameMismatchError, match=r"Variable\('y', \('b', 'a'\)\)"):
        conditional_embedding(conditional, given=x, condition=[0], target=y)
    with pytest.raises(FrameMismatchError, match=r"Variable\('y', \('b', 'a'\)\)"):
        generalized_bayes(
            {0: conditional, 1: conditional}, Valuation.relation([y], [("a",)]), given=x, target=y
        )


def test_marginals_of_a_network_without_variables_are_empty():
    # valuations projected on no variable (e.g. marginalize([]), keeping only their conflict) gave IndexError
    x = Variable("x", [0, 1])
    conflict_only = Valuation.relation([x], [(0,)], mass=0.5).marginalize([])
    net = ValuationNetwork([conflict_only])
    assert net.marginals() == {}
    assert net.marginal([]).bel({()}) == 1.0


def test_extension_names_a_variable_given_with_other_labels():
    # "Variable('a', (0, 1)) is missing" when `variables` held 'a' with its labels reordered
    from dstk.exceptions import FrameMismatchError

    v = Valuation.relation([A, B], [(0, "x")], mass=0.5)
    with pytest.raises(FrameMismatchError, match=r"other labels.*Variable\('a', \(1, 0\)\)"):
        v.extend([Variable("a", [1, 0]), B])


def test_from_mass_function_takes_a_large_batch_on_17_labels():
    # the batch was read through to_array (2**17 masses a sample), refused above 4 GiB although
    # the mass functions have three focal sets
    labels = [f"l{i}" for i in range(17)]
    x = Variable("x", labels)
    one = dstk.MassFunction({("l1", "l2"): 0.3, ("l5",): 0.2, tuple(labels): 0.5}, frame=labels)
    batch = one.discount(np.linspace(0.0, 0.5, 5000))
    v = Valuation.from_mass_function(batch, x)
    assert v.batch_shape == (5000,) and v.n_focal == 3
    np.testing.assert_array_equal(v.pl({("l5",)}), batch.pl({"l5"}))
    np.testing.assert_array_equal(v.bel({("l1",), ("l2",)}), batch.bel({"l1", "l2"}))


def test_a_bare_configuration_tuple_is_explained():
    # (0, "x") was read as two configurations 0 and "x": "got 0" did not say to wrap it in a list
    v = Valuation.relation([A, B], [(0, "x")], mass=0.5)
    with pytest.raises(FrameError, match=r"single configuration goes in a list: \[\(0, 'x'\)\]"):
        v.bel((0, "x"))
    with pytest.raises(FrameError, match=r"single configuration goes in a list"):
        Valuation.relation([A, B], (1, "y"))
