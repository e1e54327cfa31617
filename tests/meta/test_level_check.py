"""One check for every ``level`` argument: the same domain, messages and refusals everywhere."""

import numpy as np
import pytest

from dstk._validation import check_level
from dstk.calibration import LogisticCalibrator
from dstk.calibration.probabilistic import GaussianBayesCalibrator
from dstk.evidence import from_counts


@pytest.mark.parametrize("value", [1e-12, 0.5, 0.95, np.float32(0.9), np.float64(0.99), 1 - 1e-16])
def test_levels_inside_the_open_interval_pass(value):
    assert check_level(value) == float(value)


@pytest.mark.parametrize("value", [0, 0.0, 1, 1.0, -0.1, 1.5, np.nan, np.inf, -np.inf])
def test_levels_outside_the_open_interval_are_refused(value):
    with pytest.raises(ValueError, match=r"`level` \(a confidence level\) must be a number in \(0, 1\)"):
        check_level(value)


@pytest.mark.parametrize("value", [True, False, np.bool_(True), "0.9", b"0.9", None, [0.9], object()])
def test_non_numbers_are_refused(value):
    # float(True) and float("0.9") would pass silently
    with pytest.raises(ValueError, match="must be a number"):
        check_level(value)


def test_upper_inclusive_accepts_one_only():
    assert check_level(1.0, upper_inclusive=True) == 1.0
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        check_level(0.0, upper_inclusive=True)
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        check_level(1.0 + 1e-15, upper_inclusive=True)


def test_a_percentage_gets_a_hint():
    with pytest.raises(ValueError, match=r"for 95% pass level=0.95"):
        check_level(95)


@pytest.mark.parametrize(
    "call",
    [
        lambda level: LogisticCalibrator(level=level).fit([0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1]),
        lambda level: GaussianBayesCalibrator(level=level).fit(
            [0.1, 0.4, 0.6, 0.9, 0.2, 0.8], [0, 0, 1, 1, 0, 1]
        ),
        lambda level: from_counts([[3, 4]], model="confidence_interval", level=level),
    ],
)
@pytest.mark.parametrize("level", [1.0, True, "0.9", 95])
def test_public_level_arguments_use_the_check(call, level):
    with pytest.raises(ValueError, match="`level`"):
        call(level)
