"""Bad and edge inputs of the random decision trees, as a careless user gives them."""

import numpy as np
import pytest

from dstk.ensemble import RandomDecisionTreesClassifier

pd = pytest.importorskip("pandas")


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("marker", ["NA", "NaT"])
def test_pandas_missing_marker_is_reported_as_a_missing_value(marker):
    # a nullable-dtype DataFrame holds pd.NA: the message must say "missing", not "encode nominal features"
    X, y = _data()
    frame = pd.DataFrame(X, columns=["a", "b"]).astype(object)
    frame.iloc[3, 1] = getattr(pd, marker)
    with pytest.raises(ValueError, match=r"NaN \(missing\) value at row 3, column 1"):
        RandomDecisionTreesClassifier(3, random_state=0).fit(frame, y)
    model = RandomDecisionTreesClassifier(3, random_state=0).fit(X, y)
    nullable = pd.DataFrame(X).astype("Float64").mask(pd.DataFrame(X) > 1)
    with pytest.raises(ValueError, match=r"missing"):
        model.predict(nullable)


def test_nullable_frame_without_missing_values_equals_the_float_frame():
    X, y = _data()
    nullable = pd.DataFrame(X, columns=["a", "b"]).astype("Float64")
    plain = pd.DataFrame(X, columns=["a", "b"])
    first = RandomDecisionTreesClassifier(5, random_state=0).fit(nullable, y).predict_proba(nullable)
    second = RandomDecisionTreesClassifier(5, random_state=0).fit(plain, y).predict_proba(plain)
    assert np.array_equal(first, second)


def _flat_calibration_data():
    # 14 samples on a coarse grid: the leave-one-out scores carry no usable ranking, so the fitted
    # inverse temperature of the calibrated combiners is 0 and predict_proba is 1/2 everywhere
    rng = np.random.default_rng(11)
    rng.integers(2, 5)
    rng.integers(8, 60)
    X = rng.integers(0, 4, size=(14, 3)).astype(float)
    y = rng.integers(0, 2, size=14)
    y[:2] = [0, 1]
    return X, y


@pytest.mark.parametrize("combiner", ["eva", "dempster", "cautious"])
def test_predict_follows_the_scores_when_the_calibration_is_flat(combiner):
    X, y = _flat_calibration_data()
    model = RandomDecisionTreesClassifier(7, combiner=combiner, random_state=11).fit(X, y)
    assert model.score_calibration_ == 0.0
    np.testing.assert_array_equal(model.predict_proba(X), 0.5)
    # every probability ties: the class is the one the combined evidence favours (decision_function),
    # not classes_[0] for every sample
    scores = model.decision_function(X)
    expected = model.classes_[(scores > 0).astype(int)]
    np.testing.assert_array_equal(model.predict(X), expected)
    assert model.score(X, y) == np.mean(expected == y)


def test_predict_follows_the_scores_when_the_calibration_is_flat_three_classes():
    X, y = _flat_calibration_data()
    y = y.copy()
    y[[2, 5, 9]] = 2
    for seed in range(40):
        model = RandomDecisionTreesClassifier(7, combiner="eva", random_state=seed).fit(X, y)
        if model.score_calibration_ == 0.0:
            break
    else:
        pytest.skip("no seed gave a flat calibration")
    scores = model.decision_function(X)
    np.testing.assert_array_equal(model.predict(X), model.classes_[np.argmax(scores, axis=1)])


@pytest.mark.parametrize("weight", [1e19, 1e15])
def test_huge_frequency_weights_say_what_is_wrong(weight):
    X, y = _data()
    sample_weight = np.ones(X.shape[0])
    sample_weight[0] = weight
    with pytest.raises((ValueError, MemoryError), match=r"sample_weight.*repeat"):
        RandomDecisionTreesClassifier(3, random_state=0).fit(X, y, sample_weight=sample_weight)
