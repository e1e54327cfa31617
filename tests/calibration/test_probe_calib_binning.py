"""Regression tests for defects found by probing BinningCalibrator's `bins`."""

import numpy as np
import pytest


@pytest.mark.parametrize("bins", [True, 2.5, np.float64(3.0)])
def test_bins_neither_a_count_nor_edges_is_named(bins):
    from dstk.calibration import BinningCalibrator

    scores = np.linspace(-1.0, 1.0, 10)
    y = (scores > 0).astype(int)
    with pytest.raises(ValueError, match="positive integer number of bins or a 1-D array of edges") as info:
        BinningCalibrator(bins=bins).fit(scores, y)
    assert "shape ()" not in str(info.value)



def test_too_many_bins_is_refused_before_allocating():
    from dstk.calibration import BinningCalibrator

    scores = np.linspace(-1.0, 1.0, 10)
    y = (scores > 0).astype(int)
    with pytest.raises(ValueError, match="too many bins"):
        BinningCalibrator(bins=10**12).fit(scores, y)
