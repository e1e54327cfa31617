"""Implied posterior probability: worked examples of Nalbantov & Ivanov Sec. 4, weight schedules, eq. (3)."""

import numpy as np
import pytest

from dstk._estimator import BaseEstimator
from dstk.calibration._implied import ImpliedPosteriorClassifier, implied_weights, vote_fraction


class ThresholdModel(BaseEstimator):
    """Votes positive iff x[0] exceeds the implied level w_- / (w_+ + w_-) of its class weights."""

    def __init__(self, class_weight=None):
        self.class_weight = class_weight

    def fit(self, X, y, sample_weight=None):
        labels = np.unique(y)
        if sample_weight is not None:
            y = np.asarray(y)
            w_neg, w_pos = sample_weight[y == labels[0]][0], sample_weight[y == labels[1]][0]
        else:
            w_neg, w_pos = self.class_weight[labels[0]], self.class_weight[labels[1]]
        self.level_ = w_neg / (w_pos + w_neg)
        self.z_positive_ = w_pos / 2.0
        return self

    def decision_function(self, X):
        return np.asarray(X, dtype=float)[:, 0] - self.level_


class LookupModel(ThresholdModel):
    """Votes positive exactly for the models whose z_+ is in a given set (the degenerate example)."""

    positive_z = (0.5, 0.8, 0.9)

    def decision_function(self, X):
        vote = any(abs(self.z_positive_ - z) < 1e-9 for z in self.positive_z)
        return np.full(len(X), 1.0 if vote else -1.0)


def toy_data():
    X = np.zeros((20, 1))
    y = np.r_[np.zeros(10, int), np.ones(10, int)]
    return X, y


def test_worked_example_non_degenerate_3_of_11():
    # nine hyperplanes z_+ = 0.1 .. 0.9 (levels 0.9 .. 0.1); the point votes positive for z_+ = 0.8 and 0.9 only
    X, y = toy_data()
    ipp = ImpliedPosteriorClassifier(ThresholdModel(), n_models=9).fit(X, y)
    np.testing.assert_allclose(sorted(ipp.positive_weights_), np.arange(1, 10) / 10)
    p = ipp.predict_proba(np.array([[0.25]]))[0, 1]
    assert p == pytest.approx(3 / 11)


def test_worked_example_degenerate_4_of_11():
    # three positive votes from the hyperplanes z_+ = 0.5, 0.8, 0.9 (non-contiguous): (3 + 1) / (9 + 2)
    X, y = toy_data()
    ipp = ImpliedPosteriorClassifier(LookupModel(), n_models=9).fit(X, y)
    assert ipp.predict_proba(np.zeros((1, 1)))[0, 1] == pytest.approx(4 / 11)
    lo, hi = ipp.predict_interval(np.zeros((1, 1)))
    # positive votes reach level 0.5, the lowest negative vote is at level 0.3: hull [0.3, 0.5]
    assert lo[0] == pytest.approx(0.3) and hi[0] == pytest.approx(0.5)


def test_vote_fraction_rule_and_ties():
    assert vote_fraction([[0.5, 0.5]])[0] == pytest.approx(0.5)
    X, y = toy_data()
    ipp = ImpliedPosteriorClassifier(ThresholdModel(), n_models=9).fit(X, y)
    # x exactly on the level-0.5 boundary: 4 positive (levels 0.1-0.4) + 0.5 + fictitious 1 -> 5.5 / 11
    assert ipp.predict_proba(np.array([[0.5]]))[0, 1] == pytest.approx(5.5 / 11)


def test_sample_weight_path_matches_class_weight_path():
    X, y = toy_data()
    grid = np.linspace(0, 1, 23)[:, None]
    a = ImpliedPosteriorClassifier(ThresholdModel(), n_models=19, weighting="class_weight").fit(X, y)
    b = ImpliedPosteriorClassifier(ThresholdModel(), n_models=19, weighting="sample_weight").fit(X, y)
    np.testing.assert_allclose(a.predict_proba(grid), b.predict_proba(grid))


@pytest.mark.parametrize("n_pos, n_neg", [(10, 10), (30, 70), (80, 20)])
def test_fixed_total_schedule(n_pos, n_neg):
    levels = np.arange(1, 100) / 100
    zp, zn = implied_weights(levels, n_pos, n_neg, convention="fixed_total")
    # effective total constant (Sec. 1), implied level z_- / (z_+ + z_-) as requested (corrected eq. 12)
    np.testing.assert_allclose(zp * n_pos + zn * n_neg, 0.5 * (n_pos + n_neg))
    np.testing.assert_allclose(zn / (zp + zn), levels)
    assert np.all(zp > 0) and np.all(zn > 0)
    # the document's eq. (12) gives the *positive-class* posterior z_+ C-n- / ((0.5 + z_+) C-n- + (0.5 - z_+) C+n+)
    # at the boundary in its own (inverted) direction, i.e. 1 - level in the corrected reading
    eq12 = zp * n_neg / ((0.5 + zp) * n_neg + (0.5 - zp) * n_pos)
    np.testing.assert_allclose(eq12, 1 - levels)


def test_equal_effective_schedule():
    zp, zn = implied_weights([0.1, 0.35], 7, 93)
    np.testing.assert_allclose(zp, [0.9, 0.65])
    np.testing.assert_allclose(zp + zn, 1.0)


def test_class_weight_equals_duplicated_data_eq3():
    svm = pytest.importorskip("sklearn.svm")
    rng = np.random.RandomState(0)
    X = np.r_[rng.normal(-1, 1, (15, 2)), rng.normal(1, 1, (15, 2))]
    y = np.r_[np.zeros(15, int), np.ones(15, int)]
    weighted = svm.SVC(kernel="linear", C=1.0, class_weight={0: 5, 1: 5}, tol=1e-10).fit(X, y)
    duplicated = svm.SVC(kernel="linear", C=1.0, tol=1e-10).fit(np.repeat(X, 5, axis=0), np.repeat(y, 5))
    grid = rng.normal(size=(20, 2))
    np.testing.assert_allclose(
        weighted.decision_function(grid), duplicated.decision_function(grid), atol=1e-5
    )


def test_ipp_estimates_known_posterior():
    svm = pytest.importorskip("sklearn.svm")
    # 1-D Gaussian classes N(-1, 1) and N(1, 1), equal priors: P(+ | x) = 1 / (1 + exp(-2 x))
    rng = np.random.RandomState(1)
    n = 300
    X = np.r_[rng.normal(-1, 1, n), rng.normal(1, 1, n)][:, None]
    y = np.r_[np.zeros(n, int), np.ones(n, int)]
    ipp = ImpliedPosteriorClassifier(svm.SVC(kernel="linear", C=1.0), n_models=19).fit(X, y)
    grid = np.linspace(-1.5, 1.5, 13)[:, None]
    truth = 1 / (1 + np.exp(-2 * grid[:, 0]))
    est = ipp.predict_proba(grid)[:, 1]
    assert np.mean(np.abs(est - truth)) < 0.08
    m = ipp.predict_mass(grid).to_array("m")
    np.testing.assert_allclose(m.sum(axis=1), 1.0)
    lo, hi = ipp.predict_interval(grid)
    assert np.all(lo <= est + 1e-12) and np.all(est <= hi + 1e-12)
    iso = ImpliedPosteriorClassifier(svm.SVC(kernel="linear", C=1.0), n_models=9, isotonic=True).fit(X, y)
    q = iso.predict_proba(grid)[:, 1]
    assert np.all(np.diff(q) >= -1e-12)


def test_resampling_fallback_estimates_known_posterior():
    tree = pytest.importorskip("sklearn.tree")
    rng = np.random.RandomState(2)
    n = 400
    X = np.r_[rng.normal(-1, 1, n), rng.normal(1, 1, n)][:, None]
    y = np.r_[np.zeros(n, int), np.ones(n, int)]
    base = tree.DecisionTreeClassifier(max_depth=1)  # a stump: its split moves with the class proportions
    ipp = ImpliedPosteriorClassifier(base, n_models=19, weighting="resample", random_state=0).fit(X, y)
    again = ImpliedPosteriorClassifier(base, n_models=19, weighting="resample", random_state=0).fit(X, y)
    grid = np.linspace(-1.0, 1.0, 9)[:, None]
    np.testing.assert_array_equal(ipp.predict_proba(grid), again.predict_proba(grid))
    truth = 1 / (1 + np.exp(-2 * grid[:, 0]))
    assert np.mean(np.abs(ipp.predict_proba(grid)[:, 1] - truth)) < 0.1


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_models": 0}, "n_models"),
        ({"convention": "other"}, "convention"),
        ({"weighting": "bootstrap"}, "weighting"),
    ],
)
def test_errors(kwargs, match):
    X, y = toy_data()
    with pytest.raises(ValueError, match=match):
        ImpliedPosteriorClassifier(ThresholdModel(), **kwargs).fit(X, y)


def test_errors_bad_labels_and_balanced_weights():
    X, y = toy_data()
    with pytest.raises(ValueError, match="single class"):
        ImpliedPosteriorClassifier(ThresholdModel(), n_models=3).fit(X, np.ones(20))
    with pytest.raises(ValueError, match="balanced"):
        ImpliedPosteriorClassifier(ThresholdModel(class_weight="balanced"), n_models=3).fit(X, y)
    with pytest.raises(ValueError, match="strictly inside"):
        implied_weights([0.0, 0.5], 5, 5)
    with pytest.raises(ValueError, match="votes"):
        vote_fraction([[2.0]])


def test_auto_weighting_resamples_for_a_learner_whose_fit_takes_no_sample_weight():
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from dstk.calibration import ImpliedPosteriorClassifier

    X, y = load_breast_cancer(return_X_y=True)
    pipeline = make_pipeline(StandardScaler(), LogisticRegression())
    model = ImpliedPosteriorClassifier(pipeline, n_models=3, random_state=0).fit(X, y)
    assert model._weighting() == "resample" and model.score(X, y) > 0.9
    assert ImpliedPosteriorClassifier(LogisticRegression(), n_models=3)._weighting() == "class_weight"
