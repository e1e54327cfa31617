"""Binary tasks defined by a code matrix, and a wrapper that trains one binary classifier per task."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._estimator import (
    BaseEstimator,
    MetaEstimatorMixin,
    check_is_fitted,
    check_meta_X,
    check_sample_weight,
    clone_estimator,
    n_samples_of,
    validate_features,
)
from .._validation import check_labels
from ._codes import check_code_matrix, make_code

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["binary_tasks", "CodeMatrixClassifier"]


def binary_tasks(y_indices: ArrayLike, code: ArrayLike) -> list[tuple[np.ndarray, np.ndarray]]:
    """Rows and 0/1 targets of each binary task.

    Parameters
    ----------
    y_indices : array_like of shape (N,)
        Class indices ``0 .. K-1``.
    code : array_like of shape (K, B)
        Code matrix.

    Returns
    -------
    list of (rows, targets)
        For task ``b``: ``rows`` are the indices of samples whose class has
        ``psi[k, b] != 0`` (classes with ``psi = 0`` are excluded from the
        task, Gebel 2009, Sec. 5.2) and ``targets`` is 1 where
        ``psi[k, b] = +1``.

    Raises
    ------
    ValueError
        ``y_indices`` not a 1-D array of integers in ``0 .. K-1``, or an invalid code matrix.

    Notes
    -----
    Task ``b`` of a code matrix ``Psi`` (Gebel 2009, Sec. 5.2; Allwein et
    al. 2000) is trained on the samples of the classes with
    ``Psi[k, b] != 0``, with target 1 for the positive group
    ``K_b+ = {k: Psi[k, b] = +1}`` and 0 for ``K_b- = {k: Psi[k, b] = -1}``.

    References
    ----------
    M. Gebel, Multivariate calibration of classifier scores into the
    probability space, PhD thesis, TU Dortmund (2009), Sec. 5.2.
    E. L. Allwein, R. E. Schapire, Y. Singer, Reducing multiclass to binary:
    a unifying approach for margin classifiers, JMLR 1 (2000) 113-141.

    Examples
    --------
    >>> from dstk.multiclass._codes import all_pairs_code
    >>> [(r.tolist(), t.tolist()) for r, t in binary_tasks([0, 1, 2], all_pairs_code(3))][:1]
    [([0, 1], [1, 0])]
    """
    c = check_code_matrix(code)
    given = np.asarray(y_indices)
    if given.ndim != 1 or given.dtype.kind not in "biuf":
        raise ValueError(
            f"`y_indices` must be a 1-D array of class indices 0..{c.shape[0] - 1}; got shape {given.shape} "
            f"and dtype {given.dtype}."
        )
    y = given.astype(np.intp)
    if given.size and (np.any(y != given) or y.min() < 0 or y.max() >= c.shape[0]):
        raise ValueError(
            f"`y_indices` must hold class indices 0..{c.shape[0] - 1} (rows of the code matrix); got values "
            f"from {given.min()} to {given.max()}. Encode labels first, e.g. "
            "`classes, y = np.unique(labels, return_inverse=True)`."
        )
    out = []
    for b in range(c.shape[1]):
        entry = c[y, b]
        rows = np.flatnonzero(entry != 0)
        out.append((rows, (entry[rows] == 1).astype(np.intp)))
    return out


class CodeMatrixClassifier(MetaEstimatorMixin, BaseEstimator):
    """Train one binary classifier per column of a code matrix; return the (N, B) task scores.

    Parameters
    ----------
    estimator : classifier
        A binary classifier with ``fit(X, y)`` and ``decision_function(X)``
        or ``predict_proba(X)``; cloned for every task.
    code : {"one_vs_rest", "all_pairs", "complete", "sparse"} or array_like of shape (K, B), default="one_vs_rest"
    random_state : int, RandomState or None
        For the sparse random code.
    output : {"auto", "decision_function", "predict_proba"}, default="auto"
        Which output is used as the task score (``"auto"``: the decision
        function when available).

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    code_ : ndarray of shape (K, B)
    estimators_ : list of B fitted classifiers
    task_sizes_ : ndarray of shape (B,)
        Training samples per task (the ``n_b`` weights of coupling).

    Raises
    ------
    ValueError
        When a task has only one class among its training rows.

    Notes
    -----
    Gebel (2009), Sec. 5.2: samples of classes with ``psi[k, b] = 0`` are
    excluded from task ``b``; classes with ``+1`` form the positive group.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> model = CodeMatrixClassifier(LogisticRegression(max_iter=500), code="all_pairs").fit(X, y)
    >>> model.decision_function(X[:2]).shape
    (2, 3)
    """

    def __init__(
        self,
        estimator: Any,
        *,
        code: str | ArrayLike = "one_vs_rest",
        random_state: int | np.random.RandomState | None = None,
        output: str = "auto",
    ):
        self.estimator = estimator
        self.code = code
        self.random_state = random_state
        self.output = output

    def fit(self, X: Any, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit one clone of ``estimator`` per task.

        Parameters
        ----------
        X : array_like of shape (N, n_features)
            Training inputs (a pandas DataFrame is indexed by rows as is).
        y : array_like of shape (N,)
            Class labels (K >= 2 distinct values).
        sample_weight : array_like of shape (N,), optional
            Passed on to each task's ``fit``, restricted to the task's rows.

        Returns
        -------
        CodeMatrixClassifier
            ``self``, fitted.

        Raises
        ------
        ValueError
            On mismatched lengths, an unknown ``output``, an invalid code, or
            a task with a single class among its training rows.
        """
        from sklearn.utils import _safe_indexing

        classes, y_idx = check_labels(y)
        X = check_meta_X(X)
        if n_samples_of(X) != y_idx.shape[0]:
            raise ValueError(f"`X` has {n_samples_of(X)} rows but `y` has {y_idx.shape[0]} labels.")
        weights = check_sample_weight(sample_weight, y_idx.shape[0])
        if self.output not in ("auto", "decision_function", "predict_proba"):
            raise ValueError(
                f"`output` must be 'auto', 'decision_function' or 'predict_proba'; got {self.output!r}."
            )
        self.code_ = make_code(self.code, classes.size, random_state=self.random_state)
        self.classes_ = classes
        self.estimators_ = []
        sizes = []
        for b, (rows, target) in enumerate(binary_tasks(y_idx, self.code_)):
            if np.unique(target).size < 2:
                raise ValueError(
                    f"Binary task {b} has a single class among its {rows.size} training rows; every class of the "
                    "code matrix must occur in the training data."
                )
            model = clone_estimator(self.estimator)
            if weights is None:
                model.fit(_safe_indexing(X, rows), target)
            else:
                model.fit(_safe_indexing(X, rows), target, sample_weight=weights[rows])
            self.estimators_.append(model)
            sizes.append(rows.size)
        self.task_sizes_ = np.asarray(sizes, dtype=np.float64)
        validate_features(self, X, reset=True)
        return self

    def _score(self, model, X):
        use_decision = self.output == "decision_function" or (
            self.output == "auto" and hasattr(model, "decision_function")
        )
        if use_decision:
            return np.asarray(model.decision_function(X), dtype=np.float64).ravel()
        return np.asarray(model.predict_proba(X), dtype=np.float64)[:, 1]

    def decision_function(self, X: Any) -> np.ndarray:
        """Task scores, shape ``(N, B)``; column ``b`` favours the positive group of task ``b``.

        Parameters
        ----------
        X : array_like of shape (N, n_features)
            Inputs.

        Returns
        -------
        ndarray of shape (N, B)
            The decision function (or positive-class probability, see
            ``output``) of each task's classifier.
        """
        check_is_fitted(self, "estimators_")
        X = check_meta_X(X)
        validate_features(self, X, reset=False)
        return np.column_stack([self._score(m, X) for m in self.estimators_])
