"""Split-conformal prediction as a consonant belief function (Cella & Martin 2022)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._estimator import (
    BaseEstimator,
    MassClassifierMixin,
    MetaEstimatorMixin,
    check_is_fitted,
    check_meta_X,
    labels_of_largest,
    validate_features,
)
from .._validation import as_float_array
from ._split import class_probabilities, fit_on_training_part

if TYPE_CHECKING:
    from ..core._mass import MassFunction

__all__ = ["ConformalBeliefClassifier", "conformal_p_values"]


def conformal_p_values(
    calibration_scores: ArrayLike,
    test_scores: ArrayLike,
    *,
    calibration_labels: ArrayLike | None = None,
) -> np.ndarray:
    """Split-conformal p-values of candidate labels from nonconformity scores.

    Parameters
    ----------
    calibration_scores : array_like of shape (n,)
        Nonconformity scores of the calibration samples at their true labels.
    test_scores : array_like of shape (m, K)
        Nonconformity score of every candidate label ``k`` of every test sample.
    calibration_labels : array_like of shape (n,), optional
        Class indices ``0 .. K-1`` of the calibration samples: Mondrian
        (label-conditional) p-values that compare candidate ``k`` only with
        calibration samples of class ``k``.

    Returns
    -------
    ndarray of shape (m, K)
        ``p(k) = (1 + #{i : s_i >= s_k}) / (1 + n)`` (over the calibration
        samples of class ``k`` when Mondrian).

    Raises
    ------
    ValueError
        On non-finite scores, mismatched shapes, ``calibration_labels`` that
        are not class indices ``0 .. K-1``, or (Mondrian) a class without
        calibration samples.

    Notes
    -----
    Vovk, Gammerman & Shafer (2005), Sec. 4.1 (inductive conformal
    predictors); the label-conditional (Mondrian) form is their Sec. 4.5.
    Counting by binary search on the sorted calibration scores costs
    ``O((n + m K) log n)``.

    Examples
    --------
    >>> conformal_p_values([0.1, 0.5, 0.9], [[0.2, 0.95]])
    array([[0.75, 0.25]])
    """
    cal = as_float_array(calibration_scores, "calibration_scores")
    test = as_float_array(test_scores, "test_scores")
    if cal.ndim != 1 or cal.size == 0:
        raise ValueError(f"`calibration_scores` must be a non-empty 1-D array; got shape {cal.shape}.")
    if test.ndim != 2:
        raise ValueError(f"`test_scores` must have shape (n_samples, n_classes); got shape {test.shape}.")
    for values, name in ((cal, "calibration_scores"), (test, "test_scores")):
        if values.size == 0:
            raise ValueError(f"`{name}` is empty; at least one sample is needed.")
        if not np.all(np.isfinite(values)):
            raise ValueError(
                f"`{name}` contains NaN or infinite nonconformity scores; remove or impute them."
            )
    if calibration_labels is None:
        ordered = np.sort(cal)
        at_least = ordered.size - np.searchsorted(ordered, test, side="left")
        return (1.0 + at_least) / (1.0 + ordered.size)
    labels = np.asarray(calibration_labels)
    if labels.shape != cal.shape:
        raise ValueError(
            f"`calibration_labels` must have one label per calibration score ({cal.size}); got shape {labels.shape}."
        )
    if labels.dtype.kind not in "iuf" or labels.dtype.kind == "b":
        raise ValueError(f"`calibration_labels` must be class indices 0 .. K-1; got dtype {labels.dtype}.")
    outside = ~np.isin(labels, np.arange(test.shape[1]))
    if np.any(outside):
        raise ValueError(
            f"`calibration_labels` must be class indices 0 .. {test.shape[1] - 1} (one per column of "
            f"`test_scores`); got {labels[outside][0]!r}."
        )
    out = np.empty_like(test)
    for k in range(test.shape[1]):
        ordered = np.sort(cal[labels == k])
        if ordered.size == 0:
            raise ValueError(
                f"Class index {k} has no calibration sample, so its Mondrian p-value is undefined; use a "
                "larger or stratified calibration set, or mondrian=False."
            )
        at_least = ordered.size - np.searchsorted(ordered, test[:, k], side="left")
        out[:, k] = (1.0 + at_least) / (1.0 + ordered.size)
    return out


class ConformalBeliefClassifier(MetaEstimatorMixin, MassClassifierMixin, BaseEstimator):
    """Split-conformal classifier whose p-values are the contour of a consonant belief function.

    Parameters
    ----------
    estimator : classifier with ``predict_proba``, default None
        The underlying classifier (default
        ``sklearn.linear_model.LogisticRegression(max_iter=1000)``).  Wrap a
        fitted one in ``sklearn.frozen.FrozenEstimator`` to use all of ``X, y``
        given to :meth:`fit` as calibration data.
    mondrian : bool, default=False
        Label-conditional (Mondrian) p-values: candidate ``y`` is compared
        with the calibration samples of class ``y`` only, which gives coverage
        ``>= 1 - alpha`` within every class (Vovk et al. 2005, Sec. 4.5).
    normalize : bool, default=False
        Divide the contour by its maximum, so that the most plausible label has
        plausibility 1 and no mass goes to the empty set (still valid: the
        plausibility of every label can only grow).  With False the contour is
        exactly the p-values and ``m(empty) = 1 - max_y p(y)``, the degree to
        which no label conforms to the calibration data.
    calibration_size : float, default=0.3
        Fraction of ``X`` held out (stratified) as the calibration set when the
        estimator is not frozen.
    random_state : int, RandomState or None, default None
        Seed of the training/calibration split.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    frame_ : Frame
        ``Frame(classes_)``.
    estimator_ : classifier
        The fitted underlying classifier.
    calibration_scores_ : ndarray of shape (n_calibration,)
        Nonconformity ``1 - p_hat(y_i | x_i)`` of the calibration samples.
    calibration_labels_ : ndarray of shape (n_calibration,)
        Their class indices.

    Notes
    -----
    For a test input ``x`` and a candidate label ``y`` the split-conformal
    p-value ``p_x(y) = (1 + #{i : s_i >= s(x, y)}) / (n + 1)`` with the
    nonconformity ``s(x, y) = 1 - p_hat(y | x)`` (the "LAC" score of Sadinle,
    Lei & Wasserman 2019) is the contour of the consonant plausibility
    ``Pl_x(A) = max_{y in A} p_x(y)``; Cella & Martin (2022, Theorem 1 and
    Sec. 4) show that it is valid: ``P(Pl_X(A) <= alpha) <= alpha`` whenever
    ``A`` contains the true label, for every ``alpha``.  The conformal set
    ``{y : pl(y) > alpha}`` is the usual split-conformal set (identical to
    MAPIE's ``"lac"`` and crepes' sets) and covers the true label with
    probability ``>= 1 - alpha`` (marginally, or per class with ``mondrian``).
    The probabilities of :meth:`predict_proba` are the pignistic transform of
    the consonant mass function.

    References
    ----------
    L. Cella, R. Martin, Validity, consonant plausibility measures, and
    conformal prediction, *Int. J. Approximate Reasoning* 141 (2022) 110-130.
    V. Vovk, A. Gammerman, G. Shafer, *Algorithmic Learning in a Random
    World*, Springer, 2005.
    M. Sadinle, J. Lei, L. Wasserman, Least ambiguous set-valued classifiers
    with bounded error levels, *JASA* 114 (2019) 223-234.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = ConformalBeliefClassifier(random_state=0).fit(X[::2], y[::2])
    >>> sets = clf.predict_set(X[1::2], alpha=0.1)
    >>> sets.shape
    (75, 3)
    >>> m = clf.predict_mass(X[1:2])
    >>> bool(np.allclose(m.contour(), clf.predict_contour(X[1:2])))
    True
    """

    _estimator_type = "classifier"

    def __init__(
        self,
        estimator: Any = None,
        *,
        mondrian: bool = False,
        normalize: bool = False,
        calibration_size: float = 0.3,
        random_state: Any = None,
    ) -> None:
        self.estimator = estimator
        self.mondrian = mondrian
        self.normalize = normalize
        self.calibration_size = calibration_size
        self.random_state = random_state

    def __sklearn_tags__(self):
        """scikit-learn tags: sparse input when the wrapped estimator (default LogisticRegression) takes it."""
        tags = super().__sklearn_tags__()
        if self.estimator is None:
            tags.input_tags.sparse = True  # LogisticRegression
        return tags

    def fit(self, X: Any, y: ArrayLike) -> ConformalBeliefClassifier:
        """Fit the classifier on a proper training part and the p-values on a calibration part.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Samples (all calibration data when the estimator is frozen).
        y : array_like of shape (n_samples,)
            Class labels.

        Returns
        -------
        ConformalBeliefClassifier
            ``self``, fitted.

        Raises
        ------
        ValueError
            ``calibration_size`` outside (0, 1), mismatched lengths, fewer than
            two classes, an estimator without ``predict_proba``, or (Mondrian)
            a class absent from the calibration set.
        """
        if not isinstance(self.mondrian, (bool, np.bool_)):
            raise ValueError(f"`mondrian` must be True or False; got {self.mondrian!r}.")
        self.estimator_, self.classes_, X_cal, encoded = fit_on_training_part(self, X, y)
        P = class_probabilities(self.estimator_, X_cal, self.classes_.size)
        self.calibration_scores_ = 1.0 - P[np.arange(encoded.size), encoded]
        self.calibration_labels_ = encoded
        if self.mondrian:
            missing = np.setdiff1d(np.arange(self.classes_.size), encoded)
            if missing.size:
                raise ValueError(
                    f"Classes {self.classes_[missing].tolist()} have no calibration sample, so their Mondrian "
                    "p-values are undefined; use a larger calibration set or mondrian=False."
                )
        from ..core._frame import Frame

        self.frame_ = Frame(tuple(self.classes_.tolist()))
        return self

    def predict_contour(self, X: Any) -> np.ndarray:
        """Conformal p-values of every class: the contour ``pl({y})``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            ``p_x(y)``, divided by ``max_y p_x(y)`` when ``normalize``.
        """
        check_is_fitted(self, "calibration_scores_")
        X = check_meta_X(X)
        validate_features(self, X, reset=False)
        scores = 1.0 - class_probabilities(self.estimator_, X, self.classes_.size)
        p = conformal_p_values(
            self.calibration_scores_,
            scores,
            calibration_labels=self.calibration_labels_ if self.mondrian else None,
        )
        if self.normalize:
            p = p / p.max(axis=1, keepdims=True)
        return p

    def predict_mass(self, X: Any) -> MassFunction:
        """Consonant mass functions on ``Frame(classes_)`` whose contour is the conformal p-values.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        MassFunction
            Batch shape ``(n_samples,)``; nested focal sets
            ``{y_(1)} ⊂ {y_(1), y_(2)} ⊂ ...`` by decreasing p-value with masses
            ``p_(i) - p_(i+1)``, and ``m(empty) = 1 - p_(1)`` (zero when
            ``normalize``).
        """
        from ..core._transforms import consonant_from_contour

        return consonant_from_contour(self.predict_contour(X), frame=self.frame_)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Pignistic probabilities of the consonant mass function of :meth:`predict_mass`.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            With the p-values sorted ``pi_(1) >= ... >= pi_(M)`` (``pi_(M+1) = 0``),
            ``BetP(y_(j)) = sum_{i >= j} (pi_(i) - pi_(i+1)) / (i pi_(1))``: the
            pignistic transform (Smets and Kennes 1994, Eq. 3.1) of the nested
            focal sets, computed from the sorted contour above 64 classes.
        """
        from ..core._frame import MAX_FRAME_SIZE

        check_is_fitted(self, "calibration_scores_")
        if self.classes_.size <= MAX_FRAME_SIZE:
            return super().predict_proba(X)
        return _consonant_pignistic(self.predict_contour(X))

    def predict_interval(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """Belief and plausibility of the classes under :meth:`predict_mass`.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        bel, pl : ndarray
            For two classes, of shape (n_samples,) for class ``classes_[1]``;
            otherwise of shape (n_samples, n_classes).  ``Pl({y})`` is the
            p-value of ``y`` and ``Bel({y}) = m({y})``, which only the most
            plausible class can have: ``pi_(1) - pi_(2)``.
        """
        from ..core._frame import MAX_FRAME_SIZE

        check_is_fitted(self, "calibration_scores_")
        if self.classes_.size <= MAX_FRAME_SIZE:
            return super().predict_interval(X)
        pl = self.predict_contour(X)
        order = np.argsort(-pl, axis=1, kind="stable")
        top = np.take_along_axis(pl, order[:, :2], axis=1)
        bel = np.zeros_like(pl)
        np.put_along_axis(bel, order[:, :1], top[:, :1] - top[:, 1:2], axis=1)
        return bel, pl

    def predict_set(self, X: Any, alpha: float) -> np.ndarray:
        """Conformal prediction sets ``{y : pl(y) > alpha}``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        alpha : float
            Miscoverage level in (0, 1); the sets cover the true label with
            probability at least ``1 - alpha``.

        Returns
        -------
        ndarray of bool, shape (n_samples, n_classes)
            Membership of each class (columns in the order of ``classes_``).

        Raises
        ------
        ValueError
            ``alpha`` outside (0, 1).
        """
        if not (isinstance(alpha, (float, int, np.floating)) and 0.0 < float(alpha) < 1.0):
            raise ValueError(f"`alpha` must be a miscoverage level in (0, 1), e.g. 0.1; got {alpha!r}.")
        return self.predict_contour(X) > float(alpha)

    def predict(self, X: Any) -> np.ndarray:
        """The most plausible class (largest p-value; the first on ties).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        values = self.predict_contour(X)  # checks that the estimator is fitted first
        return labels_of_largest(self.classes_, values)


def _consonant_pignistic(contour: np.ndarray) -> np.ndarray:
    """Pignistic transform of the consonant mass functions of the contours ``contour`` (n, M), rows > 0."""
    n_classes = contour.shape[1]
    order = np.argsort(-contour, axis=1, kind="stable")
    ordered = np.take_along_axis(contour, order, axis=1)
    following = np.concatenate([ordered[:, 1:], np.zeros((ordered.shape[0], 1))], axis=1)
    share = (ordered - following) / np.arange(1, n_classes + 1)  # m(A_i) / |A_i|
    tail = np.cumsum(share[:, ::-1], axis=1)[:, ::-1] / ordered[:, :1]
    out = np.empty_like(contour)
    np.put_along_axis(out, order, tail, axis=1)
    return out
