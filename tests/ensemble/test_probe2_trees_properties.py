"""Second review of the random decision trees: properties any correct ensemble has.

Random decision trees (Fan et al. 2003; Busch et al. 2021) split at a random
value between the sample minimum and maximum of a random feature, so the
properties below hold for the partition of the samples, not the thresholds:

* predict = classes_[argmax predict_proba] and predict_proba rows sum to 1;
* a batch gives the rows' results one by one;
* relabelling the classes by a bijection permutes the outputs;
* scaling a feature by a positive power of two (exact in float64) leaves
  every output unchanged.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstk.ensemble import COMBINERS, RandomDecisionTreesClassifier

TWO_CLASS_ONLY = {"plausibility", "confidence_bounds"}


def _data(seed, n_samples, n_classes):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, 3))
    X[:, 2] = np.round(X[:, 2])  # duplicate values
    y = rng.integers(0, n_classes, n_samples)
    y[:n_classes] = np.arange(n_classes)
    return X, y


SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(
    seed=st.integers(0, 2**31 - 1),
    n_samples=st.integers(6, 40),
    n_classes=st.integers(2, 3),
    combiner=st.sampled_from(sorted(COMBINERS)),
)
def test_predict_is_argmax_and_batch_is_row_by_row(seed, n_samples, n_classes, combiner):
    if n_classes > 2 and combiner in TWO_CLASS_ONLY:
        n_classes = 2
    X, y = _data(seed, n_samples, n_classes)
    model = RandomDecisionTreesClassifier(7, combiner=combiner, random_state=seed).fit(X, y)
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all() and proba.min() >= 0.0
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    predicted = model.predict(X)
    # ties may go either way: the predicted class has the largest probability
    chosen = proba[np.arange(len(X)), np.searchsorted(model.classes_, predicted)]
    np.testing.assert_array_equal(chosen, proba.max(axis=1))
    rows = np.vstack([model.predict_proba(X[i : i + 1]) for i in range(0, len(X), 5)])
    np.testing.assert_array_equal(rows, proba[::5])


@SETTINGS
@given(
    seed=st.integers(0, 2**31 - 1),
    n_samples=st.integers(6, 40),
    combiner=st.sampled_from(sorted(COMBINERS)),
    power=st.integers(-8, 8),
)
def test_power_of_two_feature_scaling_changes_nothing(seed, n_samples, combiner, power):
    X, y = _data(seed, n_samples, 2)
    scaled = X * 2.0**power
    first = RandomDecisionTreesClassifier(5, combiner=combiner, random_state=seed).fit(X, y)
    second = RandomDecisionTreesClassifier(5, combiner=combiner, random_state=seed).fit(scaled, y)
    np.testing.assert_array_equal(first.predict_proba(X), second.predict_proba(scaled))


@SETTINGS
@given(
    seed=st.integers(0, 2**31 - 1),
    n_samples=st.integers(6, 40),
    combiner=st.sampled_from(sorted(set(COMBINERS) - TWO_CLASS_ONLY)),
)
def test_relabelling_the_classes_permutes_the_outputs(seed, n_samples, combiner):
    X, y = _data(seed, n_samples, 3)
    labels = np.array(["c", "a", "b"])  # class 0 -> "c" (last in sorted order), 1 -> "a", 2 -> "b"
    original = RandomDecisionTreesClassifier(5, combiner=combiner, random_state=seed).fit(X, y)
    renamed = RandomDecisionTreesClassifier(5, combiner=combiner, random_state=seed).fit(X, labels[y])
    order = np.searchsorted(renamed.classes_, labels)  # column of each original class in the renamed model
    np.testing.assert_allclose(renamed.predict_proba(X)[:, order], original.predict_proba(X), atol=1e-12)


@pytest.mark.parametrize("combiner", sorted(COMBINERS))
def test_reproducible_with_a_seed_and_across_n_jobs(combiner):
    X, y = _data(5, 40, 2)
    one = RandomDecisionTreesClassifier(6, combiner=combiner, random_state=11, n_jobs=1).fit(X, y)
    two = RandomDecisionTreesClassifier(6, combiner=combiner, random_state=11, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))
