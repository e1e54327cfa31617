"""Probes of valuations with the inputs a careless user would give, against the definitions.

Each test pins a defect that a review found: the input, the expected answer
from the definitions (Shafer 1976, ch. 3; Smets 1993) or the error that must
name what was wrong.
"""

from __future__ import annotations

import numpy as np
import pytest

from dstk.exceptions import DataTypeError
from dstk.reasoning import Valuation, Variable

A = Variable("a", [0, 1])
B = Variable("b", ["x", "y", "z"])


def test_numeric_focal_array_is_refused_not_read_as_labels():
    # a 0/1 integer array looks like a membership array; read as sets of labels, its row [1, 0]
    # would be the focal set {1, 0} (both labels) instead of {0}
    with pytest.raises(DataTypeError, match="boolean"):
        Valuation([A], np.array([[1, 0], [1, 1]]), [0.5, 0.5])
    v = Valuation([A], np.array([[1, 0], [1, 1]]).astype(bool), [0.5, 0.5])
    assert v.bel({(0,)}) == 0.5


def test_unknown_on_conflict_is_refused_without_a_conflict():
    from dstk.reasoning import ValuationNetwork

    v = Valuation.relation([A, B], [(0, "x"), (1, "y")], mass=0.7)
    with pytest.raises(ValueError, match="on_conflict"):
        v.normalize(on_conflict="banana")
    with pytest.raises(ValueError, match="on_conflict"):
        v.combine(v, on_conflict="banana")
    net = ValuationNetwork([v, Valuation.relation([A], [(1,)], mass=0.5)])
    with pytest.raises(ValueError, match="on_conflict"):
        net.marginal([A], on_conflict="banana")
    with pytest.raises(ValueError, match="on_conflict"):
        net.marginals(on_conflict="banana")


def test_conditioning_on_an_impossible_event_says_so():
    from dstk.exceptions import TotalConflictError

    certain = Valuation.relation([A], [(0,)])
    with pytest.raises(TotalConflictError, match="conditioning event"):
        certain.condition([(1,)])
    with pytest.raises(TotalConflictError, match="conditioning event"):
        certain.condition([])
    # without normalisation the mass goes to the empty set, as the definition says
    assert certain.condition([(1,)], normalize=False).bel({(0,), (1,)}) == 0.0


def test_builders_refuse_a_product_frame_above_the_memory_cap():
    from dstk.exceptions import FrameTooLargeError

    many = [Variable(f"v{i}", range(10)) for i in range(12)]  # 10**12 configurations
    with pytest.raises(FrameTooLargeError, match="fewer variables"):
        Valuation.relation(many, [(0,) * 12], mass=0.5)
    with pytest.raises(FrameTooLargeError, match="fewer variables"):
        Valuation.vacuous(many)
    with pytest.raises(FrameTooLargeError, match="fewer variables"):
        Valuation(many, [{(0,) * 12}], [1.0])


def test_pignistic_of_a_total_conflict_raises_like_the_mass_function():
    from dstk.exceptions import InvalidMassError

    conflict = Valuation.relation([A], [(0,)]).combine(Valuation.relation([A], [(1,)]), rule="conjunctive")
    with pytest.raises(InvalidMassError, match="empty set"):
        conflict.pignistic({(0,)})
    with pytest.raises(InvalidMassError, match="empty set"):
        conflict.to_mass_function().pignistic()
    # a partial conflict is renormalised: BetP({0}) = 0.3 / (1 - 0.7 * 0.5) from the definition
    partial = Valuation.relation([A], [(0,)], mass=0.3).combine(
        Valuation.relation([A], [(1,)], mass=0.5), rule="conjunctive"
    )
    m0, m1, m_frame = 0.3 * 0.5, 0.7 * 0.5, 0.7 * 0.5  # m({0}), m({1}), m(A); m(empty) = 0.15
    assert partial.pignistic({(0,)}) == pytest.approx((m0 + m_frame / 2) / (m0 + m1 + m_frame), abs=1e-15)


def test_batches_that_do_not_broadcast_are_named_in_combine_and_networks():
    from dstk.reasoning import ValuationNetwork

    four = Valuation.relation([A], [(0,)], mass=[0.1, 0.2, 0.3, 0.4])
    three = Valuation.relation([A], [(1,)], mass=[0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match=r"batch shapes .*\(4,\).*\(3,\)"):
        four.combine(three)
    with pytest.raises(ValueError, match=r"batch shapes .*\(4,\).*\(3,\)"):
        ValuationNetwork([four, three]).marginal([A])
    # shapes that broadcast combine row by row: m({0}) = 0.1 * (1 - 0.5) / (1 - 0.1 * 0.5) for row 0
    both = four.combine(Valuation.relation([A], [(1,)], mass=0.5))
    assert both.batch_shape == (4,)
    assert both.bel({(0,)})[0] == pytest.approx(0.05 / 0.95, abs=1e-15)


def test_vacuous_batch_shape_and_network_input_are_checked():
    from dstk.reasoning import ValuationNetwork

    with pytest.raises(DataTypeError, match="batch_shape"):
        Valuation.vacuous([A], batch_shape=3)
    with pytest.raises(ValueError, match="batch_shape"):
        Valuation.vacuous([A], batch_shape=(-1,))
    with pytest.raises(DataTypeError, match="iterable of Valuation"):
        ValuationNetwork(Valuation.vacuous([A]))
    with pytest.raises(DataTypeError, match="iterable of Valuation"):
        ValuationNetwork(3)
    assert Valuation.vacuous([A], batch_shape=(2,)).bel({(0,), (1,)}).tolist() == [1.0, 1.0]
