"""Bad plot options are refused with a message naming the option (not matplotlib's or numpy's words)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from dstk.calibration import LogisticCalibrator
from dstk.evidence import BinomialLikelihood
from dstk.metrics import reliability_bands
from dstk.plot import plot_calibration_curves, plot_cumulative_belief, reliability_diagram


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.mark.parametrize("size", [float("nan"), -1.0, 0.0, float("inf"), "3"])
def test_reliability_diagram_refuses_a_bad_panel_size(size):
    bands = reliability_bands([0, 1, 1, 0], [0.2, 0.7, 0.9, 0.4])
    with pytest.raises((ValueError, TypeError), match="`panel_size` must be a finite number > 0"):
        reliability_diagram(bands, panel_size=size)


@pytest.mark.parametrize("size", [0, 1, -5, 2.5, "200", True])
def test_calibration_curves_refuse_a_bad_grid_size(size):
    rng = np.random.default_rng(0)
    scores = rng.random(60)
    calibrator = LogisticCalibrator().fit(scores, (rng.random(60) < scores).astype(int))
    with pytest.raises((ValueError, TypeError), match="`grid_size` must be an integer >= 2"):
        plot_calibration_curves(calibrator, score_range=(0, 1), grid_size=size)


def test_cumulative_belief_refuses_a_grid_outside_the_unit_interval():
    with pytest.raises(
        ValueError, match=r"`grid` holds the upper ends t of the intervals \[0, t\]; they must be >= 0"
    ):
        plot_cumulative_belief(BinomialLikelihood(3, 10), grid=[-1.0, 0.5, 2.0])


@pytest.mark.parametrize("event", [[], frozenset(), 0])
def test_plot_intervals_refuses_the_empty_event(event):
    from dstk import Frame, MassFunction
    from dstk.plot import plot_intervals

    m = MassFunction.from_array([[0, 0.2, 0.5, 0.3], [0, 0.6, 0.1, 0.3]], Frame(("x", "y")))
    with pytest.raises(ValueError, match="`subset` is the empty set"):
        plot_intervals(m, subset=event)


@pytest.mark.parametrize("bad", [(0, float("inf")), (0, 1, 2), 5, "ab", (1, 0), (None, 1)])
def test_calibration_curves_refuse_a_bad_score_range_naming_it(bad):
    rng = np.random.default_rng(0)
    scores = rng.random(60)
    calibrator = LogisticCalibrator().fit(scores, (rng.random(60) < scores).astype(int))
    with pytest.raises(
        ValueError, match=r"`score_range` must be two finite numbers \(low, high\) with low < high"
    ):
        plot_calibration_curves(calibrator, score_range=bad)


def test_reliability_diagram_of_many_classes_wraps_into_rows_in_class_order():
    rng = np.random.default_rng(0)
    n_classes = 12
    probabilities = rng.dirichlet(np.ones(n_classes), size=400)
    y = np.array([rng.choice(n_classes, p=p) for p in probabilities])
    bands = reliability_bands(y, probabilities, multiclass="class_wise", bins=5)
    fig = reliability_diagram(bands, panel_size=2.0)
    width = fig.get_size_inches()[0]
    assert width <= 5 * 2.0 + 1e-9  # at most five panels a row, not one 24-inch row
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titles == [f"class {k}" for k in range(n_classes)]
    rows = sorted({round(ax.get_position().y0, 3) for ax in fig.axes if ax.get_title()}, reverse=True)
    assert len(rows) == 3


def test_leaf_and_combiner_plots_refuse_callables_returning_nan():
    from dstk.plot import plot_combiner_score_evolution, plot_leaf_score_evolution

    def nan_score(positives, negatives):
        return np.where(positives > 3, np.nan, 0.5)

    def nan_combiner(counts):
        return np.full(counts.shape[0], np.nan)

    with pytest.raises(ValueError, match="The score 'nan_score' returned NaN or infinite values"):
        plot_leaf_score_evolution(nan_score, n_trials=4)
    with pytest.raises(ValueError, match="The combiner 'nan_combiner' returned NaN or infinite values"):
        plot_combiner_score_evolution(nan_combiner, n_leaves=3, n_ensembles=2)
