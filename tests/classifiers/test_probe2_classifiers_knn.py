"""Second probe of the evidential classifiers: independent references and a careless user's inputs.

The evidential k-NN is checked against Denoeux (1995) written out from its definition: the ``k`` nearest
training points found by a sort of the squared distances, each a simple mass function
``m_i({w_q}) = alpha exp(-gamma_q d_i^2)``, ``m_i(Omega) = 1 - m_i({w_q})`` on the subsets as bitmasks,
combined by Dempster's rule summed over every pair of focal sets (no dstk code in the reference).
"""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("sklearn")

from sklearn.neighbors import KNeighborsClassifier

from dstk.classifiers import EvidentialKNNClassifier
from dstk.exceptions import ConvergenceWarning


def _dempster(m1, m2):
    out = np.zeros_like(m1)
    for a in np.flatnonzero(m1):
        for b in np.flatnonzero(m2):
            out[a & b] += m1[a] * m2[b]
    out[0] = 0.0
    return out / out.sum()


def _denoeux_1995(X_train, y_train, X_test, k, alpha, gamma, n_classes):
    rows = []
    for x in X_test:
        squared = ((X_train - x) ** 2).sum(axis=1)
        m = np.zeros(2**n_classes)
        m[-1] = 1.0
        for i in np.argsort(squared, kind="stable")[:k]:
            s = alpha * np.exp(-gamma[y_train[i]] * squared[i])
            source = np.zeros(2**n_classes)
            source[1 << y_train[i]] = s
            source[-1] = 1.0 - s
            m = _dempster(m, source)
        rows.append(m)
    return np.array(rows)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_train=st.integers(4, 25),
    n_classes=st.integers(2, 4),
    k=st.integers(1, 30),
    alpha=st.floats(0.05, 0.99),
    learn=st.booleans(),
)
def test_knn_matches_denoeux_1995_by_brute_force(seed, n_train, n_classes, k, alpha, learn):
    rng = np.random.default_rng(seed)
    y = np.arange(n_train) % n_classes  # every class present
    rng.shuffle(y)
    X = rng.normal(size=(n_train, 2)) + y[:, None]
    gamma = None if learn else rng.uniform(0.1, 3.0, n_classes)
    clf = EvidentialKNNClassifier(k, alpha=alpha, gamma=gamma, max_iter=50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # a short run: gamma_ is what is compared
        clf.fit(X, y)
    X_test = rng.normal(size=(4, 2)) * 2
    expected = _denoeux_1995(X, y, X_test, min(k, n_train), alpha, clf.gamma_, n_classes)
    m = clf.predict_mass(X_test).to_array("m")
    np.testing.assert_allclose(m, expected, rtol=0, atol=1e-12)
    proba = clf.predict_proba(X_test)
    np.testing.assert_array_equal(clf.predict(X_test), clf.classes_[np.argmax(proba, axis=1)])
    # batch = row by row
    for r in range(X_test.shape[0]):
        np.testing.assert_array_equal(clf.predict_mass(X_test[r : r + 1]).to_array("m")[0], m[r])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), discounting=st.sampled_from(["simple", "contextual"]))
def test_knn_relabelling_permutes_outputs(seed, discounting):
    rng = np.random.default_rng(seed)
    y = np.arange(30) % 3
    X = rng.normal(size=(30, 2)) + y[:, None]
    gamma = rng.uniform(0.2, 2.0, 3)
    names = np.array(["z", "m", "a"])  # sorted order a, m, z: the permutation 2, 1, 0
    plain = EvidentialKNNClassifier(5, gamma=gamma, discounting=discounting).fit(X, y)
    renamed = EvidentialKNNClassifier(5, gamma=gamma[::-1], discounting=discounting).fit(X, names[y])
    X_test = rng.normal(size=(6, 2))
    np.testing.assert_allclose(
        renamed.predict_proba(X_test), plain.predict_proba(X_test)[:, ::-1], atol=1e-12
    )
    np.testing.assert_array_equal(renamed.predict(X_test), names[plain.predict(X_test)])


def test_knn_one_neighbour_agrees_with_sklearn_nearest_neighbour():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 80)
    X = rng.normal(size=(80, 3)) + y[:, None]
    X_test = rng.normal(size=(200, 3)) + 1
    evidential = EvidentialKNNClassifier(1, gamma=1.0).fit(X, y)
    baseline = KNeighborsClassifier(1).fit(X, y)
    np.testing.assert_array_equal(evidential.predict(X_test), baseline.predict(X_test))


def test_knn_pickled_model_predicts_the_same():
    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(40, 2)), np.array([-1, 0, 7, -1] * 10)
    clf = EvidentialKNNClassifier(4, discounting="contextual").fit(X, y)
    loaded = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(loaded.predict_mass(X).to_array("m"), clf.predict_mass(X).to_array("m"))


@pytest.mark.parametrize("alpha", ["0.5", b"0.5", True, np.bool_(False), None, [0.5]])
def test_knn_alpha_not_a_number_is_refused_clearly(alpha):
    X, y = np.arange(12.0).reshape(6, 2), [0, 1] * 3
    with pytest.raises(ValueError, match=r"`alpha` must be a number in \(0, 1\)"):
        EvidentialKNNClassifier(2, alpha=alpha).fit(X, y)


def test_knn_alpha_as_numpy_scalar_still_works():
    X, y = np.arange(12.0).reshape(6, 2), [0, 1] * 3
    a = EvidentialKNNClassifier(2, alpha=np.float32(0.5), gamma=1.0).fit(X, y).predict_proba(X)
    b = EvidentialKNNClassifier(2, alpha=float(np.float32(0.5)), gamma=1.0).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("gamma", [object(), {"a": 1}, [1.0, "x"]])
def test_knn_gamma_of_another_type_is_refused_clearly(gamma):
    X, y = np.arange(12.0).reshape(6, 2), [0, 1] * 3
    with pytest.raises(ValueError, match="`gamma` must be None, a positive number"):
        EvidentialKNNClassifier(2, gamma=gamma).fit(X, y)


@pytest.mark.parametrize("max_iter", [True, np.bool_(True)])
def test_knn_max_iter_bool_is_refused(max_iter):
    X, y = np.arange(12.0).reshape(6, 2), [0, 1] * 3
    with pytest.raises(ValueError, match="`max_iter` must be a positive integer"):
        EvidentialKNNClassifier(2, max_iter=max_iter).fit(X, y)


def _random_label_masses(rng, n, n_classes):
    """Each label a mass function on two or three random subsets (the empty set excluded)."""
    out = np.zeros((n, 2**n_classes))
    for i in range(n):
        sets = rng.choice(np.arange(1, 2**n_classes), size=rng.integers(1, 4), replace=False)
        out[i, sets] = rng.dirichlet(np.ones(sets.size))
    return out


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_classes=st.integers(2, 3), k=st.integers(1, 8))
def test_knn_mass_labels_match_discounted_dempster_by_brute_force(seed, n_classes, k):
    """Denoeux (1995), Sec. IV: label m_i discounted to s_i m_i + (1 - s_i) m_Omega, pooled by Dempster."""
    from dstk import Frame, MassFunction

    rng = np.random.default_rng(seed)
    n_train = 12
    X = rng.normal(size=(n_train, 2))
    labels = _random_label_masses(rng, n_train, n_classes)
    frame = Frame(list(range(n_classes)))
    y = MassFunction.from_array(labels, frame)
    clf = EvidentialKNNClassifier(k, alpha=0.9, gamma=0.7).fit(X, y)
    X_test = rng.normal(size=(3, 2))
    got = clf.predict_mass(X_test).to_array("m")
    for r, x in enumerate(X_test):
        squared = ((X - x) ** 2).sum(axis=1)
        m = np.zeros(2**n_classes)
        m[-1] = 1.0
        for i in np.argsort(squared, kind="stable")[: min(k, n_train)]:
            s = 0.9 * np.exp(-0.7 * squared[i])
            source = s * labels[i]
            source[-1] += 1.0 - s
            m = _dempster(m, source)
        np.testing.assert_allclose(got[r], m, rtol=0, atol=1e-12)


def _disjunctive(m1, m2):
    out = np.zeros_like(m1)
    for a in np.flatnonzero(m1):
        for b in np.flatnonzero(m2):
            out[a | b] += m1[a] * m2[b]
    return out


def _contextually_discounted(m, rates):
    """Mercier, Quost & Denoeux (2008): m disjunctively combined with m_k(empty) = 1 - r_k, m_k({w_k}) = r_k."""
    for q, r in enumerate(rates):
        context = np.zeros_like(m)
        context[0] = 1.0 - r
        context[1 << q] += r
        m = _disjunctive(m, context)
    return m


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_classes=st.integers(2, 3), k=st.integers(1, 6), crisp=st.booleans())
def test_knn_contextual_matches_mercier_discounting_and_dempster(seed, n_classes, k, crisp):
    """Denoeux, Kanjanatarakul & Sriboonchitta (2019): labels contextually discounted with rates
    1 - alpha exp(-gamma_k d^2), then Dempster's rule; the contour is the product of the contours."""
    from dstk import Frame, MassFunction

    rng = np.random.default_rng(seed)
    n_train = 12
    X = rng.normal(size=(n_train, 2))
    gamma = rng.uniform(0.2, 2.0, n_classes)
    if crisp:
        y_int = np.arange(n_train) % n_classes
        labels = np.zeros((n_train, 2**n_classes))
        labels[np.arange(n_train), 1 << y_int] = 1.0
        y = y_int
    else:
        labels = _random_label_masses(rng, n_train, n_classes)
        y = MassFunction.from_array(labels, Frame(list(range(n_classes))))
    clf = EvidentialKNNClassifier(k, alpha=0.9, gamma=gamma, discounting="contextual").fit(X, y)
    X_test = rng.normal(size=(3, 2))
    got = clf.predict_mass(X_test).to_array("m")
    contour = clf.predict_contour(X_test)
    for r, x in enumerate(X_test):
        squared = ((X - x) ** 2).sum(axis=1)
        m = np.zeros(2**n_classes)
        m[-1] = 1.0
        for i in np.argsort(squared, kind="stable")[: min(k, n_train)]:
            rates = 1.0 - 0.9 * np.exp(-gamma * squared[i])
            m = _dempster(m, _contextually_discounted(labels[i], rates))
        np.testing.assert_allclose(got[r], m, rtol=0, atol=1e-12)
        pl = np.array([m[[a for a in range(2**n_classes) if a >> q & 1]].sum() for q in range(n_classes)])
        np.testing.assert_allclose(contour[r], pl / pl.sum(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("discounting", ["simple", "contextual"])
def test_knn_precomputed_distances_learn_the_euclidean_gamma(discounting):
    """metric='precomputed' with gamma=None crashed: the initial gamma measured distances between rows
    of the distance matrix as if they were features."""
    from sklearn.metrics import pairwise_distances

    rng = np.random.default_rng(5)
    y = np.arange(40) % 3
    X = rng.normal(size=(40, 2)) + y[:, None]
    X_test = rng.normal(size=(7, 2)) + 1
    euclidean = EvidentialKNNClassifier(5, discounting=discounting).fit(X, y)
    precomputed = EvidentialKNNClassifier(5, metric="precomputed", discounting=discounting)
    precomputed.fit(pairwise_distances(X), y)
    np.testing.assert_allclose(precomputed.gamma_, euclidean.gamma_, rtol=1e-7)
    np.testing.assert_allclose(
        precomputed.predict_proba(pairwise_distances(X_test, X)), euclidean.predict_proba(X_test), atol=1e-7
    )


def _tampered(clf, **changes):
    state = dict(clf.__getstate__())
    state.update(changes)
    loaded = object.__new__(type(clf))
    loaded.__setstate__(state)
    return loaded


@pytest.fixture(scope="module")
def _fitted_knn():
    rng = np.random.default_rng(6)
    X, y = rng.normal(size=(30, 2)), np.arange(30) % 3
    return EvidentialKNNClassifier(5).fit(X, y), X


# each loaded before, then predicted NaN (alpha=2) or failed in predict with numpy's IndexError
@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"alpha": 2.0}, "`alpha` must lie in"),
        ({"alpha": "x"}, "`alpha` must be a number"),
        ({"n_neighbors": 0}, "`n_neighbors` must be a positive integer"),
        ({"discounting": "zzz"}, "`discounting` must be one of"),
        ({"gamma_": np.zeros(3)}, "`gamma_` has entries <= 0"),
        ({"_labels": np.arange(30) % 3 + 5}, "training labels are not 30 class indices"),
        ({"_labels": np.arange(5) % 3}, "training labels are not 30 class indices"),
        ({"_labels": (np.arange(30) % 3).astype(float)}, "training labels are not 30 class indices"),
        ({"_labels": None}, "holds no training labels"),
    ],
)
def test_knn_tampered_options_and_labels_are_refused_at_load(_fitted_knn, changes, message):
    from dstk.exceptions import InvalidStateError

    clf, _ = _fitted_knn
    with pytest.raises(InvalidStateError, match=message):
        _tampered(clf, **changes)


def test_knn_tampered_mass_labels_are_refused_and_honest_ones_load():
    from dstk import Frame, MassFunction
    from dstk.exceptions import InvalidStateError

    rng = np.random.default_rng(7)
    X = rng.normal(size=(12, 2))
    labels = _random_label_masses(rng, 12, 3)
    clf = EvidentialKNNClassifier(4, gamma=0.5).fit(X, MassFunction.from_array(labels, Frame([0, 1, 2])))
    loaded = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(loaded.predict_mass(X).to_array("m"), clf.predict_mass(X).to_array("m"))
    with pytest.raises(InvalidStateError, match="normalised mass functions"):
        _tampered(clf, _label_masses=np.ones((12, 8)))


def test_knn_unfitted_pickle_with_odd_options_still_loads():
    clf = pickle.loads(pickle.dumps(EvidentialKNNClassifier(0)))
    assert clf.n_neighbors == 0


def _contextual_contour_by_definition(X, y, x, k, alpha, gamma):
    squared = ((X - x) ** 2).sum(axis=1)
    pl = np.ones(gamma.size)
    for i in np.argsort(squared, kind="stable")[:k]:
        beta = alpha * np.exp(-gamma * squared[i])
        pl *= 1.0 - beta * (np.arange(gamma.size) != y[i])
    return pl


def test_knn_contextual_on_30_classes_predicts_without_2_to_the_30_masses():
    """Crisp labels and contextual discounting on 30 classes: fit worked, but every prediction raised
    FrameTooLargeError (2**30 masses a sample, 'process the batch in smaller chunks' even for one sample).

    Reference: the combined random set keeps class k independently with probability pl_k (Denoeux,
    Kanjanatarakul & Sriboonchitta 2019), conditioned on being non-empty; BetP(k) = pl_k E[1 / (1 + N_k)]
    / (1 - prod (1 - pl)) with N_k the Poisson-binomial count of the other classes, by dynamic programming.
    """
    rng = np.random.default_rng(8)
    n_classes = 30
    y = np.arange(90) % n_classes
    X = rng.normal(size=(90, 2))
    gamma = rng.uniform(0.5, 2.0, n_classes)
    clf = EvidentialKNNClassifier(4, gamma=gamma, discounting="contextual").fit(X, y)
    X_test = rng.normal(size=(5, 2))
    proba = clf.predict_proba(X_test)
    bel, pl_out = clf.predict_interval(X_test)
    for r, x in enumerate(X_test):
        pl = _contextual_contour_by_definition(X, y, x, 4, 0.95, gamma)
        nonempty = 1.0 - np.prod(1.0 - pl)
        betp = np.empty(n_classes)
        for q in range(n_classes):
            count = np.zeros(n_classes)  # distribution of the number of other classes kept
            count[0] = 1.0
            for j in range(n_classes):
                if j != q:
                    count[1:] = count[1:] * (1 - pl[j]) + count[:-1] * pl[j]
                    count[0] *= 1 - pl[j]
            betp[q] = pl[q] * (count / np.arange(1, n_classes + 1)).sum() / nonempty
        np.testing.assert_allclose(proba[r], betp, rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(pl_out[r], pl / nonempty, rtol=1e-9)
        others = np.array([np.prod(np.delete(1 - pl, q)) for q in range(n_classes)])
        np.testing.assert_allclose(bel[r], pl * others / nonempty, rtol=1e-9, atol=1e-300)
    np.testing.assert_array_equal(clf.predict(X_test), clf.classes_[np.argmax(proba, axis=1)])


def test_knn_contextual_few_classes_keep_the_dense_masses():
    rng = np.random.default_rng(9)
    y = np.arange(40) % 4
    X = rng.normal(size=(40, 2))
    clf = EvidentialKNNClassifier(5, gamma=1.0, discounting="contextual").fit(X, y)
    assert repr(clf.predict_mass(X[:3])).endswith("dense)")
    wide = EvidentialKNNClassifier(5, gamma=1.0, discounting="contextual")
    wide.fit(rng.normal(size=(90, 2)), np.arange(90) % 30)
    assert "weight-of-evidence form" in repr(wide.predict_mass(X[:1]))


@pytest.mark.parametrize("discounting", ["simple", "contextual"])
def test_knn_mass_labels_on_one_class_are_refused_like_crisp_ones(discounting):
    from dstk import Frame, MassFunction

    X = np.random.default_rng(10).normal(size=(6, 2))
    y = MassFunction.from_array(np.tile([0.0, 1.0], (6, 1)), Frame(["a"]))
    # before: fitted, and predicted probability 1 for the only class
    with pytest.raises(ValueError, match="frame of at least two classes"):
        EvidentialKNNClassifier(3, discounting=discounting).fit(X, y)
