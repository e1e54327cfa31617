"""Input validation shared by the estimators and functions of dstk.

Every check raises a :class:`ValueError` (or a dstk subclass of it) whose
message says what was wrong, shows the offending value or shape, and says how
to fix it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .exceptions import DataTypeError

__all__ = [
    "stacklevel_outside_dstk",
    "as_array",
    "as_float_array",
    "check_numeric_dtype",
    "check_option",
    "check_in_range",
    "check_scores",
    "check_binary_mass_rows",
    "check_labels",
    "check_binary_labels",
    "check_consistent_length",
    "check_random_state",
    "check_probability",
    "check_counts",
    "naming_argument",
]


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_float_array(value: Any, name: str, *, finite: bool = False) -> np.ndarray:
    """Return ``value`` as a float64 array, or raise a clear error for what cannot be one.

    The one conversion of numeric input in dstk: it refuses what numpy would
    silently cast or reject with an unclear message.

    Parameters
    ----------
    value : array_like
        The input (list, tuple, array, scalar, pandas object).
    name : str
        The argument's name, used in the messages.
    finite : bool, default False
        Also reject NaN and infinite values.

    Returns
    -------
    ndarray of float64

    Raises
    ------
    DataTypeError
        (a TypeError and ValueError) ``value`` is None, a scipy sparse matrix, complex, or holds strings or
        other objects that are not numbers.
    ValueError
        ``value`` is ragged (nested sequences of different lengths), or holds
        NaN or infinite values when ``finite`` is true.
    """
    arr = as_array(value, name)
    check_numeric_dtype(arr, name)
    arr = arr.astype(np.float64, copy=False)
    if finite and arr.size and not np.isfinite(arr).all():
        index = tuple(int(i) for i in np.unravel_index(int(np.flatnonzero(~np.isfinite(arr))[0]), arr.shape))
        where = index[0] if len(index) == 1 else index
        raise ValueError(
            f"`{name}` contains NaN or infinite values (first at index {where}); remove or impute them."
        )
    return arr


def as_array(value: Any, name: str, *, allow_sparse: bool = False) -> Any:
    """Return ``value`` as an ndarray of any dtype, or raise a clear error for what is not an array.

    The structural half of :func:`as_float_array`, for input whose element
    type the caller does not fix (features handed on to another estimator).

    Parameters
    ----------
    value : array_like
        The input (list, tuple, array, scalar, pandas object).
    name : str
        The argument's name, used in the messages.
    allow_sparse : bool, default False
        Return a scipy sparse matrix unchanged instead of raising.

    Returns
    -------
    ndarray, or the sparse matrix itself when ``allow_sparse``

    Raises
    ------
    DataTypeError
        (a TypeError and ValueError) ``value`` is None, or a scipy sparse
        matrix while ``allow_sparse`` is false.
    ValueError
        ``value`` is ragged (nested sequences of different lengths).
    """
    if type(value) is np.ndarray and value.dtype != object:
        return value  # already an array: nothing to convert or check here
    if value is None:
        raise DataTypeError(f"`{name}` is None; pass an array of numbers.")
    if hasattr(value, "tocsr") and hasattr(value, "nnz"):
        if allow_sparse:
            return value
        raise DataTypeError(
            f"`{name}` is a scipy sparse matrix; this function needs a dense array: pass `{name}.toarray()`."
        )
    if isinstance(value, (str, bytes)):
        raise DataTypeError(f"`{name}` must be numeric; got the string {_describe(value)}.")
    try:
        with np.errstate(all="ignore"):
            arr = np.asarray(value)
    except ValueError as exc:  # numpy: "setting an array element with a sequence" / inhomogeneous shape
        raise ValueError(
            f"`{name}` is ragged: its nested sequences have different lengths, so it is not an array. "
            "Pad or split it so that every row has the same length."
        ) from exc
    if (
        arr.dtype == object
        and arr.size
        and any(isinstance(item, (list, tuple, np.ndarray)) for item in arr.flat)
    ):
        raise ValueError(
            f"`{name}` is ragged: its nested sequences have different lengths, so it is not an array. "
            "Pad or split it so that every row has the same length."
        )
    return arr


def check_numeric_dtype(arr: Any, name: str) -> None:
    """Raise unless ``arr`` (an ndarray, or any array with a ``dtype``, e.g. a dask array) holds real numbers.

    Parameters
    ----------
    arr : ndarray or array with a ``dtype``
        Checked by dtype; an object array (ndarray only) item by item.
    name : str
        The argument's name, used in the messages.

    Raises
    ------
    DataTypeError
        (a TypeError and ValueError) complex numbers, strings, None or other
        objects that are not real numbers.
    """
    dtype = np.dtype(arr.dtype)
    if dtype.kind == "c":
        raise DataTypeError(
            f"Complex data not supported: `{name}` has complex dtype {dtype}. Pass real numbers "
            f"(e.g. `{name}.real` if the imaginary parts are known to be zero)."
        )
    if dtype.kind == "O" and isinstance(arr, np.ndarray):
        for item in arr.flat:
            if item is None:
                raise DataTypeError(
                    f"`{name}` contains None; pass numbers only (impute or drop missing values)."
                )
            if isinstance(item, (complex, np.complexfloating)):
                raise DataTypeError(
                    f"Complex data not supported: `{name}` contains the complex number {item!r}."
                )
            if not isinstance(item, (int, float, np.number, bool, np.bool_)):
                raise DataTypeError(
                    f"`{name}` must be numeric (numbers only); got {type(item).__name__} {_describe(item)}."
                )
    elif dtype.kind in "USV":
        example = arr.flat[0] if isinstance(arr, np.ndarray) and arr.size else "..."
        raise DataTypeError(f"`{name}` must be numeric; got strings such as {_describe(str(example))}.")
    elif dtype.kind not in "biuf" and dtype.kind != "O":
        raise DataTypeError(f"`{name}` must be numeric; got dtype {dtype}.")


def check_option(value: Any, name: str, allowed: Sequence[Any]) -> Any:
    """Return ``value`` if it is one of ``allowed``, else raise a ValueError listing the choices.

    Parameters
    ----------
    value : object
    name : str
        The argument's name.
    allowed : sequence
        The accepted values.

    Returns
    -------
    object
        ``value`` unchanged.

    Raises
    ------
    ValueError
        ``value`` is not one of ``allowed``.
    """
    try:
        ok = value in allowed
    except TypeError:  # unhashable against a set
        ok = False
    if not ok:
        choices = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"`{name}` must be one of {choices}; got {_describe(value)}.")
    return value


def check_in_range(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
) -> float:
    """Return ``value`` as a float if it is a real number within the given bounds.

    Parameters
    ----------
    value : float
    name : str
        The argument's name.
    low, high : float, optional
        Bounds (None: unbounded on that side).
    low_inclusive, high_inclusive : bool, default True
        Whether each bound itself is allowed.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        ``value`` is not a real number.
    ValueError
        ``value`` is NaN or outside the bounds.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"`{name}` must be a real number; got {type(value).__name__} {_describe(value)}.")
    v = float(value)
    below = low is not None and (v < low or (v == low and not low_inclusive))
    above = high is not None and (v > high or (v == high and not high_inclusive))
    if np.isnan(v) or below or above:
        left = "(-inf" if low is None else ("[" if low_inclusive else "(") + f"{low:g}"
        right = "inf)" if high is None else f"{high:g}" + ("]" if high_inclusive else ")")
        raise ValueError(f"`{name}` must lie in {left}, {right}; got {_describe(value)}.")
    return v


def check_scores(scores: ArrayLike, name: str = "scores", allow_2d_column: bool = True) -> np.ndarray:
    """Return ``scores`` as a 1-D float64 array of finite values.

    A column vector of shape ``(n, 1)`` is accepted and flattened when
    ``allow_2d_column`` is true; any other 2-D shape raises.
    """
    arr = as_float_array(scores, name)
    if arr.ndim == 2 and allow_2d_column and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(
            f"`{name}` must be 1-D (one score per sample); got an array of shape {arr.shape}. "
            "Pass the decision values of one binary classifier, e.g. `clf.decision_function(X)`."
        )
    if arr.size == 0:
        raise ValueError(f"`{name}` is empty; at least one sample is needed.")
    # one pass and no temporary array: a NaN or an infinity makes the sum non-finite (a finite sum
    # proves every score finite; an overflowing sum of finite scores is sorted out below)
    with np.errstate(over="ignore", invalid="ignore"):  # no warning for huge finite scores or inf - inf
        total = np.add.reduce(arr)
    if np.isfinite(total):
        return arr
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = np.flatnonzero(bad)
        kind = "NaN" if np.isnan(arr[idx[0]]) else "infinite"
        raise ValueError(
            f"`{name}` contains {bad.sum()} non-finite value(s) ({kind} at index {idx[0]}). "
            "Remove or impute them before calling this function."
        )
    return arr


def check_binary_mass_rows(masses: np.ndarray, name: str, tolerance: float = 1e-9) -> None:
    """Raise unless every row ``[m(∅), m({0}), m({1}), m(Ω)]`` of ``masses`` is a normal mass function.

    Parameters
    ----------
    masses : ndarray of shape (..., 4)
    name : str
        The argument's name.
    tolerance : float, default 1e-9
        Allowed rounding in the sum and below zero.

    Raises
    ------
    ValueError
        A NaN or infinite mass, a negative one, ``m(∅) > 0``, or a row not
        summing to one; the message names the first bad row.
    """
    rows = masses.reshape(-1, masses.shape[-1])
    problems = (
        (~np.isfinite(rows).all(axis=1), "NaN or infinite masses"),
        ((rows < -tolerance).any(axis=1), "a negative mass"),
        (np.abs(rows[:, 0]) > tolerance, "mass on the empty set (m(∅) must be 0)"),
        (np.abs(rows.sum(axis=1) - 1.0) > tolerance, "masses that do not sum to one"),
    )
    for bad, what in problems:
        if bad.any():
            index = int(np.flatnonzero(bad)[0])
            where = (
                tuple(int(i) for i in np.unravel_index(index, masses.shape[:-1]))
                if masses.ndim > 2
                else index
            )
            raise ValueError(
                f"`{name}` row {where} has {what}: {rows[index].tolist()}. Each row must be "
                "[0, m(not c), m(c), m(either)], non-negative and summing to one."
            )


def check_consistent_length(*arrays: ArrayLike, names: Sequence[str] | None = None) -> None:
    """Raise if the arrays do not all have the same first dimension."""
    if names is None:
        names = [f"argument {i}" for i in range(len(arrays))]
    for array, name in zip(arrays, names):
        if array is None:
            raise ValueError(f"`{name}` is None; it must be passed (one value per sample).")
        if np.ndim(array) == 0:
            raise ValueError(
                f"`{name}` must be an array with one value per sample; got the scalar {array!r}."
            )
    lengths = [a.shape[0] if getattr(a, "shape", None) else len(a) for a in arrays]  # type: ignore[arg-type, union-attr]
    if len(set(lengths)) > 1:
        if names is None:
            names = [f"argument {i}" for i in range(len(arrays))]
        desc = ", ".join(f"`{n}` has {l}" for n, l in zip(names, lengths))
        raise ValueError(f"Inputs have inconsistent numbers of samples: {desc}. They must be equal.")


def check_labels(y: ArrayLike, name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """Return ``(classes, y_encoded)`` for a 1-D label vector (at least two classes)."""
    if y is None:
        raise ValueError(f"This estimator requires y to be passed, but the target {name} is None.")
    if hasattr(y, "tocsr") and hasattr(y, "nnz"):
        raise DataTypeError(f"`{name}` is a scipy sparse matrix; pass the labels as a 1-D dense array.")
    try:
        y = np.asarray(y)
    except ValueError as exc:
        raise ValueError(f"`{name}` is ragged: pass one label per sample as a 1-D array.") from exc
    if np.iscomplexobj(y):
        raise DataTypeError(
            f"Complex data not supported: `{name}` has complex dtype {y.dtype}; pass class labels."
        )
    if y.dtype == object:
        for index, item in enumerate(y.reshape(-1)):
            if item is None or (isinstance(item, float) and np.isnan(item)):
                raise ValueError(
                    f"`{name}` contains a missing label ({item!r} at index {index}); drop those samples or "
                    "give them a class."
                )
            if isinstance(item, (complex, np.complexfloating)):
                raise DataTypeError(
                    f"Complex data not supported: `{name}` contains the complex label {item!r}."
                )
        kinds = {type(item).__name__ for item in y.reshape(-1)}
        if len(kinds) > 1 and not kinds <= {"int", "float", "bool", "int64", "float64"}:
            raise DataTypeError(
                f"`{name}` mixes label types ({', '.join(sorted(kinds))}); use one type for all labels "
                "(e.g. all strings or all integers)."
            )
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
        raise ValueError(f"`{name}` must be 1-D (one label per sample); got shape {y.shape}.")
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
            f"`{name}` contains a single class ({classes.tolist()[0]!r}), and one class is not enough: at least two "
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
            f"{classes.size} classes {classes.tolist()[:10]!r}. Use a multi-class wrapper "
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


def check_positive_int(value: Any, name: str, minimum: int = 1) -> int:
    """A whole number (not a boolean) of at least ``minimum``, as an ``int``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}; got {value!r}.")
    return int(value)


def check_level(
    value: Any, name: str = "level", *, meaning: str = "a confidence level", upper_inclusive: bool = False
) -> float:
    """A level in (0, 1), or (0, 1] with ``upper_inclusive``: the one check of every ``level`` argument.

    ``meaning`` names what the level is (a confidence or credible level, a
    plausibility threshold) in the message.  Booleans and strings are
    refused (``float(True)`` and ``float("0.9")`` would pass otherwise); a
    value between 1 and 100 gets the hint that levels are fractions.
    """
    interval = "(0, 1]" if upper_inclusive else "(0, 1)"
    number = None
    if not isinstance(value, (bool, np.bool_, str, bytes)):
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = None
    if number is not None and (0.0 < number < 1.0 or (upper_inclusive and number == 1.0)):
        return number
    hint = ""
    if number is not None and 1.0 < number <= 100.0:
        hint = f" Levels are fractions, not percentages: for {number:g}% pass {name}={number / 100:g}."
    raise ValueError(f"`{name}` ({meaning}) must be a number in {interval}; got {value!r}.{hint}")


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
    converted = as_float_array(values, name)  # None, complex, strings, ragged, sparse: clear errors
    raw = np.asarray(values)
    arr = raw if raw.dtype.kind in "biu" else converted
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


class naming_argument:
    """Context manager: a ValueError or TypeError raised inside whose message does not name ``name``
    is raised again, of the same type, with ``"`name`: "`` in front of the message.

    For checks delegated to another library (scikit-learn's ``validate_data``)
    whose messages do not say which argument was wrong; their text is kept.
    """

    def __init__(self, name: str):
        self.name = name

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: Any) -> None:
        if error is None or not isinstance(error, (ValueError, TypeError)):
            return
        message = str(error)
        if f"`{self.name}`" in message:
            return
        try:
            renamed = type(error)(f"`{self.name}`: {message}")
        except Exception:  # an exception type with another constructor: keep it as it is
            return
        raise renamed from error


def broadcast_batch_shapes(
    shapes: Sequence[tuple[int, ...]], what: str, *, into: tuple[int, ...] | None = None
) -> tuple[int, ...]:
    """The broadcast of the batch ``shapes`` of ``what`` (to ``into`` when given).

    Raises
    ------
    ValueError
        Shapes that do not broadcast (or broadcast to another shape than ``into``), naming ``what``
        and the shapes.
    """
    try:
        out = np.broadcast_shapes(*shapes)
    except ValueError:
        out = None
    if out is None or (into is not None and out != tuple(into)):
        listed = ", ".join(str(tuple(s)) for s in shapes)
        target = f" to {tuple(into)}" if into is not None else ""
        raise ValueError(
            f"The batch shapes of {what} must broadcast{target}; got {listed}, which do not broadcast{target}. "
            "Give them equal batch shapes, or shapes of 1 along the axes to repeat."
        )
    return out


def first_indices(bad: np.ndarray) -> str:
    """The first 20 of the indices ``bad`` (1-D integer array) as the text of an error or warning message."""
    return ", ".join(map(str, bad[:20].tolist())) + (", ..." if bad.size > 20 else "")


def stacklevel_outside_dstk() -> int:
    """The ``stacklevel`` for :func:`warnings.warn` that points at the first caller outside dstk.

    Call it in the function that calls :func:`warnings.warn`: the warning then names the user's line,
    whichever public function of dstk (and however many private ones) lie between.
    """
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "dstk":
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level
