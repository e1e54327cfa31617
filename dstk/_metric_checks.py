"""Input checks shared by the metrics (labels as class indices, probability matrices)."""

import numpy as np

from ._validation import as_float_array, check_scores
from .exceptions import DataTypeError


def check_class_indices(y_true, n_classes=None, name="y_true"):
    """Return ``y_true`` as a 1-D int array of class indices ``0 .. n_classes-1``."""
    if y_true is None:
        raise DataTypeError(f"`{name}` is None; pass one class index per sample.")
    y = np.asarray(y_true)
    if np.iscomplexobj(y):
        raise DataTypeError(
            f"Complex data not supported: `{name}` has complex dtype {y.dtype}; pass class indices."
        )
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D (one label per sample); got shape {y.shape}.")
    if y.size == 0:
        raise ValueError(f"`{name}` is empty; at least one sample is needed.")
    if y.dtype == bool:
        y = y.astype(np.intp)
    if not np.issubdtype(y.dtype, np.number):
        raise ValueError(
            f"`{name}` must hold integer class indices 0..K-1 (the column of each sample's class in the "
            f"probability matrix); got dtype {y.dtype}. Encode labels first, e.g. "
            "`classes, y = np.unique(labels, return_inverse=True)`."
        )
    finite = np.isfinite(y)
    if not np.all(finite):
        i = int(np.flatnonzero(~finite)[0])
        raise ValueError(
            f"`{name}` has a NaN or missing label (first at index {i}); drop or impute those samples."
        )
    if np.any(y != np.round(y)):
        raise ValueError(f"`{name}` must hold integer class indices; got non-integer values.")
    y = y.astype(np.intp)
    if y.min() < 0 or (n_classes is not None and y.max() >= n_classes):
        k = "K" if n_classes is None else n_classes
        raise ValueError(
            f"`{name}` must hold class indices in 0..{k}-1 (columns of the probability matrix); got values "
            f"from {y.min()} to {y.max()}."
        )
    return y


def check_probability_matrix(probabilities, name="probabilities", atol=1e-6, require_normalised=True):
    """Return an (N, K) float64 probability matrix.

    A 1-D array is read as the probability of class 1 of a binary problem and
    turned into ``[1 - p, p]``.
    """
    arr = as_float_array(probabilities, name)
    if arr.ndim == 1:
        p = check_scores(arr, name=name)
        arr = np.column_stack([1.0 - p, p])
    else:
        arr = np.asarray(arr, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(
            f"`{name}` must be 1-D (probability of class 1) or 2-D of shape (n_samples, n_classes); "
            f"got shape {arr.shape}."
        )
    if arr.shape[0] == 0 or arr.shape[1] < 2:
        raise ValueError(f"`{name}` must have at least one row and two columns; got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"`{name}` contains NaN or infinite values.")
    if np.any(arr < -atol) or np.any(arr > 1 + atol):
        raise ValueError(
            f"`{name}` must lie in [0, 1]; got values from {arr.min():.4g} to {arr.max():.4g}. "
            "Calibrate or normalise scores first (e.g. dstk.calibration.probabilistic.SimpleNormalization)."
        )
    if require_normalised:
        sums = arr.sum(axis=1)
        bad = np.abs(sums - 1.0) > atol
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"Rows of `{name}` must sum to 1; row {i} sums to {sums[i]:.6g}. "
                "Normalise the rows (p / p.sum(axis=1, keepdims=True))."
            )
    return np.clip(arr, 0.0, 1.0)


def check_labels_and_probabilities(y_true, probabilities, require_normalised=True):
    """Validate a label vector and a probability matrix together; returns ``(y, P)``."""
    P = check_probability_matrix(probabilities, require_normalised=require_normalised)
    y = check_class_indices(y_true, n_classes=P.shape[1])
    if y.shape[0] != P.shape[0]:
        raise ValueError(
            f"Inputs have inconsistent numbers of samples: `y_true` has {y.shape[0]}, "
            f"`probabilities` has {P.shape[0]}. They must be equal."
        )
    return y, P


def check_binary_targets(y_true, name="y_true"):
    """Return a 0/1 int vector; raise unless it holds only 0 and 1 (both may be checked by callers)."""
    y = check_class_indices(y_true, n_classes=2, name=name)
    return y
