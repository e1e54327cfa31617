"""dstk.plot._calibration: curves against the score (Xu et al. Figs. 1, 5, 7) and reliability diagrams.

The curves are checked with a calibrator built here from Dempster's model on fixed bins (Xu et al. Eq. 24),
so these tests do not depend on the calibration layer's own estimators.
"""

import numpy as np
import pytest
from matplotlib.collections import PolyCollection

from dstk.plot import plot_calibration_curves

from .rendering import check_not_blank


class DempsterBinsCalibrator:
    """Bins at the integers; m({1}) = k/(n+1), m({0}) = (n-k)/(n+1), m({0,1}) = 1/(n+1) (Xu et al. Eq. 24)."""

    model = "dempster"

    def __init__(self, k, n, edges):
        self.k, self.n, self.edges = np.asarray(k), np.asarray(n), np.asarray(edges)

    def _bin(self, scores):
        return np.clip(np.searchsorted(self.edges, scores, side="right") - 1, 0, self.k.size - 1)

    def predict_interval(self, scores):
        b = self._bin(np.asarray(scores))
        return self.k[b] / (self.n[b] + 1), (self.k[b] + 1) / (self.n[b] + 1)

    def predict_proba(self, scores):
        b = self._bin(np.asarray(scores))
        positive = (self.k[b] + 0.5) / (self.n[b] + 1)
        return np.column_stack([1 - positive, positive])


CALIBRATOR = DempsterBinsCalibrator(k=[1, 4, 9], n=[10, 8, 10], edges=[-1.0, 0.0, 1.0, 2.0])


def test_single_calibrator_curves_are_dempsters_model():
    rng = np.random.default_rng(0)
    scores = rng.uniform(-1, 2, 28)
    labels = (rng.random(28) < 0.5).astype(int)
    ax = plot_calibration_curves(
        CALIBRATOR, calibration_scores=scores, calibration_labels=labels, grid_size=31
    )
    belief, plausibility, pignistic = ax.lines[0], ax.lines[1], ax.lines[2]
    x = belief.get_xdata()
    bins = np.clip(np.searchsorted([-1.0, 0.0, 1.0, 2.0], x, side="right") - 1, 0, 2)
    k, n = np.array([1, 4, 9])[bins], np.array([10, 8, 10])[bins]
    assert np.allclose(belief.get_ydata(), k / (n + 1))
    assert np.allclose(plausibility.get_ydata(), (k + 1) / (n + 1))
    assert np.allclose(pignistic.get_ydata(), (k + 0.5) / (n + 1))
    assert [line.get_label() for line in ax.lines[:3]] == ["Bel({1})", "Pl({1})", "BetP({1})"]
    rug_negative, rug_positive = ax.lines[3], ax.lines[4]
    assert sorted(rug_negative.get_xdata()) == sorted(scores[labels == 0])
    assert sorted(rug_positive.get_xdata()) == sorted(scores[labels == 1])
    assert x.min() < scores.min() and x.max() > scores.max()  # range widened by 5%
    check_not_blank(ax)


def test_several_calibrators_share_the_axes_with_histograms():
    other = DempsterBinsCalibrator(k=[0, 2, 5], n=[3, 3, 5], edges=[-1.0, 0.0, 1.0, 2.0])
    scores = np.linspace(-1, 2, 40)
    labels = (scores > 0.5).astype(int)
    ax = plot_calibration_curves(
        {"many": CALIBRATOR, "few": other},
        calibration_scores=scores,
        calibration_labels=labels,
        data_display="histogram",
        curves=("belief", "plausibility"),
    )
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts[:2] == ["many", "few"] and "Bel({1})" in texts and "Pl({1})" in texts
    assert not [c for c in ax.collections if isinstance(c, PolyCollection)]  # no fill with several models
    check_not_blank(ax)


def _fitted_binning():
    """A binning calibrator fitted on 60 scores of two classes, with its scores and 0/1 labels."""
    calibration = pytest.importorskip("dstk.calibration")
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 60)
    scores = rng.normal(2.0 * y - 1.0, 1.0)
    return calibration.BinningCalibrator(bins=5, model="dempster").fit(scores, y), scores, y


def test_calibration_curves_with_real_calibrator_if_available():
    calibrator, scores, y = _fitted_binning()
    ax = plot_calibration_curves(calibrator, calibration_scores=scores, calibration_labels=y, grid_size=50)
    belief, plausibility = ax.lines[0].get_ydata(), ax.lines[1].get_ydata()
    assert np.all(belief <= plausibility + 1e-12)
    check_not_blank(ax)


def test_calibration_curves_errors():
    with pytest.raises(TypeError, match="evidential calibrator"):
        plot_calibration_curves(object(), score_range=(0, 1))
    with pytest.raises(ValueError, match="score_range"):
        plot_calibration_curves(CALIBRATOR)
    with pytest.raises(ValueError, match="curves"):
        plot_calibration_curves(CALIBRATOR, score_range=(0, 1), curves=("median",))
    with pytest.raises(ValueError, match="data_display"):
        plot_calibration_curves(CALIBRATOR, score_range=(0, 1), data_display="violin")
    with pytest.raises(ValueError, match="has 2 labels"):
        plot_calibration_curves(CALIBRATOR, calibration_scores=[0.0, 1.0, 2.0], calibration_labels=[0, 1])
    with pytest.raises(ValueError, match="binary"):
        plot_calibration_curves(CALIBRATOR, calibration_scores=[0.0, 1.0, 2.0], calibration_labels=[0, 1, 2])
    with pytest.raises(ValueError, match="low < high"):
        plot_calibration_curves(CALIBRATOR, score_range=(1, 1))
    with pytest.raises(ValueError, match="names"):
        plot_calibration_curves([CALIBRATOR], score_range=(0, 1), names=["a", "b"])


def test_calibration_curves_take_two_string_labels_the_larger_being_class_1():
    calibrator, scores, y = _fitted_binning()

    def drawn(labels):
        ax = plot_calibration_curves(
            calibrator, calibration_scores=scores, calibration_labels=labels, grid_size=20
        )
        return [line.get_xydata() for line in ax.lines] + [
            np.asarray(c.get_offsets()) for c in ax.collections
        ]

    numbers = drawn(y)
    words = drawn(np.where(y == 1, "pos", "neg"))  # "pos" > "neg": class 1
    assert len(numbers) == len(words) and all(np.array_equal(a, b) for a, b in zip(numbers, words))
    swapped = drawn(np.where(y == 1, "neg", "pos"))  # the other class 1 draws other data points
    assert not all(np.array_equal(a, b) for a, b in zip(numbers, swapped))
