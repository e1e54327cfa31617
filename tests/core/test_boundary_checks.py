"""Checks at the public boundary of dstk.core: representations' own conditions, options a rule does not use,
what is not a mass function."""

import numpy as np
import pytest

from dstk import Frame, MassFunction
from dstk.core import combine, decide, pignistic
from dstk.exceptions import DataTypeError, FrameError, InvalidMassError

M = MassFunction({"a": 0.3, "a,b": 0.5, "": 0.2}, frame="ab")  # subnormal: m(∅) = 0.2


@pytest.mark.parametrize("kind", ["bel", "pl", "q", "b", "m"])
def test_every_representation_round_trips(kind):
    back = MassFunction.from_array(M.to_array(kind), M.frame, kind=kind)
    np.testing.assert_allclose(back.to_array(), M.to_array(), atol=1e-12)


@pytest.mark.parametrize(
    "kind, index, value, condition",
    [
        ("bel", 0, 0.2, "bel\\(∅\\) = 0"),
        ("pl", 0, 0.1, "pl\\(∅\\) = 0"),
        ("q", 0, 0.5, "q\\(∅\\) = 1"),
        ("b", -1, 0.9, "b\\(Ω\\) = 1"),
    ],
)
def test_a_representation_violating_its_condition_is_refused(kind, index, value, condition):
    values = M.to_array(kind).copy()
    values[index] = value
    with pytest.raises(InvalidMassError, match=condition):
        MassFunction.from_array(values, M.frame, kind=kind)


def test_issue_example_bel_with_nonzero_empty_set():
    with pytest.raises(InvalidMassError, match="bel"):
        MassFunction.from_array([0.2, 0.5, 0.3, 1], "ab", kind="bel")


def test_complex_values_are_refused():
    with pytest.raises(TypeError, match="Complex data not supported: `values`"):
        MassFunction.from_array([0, 0.5, 0.5 + 0j, 0], "ab")
    with pytest.raises(ValueError, match="Complex data not supported: `utility`"):
        decide(M, utility=np.eye(2) + 0j)


def test_options_the_rule_does_not_use():
    m = MassFunction({"a": 0.5, "b": 0.5})
    with pytest.raises(ValueError, match="`weights`"):
        combine([m, m], rule="dempster", weights=[1, 2])
    with pytest.raises(ValueError, match="`normalize=True`"):
        combine([m, m], rule="dempster", normalize=True)
    with pytest.raises(TypeError, match="`axis` must be an integer"):
        combine(m, axis=0.5)
    np.testing.assert_allclose(combine([m, m], rule="average", weights=[1, 3]).to_array(), m.to_array())


def test_focal_sets_must_be_integers_and_frame_given():
    with pytest.raises(ValueError, match=r"integer bitmasks; got 2\.5"):
        MassFunction.from_focal_sets([1.0, 2.5], [0.5, 0.5], frame="ab")
    with pytest.raises(FrameError, match="`frame` is None"):
        MassFunction.from_focal_sets([1], [1.0], frame=None)
    assert MassFunction.from_focal_sets([1.0, 2.0], [0.5, 0.5], frame=Frame("ab")).pl("a") == 0.5


@pytest.mark.parametrize("bad", [np.array([0, 0.5, 0.5, 0]), [0, 0.5, 0.5, 0], None, "ab"])
def test_what_is_not_a_mass_function(bad):
    with pytest.raises(DataTypeError, match=r"`m` must be a dstk\.MassFunction"):
        pignistic(bad)
    with pytest.raises(DataTypeError, match="`masses`"):
        combine([M, bad])


def test_a_dict_is_a_mass_function():
    np.testing.assert_allclose(pignistic({"a": 0.5, "a,b": 0.5}), [0.75, 0.25])
    assert decide({"a": 1.0}, return_indices=True) == 0
