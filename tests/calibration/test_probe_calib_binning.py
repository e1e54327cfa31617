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


@pytest.mark.parametrize("edges", [2.5, True, np.float64(4.0)])
def test_venn_machine_number_of_categories_must_be_an_integer(edges):
    from dstk.calibration import VennMachineCalibrator, svm_taxonomy_edges

    scores = np.linspace(-1.0, 1.0, 20)
    y = (scores > 0).astype(int)
    # 2.5 was truncated to 2 categories, True read as 1
    with pytest.raises(ValueError, match="whole number of categories"):
        VennMachineCalibrator(edges=edges).fit(scores, y)
    with pytest.raises(ValueError, match="whole number of categories"):
        svm_taxonomy_edges(edges)
    assert svm_taxonomy_edges(np.int64(3)).tolist() == svm_taxonomy_edges(3).tolist()
