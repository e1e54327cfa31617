"""EvidentialFusionClassifier: the estimator against the same steps done by hand, and in scikit-learn's machinery."""

import numpy as np
import pytest
from scipy import optimize
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from dstk import Frame, MassFunction, combine
from dstk.calibration import EvidentialFusionClassifier
from dstk.evidence._contextual import log_loss_contextual_rates, plausibility_transform_of_product


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return X, y


def sources():
    return [("lr", make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))), ("nb", GaussianNB())]


def test_against_the_steps_done_by_hand(iris):
    """Without the failure model (contamination=0; its criterion is written out in
    test_fusion_contamination.py), the rates minimise the log-loss of the out-of-fold outputs."""
    X, y = iris
    model = EvidentialFusionClassifier(sources(), cv=5, contamination=0.0).fit(X, y)
    folds = StratifiedKFold(5)
    by_hand = []
    for (_name, estimator), temperature in zip(sources(), model.temperatures_):
        q = cross_val_predict(clone(estimator), X, y, cv=folds, method="predict_proba")
        log_q = np.log(np.clip(q, 1e-12, 1.0))

        def loss(t, log_q=log_q):  # the log-loss of temperature scaling, written out
            z = log_q / t
            z = z - z.max(axis=1, keepdims=True)
            return -np.mean(z[np.arange(y.size), y] - np.log(np.exp(z).sum(axis=1)))

        best = optimize.minimize_scalar(loss, bounds=(0.05, 20.0), method="bounded", options={"xatol": 1e-8})
        assert abs(best.x - temperature) < 1e-3 * max(1.0, temperature)
        z = log_q / temperature
        z = np.exp(z - z.max(axis=1, keepdims=True))
        by_hand.append(z / z.sum(axis=1, keepdims=True))
    contours = np.stack(by_hand)

    def criterion(rates):
        discounted = contours + rates.reshape(2, 3)[:, None, :] * (1 - contours)
        product = np.prod(discounted, axis=0)
        return -np.mean(np.log(product[np.arange(y.size), y] / product.sum(axis=1)))

    # the learned rates are a minimum of the criterion on [0.01, 1] (no classifier alone rules a class
    # out): no random point nor coordinate step beats it
    assert model.rates_.min() >= 0.01 - 1e-12
    found = criterion(model.rates_.ravel())
    rng = np.random.default_rng(0)
    assert all(criterion(rng.uniform(0.01, 1.0, size=6)) >= found - 1e-9 for _ in range(300))
    for j in range(6):
        for step in (-1e-3, 1e-3):
            moved = model.rates_.ravel().copy()
            moved[j] = np.clip(moved[j] + step, 0.01, 1.0)
            assert criterion(moved) >= found - 1e-9
    # predictions: each classifier fitted on all data, calibrated, discounted, combined by Dempster's rule
    frame = Frame((0, 1, 2))
    discounted = []
    for (_name, estimator), temperature, rates in zip(sources(), model.temperatures_, model.rates_):
        q = clone(estimator).fit(X, y).predict_proba(X[:20])
        z = np.log(np.clip(q, 1e-12, 1.0)) / temperature
        z = np.exp(z - z.max(axis=1, keepdims=True))
        dense = np.zeros((20, 8))
        dense[:, [1, 2, 4]] = z / z.sum(axis=1, keepdims=True)
        discounted.append(MassFunction.from_array(dense, frame).contextual_discount(rates))
    combined = combine(discounted, rule="dempster")
    np.testing.assert_allclose(model.predict_mass(X[:20]).to_array(), combined.to_array(), atol=1e-12)
    contour = np.stack([combined.pl(label) for label in (0, 1, 2)], axis=1)
    np.testing.assert_allclose(
        model.predict_proba(X[:20]), contour / contour.sum(axis=1, keepdims=True), atol=1e-12
    )
    np.testing.assert_array_equal(model.predict(X[:20]), model.predict_proba(X[:20]).argmax(axis=1))


def test_log_loss_rates_gradient_matches_finite_differences():
    rng = np.random.default_rng(1)
    contours = rng.dirichlet(np.ones(4), size=(3, 50))
    labels = rng.integers(0, 4, size=50)
    weights = rng.uniform(0.5, 2.0, size=50)

    def criterion(flat):
        d = contours + flat.reshape(3, 4)[:, None, :] * (1 - contours)
        product = np.prod(d, axis=0)
        return -np.sum(weights * np.log(product[np.arange(50), labels] / product.sum(axis=1))) / weights.sum()

    rates = log_loss_contextual_rates(contours, labels, weights=weights)
    found = criterion(rates.ravel())
    for _ in range(200):
        assert criterion(rng.uniform(size=12)) >= found - 1e-9
    probabilities, _ = plausibility_transform_of_product(contours, rates)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)


def test_other_rules_predict_the_plausibility_transform_of_their_mass(iris):
    X, y = iris
    for rule in ("cautious", "yager", "average", "disjunctive", "dubois_prade"):
        model = EvidentialFusionClassifier(sources(), rule=rule).fit(X, y)
        mass = model.predict_mass(X[::10])
        contour = np.asarray(mass.contour())
        np.testing.assert_allclose(model.predict_proba(X[::10]), contour / contour.sum(axis=1, keepdims=True))
        assert model.score(X, y) > 0.9, rule


def test_grid_search_over_nested_parameters_and_repr(iris):
    X, y = iris
    search = GridSearchCV(
        EvidentialFusionClassifier(sources(), cv=3),
        {"lr__logisticregression__C": [0.1, 1.0], "method": [None, "temperature"]},
        cv=3,
        scoring="neg_log_loss",
    ).fit(X, y)
    assert set(search.best_params_) == {"lr__logisticregression__C", "method"}
    text = repr(search.best_estimator_)
    assert (
        text.startswith("EvidentialFusionClassifier(")
        and "('nb', GaussianNB())" in text
        and " at 0x" not in text
    )
    dropped = EvidentialFusionClassifier(sources()).set_params(nb="drop").fit(X, y)
    assert dropped.rates_.shape == (1, 3) and list(dropped.named_estimators_) == ["lr"]


def test_nested_parameters_spelled_through_estimators(iris):
    """``estimators__lr__C`` is the parameter ``lr__C``: the same grid search, the same fitted model."""
    X, y = iris
    base = EvidentialFusionClassifier([("lr", LogisticRegression(max_iter=1000)), ("nb", GaussianNB())], cv=3)
    long = GridSearchCV(base, {"estimators__lr__C": [0.01, 1.0]}, cv=3, scoring="neg_log_loss").fit(X, y)
    short = GridSearchCV(base, {"lr__C": [0.01, 1.0]}, cv=3, scoring="neg_log_loss").fit(X, y)
    np.testing.assert_allclose(long.cv_results_["mean_test_score"], short.cv_results_["mean_test_score"])
    assert long.best_estimator_.get_params()["lr__C"] == short.best_params_["lr__C"]
    model = clone(base).set_params(estimators__lr__C=0.01, estimators__nb="drop")
    assert model.get_params()["lr__C"] == 0.01 and model.get_params()["nb"] == "drop"
    assert base.get_params()["lr__C"] == 1.0  # set on a clone, the original is untouched
    with pytest.raises(ValueError, match="twice"):
        clone(base).set_params(lr__C=1.0, estimators__lr__C=2.0)
    with pytest.raises(ValueError, match=r"parameters of EvidentialFusionClassifier.*rename"):
        EvidentialFusionClassifier([("cv", GaussianNB()), ("nb", GaussianNB())]).fit(X, y)


def test_frozen_sources_are_used_as_fitted():
    X, y = load_breast_cancer(return_X_y=True)
    trained_elsewhere = make_pipeline(StandardScaler(), LogisticRegression()).fit(X[:100], y[:100])
    coefficients = trained_elsewhere[-1].coef_.copy()
    model = EvidentialFusionClassifier(
        [("lr", FrozenEstimator(trained_elsewhere)), ("nb", GaussianNB())], cv=3
    ).fit(X[100:], y[100:])
    np.testing.assert_array_equal(model.named_estimators_["lr"].estimator[-1].coef_, coefficients)
    assert model.named_estimators_["lr"].estimator is trained_elsewhere
    assert model.score(X[100:], y[100:]) > 0.9


def test_data_frames_weights_and_errors(iris):
    pandas = pytest.importorskip("pandas")
    X, y = iris
    frame = pandas.DataFrame(X, columns=["a", "b", "c", "d"])
    model = EvidentialFusionClassifier(sources()).fit(frame, y)
    assert list(model.feature_names_in_) == ["a", "b", "c", "d"]
    weighted = EvidentialFusionClassifier(sources()).fit(X, y, sample_weight=np.where(y == 2, 5.0, 1.0))
    assert not np.allclose(weighted.rates_, EvidentialFusionClassifier(sources()).fit(X, y).rates_)
    with pytest.raises(ValueError, match="pair"):
        EvidentialFusionClassifier([LogisticRegression()]).fit(X, y)
    with pytest.raises(ValueError, match="distinct"):
        EvidentialFusionClassifier([("a", GaussianNB()), ("a", GaussianNB())]).fit(X, y)
    with pytest.raises(ValueError, match="rule"):
        EvidentialFusionClassifier(sources(), rule="nope").fit(X, y)
    with pytest.raises(ValueError, match=r"subnormal.*cautious"):
        EvidentialFusionClassifier(sources(), rule="bold").fit(X, y)
    with pytest.raises(ValueError, match="predict_proba, predict_mass and decision_function"):

        class LabelsOnly(ClassifierMixin, BaseEstimator):
            def fit(self, X, y):
                return self

            def predict(self, X):
                return np.zeros(len(X), dtype=int)

        EvidentialFusionClassifier([("labels", LabelsOnly())]).fit(X, y)


class _PignisticOnly(ClassifierMixin, BaseEstimator):
    """A classifier seen only through ``predict_mass``: Gaussian naive Bayes with 0.2 of its mass on the
    frame (its pignistic probabilities: 0.8 q + 0.2 / n_classes)."""

    def fit(self, X, y):
        self.nb_ = GaussianNB().fit(X, y)
        self.classes_ = self.nb_.classes_
        return self

    def predict(self, X):
        return self.nb_.predict(X)

    def predict_mass(self, X):
        q = self.nb_.predict_proba(X)
        k = q.shape[1]
        dense = np.zeros((len(X), 1 << k))
        dense[:, 1 << np.arange(k)] = 0.8 * q
        dense[:, -1] = 0.2
        return MassFunction.from_array(dense, Frame(self.classes_.tolist()))


class _SameAsProbabilities(_PignisticOnly):
    """The same classifier with ``predict_proba``: the pignistic probabilities written out."""

    def predict_proba(self, X):
        q = self.nb_.predict_proba(X)
        return 0.8 * q + 0.2 / q.shape[1]


def test_classifiers_with_predict_mass_only_enter_by_their_pignistic_probabilities(iris):
    X, y = iris
    lr = ("lr", LogisticRegression(max_iter=1000))
    mass_only = EvidentialFusionClassifier([lr, ("m", _PignisticOnly())]).fit(X, y)
    written_out = EvidentialFusionClassifier([lr, ("m", _SameAsProbabilities())]).fit(X, y)
    np.testing.assert_allclose(mass_only.temperatures_, written_out.temperatures_, rtol=1e-6)
    np.testing.assert_allclose(mass_only.rates_, written_out.rates_, atol=1e-6)
    np.testing.assert_allclose(mass_only.predict_proba(X), written_out.predict_proba(X), atol=1e-6)
    from sklearn.model_selection import ShuffleSplit

    with pytest.raises(ValueError, match="partition"):
        EvidentialFusionClassifier([lr, ("m", _PignisticOnly())], cv=ShuffleSplit(3, random_state=0)).fit(
            X, y
        )
