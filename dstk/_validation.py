"""Input validation shared by the estimators and functions of dstk.

Every check raises a :class:`ValueError` (or a dstk subclass of it) whose
message says what was wrong, shows the offending value or shape, and says how
to fix it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "check_scores",
    "check_labels",
    "check_binary_labels",
    "check_consistent_length",
    "check_random_state",
    "check_probability",
    "check_counts",
]


def check_scores(scores: ArrayLike, name: str = "scores", allow_2d_column: bool = True) -> np.ndarray:
    """Return ``scores`` as a 1-D float64 array of finite values.

    A column vector of shape ``(n, 1)`` is accepted and flattened when
    ``allow_2d_column`` is true; any other 2-D shape raises.
    """
    arr = np.asarray(scores)
    if np.iscomplexobj(arr):
        raise ValueError(f"Complex data not supported: `{name}` must be real (got dtype {arr.dtype}).")
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"`{name}` must be numeric; got values of type object ({exc}).") from None
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise ValueError(f"`{name}` must be numeric; got dtype {arr.dtype}.")
    arr = np.asarray(arr, dtype=np.float64)
    if arr.ndim == 2 and allow_2d_column and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(
            f"`{name}` must be 1-D (one score per sample); got an array of shape {arr.shape}. "
            "Pass the decision values of one binary classifier, e.g. `clf.decision_function(X)`."
        )
    if arr.size == 0:
        raise ValueError(f"`{name}` is empty; at least one sample is needed.")
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = np.flatnonzero(bad)
        kind = "NaN" if np.isnan(arr[idx[0]]) else "infinite"
        raise ValueError(
            f"`{name}` contains {bad.sum()} non-finite value(s) ({kind} at index {idx[0]}). "
            "Remove or impute them before calling this function."
        )
    return arr


def check_consistent_length(*arrays: ArrayLike, names: Sequence[str] | None = None) -> None:
    """Raise if the arrays do not all have the same first dimension."""
    lengths = [len(a) for a in arrays]  # type: ignore[arg-type]  # 0-d inputs raise TypeError, as before
    if len(set(lengths)) > 1:
        if names is None:
            names = [f"argument {i}" for i in range(len(arrays))]
        desc = ", ".join(f"`{n}` has {l}" for n, l in zip(names, lengths))
        raise ValueError(f"Inputs have inconsistent numbers of samples: {desc}. They must be equal.")


def check_labels(y: ArrayLike, name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """Return ``(classes, y_encoded)`` for a 1-D label vector (at least two classes)."""
    if y is None:
        raise ValueError(f"This estimator requires y to be passed, but the target {name} is None.")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        import warnings

        from .exceptions import data_conversion_warning

        warnings.warn(
            f"A column-vector {name} was passed when a 1d array was expected; it is flattened. "
            f"Pass {name}.ravel() (shape (n_samples,)) to avoid this warning.",
            data_conversion_warning(),
            stacklevel=3,
        )
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D; got shape {y.shape}.")
    if y.size == 0:
        raise ValueError(f"`{name}` is empty.")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"`{name}` contains NaN or infinite labels.")
    if y.dtype.kind in "fc" and not np.all(y == np.round(y)):
        example = y[np.flatnonzero(y != np.round(y))[0]]
        raise ValueError(
            f"`{name}` has non-integer values (e.g. {example}), which look like a continuous target; "
            "class labels are needed (integers, strings or booleans)."
        )
    classes, encoded = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(
            f"`{name}` contains a single class ({classes[0]!r}), and one class is not enough: at least two "
            "classes are needed to fit. Check the split of your data (a stratified split keeps both classes)."
        )
    return classes, encoded.astype(np.intp)


def check_binary_labels(y: ArrayLike, name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """Return ``(classes, y01)`` for labels of exactly two classes.

    The larger class label (in sorted order) is encoded as 1, as in
    scikit-learn.
    """
    classes, encoded = check_labels(y, name=name)
    if classes.size != 2:
        raise ValueError(
            f"Only binary classification is supported. `{name}` must contain exactly two classes; got "
            f"{classes.size} classes {list(classes)[:10]!r}. Use a multi-class wrapper "
            "(one-vs-rest) for more classes."
        )
    return classes, encoded


def check_probability(value: float, name: str, open_interval: bool = True) -> float:
    """Check a scalar lies in (0, 1) (or [0, 1] when ``open_interval`` is false)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"`{name}` must be a number in (0, 1); got {value!r}.") from None
    ok = (0.0 < v < 1.0) if open_interval else (0.0 <= v <= 1.0)
    if not ok:
        rng = "(0, 1)" if open_interval else "[0, 1]"
        raise ValueError(f"`{name}` must lie in {rng}; got {value!r}.")
    return v


def check_random_state(seed: Any) -> np.random.RandomState:
    """Turn ``seed`` into a :class:`numpy.random.RandomState` (scikit-learn semantics)."""
    if seed is None or seed is np.random:
        return np.random.mtrand._rand
    if isinstance(seed, (int, np.integer)):
        return np.random.RandomState(int(seed))
    if isinstance(seed, np.random.RandomState):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.RandomState(seed.integers(0, 2**32 - 1))
    raise ValueError(f"{seed!r} cannot be used to seed a numpy.random.RandomState instance.")


def check_counts(
    values: ArrayLike, *, name: str = "counts", whole: bool = False, keep_integers: bool = False
) -> np.ndarray:
    """Return ``values`` as an array of counts: real, finite and ``>= 0``.

    The one check of class, leaf and bin counts in dstk (shape rules stay with
    the caller).

    Parameters
    ----------
    values : array_like
        The counts, any shape.
    name : str
        The argument's name, for the error messages.
    whole : bool
        Also require whole numbers (callers that accept weighted counts offer
        ``allow_fractional=True`` for them, and the message says so).
    keep_integers : bool
        Return integer (and boolean, as int64) input with its integer dtype
        instead of float64; booleans are rejected otherwise.
    """
    arr = np.asarray(values)
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"`{name}` must contain numbers (counts); got objects.") from None
    if arr.dtype == bool and keep_integers:
        arr = arr.astype(np.int64)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise ValueError(f"`{name}` must be a numeric array of counts; got dtype {arr.dtype}.")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise ValueError(f"`{name}` must be real counts; got complex dtype {arr.dtype}.")
    if not (keep_integers and arr.dtype.kind in "iu"):
        arr = np.asarray(arr, dtype=np.float64)
    if arr.size == 0:
        return arr
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"`{name}` contains NaN or infinite counts; counts must be finite and >= 0.")
    if arr.min() < 0:
        raise ValueError(
            f"`{name}` contains a negative count ({arr[arr < 0].flat[0]!r}); counts must be >= 0."
        )
    if whole and arr.dtype.kind == "f" and (np.floor(arr) != arr).any():
        raise ValueError(
            f"`{name}` contains a non-integer count ({arr[np.floor(arr) != arr].flat[0]!r}). Counts must be "
            "whole numbers; pass `allow_fractional=True` for weighted (real-valued) counts."
        )
    return arr
