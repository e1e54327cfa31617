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
