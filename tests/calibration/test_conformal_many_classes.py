"""ConformalBeliefClassifier above 64 classes: the consonant mass function of the p-values as a sorted contour.

Reference: the pignistic transform and the singleton belief by their definitions on the nested focal sets
``{y_(1)} ⊂ {y_(1), y_(2)} ⊂ ...`` (Shafer 1976, Theorem 10.1; Smets and Kennes 1994, Eq. 3.1), summed
focal set by focal set.
"""

from __future__ import annotations

import numpy as np
import pytest

from dstk._estimator import pignistic_rows, singleton_interval
from dstk.calibration import ConformalBeliefClassifier


def clusters(n_classes, per_class, seed, n_features=4):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_classes, n_features)) * 4.0
    y = np.repeat(np.arange(n_classes), per_class)
    return centres[y] + rng.normal(size=(y.size, n_features)), y


def nested_pignistic(contour):
    """BetP of the consonant mass function of one contour, focal set by focal set."""
    order = sorted(range(contour.size), key=lambda k: -contour[k])
    values = [contour[k] for k in order] + [0.0]
    out = np.zeros(contour.size)
    for i in range(contour.size):
        mass = values[i] - values[i + 1]  # m({y_(1..i+1)})
        for k in order[: i + 1]:
            out[k] += mass / (i + 1)
    return out / values[0]  # 1 - m(empty) = pi_(1)


@pytest.mark.parametrize("n_classes", [100, 1000])
def test_conformal_many_classes_against_the_nested_focal_sets(n_classes):
    from sklearn.naive_bayes import GaussianNB

    X, y = clusters(n_classes, 4 if n_classes == 100 else 2, seed=n_classes)
    model = ConformalBeliefClassifier(GaussianNB(), calibration_size=0.5, random_state=0).fit(X, y)
    queries = X[::37][:12]
    contour = model.predict_contour(queries)
    proba = model.predict_proba(queries)
    assert proba.shape == (queries.shape[0], n_classes)
    for row in range(queries.shape[0]):
        assert np.allclose(proba[row], nested_pignistic(contour[row]), rtol=1e-12, atol=1e-15)
    bel, pl = model.predict_interval(queries)
    assert np.array_equal(pl, contour)
    top = np.sort(contour, axis=1)[:, ::-1]
    assert np.allclose(bel.sum(axis=1), top[:, 0] - top[:, 1]) and np.all(
        (bel == 0).sum(axis=1) >= n_classes - 1
    )
    assert np.array_equal(model.predict(queries), model.classes_[np.argmax(contour, axis=1)])
    # predict_mass: a usable MassFunction on Frame(classes_) (nested focal sets in the wide form)
    m = model.predict_mass(queries[:3])
    assert m.frame.labels == tuple(model.classes_.tolist())
    assert np.allclose(m.contour(), contour[:3], atol=1e-12)
    assert np.allclose(m.pignistic(), proba[:3], atol=1e-12)
    best = model.classes_[np.argmax(contour[:3], axis=1)]
    assert np.allclose([m.batch[i].pl({best[i]}) for i in range(3)], contour[:3].max(axis=1), atol=1e-12)


@pytest.mark.parametrize("n_classes", [3, 12, 64])
def test_conformal_up_to_64_classes_keeps_the_mass_function_path_bit_for_bit(n_classes):
    from sklearn.naive_bayes import GaussianNB

    X, y = clusters(n_classes, 6, seed=n_classes)
    model = ConformalBeliefClassifier(GaussianNB(), calibration_size=0.5, random_state=0).fit(X, y)
    mass = model.predict_mass(X[:15])
    assert model.predict_proba(X[:15]).tobytes() == pignistic_rows(mass).tobytes()
    bel, pl = singleton_interval(mass)
    got = model.predict_interval(X[:15])
    assert got[0].tobytes() == bel.tobytes() and got[1].tobytes() == pl.tobytes()
