"""dstk.plot._mass: bar chart of focal sets, batch interval plot, ternary plot."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import LineCollection, PathCollection

from dstk import Frame, MassFunction
from dstk.evidence import from_counts
from dstk.plot import plot_intervals, plot_mass, plot_ternary

from .rendering import check_not_blank

FOCAL = {frozenset("a"): 0.5, frozenset("ab"): 0.3, frozenset("abc"): 0.2}


def brute_bel(focal, event):
    return sum(v for a, v in focal.items() if a and a <= event)


def brute_pl(focal, event):
    return sum(v for a, v in focal.items() if a & event)


def brute_betp(focal, label):
    return sum(v / len(a) for a, v in focal.items() if label in a)


def test_plot_mass_bars_and_intervals_match_the_definitions():
    m = MassFunction(
        {"".join(sorted(a)) if len(a) == 1 else ",".join(sorted(a)): v for a, v in FOCAL.items()}
    )
    ax = plot_mass(m)
    bars = list(ax.patches)
    assert [round(b.get_height(), 12) for b in bars] == [0.5, 0.3, 0.2]
    segments = next(c for c in ax.collections if isinstance(c, LineCollection)).get_segments()
    for label, segment in zip("abc", segments):
        (_, low), (_, high) = segment
        assert low == pytest.approx(brute_bel(FOCAL, frozenset(label)))
        assert high == pytest.approx(brute_pl(FOCAL, frozenset(label)))
    dots = [c for c in ax.collections if isinstance(c, PathCollection)][-1].get_offsets()
    assert np.allclose(dots[:, 1], [brute_betp(FOCAL, x) for x in "abc"])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["{a}", "{a,b}", "Ω", "a", "b", "c"]
    check_not_blank(ax)


def test_plot_mass_uses_given_axes_and_integer_labels():
    _fig, ax = plt.subplots()
    m = MassFunction({frozenset([0]): 0.2, frozenset([1]): 0.5, frozenset([0, 1]): 0.3}, frame=Frame((0, 1)))
    assert plot_mass(m, ax=ax) is ax
    assert [round(b.get_height(), 12) for b in ax.patches] == [0.2, 0.5, 0.3]
    check_not_blank(ax)


def test_plot_mass_subnormal_and_total_conflict():
    frame = Frame("ab")
    m = MassFunction.from_array([0.4, 0.3, 0.0, 0.3], frame)
    ax = plot_mass(m)
    assert [t.get_text() for t in ax.get_xticklabels()][:3] == ["∅", "{a}", "Ω"]
    check_not_blank(ax)
    conflict = MassFunction.from_array([1.0, 0.0, 0.0, 0.0], frame)
    check_not_blank(plot_mass(conflict))  # BetP undefined: no dots, but the bar is drawn


def test_plot_mass_errors():
    with pytest.raises(TypeError, match="MassFunction"):
        plot_mass({"a": 1.0})
    with pytest.raises(ValueError, match="batch"):
        plot_mass(from_counts([[2, 1], [2, 2]]))
    with pytest.raises(TypeError, match="Axes"):
        plot_mass(MassFunction({"a": 1.0}), ax="not an axes")


def test_plot_intervals_binary_batch_against_dempster_model():
    k = np.array([0, 1, 3, 8])
    n = np.array([1, 2, 4, 10])
    ax = plot_intervals(from_counts(np.stack([n - k, k], axis=-1), model="dempster"), y_true=[0, 1, 1, 0])
    segments = next(c for c in ax.collections if isinstance(c, LineCollection)).get_segments()
    # Dempster's model (Xu et al. Eq. 24): Bel({1}) = k/(n+1), Pl({1}) = (k+1)/(n+1)
    assert np.allclose([s[0][1] for s in segments], k / (n + 1))
    assert np.allclose([s[1][1] for s in segments], (k + 1) / (n + 1))
    assert "{1}" in ax.get_ylabel()
    check_not_blank(ax)


def test_plot_intervals_sorted_and_with_x():
    m = from_counts([[5, 5], [3, 0], [0, 2]], model="likelihood")
    ax = plot_intervals(m, sort=True)
    dots = next(c for c in ax.collections if isinstance(c, PathCollection)).get_offsets()
    assert np.all(np.diff(dots[:, 1]) >= 0)
    ax = plot_intervals(m, x=[0.3, -1.0, 2.0], xlabel="score")
    segments = next(c for c in ax.collections if isinstance(c, LineCollection)).get_segments()
    assert [s[0][0] for s in segments] == [0.3, -1.0, 2.0]
    assert ax.get_xlabel() == "score"
    check_not_blank(ax)


def test_plot_intervals_multiclass_subset():
    m = from_counts([[3, 1, 0], [0, 0, 0], [1, 1, 8]], model="dempster")
    ax = plot_intervals(m, subset=2)
    segments = next(c for c in ax.collections if isinstance(c, LineCollection)).get_segments()
    # imprecise Dirichlet / Dempster: Bel({c}) = n_c/(N+1), Pl({c}) = (n_c+1)/(N+1)
    assert np.allclose([s[0][1] for s in segments], [0 / 5, 0, 8 / 11])
    assert np.allclose([s[1][1] for s in segments], [1 / 5, 1, 9 / 11])
    check_not_blank(ax)


def test_plot_intervals_errors():
    m3 = from_counts([[3, 1, 0], [1, 1, 8]], model="dempster")
    with pytest.raises(ValueError, match="subset="):
        plot_intervals(m3)
    m = from_counts([[2, 1], [2, 2]])
    with pytest.raises(ValueError, match="`x` has 3"):
        plot_intervals(m, x=[1, 2, 3])
    with pytest.raises(ValueError, match="`y_true` has 1"):
        plot_intervals(m, y_true=[1])
    with pytest.raises(ValueError, match="1-D batch"):
        plot_intervals(from_counts([[[2, 1], [2, 2]]]))
    with pytest.raises(ValueError, match="NaN"):
        plot_intervals(m, x=[0.0, np.nan])


def test_plot_ternary_points_are_barycentric():
    probabilities = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1 / 3, 1 / 3, 1 / 3]])
    ax = plot_ternary(probabilities, labels=["x", "y", "z"])
    points = next(c for c in ax.collections if isinstance(c, PathCollection)).get_offsets()
    expected = np.array([[0, 0], [1, 0], [0.5, np.sqrt(3) / 2], [0.5, np.sqrt(3) / 6]])
    assert np.allclose(points, expected)
    check_not_blank(ax, min_fraction=0.01)


def test_plot_ternary_mass_function_with_classes():
    rng = np.random.default_rng(0)
    m = from_counts(rng.integers(0, 6, size=(40, 3)), model="dempster")
    y = rng.integers(0, 3, size=40)
    ax = plot_ternary(m, y_true=y)
    points = np.concatenate([c.get_offsets() for c in ax.collections if isinstance(c, PathCollection)])
    assert points.shape == (40, 2)
    assert len(ax.get_legend().get_texts()) == len(np.unique(y))
    check_not_blank(ax, min_fraction=0.01)


def test_plot_ternary_errors():
    with pytest.raises(ValueError, match="sum to one"):
        plot_ternary([[0.5, 0.2, 0.2]])
    with pytest.raises(ValueError, match="shape"):
        plot_ternary([[0.5, 0.5]])
    with pytest.raises(ValueError, match="three-label"):
        plot_ternary(from_counts([[1, 1]]))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        plot_ternary([[1.5, -0.5, 0.0]])
    with pytest.raises(ValueError, match="`y_true` has 1"):
        plot_ternary([[0.2, 0.3, 0.5], [0.2, 0.3, 0.5]], y_true=[0])


def test_plot_intervals_accepts_a_boolean_mask_and_rejects_unknown_labels():
    frame = Frame(("no", "yes"))
    m = MassFunction.from_array([[0, 0.2, 0.5, 0.3], [0, 0.6, 0.1, 0.3], [0, 0.1, 0.1, 0.8]], frame)

    def groups(ax):
        dots = [c for c in ax.collections if isinstance(c, PathCollection)]
        return [c.get_offsets().tolist() for c in dots]  # [true label in A, not in A]

    by_label = groups(plot_intervals(m, subset="yes", y_true=["yes", "no", "yes"]))
    by_mask = groups(plot_intervals(m, subset="yes", y_true=np.array([True, False, True])))
    assert by_label == by_mask
    assert [len(g) for g in by_label] == [2, 1]
    with pytest.raises(ValueError, match="not in the frame"):
        plot_intervals(m, subset="yes", y_true=["yes", "maybe", "no"])
    plt.close("all")


def test_ternary_refuses_unknown_classes_before_making_a_figure():
    plt.close("all")
    m = MassFunction.from_array(np.tile(np.eye(8)[[1]], (2, 1)), Frame(["x", "y", "z"]))
    with pytest.raises(ValueError, match="not classes of the plot"):
        plot_ternary(m, y_true=["x", "typo"])
    with pytest.raises(ValueError, match="3 labels but there are 2 samples"):
        plot_ternary(m, y_true=["x", "y", "z"])
    assert plt.get_fignums() == []
    # probability arrays: indices 0-2 or the vertex names
    values = np.array([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]])
    by_name = plot_ternary(values, labels=["a", "b", "c"], y_true=["a", "b"])
    by_index = plot_ternary(values, labels=["a", "b", "c"], y_true=[0, 1])
    assert len(by_name.collections) == len(by_index.collections) == 2
    plt.close("all")
