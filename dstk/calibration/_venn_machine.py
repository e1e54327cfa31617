"""Venn machine with the score-interval (K_T-SVM) taxonomy of Zhou et al. (2011)."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .._validation import check_binary_labels, check_consistent_length, check_scores
from ._base import BinaryCalibrator

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["VennMachineCalibrator", "svm_taxonomy_edges", "K_T_SVM_EDGES", "venn_machine_transductive"]


def svm_taxonomy_edges(n_categories: int, *, width: float = 0.5) -> np.ndarray:
    """Inner edges of the K_T-SVM taxonomy: K_T intervals of the decision value.

    Zhou et al. (2011), Section 3.1: for K_T = 8 the categories are
    (-inf, -1.5], (-1.5, -1], ..., (1, 1.5], (1.5, inf); the inner edges are
    spaced ``width`` apart and centred on 0.

    Parameters
    ----------
    n_categories : int
        K_T >= 2.
    width : float, default 0.5
        Width of the finite intervals (positive).

    Returns
    -------
    ndarray of shape (K_T - 1,)
        Increasing inner edges; category j is the right-closed interval
        ``(edges[j - 1], edges[j]]``, the first and last ones unbounded.

    Raises
    ------
    ValueError
        Fewer than 2 categories or a width that is not positive.

    Notes
    -----
    The edges are e_j = width * (j - (K_T - 2) / 2) for j = 0, ..., K_T - 2
    (Zhou et al. 2011, Section 3.1, which uses K_T = 6 and 8 with width 0.5).

    References
    ----------
    Zhou, C., Nouretdinov, I., Luo, Z. et al. (2011). A comparison of Venn
    machine with Platt's method in probabilistic outputs. AIAI 2011, 483-490.

    Examples
    --------
    >>> svm_taxonomy_edges(8).tolist()
    [-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5]
    >>> svm_taxonomy_edges(6).tolist()
    [-1.0, -0.5, 0.0, 0.5, 1.0]
    """
    if isinstance(n_categories, (bool, np.bool_)) or not isinstance(n_categories, numbers.Integral):
        raise ValueError(
            f"`n_categories` must be a whole number of categories (an int >= 2); got {n_categories!r}. "
            "Pass an int, or a 1-D array of inner edges."
        )
    n_categories = int(n_categories)
    if n_categories < 2:
        raise ValueError(f"A taxonomy needs at least 2 categories; got n_categories={n_categories}.")
    if not width > 0:
        raise ValueError(f"`width` must be positive; got {width!r}.")
    return width * (np.arange(n_categories - 1) - (n_categories - 2) / 2.0)


#: The 6-SVM and 8-SVM taxonomies of Zhou et al. (2011), Table 3.
K_T_SVM_EDGES = {6: svm_taxonomy_edges(6), 8: svm_taxonomy_edges(8)}


def _category(inner_edges, scores):
    # right-closed intervals (e_{j-1}, e_j] as in Zhou et al.'s example
    return np.searchsorted(inner_edges, scores, side="left")


class VennMachineCalibrator(BinaryCalibrator):
    """Inductive Venn machine on classifier scores with a score-interval taxonomy.

    The category of an example is the interval of its score (Zhou et al. 2011,
    K_T-SVM taxonomy).  For a test score in a category holding n calibration
    examples of which k are of class 1, trying label y for the test example
    gives the frequency of class 1 (k + y) / (n + 1); the two tries give the
    interval [k / (n + 1), (k + 1) / (n + 1)] of P(class 1), i.e. the mass
    function m({1}) = k/(n+1), m({0}) = (n-k)/(n+1), m({0,1}) = 1/(n+1):
    exactly Dempster's model (Xu et al. 2016, Eq. 24) on the category.

    Parameters
    ----------
    edges : array_like or int, default 6
        Inner edges of the score intervals, or the number of categories K_T of
        the K_T-SVM taxonomy (:func:`svm_taxonomy_edges`).

    Attributes
    ----------
    inner_edges_ : ndarray
    category_counts_ : ndarray of shape (K_T, 2)
        (k, n) per category.
    classes_ : ndarray of shape (2,)

    Raises
    ------
    ValueError
        Non-increasing or non-finite edges, fewer than 2 categories, bad scores
        or labels.

    Notes
    -----
    Venn machine (Vovk, Gammerman & Shafer 2005; Zhou et al. 2011, Eqs. 5-6):
    the predicted label is the column of highest quality (minimum frequency)
    and its probability interval is [min, max] of the column;
    :meth:`predict_venn` returns them.  For two labels the interval of the
    predicted label is [Bel, Pl] of that label under the mass function above.
    An empty category gives the vacuous mass function (k = n = 0: interval [0, 1]).
    The edges are fixed score values (the K_T-SVM taxonomy's are set for
    SVM decision values), so the calibrator depends on the scale of the
    scores: rescaled scores (e.g. ``1000 * s``) fall into other categories
    and get other probabilities.  Give ``edges`` on the scale of your scores.

    References
    ----------
    Vovk, V., Gammerman, A. and Shafer, G. (2005). Algorithmic Learning in a
    Random World. Springer.
    Zhou, C., Nouretdinov, I., Luo, Z. et al. (2011). A comparison of Venn
    machine with Platt's method in probabilistic outputs. AIAI 2011, 483-490.

    Examples
    --------
    >>> import numpy as np
    >>> scores = np.array([-2.0, -1.2, -0.2, 0.3, 0.7, 1.6, 2.2])
    >>> y = np.array([0, 0, 0, 1, 1, 1, 1])
    >>> venn = VennMachineCalibrator(edges=6).fit(scores, y)
    >>> labels, lower, upper = venn.predict_venn([2.0])
    >>> print(labels, lower.round(4), upper.round(4))
    [1] [0.6667] [1.]
    """

    def __init__(self, edges: int | ArrayLike = 6) -> None:
        self.edges = edges

    def _inner_edges(self):
        edges = self.edges
        if np.ndim(edges) == 0:
            return svm_taxonomy_edges(cast(int, edges))
        edges = np.asarray(edges, dtype=np.float64)
        if edges.ndim != 1 or edges.size < 1:
            raise ValueError(
                "`edges` must be a 1-D array of inner edges (at least one) or a number of categories."
            )
        if not np.all(np.isfinite(edges)) or np.any(np.diff(edges) <= 0):
            raise ValueError(f"`edges` must be finite and strictly increasing; got {edges.tolist()}.")
        return edges

    def _fit(self, scores, y01):
        inner = self._inner_edges()
        self.inner_edges_ = np.ascontiguousarray(inner)
        category = _category(inner, scores)
        n = np.bincount(category, minlength=inner.size + 1).astype(np.float64)
        k = np.bincount(category, weights=y01, minlength=inner.size + 1)
        self.category_counts_ = np.column_stack([k, n])

    def _mass_array(self, scores):
        k, n = self.category_counts_[_category(self.inner_edges_, scores)].T
        out = np.zeros((scores.shape[0], 4))
        out[:, 2] = k / (n + 1.0)
        out[:, 1] = (n - k) / (n + 1.0)
        out[:, 3] = 1.0 / (n + 1.0)
        return out

    def predict_venn(self, scores: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Venn-machine prediction: (label, lower, upper) of the predicted label's probability.

        The label is the column of highest quality (Zhou et al. 2011, Eq. 6); ties
        go to ``classes_[1]``.

        Parameters
        ----------
        scores : array_like of shape (n_samples,)
            Test scores.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Predicted labels from ``classes_``.
        lower, upper : ndarray of shape (n_samples,)
            Interval [min, max] of the probability of the predicted label over
            the tried labels (Eq. 6), i.e. its [Bel, Pl].
        """
        masses = self._predict_mass_array(scores)
        positive_low = masses[:, 2]
        negative_low = masses[:, 1]
        choose_positive = positive_low >= negative_low
        lower = np.where(choose_positive, positive_low, negative_low)
        upper = lower + masses[:, 3]
        return self.classes_[choose_positive.astype(np.intp)], lower, upper


def venn_machine_transductive(
    estimator: Any, X_train: ArrayLike, y_train: ArrayLike, X_test: ArrayLike, *, edges: int | ArrayLike = 6
) -> np.ndarray:
    """Transductive Venn machine with the K_T-SVM taxonomy (Zhou et al. 2011, Section 3).

    For each test object and each tried label y, the classifier is refitted on
    the training set plus (x, y); the categories are the intervals of the
    decision values of all n + 1 examples; the frequency of class 1 in the
    test example's category gives p_y.  Costly (two refits per test object):
    meant for leave-one-out experiments such as Zhou et al.'s Table 4.

    Parameters
    ----------
    estimator : scikit-learn classifier with ``decision_function``
        Cloned and refitted (e.g. ``SVC(kernel="linear", C=1)``).
    X_train : array_like of shape (n, d)
    y_train : array_like of shape (n,), two classes
    X_test : array_like of shape (m, d)
    edges : int or array_like, default 6
        K_T or the inner edges of the taxonomy.

    Returns
    -------
    ndarray of shape (m, 4)
        Dense masses on {0, 1} (index 2 = class ``classes[1]``):
        m({1}) = min_y p_y(1), m({0}) = min_y p_y(0), m({0,1}) = the rest.

    Raises
    ------
    ValueError
        Labels not of two classes, inconsistent lengths, estimator without
        ``decision_function``.

    Notes
    -----
    With tried label y, p_y(1) is the frequency of class 1 in the test
    example's category tau (Zhou et al. 2011, Eq. 5); the interval of class 1
    is [min_y p_y(1), max_y p_y(1)] (Eq. 6), read as the mass function
    m({1}) = min_y p_y(1), m({0}) = 1 - max_y p_y(1), m({0, 1}) = the width.

    References
    ----------
    Zhou, C., Nouretdinov, I., Luo, Z. et al. (2011). A comparison of Venn
    machine with Platt's method in probabilistic outputs. AIAI 2011, 483-490.
    Vovk, V., Gammerman, A. and Shafer, G. (2005). Algorithmic Learning in a
    Random World. Springer.

    Examples
    --------
    Two categories, decision value <= 0 and > 0.  The test point at 2.6 falls
    in the positive category with the three positives; trying label 1 gives
    p_1(1) = 4/4, trying label 0 gives p_0(1) = 3/4, so the interval of class
    1 is [3/4, 1].

    >>> import numpy as np
    >>> from sklearn.svm import SVC
    >>> X = np.array([[-3.0], [-2.2], [-1.3], [1.3], [2.2], [3.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> venn_machine_transductive(SVC(kernel="linear"), X, y, [[2.6]], edges=[0.0])
    array([[0.  , 0.  , 0.75, 0.25]])
    """
    from sklearn.base import clone

    X_train = np.asarray(X_train, dtype=np.float64)
    X_test = np.asarray(X_test, dtype=np.float64)
    y_train = np.asarray(y_train)
    check_consistent_length(X_train, y_train, names=["X_train", "y_train"])
    classes, y01 = check_binary_labels(y_train, "y_train")
    if not hasattr(estimator, "decision_function"):
        raise ValueError("The K_T-SVM taxonomy needs an estimator with decision_function (e.g. SVC).")
    inner = (
        svm_taxonomy_edges(cast(int, edges)) if np.ndim(edges) == 0 else np.asarray(edges, dtype=np.float64)
    )
    out = np.zeros((X_test.shape[0], 4))
    for i in range(X_test.shape[0]):
        X_ext = np.vstack([X_train, X_test[i : i + 1]])
        frequency = np.zeros(2)  # P(class 1) under tried label 0 and 1
        for tried in (0, 1):
            y_ext = np.append(y01, tried)
            model = clone(estimator).fit(X_ext, classes[y_ext])
            values = check_scores(model.decision_function(X_ext), "decision values")
            category = _category(inner, values)
            same = category == category[-1]
            frequency[tried] = y_ext[same].mean()
        low, high = frequency.min(), frequency.max()
        out[i, 2] = low
        out[i, 1] = 1.0 - high
        out[i, 3] = high - low
    return out
