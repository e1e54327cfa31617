"""The data drawn equal the quantities named, checked on the artists (not pixels), on random inputs.

References are computed here from the definitions: Bel(A) = sum of m(B) over non-empty B inside A,
Pl(A) = sum over B meeting A, BetP(w) = sum_{A contains w} m(A) / (|A| (1 - m(empty))) (Smets & Kennes
1994); the GRFN curves against their closed forms (Denoeux 2023, Eq. (41)) and the class methods.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from dstk import Frame, MassFunction
from dstk.plot import (
    plot_grfn_contour,
    plot_grfn_cumulative,
    plot_grfn_intervals,
    plot_intervals,
    plot_mass,
    plot_ternary,
)
from dstk.reasoning import GaussianRandomFuzzyNumber


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def card(a):
    return bin(a).count("1")


def bel(m, a):
    return sum(m[b] for b in range(1, len(m)) if b & ~a == 0)


def pl(m, a):
    return sum(m[b] for b in range(len(m)) if b & a)


def betp(m, i):
    return sum(m[a] / card(a) for a in range(1, len(m)) if a >> i & 1) / (1 - m[0])


def random_masses(rng, n, rows, empty=False):
    values = rng.random((rows, 1 << n)) ** 3 * (rng.random((rows, 1 << n)) < 0.6)
    values[:, -1] += 1e-3
    if not empty:
        values[:, 0] = 0
    return values / values.sum(axis=1, keepdims=True)


def segments(collection):
    return [(s[0, 0], s[0, 1], s[1, 1]) for s in collection.get_segments()]


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_plot_mass_draws_the_masses_and_singleton_intervals(n):
    rng = np.random.default_rng(n)
    labels = [f"<l{i}>&" for i in range(n)][::-1]  # HTML-special labels, not in sorted order
    for values in random_masses(rng, n, 10, empty=True):
        m = MassFunction.from_array(values, Frame(labels))
        ax = plot_mass(m)
        focal = [a for a in range(1 << n) if values[a] > 1e-12]
        heights = sorted(p.get_height() for p in ax.patches)
        np.testing.assert_allclose(heights, sorted(values[focal]), rtol=1e-12)
        ticks = [t.get_text() for t in ax.get_xticklabels()]
        assert ticks[-n:] == labels  # singletons in frame order
        (intervals,) = [c for c in ax.collections if c.get_label() == "[Bel, Pl] of {w}"]
        drawn = segments(intervals)
        for i, (_, low, high) in enumerate(drawn):
            assert low == pytest.approx(bel(values, 1 << i), abs=1e-12)
            assert high == pytest.approx(pl(values, 1 << i), abs=1e-12)
        dots = [c for c in ax.collections if c.get_label() == "BetP(w)"]
        if values[0] < 1:
            np.testing.assert_allclose(
                dots[0].get_offsets()[:, 1], [betp(values, i) for i in range(n)], rtol=1e-10, atol=1e-12
            )


@pytest.mark.parametrize("n", [2, 3, 4])
def test_plot_intervals_draws_bel_pl_and_betp_of_the_event(n):
    rng = np.random.default_rng(10 + n)
    values = random_masses(rng, n, 25)
    m = MassFunction.from_array(values, Frame(range(n)))
    for event in range(1, 1 << n):
        labels = [i for i in range(n) if event >> i & 1]
        for sort in (False, True):
            ax = plot_intervals(m, subset=labels, sort=sort)
            (lines,) = [c for c in ax.collections if c.get_label().startswith("[Bel, Pl]")]
            drawn = segments(lines)
            expected = [
                (bel(row, event), pl(row, event), sum(betp(row, i) for i in labels)) for row in values
            ]
            order = np.argsort([e[2] for e in expected], kind="stable") if sort else np.arange(len(values))
            (dots,) = [c for c in ax.collections if c.get_label().startswith("BetP")]
            for k, j in enumerate(order):
                assert drawn[k][0] == k
                assert drawn[k][1] == pytest.approx(expected[j][0], abs=1e-12)
                assert drawn[k][2] == pytest.approx(expected[j][1], abs=1e-12)
                assert dots.get_offsets()[k, 1] == pytest.approx(expected[j][2], abs=1e-12)
            plt.close("all")


def test_plot_ternary_places_the_pignistic_probabilities():
    rng = np.random.default_rng(5)
    values = random_masses(rng, 3, 30)
    m = MassFunction.from_array(values, Frame("abc"))
    ax = plot_ternary(m)
    p = np.array([[betp(row, i) for i in range(3)] for row in values])
    expected = np.column_stack([p[:, 1] + 0.5 * p[:, 2], np.sqrt(3) / 2 * p[:, 2]])
    offsets = np.vstack([c.get_offsets() for c in ax.collections if len(c.get_offsets()) == 30])
    np.testing.assert_allclose(offsets, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mean, std, precision", [(2.0, 1.0, 2.0), (-3.0, 0.5, 0.1), (0.0, 2.0, 50.0)])
def test_grfn_plots_draw_the_numbers_own_functions(mean, std, precision):
    number = GaussianRandomFuzzyNumber(mean, std, precision)
    x = np.linspace(mean - 5, mean + 5, 37)
    ax = plot_grfn_contour(number, grid=x)
    contour = ax.get_lines()[0].get_ydata()
    expected = (1 + precision * std**2) ** -0.5 * np.exp(
        -precision * (x - mean) ** 2 / (2 * (1 + precision * std**2))
    )
    np.testing.assert_allclose(contour, expected, rtol=1e-10)
    r = np.linspace(0.0, 4.0, 21)
    ax = plot_grfn_intervals(number, grid=r)
    lines = {line.get_label(): line.get_ydata() for line in ax.get_lines()}
    np.testing.assert_allclose(lines["Bel([mu - r, mu + r])"], number.bel(mean - r, mean + r), rtol=1e-12)
    np.testing.assert_allclose(lines["Pl([mu - r, mu + r])"], number.pl(mean - r, mean + r), rtol=1e-12)
    assert np.all(lines["Bel([mu - r, mu + r])"] <= lines["Pl([mu - r, mu + r])"] + 1e-12)
    ax = plot_grfn_cumulative(number, grid=x)
    lines = {line.get_label(): line.get_ydata() for line in ax.get_lines()}
    low, high = number.cumulative(x)
    np.testing.assert_allclose(lines["Bel((-inf, x])"], low, rtol=1e-12)
    np.testing.assert_allclose(lines["Pl((-inf, x])"], high, rtol=1e-12)
    assert np.all(np.diff(lines["Bel((-inf, x])"]) >= -1e-12)


def test_plot_mass_on_a_wide_frame_draws_the_largest_items_and_says_how_many_are_left_out():
    n = 3000
    frame = Frame([f"w{i}" for i in range(n)])
    member = np.zeros((3, n), dtype=bool)
    member[0, 7] = True
    member[1, [7, 2999]] = True
    member[2, :] = True
    m = MassFunction.from_focal_sets(member, [0.5, 0.3, 0.2], frame)
    ax = plot_mass(m)
    assert ax.figure.get_size_inches()[0] < 40  # not one 0.55 inch column per label
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert len(ticks) <= 3 + 40
    assert "w7" in ticks[3:] and "w2999" in ticks[3:]  # the most plausible labels ...
    assert ticks[3:] == sorted(ticks[3:], key=lambda t: int(t[1:]))  # ... in frame order
    texts = " ".join(t.get_text() for t in ax.texts)
    assert f"{n - 40} more labels not shown" in texts
    (intervals,) = [c for c in ax.collections if c.get_label() == "[Bel, Pl] of {w}"]
    drawn = {ticks[3 + k]: (low, high) for k, (_, low, high) in enumerate(segments(intervals))}
    assert drawn["w7"] == pytest.approx((0.5, 1.0)) and drawn["w2999"] == pytest.approx((0.0, 0.5))


def test_plot_mass_with_thousands_of_focal_sets_keeps_the_largest():
    rng = np.random.default_rng(2)
    values = rng.random(1 << 12)
    values[0] = 0
    values[[5, 77, 4095]] = 300.0
    values /= values.sum()
    m = MassFunction.from_array(values, Frame(range(12)))
    ax = plot_mass(m)
    heights = sorted((p.get_height() for p in ax.patches), reverse=True)
    assert len(heights) == 40
    np.testing.assert_allclose(heights, np.sort(values)[::-1][:40], rtol=1e-12)
    assert "4055 more focal sets not shown" in " ".join(t.get_text() for t in ax.texts)


def test_grfn_contour_of_a_nearly_crisp_mode_draws_without_warnings():
    import warnings

    number = GaussianRandomFuzzyNumber(1.0, 1e-300, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = plot_grfn_contour(number)
    density = ax.get_lines()[1].get_ydata()
    assert np.all(np.isfinite(density)) and density.max() <= 1.0


@pytest.mark.parametrize("label", ["$5 to $10", "$\\foo$", "a_$b$"])
def test_labels_with_dollar_signs_are_drawn_literally(label):
    frame = Frame([label, "b", "c"])
    m = MassFunction.from_array(np.r_[0, np.full(7, 1 / 7)], frame)
    ax = plot_mass(m)
    ax.figure.canvas.draw()  # mathtext would fail on "\foo" or eat the dollars
    texts = [t.get_text() for t in ax.get_xticklabels()] + [ax.get_title()]
    shown = [t.replace("\\$", "$") for t in texts]
    assert label in shown and any(label in t for t in shown[-1:])
    assert all("$" not in t.replace("\\$", "") for t in texts)
    ax = plot_intervals(m.reshape(1), subset=[label])
    ax.figure.canvas.draw()
    assert ax.get_ylabel().replace("\\$", "$") == f"Bel({{{label}}}), BetP({{{label}}}), Pl({{{label}}})"
    ax = plot_ternary(m.reshape(1), y_true=[label])
    ax.figure.canvas.draw()
    assert label in [t.get_text().replace("\\$", "$") for t in ax.texts]
