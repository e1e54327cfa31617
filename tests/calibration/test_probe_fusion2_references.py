"""Classifiers combined as evidence against independent references (second review).

Contextual discounting against Mercier, Quost & Denoeux's definition by brute force over subsets in exact
rationals; the learned-rate criteria against their definitions; the fusion against a hand-built
cross-fitted pipeline; properties of the outputs under relabelling (hypothesis).
"""

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import optimize
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.ensemble import StackingClassifier, VotingClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from dstk import Frame, MassFunction
from dstk.calibration import EvidentialFusionClassifier
from dstk.core import contextual_discount, discount
from dstk.evidence._contextual import log_loss_contextual_rates, separate_contextual_rates


def _random_rationals(rng, size, zeros=0.3, denominator=97):
    """Non-negative rationals summing to 1, some exactly 0."""
    weights = rng.integers(1, denominator, size=size) * (rng.random(size) > zeros)
    if weights.sum() == 0:
        weights[rng.integers(size)] = 1
    total = int(weights.sum())
    return [Fraction(int(w), total) for w in weights]


def _rate(rng):
    return Fraction(int(rng.choice([0, 0, 1, 3, 7, 50, 99, 100])), 100)


def _contextual_by_definition(masses, rates):
    """Mercier, Quost & Denoeux (2008): m combined by the disjunctive rule with m_k(empty) = 1 - alpha_k,
    m_k({w_k}) = alpha_k, written as the sum over A and B of m(A) prod_{k in B} alpha_k
    prod_{k not in B} (1 - alpha_k) on A union B."""
    n = len(rates)
    out = [Fraction(0)] * (1 << n)
    for a, mass in enumerate(masses):
        if mass == 0:
            continue
        for b in range(1 << n):
            weight = Fraction(1)
            for k in range(n):
                weight *= rates[k] if b >> k & 1 else 1 - rates[k]
            out[a | b] += mass * weight
    return out


def test_contextual_discount_against_the_definition_in_exact_rationals():
    """Mass, and plausibility through pl'(A) = 1 - (1 - pl(A)) prod_{k in A} (1 - alpha_k) (Mercier et
    al. 2008, the implicabilities multiplying under the disjunctive rule), on 1 to 4 labels, subnormal
    masses and rates 0 and 1 included; batches with rates per row."""
    rng = np.random.default_rng(20261129)
    compared = 0
    for _ in range(300):
        n = int(rng.integers(1, 5))
        masses = _random_rationals(rng, 1 << n)
        rates = [_rate(rng) for _ in range(n)]
        expected = _contextual_by_definition(masses, rates)
        frame = Frame(tuple(range(n)))
        m = MassFunction.from_array(np.array([float(x) for x in masses]), frame, validate=False)
        got = contextual_discount(m, [float(r) for r in rates]).to_array("m")
        np.testing.assert_allclose(got, [float(x) for x in expected], rtol=0, atol=1e-14)
        # plausibility of every subset through the implicabilities
        pl = [sum((x for c, x in enumerate(masses) if c & a), Fraction(0)) for a in range(1 << n)]
        pl_discounted = [
            sum((x for c, x in enumerate(expected) if c & a), Fraction(0)) for a in range(1 << n)
        ]
        for a in range(1 << n):
            factor = Fraction(1)
            for k in range(n):
                if a >> k & 1:
                    factor *= 1 - rates[k]
            assert pl_discounted[a] == 1 - (1 - pl[a]) * factor if a else pl_discounted[a] == 0
        compared += 2 * (1 << n)
    assert compared > 2000


def test_contextual_discount_of_a_batch_with_rates_per_row():
    rng = np.random.default_rng(7)
    n, rows = 3, 40
    masses = [_random_rationals(rng, 1 << n) for _ in range(rows)]
    rates = [[_rate(rng) for _ in range(n)] for _ in range(rows)]
    m = MassFunction.from_array(np.array([[float(x) for x in row] for row in masses]), Frame("abc"))
    got = m.contextual_discount(np.array([[float(r) for r in row] for row in rates])).to_array("m")
    for i in range(rows):
        expected = _contextual_by_definition(masses[i], rates[i])
        np.testing.assert_allclose(got[i], [float(x) for x in expected], rtol=0, atol=1e-14)


def test_contextual_discount_on_focal_sets_against_the_definition():
    """20 labels (focal-set storage): rates above 0 on four labels; the result's masses against the
    definition restricted to those labels (the others' factors are 1)."""
    rng = np.random.default_rng(11)
    n = 20
    frame = Frame(tuple(f"l{i}" for i in range(n)))
    for _ in range(20):
        focal = sorted({int(x) for x in rng.integers(0, 1 << n, size=5)})
        masses = _random_rationals(rng, len(focal), zeros=0.0)
        active = rng.choice(n, size=4, replace=False)
        rates = np.zeros(n)
        alpha = {int(k): _rate(rng) for k in active}
        for k, r in alpha.items():
            rates[k] = float(r)
        m = MassFunction.from_focal_sets(focal, np.array([float(x) for x in masses]), frame)
        got = contextual_discount(m, rates)
        expected: dict[int, Fraction] = {}
        for a, mass in zip(focal, masses):
            for chosen in itertools.product([0, 1], repeat=len(alpha)):
                weight, union = Fraction(1), a
                for (k, r), bit in zip(alpha.items(), chosen):
                    weight *= r if bit else 1 - r
                    union |= bit << k
                expected[union] = expected.get(union, Fraction(0)) + mass * weight
        for subset, value in expected.items():
            assert abs(float(got.mass(subset)) - float(value)) < 1e-14


def test_classical_discount_against_the_definition():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(1, 5))
        masses = _random_rationals(rng, 1 << n)
        rate = _rate(rng)
        expected = [(1 - rate) * x for x in masses]
        expected[-1] += rate
        m = MassFunction.from_array(
            np.array([float(x) for x in masses]), Frame(tuple(range(n))), validate=False
        )
        np.testing.assert_allclose(
            discount(m, float(rate)).to_array("m"), [float(x) for x in expected], atol=1e-15
        )


def test_plausibility_error_rates_minimise_eq_33_per_class():
    """separate_contextual_rates (closed form) against a bounded scalar minimisation of Mercier et al.'s
    Eq. 33 for each class, weighted."""
    rng = np.random.default_rng(5)
    compared = 0
    for _ in range(60):
        n, k = int(rng.integers(5, 40)), int(rng.integers(2, 6))
        contour = rng.dirichlet(np.full(k, rng.uniform(0.2, 3.0)), size=n)
        contour[rng.random(n) < 0.1] = np.eye(k)[rng.integers(k)]  # some dogmatic outputs
        labels = rng.integers(0, k, size=n)
        indicators = np.eye(k)[labels]
        weights = rng.uniform(0.0, 3.0, size=n)
        got = separate_contextual_rates(contour, indicators, weights)
        for c in range(k):

            def error(alpha, c=c, contour=contour, weights=weights, indicators=indicators):
                discounted = contour[:, c] + alpha * (1 - contour[:, c])
                return float(np.sum(weights * (discounted - indicators[:, c]) ** 2))

            best = optimize.minimize_scalar(
                error, bounds=(0.0, 1.0), method="bounded", options={"xatol": 1e-12}
            )
            assert error(got[c]) <= min(error(best.x), error(0.0), error(1.0)) + 1e-12
            compared += 1
    assert compared > 150


def test_log_loss_rates_satisfy_the_bound_constrained_optimality_conditions():
    """At the learned rates on [min_rate, 1] the criterion (written out, weighted) has a finite-difference
    gradient that is zero at free rates and points outwards at rates on a bound."""
    rng = np.random.default_rng(9)
    for _ in range(8):
        s, n, k = int(rng.integers(2, 4)), int(rng.integers(30, 80)), int(rng.integers(2, 5))
        contours = rng.dirichlet(np.full(k, 0.5), size=(s, n))
        labels = rng.integers(0, k, size=n)
        weights = rng.uniform(0.2, 2.0, size=n)

        def criterion(flat, contours=contours, labels=labels, weights=weights, s=s, n=n, k=k):
            d = contours + flat.reshape(s, k)[:, None, :] * (1 - contours)
            product = np.prod(d, axis=0)
            return (
                -np.sum(weights * np.log(product[np.arange(n), labels] / product.sum(axis=1))) / weights.sum()
            )

        rates = log_loss_contextual_rates(contours, labels, weights=weights, min_rate=0.01).ravel()
        assert rates.min() >= 0.01 - 1e-12 and rates.max() <= 1.0 + 1e-12
        for j in range(rates.size):
            step = np.zeros_like(rates)
            step[j] = 1e-6
            slope = (criterion(rates + step) - criterion(rates - step)) / 2e-6
            if rates[j] <= 0.01 + 1e-7:
                assert slope > -1e-4
            elif rates[j] >= 1.0 - 1e-7:
                assert slope < 1e-4
            else:
                assert abs(slope) < 1e-4


def _softmax(z):
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("data", ["iris", "breast_cancer"])
def test_fusion_against_a_hand_built_cross_fitted_pipeline_with_weights_and_string_labels(data):
    """String labels, sample weights, a probabilistic and a decision_function-only classifier: the
    out-of-fold outputs, weighted temperatures, rates (a minimum of the weighted criterion on [0.01, 1])
    and the predictions (Dempster's combination of the contextually discounted calibrated outputs)
    rebuilt step by step with scikit-learn and dstk.core."""
    X, y = (load_iris if data == "iris" else load_breast_cancer)(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"] if data == "iris" else ["benign?", "malignant?"])
    labels = names[y] if data == "iris" else names[1 - y]
    classes = np.unique(labels)
    encoded = np.searchsorted(classes, labels)
    weights = np.random.default_rng(0).integers(1, 4, size=y.size).astype(float)
    sources = [
        ("lr", make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))),
        ("svc", make_pipeline(StandardScaler(), LinearSVC())),
    ]
    model = EvidentialFusionClassifier(sources, cv=4, contamination=0.0).fit(X, labels, sample_weight=weights)
    folds = list(StratifiedKFold(4).split(X, labels))
    contours = []
    for (name, estimator), temperature in zip(sources, model.temperatures_):
        q = np.zeros((y.size, classes.size))
        for train, test in folds:  # Pipelines take no sample_weight: the classifiers are fitted unweighted
            fitted = clone(estimator).fit(X[train], labels[train])
            if name == "lr":
                q[test] = fitted.predict_proba(X[test])
            else:
                scores = fitted.decision_function(X[test])
                logits = np.stack([np.zeros_like(scores), scores], axis=1) if scores.ndim == 1 else scores
                q[test] = _softmax(logits)
        log_q = np.log(np.clip(q, 1e-12, 1.0))

        def loss(t, log_q=log_q):
            z = log_q / t
            z = z - z.max(axis=1, keepdims=True)
            return -np.sum(weights * (z[np.arange(y.size), encoded] - np.log(np.exp(z).sum(axis=1))))

        best = optimize.minimize_scalar(loss, bounds=(0.05, 20.0), method="bounded", options={"xatol": 1e-9})
        assert abs(best.x - temperature) < 1e-3 * max(1.0, temperature)
        contours.append(_softmax(log_q / temperature))
    contours = np.stack(contours)

    def criterion(flat):
        d = contours + flat.reshape(2, classes.size)[:, None, :] * (1 - contours)
        product = np.prod(d, axis=0)
        return (
            -np.sum(weights * np.log(product[np.arange(y.size), encoded] / product.sum(axis=1)))
            / weights.sum()
        )

    found = criterion(model.rates_.ravel())
    rng = np.random.default_rng(1)
    assert all(criterion(rng.uniform(0.01, 1.0, size=model.rates_.size)) >= found - 1e-9 for _ in range(200))
    # predictions
    frame = Frame(tuple(classes.tolist()))
    masses = []
    for (name, estimator), temperature, rates in zip(sources, model.temperatures_, model.rates_):
        fitted = clone(estimator).fit(X, labels)
        if name == "lr":
            q = fitted.predict_proba(X)
        else:
            scores = fitted.decision_function(X)
            q = _softmax(np.stack([np.zeros_like(scores), scores], axis=1) if scores.ndim == 1 else scores)
        p = _softmax(np.log(np.clip(q, 1e-12, 1.0)) / temperature)
        dense = np.zeros((y.size, 1 << classes.size))
        dense[:, 1 << np.arange(classes.size)] = p
        masses.append(MassFunction.from_array(dense, frame).contextual_discount(rates))
    from dstk import combine

    combined = combine(masses, rule="dempster")
    np.testing.assert_allclose(model.predict_mass(X).to_array(), combined.to_array(), atol=1e-12)
    contour = np.stack([combined.pl(label) for label in classes.tolist()], axis=1)
    np.testing.assert_allclose(
        model.predict_proba(X), contour / contour.sum(axis=1, keepdims=True), atol=1e-12
    )
    np.testing.assert_array_equal(model.predict(X), classes[model.predict_proba(X).argmax(axis=1)])


@pytest.mark.parametrize("loader", [load_iris, load_wine, load_breast_cancer])
def test_fusion_is_level_with_scikit_learn_ensembles(loader):
    """Sanity baselines: the fusion's held-out accuracy within 4 points of soft voting and stacking."""
    X, y = loader(return_X_y=True)
    order = np.random.default_rng(0).permutation(y.size)
    train, test = order[: y.size * 2 // 3], order[y.size * 2 // 3 :]
    sources = [
        ("lr", make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))),
        ("nb", GaussianNB()),
    ]
    fusion = EvidentialFusionClassifier(sources).fit(X[train], y[train]).score(X[test], y[test])
    voting = VotingClassifier(sources, voting="soft").fit(X[train], y[train]).score(X[test], y[test])
    stacking = StackingClassifier(sources).fit(X[train], y[train]).score(X[test], y[test])
    assert fusion >= min(voting, stacking) - 0.04


def _blobs(seed, n_classes, per_class):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), per_class)
    X = rng.normal(size=(y.size, 3)) + 1.5 * np.eye(3)[y % 3] * (1 + y // 3)[:, None]
    return X, y


_SOURCES = [("lr", LogisticRegression(max_iter=1000)), ("nb", GaussianNB())]


def _check_outputs(model, X):
    mass = model.predict_mass(X)
    assert mass.frame == Frame(tuple(model.classes_.tolist())) and mass.batch_shape == (len(X),)
    array = mass.to_array("m")
    assert array.min() >= -1e-12 and np.allclose(array.sum(axis=1), 1.0, atol=1e-9)
    proba = model.predict_proba(X)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_array_equal(model.predict(X), model.classes_[proba.argmax(axis=1)])
    bel, pl = model.predict_interval(X)
    assert bel.shape == ((len(X),) if model.classes_.size == 2 else (len(X), model.classes_.size))
    assert np.all(bel <= pl + 1e-12)
    return proba


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    n_classes=st.integers(2, 4),
    per_class=st.integers(6, 14),
    kind=st.sampled_from(["negative", "strings", "booleans", "floats as objects"]),
)
def test_order_preserving_relabelling_gives_the_same_outputs(seed, n_classes, per_class, kind):
    """Labels renamed in the same order (negative integers, strings, booleans): the same folds, so the
    same numbers bit for bit, the predictions renamed; the outputs are valid."""
    X, y = _blobs(seed, n_classes, per_class)
    if kind == "booleans" and n_classes != 2:
        n_classes = 2
        X, y = _blobs(seed, 2, per_class)
    names = {
        "negative": np.arange(n_classes) * 7 - 20,
        "strings": np.array([f"class {chr(97 + k)}" for k in range(n_classes)]),
        "booleans": np.array([False, True]),
        "floats as objects": np.array(["-1", "0", "1", "2"][:n_classes], dtype=object),
    }[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = EvidentialFusionClassifier(_SOURCES, cv=3).fit(X, y)
        renamed = EvidentialFusionClassifier(_SOURCES, cv=3).fit(X, names[y])
    np.testing.assert_array_equal(renamed.classes_, names)
    np.testing.assert_array_equal(renamed.rates_, plain.rates_)
    np.testing.assert_array_equal(_check_outputs(renamed, X), _check_outputs(plain, X))
    np.testing.assert_array_equal(renamed.predict(X), names[plain.predict(X)])


class _Table(ClassifierMixin, BaseEstimator):
    """A fixed classifier: probabilities softmax(X W) with columns named by ``names`` (any order)."""

    def __init__(self, weights=None, names=None):
        self.weights = weights
        self.names = names

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.asarray(self.names)
        return self

    def predict_proba(self, X):
        return _softmax(np.asarray(X) @ self.weights)

    def predict(self, X):
        return self.classes_[self.predict_proba(X).argmax(axis=1)]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n_classes=st.integers(2, 4), per_class=st.integers(8, 14))
def test_any_relabelling_permutes_the_outputs_of_frozen_sources(seed, n_classes, per_class):
    """Frozen sources (no folds): renaming the classes by any permutation permutes the columns of the
    outputs (the criteria are symmetric in the classes; equal to rounding and optimiser tolerance)."""
    X, y = _blobs(seed, n_classes, per_class)
    rng = np.random.default_rng(seed)
    weights = [rng.normal(size=(3, n_classes)) for _ in range(2)]
    permutation = rng.permutation(n_classes)
    base = np.array([f"c{k}" for k in range(n_classes)])
    renamed = base[permutation]  # class k is called renamed[k]

    def fit(names, labels):
        sources = [(f"s{i}", FrozenEstimator(_Table(w, names).fit(X, labels))) for i, w in enumerate(weights)]
        return EvidentialFusionClassifier(sources, contamination=0.0).fit(X, labels)

    plain, other = fit(base, base[y]), fit(renamed, renamed[y])
    columns = np.searchsorted(other.classes_, renamed)  # column of class k in the renamed model
    np.testing.assert_allclose(other.temperatures_, plain.temperatures_, rtol=1e-6)
    np.testing.assert_allclose(_check_outputs(other, X)[:, columns], _check_outputs(plain, X), atol=1e-5)
    np.testing.assert_allclose(other.rates_[:, columns], plain.rates_, atol=1e-4)
