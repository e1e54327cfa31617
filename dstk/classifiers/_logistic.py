"""Latent mass functions of logistic models: the weight-of-evidence view of Denoeux (2019)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import naming_argument
from ..core._dense import check_dense_size
from ..core._frame import Frame
from ..core._mass import MassFunction
from ..core._structured import WeightStorage
from ..exceptions import FrameTooLargeError
from ._base import require_sklearn

__all__ = ["logistic_evidence"]

_BLOCK = 2**22


def _last_layer(estimator: Any, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
    """Return ``(features, coefficients (J, K), intercepts (K,), final estimator)`` for X.

    Binary models (one score ``beta_0 + beta' x`` for ``classes_[1]``) are returned as two centred
    columns ``-beta / 2`` and ``beta / 2``, which give the same softmax.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import Pipeline

    final = estimator
    if isinstance(estimator, Pipeline):
        final = estimator.steps[-1][1]
        if len(estimator.steps) > 1:
            X = estimator[:-1].transform(X)
    X = np.asarray(X, dtype=np.float64)
    if isinstance(final, LogisticRegression):
        if not hasattr(final, "coef_"):
            raise ValueError("`estimator` is not fitted; fit the LogisticRegression first.")
        if getattr(final, "multi_class", "auto") == "ovr" and final.coef_.shape[0] > 1:
            raise ValueError(
                "`estimator` is a one-vs-rest LogisticRegression, whose probabilities are not a softmax of "
                "linear scores; refit it multinomial (the default for more than two classes)."
            )
        coef = final.coef_.T
        intercept = np.broadcast_to(np.asarray(final.intercept_, dtype=np.float64), (coef.shape[1],))
        features = X
    elif isinstance(final, MLPClassifier):
        if not hasattr(final, "coefs_"):
            raise ValueError("`estimator` is not fitted; fit the MLPClassifier first.")
        if final.out_activation_ not in ("logistic", "softmax") or (
            final.out_activation_ == "logistic" and final.coefs_[-1].shape[1] != 1
        ):
            raise ValueError(
                "`estimator` must be a binary or multi-class MLPClassifier (a multilabel network has no "
                "single mass function over the classes)."
            )
        from sklearn.neural_network._base import ACTIVATIONS

        features = X
        for weights, bias in zip(final.coefs_[:-1], final.intercepts_[:-1]):
            features = features @ weights + bias
            ACTIVATIONS[final.activation](features)  # in place
        coef = final.coefs_[-1]
        intercept = final.intercepts_[-1]
    else:
        raise TypeError(
            "`estimator` must be a fitted sklearn LogisticRegression or MLPClassifier (or a Pipeline ending "
            f"in one); got {type(final).__name__}."
        )
    if coef.shape[1] == 1:  # binary: the score of classes_[1]
        coef = np.hstack([-coef / 2.0, coef / 2.0])
        intercept = np.array([-intercept[0] / 2.0, intercept[0] / 2.0])
    return np.asarray(features, dtype=np.float64), np.asarray(coef, dtype=np.float64), intercept, final


def logistic_evidence(
    estimator: Any,
    X: ArrayLike,
    *,
    reference: ArrayLike | None = None,
    return_contributions: bool = False,
) -> MassFunction | tuple[MassFunction, np.ndarray]:
    """Latent mass function of a logistic model: the evidence behind each predicted probability.

    A multinomial logistic regression (or the output layer of a neural network) with scores
    ``beta_0k + sum_j beta_jk x_j`` is the normalised combination, by Dempster's rule, of simple mass
    functions: feature ``j`` gives weight of evidence ``w_jk = beta_jk x_j + alpha_jk`` to class ``k``
    when positive (a simple mass function focused on ``{w_k}``) and ``-w_jk`` against it when negative
    (focused on the complement of ``{w_k}``).  The plausibility transform of the combination is the
    softmax of the scores, so it equals ``estimator.predict_proba(X)``, whatever the ``alpha_jk`` with
    ``sum_j alpha_jk = beta_0k``; the least-committed choice (minimal sum of squared weights over the
    reference samples) centres the coefficients over the classes and sets
    ``alpha_jk = beta_0k / J + (1/J) sum_l beta_lk mu_l - beta_jk mu_j`` with ``mu`` the reference means
    of the features (Denoeux 2019, Section 4, and evclass's ``calcAB``).  The masses show what the
    probabilities hide: ``m(Omega)`` (lack of evidence) and the conflict between features.

    Parameters
    ----------
    estimator : fitted LogisticRegression, MLPClassifier or Pipeline ending in one
        The model (scikit-learn).  For a Pipeline, ``X`` goes through the preceding steps; for an
        MLPClassifier, the features are the activations of the last hidden layer.
    X : array_like of shape (n_samples, n_features)
        Samples (what ``estimator.predict_proba`` takes).
    reference : array_like of shape (n_reference, n_features), optional
        Samples (usually the training set) whose feature means ``mu`` fix the least-committed
        ``alpha_jk``.  By default ``mu = 0``, the least-committed choice for centred features (e.g. after
        a ``StandardScaler``).
    return_contributions : bool, default=False
        Also return the weights of evidence of each feature.

    Returns
    -------
    MassFunction
        Batch shape ``(n_samples,)`` on ``Frame(estimator.classes_)``, normalised.  Dense when its
        ``2**n_classes`` masses a sample fit the memory limit; otherwise held by its weights of evidence
        ``w_k^+`` and ``w_k^-`` (any number of classes), which give the mass, belief, plausibility and
        commonality of any set, the contour function, the pignistic transform, decisions and Dempster's
        combination exactly, without listing the focal sets.
    contributions : ndarray of shape (n_samples, n_features, n_classes)
        Only with ``return_contributions``: ``w_jk``; its positive part is evidence for class ``k``, its
        negative part evidence against it.  (For a binary model the two columns are opposite: half of the
        binary weight ``beta_j x_j + alpha_j`` each.)

    Raises
    ------
    TypeError
        ``estimator`` of another kind.
    ValueError
        An unfitted estimator, or a one-vs-rest logistic regression.

    Notes
    -----
    The masses are computed in closed form on logarithms: with ``w_k^+`` and ``w_k^-`` the total positive
    and negative weights of class ``k``, the positive evidence gives (unnormalised)
    ``m+({w_k}) = (1 - e^{-w_k^+}) prod_{l != k} e^{-w_l^+}`` and ``m+(Omega) = prod_l e^{-w_l^+}``, the
    negative evidence ``m-(A) = prod_{k not in A} (1 - e^{-w_k^-}) prod_{k in A} e^{-w_k^-}``, and their
    conjunctive combination ``m({w_k}) = m+({w_k}) e^{-w_k^-} + m+(Omega) m-({w_k})``,
    ``m(A) = m+(Omega) m-(A)`` for ``|A| >= 2`` (Denoeux 2019, Section 3), before Dempster's normalisation.

    References
    ----------
    T. Denoeux (2019). Logistic regression, neural networks and Dempster-Shafer theory: a new perspective.
    Knowledge-Based Systems 176, 54-67.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> from dstk.classifiers import logistic_evidence
    >>> X, y = load_iris(return_X_y=True)
    >>> model = LogisticRegression(max_iter=1000).fit(X, y)
    >>> m = logistic_evidence(model, X[:3], reference=X)
    >>> bool(np.allclose(m.plausibility_transform(), model.predict_proba(X[:3])))
    True
    """
    require_sklearn("logistic_evidence")
    if not isinstance(return_contributions, (bool, np.bool_)):
        raise ValueError(f"`return_contributions` must be True or False; got {return_contributions!r}.")
    from sklearn.utils.validation import check_array, validate_data

    if not hasattr(estimator, "predict_proba"):
        raise TypeError(
            "`estimator` must be a fitted LogisticRegression, MLPClassifier or Pipeline ending in one; got "
            f"{type(estimator).__name__}."
        )

    def checked(data, name):
        array = check_array(data, dtype=None, input_name=name)
        # the feature count and names the model was fitted with (scikit-learn's checks and messages)
        with naming_argument(name):
            validate_data(estimator, data, reset=False, skip_check_array=True)
        return data if hasattr(data, "columns") else array  # a DataFrame keeps its names for a pipeline

    features, coef, intercept, final = _last_layer(estimator, checked(X, "X"))
    n_features, n_classes = coef.shape
    if reference is None:
        mu = np.zeros(n_features)
    else:
        reference_features = _last_layer(estimator, checked(reference, "reference"))[0]
        mu = reference_features.mean(axis=0)
    # least-committed parameters (centred over the classes)
    W = np.vstack([intercept[None, :], coef])
    W = W - W.mean(axis=1, keepdims=True)
    B = W[1:]
    BMU = B * mu[:, None]
    A = W[0][None, :] / n_features + BMU.mean(axis=0)[None, :] - BMU
    contributions = features[:, :, None] * B[None, :, :] + A[None, :, :]  # (n, J, K)
    positive = np.maximum(contributions, 0.0).sum(axis=1)
    negative = np.maximum(-contributions, 0.0).sum(axis=1)
    frame = Frame(list(final.classes_))
    try:
        check_dense_size(n_classes, features.shape[0], "the latent mass functions")
    except FrameTooLargeError:  # 2**n_classes masses a sample: the weights of evidence instead
        result = MassFunction._from_storage(
            WeightStorage.from_weights(positive, negative, normalized=True), frame
        )
    else:
        result = MassFunction._dense(_latent_masses(positive, negative), frame)
    if return_contributions:
        return result, contributions
    return result


def _latent_masses(positive: np.ndarray, negative: np.ndarray) -> np.ndarray:
    """Normalised masses of ``(+) {w_k}^{w_k^+} (+) (not w_k)^{w_k^-}`` in closed form, on logarithms."""
    n, n_classes = positive.shape
    size = 2**n_classes
    inside = ((np.arange(size)[:, None] >> np.arange(n_classes)) & 1).astype(bool)  # (2**K, K)
    cardinality = inside.sum(axis=1)
    out = np.empty((n, size))
    with np.errstate(divide="ignore"):
        log_keep = -negative  # log e^{-w^-}: class k stays possible
        log_drop = np.log(-np.expm1(-negative))  # log(1 - e^{-w^-}); -inf without negative evidence
        log_positive_part = np.log(-np.expm1(-positive))
    log_frame_plus = -positive.sum(axis=1)  # log m+(Omega)
    for start in range(0, n, max(1, _BLOCK // (size * n_classes))):
        rows = slice(start, min(n, start + max(1, _BLOCK // (size * n_classes))))
        log_minus = np.where(inside, log_keep[rows][:, None, :], log_drop[rows][:, None, :]).sum(axis=2)
        log_m = log_frame_plus[rows][:, None] + log_minus  # m+(Omega) m-(A)
        # singletons: add m+({w_k}) e^{-w_k^-}
        log_single_plus = log_positive_part[rows] + (log_frame_plus[rows][:, None] + positive[rows])
        singles = 1 << np.arange(n_classes)
        log_m[:, singles] = np.logaddexp(log_m[:, singles], log_single_plus + log_keep[rows])
        log_m[:, 0] = -np.inf  # Dempster's normalisation removes the conflict
        top = log_m.max(axis=1, keepdims=True)
        m = np.exp(log_m - top)
        out[rows] = m / m.sum(axis=1, keepdims=True)
    del cardinality
    return out
