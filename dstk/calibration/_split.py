"""The proper-training / calibration split of the inductive (split) predictors.

Split-conformal prediction (Vovk, Gammerman and Shafer 2005, ch. 4; Cella and
Martin 2022) and inductive Venn predictors (Vovk and Petej 2014) fit the
underlying classifier on one part of the data and calibrate on the other.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._estimator import check_meta_X, validate_features
from .._validation import check_consistent_length, check_labels, check_random_state

__all__ = ["fit_on_training_part", "class_probabilities"]


def fit_on_training_part(owner: Any, X: Any, y: Any) -> tuple[Any, np.ndarray, Any, np.ndarray]:
    """Fit ``owner.estimator`` on a proper training part; return what calibrates on the rest.

    Parameters
    ----------
    owner : estimator
        Has ``estimator`` (a scikit-learn classifier with ``predict_proba``,
        None for ``LogisticRegression(max_iter=1000)``, or a
        ``sklearn.frozen.FrozenEstimator``), ``calibration_size`` (a fraction
        in (0, 1)) and ``random_state``.  Its ``feature_names_in_`` and
        ``n_features_in_`` are recorded.
    X : array_like of shape (n_samples, n_features)
        Samples.
    y : array_like of shape (n_samples,)
        Class labels.

    Returns
    -------
    estimator : classifier
        The fitted classifier (a frozen one is used as given and all of
        ``X, y`` is calibration data).
    classes : ndarray of shape (n_classes,)
        The sorted labels (the frozen estimator's ``classes_``).
    X_calibration : array_like
        The calibration samples (a stratified ``calibration_size`` share).
    encoded : ndarray of int of shape (n_calibration,)
        The calibration labels as indices into ``classes``.

    Raises
    ------
    ValueError
        ``calibration_size`` outside (0, 1), mismatched lengths, fewer than
        two classes, an estimator without ``predict_proba`` or whose classes
        differ from the labels, or calibration labels that are not classes.

    References
    ----------
    V. Vovk, A. Gammerman and G. Shafer, Algorithmic Learning in a Random
    World, Springer (2005), ch. 4 (inductive conformal predictors).
    """
    from sklearn.base import clone
    from sklearn.model_selection import train_test_split

    try:
        from sklearn.frozen import FrozenEstimator
    except ImportError:  # pragma: no cover - scikit-learn < 1.6
        FrozenEstimator = None
    size = owner.calibration_size
    if not (isinstance(size, (float, np.floating)) and 0.0 < size < 1.0):
        raise ValueError(f"`calibration_size` must be a fraction in (0, 1); got {size!r}.")
    X = check_meta_X(X)  # lists and array-likes as arrays; sparse and data frames unchanged
    check_labels(y, "y")  # None, missing, complex, continuous labels: scikit-learn's messages
    y = np.asarray(y)
    if y.ndim == 2:  # a column vector (check_labels warned)
        y = y[:, 0]
    validate_features(owner, X, reset=True)
    check_consistent_length(X, y, names=("X", "y"))
    estimator = owner.estimator
    if estimator is None:
        from sklearn.linear_model import LogisticRegression

        estimator = LogisticRegression(max_iter=1000)
    if FrozenEstimator is not None and isinstance(estimator, FrozenEstimator):
        fitted, classes = estimator, np.asarray(estimator.classes_)
        X_calibration, y_calibration = X, y
    else:
        classes, _ = check_labels(y, "y")
        X_train, X_calibration, y_train, y_calibration = train_test_split(
            X, y, test_size=size, stratify=y, random_state=check_random_state(owner.random_state)
        )
        with _naming_x():
            fitted = clone(estimator).fit(X_train, y_train)
    if not hasattr(fitted, "predict_proba"):
        raise ValueError(
            f"The estimator {type(fitted).__name__} has no predict_proba; {type(owner).__name__} needs class "
            "probabilities (wrap it, e.g. in sklearn.calibration.CalibratedClassifierCV)."
        )
    if not np.array_equal(np.asarray(fitted.classes_), classes):
        raise ValueError(
            "The estimator's classes_ differ from the labels seen in fit; train it on every class."
        )
    index = {label: i for i, label in enumerate(classes.tolist())}
    try:
        encoded = np.array([index[label] for label in np.asarray(y_calibration).tolist()], dtype=np.intp)
    except KeyError as exc:
        raise ValueError(f"The calibration label {exc.args[0]!r} is not a class of the estimator.") from None
    return fitted, classes, X_calibration, encoded


def class_probabilities(estimator: Any, X: Any, n_classes: int) -> np.ndarray:
    """``estimator.predict_proba(X)`` as float64, checked to have one column per class.

    Parameters
    ----------
    estimator : classifier
        A fitted classifier with ``predict_proba``.
    X : array_like
        Samples.
    n_classes : int
        The expected number of columns.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    with _naming_x():
        P = np.asarray(estimator.predict_proba(X), dtype=np.float64)
    if P.ndim != 2 or P.shape[1] != n_classes:
        raise ValueError(
            f"The estimator's predict_proba returned shape {P.shape}; expected one column per class ({n_classes})."
        )
    return P


class _naming_x:
    """Context manager: the wrapped estimator's conversion error for non-numeric samples names ``X``."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, error: BaseException | None, traceback: Any) -> None:
        if isinstance(error, ValueError) and "could not convert" in str(error) and "`X`" not in str(error):
            raise ValueError(
                f"`X` holds values that are not numbers ({error}); convert them to numbers, or give an "
                "estimator that takes them (e.g. a Pipeline starting with an encoder)."
            ) from error
