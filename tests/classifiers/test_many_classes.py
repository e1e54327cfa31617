"""EkNN and the evidential neural network with more than 64 classes (the singletons-and-frame form).

References: the masses by the definition of Dempster's rule folded over the sources one by one (brute
force on the M + 1 focal sets), and the same problem with fewer classes (classes absent from a query's
neighbourhood change neither the masses of the others nor the decision).
"""

from __future__ import annotations

import numpy as np
import pytest

from dstk._estimator import pignistic_rows, singleton_interval
from dstk.classifiers import EvidentialKNNClassifier, EvidentialNeuralNetworkClassifier

# a few iterations of the network's training suffice: the tests check the prediction from its parameters
pytestmark = pytest.mark.filterwarnings("ignore:EvidentialNeuralNetworkClassifier stopped after")


def clusters(n_classes, per_class, seed, n_features=4, spread=6.0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_classes, n_features)) * spread
    y = np.repeat(np.arange(n_classes), per_class)
    X = centres[y] + rng.normal(size=(y.size, n_features))
    return X, y, centres


def dempster_singletons(supports, labels, n_classes):
    """Fold m_i({labels_i}) = s_i, m_i(Omega) = 1 - s_i by Dempster's rule on (m({c}), m(Omega))."""
    singletons = np.zeros(n_classes)
    frame = 1.0
    for s, c in zip(supports, labels):
        source = np.zeros(n_classes)
        source[c] = s
        # A & B for A, B in {singletons, Omega}: {c} & {c} = {c}, {c} & Omega = {c}, {c} & {d} = empty
        new = singletons * source + singletons * (1.0 - s) + frame * source
        new_frame = frame * (1.0 - s)
        total = new.sum() + new_frame
        singletons, frame = new / total, new_frame / total
    return singletons, frame


@pytest.mark.parametrize("n_classes", [100, 1000])
def test_eknn_many_classes_against_the_fold_and_the_mass_function(n_classes):
    X, y, centres = clusters(n_classes, 3, seed=n_classes)
    model = EvidentialKNNClassifier(n_neighbors=5, gamma=0.5).fit(X, y)
    rng = np.random.default_rng(1)
    queries = centres[rng.integers(0, n_classes, 40)] + rng.normal(size=(40, X.shape[1]))
    proba = model.predict_proba(queries)
    assert proba.shape == (40, n_classes)
    squared, indices = model._neighbours(queries)
    for row in range(40):
        supports = model.alpha * np.exp(-0.5 * squared[row])
        singletons, frame = dempster_singletons(supports, y[indices[row]], n_classes)
        assert np.allclose(proba[row], singletons + frame / n_classes, rtol=1e-12, atol=1e-15)
        bel, pl = model.predict_interval(queries[row : row + 1])
        assert np.allclose(bel[0], singletons, atol=1e-15) and np.allclose(
            pl[0], singletons + frame, atol=1e-15
        )
    labels = model.predict(queries)
    assert np.array_equal(labels, model.classes_[np.argmax(proba, axis=1)])
    assert model.score(X, y) > 0.9


@pytest.mark.parametrize("n_classes", [100, 1000])
def test_eknn_many_classes_mass_function_is_usable(n_classes):
    X, y, _ = clusters(n_classes, 2, seed=7)
    model = EvidentialKNNClassifier(n_neighbors=4, gamma=0.5).fit(X, y)
    m = model.predict_mass(X[:6])
    assert m.batch_shape == (6,) and m.frame.labels == tuple(model.classes_.tolist())
    # the focal-set form's own pignistic transform, bel / pl, against the vector form
    assert np.allclose(m.pignistic(), model.predict_proba(X[:6]), atol=1e-12)
    bel, pl = model.predict_interval(X[:6])
    bel_m, pl_m = singleton_interval(m)
    assert np.allclose(bel, bel_m, atol=1e-12) and np.allclose(pl, pl_m, atol=1e-12)
    pair = {model.classes_[0], model.classes_[1]}
    assert np.allclose(m.bel(pair), bel[:, 0] + bel[:, 1], atol=1e-12)
    assert np.allclose(m.pl(pair), bel[:, 0] + bel[:, 1] + (pl[:, 0] - bel[:, 0]), atol=1e-12)
    decided = m.decide()
    assert np.array_equal(np.asarray(decided), model.predict(X[:6]))


def test_eknn_many_classes_same_decisions_as_fewer_classes():
    # a far cluster of 5 classes inside 100: with every neighbour of a query in the cluster, the
    # 100-class model gives the masses of the 5-class model on the cluster's classes and the frame
    X, y, _ = clusters(100, 4, seed=3, spread=3.0)
    far = y < 5
    X[far] += 1000.0
    rng = np.random.default_rng(0)
    queries = X[far][rng.integers(0, far.sum(), 30)] + 0.3 * rng.normal(size=(30, X.shape[1]))
    big = EvidentialKNNClassifier(n_neighbors=6, gamma=0.3).fit(X, y)
    small = EvidentialKNNClassifier(n_neighbors=6, gamma=0.3).fit(X[far], y[far])
    bel_big, pl_big = big.predict_interval(queries)
    bel_small, pl_small = small.predict_interval(queries)
    assert np.allclose(bel_big[:, :5], bel_small, rtol=1e-12, atol=1e-15)
    assert np.all(bel_big[:, 5:] == 0.0)
    assert np.allclose(pl_big[:, :5], pl_small, rtol=1e-12, atol=1e-15)
    assert np.array_equal(big.predict(queries), small.predict(queries))


@pytest.mark.parametrize("n_classes", [3, 20, 64])
def test_up_to_64_classes_the_mass_function_path_is_kept_bit_for_bit(n_classes):
    X, y, _ = clusters(n_classes, 4, seed=n_classes)
    for model in (
        EvidentialKNNClassifier(n_neighbors=5, gamma=0.5),
        EvidentialNeuralNetworkClassifier(n_prototypes=n_classes, max_iter=3, random_state=0),
    ):
        model.fit(X, y)
        mass = model.predict_mass(X[:20])
        assert pignistic_rows(mass).tobytes() == model.predict_proba(X[:20]).tobytes()
        bel, pl = singleton_interval(mass)
        got = model.predict_interval(X[:20])
        assert bel.tobytes() == got[0].tobytes() and pl.tobytes() == got[1].tobytes()


@pytest.mark.parametrize("n_classes", [100, 1000])
def test_neural_network_many_classes_against_the_definition(n_classes):
    # the training criterion holds (samples, prototypes, classes) arrays: few prototypes at 1,000 classes
    X, y, _ = clusters(n_classes, 2, seed=11)
    model = EvidentialNeuralNetworkClassifier(
        n_prototypes=30 if n_classes == 100 else 5, max_iter=3, random_state=0
    )
    model.fit(X, y)
    queries = X[:25]
    proba = model.predict_proba(queries)
    assert proba.shape == (25, n_classes)
    # Denoeux (2000): prototype j gives m_j({c}) = u_jc s_j, m_j(Omega) = 1 - s_j; Dempster's rule
    # through the commonalities q({c}) = prod_j (1 - s_j (1 - u_jc)), q(Omega) = prod_j (1 - s_j)
    squared = ((queries[:, None, :] - model.prototypes_[None, :, :]) ** 2).sum(axis=2)
    support = model.alpha_ * np.exp(-model.gamma_ * squared)
    q_single = np.prod(1.0 - support[:, :, None] * (1.0 - model.membership_[None]), axis=1)
    q_frame = np.prod(1.0 - support, axis=1)
    singletons = q_single - q_frame[:, None]
    total = singletons.sum(axis=1) + q_frame
    want = (singletons + (q_frame / n_classes)[:, None]) / total[:, None]
    assert np.allclose(proba, want, rtol=1e-9, atol=1e-14)
    assert np.array_equal(model.predict(queries), model.classes_[np.argmax(proba, axis=1)])
