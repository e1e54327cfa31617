"""Set-valued predictions of every evidential classifier (the shared ``predict_admissible``) and their metrics."""

import numpy as np
import pytest

from dstk import MassFunction, admissible_actions
from dstk.classifiers import EvidentialKNNClassifier
from dstk.core import ADMISSIBILITY_CRITERIA
from dstk.metrics import discounted_accuracy, u65_score, u80_score


def data():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(loc, 1.0, size=(30, 2)) for loc in (0.0, 1.0, 4.0)])
    y = np.repeat(np.array(["low", "mid", "high"]), 30)
    return X, y


@pytest.mark.parametrize("criterion", ADMISSIBILITY_CRITERIA)
def test_predict_admissible_is_admissible_actions_of_predict_mass(criterion):
    X, y = data()
    model = EvidentialKNNClassifier(n_neighbors=5).fit(X, y)
    sets = model.predict_admissible(X, criterion=criterion)
    masks = admissible_actions(model.predict_mass(X), criterion=criterion)
    assert sets.shape == (X.shape[0],) and sets.dtype == object
    for labels, mask in zip(sets, masks):
        assert labels == frozenset(model.classes_[mask].tolist()) and labels
    # the single prediction lies in the E-admissible set (pignistic = an expectation over the credal set)
    if criterion in ("e_admissibility", "maximality", "interval_dominance"):
        assert all(label in labels for label, labels in zip(model.predict(X), sets))


def test_predict_admissible_with_a_utility_and_metrics_on_labels():
    X, y = data()
    model = EvidentialKNNClassifier(n_neighbors=5).fit(X, y)
    k = len(model.classes_)
    cautious = model.predict_admissible(X, criterion="maximality", utility=np.eye(k))
    np.testing.assert_array_equal(cautious, model.predict_admissible(X, criterion="maximality"))
    np.testing.assert_array_equal(
        cautious, model.predict_admissible(X, criterion="maximality", loss=1 - np.eye(k))
    )
    with pytest.raises(ValueError, match="square matrix"):
        model.predict_admissible(X, utility=np.eye(2))
    # label sets against labels = boolean matrix against indices
    index = {label: i for i, label in enumerate(model.classes_)}
    matrix = np.array([[label in s for label in model.classes_] for s in cautious])
    y_index = np.array([index[label] for label in y])
    assert u65_score(y, cautious) == u65_score(y_index, matrix)
    assert u80_score(y, cautious) == u80_score(y_index, matrix)
    assert discounted_accuracy(y, cautious) == discounted_accuracy(y_index, matrix)


def test_metrics_accept_labels_and_label_sets():
    # d = (1, 1/2): u65 = (1 + 0.65) / 2, u80 = (1 + 0.8) / 2 (Zaffalon, Corani and Maua 2012, Eqs. 7-8)
    assert u65_score(["a", "b"], [{"a"}, {"a", "b"}]) == pytest.approx(0.825, abs=1e-15)
    assert u80_score(["a", "b"], [{"a"}, frozenset({"a", "b"})]) == pytest.approx(0.9, abs=1e-15)
    assert discounted_accuracy([3, 7], [{3, 5}, {1}]) == 0.25
    with pytest.raises(ValueError, match="empty"):
        u65_score(["a"], [set()])
    with pytest.raises(ValueError, match="inconsistent"):
        u65_score(["a", "b"], [{"a"}])
    with pytest.raises(ValueError, match="mixes"):
        u65_score(["a", "b"], [{"a"}, [1, 0]])


def test_predict_admissible_of_nan_masses_raises():
    class Fixed(EvidentialKNNClassifier):
        def predict_mass(self, X):
            masses = np.array([[0.0, 0.5, 0.5, 0.0], [np.nan] * 4])
            return MassFunction.from_array(masses, frame=self.classes_.tolist(), validate=False)

    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    model = Fixed(n_neighbors=1).fit(X, ["a", "b", "a", "b"])
    with pytest.raises(ValueError):
        model.predict_admissible(X[:2])
