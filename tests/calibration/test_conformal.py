"""ConformalBeliefClassifier against independent references.

* contour = p-values counted by a plain loop from the definition, and =
  crepes' unsmoothed p-values (standard and Mondrian) when crepes is installed;
* sets = the split-conformal quantile rule of MAPIE's "lac" method written out
  (q_hat = the ceil((n + 1)(1 - alpha))-th smallest calibration score,
  set = {y : 1 - p_hat(y | x) <= q_hat}) and crepes' sets;
* marginal (and class-wise for Mondrian) coverage over repeated random splits of
  scikit-learn's breast-cancer, wine and digits data.
"""

import math

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from dstk import Frame
from dstk.calibration import ConformalBeliefClassifier, conformal_p_values


def model():
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=0.5))


@pytest.fixture(scope="module")
def wine_fit():
    X, y = load_wine(return_X_y=True)
    X_fit, X_test, y_fit, y_test = train_test_split(X, y, test_size=0.4, random_state=1, stratify=y)
    clf = ConformalBeliefClassifier(model(), random_state=0, calibration_size=0.5).fit(X_fit, y_fit)
    return clf, X_test, y_test


def loop_p_values(cal_scores, cal_labels, test_scores, mondrian):
    out = np.zeros_like(test_scores)
    for j in range(test_scores.shape[0]):
        for k in range(test_scores.shape[1]):
            pool = [s for s, lab in zip(cal_scores, cal_labels) if (lab == k or not mondrian)]
            out[j, k] = (1 + sum(s >= test_scores[j, k] for s in pool)) / (1 + len(pool))
    return out


@pytest.mark.parametrize("mondrian", [False, True])
def test_contour_equals_p_values_from_definition(wine_fit, mondrian):
    clf, X_test, _ = wine_fit
    clf = ConformalBeliefClassifier(model(), mondrian=mondrian, random_state=0, calibration_size=0.5).fit(
        *load_wine(return_X_y=True)
    )
    test_scores = 1 - clf.estimator_.predict_proba(X_test)
    expected = loop_p_values(clf.calibration_scores_, clf.calibration_labels_, test_scores, mondrian)
    np.testing.assert_array_equal(clf.predict_contour(X_test), expected)
    m = clf.predict_mass(X_test)
    assert m.frame == Frame(tuple(clf.classes_.tolist()))
    np.testing.assert_allclose(m.contour(), expected, atol=1e-12)
    np.testing.assert_allclose(m.conflict, 1 - expected.max(axis=1), atol=1e-12)
    # consonant: the focal sets are nested
    for row in m.to_array()[:10]:
        focal = [a for a in np.flatnonzero(row > 1e-15) if a]
        assert all(a & b in (a, b) for a in focal for b in focal)


def test_contour_equals_crepes():
    crepes = pytest.importorskip("crepes")
    X, y = load_digits(return_X_y=True)
    X_fit, X_test, y_fit, _ = train_test_split(X, y, test_size=0.3, random_state=2, stratify=y)
    for mondrian in (False, True):
        clf = ConformalBeliefClassifier(model(), mondrian=mondrian, random_state=3).fit(X_fit, y_fit)
        alphas = 1 - clf.estimator_.predict_proba(X_test)
        if mondrian:
            cc = crepes.ConformalClassifier().fit(clf.calibration_scores_, bins=clf.calibration_labels_)
            expected = np.column_stack(
                [
                    cc.predict_p(alphas[:, [k]], bins=np.full(len(alphas), k), smoothing=False)[:, 0]
                    for k in range(10)
                ]
            )
        else:
            cc = crepes.ConformalClassifier().fit(clf.calibration_scores_)
            expected = cc.predict_p(alphas, smoothing=False)
        np.testing.assert_allclose(clf.predict_contour(X_test), expected, rtol=0, atol=1e-15)
        # crepes' sets are {p >= alpha}; at an alpha with alpha (n + 1) not an integer they equal {p > alpha}
        n = clf.calibration_scores_.size if not mondrian else None
        alpha = 0.1 if n is None or not float(0.1 * (n + 1)).is_integer() else 0.1 + 1e-6
        if not mondrian:
            np.testing.assert_array_equal(
                clf.predict_set(X_test, alpha),
                cc.predict_set(alphas, confidence=1 - alpha, smoothing=False) == 1,
            )


@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.2, 0.3])
def test_sets_equal_split_conformal_quantile_rule(wine_fit, alpha):
    """MAPIE's 'lac' sets written out independently of p-values."""
    clf, X_test, _ = wine_fit
    cal = np.sort(clf.calibration_scores_)
    n = cal.size
    rank = math.ceil((n + 1) * (1 - alpha))
    q_hat = np.inf if rank > n else cal[rank - 1]
    expected = (1 - clf.estimator_.predict_proba(X_test)) <= q_hat
    np.testing.assert_array_equal(clf.predict_set(X_test, alpha), expected)


def test_sets_equal_mapie_if_installed(wine_fit):
    mapie = pytest.importorskip("mapie")
    clf, X_test, _ = wine_fit
    try:
        from mapie.classification import SplitConformalClassifier
    except ImportError:  # pragma: no cover - older MAPIE
        pytest.skip(f"MAPIE {mapie.__version__} lacks SplitConformalClassifier")
    X, y = load_wine(return_X_y=True)
    X_fit, _, y_fit, _ = train_test_split(X, y, test_size=0.4, random_state=1, stratify=y)
    frozen = FrozenEstimator(clf.estimator_)
    ours = ConformalBeliefClassifier(frozen).fit(X_fit, y_fit)
    theirs = SplitConformalClassifier(frozen, confidence_level=0.9, conformity_score="lac", prefit=True)
    theirs.conformalize(X_fit, y_fit)
    _, sets = theirs.predict_set(X_test)
    np.testing.assert_array_equal(ours.predict_set(X_test, 0.1), sets[:, :, 0])


@pytest.mark.parametrize(
    ("loader", "mondrian"), [(load_breast_cancer, False), (load_wine, False), (load_digits, True)]
)
def test_coverage_over_repeated_splits(loader, mondrian):
    X, y = loader(return_X_y=True)
    alpha = 0.1
    coverage, class_coverage = [], []
    for seed in range(12):
        X_fit, X_test, y_fit, y_test = train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)
        clf = ConformalBeliefClassifier(model(), mondrian=mondrian, random_state=seed).fit(X_fit, y_fit)
        sets = clf.predict_set(X_test, alpha)
        index = np.searchsorted(clf.classes_, y_test)
        covered = sets[np.arange(len(y_test)), index]
        coverage.append(covered.mean())
        if mondrian:
            class_coverage.append([covered[index == k].mean() for k in range(clf.classes_.size)])
    # validity: E[coverage] >= 1 - alpha; the mean over 12 splits fluctuates by about 0.01
    assert np.mean(coverage) >= 1 - alpha - 0.025
    if mondrian:
        assert np.min(np.mean(class_coverage, axis=0)) >= 1 - alpha - 0.06


def test_plausibility_is_valid_for_sets_containing_the_truth(wine_fit):
    """Cella & Martin (2022): P(Pl(A) <= alpha) <= alpha for A containing the true label."""
    X, y = load_breast_cancer(return_X_y=True)
    below = []
    for seed in range(8):
        X_fit, X_test, y_fit, y_test = train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)
        clf = ConformalBeliefClassifier(model(), random_state=seed).fit(X_fit, y_fit)
        m = clf.predict_mass(X_test)
        pl_truth = np.array([m.batch[i].pl({clf.classes_[t]}) for i, t in enumerate(y_test)])
        below.append(np.mean(pl_truth <= 0.1))
    assert np.mean(below) <= 0.1 + 0.025


def test_normalize_and_probabilities(wine_fit):
    clf, X_test, _ = wine_fit
    raw = clf.predict_contour(X_test)
    clf_n = ConformalBeliefClassifier(model(), normalize=True, random_state=0, calibration_size=0.5)
    X, y = load_wine(return_X_y=True)
    X_fit, _, y_fit, _ = train_test_split(X, y, test_size=0.4, random_state=1, stratify=y)
    clf_n.fit(X_fit, y_fit)
    np.testing.assert_allclose(clf_n.predict_contour(X_test), raw / raw.max(axis=1, keepdims=True))
    m = clf_n.predict_mass(X_test)
    np.testing.assert_allclose(m.conflict, 0, atol=1e-12)
    P = clf.predict_proba(X_test)
    np.testing.assert_allclose(P.sum(axis=1), 1)
    np.testing.assert_allclose(P, clf.predict_mass(X_test).pignistic())
    np.testing.assert_array_equal(clf.predict(X_test), clf.classes_[raw.argmax(axis=1)])


def test_frozen_estimator_uses_all_data_for_calibration():
    X, y = load_breast_cancer(return_X_y=True)
    base = model().fit(X[:300], y[:300])
    clf = ConformalBeliefClassifier(FrozenEstimator(base)).fit(X[300:], y[300:])
    assert clf.calibration_scores_.size == len(y) - 300
    np.testing.assert_allclose(
        clf.calibration_scores_, 1 - base.predict_proba(X[300:])[np.arange(len(y) - 300), y[300:]]
    )


def test_string_labels(wine_fit):
    X, y = load_wine(return_X_y=True)
    names = np.array(["barolo", "grignolino", "barbera"])[y]
    clf = ConformalBeliefClassifier(model(), random_state=0).fit(X, names)
    assert clf.predict_mass(X[:3]).frame == Frame(tuple(sorted(set(names.tolist()))))
    assert set(clf.predict(X[:5])) <= set(names)


def test_bad_input():
    X, y = load_wine(return_X_y=True)
    with pytest.raises(ValueError, match="calibration_size"):
        ConformalBeliefClassifier(calibration_size=1.5).fit(X, y)
    clf = ConformalBeliefClassifier(model(), random_state=0).fit(X, y)
    for alpha in (0, 1, -0.1, "0.1"):
        with pytest.raises(ValueError, match="alpha"):
            clf.predict_set(X[:2], alpha)
    from sklearn.svm import LinearSVC

    with pytest.raises(ValueError, match="predict_proba"):
        ConformalBeliefClassifier(LinearSVC()).fit(X, y)
    with pytest.raises(ValueError, match="no calibration sample"):
        conformal_p_values([0.1, 0.2], [[0.1, 0.3]], calibration_labels=[0, 0])
    with pytest.raises(ValueError, match="finite"):
        conformal_p_values([0.1, np.nan], [[0.1, 0.3]])
    from dstk.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        ConformalBeliefClassifier().predict_set(X[:2], 0.1)


def test_score_and_feature_checks(wine_fit):
    clf, X_test, y_test = wine_fit
    assert clf.score(X_test, y_test) == np.mean(clf.predict(X_test) == y_test)
    assert clf.n_features_in_ == X_test.shape[1]
    with pytest.raises(ValueError, match="features"):
        clf.predict_set(X_test[:, :5], 0.1)
