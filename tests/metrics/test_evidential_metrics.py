"""Interval and set-valued metrics against hand values and the published definitions."""

import numpy as np
import pytest

from dstk.metrics import (
    discounted_accuracy,
    interval_coverage,
    interval_score,
    interval_width,
    u65_score,
    u80_score,
    utility_discounted_accuracy,
)


def test_interval_score_gneiting_raftery_cases():
    # Eq. (43): width + (2/alpha) * distance of a miss
    lo, hi = np.array([0.2, 0.2, 0.2]), np.array([0.4, 0.4, 0.4])
    x = np.array([0.3, 0.1, 0.7])
    alpha = 0.1
    expected = [0.2, 0.2 + 20 * 0.1, 0.2 + 20 * 0.3]
    assert interval_score(lo, hi, x, alpha=alpha) == pytest.approx(np.mean(expected))


def test_coverage_and_width():
    lo, hi = [0.0, 0.3, 0.5, 0.9], [0.2, 0.3, 0.6, 1.0]
    ref = [0.2, 0.3, 0.7, 0.95]
    assert interval_coverage(lo, hi, ref) == 0.75
    assert interval_width(lo, hi) == pytest.approx((0.2 + 0 + 0.1 + 0.1) / 4)


def test_u65_u80_published_values():
    # Zaffalon, Corani & Maua (2012): a correct set of two classes is worth 0.65 (u65) / 0.80 (u80),
    # a correct singleton 1, a wrong set 0.
    y = [0, 0, 0, 0]
    sets = np.array([[1, 0, 0], [1, 1, 0], [1, 1, 1], [0, 1, 1]], dtype=bool)
    d = np.array([1, 1 / 2, 1 / 3, 0])
    assert discounted_accuracy(y, sets) == pytest.approx(d.mean())
    assert u65_score(y, sets) == pytest.approx(np.mean(1.6 * d - 0.6 * d**2))
    assert u80_score(y, sets) == pytest.approx(np.mean(2.2 * d - 1.2 * d**2))
    assert u65_score([0], [[True, True, False]]) == pytest.approx(0.65)
    assert u80_score([0], [[True, True, False]]) == pytest.approx(0.80)


def test_bitmask_input_matches_boolean():
    rng = np.random.RandomState(0)
    sets = rng.uniform(size=(50, 4)) < 0.5
    sets[~sets.any(axis=1), 0] = True
    masks = (sets * (1 << np.arange(4))).sum(axis=1)
    y = rng.randint(0, 4, 50)
    assert utility_discounted_accuracy(y, masks, utility="u80", n_classes=4) == pytest.approx(
        utility_discounted_accuracy(y, sets, utility="u80")
    )


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: interval_coverage([0.5], [0.4], [0.45]), "lower <= upper"),
        (lambda: interval_coverage([0.1, 0.2], [0.3], [0.2]), "same length"),
        (lambda: interval_score([0.1], [0.3], [0.2], alpha=1.5), "alpha"),
        (lambda: interval_width([np.nan], [0.3]), "finite"),
        (lambda: u65_score([0], [[False, False]]), "empty"),
        (lambda: u65_score([0], np.array([1])), "n_classes"),
        (lambda: u65_score([0, 1], [[True, False]]), "inconsistent"),
        (lambda: utility_discounted_accuracy([0], [[True, False]], utility="u90"), "u65"),
    ],
)
def test_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()
