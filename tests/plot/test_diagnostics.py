"""reliability_diagram: panels, bands, histograms, outside-band markers, bad input."""

import numpy as np
import pytest

from dstk.metrics import reliability_bands
from dstk.plot import reliability_diagram

from .rendering import check_not_blank


def problem(seed=0, n=400, k=None):
    rng = np.random.default_rng(seed)
    if k is None:
        p = rng.uniform(size=n)
        return (rng.uniform(size=n) < p**2).astype(int), p
    P = rng.dirichlet(np.full(k, 0.5), size=n)
    y = np.array([rng.choice(k, p=row) for row in P])
    return y, P


def test_single_panel_with_histogram():
    y, p = problem()
    bands = reliability_bands(y, p)
    fig = reliability_diagram(bands)
    assert len(fig.axes) == 2
    main, hist = fig.axes
    # one box per CORP bin, spanning [Bel, Pl]
    boxes = list(main.patches)
    assert len(boxes) == bands.counts.size
    np.testing.assert_allclose([b.get_y() for b in boxes], bands.belief)
    np.testing.assert_allclose([b.get_height() for b in boxes], bands.plausibility - bands.belief)
    assert sum(patch.get_height() for patch in hist.patches) == len(p)
    # a strongly miscalibrated forecast (p**2 truth) has bins outside their bands
    outside = (bands.mean_predicted < bands.belief) | (bands.mean_predicted > bands.plausibility)
    assert outside.any()
    labels = main.get_legend_handles_labels()[1]
    assert "bin: prediction outside band" in labels
    check_not_blank(main)


def test_class_wise_and_mapping_layouts():
    y, P = problem(1, k=3)
    fig = reliability_diagram(reliability_bands(y, P, multiclass="class_wise", bins=6), histogram=False)
    assert len(fig.axes) == 3
    assert [ax.get_title() for ax in fig.axes] == ["class 0", "class 1", "class 2"]
    fig = reliability_diagram({"a": reliability_bands(y, P), "b": reliability_bands(y, P[:, ::-1])})
    assert [ax.get_title() for ax in fig.axes[::2]] == ["a", "b"]
    fig = reliability_diagram({"a": reliability_bands(y, P, multiclass="class_wise")}, title="rows")
    assert len(fig.axes) == 6 and fig._suptitle.get_text() == "rows"


def test_bad_input():
    y, p = problem()
    with pytest.raises(TypeError, match="reliability_bands"):
        reliability_diagram(p)
    with pytest.raises(TypeError, match="reliability_bands"):
        reliability_diagram({"a": p})
    with pytest.raises(ValueError, match="empty"):
        reliability_diagram({})
    with pytest.raises(ValueError, match="histogram_bins"):
        reliability_diagram(reliability_bands(y, p), histogram_bins=0)
