"""VennMulticlassClassifier against independent references.

* every binary interval (p0, p1) equals the `venn-abers` package's inductive
  Venn-ABERS interval on the same calibration scores;
* the pairwise extension is the ballooning extension (conditioning it on the
  pair gives back the pairwise mass), built here by loops;
* the combination equals the pure-Python Dempster rule of tests/core/reference.py;
* two classes: one-vs-rest = pairwise = the binary VennAbersCalibrator.
"""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from dstk.calibration import VennAbersCalibrator, VennMulticlassClassifier, pairwise_masses
from tests.core import reference


def model():
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=0.05))


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    X_fit, X_test, y_fit, y_test = train_test_split(X, y, test_size=0.4, random_state=0, stratify=y)
    base = model().fit(X_fit[:40], y_fit[:40])
    return base, X_fit[40:], y_fit[40:], X_test, y_test


@pytest.mark.parametrize("decomposition", ["one_vs_rest", "pairwise"])
def test_binary_intervals_equal_venn_abers_package(wine, decomposition):
    VennAbers = pytest.importorskip("venn_abers").VennAbers
    base, X_cal, y_cal, X_test, _ = wine
    clf = VennMulticlassClassifier(FrozenEstimator(base), decomposition=decomposition).fit(X_cal, y_cal)
    binary = clf.predict_binary_masses(X_test)
    P_cal, P_test = base.predict_proba(X_cal), base.predict_proba(X_test)
    for p, (i, j) in enumerate(clf.pairs_):
        if j < 0:
            keep, score_cal, score_test, target = slice(None), P_cal[:, i], P_test[:, i], (y_cal == i)
        else:
            keep = (y_cal == i) | (y_cal == j)
            score_cal = P_cal[keep, i] / (P_cal[keep, i] + P_cal[keep, j])
            score_test = P_test[:, i] / (P_test[:, i] + P_test[:, j])
            target = y_cal[keep] == i
        va = VennAbers().fit(np.column_stack([1 - score_cal, score_cal]), target.astype(int))
        _, p0_p1 = va.predict_proba(np.column_stack([1 - score_test, score_test]))
        np.testing.assert_allclose(binary[:, p, 2], p0_p1[:, 0], atol=1e-9)  # m(positive) = p0
        np.testing.assert_allclose(binary[:, p, 2] + binary[:, p, 3], p0_p1[:, 1], atol=1e-9)  # pl = p1


def test_pairwise_extension_is_ballooning():
    rng = np.random.default_rng(0)
    binary = rng.dirichlet(np.ones(3), size=(4, 3))
    binary = np.concatenate([np.zeros((4, 3, 1)), binary], axis=-1)
    pairs = np.array([[0, 1], [0, 2], [1, 2]])
    out = pairwise_masses(binary, pairs, 3)
    for s in range(4):
        for p, (i, j) in enumerate(pairs):
            expected = np.zeros(8)
            rest = 7 ^ (1 << i) ^ (1 << j)
            expected[rest | 1 << i] += binary[s, p, 2]
            expected[rest | 1 << j] += binary[s, p, 1]
            expected[7] += binary[s, p, 3]
            np.testing.assert_allclose(out[s, p], expected)
            # conditioning (Dempster) on {i, j} gives back the pairwise mass
            cond = np.zeros(8)
            cond[(1 << i) | (1 << j)] = 1
            back, _ = reference.dempster(out[s, p], cond)
            np.testing.assert_allclose(
                [back[1 << j], back[1 << i], back[(1 << i) | (1 << j)]], binary[s, p, 1:], atol=1e-12
            )


@pytest.mark.parametrize("decomposition", ["one_vs_rest", "pairwise"])
@pytest.mark.parametrize("method", ["venn_abers", "venn_machine"])
def test_combination_against_reference_dempster(wine, decomposition, method):
    base, X_cal, y_cal, X_test, _ = wine
    clf = VennMulticlassClassifier(FrozenEstimator(base), decomposition=decomposition, method=method)
    clf.fit(X_cal, y_cal)
    binary = clf.predict_binary_masses(X_test[:15])
    combined = clf.predict_mass(X_test[:15]).to_array()
    for s in range(15):
        extended = []
        for p, (i, j) in enumerate(clf.pairs_):
            m = np.zeros(8)
            if j < 0:
                m[1 << i] += binary[s, p, 2]
                m[7 ^ (1 << i)] += binary[s, p, 1]
            else:
                rest = 7 ^ (1 << i) ^ (1 << j)
                m[rest | 1 << i] += binary[s, p, 2]
                m[rest | 1 << j] += binary[s, p, 1]
            m[7] += binary[s, p, 3]
            extended.append(m)
        np.testing.assert_allclose(combined[s], reference.dempster(*extended)[0], atol=1e-10)


def test_two_classes_reduce_to_binary_venn_abers():
    X, y = load_breast_cancer(return_X_y=True)
    base = model().fit(X[:100], y[:100])
    X_cal, y_cal, X_test = X[100:400], y[100:400], X[400:]
    P_cal, P_test = base.predict_proba(X_cal)[:, 1], base.predict_proba(X_test)[:, 1]
    binary = VennAbersCalibrator().fit(P_cal, y_cal).predict_mass(P_test).to_array()
    for decomposition in ("one_vs_rest", "pairwise"):
        clf = VennMulticlassClassifier(FrozenEstimator(base), decomposition=decomposition).fit(X_cal, y_cal)
        m = clf.predict_mass(X_test).to_array()
        if decomposition == "pairwise":  # pair (0, 1), score log(p_0 / p_1): the same intervals
            np.testing.assert_allclose(m[:, 1:], binary[:, 1:], atol=1e-9)
        else:  # Dempster of "1 vs rest" and "0 vs rest" (both on the same frame)
            assert np.all(m[:, 0] == 0)
            np.testing.assert_allclose(m.sum(axis=1), 1)


def test_accuracy_and_outputs_on_wine():
    X, y = load_wine(return_X_y=True)
    X_fit, X_test, y_fit, y_test = train_test_split(X, y, test_size=0.4, random_state=3, stratify=y)
    for decomposition in ("one_vs_rest", "pairwise"):
        clf = VennMulticlassClassifier(model(), decomposition=decomposition, random_state=0).fit(X_fit, y_fit)
        P = clf.predict_proba(X_test)
        np.testing.assert_allclose(P.sum(axis=1), 1)
        assert np.mean(clf.predict(X_test) == y_test) > 0.85
        assert clf.predict_mass(X_test).frame.labels == tuple(clf.classes_.tolist())


def test_bad_input(wine):
    X, y = load_wine(return_X_y=True)
    with pytest.raises(ValueError, match="decomposition"):
        VennMulticlassClassifier(decomposition="ovo").fit(X, y)
    with pytest.raises(ValueError, match="method"):
        VennMulticlassClassifier(method="platt").fit(X, y)
    with pytest.raises(ValueError, match="calibration_size"):
        VennMulticlassClassifier(calibration_size=0).fit(X, y)
    with pytest.raises(ValueError, match="pairs"):
        pairwise_masses(np.zeros((2, 4)), [[0, 1]], 3)


def test_total_conflict_policy():
    """Bayesian binary masses (a probabilistic calibrator) that exclude every class conflict totally."""
    from dstk.calibration import IsotonicCalibrator
    from dstk.exceptions import TotalConflictError

    base, X_cal, y_cal, X_test, _ = _separable()
    X_test = np.array([[3.0, 1.0], [0.0, 0.0], [8.0, 0.0]])  # the first between classes: every class excluded
    kwargs = {"method": IsotonicCalibrator(model="bayes"), "decomposition": "one_vs_rest"}
    clf = VennMulticlassClassifier(FrozenEstimator(base), on_conflict="raise", **kwargs).fit(X_cal, y_cal)
    binary = clf.predict_binary_masses(X_test)
    conflicting = np.all(binary[..., 2] == 0, axis=1)
    assert conflicting.any()
    with pytest.raises(TotalConflictError):
        clf.predict_mass(X_test)
    clf_vacuous = VennMulticlassClassifier(FrozenEstimator(base), **kwargs).fit(X_cal, y_cal)
    with pytest.warns(Warning, match="conflict"):
        m = clf_vacuous.predict_mass(X_test)
    np.testing.assert_allclose(m.to_array()[conflicting, -1], 1.0)  # vacuous
    with pytest.raises(ValueError, match="on_conflict"):
        VennMulticlassClassifier(on_conflict="ignore").fit(X_cal, y_cal)


def _separable():
    rng = np.random.default_rng(0)
    centres = np.array([[0, 0], [8, 0], [0, 8]])
    y = np.repeat([0, 1, 2], 60)
    X = centres[y] + rng.normal(size=(180, 2))
    order = rng.permutation(180)
    X, y = X[order], y[order]
    base = LogisticRegression(max_iter=1000).fit(X[:60], y[:60])
    return base, X[60:140], y[60:140], X[140:], y[140:]


def test_score_and_feature_checks(wine):
    base, X_cal, y_cal, X_test, y_test = wine
    clf = VennMulticlassClassifier(FrozenEstimator(base)).fit(X_cal, y_cal)
    assert clf.score(X_test, y_test) == np.mean(clf.predict(X_test) == y_test)
    with pytest.raises(ValueError, match="features"):
        clf.predict_mass(X_test[:, :5])


def test_predictions_do_not_depend_on_the_rest_of_the_batch():
    """Test scores tied with calibration scores up to an ulp of the base estimator's BLAS: one sample's
    prediction is the same alone and in a batch (scikit-learn's check_methods_subset_invariance data)."""
    from sklearn.linear_model import LogisticRegression

    from dstk.calibration import VennMulticlassClassifier

    rng = np.random.RandomState(0)
    X = 3 * rng.uniform(size=(20, 3))
    y = X[:, 0].astype(int)
    for decomposition in ("one_vs_rest", "pairwise"):
        model = VennMulticlassClassifier(LogisticRegression(), decomposition=decomposition, random_state=1)
        model.fit(X, y)
        whole = model.predict_proba(X)
        alone = np.concatenate([model.predict_proba(X[i : i + 1]) for i in range(len(X))])
        np.testing.assert_array_equal(whole, alone)
