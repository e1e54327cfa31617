"""Probes of conditional belief functions and valuation networks with careless inputs.

Each test pins a defect that a review found, with the answer the definitions
give (Smets 1993, eq. 4.4 for the generalised Bayesian theorem) or the error
that must say what was wrong.
"""

from __future__ import annotations

import numpy as np
import pytest

import dstk
from dstk.exceptions import FrameMismatchError, FrameTooLargeError
from dstk.reasoning import Valuation, ValuationNetwork, Variable, generalized_bayes

X = Variable("x", ["x1", "x2"])
Y = Variable("y", ["y1", "y2", "y3"])


def _on_y(masses):
    """A valuation on Y with focal sets {y1}, {y2, y3}, Y and masses ``masses`` (..., 3)."""
    focal = np.array([[1, 0, 0], [0, 1, 1], [1, 1, 1]], dtype=bool)
    return Valuation([Y], focal, masses)


def _pairs(v):
    return dict(v.focal_sets())


def test_generalized_bayes_broadcasts_conditionals_of_different_batch_shapes():
    rng = np.random.default_rng(0)
    batched = rng.dirichlet(np.ones(3), size=4)
    conditionals = {"x1": _on_y(batched), "x2": _on_y([0.2, 0.5, 0.3])}
    observation = _on_y([0.6, 0.1, 0.3])
    posterior = generalized_bayes(conditionals, observation, given=X, target=Y)
    assert posterior.batch_shape == (4,)
    for i in range(4):
        row = generalized_bayes(
            {"x1": _on_y(batched[i]), "x2": conditionals["x2"]}, observation, given=X, target=Y
        )
        got = {s: m[i] for s, m in _pairs(posterior).items()}
        want = _pairs(row)
        assert set(got) | set(want) == set(want)
        for s in want:
            assert got.get(s, 0.0) == pytest.approx(want[s], abs=1e-15)


def test_generalized_bayes_names_batch_shapes_that_do_not_broadcast():
    conditionals = {"x1": _on_y(np.full((4, 3), 1 / 3)), "x2": _on_y([0.2, 0.5, 0.3])}
    with pytest.raises(ValueError, match="must broadcast"):
        generalized_bayes(conditionals, _on_y(np.full((3, 3), 1 / 3)), given=X, target=Y)


def test_generalized_bayes_refuses_conditionals_for_unknown_labels():
    conditionals = {"x1": _on_y([1, 0, 0]), "x2": _on_y([0, 1, 0]), "x3": _on_y([0, 0, 1])}
    with pytest.raises(FrameMismatchError, match="x3"):
        generalized_bayes(conditionals, _on_y([1, 0, 0]), given=X, target=Y)


def test_generalized_bayes_checks_the_memory_cap_before_allocating():
    big = Variable("big", range(40))  # 2**40 subsets of the posterior's frame
    mf = dstk.MassFunction({"y1": 1.0}, frame=["y1", "y2", "y3"])
    with pytest.raises(FrameTooLargeError, match="2\\*\\*40"):
        generalized_bayes(dict.fromkeys(big.labels, mf), mf, given=big, target=Y)


def test_elimination_order_refuses_a_variable_with_other_labels():
    net = ValuationNetwork([Valuation.relation([X, Y], [("x1", "y1"), ("x2", "y2")], mass=0.8)])
    impostor = Variable("y", ["a", "b"])
    with pytest.raises(FrameMismatchError, match="'y'"):
        net.marginal([X], elimination_order=[impostor])
    with pytest.raises(FrameMismatchError, match="'x'"):
        net.marginal([Variable("x", ["x1"])], elimination_order=[Y])


def test_conditional_embedding_names_a_bad_condition():
    from dstk.exceptions import DataTypeError, FrameError
    from dstk.reasoning import conditional_embedding

    given = Variable("g", [0, 1])
    conditional = _on_y([1.0, 0.0, 0.0])
    with pytest.raises(DataTypeError, match="collection of labels"):
        conditional_embedding(conditional, given=given, condition=0, target=Y)  # a label, not in a list
    with pytest.raises(FrameError, match="empty"):
        conditional_embedding(conditional, given=given, condition=[], target=Y)
    # the label in a list is the ballooning extension ({0} x B) u ({1} x Y) of the definition
    (focal, mass), *rest = conditional_embedding(
        conditional, given=given, condition=[0], target=Y
    ).focal_sets()
    assert not rest and mass == 1.0
    assert focal == {(0, "y1")} | {(1, y) for y in Y.labels}
