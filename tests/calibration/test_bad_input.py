"""Bad input of issue 4: each gets a clear error."""

import numpy as np
import pytest

from dstk.calibration import (
    BinningCalibrator,
    EvidentialCalibratedClassifier,
    IsotonicCalibrator,
    LogisticCalibrator,
    VennAbersCalibrator,
    VennMachineCalibrator,
)
from dstk.exceptions import NotFittedError

CALIBRATORS = [
    BinningCalibrator,
    IsotonicCalibrator,
    LogisticCalibrator,
    VennAbersCalibrator,
    VennMachineCalibrator,
]
SCORES = np.array([-1.0, -0.5, 0.2, 0.4, 1.0, 1.3])
Y = np.array([0, 1, 0, 1, 1, 0])


@pytest.mark.parametrize("cls", CALIBRATORS)
def test_lengths_differ(cls):
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        cls().fit(SCORES, Y[:-1])


@pytest.mark.parametrize("cls", CALIBRATORS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_scores(cls, bad):
    scores = SCORES.copy()
    scores[2] = bad
    with pytest.raises(ValueError, match="non-finite"):
        cls().fit(scores, Y)
    fitted = cls().fit(SCORES, Y)
    with pytest.raises(ValueError, match="non-finite"):
        fitted.predict_mass(scores)


@pytest.mark.parametrize("cls", CALIBRATORS)
def test_labels_not_two_classes(cls):
    with pytest.raises(ValueError, match="exactly two classes"):
        cls().fit(SCORES, [0, 1, 2, 0, 1, 2])
    with pytest.raises(ValueError, match="single class"):
        cls().fit(SCORES, np.ones(6))


@pytest.mark.parametrize("cls", CALIBRATORS)
def test_predict_before_fit(cls):
    for method in ("predict_mass", "predict_interval", "predict_proba", "predict"):
        with pytest.raises(NotFittedError, match="not fitted yet"):
            getattr(cls(), method)(SCORES)


@pytest.mark.parametrize("cls", CALIBRATORS)
def test_two_dimensional_scores(cls):
    with pytest.raises(ValueError, match="must be 1-D"):
        cls().fit(np.ones((6, 2)), Y)
    fitted = cls().fit(SCORES[:, None], Y)  # a column vector is accepted
    with pytest.raises(ValueError, match="must be 1-D"):
        fitted.predict_mass(np.ones((3, 2)))


def test_empty_scores():
    with pytest.raises(ValueError, match="empty"):
        BinningCalibrator().fit([], [])


def test_unknown_models_and_options():
    with pytest.raises(ValueError, match="Unknown model 'bogus'"):
        BinningCalibrator(model="bogus").fit(SCORES, Y)
    with pytest.raises(ValueError, match="Unknown model 'dempster'"):
        LogisticCalibrator(model="dempster").fit(SCORES, Y)
    with pytest.raises(ValueError, match="Unknown targets"):
        LogisticCalibrator(targets="soft").fit(SCORES, Y)
    with pytest.raises(ValueError, match="Unknown strategy"):
        BinningCalibrator(strategy="kmeans").fit(SCORES, Y)
    with pytest.raises(ValueError, match="strictly increasing"):
        BinningCalibrator(bins=[0, 1, 1]).fit(SCORES, Y)
    with pytest.raises(ValueError, match="positive number of bins"):
        BinningCalibrator(bins=0).fit(SCORES, Y)
    with pytest.raises(ValueError, match="Unknown empty_bins"):
        BinningCalibrator(empty_bins="drop").fit(SCORES, Y)
    with pytest.raises(ValueError, match="level"):
        LogisticCalibrator(model="confidence_interval", level=1.5).fit(SCORES, Y)
    with pytest.raises(ValueError, match="All calibration scores are equal"):
        LogisticCalibrator().fit(np.zeros(6), Y)
    with pytest.raises(ValueError, match="strictly increasing"):
        VennMachineCalibrator(edges=[1.0, 0.0]).fit(SCORES, Y)


def test_contour_bad_input():
    cal = LogisticCalibrator().fit(SCORES, Y)
    with pytest.raises(ValueError, match="tau"):
        cal.contour(0.0, [0.5, 1.5])
    with pytest.raises(ValueError, match="finite"):
        cal.contour(np.nan, [0.5])


def test_classifier_bad_input():
    X = np.random.default_rng(0).normal(size=(30, 2))
    y = np.array([0, 1] * 15)
    with pytest.raises(ValueError, match="Unknown method"):
        EvidentialCalibratedClassifier(method="platt").fit(X, y)
    with pytest.raises(ValueError, match="single class"):
        EvidentialCalibratedClassifier().fit(X, np.zeros(30))
    with pytest.raises(ValueError, match="30 samples but `y` has 29"):
        EvidentialCalibratedClassifier().fit(X, y[:-1])
    with pytest.raises(ValueError, match="ensemble"):
        EvidentialCalibratedClassifier(ensemble="yes").fit(X, y)
    with pytest.raises(NotFittedError):
        EvidentialCalibratedClassifier().predict_mass(X)


def test_class_absent_from_a_calibration_fold_is_named():
    # 3 samples of class 2 cannot fill 5 stratified folds: the message names the class, its count and the fix
    from sklearn.linear_model import LogisticRegression

    from dstk.calibration import EvidentialCalibratedClassifier

    X = np.linspace(0.0, 3.0, 10)[:, None]
    y = np.array([1, 2, 1, 1, 1, 1, 1, 2, 2, 1])
    with pytest.raises(
        ValueError, match=r"Class 2 is absent from a calibration fold .*3 sample\(s\).*at most 3 folds"
    ):
        EvidentialCalibratedClassifier(LogisticRegression()).fit(X, y)
    EvidentialCalibratedClassifier(LogisticRegression(), cv=3).fit(X, y)


def test_object_dtype_integer_labels_get_the_wrapped_estimators_message():
    # scikit-learn's type_of_target calls object-dtype integers "unknown" and check_cv would fall back to
    # unstratified KFold; the folds are made on the encoded labels, so the wrapped estimator's own message
    # ("Unknown label type") is what the user sees, not a fold missing a class
    from sklearn.linear_model import LogisticRegression

    from dstk.calibration import EvidentialCalibratedClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(56, 2))
    y = rng.permutation(np.repeat([0, 1, 2, 3], 14))
    with pytest.raises(ValueError, match="Unknown label type"):
        EvidentialCalibratedClassifier(LogisticRegression()).fit(X, y.astype(object))


def test_label_messages_show_plain_labels():
    # numpy 2 scalar reprs (np.int64(5), np.str_('a')) are noise in an error message
    from dstk.calibration import IsotonicCalibrator

    with pytest.raises(ValueError, match=r"got 3 classes \['hi', 'lo', 'mid'\]"):
        IsotonicCalibrator().fit([0.1, 0.2, 0.3], np.array(["lo", "mid", "hi"]))
    with pytest.raises(ValueError, match=r"a single class \(5\)"):
        IsotonicCalibrator().fit([0.1, 0.2], np.array([5, 5]))


@pytest.mark.parametrize(
    "labels", [[0, 1, 0.5, 1], [0, 1, np.nan, 1], [0, 1, 2, 1], [0, 1, -1, 1], [True, False, True, False]]
)
def test_conformal_p_values_refuses_labels_that_are_not_class_indices(labels):
    from dstk.calibration import conformal_p_values

    with pytest.raises(ValueError, match="calibration_labels"):
        conformal_p_values([0.1, 0.2, 0.3, 0.4], [[0.2, 0.3]], calibration_labels=labels)
    assert conformal_p_values([0.1, 0.2, 0.3, 0.4], [[0.2, 0.3]], calibration_labels=[0, 1, 0, 1]).shape == (
        1,
        2,
    )


def test_conformal_mondrian_must_be_a_bool():
    from sklearn.datasets import load_iris

    from dstk.calibration import ConformalBeliefClassifier

    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="mondrian"):
        ConformalBeliefClassifier(mondrian="yes").fit(X, y)


@pytest.mark.parametrize("name", ["ConformalBeliefClassifier", "VennMulticlassClassifier"])
def test_text_in_x_is_named(name):
    from sklearn.datasets import load_iris

    from dstk import calibration

    X, y = load_iris(return_X_y=True)
    text = X.astype(object)
    text[0, 0] = "abc"
    with pytest.raises(ValueError, match=r"`X`.*not numbers"):
        getattr(calibration, name)().fit(text, y)
    fitted = getattr(calibration, name)().fit(X, y)
    with pytest.raises(ValueError, match=r"`X`.*not numbers"):
        fitted.predict_proba(text)


def test_logistic_evidence_names_a_missing_estimator():
    from dstk.classifiers import logistic_evidence

    with pytest.raises(TypeError, match=r"`estimator`.*NoneType"):
        logistic_evidence(None, np.ones((2, 3)))
