"""Leaf class counts of fitted scikit-learn tree ensembles.

scikit-learn is optional: it is never imported here, the function only uses
the fitted estimator's public attributes (``estimators_``, ``classes_``,
``apply``, ``tree_``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dstk._validation import check_consistent_length

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["sklearn_leaf_counts"]


def sklearn_leaf_counts(
    forest: Any, X: ArrayLike, X_train: ArrayLike | None = None, y_train: ArrayLike | None = None
) -> np.ndarray:
    """Class counts of the leaf reached by every sample in every tree of a scikit-learn forest.

    Parameters
    ----------
    forest : fitted RandomForestClassifier, ExtraTreesClassifier (or any
        scikit-learn tree ensemble classifier with ``estimators_``), or a
        single DecisionTreeClassifier / ExtraTreeClassifier
    X : array_like (n_samples, n_features)
        Samples to route.
    X_train, y_train : array_like, optional
        If given, the leaf counts are recounted from these samples (every
        training sample, also the out-of-bag ones of a bootstrap forest);
        ``y_train`` labels must be among ``forest.classes_``.  Otherwise the
        counts stored in the trees are used: weighted in-bag counts
        ``tree_.value * tree_.weighted_n_node_samples`` (with bootstrap,
        a sample drawn twice counts twice), rounded to integers when they are
        integers up to rounding.

    Returns
    -------
    ndarray of shape (n_samples, n_trees, n_classes)
        int64 when the counts are integers, else float64; classes in the
        order of ``forest.classes_``.  Feed it to
        :func:`dstk.ensemble.combine_leaves`.

    Raises
    ------
    ValueError
        An unfitted or multi-output estimator, or ``X_train`` without
        ``y_train`` (or labels not seen by the forest).

    Notes
    -----
    scikit-learn >= 1.4 stores class fractions in ``tree_.value`` for
    classifiers, so counts are fractions times the weighted node size.
    scikit-learn's totally random trees (``ExtraTreesClassifier(max_features=1)``)
    are not Busch et al.'s random decision trees: they stop at pure nodes and
    do not retry a split that violates ``min_samples_leaf``, so they grow far
    fewer leaves (scikit-learn's ``tree/_splitter.pyx`` and ``tree/_tree.pyx``).

    References
    ----------
    Busch, J., Kulessa, M., Loza Mencia, E. and Blockeel, H. (2021).
    Combining predictions under uncertainty: the case of random decision
    trees. Discovery Science 2021.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.ensemble import ExtraTreesClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> forest = ExtraTreesClassifier(n_estimators=5, random_state=0).fit(X, y)
    >>> sklearn_leaf_counts(forest, X[:3]).shape
    (3, 5, 2)
    """
    if not hasattr(forest, "classes_"):
        raise ValueError(
            f"{type(forest).__name__} is not a fitted scikit-learn classifier (no `classes_`); fit it first."
        )
    classes = np.asarray(forest.classes_)
    if classes.ndim != 1 or getattr(forest, "n_outputs_", 1) != 1:
        raise ValueError("Multi-output forests are not supported; fit one forest per output.")
    trees = list(getattr(forest, "estimators_", [forest]))
    if not trees or not all(hasattr(t, "tree_") for t in trees):
        raise ValueError(f"{type(forest).__name__} has no fitted decision trees in `estimators_`.")
    n_classes = classes.size
    X = np.asarray(X)
    leaves = np.column_stack([t.apply(X) for t in trees]) if len(trees) > 1 else trees[0].apply(X)[:, None]
    n_samples, n_trees = leaves.shape

    if (X_train is None) != (y_train is None):
        raise ValueError("Pass both `X_train` and `y_train` to recount the leaves, or neither.")
    tables = []
    if X_train is not None:
        y_train = np.asarray(y_train)
        check_consistent_length(X_train, y_train, names=["X_train", "y_train"])
        position = np.searchsorted(classes, y_train)
        position = np.minimum(position, n_classes - 1)
        if not np.all(classes[position] == y_train):
            raise ValueError(f"`y_train` contains labels not in the forest's classes {classes.tolist()}.")
        train_leaves = [t.apply(np.asarray(X_train)) for t in trees]
        for t, tree in enumerate(trees):
            n_nodes = tree.tree_.node_count
            table = np.zeros((n_nodes, n_classes), dtype=np.int64)
            np.add.at(table, (train_leaves[t], position), 1)
            tables.append(table)
        dtype: type[np.generic] = np.int64
    else:
        integral = True
        for tree in trees:
            value = tree.tree_.value[:, 0, :]
            weights = tree.tree_.weighted_n_node_samples[:, None]
            if value.shape[1] != n_classes:
                raise ValueError("A tree's class count differs from the forest's classes_.")
            # fractions (scikit-learn >= 1.4) or raw weighted counts (older)
            row_sums = value.sum(axis=1, keepdims=True)
            fractions = np.all(np.abs(row_sums[weights[:, 0] > 0] - 1.0) < 1e-9)
            table = value * weights if fractions else value.astype(np.float64)
            rounded = np.round(table)
            if np.allclose(table, rounded, atol=1e-6):
                table = rounded
            else:
                integral = False
            tables.append(table)
        dtype = np.int64 if integral else np.float64
    out = np.empty((n_samples, n_trees, n_classes), dtype=dtype)
    for t in range(n_trees):
        out[:, t, :] = tables[t][leaves[:, t]]
    return out
