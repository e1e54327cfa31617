"""Bad input gets a clear error, never a silent NaN."""

import numpy as np
import pytest

from dstk import Frame, MassFunction
from dstk.core import MASS_TOLERANCE
from dstk.exceptions import FrameError, FrameMismatchError, FrameTooLargeError, InvalidMassError


@pytest.mark.parametrize(
    "values, match",
    [
        ([0, -0.1, 0.6, 0.5], "negative"),
        ([0, np.nan, 0.5, 0.5], "NaN"),
        ([0, np.inf, 0.5, 0.5], "NaN or infinite"),
        ([0, 0.2, 0.2, 0.2], "sum to 0.6"),
    ],
)
def test_invalid_masses(values, match):
    with pytest.raises(InvalidMassError, match=match):
        MassFunction.from_array(values, Frame("ab"))


def test_tolerance_is_stated_and_applied():
    assert MASS_TOLERANCE == 1e-9
    MassFunction.from_array([0, 0.5, 0.5 + 5e-10, 0], Frame("ab"))
    with pytest.raises(InvalidMassError, match="tolerance 1e-09"):
        MassFunction.from_array([0, 0.5, 0.5 + 1e-8, 0], Frame("ab"))
    m = MassFunction.from_array([0, -1e-12, 0.5, 0.5 + 1e-12], Frame("ab"))
    assert m["a"] == 0.0


def test_batch_error_names_the_sample():
    arr = np.tile([0, 0.5, 0.5, 0], (5, 1))
    arr[3, 1] = 0.7
    with pytest.raises(InvalidMassError, match="batch index \\(3,\\)"):
        MassFunction.from_array(arr, Frame("ab"))


def test_mapping_errors():
    with pytest.raises(FrameError, match="'z'"):
        MassFunction({"z": 1.0}, frame="ab")
    with pytest.raises(InvalidMassError, match="sum"):
        MassFunction({"a": 0.3})
    with pytest.raises(TypeError, match="from_array"):
        MassFunction([0, 1])


def test_shape_and_size_errors():
    with pytest.raises(ValueError, match="2\\*\\*n = 4"):
        MassFunction.from_array([0.5, 0.5], Frame("ab"))
    with pytest.raises(FrameTooLargeError, match=r"GiB.*focal-set form"):
        MassFunction.from_array(np.broadcast_to(np.zeros(2**20), (2**12, 2**20)), Frame(range(20)))
    with pytest.raises(FrameMismatchError):
        MassFunction({"a": 1.0}, frame="ab").allclose(MassFunction({"a": 1.0}, frame="ac"))


def test_pickle_round_trip():
    import pickle

    m = MassFunction.from_array(np.tile([0, 0.2, 0.3, 0.5], (3, 1)), Frame(("x", "y")))
    back = pickle.loads(pickle.dumps(m))
    assert back.frame == m.frame and back.allclose(m)
    s = MassFunction.from_focal_sets([1, 6], [0.4, 0.6], Frame(range(30)))
    assert pickle.loads(pickle.dumps(s)).allclose(s)


@pytest.mark.parametrize(
    "value, match",
    [
        (0.5 + 0j, "Complex data not supported"),
        ("0.5", "must be numeric"),
        (None, "is None"),
        ([0.5, [0.5]], "ragged"),
    ],
)
def test_mapping_and_focal_set_masses_are_numbers(value, match):
    # strings were parsed and complex numbers cast to their real part (NumPy's ComplexWarning only)
    from dstk.exceptions import DataTypeError

    with pytest.raises(
        (DataTypeError, ValueError), match=r"`focal\['a'\]`.*" if value is not None else "`focal"
    ):
        MassFunction({"a": value, "ab": 0.5}, frame="ab")
    with pytest.raises((DataTypeError, ValueError), match=match):
        MassFunction({"a": value, "ab": 0.5}, frame="ab")
    if not isinstance(value, list):
        with pytest.raises((DataTypeError, ValueError), match="`masses`"):
            MassFunction.from_focal_sets([1, 3], np.array([value, 0.5]), frame="ab")


def test_batch_selection_through_getitem_points_to_batch():
    m = MassFunction.from_array(np.tile([0.0, 0.5, 0.5, 0.0], (3, 1)), "ab")
    for index in (slice(0, 2), np.array([True, False, True])):
        with pytest.raises(TypeError, match=r"m\.batch\[index\]"):
            m[index]
    assert m.batch[np.array([True, False, True])].batch_shape == (2,)
    assert m["a"].tolist() == [0.5, 0.5, 0.5]


def test_the_conflict_warning_names_the_caller_s_line():
    import warnings

    import dstk

    a, b = dstk.MassFunction({"a": 1.0}, frame="ab"), dstk.MassFunction({"b": 1.0}, frame="ab")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dstk.combine([a, b], on_conflict="vacuous")
        dstk.combine_with_conflict([a, b], rule="dempster", on_conflict="nan")
    assert [w.filename for w in caught] == [__file__, __file__]
    assert all(issubclass(w.category, dstk.exceptions.ConflictWarning) for w in caught)


def test_shapes_that_do_not_fit_the_batch_name_the_argument():
    import dstk
    from dstk.core import contextual_discount

    m = dstk.MassFunction.from_array(np.tile([0, 0.2, 0.3, 0.5], (2, 1)), "ab")
    with pytest.raises(ValueError, match="`rate` of shape \\(3,\\) does not broadcast"):
        m.discount([0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="`rates` of shape \\(3, 2\\) does not broadcast"):
        contextual_discount(m, np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"source axis 1 .* has length 0"):
        dstk.combine(dstk.MassFunction.from_array(np.zeros((3, 0, 4)), "ab"), axis=1)
    assert m.discount([0.1, 0.2]).batch_shape == (2,)
    assert contextual_discount(m, np.zeros((3, 1, 2))).batch_shape == (3, 2)


_GOOD_DICT = {
    "format": "dstk.MassFunction",
    "version": 1,
    "frame": ["a", "b"],
    "batch_shape": [],
    "focal_sets": [["a"], ["a", "b"]],
    "masses": [0.5, 0.5],
}


@pytest.mark.parametrize(
    "change, error, match",
    [
        ({"masses": ["0.5", "0.5"]}, "DataTypeError", "masses"),
        ({"masses": [True, False]}, "DataTypeError", "masses"),
        ({"masses": {"a": 1.0}}, "DataTypeError", "masses"),
        ({"masses": [[0.5], [0.5, 0.5]], "batch_shape": [2]}, "ValueError", "ragged"),
        ({"focal_sets": [["a"], ["a"]]}, "ValueError", "twice"),
        ({"focal_sets": [["a"], ["a", "a", "b"]]}, "ValueError", "repeats a label"),
        ({"batch_shape": [1.0], "masses": [[0.5, 0.5]]}, "DataTypeError", "batch_shape"),
        ({"batch_shape": [True], "masses": [[0.5, 0.5]]}, "DataTypeError", "batch_shape"),
        ({"frame": 3}, "DataTypeError", "frame"),
        ({"focal_sets": None}, "DataTypeError", "focal_sets"),
        ({"focal_sets": "ab"}, "DataTypeError", "focal_sets"),
        ({"masses": [0.5, 0.7]}, "InvalidMassError", "sum"),
    ],
)
def test_from_dict_refuses_what_to_dict_never_writes(change, error, match):
    import json

    from dstk import exceptions

    assert MassFunction.from_dict(_GOOD_DICT) == MassFunction({"a": 0.5, "a,b": 0.5})
    expected = getattr(exceptions, error, ValueError)
    with pytest.raises(expected, match=match):
        MassFunction.from_dict({**_GOOD_DICT, **change})
    with pytest.raises(expected, match=match):
        MassFunction.from_json(json.dumps({**_GOOD_DICT, **change}))


@pytest.mark.parametrize(
    "label",
    [
        b"x",
        frozenset({1}),
        __import__("datetime").date(2020, 1, 1),
        __import__("fractions").Fraction(1, 2),
        1j,
    ],
    ids=["bytes", "frozenset", "date", "Fraction", "complex"],
)
def test_to_json_names_a_label_json_cannot_store(label):
    from dstk import Frame
    from dstk.exceptions import DataTypeError

    m = MassFunction.vacuous(Frame([label, "z"]))
    with pytest.raises(DataTypeError, match=type(label).__name__):
        m.to_json()
    with pytest.raises(DataTypeError, match=type(label).__name__):
        MassFunction.vacuous(Frame([("t", label), "z"])).to_json()
    assert '"frame"' in m.to_json(default=str)  # the caller's own encoder is respected
    good = MassFunction.vacuous(Frame([("t", 1), None, 2.5, True]))
    assert MassFunction.from_json(good.to_json()) == good


def test_materialising_a_broadcast_batch_checks_the_memory_cap():
    from dstk import Frame
    from dstk.exceptions import FrameTooLargeError

    with pytest.raises(FrameTooLargeError, match="broadcast"):
        MassFunction.vacuous(Frame(range(10))).broadcast_to((700_000,))
    labels = [f"c{i}" for i in range(20)]
    sparse = MassFunction.from_focal_sets([1, 3, (1 << 20) - 1], [0.2, 0.3, 0.5], labels)
    with pytest.raises(FrameTooLargeError, match="broadcast"):
        sparse.broadcast_to((200_000_000,))
    small = MassFunction.vacuous(Frame(range(10))).broadcast_to((1000,))
    assert small.to_array().shape == (1000, 1024) and small.pignistic().shape == (1000, 10)
