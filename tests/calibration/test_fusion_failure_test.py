"""EvidentialFusionClassifier(failure_test_level=...): a classifier failing on a whole batch is left out."""

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from dstk.calibration import EvidentialFusionClassifier
from dstk.evidence._dissent import failing_source, log_agreement
from dstk.exceptions import ConflictWarning


class Switchable(ClassifierMixin, BaseEstimator):
    """A classifier whose inputs can be replaced by noise at prediction time (a broken sensor)."""

    def __init__(self, estimator=None, noise_seed=None):
        self.estimator = estimator
        self.noise_seed = noise_seed

    def fit(self, X, y):
        self.estimator_ = clone(self.estimator).fit(X, y)
        self.classes_ = self.estimator_.classes_
        self.mean_, self.scale_ = X.mean(axis=0), X.std(axis=0)
        return self

    def predict_proba(self, X):
        if self.noise_seed is not None:
            rng = np.random.default_rng(self.noise_seed)
            X = rng.normal(size=X.shape) * self.scale_ + self.mean_
        return self.estimator_.predict_proba(X)

    def predict(self, X):
        return self.classes_[self.predict_proba(X).argmax(axis=1)]


def sources():
    return [
        ("lr", make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))),
        ("nb", Switchable(GaussianNB())),
        ("forest", RandomForestClassifier(n_estimators=30, random_state=0)),
    ]


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    order = rng.permutation(y.size)
    train, test = order[:380], order[380:]
    return X[train], y[train], X[test], y[test]


def test_log_agreement_is_the_ratio_of_the_marginal_likelihoods_of_the_two_hypotheses():
    """log A_s = log [sum_k prod_j pl_jk] - log [sum_k prod_{j != s} pl_jk * mean_k pl_sk]: the marginal
    likelihood of all outputs (uniform prior) when s bears on the sample, against when its output is
    unrelated to the class; written out sample by sample."""
    rng = np.random.default_rng(1)
    discounted = rng.uniform(0.01, 1.0, size=(4, 7, 3))
    got = log_agreement(discounted)
    for s in range(4):
        for i in range(7):
            together = sum(np.prod([discounted[j, i, k] for j in range(4)]) for k in range(3))
            others = sum(np.prod([discounted[j, i, k] for j in range(4) if j != s]) for k in range(3))
            unrelated = others * np.mean(discounted[s, i])
            assert got[s, i] == pytest.approx(np.log(together / unrelated), rel=1e-12)


def test_log_agreement_of_two_bayesian_sources_and_of_an_uninformative_one():
    p = np.array([[0.7, 0.2, 0.1]])
    q = np.array([[0.1, 0.3, 0.6]])
    got = log_agreement(np.stack([p, q]))
    expected = np.log(3 * (0.7 * 0.1 + 0.2 * 0.3 + 0.1 * 0.6))  # K sum_k p_k q_k, both ways
    assert got[0, 0] == pytest.approx(expected) and got[1, 0] == pytest.approx(expected)
    flat = log_agreement(np.stack([p, np.full((1, 3), 0.4)]))
    assert flat[1, 0] == pytest.approx(0.0, abs=1e-15)  # a constant likelihood says nothing


def test_failing_source_p_values_are_scipys_one_sided_mann_whitney_with_bonferroni():
    rng = np.random.default_rng(2)
    reference = rng.uniform(0.05, 1.0, size=(3, 60, 2))
    batch = rng.uniform(0.05, 1.0, size=(3, 40, 2))
    batch[1] = 1.0 - reference[0, :40]  # source 1 contradicts source 0 on the batch
    batch[2] = reference[0, :40]
    p_values, failing = failing_source(log_agreement(reference), reference, batch, level=0.01)
    for s in range(3):
        expected = stats.mannwhitneyu(
            log_agreement(batch)[s], log_agreement(reference)[s], alternative="less"
        ).pvalue
        assert p_values[s] == pytest.approx(expected)
    flagged = np.flatnonzero(p_values < 0.01 / 3)
    assert failing in flagged if flagged.size else failing == -1
    _, none = failing_source(log_agreement(reference), reference, reference, level=0.01)
    assert none == -1  # the reference against itself: p-values 0.5


def test_a_failing_classifier_is_left_out_with_the_rates_learned_without_it(data):
    """The prediction on a batch where one classifier is fed noise equals that of the fusion fitted
    without it (a hand-built reference: the same cross-fitting with the classifier dropped)."""
    X, y, X_test, _ = data
    model = EvidentialFusionClassifier(sources(), failure_test_level=0.01).fit(X, y)
    reference = EvidentialFusionClassifier([s for s in sources() if s[0] != "nb"]).fit(X, y)
    np.testing.assert_allclose(model.rates_without_[1][[0, 2]], reference.rates_, rtol=1e-10, atol=1e-12)
    assert np.isnan(model.rates_without_[[0, 1, 2], [0, 1, 2]]).all()
    assert model.out_of_fold_agreement_.shape == (3, y.size)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # clean batch: no classifier flagged, every sample on its own
        clean = model.predict_proba(X_test)
    plain = clone(model).set_params(failure_test_level=None).fit(X, y)
    np.testing.assert_allclose(clean, plain.predict_proba(X_test))
    model.named_estimators_["nb"].noise_seed = 3
    with pytest.warns(ConflictWarning, match=r"'nb' agrees with the others .* left out"):
        broken = model.predict_proba(X_test)
    np.testing.assert_allclose(broken, reference.predict_proba(X_test), rtol=1e-10, atol=1e-12)
    with pytest.warns(ConflictWarning, match="'nb'"):
        mass = model.predict_mass(X_test)
    np.testing.assert_allclose(mass.to_array("m"), reference.predict_mass(X_test).to_array("m"), atol=1e-12)
    with pytest.warns(ConflictWarning, match="'nb'"):
        assert (model.predict(X_test) == reference.predict(X_test)).all()


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.1, True, "0.01", np.nan])
def test_bad_failure_test_level_is_refused(data, level):
    X, y, _, _ = data
    with pytest.raises(ValueError, match="failure_test_level"):
        EvidentialFusionClassifier(sources(), failure_test_level=level).fit(X, y)


def test_failure_test_needs_three_classifiers(data):
    """With two classifiers each one's agreement with the other is the same number (A_1 = A_2, checked
    here from the definition), so a batch cannot tell which one failed."""
    X, y, _, _ = data
    for n in (1, 2):
        with pytest.raises(ValueError, match="at least three classifiers"):
            EvidentialFusionClassifier(sources()[:n], failure_test_level=0.01).fit(X, y)
    rng = np.random.default_rng(5)
    two = rng.uniform(0.05, 1.0, size=(2, 30, 4))
    np.testing.assert_allclose(log_agreement(two)[0], log_agreement(two)[1], rtol=1e-12)
    with pytest.raises(ValueError, match="at least three"):
        failing_source(log_agreement(two), two, two, level=0.01)


def test_a_tie_between_flagged_sources_leaves_none_out():
    """Two sources that agree on the reference contradict each other on the batch, beside a vacuous
    third: by symmetry their agreements, p-values and the drops left by removing either are equal, so
    neither is named; with an informative third source agreeing with source 0, source 1 is named."""
    rng = np.random.default_rng(4)
    first = rng.uniform(0.02, 1.0, size=(80, 2))
    reference = np.stack([first, first, np.ones((80, 2))])
    batch_first = rng.uniform(0.02, 1.0, size=(60, 2))
    batch = np.stack([batch_first, batch_first[:, ::-1], np.ones((60, 2))])
    p_values, failing = failing_source(log_agreement(reference), reference, batch, level=0.01)
    assert p_values[0] < 0.01 / 3 and p_values[1] < 0.01 / 3 and p_values[0] == pytest.approx(p_values[1])
    assert failing == -1
    reference[2], batch[2] = first, batch_first  # the third source now sides with source 0
    _, failing = failing_source(log_agreement(reference), reference, batch, level=0.01)
    assert failing == 1
