"""Leaf counts extracted from scikit-learn forests against recounting by hand."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

from dstk.ensemble import combine_leaves, sklearn_leaf_counts


@pytest.fixture(scope="module")
def data():
    return load_breast_cancer(return_X_y=True)


def _by_hand(forest, X, X_train, y_train):
    out = np.zeros((X.shape[0], len(forest.estimators_), 2), dtype=np.int64)
    for t, tree in enumerate(forest.estimators_):
        leaf = tree.apply(X)
        train_leaf = tree.apply(X_train)
        for i in range(X.shape[0]):
            same = train_leaf == leaf[i]
            out[i, t] = [np.sum(same & (y_train == 0)), np.sum(same & (y_train == 1))]
    return out


def test_extra_trees_stored_counts_equal_recount(data):
    X, y = data
    forest = ExtraTreesClassifier(n_estimators=5, min_samples_leaf=3, random_state=0).fit(X, y)
    stored = sklearn_leaf_counts(forest, X[:40])
    assert stored.dtype == np.int64
    assert np.array_equal(stored, _by_hand(forest, X[:40], X, y))  # no bootstrap: identical
    assert np.array_equal(sklearn_leaf_counts(forest, X[:40], X, y), stored)
    # probability averaging of the counts is the forest's own predict_proba
    assert np.allclose(combine_leaves(stored, combiner="probability"), forest.predict_proba(X[:40])[:, 1])


def test_random_forest_bootstrap(data):
    X, y = data
    forest = RandomForestClassifier(n_estimators=4, random_state=0).fit(X, y)
    recount = sklearn_leaf_counts(forest, X[:30], X, y)
    assert np.array_equal(recount, _by_hand(forest, X[:30], X, y))
    in_bag = sklearn_leaf_counts(forest, X[:30])
    assert in_bag.shape == (30, 4, 2) and (in_bag.sum(axis=2) > 0).all()


def test_single_tree_and_errors(data):
    X, y = data
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    assert sklearn_leaf_counts(tree, X[:5]).shape == (5, 1, 2)
    with pytest.raises(ValueError, match="fitted"):
        sklearn_leaf_counts(DecisionTreeClassifier(), X)
    with pytest.raises(ValueError, match="both"):
        sklearn_leaf_counts(tree, X[:5], X_train=X)
    with pytest.raises(ValueError, match="labels"):
        sklearn_leaf_counts(tree, X[:5], X, y + 5)
