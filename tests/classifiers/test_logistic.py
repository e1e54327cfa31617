"""logistic_evidence: plausibility transform = predict_proba to 1e-9; masses = dstk.combine of the simple mass
functions built from the contributions; least-committed parameters (Denoeux 2019)."""

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from dstk import Frame, MassFunction, combine
from dstk.classifiers import logistic_evidence


def _scaled(loader):
    X, y = loader(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("loader", [load_iris, load_wine, load_breast_cancer])
@pytest.mark.parametrize("C", [0.1, 1.0, 1e4])
def test_plausibility_transform_is_predict_proba(loader, C):
    X, y = loader(return_X_y=True)
    model = make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=10000)).fit(X, y)
    m = logistic_evidence(model, X, reference=X)
    np.testing.assert_allclose(m.plausibility_transform(), model.predict_proba(X), atol=1e-9, rtol=0)
    assert m.frame.labels == tuple(model.classes_)


@pytest.mark.parametrize("loader", [load_iris, load_breast_cancer])
def test_mlp_last_layer(loader):
    X, y = _scaled(loader)
    mlp = MLPClassifier(hidden_layer_sizes=(6,), max_iter=2000, random_state=0).fit(X, y)
    m = logistic_evidence(mlp, X, reference=X)
    np.testing.assert_allclose(m.plausibility_transform(), mlp.predict_proba(X), atol=1e-9, rtol=0)


def test_mlp_with_two_hidden_layers_and_tanh():
    X, y = _scaled(load_wine)
    mlp = MLPClassifier(hidden_layer_sizes=(5, 4), activation="tanh", max_iter=2000, random_state=0).fit(X, y)
    m = logistic_evidence(mlp, X)
    np.testing.assert_allclose(m.plausibility_transform(), mlp.predict_proba(X), atol=1e-9, rtol=0)


@pytest.mark.parametrize("loader", [load_iris, load_breast_cancer])
def test_masses_are_the_dempster_combination_of_the_feature_evidence(loader):
    """Brute force: 2K simple mass functions per sample built from the contributions, combined by dstk."""
    X, y = _scaled(loader)
    model = LogisticRegression(max_iter=2000).fit(X, y)
    m, w = logistic_evidence(model, X[::40], reference=X, return_contributions=True)
    n_classes = len(model.classes_)
    frame = Frame(list(model.classes_))
    full = frame.full
    for row in range(w.shape[0]):
        sources = []
        for k in range(n_classes):
            plus = np.maximum(w[row, :, k], 0).sum()
            minus = np.maximum(-w[row, :, k], 0).sum()
            for focus, weight in ((1 << k, plus), (full ^ (1 << k), minus)):
                sources.append(
                    MassFunction.from_focal_sets([focus, full], [1 - np.exp(-weight), np.exp(-weight)], frame)
                )
        expected = combine(sources, rule="dempster").to_array()
        np.testing.assert_allclose(m.to_array()[row], expected, atol=1e-10)


def test_least_committed_parameters():
    """sum_j w_jk = centred score; at the reference mean every feature carries the same weight (Denoeux 2019)."""
    X, y = _scaled(load_wine)
    model = LogisticRegression(max_iter=2000).fit(X, y)
    _, w = logistic_evidence(model, X, reference=X, return_contributions=True)
    scores = model.decision_function(X)
    np.testing.assert_allclose(w.sum(axis=1), scores - scores.mean(axis=1, keepdims=True), atol=1e-9)
    _, w_mean = logistic_evidence(
        model, X.mean(axis=0, keepdims=True), reference=X, return_contributions=True
    )
    np.testing.assert_allclose(w_mean[0], np.broadcast_to(w_mean[0, :1], w_mean[0].shape), atol=1e-12)


def test_binary_contributions_are_half_the_binary_weight_each():
    X, y = _scaled(load_breast_cancer)
    model = LogisticRegression(max_iter=2000).fit(X, y)
    _, w = logistic_evidence(model, X[:5], return_contributions=True)
    beta = model.coef_[0]
    expected = (X[:5] * beta + model.intercept_[0] / X.shape[1]) / 2.0
    np.testing.assert_allclose(w[:, :, 1], expected, atol=1e-12)
    np.testing.assert_allclose(w[:, :, 0], -expected, atol=1e-12)


def test_equal_probabilities_can_hide_different_evidence():
    """Two samples with the same probability but different ignorance m(Omega) exist on real data."""
    X, y = _scaled(load_breast_cancer)
    model = LogisticRegression(max_iter=2000).fit(X, y)
    m = logistic_evidence(model, X, reference=X)
    p = model.predict_proba(X)[:, 1]
    ignorance = m.to_array()[:, -1]
    middle = np.flatnonzero(np.abs(p - 0.5) < 0.2)
    assert middle.size >= 2
    assert ignorance[middle].max() > 2 * ignorance[middle].min()


def test_errors_name_the_problem():
    X, y = _scaled(load_iris)
    with pytest.raises(TypeError, match="LogisticRegression or MLPClassifier"):
        logistic_evidence(DecisionTreeClassifier().fit(X, y), X)
    with pytest.raises(ValueError, match="not fitted"):
        logistic_evidence(LogisticRegression(), X)


def test_features_are_checked_against_the_model_and_frames_reach_a_pipeline_by_name():
    pandas = pytest.importorskip("pandas")
    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    rng = np.random.default_rng(0)
    frame = pandas.DataFrame(
        {"size": rng.normal(size=90), "colour": rng.choice(["red", "blue", "green"], size=90)}
    )
    y = ((frame["size"] > 0) | (frame["colour"] == "red")).astype(int)
    model = make_pipeline(
        make_column_transformer((OneHotEncoder(), ["colour"]), (StandardScaler(), ["size"])),
        LogisticRegression(),
    ).fit(frame, y)
    m = logistic_evidence(model, frame[:5], reference=frame)
    np.testing.assert_allclose(m.plausibility_transform(), model.predict_proba(frame[:5]), atol=1e-9)
    with pytest.raises(ValueError, match="feature names"):
        logistic_evidence(model, frame[["colour", "size"]][:5])
    numbers = LogisticRegression().fit(rng.normal(size=(40, 4)), np.arange(40) % 2)
    with pytest.raises(ValueError, match="X has 3 features"):
        logistic_evidence(numbers, rng.normal(size=(2, 3)))
    with pytest.raises(ValueError, match="reference"):
        logistic_evidence(numbers, rng.normal(size=(2, 4)), reference=rng.normal(size=(5, 2)))
