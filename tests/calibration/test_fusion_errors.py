"""Errors users hit when combining classifiers: each either has a per-sample policy or says what to use."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.frozen import FrozenEstimator
from sklearn.tree import DecisionTreeClassifier

from dstk.calibration import (
    BinningCalibrator,
    EvidentialCombination,
    EvidentialFusionClassifier,
    combine_classifiers,
)
from dstk.exceptions import DogmaticError, TotalConflictError

SCORES = np.array([-2.0, -1.0, 1.0, 2.0])
LABELS = np.array([0, 0, 1, 1])


def bayesian_calibrators():
    """Two calibrators with Bayesian outputs of probabilities 0 and 1 that contradict each other."""
    sure = BinningCalibrator(bins=[-3, 0, 3], model="bayes").fit(SCORES, LABELS)
    flipped = BinningCalibrator(bins=[-3, 0, 3], model="bayes").fit(SCORES, 1 - LABELS)
    return sure, flipped


def test_dempster_on_bayesian_outputs_names_the_samples_and_the_alternatives():
    sure, flipped = bayesian_calibrators()
    with pytest.raises(
        TotalConflictError, match=r"on_conflict='vacuous'.*EvidentialFusionClassifier"
    ) as caught:
        combine_classifiers([sure, flipped], [-1.5, 1.5])
    assert list(caught.value.indices) == [0, 1]


def test_cautious_on_bayesian_outputs_says_what_to_use():
    sure, _ = bayesian_calibrators()
    with pytest.raises(DogmaticError, match=r"model='likelihood'.*EvidentialFusionClassifier"):
        combine_classifiers([sure, sure], [-1.5, 1.5], rule="cautious")
    with pytest.raises(DogmaticError, match="model='likelihood'"):
        EvidentialCombination([sure, sure], rule="cautious").predict_conflict([1.5])


def test_bold_on_calibrated_outputs_says_what_to_use():
    sure, _ = bayesian_calibrators()
    likelihood = BinningCalibrator(bins=[-3, 0, 3], model="likelihood").fit(SCORES, LABELS)
    for calibrator in (sure, likelihood):  # normal outputs, Bayesian or not
        with pytest.raises(DogmaticError, match=r"subnormal.*rule='cautious'"):
            combine_classifiers([calibrator, calibrator], [1.5], rule="bold")
    with pytest.raises(ValueError, match=r"subnormal.*rule='cautious'"):
        EvidentialFusionClassifier([("a", DecisionTreeClassifier())], rule="bold").fit(
            SCORES[:, None], LABELS
        )


@pytest.mark.parametrize("rule", ["dempster", "cautious"])
def test_fusion_of_dogmatic_contradicting_classifiers_predicts_every_sample(rule):
    """Fully grown trees output probabilities 0 and 1: Dempster's rule and the cautious rule on them
    raise in :func:`combine`; the fusion's learned discounting (rates >= 0.01, and >= 1e-6 for the
    cautious rule) gives every sample a finite prediction."""
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    # two trees trained elsewhere, on disjoint halves, one of them on shuffled labels: they contradict
    half = X.shape[0] // 2
    good = DecisionTreeClassifier(random_state=0).fit(X[:half], y[:half])
    bad = DecisionTreeClassifier(random_state=0).fit(X[:half], rng.permutation(y[:half]))
    test = X[half:]
    q_good, q_bad = good.predict_proba(test), bad.predict_proba(test)
    assert set(np.unique(q_good)) <= {0.0, 1.0} and (q_good * q_bad).sum(axis=1).min() == 0.0
    model = EvidentialFusionClassifier(
        [("good", FrozenEstimator(good)), ("bad", FrozenEstimator(bad))], rule=rule, cv=3
    ).fit(test, y[half:])
    probabilities = model.predict_proba(test)
    assert np.isfinite(probabilities).all()
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)
    mass = model.predict_mass(test)
    assert np.isfinite(mass.to_array()).all()
    # the shuffled-label tree is learned to be unreliable: the fusion follows the good tree
    assert model.rates_[1].min() > model.rates_[0].max()
    assert model.score(test, y[half:]) >= (good.predict(test) == y[half:]).mean() - 0.01


def test_deprecated_combiners_warn_and_name_the_replacement():
    from sklearn.naive_bayes import GaussianNB

    from dstk.classifiers import ContextualDiscountingCombiner

    sure, _ = bayesian_calibrators()
    with pytest.warns(FutureWarning, match="combine_classifiers"):
        old = EvidentialCombination([sure, sure])
    np.testing.assert_array_equal(
        old.predict_mass([1.5]).to_array(), combine_classifiers([sure, sure], [1.5]).to_array()
    )
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.warns(FutureWarning, match="EvidentialFusionClassifier"):
        ContextualDiscountingCombiner([GaussianNB()], random_state=0).fit(X[::5], y[::5])


def test_dempster_on_bayesian_outputs_per_sample_is_bayes_rule_or_vacuous():
    """The per-sample policy on a batch where only some samples conflict totally: there the vacuous mass
    function, elsewhere Dempster's rule, which on Bayesian outputs is Bayes' rule with a uniform class
    prior (the normalised product of the classifiers' probabilities, written out here)."""
    from dstk.exceptions import ConflictWarning

    edges = np.linspace(-3.0, 3.0, 7)  # six bins of scores, eight training samples in each
    scores = np.repeat(edges[:-1] + 0.5, 8)
    # per classifier and bin, how many of the 8 samples are of class 1: 0 and 8 give the probabilities 0
    # and 1 (dogmatic outputs); the first two bins conflict totally, the fourth agrees on class 1 alone
    counts = [[0, 8, 2, 4, 8, 6], [8, 0, 4, 8, 6, 0], [4, 4, 6, 2, 8, 2]]
    calibrators, probabilities = [], []
    for ones in np.array(counts):
        labels = np.concatenate([(np.arange(8) < k).astype(int) for k in ones])
        calibrators.append(BinningCalibrator(bins=edges, model="bayes").fit(scores, labels))
        probabilities.append(np.stack([1 - ones / 8, ones / 8], axis=1))
    X = edges[:-1] + 0.25
    product = np.prod(probabilities, axis=0)
    total = product.sum(axis=1)
    conflicting = np.flatnonzero(total == 0)
    assert conflicting.tolist() == [0, 1]  # the case of the policy: some samples, not all
    expected = np.zeros((X.size, 4))  # masses of the empty set, {0}, {1}, {0, 1}
    kept = total > 0
    expected[kept, 1:3] = product[kept] / total[kept, None]
    expected[~kept, 3] = 1.0
    with pytest.warns(ConflictWarning, match=r"indices \[0, 1\]"):
        combined = combine_classifiers(calibrators, X, on_conflict="vacuous")
    np.testing.assert_allclose(combined.to_array(), expected, atol=1e-12)
    with pytest.raises(TotalConflictError) as caught:
        combine_classifiers(calibrators, X)
    assert list(caught.value.indices) == conflicting.tolist()
