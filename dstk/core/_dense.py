"""Helpers shared by the core modules: shapes, sizes, conversions between kinds."""

import functools

import numpy as np

from .._kernels import combination as _c
from .._kernels import transforms as _t
from .._kernels import validation as _v
from .._kernels._jit import call_kernel, read_only
from ..exceptions import DogmaticError, FrameTooLargeError, InvalidMassError

#: Frames with at most this many labels are stored densely (2**n floats per
#: mass function) when built from a mapping; larger ones use the focal-set form.
DENSE_MAX_LABELS = 16

#: Largest dense array (in bytes) dstk will allocate before raising
#: :class:`FrameTooLargeError`.
MAX_DENSE_BYTES = 4 * 2**30

#: Absolute tolerance on masses: each mass >= -MASS_TOLERANCE and the masses
#: of one mass function sum to 1 within MASS_TOLERANCE.
MASS_TOLERANCE = 1e-9

KINDS = ("m", "bel", "pl", "q", "b", "w", "v")


def check_dense_size(n, batch_size=1, what="a dense mass function"):
    nbytes = (1 << n) * 8 * max(int(batch_size), 1)
    if nbytes > MAX_DENSE_BYTES:
        # beyond a float's range (frames of about 1,000 labels), the size as a power of two
        size = f"{nbytes / 2**30:.1f} GiB" if nbytes < 2**1000 else f"about 2**{nbytes.bit_length() - 31} GiB"
        raise FrameTooLargeError(
            f"{what} on a frame of {n} labels needs 2**{n} values per mass function "
            f"({size} for a batch of {batch_size}), above the limit of "
            f"{MAX_DENSE_BYTES / 2**30:.0f} GiB. Process the batch in smaller chunks (mass functions on "
            f"frames of up to {DENSE_MAX_LABELS} labels are always stored densely; larger frames use "
            "the focal-set form, which stores only the focal sets)."
        )


def batch_size(batch_shape):
    """Number of mass functions in a batch of shape ``batch_shape`` (a Python int: no overflow)."""
    size = 1
    for length in batch_shape:
        size *= int(length)
    return size


def check_array_bytes(shape, what):
    """Raise FrameTooLargeError before allocating a float64 array of ``shape`` above the limit."""
    nbytes = batch_size(shape) * 8
    if nbytes > MAX_DENSE_BYTES:
        raise FrameTooLargeError(
            f"{what} would need an array of shape {tuple(shape)} ({nbytes / 2**30:.1f} GiB), above the "
            f"limit of {MAX_DENSE_BYTES / 2**30:.0f} GiB. Process the batch in smaller chunks."
        )


def check_batch(n, batch_shape, what):
    """Check a requested batch shape and the arrays it needs on a frame of ``n`` labels."""
    try:
        batch_shape = tuple(int(length) for length in batch_shape)
    except TypeError:
        raise TypeError(f"`batch_shape` must be a tuple of ints; got {batch_shape!r}.") from None
    if any(length < 0 for length in batch_shape):
        raise ValueError(f"`batch_shape` must not have negative lengths; got {batch_shape}.")
    if n <= DENSE_MAX_LABELS:
        check_dense_size(n, batch_size(batch_shape), what=what)
    check_array_bytes(batch_shape + (1,), what)


def as_rows(arr):
    """Reshape (..., size) to a read-only C-contiguous float64 (rows, size) array (for kernels to read).

    Read-only whether or not ``arr`` is, so that a kernel compiles one
    specialisation for both (:func:`dstk._kernels._jit.read_only`).
    """
    a = np.ascontiguousarray(arr, dtype=np.float64)
    return read_only(a.reshape(-1, a.shape[-1]))


@functools.lru_cache(maxsize=32)
def inverse_cardinalities(size):
    """``1 / |A|`` for every subset bitmask ``A < size`` (0 for the empty set), read-only."""
    return read_only(call_kernel(_t.inverse_cardinalities, size, work=size))


@functools.lru_cache(maxsize=32)
def cardinalities(size):
    """``|A|`` for every subset bitmask ``A < size`` (int64), read-only."""
    return read_only(call_kernel(_t.popcounts, size, work=size))


def transform(arr, kernel):
    """Apply an in-place row kernel to a copy of ``arr`` (..., size)."""
    shape = np.shape(arr)
    rows = np.array(as_rows(arr), copy=True)
    kernel(rows)
    return rows.reshape(shape)


def m_to(m, kind):
    """Dense conversion from masses to ``kind``."""
    size = m.shape[-1]
    if kind == "m":
        return np.array(m, dtype=np.float64, copy=True)
    if kind == "q":
        return transform(m, _t.superset_sum)
    if kind == "b":
        return transform(m, _t.subset_sum)
    if kind == "bel":
        b = transform(m, _t.subset_sum)
        return b - m[..., :1]
    if kind == "pl":
        b = transform(m, _t.subset_sum)
        total = m.sum(axis=-1, keepdims=True)
        # pl(A) = 1 - b(complement of A); the complement of index a is size-1-a
        return total - b[..., ::-1]
    if kind == "w":
        if np.any(m[..., size - 1] <= 0):
            raise DogmaticError(
                "Conjunctive weights need m(frame) > 0 (a non-dogmatic mass function); "
                "discount the mass function first, e.g. m.discount(1e-6)."
            )
        return np.exp(_c.log_conjunctive_weights(as_rows(m))).reshape(m.shape)
    if kind == "v":
        if np.any(m[..., 0] <= 0):
            raise DogmaticError("Disjunctive weights need m(empty set) > 0 (a subnormal mass function).")
        return np.exp(_c.log_disjunctive_weights(as_rows(m))).reshape(m.shape)
    raise ValueError(f"Unknown kind {kind!r}; expected one of {KINDS}.")


def to_m(values, kind):
    """Dense conversion from ``kind`` back to masses."""
    v = np.asarray(values, dtype=np.float64)
    if kind == "m":
        return np.array(v, copy=True)
    if kind == "q":
        return transform(v, _t.superset_moebius)
    if kind == "b":
        return transform(v, _t.subset_moebius)
    if kind == "bel":
        # m(empty) = 1 - bel(frame); b = bel + m(empty)
        b = v + (1.0 - v[..., -1:])
        return transform(b, _t.subset_moebius)
    if kind == "pl":
        # b(A) = 1 - pl(complement of A)
        b = 1.0 - v[..., ::-1]
        return transform(b, _t.subset_moebius)
    if kind == "w":
        if np.any(~(v[..., :-1] > 0)):
            raise InvalidMassError("Conjunctive weights must be positive (w(A) > 0 for every A != frame).")
        return _c.mass_from_log_conjunctive_weights(as_rows(np.log(np.where(v > 0, v, 1.0)))).reshape(v.shape)
    if kind == "v":
        if np.any(~(v[..., 1:] > 0)):
            raise InvalidMassError("Disjunctive weights must be positive (v(A) > 0 for every A != empty).")
        return _c.mass_from_log_disjunctive_weights(as_rows(np.log(np.where(v > 0, v, 1.0)))).reshape(v.shape)
    raise ValueError(f"Unknown kind {kind!r}; expected one of {KINDS}.")


def input_tolerance(dtype, n_values, transformed=False):
    """Sum tolerance for masses given in ``dtype`` (``n_values`` per mass function), and whether it is low precision.

    Float64 (and integer) input: :data:`MASS_TOLERANCE`.  Lower-precision
    floats (float32, float16) carry a relative rounding error of ``eps / 2``
    per value, and their sum, normalised in that precision, is off by up to
    about ``eps log2(F)``: the tolerance is ``16 eps max(1, log2 F)``
    (``2**n`` times more for values converted from another representation,
    whose Moebius transform adds up to ``2**n`` rounded terms).
    """
    dtype = np.dtype(dtype)
    if dtype.kind != "f" or np.finfo(dtype).eps <= np.finfo(np.float64).eps:
        return MASS_TOLERANCE, False
    tolerance = 16.0 * float(np.finfo(dtype).eps) * max(1.0, float(np.log2(max(n_values, 1))))
    if transformed:
        tolerance *= n_values
    return max(MASS_TOLERANCE, tolerance), True


def lowest_precision(dtypes):
    """The floating dtype of least precision among ``dtypes`` (float64 if none is floating)."""
    floating = [np.dtype(d) for d in dtypes if np.dtype(d).kind == "f"]
    return max(floating, key=lambda d: np.finfo(d).eps, default=np.dtype(np.float64))


def validate_masses(m, tolerance=MASS_TOLERANCE, what="masses", input_dtype=None, transformed=False):
    """Raise :class:`InvalidMassError` unless ``m`` (..., F) holds valid masses.

    Tiny negative values within the tolerance (rounding) are set to zero (in
    a copy).  Returns ``m`` itself when it is a float64 array needing no
    change (no copy), else the converted or cleaned array.  One branch-free
    compiled pass runs first (threaded for large inputs); the detailed numpy
    checks only run to build an error message.

    ``input_dtype``: the dtype the user gave the masses in.  Masses given in
    a lower precision than float64 (float32, float16) are checked with the
    tolerance of :func:`input_tolerance` and, once accepted, rescaled in
    float64 to sum to one (their float64 values are only as exact as the
    input).
    """
    low_precision = False
    if input_dtype is not None:
        size = np.shape(m)[-1] if np.ndim(m) else 1
        low_tolerance, low_precision = input_tolerance(input_dtype, size, transformed)
        tolerance = max(tolerance, low_tolerance)
    m = np.asarray(m, dtype=np.float64)
    if low_precision:
        m = _validate_masses(m, tolerance, what, np.dtype(input_dtype))
        return m / m.sum(axis=-1, keepdims=True)
    return _validate_masses(m, tolerance, what, None)


def _validate_masses(m, tolerance, what, low_dtype):
    if m.size and m.shape[-1]:
        rows = as_rows(m)
        bad, small_negative = _v.check_mass_rows(rows, tolerance)
        if not bad:
            if small_negative:
                m = np.where(m < 0, 0.0, m)
            return m
    if not np.all(np.isfinite(m)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(m))[0])
        raise InvalidMassError(
            f"The {what} contain NaN or infinite values (first at index {tuple(bad)}). "
            "Masses must be finite numbers in [0, 1]."
        )
    neg = m < 0
    if neg.any():
        if np.any(m < -tolerance):
            bad = tuple(int(i) for i in np.argwhere(m < -tolerance)[0])
            raise InvalidMassError(
                f"The {what} contain negative values (e.g. {float(m[bad]):.6g} at index {tuple(bad)}). "
                f"Masses must be >= 0 (tolerance {tolerance:g})."
            )
        m = np.where(neg, 0.0, m)
    sums = m.sum(axis=-1)
    off = np.abs(sums - 1.0) > tolerance
    if np.any(off):
        idx = tuple(int(i) for i in np.argwhere(np.atleast_1d(off))[0])
        s = np.atleast_1d(sums)[tuple(idx)]
        where = "" if np.ndim(sums) == 0 else f" (first at batch index {tuple(idx)})"
        if low_dtype is not None:
            fix = (
                f"The masses were given as {low_dtype}; to rescale them on purpose convert them to "
                "float64 and divide by their sum, e.g. values = values.astype(np.float64); "
                "values / values.sum(axis=-1, keepdims=True)."
            )
        else:
            fix = (
                "Fix the masses; to rescale them on purpose divide by their sum first, e.g. "
                "values / values.sum(axis=-1, keepdims=True)."
            )
        raise InvalidMassError(
            f"The {what} sum to {float(s):.10g} instead of 1{where}; tolerance {tolerance:g}. " + fix
        )
    return m
