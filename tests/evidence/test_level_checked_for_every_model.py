"""A calibrator's ``level`` is checked whatever its ``model``: 1.5 or NaN is refused, not ignored."""

import numpy as np
import pytest

from dstk.calibration import BinningCalibrator, IsotonicCalibrator
from dstk.evidence._counts import _BINARY_MODELS, _binary_mass_array


@pytest.mark.parametrize("model", list(_BINARY_MODELS))
@pytest.mark.parametrize("level", [1.5, 0.0, -0.1, float("nan"), "0.9"])
def test_binary_mass_array_refuses_a_bad_level_for_every_model(model, level):
    with pytest.raises(ValueError, match="level"):
        _binary_mass_array([1, 2], [3, 4], model, level=level)


@pytest.mark.parametrize("calibrator", [BinningCalibrator, IsotonicCalibrator])
@pytest.mark.parametrize("level", [1.5, float("nan")])
def test_calibrators_refuse_a_bad_level_with_the_default_model(calibrator, level):
    rng = np.random.default_rng(0)
    scores = rng.normal(size=100)
    y = (scores + rng.normal(size=100) > 0).astype(int)
    with pytest.raises(ValueError, match="level"):
        calibrator(level=level).fit(scores, y)


@pytest.mark.parametrize("model", [m for m in _BINARY_MODELS if m != "confidence_interval"])
def test_a_valid_level_leaves_the_other_models_unchanged(model):
    k, n = np.array([0, 1, 5, 7]), np.array([3, 4, 9, 7])
    np.testing.assert_array_equal(_binary_mass_array(k, n, model, level=0.8), _binary_mass_array(k, n, model))
