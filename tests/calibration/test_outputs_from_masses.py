"""The outputs every binary calibrator derives from its masses, and the check of its scores.

References: the definitions (BetP({1}) = m({1}) + m({0, 1}) / 2, Smets and Kennes 1994; Xu et al.
2016, Eq. 9), written out in numpy; the finiteness check against ``np.isfinite``.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk._validation import check_scores
from dstk.calibration import LogisticCalibrator

RNG = np.random.default_rng(0)
SCORES = RNG.normal(size=400)
LABELS = (RNG.random(400) < 1 / (1 + np.exp(-2 * SCORES))).astype(int)


def test_pignistic_probabilities_are_the_definition_bit_for_bit():
    calibrator = LogisticCalibrator().fit(SCORES, LABELS)
    masses = calibrator.predict_mass(SCORES).to_array()
    positive = masses[:, 2] + 0.5 * masses[:, 3]
    proba = calibrator.predict_proba(SCORES)
    np.testing.assert_array_equal(proba, np.column_stack([1.0 - positive, positive]))
    assert proba.flags.c_contiguous and proba.dtype == np.float64
    np.testing.assert_array_equal(
        calibrator.predict(SCORES), calibrator.classes_[(positive > 0.5).astype(int)]
    )


finite_or_not = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.sampled_from([1e308, -1e308, np.inf, -np.inf, np.nan]),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(finite_or_not, min_size=1, max_size=8))
def test_scores_are_accepted_exactly_when_all_are_finite(values):
    scores = np.array(values, dtype=np.float64)
    if np.isfinite(scores).all():
        assert check_scores(scores) is scores or np.array_equal(check_scores(scores), scores)
    else:
        with pytest.raises(ValueError, match="non-finite"):
            check_scores(scores)


def test_finite_scores_whose_sum_overflows_are_accepted():
    scores = np.array([1e308, 1e308, -1e308, 1e308])
    with np.errstate(over="ignore"):
        assert not np.isfinite(scores.sum())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning from the check's own sum
        np.testing.assert_array_equal(check_scores(scores), scores)
        with pytest.raises(ValueError, match="non-finite"):
            check_scores(np.array([np.inf, -np.inf]))  # inf - inf: no invalid-value warning either
