"""The estimator base shared by every dstk estimator.

Where scikit-learn is installed, :class:`BaseEstimator` inherits from
:class:`sklearn.base.BaseEstimator` (tags, the HTML representation, metadata
routing and scikit-learn's own checks come with it; this module then imports
``sklearn.base``).  scikit-learn is an optional dependency, so without it the
class implements the same contract itself (``get_params`` / ``set_params``
from the ``__init__`` signature, explicit keyword parameters stored
unchanged, fitted attributes ending in ``_``).  ``import dstk`` and the lazy
subpackages never import this module by themselves.
"""

from __future__ import annotations

import copy
import importlib.util
import inspect
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._validation import first_indices, naming_argument
from .exceptions import InvalidMassError, InvalidStateError, NotFittedError

__all__ = [
    "BaseEstimator",
    "ClassifierMixin",
    "MassClassifierMixin",
    "MetaEstimatorMixin",
    "check_is_fitted",
    "check_loaded_state",
    "check_meta_X",
    "check_sample_weight",
    "n_samples_of",
    "feature_names_of",
    "frequency_weights",
    "labels_of_largest",
    "pignistic_rows",
    "singleton_interval",
    "validate_features",
    "validate_score_matrix",
]


if importlib.util.find_spec("sklearn") is not None:
    from sklearn.base import BaseEstimator as _ScikitLearnBase
else:  # pragma: no cover - scikit-learn is installed in the test environment
    _ScikitLearnBase = object  # type: ignore[assignment,misc]

#: whether dstk's estimators inherit from :class:`sklearn.base.BaseEstimator`
INHERITS_SCIKIT_LEARN = _ScikitLearnBase is not object


class _OwnParameters:
    """``get_params`` / ``set_params`` / ``repr`` without scikit-learn (its contract, its spelling)."""

    @classmethod
    def _get_param_names(cls):
        init = cls.__init__
        if init is object.__init__:
            return []
        signature = inspect.signature(init)
        names = []
        for p in signature.parameters.values():
            if p.name == "self":
                continue
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise RuntimeError(
                    f"{cls.__name__}.__init__ must take explicit keyword parameters, "
                    f"not *args or **kwargs ({p})."
                )
            names.append(p.name)
        return sorted(names)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Return the estimator's parameters as a dict.

        Parameters
        ----------
        deep : bool, default=True
            Also return the parameters of nested estimators, as
            ``"<name>__<parameter>"``.

        Returns
        -------
        params : dict
        """
        out = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                for key, sub in value.get_params(deep=True).items():
                    out[f"{name}__{key}"] = sub
            out[name] = value
        return out

    def set_params(self, **params: Any) -> _OwnParameters:
        """Set parameters (``name=value`` or ``nested__name=value``); returns self."""
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested: dict[str, dict[str, object]] = {}
        for key, value in params.items():
            name, delim, sub = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {type(self).__name__}. "
                    f"Valid parameters are: {sorted(self._get_param_names())!r}."
                )
            if delim:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, sub_params in nested.items():
            valid[name].set_params(**sub_params)
        return self

    def __repr__(self):
        params = self.get_params(deep=False)
        defaults = {
            p.name: p.default
            for p in inspect.signature(type(self).__init__).parameters.values()
            if p.name != "self"
        }
        shown = []
        for name in sorted(params):
            value = params[name]
            default = defaults.get(name, inspect.Parameter.empty)
            try:
                same = value is default or (type(value) is type(default) and value == default)
            except Exception:  # arrays and other objects without a plain ==
                same = False
            if not same:
                shown.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"


class BaseEstimator(*((_ScikitLearnBase,) if INHERITS_SCIKIT_LEARN else (_OwnParameters,))):  # type: ignore[misc]
    """Parameter handling shared by every dstk estimator (scikit-learn's base where installed)."""

    def __sklearn_tags__(self):
        """scikit-learn's estimator tags (called by scikit-learn only, so it may import it)."""
        from sklearn.utils import ClassifierTags, RegressorTags, Tags, TargetTags

        kind = getattr(self, "_estimator_type", None)
        if INHERITS_SCIKIT_LEARN:
            tags = super().__sklearn_tags__()  # type: ignore[misc]
        else:  # pragma: no cover - scikit-learn's tags need scikit-learn
            tags = Tags(estimator_type=None, target_tags=TargetTags(required=True))
        tags.estimator_type = kind if kind in ("classifier", "regressor") else None
        tags.target_tags.required = True
        tags.classifier_tags = ClassifierTags() if kind == "classifier" else None
        tags.regressor_tags = RegressorTags() if kind == "regressor" else None
        return tags

    def __sklearn_is_fitted__(self) -> bool:
        """Whether :meth:`fit` has run (any public attribute ending in ``_``)."""
        return any(k.endswith("_") and not k.startswith("_") for k in vars(self))

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a pickled or skops-loaded estimator, checking the fitted arrays it rebuilds.

        pickle and skops rebuild the fitted state without running ``fit``;
        :func:`check_loaded_state` refuses states that no fit produces (NaN
        in a fitted array, masses or probabilities that do not sum to one,
        negative counts or scales, unsorted edges), so that a tampered or
        corrupted file raises :class:`~dstk.exceptions.InvalidStateError`
        at load instead of predicting nonsense.
        """
        parent = getattr(super(), "__setstate__", None)
        if parent is not None:
            parent(state)
        else:  # pragma: no cover - scikit-learn's base defines it
            self.__dict__.update(state)
        check_loaded_state(self)


class MetaEstimatorMixin:
    """scikit-learn tags of an estimator wrapping ``self.estimator``: sparse input when it takes it."""

    def __sklearn_tags__(self):
        from sklearn.utils import get_tags

        tags = super().__sklearn_tags__()  # type: ignore[misc]
        wrapped = getattr(self, "estimator", None)
        if wrapped is not None:
            tags.input_tags.sparse = get_tags(wrapped).input_tags.sparse
        return tags


class ClassifierMixin:
    """``score`` as the mean accuracy, as :class:`sklearn.base.ClassifierMixin` (without importing it)."""

    _estimator_type = "classifier"

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy of :meth:`predict` on ``X`` against ``y``.

        The default score of scikit-learn classifiers, so that
        :func:`sklearn.model_selection.cross_val_score` and
        :class:`sklearn.model_selection.GridSearchCV` work with their default
        ``scoring``.

        Parameters
        ----------
        X : array_like
            Samples (or scores, for a calibrator), as accepted by ``predict``.
        y : array_like of shape (n_samples,)
            True labels.
        sample_weight : array_like of shape (n_samples,), optional
            Non-negative weights of the samples.

        Returns
        -------
        float
            ``sum_i w_i [predict(X)_i == y_i] / sum_i w_i``.
        """
        predicted = np.asarray(self.predict(X))  # type: ignore[attr-defined]
        truth = np.asarray(y)
        if truth.ndim == 2 and truth.shape[1] == 1:
            truth = truth[:, 0]
        if truth.shape != predicted.shape:
            raise ValueError(
                f"`y` has shape {truth.shape} but predict returned shape {predicted.shape}; "
                "pass one label per sample of X."
            )
        weights = check_sample_weight(sample_weight, predicted.shape[0])
        return float(np.average(predicted == truth, weights=weights))


class MassClassifierMixin(ClassifierMixin):
    """Predictions of a classifier derived from its ``predict_mass``.

    A classifier that defines ``classes_`` and ``predict_mass(X)`` (a batch
    of mass functions on ``Frame(classes_)``, one per sample) gets from this
    mixin :meth:`predict_proba` (pignistic probabilities), :meth:`predict`
    (labels by the decision criterion ``self.criterion`` when the estimator
    has that parameter, else the maximal pignistic probability),
    :meth:`predict_interval` (belief and plausibility of the classes),
    :meth:`predict_admissible` (the admissible classes, :func:`dstk.admissible_actions`) and
    ``score`` (mean accuracy).  Samples whose masses are NaN (the
    ``on_conflict="nan"`` policy) get NaN probabilities and bounds, and
    :meth:`predict` raises a clear error for them.

    References
    ----------
    P. Smets and R. Kennes, The transferable belief model, Artificial
    Intelligence 66 (1994) 191-234, Eq. (3.1) (pignistic transform).

    G. Shafer, A Mathematical Theory of Evidence, Princeton University Press
    (1976), ch. 2 (belief and plausibility).
    """

    classes_: np.ndarray

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
            ``classes_``; NaN rows for samples whose masses are NaN
            (``on_conflict="nan"``).
        """
        return pignistic_rows(self.predict_mass(X))  # type: ignore[attr-defined]

    def predict(self, X: Any) -> np.ndarray:
        """Labels chosen by the decision criterion.

        The criterion is the estimator's ``criterion`` parameter when it has
        one (see :func:`dstk.decide`), else ``"pignistic"``: the class of
        maximal pignistic probability, the first in ``classes_`` on ties.

        Parameters
        ----------
        X : array_like
            Samples, as accepted by ``predict_mass``.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.

        Raises
        ------
        ValueError
            For samples whose masses are NaN (``on_conflict="nan"``), which
            have no label.
        """
        criterion = getattr(self, "criterion", "pignistic")
        if criterion == "pignistic":
            probabilities = self.predict_proba(X)  # raises NotFittedError before classes_ is read
            return labels_of_largest(self.classes_, probabilities)
        mass = self.predict_mass(X)  # type: ignore[attr-defined]
        missing = np.isnan(mass.to_array("m")).any(axis=-1)
        if missing.any():
            labels_of_largest(self.classes_, np.where(missing[:, None], np.nan, 0.0))  # raises
        return self.classes_[np.asarray(mass.decide(criterion=criterion, return_indices=True))]

    def predict_admissible(
        self,
        X: Any,
        *,
        criterion: str = "interval_dominance",
        utility: Any = None,
        loss: Any = None,
    ) -> np.ndarray:
        """Set-valued predictions: the classes that a partial order leaves admissible.

        Parameters
        ----------
        X : array_like
            Samples, as accepted by ``predict_mass``.
        criterion : str, default "interval_dominance"
            One of ``dstk.core.ADMISSIBILITY_CRITERIA``: ``"interval_dominance"``,
            ``"maximality"``, ``"e_admissibility"``, ``"strong_dominance"`` or
            ``"weak_dominance"`` (see :func:`dstk.admissible_actions`).
        utility, loss : array_like of shape (n_classes, n_classes), optional
            ``utility[i, j]``: the utility of predicting ``classes_[i]`` when
            the truth is ``classes_[j]`` (or the loss, minus the utility);
            0-1 utility by default.

        Returns
        -------
        ndarray of shape (n_samples,), dtype object
            One frozenset of labels from ``classes_`` per sample; never empty.

        Raises
        ------
        ValueError
            An unknown criterion, a utility or loss matrix that is not
            ``(n_classes, n_classes)``, or samples whose masses are NaN
            (``on_conflict="nan"``), which have no prediction.

        References
        ----------
        M. C. M. Troffaes (2007). Decision making under uncertainty using
        imprecise probabilities. IJAR 45, 17-29.
        """
        mass = self.predict_mass(X)  # type: ignore[attr-defined]
        k = len(self.classes_)
        for name, matrix in (("utility", utility), ("loss", loss)):
            if matrix is not None and np.shape(matrix) != (k, k):
                raise ValueError(
                    f"`{name}` must be a square matrix over the classes, of shape ({k}, {k}) "
                    f"(row: the predicted class, column: the true class); got shape {np.shape(matrix)}."
                )
        missing = np.isnan(mass.to_array("m")).any(axis=-1)
        if missing.any():
            labels_of_largest(self.classes_, np.where(missing[:, None], np.nan, 0.0))  # raises
        masks = mass.admissible_actions(criterion, utility=utility, loss=loss)
        out = np.empty(masks.shape[0], dtype=object)
        for i, row in enumerate(masks):
            out[i] = frozenset(self.classes_[row].tolist())
        return out

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
            with ``Bel({c}) <= Pl({c}) <= 1`` exactly; NaN for samples whose
            masses are NaN.
        """
        return singleton_interval(self.predict_mass(X))  # type: ignore[attr-defined]


def pignistic_rows(mass: Any) -> np.ndarray:
    """BetP of every mass function of a batch; NaN mass functions (``on_conflict="nan"``) get NaN rows.

    Parameters
    ----------
    mass : MassFunction
        A batch of mass functions.

    Returns
    -------
    ndarray of shape ``mass.batch_shape + (n,)``
        ``mass.pignistic()`` where the masses are numbers, NaN elsewhere.
    """
    try:
        return mass.pignistic()
    except InvalidMassError:
        values = mass.to_array("m")
        missing = np.isnan(values).any(axis=-1)
        if not missing.any():
            raise
    out = np.full(values.shape[:-1] + (mass.frame.n,), np.nan)
    out[~missing] = type(mass).from_array(values[~missing], mass.frame, validate=False).pignistic()
    return out


def labels_of_largest(classes: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The class of the largest value per row (the first on ties); NaN rows raise a clear error.

    Parameters
    ----------
    classes : ndarray of shape (n_classes,)
        The labels, in the order of the columns of ``values``.
    values : ndarray of shape (n_samples, n_classes)
        Probabilities, plausibilities or any score per class.

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    missing = np.isnan(values).any(axis=-1)
    if missing.any():
        bad = np.flatnonzero(missing)
        raise ValueError(
            f"{bad.size} sample(s) have NaN masses from on_conflict='nan' (indices [{first_indices(bad)}]), and a NaN has "
            "no label: use predict_proba (NaN rows) or on_conflict='vacuous' to predict every sample."
        )
    return classes[np.argmax(values, axis=-1)]


def singleton_interval(mass: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(Bel({c}), Pl({c}))`` of every class (only ``c = classes_[1]`` for two classes).

    ``Pl({c})`` is the sum of the masses of the focal sets containing ``c``,
    then raised to at least ``Bel({c}) = m({c})`` and lowered to at most 1,
    so that rounding never gives ``pl < bel`` or ``pl > 1``.  NaN masses give
    NaN bounds.

    Parameters
    ----------
    mass : MassFunction
        A batch of mass functions (dense or focal-set storage).

    Returns
    -------
    bel, pl : ndarray
        Of shape ``batch_shape`` for a frame of two labels, else
        ``batch_shape + (n,)``.
    """
    n = mass.frame.n
    bel = np.stack([np.asarray(mass._bel_mask(1 << c)) for c in range(n)], axis=-1)
    pl = np.stack([np.asarray(mass._pl_mask(1 << c)) for c in range(n)], axis=-1)
    pl = np.where(np.isnan(pl), pl, np.minimum(np.maximum(pl, bel), 1.0))
    if n == 2:
        return bel[..., 1], pl[..., 1]
    return bel, pl


def check_sample_weight(sample_weight: Any, n_samples: int, name: str = "sample_weight") -> np.ndarray | None:
    """Validate sample weights: None, a scalar (same weight for all) or ``n_samples`` finite non-negative numbers.

    Returns None for None, else a float64 array of shape ``(n_samples,)``.
    """
    if sample_weight is None:
        return None
    weights = np.asarray(sample_weight)
    if (
        weights.dtype == object
        or np.iscomplexobj(weights)
        or not (np.issubdtype(weights.dtype, np.number) or weights.dtype == bool)
    ):
        raise ValueError(f"`{name}` must be real numbers; got dtype {weights.dtype}.")
    weights = weights.astype(np.float64)
    if weights.ndim == 0:
        weights = np.full(n_samples, float(weights))
    if weights.ndim != 1 or weights.shape[0] != n_samples:
        raise ValueError(
            f"`{name}` must have shape ({n_samples},), one weight per sample; got shape {weights.shape}."
        )
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError(f"`{name}` must be finite and non-negative; got values such as {weights.min()!r}.")
    if weights.sum() <= 0:
        raise ValueError(f"`{name}` sums to zero; at least one sample needs a positive weight.")
    return weights


def frequency_weights(sample_weight: Any, n_samples: int, owner: str) -> np.ndarray | None:
    """Whole-number sample weights as repeat counts (None for None).

    Mass functions built from counts treat each sample as one observation, so
    a weight ``w`` means "this sample observed ``w`` times" (a frequency
    weight): fitting with weights equals fitting on the data with each
    sample repeated ``w`` times, and only whole numbers have that meaning.
    """
    weights = check_sample_weight(sample_weight, n_samples)
    if weights is None:
        return None
    counts = np.round(weights)
    if not np.allclose(weights, counts, rtol=0.0, atol=1e-9):
        example = weights[np.flatnonzero(np.abs(weights - counts) > 1e-9)[0]]
        raise ValueError(
            f"{owner} takes whole-number `sample_weight` only (frequency weights: a weight w counts the "
            f"sample w times in the counts behind its mass functions); got {example!r}. Round the weights, "
            "or scale them to whole numbers that mean numbers of observations."
        )
    return counts.astype(np.intp)


def feature_names_of(X: Any) -> np.ndarray | None:
    """Column names of a data frame when they are all strings, else None (scikit-learn's rule).

    Works on any object with a ``columns`` attribute (pandas, polars, ...),
    without importing a data-frame library.
    """
    columns = getattr(X, "columns", None)
    if columns is None or isinstance(X, np.ndarray) or not hasattr(X, "shape"):
        return None
    names = np.asarray(list(columns), dtype=object)
    if names.size == 0:
        return None
    types = sorted({type(v).__qualname__ for v in names})
    if len(types) > 1 and "str" in types:
        raise TypeError(
            "Feature names are only supported if all input features have string names, "
            f"but your input has {types} as feature name / column name types. "
            "If you want feature names to be stored and validated, you must convert "
            "them all to strings, by using X.columns = X.columns.astype(str) for "
            "example. Otherwise you can remove feature / column names from your input "
            "data, or convert them all to a non-string data type."
        )
    if types == ["str"]:
        return names
    return None


def validate_score_matrix(estimator: Any, scores: Any, *, reset: bool, name: str = "scores") -> np.ndarray:
    """A 2-D float64 matrix of finite real scores; records (``reset=True``) or checks its columns.

    Data frames are accepted (their string column names become
    ``feature_names_in_``); sparse matrices, complex values, 1-D arrays, no
    rows or no columns, NaN and infinite values raise ``ValueError`` with
    scikit-learn's wording.
    """
    if hasattr(scores, "toarray") and hasattr(scores, "nnz"):
        raise TypeError(
            f"`{name}` is a sparse matrix, which {type(estimator).__name__} does not support; "
            f"pass a dense array ({name}.toarray())."
        )
    with naming_argument(name):
        arr = np.asarray(scores)
    if np.iscomplexobj(arr):
        raise ValueError(f"Complex data not supported: `{name}` must be real (got dtype {arr.dtype}).")
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as error:
            raise TypeError(
                f"`{name}` must be numeric; converting the object array failed: {error}."
            ) from None
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise ValueError(f"`{name}` must be numeric; got dtype {arr.dtype}.")
    if arr.ndim != 2:
        raise ValueError(
            f"`{name}` must be 2-D (n_samples, n_columns); got an array of shape {arr.shape}. "
            "Reshape your data: scores.reshape(-1, 1) for a single column or scores.reshape(1, -1) "
            "for a single sample."
        )
    if arr.shape[0] == 0:
        raise ValueError(f"`{name}` has 0 sample(s) (shape={arr.shape}) while a minimum of 1 is required.")
    if arr.shape[1] == 0:
        raise ValueError(f"0 feature(s) (shape={arr.shape}) while a minimum of 1 is required.")
    arr = arr.astype(np.float64)
    finite = np.isfinite(arr)
    if not finite.all():
        rows, cols = np.nonzero(~finite)
        raise ValueError(
            f"`{name}` contains {rows.size} NaN or infinite value(s) (first at row {rows[0]}, column "
            f"{cols[0]}); remove or impute them."
        )
    validate_features(estimator, scores, reset=reset, n_features=arr.shape[1])
    return arr


def check_meta_X(X: Any) -> Any:
    """``X`` for a meta-estimator: arrays, sparse matrices and data frames unchanged, lists as arrays.

    The wrapped estimator validates the values; this rejects only what no
    estimator should take: complex values and zero columns.
    """
    if isinstance(X, (list, tuple)) or (not hasattr(X, "shape") and hasattr(X, "__array__")):
        X = np.asarray(X)
    if hasattr(X, "tocsr") and getattr(X, "format", "csr") not in ("csr", "csc"):
        X = X.tocsr()  # COO, DIA, ... have no row indexing
    if hasattr(X, "dtypes") and not isinstance(X, np.ndarray):
        dtypes = list(np.atleast_1d(np.asarray(X.dtypes, dtype=object)))
    else:
        dtypes = [getattr(X, "dtype", None)]
    if any(d is not None and _is_numpy_dtype(d) and np.dtype(d).kind == "c" for d in dtypes):
        raise ValueError("Complex data not supported: `X` must be real (a complex dtype was given).")
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) == 2 and shape[1] == 0:
        raise ValueError(f"0 feature(s) (shape={tuple(shape)}) while a minimum of 1 is required.")
    return X


def _is_numpy_dtype(dtype):
    try:
        np.dtype(dtype)
    except TypeError:
        return False
    return True


def n_samples_of(X: Any) -> int:
    """Number of rows of an array, sparse matrix, data frame or sequence."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    return len(X)


def _list_names(names: list[Any]) -> str:
    shown = "".join(f"- {n}\n" for n in names[:5])
    return shown + ("- ...\n" if len(names) > 5 else "")


def validate_features(estimator: Any, X: Any, *, reset: bool, n_features: int | None = None) -> None:
    """Record (``reset=True``, in ``fit``) or check ``feature_names_in_`` and ``n_features_in_``.

    The rules and messages are scikit-learn's: columns given by name in
    ``fit`` must come back with the same names in the same order (a
    reordered or missing column raises ``ValueError`` instead of predicting
    on the wrong columns); a data frame after an array (or the reverse)
    gives a ``UserWarning``; a different number of columns raises.

    Parameters
    ----------
    estimator : object
        The estimator whose attributes are set or read.
    X : array_like or data frame
        The samples.
    reset : bool
        True in ``fit``; False in the prediction methods.
    n_features : int, optional
        Number of columns of ``X`` when it is already known (else read from
        ``X.shape[1]``; inputs without a 2-D shape are not counted).
    """
    if n_features is None:
        shape = getattr(X, "shape", None)
        if shape is not None and len(shape) == 2:
            n_features = int(shape[1])
    names = feature_names_of(X)
    name = type(estimator).__name__
    if reset:
        if names is not None:
            estimator.feature_names_in_ = names
        elif "feature_names_in_" in vars(estimator):
            del estimator.feature_names_in_
        if n_features is not None:
            estimator.n_features_in_ = n_features
        return
    fitted = getattr(estimator, "feature_names_in_", None)
    if names is not None and fitted is None:
        warnings.warn(f"X has feature names, but {name} was fitted without feature names", stacklevel=3)
    elif names is None and fitted is not None:
        warnings.warn(
            f"X does not have valid feature names, but {name} was fitted with feature names", stacklevel=3
        )
    elif names is not None and fitted is not None:
        if len(names) != len(fitted) or np.any(names != fitted):
            message = "The feature names should match those that were passed during fit.\n"
            unexpected = sorted(set(names) - set(fitted))
            missing = sorted(set(fitted) - set(names))
            if unexpected:
                message += "Feature names unseen at fit time:\n" + _list_names(unexpected)
            if missing:
                message += "Feature names seen at fit time, yet now missing:\n" + _list_names(missing)
            if not unexpected and not missing:
                message += "Feature names must be in the same order as they were in fit.\n"
            raise ValueError(message)
    expected = getattr(estimator, "n_features_in_", None)
    if expected is not None and n_features is not None and n_features != expected:
        raise ValueError(
            f"X has {n_features} features, but {name} is expecting {expected} features as input "
            "(it was fitted with them). Pass the same columns as in fit."
        )


def check_is_fitted(estimator: object, attributes: str | Sequence[str] | None = None) -> None:
    """Raise :class:`~dstk.exceptions.NotFittedError` unless ``estimator`` was fitted.

    Parameters
    ----------
    estimator : object
        The estimator to check.
    attributes : str or sequence of str, optional
        Fitted attributes that must exist.  By default any attribute whose
        name ends with ``_`` (and does not start with ``_``) counts.
    """
    if attributes is None:
        fitted = any(k.endswith("_") and not k.startswith("_") for k in vars(estimator))
    else:
        if isinstance(attributes, str):
            attributes = [attributes]
        fitted = all(hasattr(estimator, a) for a in attributes)
    if not fitted:
        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet. Call 'fit' with "
            "appropriate arguments before using this estimator."
        )


def clone_estimator(estimator: Any) -> Any:
    """An unfitted copy: :func:`sklearn.base.clone` when possible, else a rebuild from ``get_params``.

    Parameters
    ----------
    estimator : object
        A scikit-learn style estimator (or any object).

    Returns
    -------
    object
        A new estimator with the same constructor parameters and no fitted
        state; objects without ``get_params`` are deep-copied.

    Notes
    -----
    Every binary task of a code matrix (Gebel 2009, Sec. 5.2) needs its own
    unfitted copy of the base model or calibrator.  scikit-learn's ``clone``
    is used when scikit-learn is installed and accepts the object; dstk
    estimators (:class:`~dstk._estimator.BaseEstimator`) are rebuilt from
    ``get_params(deep=False)`` without it.

    References
    ----------
    M. Gebel, Multivariate calibration of classifier scores into the
    probability space, PhD thesis, TU Dortmund (2009), Sec. 5.2.

    Examples
    --------
    >>> from dstk.calibration.probabilistic import PlattCalibrator
    >>> original = PlattCalibrator()
    >>> copy_ = clone_estimator(original)
    >>> copy_ is original, type(copy_).__name__
    (False, 'PlattCalibrator')
    """
    if hasattr(estimator, "get_params"):
        try:
            from sklearn.base import clone

            return clone(estimator)
        except Exception:  # sklearn missing or a non-sklearn estimator
            return type(estimator)(**estimator.get_params(deep=False))
    return copy.deepcopy(estimator)


#: Fitted arrays that hold mass functions (rows over subsets) or probability distributions (rows over
#: classes): non-negative, each row summing to one.
_DISTRIBUTION_STATE = ("mass_table_", "membership_", "class_prior_")

#: Fitted arrays of counts, weights or scales: non-negative.
_NON_NEGATIVE_STATE = (
    "bin_counts_",
    "block_counts_",
    "category_counts_",
    "gamma_",
    "stds_",
    "std_",
    "precision_",
    "task_sizes_",
    "alpha_",
)

#: Fitted arrays of sorted edges or scores (along their first axis): non-decreasing.
_SORTED_STATE = (
    "edges_",
    "_inner_edges",
    "inner_edges_",
    "thresholds_",
    "unique_scores_",
    "knots_",
    "block_scores_",
    "_step_edges",
    "_linear_x",
)


def check_loaded_state(estimator: Any, tolerance: float = 1e-9) -> None:
    """Raise :class:`~dstk.exceptions.InvalidStateError` if a loaded estimator's fitted arrays are impossible.

    Checks every float array attribute of ``estimator`` (one pass each): no
    NaN; the rows of mass tables and probability distributions non-negative
    and summing to one (within ``tolerance``, ``dstk.core.MASS_TOLERANCE``); counts, weights and
    scales non-negative; edges and thresholds sorted.  Nested estimators are
    checked by their own ``__setstate__``, MassFunction attributes by theirs.
    """
    name = type(estimator).__name__
    for attribute, value in vars(estimator).items():
        if not isinstance(value, np.ndarray) or value.dtype.kind != "f":
            continue
        problem = None
        if np.isnan(value).any():
            problem = "holds NaN"
        elif attribute in _DISTRIBUTION_STATE and value.size:
            rows = value.reshape(-1, value.shape[-1])
            if not np.all(np.isfinite(rows)) or rows.min() < -tolerance:
                problem = "has negative or infinite entries where masses or probabilities belong"
            elif np.abs(rows.sum(axis=1) - 1.0).max() > tolerance * max(1, rows.shape[1]):
                problem = "has rows that do not sum to one (masses or probabilities)"
        elif attribute in _NON_NEGATIVE_STATE and value.size and value.min() < 0:
            problem = "has negative entries where counts, weights or scales belong"
        elif attribute in _SORTED_STATE and value.shape and value.shape[0] > 1:
            first = value if value.ndim == 1 else value[:, 0]
            if np.any(np.diff(first) < 0):
                problem = "is not sorted (edges, thresholds or scores)"
        if problem is not None:
            raise InvalidStateError(
                f"The loaded {name} is not a fitted state: its `{attribute}` {problem}. The file was "
                "modified or corrupted after saving; fit the estimator again or load a file you trust."
            )
