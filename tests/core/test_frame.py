import pickle

import numpy as np
import pytest

from dstk import Frame
from dstk.exceptions import FrameError


def test_bit_encoding_and_forms():
    f = Frame(["a", "b", "c"])
    assert f.n == 3 and f.n_subsets == 8 and f.full == 7
    assert f.subset("a") == 1
    assert f.subset("ac") == 5
    assert f.subset({"b", "c"}) == 6
    assert f.subset(["c"]) == 4
    assert f.subset(5) == 5
    assert f.subset("") == 0
    assert f.subset(frozenset()) == 0
    assert f.labels_of(6) == ("b", "c")
    assert f.format_subset(0) == "∅" and f.format_subset(7) == "Ω" and f.format_subset(3) == "{a,b}"


def test_multichar_labels_and_integer_labels():
    f = Frame(["cat", "dog", "bird"])
    assert f.subset("dog") == 2
    assert f.subset(["cat", "bird"]) == 5
    assert f.subset(3) == 3  # bitmask
    with pytest.raises(FrameError, match="'do'"):
        f.subset("do")
    g = Frame((0, 1))
    # integer labels: an int is a label
    assert g.subset(1) == 2 and g.subset(0) == 1
    assert g.subset({0, 1}) == 3
    assert g.mask(3) == 3
    assert g.subset(np.int64(1)) == 2


def test_errors():
    f = Frame("abc")
    with pytest.raises(FrameError, match=r"'z'.*Frame"):
        f.subset("z")
    with pytest.raises(FrameError, match="'z'"):
        f.subset({"a", "z"})
    with pytest.raises(FrameError, match="outside"):
        f.subset(8)
    with pytest.raises(FrameError, match="distinct"):
        Frame(["a", "a"])
    with pytest.raises(FrameError, match="at least one"):
        Frame([])
    assert Frame(range(65)).full == 2**65 - 1  # any number of labels; subsets are Python ints


def test_equality_hash_pickle():
    assert Frame("ab") == Frame(["a", "b"])
    assert Frame("ab") != Frame("ba")
    assert len({Frame("ab"), Frame(["a", "b"])}) == 1
    f = Frame(range(64))
    assert pickle.loads(pickle.dumps(f)) == f
    assert f.full == 2**64 - 1


def test_a_boolean_label_names_itself_in_a_frame_of_boolean_labels():
    import dstk

    frame = Frame([False, True])
    assert frame.subset(True) == 0b10 and frame.subset(np.bool_(False)) == 0b01
    m = dstk.MassFunction.from_array([0.0, 0.3, 0.5, 0.2], frame)
    assert m.pl(True) == pytest.approx(0.7) and m.bel(False) == pytest.approx(0.3)
    assert dstk.MassFunction({True: 0.5, False: 0.5}).pl(True) == pytest.approx(0.5)
    for other in (Frame([0, 1]), Frame(["a", "b"])):  # never read as the label 1 or as a bitmask
        with pytest.raises(FrameError, match="not a subset"):
            other.subset(True)


def test_repr_of_a_wide_frame_is_cut_to_its_first_and_last_labels():
    frame = Frame([f"c{i}" for i in range(1000)])
    text = repr(frame)
    assert text.startswith("Frame(['c0', 'c1', ") and text.endswith("..., 'c998', 'c999'], 1000 labels)")
    assert text.count("'") == 2 * 20
    twenty = [f"c{i}" for i in range(20)]
    assert repr(Frame(twenty)) == f"Frame({twenty!r})"


def test_format_subset_cuts_a_large_subset_and_counts_it():
    frame = Frame([f"c{i}" for i in range(100)])
    subset = frame.subset([f"c{i}" for i in range(30)])
    text = frame.format_subset(subset)
    assert text == "{" + ",".join(f"c{i}" for i in range(18)) + ",...,c28,c29} (30 labels)"
    small = frame.subset([f"c{i}" for i in range(20)])
    assert frame.format_subset(small) == "{" + ",".join(f"c{i}" for i in range(20)) + "}"
