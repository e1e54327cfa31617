"""Concatenated ensembles with a calibrated combiner: documented attributes and a clear warning."""

import numpy as np
import pytest

from dstk.ensemble import RandomDecisionTreesClassifier


def _parts(combiner):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)
    parts = [
        RandomDecisionTreesClassifier(3, combiner=combiner, random_state=seed).fit(X, y) for seed in (1, 2)
    ]
    return parts, X


@pytest.mark.parametrize("combiner", ["eva", "dempster", "cautious", "average"])
def test_concatenated_ensemble_has_score_calibration_none(combiner):
    parts, _X = _parts(combiner)
    merged = RandomDecisionTreesClassifier.concatenate(parts)
    assert merged.score_calibration_ is None


@pytest.mark.parametrize("combiner", ["eva", "dempster", "cautious"])
def test_concatenated_calibrated_combiner_warning_says_why(combiner):
    parts, X = _parts(combiner)
    merged = RandomDecisionTreesClassifier.concatenate(parts)
    with pytest.warns(UserWarning, match=r"concatenat") as record:
        probabilities = merged.predict_proba(X[:4])
    assert "'?'" not in str(record[0].message)
    uncalibrated = RandomDecisionTreesClassifier.concatenate(parts).set_params(combiner=combiner)
    with pytest.warns(UserWarning):
        np.testing.assert_array_equal(uncalibrated.predict_proba(X[:4]), probabilities)
