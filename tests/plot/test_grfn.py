"""dstk.plot._grfn: the curves drawn are the number's contour, Bel/Pl of centred intervals and CDF bounds."""

import numpy as np
import pytest
from scipy import stats

from dstk.plot import plot_grfn_contour, plot_grfn_cumulative, plot_grfn_intervals
from dstk.reasoning import GaussianRandomFuzzyNumber

from .rendering import check_not_blank

NUMBER = GaussianRandomFuzzyNumber(2.0, 1.0, 2.0)


def test_contour_curve_is_the_closed_form():
    ax = plot_grfn_contour(NUMBER)
    x, y = ax.lines[0].get_xdata(), ax.lines[0].get_ydata()
    # Denoeux (2023), Eq. (41), written out here: height (1 + h sigma^2)^(-1/2) = 1/sqrt(3)
    np.testing.assert_allclose(y, np.exp(-((x - 2.0) ** 2) / 3.0) / np.sqrt(3.0), rtol=1e-12)
    assert y.max() == pytest.approx(1 / np.sqrt(3.0), rel=1e-4)
    check_not_blank(ax)


def test_interval_curves_bracket_the_normal_probability_and_cross_the_belief_interval():
    ax = plot_grfn_intervals(NUMBER, grid=np.linspace(0, 5, 201))
    plausibility, probability, belief = (line.get_ydata() for line in ax.lines)
    r = ax.lines[0].get_xdata()
    np.testing.assert_allclose(probability, 2 * stats.norm.cdf(r) - 1, atol=1e-12)
    assert (belief <= probability + 1e-12).all() and (probability <= plausibility + 1e-12).all()
    lower, upper = NUMBER.interval(0.9)
    crossing = np.interp(0.9, belief, r)
    assert crossing == pytest.approx(0.5 * (upper - lower), abs=0.03)
    check_not_blank(ax)


def test_cumulative_curves_are_bel_and_pl_of_half_lines():
    ax = plot_grfn_cumulative(GaussianRandomFuzzyNumber([0.5], [2.0], [0.3]))
    x = ax.lines[0].get_xdata()
    number = GaussianRandomFuzzyNumber(0.5, 2.0, 0.3)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), number.pl(-np.inf, x))
    np.testing.assert_allclose(ax.lines[2].get_ydata(), number.bel(-np.inf, x))
    check_not_blank(ax)


def test_predicted_number_of_a_regressor_is_plotted():
    pytest.importorskip("sklearn")
    from dstk.classifiers import EvidentialRegressor

    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(80, 1))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=80)
    model = EvidentialRegressor(n_prototypes=4, max_iter=100, random_state=0).fit(X, y)
    ax = plot_grfn_cumulative(model.predict_grfn(X[:1]))
    check_not_blank(ax)


def test_bad_input():
    with pytest.raises(TypeError, match="number"):
        plot_grfn_contour((2.0, 1.0, 2.0))
    with pytest.raises(ValueError, match="number"):
        plot_grfn_contour(GaussianRandomFuzzyNumber([0.0, 1.0], 1.0, 1.0))
    with pytest.raises(ValueError, match="grid"):
        plot_grfn_cumulative(NUMBER, grid=[0.0, np.nan])
    with pytest.raises(ValueError, match="grid"):
        plot_grfn_intervals(NUMBER, grid=[-1.0, 1.0])
    with pytest.raises(TypeError, match="ax"):
        plot_grfn_contour(NUMBER, ax="axes")
