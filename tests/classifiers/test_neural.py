"""EvidentialNeuralNetworkClassifier: gradient vs finite differences, output vs dstk.combine of the prototypes'
mass functions, scikit-learn's LogisticRegression and MLPClassifier side by side."""

import numpy as np
import pytest
from scipy.optimize import approx_fprime

pytest.importorskip("sklearn")

from sklearn.datasets import load_iris, load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler

from dstk import Frame, MassFunction, combine
from dstk.classifiers import EvidentialNeuralNetworkClassifier
from dstk.classifiers._neural import _network_loss

# short runs (max_iter=1, 50) stop before convergence on purpose
pytestmark = pytest.mark.filterwarnings("ignore::dstk.exceptions.ConvergenceWarning")


@pytest.mark.parametrize("frame_share", [1 / 3, 1.0])
@pytest.mark.parametrize("regularization", [0.0, 0.1])
def test_gradient_matches_finite_differences(frame_share, regularization):
    rng = np.random.default_rng(1)
    n, d, P, M = 30, 3, 4, 3
    X = rng.normal(size=(n, d))
    targets = np.eye(M)[rng.integers(0, M, n)]
    weights = rng.uniform(size=n)
    weights /= weights.sum()
    shapes = [(P, d), (P,), (P, M), (P,)]
    theta = np.concatenate(
        [rng.normal(size=P * d), rng.uniform(0.5, 1, P), rng.uniform(0.2, 1, P * M), rng.normal(size=P)]
    )

    def loss(t):
        return _network_loss(t, shapes, X, targets, weights, frame_share, regularization)[0]

    grad = _network_loss(theta, shapes, X, targets, weights, frame_share, regularization)[1]
    np.testing.assert_allclose(grad, approx_fprime(theta, loss, 1e-7), rtol=1e-4, atol=1e-6)


def test_output_is_the_dempster_combination_of_the_prototypes():
    X, y = load_iris(return_X_y=True)
    clf = EvidentialNeuralNetworkClassifier(n_prototypes=5, max_iter=100, random_state=0).fit(X, y)
    frame = Frame([0, 1, 2])
    focal = [1, 2, 4, 7]
    m = clf.predict_mass(X[::15]).to_array()
    for row, x in enumerate(X[::15]):
        sources = []
        for j in range(clf.prototypes_.shape[0]):
            s = clf.alpha_[j] * np.exp(-clf.gamma_[j] * ((x - clf.prototypes_[j]) ** 2).sum())
            sources.append(MassFunction.from_focal_sets(focal, np.r_[clf.membership_[j] * s, 1 - s], frame))
        np.testing.assert_allclose(m[row], combine(sources, rule="dempster").to_array(), atol=1e-12)


def test_reproducible_with_random_state_and_attributes():
    X, y = load_iris(return_X_y=True)
    a = EvidentialNeuralNetworkClassifier(n_prototypes=4, max_iter=50, random_state=3).fit(X, y)
    b = EvidentialNeuralNetworkClassifier(n_prototypes=4, max_iter=50, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert a.prototypes_.shape == (4, 4)
    np.testing.assert_allclose(a.membership_.sum(axis=1), 1.0)
    assert np.all((a.alpha_ > 0) & (a.alpha_ < 0.99))


def test_training_lowers_the_criterion_below_the_k_means_start():
    X, y = load_iris(return_X_y=True)
    short = EvidentialNeuralNetworkClassifier(n_prototypes=6, max_iter=1, random_state=0).fit(X, y)
    long = EvidentialNeuralNetworkClassifier(n_prototypes=6, max_iter=300, random_state=0).fit(X, y)
    assert long.loss_ < short.loss_


@pytest.mark.parametrize("loader", [load_iris, load_wine])
def test_accuracy_side_by_side_with_logistic_regression_and_mlp(loader):
    X, y = loader(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.4, stratify=y, random_state=0)
    enn = EvidentialNeuralNetworkClassifier(n_prototypes=8, random_state=0).fit(Xtr, ytr).score(Xte, yte)
    logistic = LogisticRegression(max_iter=2000).fit(Xtr, ytr).score(Xte, yte)
    mlp = MLPClassifier(hidden_layer_sizes=(16,), max_iter=3000, random_state=0).fit(Xtr, ytr).score(Xte, yte)
    assert enn >= min(logistic, mlp) - 0.05


def test_bad_parameters_name_the_argument():
    X, y = load_iris(return_X_y=True)
    for params, match in [
        ({"n_prototypes": 0}, "n_prototypes"),
        ({"loss": "x"}, "loss"),
        ({"regularization": -1.0}, "regularization"),
        ({"max_iter": 0}, "max_iter"),
    ]:
        with pytest.raises(ValueError, match=match):
            EvidentialNeuralNetworkClassifier(**params).fit(X, y)


@pytest.mark.parametrize("weights", [-np.ones(40), np.r_[np.ones(20), -np.ones(20)], np.full(40, np.nan)])
def test_negative_or_missing_sample_weights_are_refused_by_name(weights):
    X = np.random.default_rng(0).normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="`sample_weight` must be finite and non-negative"):
        EvidentialNeuralNetworkClassifier(random_state=0).fit(X, y, sample_weight=weights)


def test_more_prototypes_than_distinct_rows_warns():
    from sklearn.datasets import load_iris

    from dstk.classifiers import EvidentialNeuralNetworkClassifier

    X, y = load_iris(return_X_y=True)
    with pytest.warns(UserWarning, match=r"n_prototypes.*149 distinct rows"):
        fitted = EvidentialNeuralNetworkClassifier(n_prototypes=1000, max_iter=5, random_state=0).fit(X, y)
    assert fitted.prototypes_.shape == (149, 4)


@pytest.mark.parametrize("name", ["EvidentialNeuralNetworkClassifier", "EvidentialKNNClassifier"])
def test_extreme_feature_scales_raise_or_warn_instead_of_nan(name):
    from sklearn.datasets import load_iris

    from dstk import classifiers

    X, y = load_iris(return_X_y=True)
    options = {"max_iter": 5, "random_state": 0} if "Neural" in name else {}
    with pytest.raises(ValueError, match=r"`X`.*Standardise"):
        getattr(classifiers, name)(**options).fit(X * 1e154, y)
    with pytest.warns(UserWarning, match="underflow"):
        getattr(classifiers, name)(**options).fit(X * 1e-200, y)
    fitted = getattr(classifiers, name)(**options).fit(X * 1e100, y)  # large but safe: finite probabilities
    assert np.all(np.isfinite(fitted.predict_proba(X * 1e100)))
