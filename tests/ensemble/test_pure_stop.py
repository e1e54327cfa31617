"""``stop_at_pure_nodes``: a node whose samples all have one class is a leaf."""

import numpy as np
import pytest
from sklearn.base import clone

import dstk.ensemble._random_trees as random_trees
from dstk.ensemble import RandomDecisionTreesClassifier


def _grown_trees(monkeypatch, model, X, y):
    """Fit ``model`` and return the node arrays of every tree as the kernel returned them."""
    grown = []
    build = random_trees._trees.build_tree

    def recording(*args):
        result = build(*args)
        grown.append(result)
        return result

    monkeypatch.setattr(random_trees._trees, "build_tree", recording)
    model.fit(X, y)
    return grown


def _data(seed, n=400, n_classes=3, noise=0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 3] = rng.integers(0, 3, n)  # tied values
    score = X[:, 0] + 0.5 * X[:, 1] + noise * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("min_samples_leaf", [1, 3, 10])
def test_no_internal_node_is_pure(monkeypatch, seed, min_samples_leaf):
    X, y = _data(seed)
    model = RandomDecisionTreesClassifier(
        5, min_samples_leaf=min_samples_leaf, stop_at_pure_nodes=True, random_state=seed
    )
    for feature, _, _, _, child_start, n_children, counts, _ in _grown_trees(monkeypatch, model, X, y):
        internal = feature >= 0
        assert internal.any()
        classes_present = (counts > 0).sum(axis=1)
        assert (classes_present[internal] >= 2).all()
        # every child's counts add up to its parent's
        for node in np.flatnonzero(internal):
            children = slice(child_start[node], child_start[node] + n_children[node])
            assert np.array_equal(counts[children].sum(axis=0), counts[node])
        # an impure leaf could not be split: fewer than 2 * min_samples_leaf samples, or every try failed
        # (the default trees split the same kinds of nodes, so there are pure leaves only here)
        leaves = ~internal
        assert (classes_present[leaves] >= 1).all()


def test_default_stops_at_pure_nodes_except_for_the_authors_trees(monkeypatch):
    """None (the default) stops at pure nodes; with compatibility="busch2021" it grows the authors' trees."""
    X, y = _data(0, noise=0.0, n_classes=2)

    def pure_internal(model):
        grown = _grown_trees(monkeypatch, model, X, y)
        return any(
            (((counts > 0).sum(axis=1) == 1) & (feature >= 0)).any() for feature, *_, counts, _ in grown
        )

    assert not pure_internal(RandomDecisionTreesClassifier(3, random_state=0))
    assert pure_internal(RandomDecisionTreesClassifier(3, stop_at_pure_nodes=False, random_state=0))
    assert pure_internal(RandomDecisionTreesClassifier(3, compatibility="busch2021", random_state=0))
    default = RandomDecisionTreesClassifier(3, random_state=0).fit(X, y)
    explicit = RandomDecisionTreesClassifier(3, stop_at_pure_nodes=True, random_state=0).fit(X, y)
    np.testing.assert_array_equal(default.apply(X), explicit.apply(X))
    authors = RandomDecisionTreesClassifier(3, compatibility="busch2021", random_state=0).fit(X, y)
    explicit = RandomDecisionTreesClassifier(
        3, stop_at_pure_nodes=False, compatibility="busch2021", random_state=0
    ).fit(X, y)
    np.testing.assert_array_equal(authors.apply(X), explicit.apply(X))


def test_one_class_region_is_one_leaf():
    # class 1 exactly where x > 0: with the purity stop, far fewer leaves than the default trees
    rng = np.random.default_rng(1)
    X = rng.normal(size=(2000, 2))
    y = (X[:, 0] > 0).astype(int)
    pure = RandomDecisionTreesClassifier(10, stop_at_pure_nodes=True, random_state=0).fit(X, y)
    split = RandomDecisionTreesClassifier(10, stop_at_pure_nodes=False, random_state=0).fit(X, y)
    assert pure.n_leaves_.sum() < split.n_leaves_.sum() / 5
    assert pure.score(X, y) == 1.0
    proba = pure.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0)
    mass = pure.predict_mass(X[:5])
    assert mass.frame.labels == (0, 1)


def test_single_class_per_sample_set_is_a_root_leaf():
    X = np.arange(20.0).reshape(10, 2)
    y = np.array([0] * 9 + [1])
    model = RandomDecisionTreesClassifier(4, stop_at_pure_nodes=True, min_samples_leaf=1, random_state=0)
    model.fit(X, y)
    assert (model.node_count_ >= 3).all()  # the root holds both classes, so it splits
    model.fit(X[:9], np.array([0] * 8 + [1]))
    assert np.array_equal(model.predict(X[:9]), model.predict(X[:9]))


def test_parameter_checks():
    X, y = _data(0)
    with pytest.raises(ValueError, match="stop_at_pure_nodes"):
        RandomDecisionTreesClassifier(2, stop_at_pure_nodes="yes").fit(X, y)
    with pytest.raises(ValueError, match="busch2021"):
        RandomDecisionTreesClassifier(2, stop_at_pure_nodes=True, compatibility="busch2021").fit(X, y)
    model = clone(RandomDecisionTreesClassifier(2, stop_at_pure_nodes=True))
    assert model.get_params()["stop_at_pure_nodes"] is True
    assert RandomDecisionTreesClassifier().get_params()["stop_at_pure_nodes"] is None
