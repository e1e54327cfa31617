"""EvidentialFusionClassifier.predict_mass beyond the dense memory limit (discounted sources kept as such).

References: the dense path (contextual discounting and Dempster's rule on
the 2**n masses, another implementation) on 10 classes, forced through the
sources' form; the plausibility transform of the product of the discounted
contours (:meth:`predict_proba`) at 1,000 classes.  The formulas themselves
are checked against frozenset brute force in ``tests/core/test_structured.py``.
"""

import json
import pickle
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.naive_bayes import GaussianNB

from dstk import MassFunction, combine, decide
from dstk.calibration import EvidentialFusionClassifier
from dstk.core._structured import DiscountedBayesStorage
from dstk.exceptions import FrameTooLargeError


def fitted(n_classes, n_samples, rule="dempster", training="log_loss"):
    X, y = make_classification(
        n_samples=n_samples,
        n_features=12,
        n_informative=10,
        n_redundant=0,
        n_classes=n_classes,
        n_clusters_per_class=1,
        random_state=0,
    )
    estimators = [("nb", GaussianNB()), ("lda", LinearDiscriminantAnalysis())]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = EvidentialFusionClassifier(estimators, cv=2, method=None, rule=rule, training=training)
        model = model.fit(X, y)
    return model, X


@pytest.mark.parametrize("rule", ["dempster", "conjunctive"])
def test_sources_form_equals_the_dense_path_on_10_classes(rule, monkeypatch):
    model, X = fitted(10, 300, rule)
    dense = model.predict_mass(X[:5])
    assert dense.is_dense

    def refuse(*args, **kwargs):
        raise FrameTooLargeError("forced")

    monkeypatch.setattr("dstk.core._dense.check_dense_size", refuse)
    held = model.predict_mass(X[:5])
    assert isinstance(held._storage, DiscountedBayesStorage)
    m = dense.to_array("m")
    labels = model.classes_.tolist()
    for mask in range(1 << 10):
        subset = {labels[i] for i in range(10) if (mask >> i) & 1}
        np.testing.assert_allclose(held.mass(subset), m[:, mask], atol=1e-12)
    np.testing.assert_allclose(held.pignistic(), dense.pignistic(), atol=1e-12)
    np.testing.assert_allclose(held.contour(), dense.contour(), atol=1e-12)
    bel, pl = model.predict_interval(X[:5])
    np.testing.assert_allclose(bel, dense.to_array("bel")[:, 1 << np.arange(10)], atol=1e-12)
    np.testing.assert_allclose(pl, dense.to_array("pl")[:, 1 << np.arange(10)], atol=1e-12)


def test_other_rules_above_the_limit_say_what_to_use(monkeypatch):
    model, X = fitted(10, 300, "yager")

    def refuse(*args, **kwargs):
        raise FrameTooLargeError("2**n masses")

    monkeypatch.setattr("dstk.core._dense.check_dense_size", refuse)
    with pytest.raises(FrameTooLargeError, match="dempster"):
        model.predict_mass(X[:2])


def test_predict_mass_on_1000_classes():
    # (rates trained on the plausibility error: the log-loss training takes minutes on 1,000 classes)
    model, X = fitted(1000, 3000, training="plausibility_error")
    m = model.predict_mass(X[:3])
    assert m.frame.n == 1000 and m.batch_shape == (3,)
    assert isinstance(m._storage, DiscountedBayesStorage)
    np.testing.assert_allclose(m.plausibility_transform(), model.predict_proba(X[:3]), rtol=1e-9, atol=1e-15)
    bet = m.pignistic()
    np.testing.assert_allclose(bet.sum(axis=1), 1.0)
    assert np.all(bet >= 0)
    assert list(decide(m, criterion="plausibility")) == list(model.predict(X[:3]))
    assert list(decide(m, criterion="pignistic")) == list(model.classes_[np.argmax(bet, axis=1)])
    member = np.random.default_rng(0).random(1000) < 0.3
    a, not_a = set(model.classes_[member].tolist()), set(model.classes_[~member].tolist())
    np.testing.assert_allclose(m.pl(a), 1.0 - m.bel(not_a), atol=1e-12)
    assert np.all(m.bel(a) <= m.pl(a) + 1e-12)
    assert np.all(np.abs(m.mass(set())) <= 1e-12)
    bel, pl = model.predict_interval(X[:3])
    np.testing.assert_allclose(pl, m.contour(), rtol=1e-9, atol=1e-14)
    assert np.all(bel <= pl)
    # Dempster's combination with another sample's mass: the contours multiply
    both = combine([m.batch[0], m.batch[1]], rule="dempster")
    product = m.contour()[0] * m.contour()[1]
    np.testing.assert_allclose(both.plausibility_transform(), product / product.sum())
    assert pickle.loads(pickle.dumps(m)) == m
    assert MassFunction.from_json(m.to_json()) == m
    assert json.loads(m.to_json())["form"] == "discounted_bayes"
