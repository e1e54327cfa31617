"""Regression tests for defects found by probing the multi-class calibrators."""

import numpy as np
import pytest

from dstk.calibration import PlattCalibrator
from dstk.multiclass import DirichletCalibrator, MulticlassCalibrator


@pytest.mark.parametrize("make", [lambda: MulticlassCalibrator(PlattCalibrator()), DirichletCalibrator])
def test_class_missing_from_y_is_named_in_the_column_count_error(make):
    rng = np.random.default_rng(4)
    scores = rng.normal(size=(60, 3))
    y = np.where(rng.integers(0, 3, 60) == 1, 0, 2)  # class 1 absent, e.g. from a fold
    y[:2] = [0, 2]
    with pytest.raises(ValueError, match=r"`y` holds 2 classes \[0, 2\]") as info:
        make().fit(scores, y)
    assert "one_vs_rest" in str(info.value)
