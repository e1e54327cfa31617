"""Shared machinery of the evidential classifiers: input checks and the prediction methods.

Every classifier of :mod:`dstk.classifiers` computes, for a batch of samples,
a mass function on ``Frame(classes_)``; ``predict_proba`` (pignistic),
``predict`` (maximal pignistic probability), ``predict_interval`` (belief and
plausibility of the classes) and ``score`` (accuracy) derive from it through
:class:`dstk._estimator.MassClassifierMixin`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._estimator import BaseEstimator, MassClassifierMixin, check_is_fitted
from .._validation import naming_argument
from ..core._frame import MAX_FRAME_SIZE, Frame
from ..core._mass import MassFunction

__all__ = [
    "EvidentialClassifierBase",
    "require_sklearn",
    "validate_features",
    "validate_targets",
    "validate_target_column",
    "aggregated_rows",
    "kmeans_prototypes",
    "squared_distances",
    "unpack_parameters",
    "minimize_lbfgs",
]


def require_sklearn(what: str) -> None:
    """Raise a clear ImportError when scikit-learn is missing."""
    try:
        import sklearn  # noqa: F401
    except ImportError:  # pragma: no cover - scikit-learn is installed in the test environment
        raise ImportError(
            f"{what} needs scikit-learn (neighbour search, k-means, input checks); install it with "
            "`pip install 'dstk-belief[sklearn]'`."
        ) from None


def validate_features(estimator: Any, X: Any, *, reset: bool, numeric: bool = True) -> np.ndarray:
    """Return ``X`` as a finite float64 2-D array; record or check ``n_features_in_`` and ``feature_names_in_``.

    ``numeric=False`` keeps the data type (a meta-estimator whose classifiers take ``X`` as it is, e.g.
    a pipeline that encodes string columns): only the shape, the names and missing values are checked.
    scikit-learn's :func:`sklearn.utils.validation.validate_data` does the work, so the messages (feature
    names, feature count, NaN, sparse input, complex data) are scikit-learn's own.
    """
    from sklearn.utils.validation import validate_data

    with naming_argument("X"):
        return validate_data(
            estimator,
            X,
            reset=reset,
            dtype=np.float64 if numeric else None,
            accept_sparse=False,
            ensure_min_samples=1,
        )


def check_distance_scale(X: np.ndarray, what: str) -> None:
    """Refuse features whose squared distances overflow float64; warn when they underflow.

    ``what`` names the computation (e.g. ``"the prototype distances"``).  The
    largest squared distance between two samples is at most the sum over the
    features of their squared ranges; above ``1e300`` it overflows (NaN
    predictions); with every range below ``1e-150`` it underflows.
    """
    if X.size == 0:
        return
    span = np.max(X, axis=0) - np.min(X, axis=0)
    with np.errstate(over="ignore", under="ignore"):
        bound = float(np.sum(span**2))
    if not bound <= 1e300:
        raise ValueError(
            f"`X` spans up to {float(np.max(span)):.3g} in a feature: {what} (squared Euclidean) overflow "
            "float64. Standardise X first (e.g. sklearn.preprocessing.StandardScaler)."
        )
    if 0.0 < float(np.max(span)) < 1e-150:
        import warnings

        warnings.warn(
            f"`X` spans at most {float(np.max(span)):.3g} in a feature: {what} (squared Euclidean) underflow "
            "float64 and lose their precision. Standardise X first (e.g. sklearn.preprocessing.StandardScaler).",
            UserWarning,
            stacklevel=3,
        )


def check_loaded_arrays(
    estimator: Any,
    shapes: dict[str, tuple[int, ...]],
    *,
    positive: tuple[str, ...] = (),
    at_most_one: tuple[str, ...] = (),
) -> None:
    """Raise :class:`~dstk.exceptions.InvalidStateError` if a loaded estimator's arrays cannot come from ``fit``.

    Complements :func:`dstk._estimator.check_loaded_state` (NaN, negative
    scales, masses) with what it cannot know: the shape of each attribute of
    ``shapes`` (``-1``: any length), finite values in float arrays and
    scalars, ``positive`` attributes above 0 and ``at_most_one`` attributes at
    most 1.  Attributes absent (an unfitted estimator) are not checked.
    """
    from ..exceptions import InvalidStateError

    for attribute, shape in shapes.items():
        if attribute not in vars(estimator):
            continue
        try:
            value = np.asarray(getattr(estimator, attribute))
        except Exception:  # pragma: no cover - a ragged or otherwise broken object
            value = np.empty(0, dtype=object)
        problem = None
        if value.ndim != len(shape) or any(want not in (-1, got) for want, got in zip(shape, value.shape)):
            expected = (
                "("
                + ", ".join("any" if d == -1 else str(d) for d in shape)
                + ("," if len(shape) == 1 else "")
                + ")"
            )
            problem = f"has shape {value.shape} where the fit gives {expected}"
        elif value.dtype.kind not in "fiub":
            if attribute != "classes_":  # labels may be of any type
                problem = f"has data type {value.dtype} where numbers belong"
        elif value.dtype.kind != "f":
            pass
        elif not np.all(np.isfinite(value)):
            problem = "holds infinite or NaN values"
        elif attribute in positive and np.any(value <= 0):
            problem = "has entries <= 0 where positive scales belong"
        elif attribute in at_most_one and np.any(value > 1):
            problem = "has entries above 1 where weights in [0, 1] belong"
        if problem is not None:
            raise InvalidStateError(
                f"The loaded {type(estimator).__name__} is not a fitted state: its `{attribute}` {problem}. The "
                "file was modified or corrupted after saving; fit the estimator again or load a file you trust."
            )


def validate_target_column(y: Any, n_samples: int, *, what: str) -> np.ndarray:
    """Return ``y`` as a 1-D array of ``n_samples`` targets (``what`` names them in the error for None)."""
    from sklearn.utils.validation import column_or_1d

    if y is None:
        raise ValueError(f"This estimator requires y to be passed, but the target y is None. Pass {what}.")
    with naming_argument("y"):
        y = column_or_1d(y, warn=True)
    if y.shape[0] != n_samples:
        raise ValueError(
            f"Inputs have inconsistent numbers of samples: `X` has {n_samples}, `y` has {y.shape[0]}. "
            "They must be equal."
        )
    return y


def validate_targets(y: Any, n_samples: int) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(classes, encoded)`` for class labels ``y`` (scikit-learn's checks and messages)."""
    from sklearn.utils.multiclass import check_classification_targets

    y = validate_target_column(y, n_samples, what="the class labels")
    with naming_argument("y"):
        check_classification_targets(y)
    classes, encoded = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(
            f"`y` contains a single class ({classes[0]!r}), and one class is not enough: at least two classes "
            "are needed to fit. Check the split of your data (a stratified split keeps every class)."
        )
    return classes, encoded.astype(np.intp)


def aggregated_rows(
    X: np.ndarray, y: np.ndarray, sample_weight: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows ``(X, y)`` in sorted order, with the sum of their weights scaled to sum to one.

    Rows of weight zero are dropped and equal rows merged, their weights
    summed before scaling (integer weights stay exact), so a weight ``k``
    and ``k`` copies of a row give the same arrays bit for bit, in any row
    order: what the estimator fits from them (k-means seeds drawn from the
    rows included) is then the same, as scikit-learn's sample-weight
    equivalence asks.  Returns ``(X, y, weights)``.
    """
    from .._estimator import check_sample_weight

    weights = check_sample_weight(sample_weight, X.shape[0])
    if weights is None:
        weights = np.ones(X.shape[0])
    kept = weights > 0
    rows = np.column_stack([X[kept], np.asarray(y, dtype=np.float64)[kept]])
    distinct, inverse = np.unique(rows, axis=0, return_inverse=True)
    summed = np.bincount(inverse.ravel(), weights=weights[kept], minlength=distinct.shape[0])
    labels = distinct[:, -1]
    if np.issubdtype(np.asarray(y).dtype, np.integer):
        labels = labels.astype(np.asarray(y).dtype)
    return np.ascontiguousarray(distinct[:, :-1]), labels, summed / summed.sum()


def kmeans_prototypes(
    X: np.ndarray, n_prototypes: int, weights: np.ndarray, *, n_init: int, random_state: Any
) -> Any:
    """Weighted k-means of ``X`` into ``n_prototypes`` clusters (its warnings silenced): the prototypes' start.

    The fitted :class:`sklearn.cluster.KMeans` is returned (``cluster_centers_``, ``labels_``).
    """
    import warnings

    from sklearn.cluster import KMeans

    kmeans = KMeans(n_clusters=n_prototypes, n_init=n_init, random_state=random_state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kmeans.fit(X, sample_weight=weights)
    return kmeans


def squared_distances(X: np.ndarray, prototypes: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances ``(n_samples, n_prototypes)``, clipped at 0 against rounding."""
    squared = (X**2).sum(axis=1)[:, None] - 2.0 * X @ prototypes.T + (prototypes**2).sum(axis=1)[None, :]
    return np.maximum(squared, 0.0)


def unpack_parameters(theta: np.ndarray, shapes: list[tuple[int, ...]]) -> list[np.ndarray]:
    """Split the flat parameter vector ``theta`` into arrays of the given shapes (views, in order)."""
    out, start = [], 0
    for shape in shapes:
        size = int(np.prod(shape))
        out.append(theta[start : start + size].reshape(shape))
        start += size
    return out


def minimize_lbfgs(
    objective: Any, theta0: np.ndarray, *, max_iter: int, tol: float, name: str, bounds: Any = None
) -> Any:
    """Minimise ``objective`` (returning the value and the gradient) by L-BFGS-B, one BLAS thread.

    ``bounds`` (scipy's ``(low, high)`` pairs, one per parameter) can hold parameters at a value.

    Small matrix products: BLAS threads cost more in synchronisation than they save (4x on 2 cores).
    A :class:`~dstk.exceptions.ConvergenceWarning` naming the estimator ``name`` is raised (at the caller
    of ``fit``) when ``max_iter`` iterations end before convergence.  Returns scipy's result.
    """
    import warnings

    from scipy import optimize
    from threadpoolctl import threadpool_limits

    from ..exceptions import ConvergenceWarning

    with threadpool_limits(limits=1, user_api="blas"):
        result = optimize.minimize(
            objective,
            theta0,
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options={"maxiter": max_iter, "ftol": tol},
        )
    if not result.success and result.nit >= max_iter:
        warnings.warn(
            f"{name} stopped after max_iter={max_iter} iterations before convergence; increase `max_iter`.",
            ConvergenceWarning,
            stacklevel=3,
        )
    return result


def singleton_mass_function(singletons: np.ndarray, frame_mass: np.ndarray, frame: Frame) -> MassFunction:
    """A batch of mass functions whose focal sets are the singletons and the frame."""
    n = frame.n
    focal = [1 << c for c in range(n)] + [frame.full]
    values = np.concatenate([singletons, frame_mass[:, None]], axis=1)
    return MassFunction.from_focal_sets(focal, values, frame, validate=False)


class EvidentialClassifierBase(MassClassifierMixin, BaseEstimator):
    """Prediction methods shared by the evidential classifiers (subclasses define ``predict_mass``).

    A classifier whose mass functions have the singletons and the frame as
    only focal sets defines ``_singleton_form``; above 64 classes its
    :meth:`predict_proba` and :meth:`predict_interval` are then computed from
    these ``M + 1`` masses per sample (``BetP({c}) = m({c}) + m(Omega) / M``,
    ``Bel({c}) = m({c})``, ``Pl({c}) = m({c}) + m(Omega)``) without building
    the focal-set form; up to 64 classes they go through ``predict_mass`` as
    before, bit for bit.
    """

    def predict_mass(self, X: Any) -> MassFunction:  # pragma: no cover - overridden
        raise NotImplementedError

    def _singleton_form(self, X: Any) -> tuple[np.ndarray, np.ndarray] | None:
        """``(m({c}) (n, M), m(Omega) (n,))`` when the masses live on the singletons and the frame, else None."""
        return None

    def _wide_singleton_form(self, X: Any) -> tuple[np.ndarray, np.ndarray] | None:
        """:meth:`_singleton_form` above 64 classes (None up to 64 classes, or for other focal sets)."""
        self._check_fitted()
        if len(self.classes_) <= MAX_FRAME_SIZE:
            return None
        return self._singleton_form(X)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Pignistic probabilities of the classes.

        Parameters
        ----------
        X : array_like
            Samples, as accepted by ``predict_mass``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            ``BetP({c}) = sum over A containing c of m(A) / (|A| (1 - m(empty)))``
            (Smets and Kennes 1994, Eq. 3.1), columns in the order of
            ``classes_``.
        """
        form = self._wide_singleton_form(X)
        if form is None:
            return super().predict_proba(X)
        singletons, frame_mass = form
        return singletons + (frame_mass / singletons.shape[1])[:, None]

    def predict_interval(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """Belief and plausibility of the classes.

        Parameters
        ----------
        X : array_like
            Samples, as accepted by ``predict_mass``.

        Returns
        -------
        bel, pl : ndarray
            For two classes, of shape (n_samples,) for class ``classes_[1]``;
            otherwise of shape (n_samples, n_classes): ``Bel({c}) = m({c})``
            and ``Pl({c}) = sum over A containing c of m(A)`` (Shafer 1976),
            with ``Bel({c}) <= Pl({c}) <= 1``.
        """
        form = self._wide_singleton_form(X)
        if form is None:
            return super().predict_interval(X)
        singletons, frame_mass = form
        return singletons, np.minimum(singletons + frame_mass[:, None], 1.0)

    def _check_fitted(self) -> None:
        check_is_fitted(self, "classes_")

    def __sklearn_tags__(self):  # pragma: no cover - only used when sklearn is present
        tags = super().__sklearn_tags__()
        if tags is not None:
            tags.input_tags.allow_nan = False
        return tags
