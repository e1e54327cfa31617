"""Notebook representations: every batch displays (also with totally conflicting rows), labels are escaped."""

import numpy as np

from dstk import Frame, MassFunction


def test_batch_html_with_a_totally_conflicting_row_displays():
    m = MassFunction.from_array([[1.0, 0, 0, 0], [0, 0.25, 0.5, 0.25]], Frame((0, 1)))
    html = m._repr_html_()
    assert "batch of shape (2,)" in html
    # the normal row shows its pignistic probabilities, the other says BetP is undefined
    assert "<td>1</td><td>0.3750</td><td>0.6250</td>" in html
    assert '<td>0</td><td colspan="2">undefined (m(∅) = 1)</td>' in html


def test_html_escapes_labels_of_unbatched_and_batched_mass_functions():
    frame = Frame(["<b>", "a&b", "x"])
    m = MassFunction({frozenset(["<b>"]): 0.5, frozenset(["<b>", "a&b"]): 0.5}, frame=frame)
    for html in (m._repr_html_(), m.reshape(1)._repr_html_()):
        assert "<b>" not in html.replace("<b>", "", 0) or "&lt;b&gt;" in html
        assert "&lt;b&gt;" in html and "a&amp;b" in html
        assert "a&b" not in html


def test_repr_lists_focal_sets_and_frame():
    m = MassFunction({"a": 0.25, "a,b": 0.75}, frame="abc")
    assert repr(m) == "MassFunction({{a}: 0.25, {a,b}: 0.75}, frame=Frame(['a', 'b', 'c']))"
    assert str(m) == repr(m)
    big = MassFunction.vacuous(Frame(range(5000)))
    assert len(repr(big)) < 400 and len(big._repr_html_()) < 400
    assert len(MassFunction.vacuous(Frame(range(5000)), batch_shape=(3,))._repr_html_()) < 3000
    assert np.isfinite(big.nonspecificity())


def test_html_of_tiny_masses_does_not_read_as_zero():
    m = MassFunction({"a": 1e-7, "b": 1 - 1e-7})
    html = m._repr_html_()
    assert "<td>{a}</td><td>1e-07</td>" in html


def test_html_of_an_unbatched_mass_function_in_weight_form_does_not_call_it_a_batch():
    from dstk.core._structured import WeightStorage

    storage = WeightStorage.from_weights(
        np.array([0.5, 1.0, 0.0]), np.array([0.2, 0.0, 1.5]), normalized=True
    )
    m = MassFunction._from_storage(storage, Frame(["<a>", "b", "c"]))
    html = m._repr_html_()
    assert "batch of shape ()" not in html and "MassFunction on Frame(" in html
    assert "&lt;a&gt;" in html and "<th>BetP(&lt;a&gt;)</th>" in html
    assert "<th>sample</th>" not in html


def test_a_label_with_a_comma_and_the_set_of_two_labels_print_differently():
    frame = Frame(["a,b", "c", "a", "b"])
    m = MassFunction({frozenset(["a,b"]): 0.5, frozenset(["a", "b"]): 0.5}, frame=frame)
    names = [frame.format_subset(a) for a in (1, 12)]
    assert names[0] != names[1]
    assert repr(m).count(names[0]) == 1
