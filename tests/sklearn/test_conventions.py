"""scikit-learn and pandas conventions: data frames, feature names, score, sample_weight, n_jobs, verbose,
and the NotFittedError that scikit-learn catches without ``import dstk`` importing scikit-learn."""

import logging
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")
pd = pytest.importorskip("pandas")

from sklearn.datasets import load_breast_cancer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from dstk.calibration import EvidentialCalibratedClassifier, LogisticCalibrator  # noqa: E402
from dstk.ensemble import RandomDecisionTreesClassifier  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def cancer():
    data = load_breast_cancer(as_frame=True)
    X, y = data.data.iloc[::3], data.target.iloc[::3]
    return X, y


def _run(code, **env):
    environment = dict(os.environ, PYTHONPATH=ROOT, **env)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
    )


def test_import_dstk_imports_no_optional_dependency():
    result = _run(
        """
        import sys
        import dstk, dstk.calibration, dstk.multiclass, dstk.ensemble, dstk.core, dstk.evidence, dstk.exceptions
        import dstk._progress
        loaded = sorted({name.split('.')[0] for name in sys.modules} & {'sklearn', 'pandas', 'tqdm', 'skops'})
        print(loaded)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_not_fitted_error_without_scikit_learn():
    """scikit-learn blocked: dstk still imports and raises its own NotFittedError (a ValueError)."""
    result = _run(
        """
        import sys
        sys.modules['sklearn'] = None  # as if scikit-learn were not installed
        from dstk.calibration import BinningCalibrator
        from dstk.exceptions import NotFittedError
        try:
            BinningCalibrator().predict([0.5])
        except NotFittedError as error:
            assert type(error) is NotFittedError and isinstance(error, (ValueError, AttributeError))
            print('ok')
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_not_fitted_error_is_caught_as_scikit_learns():
    import pickle

    import sklearn.exceptions

    from dstk.exceptions import NotFittedError

    for estimator, X in [
        (EvidentialCalibratedClassifier(), np.zeros((2, 3))),
        (RandomDecisionTreesClassifier(), np.zeros((2, 3))),
        (LogisticCalibrator(), np.zeros(2)),
    ]:
        with pytest.raises(sklearn.exceptions.NotFittedError) as caught:
            estimator.predict(X)
        assert isinstance(caught.value, NotFittedError)
        again = pickle.loads(pickle.dumps(caught.value))
        assert isinstance(again, sklearn.exceptions.NotFittedError) and str(again) == str(caught.value)


def test_column_vector_y_warns_as_scikit_learn():
    import sklearn.exceptions

    X = np.random.RandomState(0).normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.warns(sklearn.exceptions.DataConversionWarning, match="column-vector y"):
        RandomDecisionTreesClassifier(n_estimators=2, random_state=0).fit(X, y[:, None])


def test_data_frames_and_feature_names(cancer):
    X, y = cancer
    model = EvidentialCalibratedClassifier(make_pipeline(StandardScaler(), LogisticRegression()), cv=3).fit(
        X, y
    )
    assert list(model.feature_names_in_) == list(X.columns) and model.n_features_in_ == X.shape[1]
    np.testing.assert_array_equal(model.predict_proba(X), model.predict_proba(X.copy()))
    reordered = X[list(X.columns[::-1])]
    with pytest.raises(ValueError, match="same order as they were in fit"):
        model.predict(reordered)
    with pytest.raises(ValueError, match="seen at fit time, yet now missing"):
        model.predict(X.drop(columns=X.columns[0]))
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        model.predict(X.to_numpy())


def test_trees_reject_reordered_columns(cancer):
    """The case of the issue: trees fitted on a frame predicted silently wrong on reordered columns."""
    X, y = cancer
    trees = RandomDecisionTreesClassifier(n_estimators=10, random_state=0).fit(X, y)
    assert list(trees.feature_names_in_) == list(X.columns)
    with pytest.raises(ValueError, match="same order as they were in fit"):
        trees.predict_proba(X[list(X.columns[::-1])])


def test_set_output_pandas_pipeline(cancer):
    X, y = cancer
    pipeline = make_pipeline(
        StandardScaler(), EvidentialCalibratedClassifier(LogisticRegression(), cv=3)
    ).set_output(transform="pandas")
    pipeline.fit(X, y)
    assert list(pipeline[-1].feature_names_in_) == list(X.columns)
    assert pipeline.score(X, y) > 0.9
    trees = make_pipeline(StandardScaler(), RandomDecisionTreesClassifier(n_estimators=10, random_state=0))
    trees.set_output(transform="pandas").fit(X, y)
    assert list(trees[-1].feature_names_in_) == list(X.columns)


def test_default_scoring_in_cross_validation_and_grid_search(cancer):
    X, y = cancer
    model = EvidentialCalibratedClassifier(make_pipeline(StandardScaler(), LogisticRegression()), cv=2)
    scores = cross_val_score(model, X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.85)
    assert model.fit(X, y).score(X, y) == pytest.approx(np.mean(model.predict(X) == y))
    search = GridSearchCV(RandomDecisionTreesClassifier(random_state=0), {"n_estimators": [3, 6]}, cv=2).fit(
        X, y
    )
    assert search.best_params_["n_estimators"] in (3, 6) and 0.8 < search.best_score_ <= 1.0


def test_meta_estimator_sample_weight(cancer):
    from sklearn.neighbors import KNeighborsClassifier

    X, y = cancer
    base = make_pipeline(StandardScaler(), LogisticRegression())
    options = {"cv": 2, "method": "isotonic"}
    plain = EvidentialCalibratedClassifier(LogisticRegression(max_iter=5000), **options).fit(X, y)
    ones = EvidentialCalibratedClassifier(LogisticRegression(max_iter=5000), **options).fit(
        X, y, sample_weight=np.ones(len(y))
    )
    np.testing.assert_allclose(plain.predict_proba(X), ones.predict_proba(X), rtol=1e-10)
    weights = np.where(np.asarray(y) == 1, 1, 3)
    weighted = EvidentialCalibratedClassifier(LogisticRegression(max_iter=5000), **options).fit(
        X, y, sample_weight=weights
    )
    assert not np.allclose(plain.predict_proba(X), weighted.predict_proba(X))
    with pytest.raises(ValueError, match="does not take sample_weight"):
        EvidentialCalibratedClassifier(KNeighborsClassifier(), cv=2).fit(X, y, sample_weight=weights)
    with pytest.raises(ValueError, match="sample_weight"):
        EvidentialCalibratedClassifier(base, cv=2).fit(X, y, sample_weight=np.ones(3))


def test_trees_sample_weight_is_repetition():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    weights = rng.randint(0, 4, 60)
    weighted = RandomDecisionTreesClassifier(n_estimators=5, random_state=0).fit(X, y, sample_weight=weights)
    repeated = RandomDecisionTreesClassifier(n_estimators=5, random_state=0).fit(
        np.repeat(X, weights, axis=0), np.repeat(y, weights)
    )
    np.testing.assert_array_equal(weighted.predict_proba(X), repeated.predict_proba(X))
    with pytest.raises(ValueError, match="whole-number"):
        RandomDecisionTreesClassifier(n_estimators=2).fit(X, y, sample_weight=np.full(60, 0.3))


def test_n_jobs_gives_the_same_model(cancer):
    X, y = cancer
    base = make_pipeline(StandardScaler(), LogisticRegression())
    one = EvidentialCalibratedClassifier(base, cv=3, method="isotonic", n_jobs=1).fit(X, y)
    two = EvidentialCalibratedClassifier(base, cv=3, method="isotonic", n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))
    serial = EvidentialCalibratedClassifier(base, cv=3, method="isotonic", ensemble=False, n_jobs=2).fit(X, y)
    reference = EvidentialCalibratedClassifier(base, cv=3, method="isotonic", ensemble=False).fit(X, y)
    np.testing.assert_array_equal(serial.predict_proba(X), reference.predict_proba(X))


def test_verbose_progress_logs_and_bar(cancer, caplog, capsys):
    X, y = cancer
    with caplog.at_level(logging.INFO, logger="dstk"):
        EvidentialCalibratedClassifier(
            LogisticRegression(max_iter=5000), cv=3, method="isotonic", verbose=1
        ).fit(X, y)
    messages = [r.getMessage() for r in caplog.records if r.name == "dstk"]
    assert any("calibrated folds 3/3 done" in m for m in messages), messages
    assert "calibrated folds" in capsys.readouterr().err  # the tqdm bar
    caplog.clear()
    scores = np.random.RandomState(0).normal(size=300)
    labels = (scores + np.random.RandomState(1).normal(size=300) > 0).astype(int)
    with caplog.at_level(logging.INFO, logger="dstk"):
        LogisticCalibrator(verbose=1).fit(scores, labels)
    assert any("Chebyshev interpolation degrees 1" in r.getMessage() for r in caplog.records)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="dstk"):
        LogisticCalibrator().fit(scores, labels)
    assert not caplog.records  # verbose=0 is silent
    with pytest.raises(ValueError, match="verbose"):
        LogisticCalibrator(verbose=-1).fit(scores, labels)


def test_verbose_without_tqdm_or_logging_configuration(monkeypatch, capsys):
    from dstk import _progress

    monkeypatch.setattr(_progress, "_tqdm", lambda: None)
    monkeypatch.setattr(_progress.logger, "handlers", [])
    monkeypatch.setattr(_progress.logger, "propagate", False)  # as without any logging configuration
    assert list(_progress.progress(range(3), verbose=1, description="things")) == [0, 1, 2]
    err = capsys.readouterr().err
    assert "dstk: things 3/3 done" in err


def test_complex_input_is_rejected(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="Complex data not supported"):
        EvidentialCalibratedClassifier(LogisticRegression(), cv=2).fit(X.to_numpy() + 1j, y)
    with pytest.raises(ValueError, match="Complex data not supported"):
        LogisticCalibrator().fit(np.arange(6.0) + 1j, [0, 1, 0, 1, 0, 1])


def test_feature_names_must_be_all_strings():
    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0], 1: [1.0, 0.0, 1.0, 0.0]})
    with pytest.raises(TypeError, match="all input features have string names"):
        RandomDecisionTreesClassifier(n_estimators=2).fit(X, [0, 1, 0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        trees = RandomDecisionTreesClassifier(n_estimators=2).fit(X.set_axis([0, 1], axis=1), [0, 1, 0, 1])
    assert not hasattr(trees, "feature_names_in_") and trees.n_features_in_ == 2


def test_evidential_calibrators_are_classifiers_to_scikit_learn():
    """is_classifier: cross-validation stratifies their folds and the probability scorers take column 1."""
    from sklearn.base import is_classifier
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, cross_val_score

    from dstk.calibration import (
        BinningCalibrator,
        IsotonicCalibrator,
        LogisticCalibrator,
        VennAbersCalibrator,
    )

    X, y = load_breast_cancer(return_X_y=True)
    scores = LogisticRegression(max_iter=5000).fit(X[1::2], y[1::2]).decision_function(X[::2])[:, None]
    labels = y[::2]
    order = np.argsort(labels, kind="stable")  # sorted labels: unstratified folds would hold one class
    for calibrator in (
        BinningCalibrator(),
        IsotonicCalibrator(),
        LogisticCalibrator(),
        VennAbersCalibrator(),
    ):
        assert is_classifier(calibrator)
        auc = cross_val_score(calibrator, scores, labels, cv=3, scoring="roc_auc")
        assert np.all(auc > 0.9)
        search = GridSearchCV(calibrator, {}, cv=3, scoring="neg_log_loss").fit(scores[order], labels[order])
        assert np.isfinite(search.best_score_)
