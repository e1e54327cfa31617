"""Regression tests for defects found by probing the calibrators, the multi-class tools and the metrics."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from dstk.calibration import EvidentialCalibratedClassifier


def test_single_sample_class_message_does_not_suggest_one_fold():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    y[0] = 2  # one sample of class 2: no cross-validation can hold it in every calibration fold
    with pytest.raises(ValueError, match="only 1 sample") as info:
        EvidentialCalibratedClassifier(LogisticRegression(), cv=3).fit(X, y)
    assert "at most 1 folds" not in str(info.value)


@pytest.mark.parametrize("scale", [1e-20, 1e-300])
def test_piecewise_logistic_refuses_scores_too_close_for_its_penalty(scale):
    from dstk.calibration import PiecewiseLogisticCalibrator

    rng = np.random.default_rng(1)
    scores = rng.normal(size=60)
    y = (scores + rng.normal(size=60) > 0).astype(int)
    # the fit used to stall at zero weights and return 0.5 for every score
    with np.errstate(all="ignore"), pytest.raises(ValueError, match="Standardise the scores"):
        PiecewiseLogisticCalibrator().fit(scores * scale, y)
    proba = PiecewiseLogisticCalibrator().fit(scores, y).predict_proba([-3.0, 3.0])[:, 1]
    assert proba[0] < 0.1 and proba[1] > 0.9


def test_empty_bins_error_suggests_a_valid_option():
    from dstk.calibration import BinningCalibrator

    scores = np.r_[np.zeros(5), np.ones(5)]
    y = np.r_[0, 1, 0, 1, 0, 1, 0, 1, 0, 1]
    with pytest.raises(ValueError, match="strategy='quantile'") as info:
        BinningCalibrator(bins=4, empty_bins="raise").fit(scores, y)
    assert "bins='quantile'" not in str(info.value)
    BinningCalibrator(bins=4, strategy="quantile", empty_bins="raise").fit(scores, y)  # the advice works


@pytest.mark.parametrize("envelope", ["no", "False", 0.0, None])
def test_isotonic_envelope_must_be_a_bool(envelope):
    from dstk.calibration import IsotonicCalibrator

    scores = np.linspace(-1.0, 1.0, 20)
    y = (scores > 0).astype(int)
    y[:3] = 1
    # "no" and "False" are truthy: they used to switch the envelope on
    with pytest.raises(ValueError, match="`envelope` must be True or False"):
        IsotonicCalibrator(envelope=envelope).fit(scores, y)
    IsotonicCalibrator(envelope=np.bool_(False)).fit(scores, y)


@pytest.mark.parametrize(
    ("pairs", "n_classes", "message"),
    [
        ([[0, 1], [0, 3]], 3, r"class indices in 0\.\.2"),
        ([[0, 1], [0, -1]], 3, r"class indices in 0\.\.2"),
        ([[0, 1], [2, 2]], 3, "two different classes"),
        ([[0, 1], [0.5, 2]], 3, "integer class indices"),
        ([[0, 1], [0, 2]], 3.5, "`n_classes` must be an integer"),
        ([[0, 1], [0, 2]], True, "`n_classes` must be an integer"),
    ],
)
def test_pairwise_masses_refuses_bad_pairs_clearly(pairs, n_classes, message):
    from dstk.calibration import pairwise_masses

    masses = [[0.0, 0.2, 0.5, 0.3], [0.0, 0.6, 0.1, 0.3]]
    # these raised IndexError, "negative shift count", a TypeError, or passed silently
    with pytest.raises(ValueError, match=message):
        pairwise_masses(masses, pairs, n_classes)
