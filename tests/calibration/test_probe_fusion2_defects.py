"""Regression tests for defects found by probing the classifiers combined as evidence (second review)."""

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import load_iris
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from dstk.calibration import EvidentialCalibratedClassifier, EvidentialFusionClassifier


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


@pytest.mark.parametrize("names", [(0, 1, 2), (-1, 0, 1), (10, 20, 30), ("a", "b", "c")])
def test_frozen_source_on_fewer_classes_enters_with_its_columns_in_place(iris, names):
    """A frozen classifier trained without one class: its out-of-fold probabilities are those it gives,
    each in the column of its class (they were put at the columns numbered by its labels: a crash for
    labels that are not 0..K-1, the probabilities of -1 in the column of 1 for labels -1, 0, 1)."""
    X, y = iris
    labels = np.array(names)[y]
    trained = labels != names[1]
    frozen = LogisticRegression(max_iter=1000).fit(X[trained], labels[trained])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = EvidentialFusionClassifier(
            [("f", FrozenEstimator(frozen)), ("nb", GaussianNB())], method=None, contamination=0.0
        ).fit(X, labels)
    expected = np.zeros((y.size, 3))
    expected[:, [0, 2]] = frozen.predict_proba(X)
    expected = np.clip(expected, 1e-12, 1.0)
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model._calibrated(X)[0], expected, rtol=1e-12, atol=1e-300)
    # learned on the same outputs as it predicts with: the frozen source is trusted on classes 0 and 2
    assert model.rates_[0, 0] < 0.1 and model.rates_[0, 2] < 0.1


class _Fixed(ClassifierMixin, BaseEstimator):
    """A classifier whose outputs are one fixed row (or what ``kind`` makes of it), whatever the sample."""

    def __init__(self, kind="nan"):
        self.kind = kind

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])

    def _output(self, X):
        n = len(X)
        return {
            "valid": np.tile([0.6, 0.3, 0.1], (n, 1)),
            "nan": np.full((n, 3), np.nan),
            "negative": np.tile([-0.5, 1.0, 0.5], (n, 1)),
            "above one": np.tile([5.0, 1.0, 0.5], (n, 1)),
            "infinite": np.tile([np.inf, 1.0, 0.5], (n, 1)),
            "unnormalised": np.tile([0.5, 0.5, 0.5], (n, 1)),
            "one column": np.full(n, 0.5),
            "extra row": np.full((n + 1, 3), 1 / 3),
            "extra column": np.full((n, 4), 0.25),
        }[self.kind]


class _FixedProbabilities(_Fixed):
    def predict_proba(self, X):
        return self._output(X)


class _FixedScores(_Fixed):
    def decision_function(self, X):
        return self._output(X)


@pytest.mark.parametrize(
    "kind, message",
    [
        ("nan", "NaN"),
        ("negative", r"outside \[0, 1\]"),
        ("above one", r"outside \[0, 1\]"),
        ("infinite", "NaN or infinite"),
        ("unnormalised", "sum to 1"),
        ("one column", "shape"),
        ("extra row", "shape"),
        ("extra column", "shape"),
    ],
)
@pytest.mark.parametrize("method", ["temperature", None])
def test_invalid_probabilities_of_a_source_are_refused_naming_it(iris, kind, message, method):
    """predict_proba outputs that are not probabilities were clipped and renormalised (NaN rows gave a
    'total conflict' warning and uniform predictions); wrong shapes crashed with an IndexError or
    "all input arrays must have the same shape" (one row too many per fold: cross_val_predict keeps
    some of the rows, so that one is refused at prediction)."""
    X, y = iris
    model = EvidentialFusionClassifier(
        [("odd", _FixedProbabilities(kind)), ("nb", GaussianNB())], method=method
    )
    with pytest.raises(ValueError, match=message) as info:
        model.fit(X, y).predict_proba(X)
    assert "'odd'" in str(info.value) and "predict_proba" in str(info.value)


def test_decision_function_with_more_columns_than_classes_is_refused(iris):
    """Four scores per sample for three classes: the fourth was dropped without a word."""
    X, y = iris
    model = EvidentialFusionClassifier([("odd", _FixedScores("extra column")), ("nb", GaussianNB())])
    with pytest.raises(
        ValueError, match=r"'odd' gives decision_function of shape \(30, 4\) on 30 samples of 3 classes"
    ):
        model.fit(X, y)


def test_invalid_outputs_at_prediction_are_refused(iris):
    """A source valid in fit that breaks afterwards is refused at prediction, naming it (NaN outputs were
    read as a total conflict: a warning and uniform probabilities)."""
    X, y = iris
    sources = [("odd", _FixedProbabilities("valid")), ("scores", _FixedScores("valid")), ("nb", GaussianNB())]
    model = EvidentialFusionClassifier(sources).fit(X, y)
    for name in ("odd", "scores"):
        model.named_estimators_[name].kind = "nan"
        with pytest.raises(ValueError, match=f"'{name}'.*NaN"):
            model.predict_proba(X)
        with pytest.raises(ValueError, match=f"'{name}'.*NaN"):
            model.predict_mass(X)
        model.named_estimators_[name].kind = "valid"
    model.predict_proba(X)


@pytest.mark.parametrize("options", [{}, {"multiclass": "one_vs_rest"}, {"method": "isotonic"}])
def test_calibrated_classifier_refuses_a_class_missing_from_a_training_fold_without_ensemble(iris, options):
    """ensemble=False calibrates out-of-fold scores; a class absent from a training fold has filler scores
    there (the lowest float), and the temperature fit on them made every prediction uniform (accuracy
    1/3 on iris, with only an overflow warning); refused, as with ensemble=True."""
    X, y = iris
    X, y = np.vstack([X, X[:1]]), np.r_[y, 3]
    model = EvidentialCalibratedClassifier(LogisticRegression(max_iter=1000), cv=3, ensemble=False, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"Class 3 has only 1 sample\(s\).*training part"):
            model.fit(X, y)


def test_calibrated_classifier_refuses_a_class_missing_from_an_unstratified_training_fold(iris):
    X, y = iris
    from sklearn.model_selection import KFold

    model = EvidentialCalibratedClassifier(LogisticRegression(max_iter=1000), cv=KFold(3), ensemble=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"Class 0 is absent from the training part.*stratified"):
            model.fit(X, y)


@pytest.mark.parametrize("shift", [10, "other"])
def test_calibrated_classifier_refuses_a_frozen_estimator_of_other_classes(iris, shift):
    """A frozen estimator trained on other labels (or on fewer classes) was calibrated as if its columns
    were the classes of y, or failed with "decision_function returned shape (150,)"."""
    X, y = iris
    if shift == "other":
        keep = y != 1
        frozen = LogisticRegression(max_iter=1000).fit(X[keep], y[keep])
    else:
        frozen = LogisticRegression(max_iter=1000).fit(X, y + shift)
    model = EvidentialCalibratedClassifier(FrozenEstimator(frozen))
    with pytest.raises(ValueError, match=r"classes_ .* differ from the classes of `y` \[0, 1, 2\]"):
        model.fit(X, y)


@pytest.mark.parametrize("source", ["predict_proba", "decision_function"])
def test_fusion_refuses_folds_whose_training_part_lacks_a_class(iris, source):
    """KFold(3) on iris (sorted by class): each training part lacks the class of its test part, every
    out-of-fold output gives the truth probability 0, and the fusion learned to ignore every classifier
    (temperature 20, rates 1): uniform predictions, silently."""
    from sklearn.model_selection import KFold
    from sklearn.svm import LinearSVC

    X, y = iris
    first = LogisticRegression(max_iter=1000) if source == "predict_proba" else LinearSVC()
    model = EvidentialFusionClassifier([("first", first), ("nb", GaussianNB())], cv=KFold(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(
            ValueError, match=r"Class 0 \(50 samples\) is absent from the training part.*stratified"
        ):
            model.fit(X, y)
    # frozen classifiers are not fitted on the folds: any folds will do
    frozen = [(name, FrozenEstimator(clone(e).fit(X, y))) for name, e in model.estimators]
    EvidentialFusionClassifier(frozen, cv=KFold(3)).fit(X, y)


def test_fusion_keeps_a_class_of_one_sample(iris):
    """A class of one sample is absent from one training part whatever the folds: accepted (its sample's
    outputs give it probability 0 there), the other classes predicted as before."""
    X, y = iris
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = EvidentialFusionClassifier([("lr", LogisticRegression(max_iter=1000)), ("nb", GaussianNB())])
        model.fit(np.vstack([X, X[:1] + 0.05]), np.r_[y, 3])
    assert model.classes_.tolist() == [0, 1, 2, 3] and model.score(X, y) > 0.9


def test_fusion_with_the_failure_test_survives_pickle_and_skops(iris):
    """rates_without_ holds NaN on its diagonal by design (the rates of a classifier left out, for itself):
    the loaded-state check read that as a corrupted file and refused every saved model with
    failure_test_level; a NaN elsewhere is still refused."""
    import pickle

    from sklearn.ensemble import RandomForestClassifier

    from dstk.exceptions import InvalidStateError

    X, y = iris
    sources = [
        ("lr", LogisticRegression(max_iter=1000)),
        ("nb", GaussianNB()),
        ("rf", RandomForestClassifier(n_estimators=10, random_state=0)),
    ]
    model = EvidentialFusionClassifier(sources, failure_test_level=0.01).fit(X, y)
    loaded = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.rates_without_, model.rates_without_)
    skops = pytest.importorskip("skops.io")
    data = skops.dumps(model)
    restored = skops.loads(data, trusted=skops.get_untrusted_types(data=data))
    np.testing.assert_array_equal(restored.predict_proba(X), model.predict_proba(X))
    tampered = pickle.loads(pickle.dumps(model))
    tampered.rates_without_[0, 1, 0] = np.nan
    with pytest.raises(InvalidStateError, match="rates_without_"):
        pickle.loads(pickle.dumps(tampered))
    tampered.rates_without_[0, 1, 0] = 0.5
    tampered.rates_without_[1, 1, 0] = 0.5
    with pytest.raises(InvalidStateError, match="rates_without_"):
        pickle.loads(pickle.dumps(tampered))


@pytest.mark.parametrize("multiclass", ["auto", "one_vs_rest"])
def test_calibrated_classifier_refuses_an_unknown_rule_in_fit(iris, multiclass):
    """rule='nope' was accepted by fit (and by every prediction when the temperature calibration leaves
    the rule unused); with one-vs-rest it failed only at the first prediction."""
    X, y = iris
    model = EvidentialCalibratedClassifier(
        LogisticRegression(max_iter=1000), rule="nope", multiclass=multiclass
    )
    with pytest.raises(ValueError, match=r"`rule` must be one of .*'dempster'.*got 'nope'"):
        model.fit(X, y)
