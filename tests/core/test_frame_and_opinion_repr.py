"""Readable representations: quoted labels where braces and commas would mislead, long ones cut."""

import numpy as np

from dstk import Frame
from dstk.core import Opinion


def test_labels_with_separators_are_quoted_in_subset_names():
    frame = Frame(["a,b", "a", "b", " c", "{d}"])
    assert frame.format_subset(0b00001) == "{'a,b'}"
    assert frame.format_subset(0b00110) == "{a,b}"
    assert frame.format_subset(0b01000) == "{' c'}"
    assert frame.format_subset(0b10000) == "{'{d}'}"
    assert Frame("abc").format_subset(5) == "{a,c}"  # plain labels stay unquoted


def test_frame_repr_cuts_long_labels_and_stays_evaluable_when_short():
    assert repr(Frame(["a", "b"])) == "Frame(['a', 'b'])"
    assert eval(repr(Frame([1, 2, 3]))) == Frame([1, 2, 3])
    text = repr(Frame(["x" * 10_000, "y"]))
    assert len(text) < 120 and text.endswith("'y'], 2 labels)")
    many = repr(Frame(range(30)))
    assert many.startswith("Frame([0, 1,") and many.endswith("..., 28, 29], 30 labels)")


def test_opinion_repr_of_a_large_batch_is_summarised():
    rng = np.random.default_rng(0)
    batch = Opinion.from_evidence(rng.uniform(size=(1_000, 3)))
    assert len(repr(batch)) < 2_000
    single = Opinion.from_evidence([1.0, 2.0, 0.5])
    assert "..." not in repr(single)
