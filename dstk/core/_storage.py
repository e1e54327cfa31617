"""The two storage forms behind :class:`~dstk.core.MassFunction`, with one interface.

A mass function of a batch is stored either

* densely (:class:`DenseStorage`): masses of shape ``batch_shape + (2**n,)``
  indexed by subset bitmask, or
* in focal-set form (:class:`FocalSetStorage`): ``F`` focal bitmasks shared
  by the batch (sorted, uint64) and masses of shape ``batch_shape + (F,)``.

Both present the same attributes and methods: ``masses`` (the stored values,
last axis over the stored subsets), ``columns`` (the bitmask of each stored
subset), batch handling (``index``, ``reshape``, ``broadcast_to``,
:func:`stack`), queries (``mass_of``, ``sum_over``, ``nonzero``, ...),
conversions (``to_dense``, ``focal_form``) and the operations whose
arithmetic depends on the form (``pignistic``, ``contour``, ``discount``,
``normalize``, ``condition``, ...).  Each operation is written once per form;
:class:`~dstk.core.MassFunction` holds one storage object and delegates, so
that it never branches on the form.  Shared code (written on ``masses`` and
``columns``) lives in the base class :class:`Storage`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._kernels import transforms as _t
from .._kernels._jit import call_kernel
from ..exceptions import FrameTooLargeError, TotalConflictError
from . import _dense, _sparse, _wide

__all__ = [
    "Storage",
    "DenseStorage",
    "DeferredDenseStorage",
    "FocalSetStorage",
    "WideStorage",
    "stack",
    "membership",
    "masks_of_members",
]


@functools.lru_cache(maxsize=32)
def _all_subsets(size: int) -> np.ndarray:
    """The bitmasks ``0 .. size - 1`` as a read-only uint64 array (the columns of a dense form)."""
    out = np.arange(size, dtype=np.uint64)
    out.flags.writeable = False
    return out


def membership(focal: np.ndarray, n: int) -> np.ndarray:
    """(F, n) 0/1 matrix: does focal set f contain label i."""
    shifts = np.arange(n, dtype=np.uint64)
    return ((focal[:, None] >> shifts[None, :]) & np.uint64(1)).astype(np.float64)


def masks_of_members(member: np.ndarray) -> list[int]:
    """The Python int bitmask of each row of a boolean membership matrix (F, n)."""
    n = member.shape[1]
    width = _wide.n_words(n)
    padded = np.zeros((member.shape[0], 64 * width), dtype=bool)
    padded[:, :n] = member
    return _wide.to_ints(np.packbits(padded, axis=1, bitorder="little").view("<u8"))


class Storage:
    """The interface shared by the two forms, and the code written once for both.

    Subclasses define ``masses``, ``columns``, ``is_dense`` and the methods
    whose arithmetic differs between the forms.
    """

    __slots__ = ()
    is_dense: bool
    is_wide = False
    is_structured = False
    masses: np.ndarray

    # -- layout -----------------------------------------------------------
    @property
    def columns(self) -> np.ndarray:
        """uint64 array (n_focal,): the bitmask of each stored subset."""
        raise NotImplementedError

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """The batch shape (all axes of ``masses`` but the last)."""
        return self.masses.shape[:-1]

    @property
    def n_focal(self) -> int:
        """Number of stored subsets (``2**n`` in the dense form)."""
        return self.masses.shape[-1]

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays of this storage."""
        raise NotImplementedError

    def with_masses(self, masses: np.ndarray) -> Storage:
        """A storage of the same form and stored subsets holding ``masses``."""
        raise NotImplementedError

    # -- batch handling -----------------------------------------------------
    def index(self, index: tuple[Any, ...]) -> Storage:
        """The batch members selected by ``index`` (a tuple over the batch axes)."""
        return self.with_masses(self.masses[index + (slice(None),)])

    def reshape(self, batch_shape: tuple[Any, ...]) -> Storage:
        """The same mass functions with a new batch shape."""
        return self.with_masses(self.masses.reshape(batch_shape + (self.masses.shape[-1],)))

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Storage:
        """A read-only broadcast view with batch shape ``batch_shape``.

        Raises FrameTooLargeError when the batch, materialised (by to_array,
        pignistic or any operation), would exceed ``MAX_DENSE_BYTES``, as
        building such a batch does.
        """
        _dense.check_array_bytes(tuple(batch_shape) + self.masses.shape[-1:], "the broadcast batch")
        return self.with_masses(np.broadcast_to(self.masses, tuple(batch_shape) + self.masses.shape[-1:]))

    # -- queries --------------------------------------------------------------
    def sum_over(self, selector: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """Sum of the masses of the stored subsets whose bitmasks ``selector`` selects."""
        return self.masses[..., selector(self.columns)].sum(axis=-1)

    def used_columns(self) -> tuple[np.ndarray, np.ndarray]:
        """(bitmasks, masses) of the stored subsets with a non-zero mass somewhere in the batch."""
        used = np.flatnonzero(np.any(self.masses.reshape(-1, self.masses.shape[-1]) != 0, axis=0))
        return self.columns[used], self.masses[..., used]

    def _aligned(self, other: Storage) -> tuple[np.ndarray, np.ndarray]:
        """The masses of ``self`` and ``other`` on one list of subsets."""
        _, (a, b) = _sparse.align([self.focal_form(), other.focal_form()])
        return a, b

    def equal(self, other: Storage) -> bool:
        """Bit-equal masses (same batch shape assumed)."""
        return bool(np.array_equal(*self._aligned(other)))

    def allclose(self, other: Storage, atol: float) -> bool:
        """Masses within ``atol`` of each other."""
        a, b = self._aligned(other)
        return bool(np.allclose(a, b, atol=atol, rtol=0))

    # -- the form-dependent interface (each subclass writes these once) ----------
    def to_dense(self, n: int, what: str) -> np.ndarray:
        """The dense masses ``batch_shape + (2**n,)`` (raises FrameTooLargeError if too large)."""
        raise NotImplementedError

    def focal_form(self) -> tuple[np.ndarray, np.ndarray]:
        """(sorted focal bitmasks (F,), masses batch_shape + (F,))."""
        raise NotImplementedError

    def state(self) -> dict[str, Any]:
        """The arrays of this storage, keyed as in ``MassFunction.__getstate__``."""
        raise NotImplementedError

    def describe(self) -> str:
        """The form, for ``repr``."""
        raise NotImplementedError

    def like_dense(self, masses: np.ndarray) -> Storage:
        """The dense result ``masses`` (``batch_shape + (2**n,)``) of an operation, in this form."""
        raise NotImplementedError

    def mass_of(self, mask: int) -> np.ndarray:
        """``m(A)`` for the bitmask ``mask`` of A, one value per batch member."""
        raise NotImplementedError

    def empty_mass(self) -> np.ndarray:
        """``m(empty)``, one value per batch member."""
        raise NotImplementedError

    def nonzero(self, tolerance: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """(bitmasks, masses) of the subsets with mass above ``tolerance`` (unbatched)."""
        raise NotImplementedError

    def cardinality_weighted(self, fn: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``sum_{A != empty} m(A) fn(|A|)``, one value per batch member."""
        raise NotImplementedError

    def singleton_masses(self, n: int) -> np.ndarray:
        """``m({w})`` of every label, shape ``batch_shape + (n,)``."""
        raise NotImplementedError

    def nonempty_focal(self) -> tuple[np.ndarray, np.ndarray]:
        """(bitmasks, masses) of the stored non-empty subsets."""
        raise NotImplementedError

    def pignistic(self, n: int) -> tuple[np.ndarray | None, np.ndarray]:
        """(BetP ``batch_shape + (n,)``, or None where undefined; flags of the rows where it is defined)."""
        raise NotImplementedError

    def contour(self, n: int) -> np.ndarray:
        """``pl({w})`` of every label, shape ``batch_shape + (n,)``."""
        raise NotImplementedError

    def discount(self, rate: np.ndarray, full: int) -> Storage:
        """Shafer's discounting by ``rate`` (checked, broadcasting against the batch); ``full`` = frame."""
        raise NotImplementedError

    def normalize(self) -> Storage:
        """Dempster's normalisation (raises TotalConflictError when m(empty) = 1 somewhere)."""
        raise NotImplementedError

    def condition(self, mask: int) -> Storage:
        """Unnormalised conditioning: the mass of each B moves to B & A (``mask`` = A)."""
        raise NotImplementedError

    def bel(self, mask: int) -> np.ndarray:
        """``bel(A) = sum_{0 != B subset of A} m(B)`` for the bitmask ``mask`` of A, one value per member."""
        a, f = np.uint64(mask), self.columns
        return self.masses[..., ((f & ~a) == 0) & (f != 0)].sum(axis=-1)

    def pl(self, mask: int) -> np.ndarray:
        """``pl(A) = sum_{B & A != 0} m(B)`` for the bitmask ``mask`` of A, one value per member."""
        a, f = np.uint64(mask), self.columns
        return self.masses[..., (f & a) != 0].sum(axis=-1)

    def q(self, mask: int) -> np.ndarray:
        """``q(A) = sum_{B superset of A} m(B)`` for the bitmask ``mask`` of A, one value per member."""
        a, f = np.uint64(mask), self.columns
        return self.masses[..., (f & a) == a].sum(axis=-1)

    def b(self, mask: int) -> np.ndarray:
        """``b(A) = sum_{B subset of A} m(B)`` for the bitmask ``mask`` of A, one value per member."""
        a, f = np.uint64(mask), self.columns
        return self.masses[..., (f & ~a) == 0].sum(axis=-1)

    def nonempty_members(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """(membership (F, n) bool of the stored non-empty subsets, their masses ``batch_shape + (F,)``)."""
        focal, fm = self.nonempty_focal()
        member = (
            (np.asarray(focal, dtype=np.uint64)[:, None] >> np.arange(n, dtype=np.uint64)[None, :])
            & np.uint64(1)
        ).astype(bool)
        return member, fm

    def cardinalities(self) -> np.ndarray:
        """``|A|`` of each stored subset (int64, one per column)."""
        return _sparse.popcount(self.columns)

    def pending(self) -> np.ndarray | None:
        """The masses awaiting a deferred check (see :class:`DeferredDenseStorage`), or None."""
        return None

    def mark_checked(self) -> None:
        """Record that the masses awaiting a deferred check passed it (nothing to do for checked masses)."""


class DenseStorage(Storage):
    """Dense form: masses of shape ``batch_shape + (2**n,)`` indexed by subset bitmask."""

    __slots__ = ("masses",)
    is_dense = True

    def __init__(self, masses: np.ndarray) -> None:
        self.masses = masses

    @property
    def columns(self) -> np.ndarray:
        return _all_subsets(self.masses.shape[-1])

    @property
    def nbytes(self) -> int:
        return int(self.masses.nbytes)

    def with_masses(self, masses: np.ndarray) -> DenseStorage:
        return DenseStorage(masses)

    def like_dense(self, masses: np.ndarray) -> DenseStorage:
        return DenseStorage(masses)

    # -- conversions -------------------------------------------------------
    def to_dense(self, n: int, what: str) -> np.ndarray:
        return self.masses

    def focal_form(self) -> tuple[np.ndarray, np.ndarray]:
        return _sparse.from_dense(self.masses)

    def state(self) -> dict[str, Any]:
        return {"m": self.masses, "focal": None, "fm": None}

    def describe(self) -> str:
        return "dense"

    def _aligned(self, other: Storage) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(other, DenseStorage):
            return self.masses, other.masses
        return super()._aligned(other)

    # -- queries ---------------------------------------------------------------
    def mass_of(self, mask: int) -> np.ndarray:
        return self.masses[..., mask]

    def empty_mass(self) -> np.ndarray:
        return self.masses[..., 0]

    def nonzero(self, tolerance: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        idx = np.flatnonzero(self.masses > tolerance)
        return idx, self.masses[idx]

    def cardinality_weighted(self, fn: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        size = self.masses.shape[-1]
        card = _dense.cardinalities(size)
        w = np.zeros(size)
        w[1:] = fn(card[1:].astype(np.float64))
        return self.masses @ w

    def singleton_masses(self, n: int) -> np.ndarray:
        return self.masses[..., [1 << i for i in range(n)]]

    def nonempty_focal(self) -> tuple[np.ndarray, np.ndarray]:
        return np.arange(1, self.masses.shape[-1], dtype=np.uint64), self.masses[..., 1:]

    # -- operations --------------------------------------------------------------
    def pignistic(self, n: int) -> tuple[np.ndarray | None, np.ndarray]:
        """(BetP ``batch_shape + (n,)`` or None when undefined somewhere, flags of defined rows)."""
        rows = _dense.as_rows(self.masses)
        denom_ok = rows[:, 1:].sum(axis=1) > 0
        out = None
        if np.all(denom_ok):
            out = call_kernel(
                _t.pignistic,
                rows,
                n,
                _dense.inverse_cardinalities(1 << n),
                work=rows.size,
                interpretable=n <= _t.PIGNISTIC_PLAIN_MAX_LABELS,
            )
            out = out.reshape(self.batch_shape + (n,))
        return out, denom_ok

    def contour(self, n: int) -> np.ndarray:
        rows = _dense.as_rows(self.masses)
        return _t.singleton_sums(rows, n).reshape(self.batch_shape + (n,))

    def discount(self, rate: np.ndarray, full: int) -> DenseStorage:
        out = self.masses * (1.0 - rate[..., None])
        out[..., full] += rate
        return DenseStorage(out)

    def normalize(self) -> DenseStorage:
        arr = self.masses
        s = arr[..., 1:].sum(axis=-1)
        if np.any(s <= 0):
            raise TotalConflictError(
                "Cannot normalise: all the mass is on the empty set (total conflict) in "
                f"{int(np.sum(s <= 0))} mass function(s) of the batch."
            )
        with np.errstate(over="ignore"):  # only m(empty) / s can overflow, and it is set to 0
            out = arr / s[..., None]
        out[..., 0] = 0.0
        return DenseStorage(out)

    def condition(self, mask: int) -> DenseStorage:
        size = self.masses.shape[-1]
        idx = np.arange(size, dtype=np.int64) & mask
        return DenseStorage(_sparse.scatter_sum(self.masses, idx, size))


class DeferredDenseStorage(DenseStorage):
    """Dense masses of :meth:`MassFunction.from_array` whose check is deferred to their first use.

    Large C-contiguous float64 arrays are not checked when the mass function
    is built: a conjunctive, Dempster or Yager fold checks each row as its
    kernel reads it (reading the array once) and then calls
    :meth:`mark_checked`; any other use reads ``masses``, which runs the
    usual check first (same error) and keeps its result.
    """

    __slots__ = ("unchecked",)
    unchecked: np.ndarray | None

    def __init__(self, unchecked: np.ndarray) -> None:
        self.unchecked = unchecked  # the ``masses`` slot stays unset until the check

    def __getattr__(self, name: str) -> Any:
        # reached only while the ``masses`` slot is unset: run the deferred check
        values = self.unchecked if name == "masses" else None
        if values is not None:
            masses = _dense.validate_masses(values)
            self.masses = values if np.shares_memory(masses, values) else masses
            self.unchecked = None
            return self.masses
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def pending(self) -> np.ndarray | None:
        try:
            object.__getattribute__(self, "masses")
        except AttributeError:
            return self.unchecked
        return None

    def mark_checked(self) -> None:
        values = self.pending()
        if values is not None:
            self.masses, self.unchecked = values, None


class FocalSetStorage(Storage):
    """Focal-set form: sorted focal bitmasks ``(F,)`` shared by the batch, masses ``batch_shape + (F,)``."""

    __slots__ = ("focal", "masses")
    is_dense = False

    def __init__(self, focal: np.ndarray, masses: np.ndarray) -> None:
        self.focal = focal
        self.masses = masses

    @property
    def columns(self) -> np.ndarray:
        return self.focal

    @property
    def nbytes(self) -> int:
        return int(self.masses.nbytes + self.focal.nbytes)

    def with_masses(self, masses: np.ndarray) -> FocalSetStorage:
        return FocalSetStorage(self.focal, masses)

    def like_dense(self, masses: np.ndarray) -> FocalSetStorage:
        return FocalSetStorage(*_sparse.from_dense(masses))

    # -- conversions -------------------------------------------------------
    def to_dense(self, n: int, what: str) -> np.ndarray:
        _dense.check_dense_size(n, _dense.batch_size(self.batch_shape), what=what)
        return _sparse.to_dense(self.focal, self.masses, 1 << n)

    def focal_form(self) -> tuple[np.ndarray, np.ndarray]:
        return self.focal, self.masses

    def state(self) -> dict[str, Any]:
        return {"m": None, "focal": self.focal, "fm": self.masses}

    def describe(self) -> str:
        return f"{self.masses.shape[-1]} focal sets"

    # -- queries ---------------------------------------------------------------
    def mass_of(self, mask: int) -> np.ndarray:
        return self.sum_over(lambda f: f == np.uint64(mask))

    def empty_mass(self) -> np.ndarray:
        return self.sum_over(lambda f: f == np.uint64(0))

    def nonzero(self, tolerance: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """(bitmasks, masses) of the focal sets with mass above ``tolerance`` (unbatched)."""
        keep = self.masses > tolerance
        return self.focal[keep], self.masses[keep]

    def cardinality_weighted(self, fn: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        card = _sparse.popcount(self.focal).astype(np.float64)
        w = np.zeros(card.shape)
        nz = card > 0
        w[nz] = fn(card[nz])
        return self.masses @ w

    def singleton_masses(self, n: int) -> np.ndarray:
        out = np.zeros(self.batch_shape + (n,))
        for i in range(n):
            hit = self.focal == np.uint64(1 << i)
            if hit.any():
                out[..., i] = self.masses[..., hit].sum(axis=-1)
        return out

    def nonempty_focal(self) -> tuple[np.ndarray, np.ndarray]:
        """(bitmasks, masses) of the stored non-empty focal sets."""
        keep = self.focal != 0
        return self.focal[keep], self.masses[..., keep]

    # -- operations --------------------------------------------------------------
    def pignistic(self, n: int) -> tuple[np.ndarray | None, np.ndarray]:
        """(BetP ``batch_shape + (n,)``, flags of the rows where it is defined)."""
        card = _sparse.popcount(self.focal).astype(np.float64)
        inv = np.where(card > 0, 1.0 / np.maximum(card, 1), 0.0)
        raw = (self.masses * inv) @ membership(self.focal, n)
        denom = self.masses @ (card > 0).astype(np.float64)
        denom_ok = np.atleast_1d(denom > 0).ravel()
        with np.errstate(invalid="ignore", divide="ignore"):
            out = raw / denom[..., None]
        return out, denom_ok

    def contour(self, n: int) -> np.ndarray:
        return self.masses @ membership(self.focal, n)

    def discount(self, rate: np.ndarray, full: int) -> FocalSetStorage:
        focal, fm = self._with_subset(full)
        out = fm * (1.0 - rate[..., None])
        out[..., np.flatnonzero(focal == np.uint64(full))[0]] += rate
        return FocalSetStorage(focal, out)

    def _with_subset(self, mask: int) -> tuple[np.ndarray, np.ndarray]:
        """(focal, masses) with the subset ``mask`` among the focal sets (zero mass if added)."""
        focal, fm = self.focal, self.masses
        if not np.any(focal == np.uint64(mask)):
            focal = np.append(focal, np.uint64(mask))
            fm = np.concatenate([fm, np.zeros(fm.shape[:-1] + (1,))], axis=-1)
            focal, fm = _sparse.merge_duplicates(focal, fm)
        return focal, fm

    def normalize(self) -> FocalSetStorage:
        nz = self.focal != 0
        s = self.masses[..., nz].sum(axis=-1)
        if np.any(s <= 0):
            raise TotalConflictError("Cannot normalise: all the mass is on the empty set (total conflict).")
        with np.errstate(over="ignore"):  # only m(empty) / s can overflow, and it is set to 0
            out = self.masses / s[..., None]
        out[..., ~nz] = 0.0
        return FocalSetStorage(*_sparse.prune(self.focal, out))

    def condition(self, mask: int) -> FocalSetStorage:
        focal = self.focal & np.uint64(mask)
        return FocalSetStorage(*_sparse.merge_duplicates(focal, self.masses))


class WideStorage(Storage):
    """Wide focal-set form (frames of more than 64 labels): focal sets as rows of uint64 words.

    ``focal`` (F, ceil(n / 64)) holds the distinct focal sets, byte-wise
    sorted (see :mod:`dstk.core._wide`), shared by the batch; ``masses`` has
    shape ``batch_shape + (F,)``; ``n`` is the number of labels.  Bitmasks
    on the interface (``columns``, ``mass_of``, ...) are Python ints.
    """

    __slots__ = ("focal", "masses", "n", "_ints")
    is_dense = False
    is_wide = True

    def __init__(self, focal: np.ndarray, masses: np.ndarray, n: int, ints: np.ndarray | None = None) -> None:
        self.focal = focal
        self.masses = masses
        self.n = n
        self._ints = ints

    @classmethod
    def from_masks(cls, masks: Sequence[int], masses: np.ndarray, n: int) -> WideStorage:
        """The wide form of focal sets given as Python int bitmasks (repeats summed), masses (..., F)."""
        rows = _wide.from_ints(masks, n)
        _dense.check_array_bytes(rows.shape, "the focal sets' bitsets")
        return cls(*_wide.merge_duplicates(rows, np.asarray(masses, dtype=np.float64)), n)

    @classmethod
    def nested(cls, order: np.ndarray, masses: np.ndarray, n: int, empty_mass: Any = None) -> WideStorage:
        """Focal sets ``A_i = {order[..., 0], ..., order[..., i]}`` with masses ``masses[..., i]`` (and ``m(empty)``).

        Only the sets with a positive mass in their row are stored: a batch
        of ``B`` orders keeps at most ``B n`` focal sets (checked against the
        memory limit before they are built).
        """
        batch = masses.shape[:-1]
        rows = _dense.batch_size(batch)
        width = _wide.n_words(n)
        order = np.ascontiguousarray(order, dtype=np.int64).reshape(rows, n)
        values = np.ascontiguousarray(masses, dtype=np.float64).reshape(rows, n)
        keep = values > 0
        if empty_mass is not None:
            empty = np.broadcast_to(np.asarray(empty_mass, dtype=np.float64), batch).reshape(rows)
        _dense.check_array_bytes((rows, n, width), "The nested focal sets of this batch")
        # row r, step i: the set of the first i + 1 labels of order[r], built by a running OR
        sets = np.zeros((rows, n, width), dtype=np.uint64)
        row, step = np.indices((rows, n))
        sets[row, step, order // 64] = np.left_shift(np.uint64(1), (order % 64).astype(np.uint64))
        np.bitwise_or.accumulate(sets, axis=1, out=sets)
        row, step = np.nonzero(keep)
        focal, value = sets[row, step], values[row, step]
        del sets
        if empty_mass is not None:
            focal = np.concatenate([focal, np.zeros((rows, width), dtype=np.uint64)])
            row = np.concatenate([row, np.arange(rows)])
            value = np.concatenate([value, empty])
        if focal.shape[0] == 0:  # an empty batch: the frame, no mass
            return cls(_wide._full(n), np.zeros(batch + (1,)), n)
        keys = np.ascontiguousarray(focal).view(np.dtype((np.void, 8 * width))).ravel()
        uniq, inverse = np.unique(keys, return_inverse=True)
        _dense.check_array_bytes((rows, uniq.size), "The masses of the nested focal sets of this batch")
        out = np.zeros((rows, uniq.size))
        np.add.at(out, (row, inverse.ravel()), value)
        rows_ = np.ascontiguousarray(uniq).view(np.uint64).reshape(-1, width)
        return cls(rows_, out.reshape(batch + (uniq.size,)), n)

    @property
    def columns(self) -> np.ndarray:
        """object array (F,): the Python int bitmask of each focal set."""
        if self._ints is None:
            ints = np.empty(self.focal.shape[0], dtype=object)
            ints[:] = _wide.to_ints(self.focal)
            self._ints = ints
        return self._ints

    @property
    def nbytes(self) -> int:
        return int(self.masses.nbytes + self.focal.nbytes)

    def with_masses(self, masses: np.ndarray) -> WideStorage:
        return WideStorage(self.focal, masses, self.n, self._ints)

    def _bitset(self, mask: int) -> np.ndarray:
        return _wide.from_ints([mask], self.n)

    def _rows(self, focal: np.ndarray, masses: np.ndarray) -> WideStorage:
        return WideStorage(focal, masses, self.n)

    # -- conversions -------------------------------------------------------
    def to_dense(self, n: int, what: str) -> np.ndarray:
        _dense.check_dense_size(n, _dense.batch_size(self.batch_shape), what=what)
        raise AssertionError("a dense form of more than 64 labels cannot fit the memory limit")

    def like_dense(self, masses: np.ndarray) -> Storage:
        raise AssertionError("a wide mass function never has a dense result")

    def focal_form(self) -> tuple[np.ndarray, np.ndarray]:
        """(Python int bitmasks (F,) as an object array, masses ``batch_shape + (F,)``)."""
        return self.columns, self.masses

    def state(self) -> dict[str, Any]:
        return {"m": None, "focal": self.focal, "fm": self.masses}

    def describe(self) -> str:
        return f"{self.masses.shape[-1]} focal sets"

    def _aligned(self, other: Storage) -> tuple[np.ndarray, np.ndarray]:
        assert isinstance(other, WideStorage)
        _, (a, b) = _wide.align([(self.focal, self.masses), (other.focal, other.masses)])
        return a, b

    def used_columns(self) -> tuple[np.ndarray, np.ndarray]:
        used = np.flatnonzero(np.any(self.masses.reshape(-1, self.masses.shape[-1]) != 0, axis=0))
        return self.columns[used], self.masses[..., used]

    # -- queries ---------------------------------------------------------------
    def _columns_of(self, mask: int) -> np.ndarray:
        return np.all(self.focal == self._bitset(mask), axis=1)

    def mass_of(self, mask: int) -> np.ndarray:
        return self.masses[..., self._columns_of(mask)].sum(axis=-1)

    def empty_mass(self) -> np.ndarray:
        return self.masses[..., ~np.any(self.focal != 0, axis=1)].sum(axis=-1)

    def sum_over(self, selector: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """Sum of the masses of the focal sets whose Python int bitmasks ``selector`` selects."""
        return self.masses[..., np.asarray(selector(self.columns), dtype=bool)].sum(axis=-1)

    def bel(self, mask: int) -> np.ndarray:
        return _wide.belief(self.focal, self.masses, self._bitset(mask))[..., 0]

    def pl(self, mask: int) -> np.ndarray:
        return _wide.plausibility(self.focal, self.masses, self._bitset(mask))[..., 0]

    def q(self, mask: int) -> np.ndarray:
        return _wide.commonality(self.focal, self.masses, self._bitset(mask))[..., 0]

    def b(self, mask: int) -> np.ndarray:
        return self.bel(mask) + self.empty_mass()

    def nonzero(self, tolerance: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """(Python int bitmasks, masses) of the focal sets with mass above ``tolerance`` (unbatched), by bitmask."""
        keep = np.flatnonzero(self.masses > tolerance)
        masks = self.columns[keep]
        order = np.argsort(masks, kind="stable")  # numeric order of the bitmasks, as in the other forms
        return masks[order], self.masses[keep[order]]

    def cardinalities(self) -> np.ndarray:
        return _wide.cardinality(self.focal)

    def cardinality_weighted(self, fn: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        card = self.cardinalities().astype(np.float64)
        w = np.zeros(card.shape)
        nz = card > 0
        w[nz] = fn(card[nz])
        return self.masses @ w

    def singleton_masses(self, n: int) -> np.ndarray:
        _dense.check_array_bytes(self.batch_shape + (n,), "The singleton masses of this batch")
        single = np.flatnonzero(self.cardinalities() == 1)
        label = np.argmax(_wide.membership(self.focal[single], n), axis=1)
        out = np.zeros(self.batch_shape + (n,))
        out[..., label] = self.masses[..., single]  # distinct focal sets: one column a label
        return out

    def _nonempty(self) -> np.ndarray:
        return np.any(self.focal != 0, axis=1)

    def nonempty_focal(self) -> tuple[np.ndarray, np.ndarray]:
        """(Python int bitmasks, masses) of the stored non-empty focal sets."""
        keep = self._nonempty()
        return self.columns[keep], self.masses[..., keep]

    def nonempty_members(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        keep = self._nonempty()
        _dense.check_array_bytes((int(keep.sum()), n), "The membership matrix of the focal sets")
        return _wide.membership(self.focal[keep], n), self.masses[..., keep]

    # -- operations --------------------------------------------------------------
    def pignistic(self, n: int) -> tuple[np.ndarray | None, np.ndarray]:
        """(BetP ``batch_shape + (n,)`` or None when undefined somewhere, flags of defined rows)."""
        denom = self.masses[..., self._nonempty()].sum(axis=-1)
        denom_ok = np.atleast_1d(denom > 0).ravel()
        if not np.all(denom_ok):
            return None, denom_ok
        return _wide.pignistic(self.focal, self.masses, n), denom_ok

    def contour(self, n: int) -> np.ndarray:
        _dense.check_array_bytes(self.batch_shape + (n,), "The contour function of this batch")
        return _wide.contour(self.focal, self.masses, n)

    def discount(self, rate: np.ndarray, full: int) -> WideStorage:
        return self._rows(*_wide.discount(self.focal, self.masses, rate, self.n))

    def with_column(self, mask: int) -> tuple[WideStorage, int]:
        """(this storage with the subset ``mask`` among its focal sets (zero mass if added), its column)."""
        hit = np.flatnonzero(self._columns_of(mask))
        if hit.size:
            return WideStorage(self.focal, np.array(self.masses), self.n, self._ints), int(hit[0])
        zeros = np.zeros(self.masses.shape[:-1] + (1,))
        focal, masses = _wide.merge_duplicates(
            np.concatenate([self.focal, self._bitset(mask)]), np.concatenate([self.masses, zeros], axis=-1)
        )
        out = self._rows(focal, masses)
        return out, int(np.flatnonzero(out._columns_of(mask))[0])

    def normalize(self) -> WideStorage:
        nz = self._nonempty()
        s = self.masses[..., nz].sum(axis=-1)
        if np.any(s <= 0):
            raise TotalConflictError("Cannot normalise: all the mass is on the empty set (total conflict).")
        with np.errstate(over="ignore"):  # only m(empty) / s can overflow, and it is set to 0
            out = self.masses / s[..., None]
        out[..., ~nz] = 0.0
        return self._rows(*_prune_rows(self.focal, out))

    def condition(self, mask: int) -> WideStorage:
        return self._rows(*_wide.merge_duplicates(self.focal & self._bitset(mask), self.masses))

    # -- combination ---------------------------------------------------------------
    def combine_along(self, axis: int, rule: str, weights: Any) -> tuple[WideStorage, np.ndarray, Any]:
        """Combine the sources on batch axis ``axis`` by ``rule``: (result, conflict, total-conflict flags).

        ``weights`` (checked, one per source) are those of the ``"average"`` rule.
        The conjunctive and disjunctive rules fold the sources pairwise
        (:func:`dstk.core._wide.combine`); Dempster's rule normalises after
        each step and accumulates the log of the non-empty masses, Yager's
        rule moves the conflict to the frame, the average averages the
        masses on the union of the focal sets.
        """
        fm = np.moveaxis(self.masses, axis, -2)  # (batch..., K, F)
        k = fm.shape[-2]
        if rule == "average":
            out = np.einsum("...kf,k->...f", fm, weights)
            result = self._rows(*_prune_rows(self.focal, out))
            return result, result.empty_mass(), None
        if rule not in ("conjunctive", "dempster", "yager", "disjunctive"):
            raise FrameTooLargeError(
                f"The {rule} rule needs the 2**n subsets of the frame (dense form), out of reach on a frame "
                f"of {self.n} labels. On frames of more than 64 labels, combine with the 'conjunctive', "
                "'dempster', 'yager', 'disjunctive' or 'average' rule."
            )
        op = "disjunctive" if rule == "disjunctive" else "conjunctive"
        acc_f, acc_m = _prune_rows(self.focal, np.ascontiguousarray(fm[..., 0, :]))
        log_nonempty = np.zeros(fm.shape[:-2])
        total = np.zeros(fm.shape[:-2], dtype=bool)
        if k > 2:  # a budget for the fold (two sources: one step)
            sizes = np.count_nonzero((fm > 0).reshape(-1, k, fm.shape[-1]).any(axis=0), axis=-1)
            remaining, spent = np.append(np.cumsum(sizes[::-1])[::-1], 0), 0.0  # focal sets from source j on
        for j in range(1, k + (rule == "dempster" and k == 1)):
            if j < k:
                if k > 2:
                    rows = math.prod(fm.shape[:-2])
                    spent += _sparse.check_fold_budget(
                        spent, acc_f.shape[0], remaining, rows, self.n, rule, j
                    )
                f2, m2 = _prune_rows(self.focal, np.ascontiguousarray(fm[..., j, :]))
                acc_f, acc_m = _wide.combine(acc_f, acc_m, f2, m2, op)
            if rule == "dempster":
                # normalise at each step (no underflow over many sources); K = 1 - prod of the non-empty masses
                nonempty = np.any(acc_f != 0, axis=1)
                s = acc_m[..., nonempty].sum(axis=-1)
                total = total | ~(s > 0)
                safe = np.where(s > 0, s, 1.0)
                acc_m = acc_m / safe[..., None]
                acc_m[..., ~nonempty] = 0.0
                log_nonempty = log_nonempty + np.log(safe)
            acc_f, acc_m = _prune_rows(acc_f, acc_m)
        empty = ~np.any(acc_f != 0, axis=1)
        kappa = acc_m[..., empty].sum(axis=-1)
        if rule == "dempster":
            kappa = np.where(total, 1.0, np.clip(-np.expm1(log_nonempty), 0.0, 1.0))
            return self._rows(acc_f, acc_m), kappa, total
        result = self._rows(acc_f, acc_m)
        if rule == "yager":
            result, column = result.with_column((1 << self.n) - 1)
            masses = result.masses
            masses[..., column] += kappa
            masses[..., ~np.any(result.focal != 0, axis=1)] = 0.0
            result = self._rows(*_prune_rows(result.focal, masses))
        return result, kappa, None


def _prune_rows(focal: np.ndarray, masses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop the wide focal sets without mass in every batch member (keep one when none has mass)."""
    keep = np.any(masses.reshape(-1, masses.shape[-1]) > 0, axis=0)
    if keep.all():
        return focal, masses
    if not keep.any():
        keep[-1] = True
    return focal[keep], np.ascontiguousarray(masses[..., keep])


def stack(storages: Sequence[Storage], batch_shape: tuple[int, ...], axis: int) -> Storage:
    """Stack storages (batch shapes broadcasting to ``batch_shape``) along a new batch axis ``axis``.

    Dense when every input is dense, wide when they are wide, else in
    focal-set form on the union of the focal sets.
    """
    if storages[0].is_structured:
        from . import _structured

        return _structured.stack(storages, batch_shape, axis)
    if isinstance(storages[0], WideStorage):
        rows, positions = _wide.union([s.focal for s in storages])  # type: ignore[attr-defined]
        shape = list(batch_shape) + [rows.shape[0]]
        shape.insert(axis, len(storages))
        _dense.check_array_bytes(tuple(shape), "The stacked masses")
        out = np.zeros(tuple(shape))
        moved = np.moveaxis(out, axis, 0)  # a view: source i at moved[i]
        for i, (storage, position) in enumerate(zip(storages, positions)):
            moved[i][..., position] = np.broadcast_to(storage.masses, tuple(batch_shape) + position.shape)
        return WideStorage(rows, out, storages[0].n)  # type: ignore[attr-defined]
    if all(isinstance(s, DenseStorage) for s in storages):
        size = storages[0].masses.shape[-1]
        arrays = [np.broadcast_to(s.masses, batch_shape + (size,)) for s in storages]
        return DenseStorage(np.stack(arrays, axis=axis))
    focal, masses = _sparse.align([s.focal_form() for s in storages])
    arrays = [np.broadcast_to(f, batch_shape + (focal.size,)) for f in masses]
    return FocalSetStorage(focal, np.stack(arrays, axis=axis))
