"""Defects found by probing the core with unusual but valid inputs; one test per defect."""

import numpy as np
import pytest

from dstk import MassFunction, combine
from dstk.exceptions import InvalidMassError


def _conflict_free_pair():
    """Two sources whose focal sets all contain label "a": their conjunctive combination is normal."""
    m1 = MassFunction({"a": 0.2, "a,b": 0.3, "a,c": 0.1, "a,b,c": 0.4})
    m2 = MassFunction({"a,b": 0.6, "a,c": 0.15, "a,b,c": 0.25})
    return m1, m2


def test_pcr6_accepts_rounding_residue_on_the_empty_set():
    # the conjunctive combination of conflict-free sources, or a mass function read back from its
    # commonalities, can carry m(empty) of a few ulps: PCR6 must treat it as the 0 it is
    m1 = MassFunction({"a": 0.5, "b": 0.3, "a,b": 0.2})
    m2 = MassFunction({"a": 0.1, "a,b": 0.9})
    from_q = MassFunction.from_array(m1.to_array("q"), frame=m1.frame, kind="q")
    assert 0.0 < from_q.conflict <= 1e-15
    expected = combine([m1, m2], rule="pcr6").to_array()
    np.testing.assert_allclose(combine([from_q, m2], rule="pcr6").to_array(), expected, atol=1e-15)


def test_pcr6_still_refuses_a_real_empty_set_mass_and_says_how_much():
    m1, m2 = _conflict_free_pair()
    subnormal = MassFunction({(): 0.1, "a": 0.9}, frame=m1.frame)
    with pytest.raises(InvalidMassError, match=r"m\(empty\) = 0\.1\. Normalise"):
        combine([subnormal, m2], rule="pcr6")


@pytest.mark.parametrize("tolerance", [float("nan"), -0.1, float("inf"), "0.1"])
def test_focal_sets_refuses_a_tolerance_that_is_not_a_non_negative_number(tolerance):
    # a NaN tolerance silently returned no focal set at all, a negative one listed zero masses
    m = MassFunction({"a": 0.5, "b": 0.3, "a,b": 0.2})
    with pytest.raises((ValueError, TypeError), match="tolerance"):
        m.focal_sets(tolerance)


def test_focal_sets_tolerance_still_filters():
    m = MassFunction({"a": 0.5, "b": 0.3, "a,b": 0.2})
    assert m.focal_sets(0.25) == {frozenset({"a"}): 0.5, frozenset({"b"}): 0.3}
    assert len(m.focal_sets()) == 3


def test_frames_in_another_order_are_named_as_such_with_the_fix():
    # the same labels in another order are different frames (bitmasks differ), but the message said
    # only "different frames", which reads as false to a user who listed the same labels
    from dstk import jousselme_distance
    from dstk.exceptions import FrameMismatchError

    m = MassFunction({"a": 0.5, "a,b": 0.3, "a,b,c": 0.2})
    reordered = MassFunction({"a": 1.0}, frame="cba")
    for call in (lambda: combine([m, reordered]), lambda: jousselme_distance(m, reordered)):
        with pytest.raises(FrameMismatchError, match=r"same labels in another order.*extend\("):
            call()
    np.testing.assert_allclose(
        combine([m, reordered.extend(m.frame)]).to_array(),
        combine([m, MassFunction({"a": 1.0}, frame="abc")]).to_array(),
    )
    with pytest.raises(FrameMismatchError, match="different frames"):
        combine([m, MassFunction({"a": 1.0}, frame="abd")])


@pytest.mark.parametrize("labels", ["abc", [f"x{i}" for i in range(18)], [f"x{i}" for i in range(70)]])
def test_normalize_of_a_nearly_total_conflict_issues_no_overflow_warning(labels, recwarn):
    # m(empty) / (sum of the non-empty masses) overflowed (1 / 1e-310) before being set to 0,
    # so a correct normalisation issued numpy's "overflow encountered in divide"
    from dstk.core import normalize

    m = MassFunction.from_focal_sets([0, 1], [1.0, 1e-310], labels)
    out = normalize(m)
    assert out.focal_sets() == {frozenset({labels[0]}): 1.0}
    assert m.condition(labels[0]).focal_sets() == {frozenset({labels[0]}): 1.0}
    assert not [w for w in recwarn.list if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize(
    "labels", [[float("nan"), float("nan")], [float("nan"), "a"], np.array([1.0, np.nan])]
)
def test_frame_refuses_nan_labels(labels):
    # NaN != NaN: a NaN label could never be looked up again (two of them even passed as distinct)
    from dstk import Frame
    from dstk.exceptions import FrameError

    with pytest.raises(FrameError, match="NaN"):
        Frame(labels)


def test_mass_function_with_a_nan_key_is_refused():
    from dstk.exceptions import FrameError

    with pytest.raises(FrameError, match="NaN"):
        MassFunction({float("nan"): 0.5, 2.0: 0.5})


def test_too_slow_message_of_many_sources_stays_readable():
    # the refusal listed the focal-set count of every source: "2 x 2 x ... x 2", 800 times
    from dstk.exceptions import FrameTooLargeError

    # (800 sources of 256 focal sets: too slow even if the fold's focal sets never multiplied)
    labels = [f"l{i}" for i in range(18)]
    rng = np.random.default_rng(0)
    focal = rng.choice(np.arange(1, 1 << 18), size=256, replace=False)
    masses = rng.dirichlet(np.ones(256), size=800)
    sources = MassFunction.from_focal_sets(focal, masses, labels)
    with pytest.raises(FrameTooLargeError) as info:
        combine(sources, axis=0)
    message = str(info.value)
    assert len(message) < 800, message[:300]
    assert "800 sources of 256 focal sets each" in message


def test_axis_with_a_list_of_sources_is_refused():
    # combine([mb1, mb2], axis=0) ignored axis (even axis=5): the list's items were combined
    mb = MassFunction.from_array(np.array([[0, 0.5, 0.3, 0.2], [0, 0.2, 0.2, 0.6]]), frame="ab")
    for axis in (0, 5):
        with pytest.raises(ValueError, match=r"axis.*one batched MassFunction"):
            combine([mb, mb], axis=axis)
    np.testing.assert_array_equal(
        combine([mb, mb]).to_array(), combine(MassFunction.stack([mb, mb]), axis=0).to_array()
    )
