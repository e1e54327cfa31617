"""The first-hour gotchas: one rule for strings, and rows versus subsets of a batch."""

import numpy as np
import pytest

from dstk import Frame, MassFunction
from dstk.exceptions import FrameError


def test_frame_from_a_string_follows_the_one_rule():
    assert Frame("abc").labels == ("a", "b", "c")
    assert Frame("cat,dog").labels == ("cat", "dog")
    assert Frame(" cat , dog ").labels == ("cat", "dog")  # comma-separated, stripped
    assert Frame(["car"]).labels == ("car",)


def test_a_string_key_that_reads_two_ways_raises_without_a_frame():
    with pytest.raises(FrameError, match=r"ambiguous.*'a,b'.*frame="):
        MassFunction({"ab": 0.5, "a": 0.5})
    # with a frame, or written with commas, it is the set {a, b}
    m = MassFunction({"ab": 0.5, "a": 0.5}, frame="ab")
    assert m.mass({"a", "b"}) == 0.5
    assert MassFunction({"a,b": 0.5, "a": 0.5}).mass({"a", "b"}) == 0.5
    # a word beside one-character labels reads two ways too; beside words it is one label
    with pytest.raises(FrameError, match="ambiguous"):
        MassFunction({"rain": 0.5, "a": 0.5})
    assert MassFunction({"rain": 0.5, "a": 0.5}, frame=["a", "rain"]).mass("rain") == 0.5
    assert MassFunction({"rain": 0.5, "snow": 0.5}).frame.labels == ("rain", "snow")


def test_an_integer_on_a_batch_is_neither_row_nor_subset():
    m = MassFunction.from_array(np.array([[0.0, 0.2, 0.3, 0.5], [0.0, 0.6, 0.1, 0.3]]), frame=("x", "y"))
    with pytest.raises(TypeError, match=r"m\.batch\[i\].*m\.mass\(A\)"):
        m[0]
    with pytest.raises(TypeError, match="ambiguous"):
        m[np.int64(1)]
    assert m.batch[0].mass("x") == 0.2  # row 0
    np.testing.assert_array_equal(m.mass(1), [0.2, 0.6])  # the subset with bitmask 1 = {x}
    np.testing.assert_array_equal(m["x"], [0.2, 0.6])  # a label: every row
    unbatched = m.batch[1]
    assert unbatched[1] == 0.6  # no batch, no ambiguity: the bitmask 1 = {x}
    integer_frame = MassFunction.from_array(np.array([[0.0, 0.2, 0.3, 0.5]] * 2), frame=(0, 1))
    with pytest.raises(TypeError, match="ambiguous"):
        integer_frame[0]
    np.testing.assert_array_equal(integer_frame.mass(0), [0.2, 0.2])  # the label 0
