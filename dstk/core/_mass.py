"""The :class:`MassFunction` class: batched mass functions on a finite frame."""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike

from .._validation import as_float_array
from ..exceptions import (
    DataTypeError,
    FrameError,
    FrameMismatchError,
    InvalidMassError,
)
from . import _dense, _sparse, _storage
from ._frame import MAX_FRAME_SIZE, Frame, frame_mismatch_fix

__all__ = ["MassFunction"]


#: The operations behind MassFunction's delegating methods (pignistic, discount,
#: decide, combine, ...).  They live in the function modules (``_transforms``,
#: ``_decisions``, ``_combination``), which import this module; ``dstk.core``
#: registers them here when it is imported (always, before any method can run),
#: so this module never imports them back: no import cycle.
_OPERATIONS: dict[str, Callable[..., Any]] = {}


def _operation(name: str) -> Callable[..., Any]:
    return _OPERATIONS[name]


@overload
def _as_frame(frame: None) -> None: ...
@overload
def _as_frame(frame: Frame | Iterable[Any]) -> Frame: ...
def _as_frame(frame: Frame | Iterable[Any] | None) -> Frame | None:
    if frame is None:
        return None
    return frame if isinstance(frame, Frame) else Frame(frame)


def _infer_frame(keys):
    labels = []
    seen = set()

    def add(lab):
        if isinstance(lab, np.generic):
            lab = lab.item()
        if lab not in seen:
            seen.add(lab)
            labels.append(lab)

    for key in keys:
        if isinstance(key, str):
            for part in key.split(","):
                part = part.strip()
                if part:
                    add(part)
        elif isinstance(key, (frozenset, set, tuple, list)):
            for lab in key:
                add(lab)
        else:
            add(key)
    if not labels:
        raise FrameError("Cannot infer a frame: the mapping names no label. Pass frame=...")
    one_character = {lab for lab in labels if isinstance(lab, str) and len(lab) == 1}
    for key in keys:
        if isinstance(key, str) and "," not in key and len(key) > 1 and one_character:
            raise FrameError(
                f"The key {key!r} is ambiguous without a frame: it could be the label {key!r} or the set "
                f"{{{', '.join(key)}}} of one-character labels, as the keys beside it are. Write "
                f"{','.join(key)!r} for the set, or pass frame=[...] naming the labels."
            )
    try:
        labels = sorted(labels)
    except TypeError:
        pass
    return Frame(labels)


def _key_to_mask(frame, key, inferred):
    if isinstance(key, (set, frozenset, list, tuple)) and not (
        key in frame if isinstance(key, tuple) else False
    ):
        return frame._from_labels(key)
    return frame.subset(key)


#: Least number of float64 values from which :meth:`MassFunction.from_array`
#: defers its check to the first use of the masses (512 KiB): a combination
#: then checks each row as its kernel reads it, and any other use runs the
#: usual check first, with the same error.
DEFERRED_CHECK_MIN_VALUES = 1 << 16


#: Columns (labels) of the HTML table of a batch in a notebook.
_HTML_COLUMNS = 20


class MassFunction:
    """A mass function (basic belief assignment), or a batch of them, on a frame.

    A mass function ``m`` maps subsets of the frame to masses in ``[0, 1]``
    summing to one; ``m(empty)`` may be positive (the unnormalised, open-world
    reading of the TBM).  A *batch* holds one mass function per sample: every
    operation works on batches and broadcasts like numpy over the leading
    ("batch") axes.

    The storage form is chosen from the frame's size (see the conventions
    page, "Storage forms and their limits"):

    * **dense**: an array of shape ``batch_shape + (2**n,)`` indexed by subset
      bitmask (frames of up to 16 labels built from a mapping, and every
      array given to :meth:`from_array`).  All operations use fast Moebius
      transforms, ``O(n 2**n)``.
    * **focal-set form**: a list of ``F`` focal bitmasks shared by the batch
      and masses of shape ``batch_shape + (F,)`` (frames of more than 16 and
      up to 64 labels).  Combinations enumerate pairs of focal sets,
      ``O(F1 F2)``; operations that need all ``2**n`` subsets (cautious and
      bold rules, weight functions) convert to the dense form when it fits and
      raise :class:`~dstk.exceptions.FrameTooLargeError` otherwise.
    * **wide focal-set form**: the same with each focal set a row of
      ``ceil(n / 64)`` 64-bit words (frames of more than 64 labels, any
      number of them); subsets on the interface stay Python ints.

    Parameters
    ----------
    focal : mapping
        ``{subset: mass}``.  A subset is anything :meth:`Frame.subset` accepts
        (a label, an iterable of labels, a bitmask, or a string of one-letter
        labels).  Masses are floats or arrays (all broadcast to one batch
        shape).  When ``frame`` is None it is inferred from the keys: a string
        key is one label, or several separated by commas (``"a,b"``); sets and
        tuples list labels; labels are sorted when they can be.
    frame : Frame or iterable of labels, optional
        The frame of discernment.
    validate : bool, default=True
        Check that masses are finite, non-negative and sum to one within
        ``MASS_TOLERANCE = 1e-9`` (tiny negatives from rounding are set to 0).

    Raises
    ------
    InvalidMassError
        Negative, NaN or infinite masses, or masses not summing to one.
    FrameError
        A subset outside the frame.

    Notes
    -----
    A mass function m : 2^Omega -> [0, 1] with sum_A m(A) = 1 defines
    bel(A) = sum_{empty != B <= A} m(B), pl(A) = sum_{B & A != empty} m(B),
    q(A) = sum_{B >= A} m(B) and b(A) = bel(A) + m(empty) (Shafer 1976,
    ch. 2; Smets & Kennes 1994 for the open-world m(empty) > 0).  Dense
    conversions between them are fast Moebius transforms in the binary order
    (Kennes 1992; Smets 2002).

    References
    ----------
    Shafer, G. (1976). A Mathematical Theory of Evidence. Princeton.
    Smets, P. and Kennes, R. (1994). The transferable belief model. Artificial
    Intelligence 66(2), 191-234.
    Kennes, R. (1992). Computational aspects of the Moebius transformation of
    graphs. IEEE Trans. SMC 22(2), 201-223.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> m = MassFunction({"a": 0.5, "a,b": 0.3, "a,b,c": 0.2})
    >>> m.frame
    Frame(['a', 'b', 'c'])
    >>> round(float(m.bel({"a", "b"})), 6), round(float(m.pl("b")), 6)
    (0.8, 0.5)
    >>> m.pignistic().round(4)
    array([0.7167, 0.2167, 0.0667])
    """

    # the masses, in one of the two forms of dstk.core._storage (one interface); large
    # float64 masses of from_array whose check is deferred: _storage.DeferredDenseStorage
    __slots__ = ("_frame", "_storage")
    _frame: Frame
    _storage: _storage.Storage
    _unchecked: np.ndarray
    __array_priority__ = 100

    def __init__(
        self,
        focal: Mapping[Any, ArrayLike] | MassFunction,
        *,
        frame: Frame | Iterable[Any] | None = None,
        validate: bool = True,
    ) -> None:
        if isinstance(focal, MassFunction):
            self._copy_from(focal)
            return
        if not isinstance(focal, Mapping):
            raise TypeError(
                "MassFunction(focal) takes a mapping {subset: mass}; use "
                "MassFunction.from_array(values, frame) for dense arrays."
            )
        inferred = frame is None
        frame = _infer_frame(focal.keys()) if frame is None else _as_frame(frame)
        masks: dict[int, np.ndarray] = {}
        for key, value in focal.items():
            mask = _key_to_mask(frame, key, inferred)
            masks[mask] = masks.get(mask, 0.0) + as_float_array(value, f"focal[{key!r}]")
        if not masks:
            raise InvalidMassError("A mass function needs at least one focal set.")
        arrays = np.broadcast_arrays(*[np.asarray(v, dtype=np.float64) for v in masks.values()])
        batch_shape = arrays[0].shape
        if frame.n <= _dense.DENSE_MAX_LABELS:
            _dense.check_dense_size(frame.n, _dense.batch_size(batch_shape))
        _dense.check_array_bytes(batch_shape + (len(masks),), "the masses of the focal sets")
        focal_masks = np.array(list(masks.keys()), dtype=np.uint64 if frame.n <= MAX_FRAME_SIZE else object)
        fm = np.stack(arrays, axis=-1) if arrays else np.zeros(batch_shape + (0,))
        if validate:
            given = _dense.lowest_precision(np.asarray(v).dtype for v in focal.values())
            fm = _dense.validate_masses(fm, input_dtype=given)
        self._frame = frame
        if frame.n > MAX_FRAME_SIZE:
            self._storage = _storage.WideStorage.from_masks(list(masks.keys()), fm, frame.n)
        elif frame.n <= _dense.DENSE_MAX_LABELS:
            dense = np.zeros(batch_shape + (frame.n_subsets,))
            dense[..., focal_masks.astype(np.int64)] = fm
            self._storage = _storage.DenseStorage(dense)
        else:
            order = np.argsort(focal_masks)
            self._storage = _storage.FocalSetStorage(focal_masks[order], np.ascontiguousarray(fm[..., order]))

    def _check_deferred(self):
        """Run the deferred check of :meth:`from_array` (if pending); keep and return the checked masses."""
        return self._storage.masses

    # -- construction ---------------------------------------------------
    def _copy_from(self, other):
        self._frame, self._storage = other._frame, other._storage

    @classmethod
    def _from_storage(cls, storage, frame):
        obj = cls.__new__(cls)
        obj._frame, obj._storage = frame, storage
        return obj

    @classmethod
    def _dense(cls, m, frame):
        """The dense form: masses ``m`` of shape ``batch_shape + (2**n,)`` (not copied, not checked)."""
        obj = cls.__new__(cls)
        obj._frame, obj._storage = frame, _storage.DenseStorage(m)
        return obj

    @classmethod
    def _sparse(cls, focal, fm, frame):
        """The focal-set form: sorted uint64 bitmasks ``focal`` (F,) and masses ``fm`` (..., F)."""
        obj = cls.__new__(cls)
        obj._frame, obj._storage = frame, _storage.FocalSetStorage(focal, fm)
        return obj

    @classmethod
    def from_array(
        cls, values: ArrayLike, frame: Frame | Iterable[Any], *, kind: str = "m", validate: bool = True
    ) -> MassFunction:
        """Build a (batched) mass function from dense values of one representation.

        Parameters
        ----------
        values : array_like of shape (..., 2**n)
            Values indexed by subset bitmask; leading axes are the batch.
        frame : Frame or iterable of labels
            The frame (``n`` labels).
        kind : {"m", "bel", "pl", "q", "b", "w", "v"}, default="m"
            Which representation ``values`` holds: masses, belief,
            plausibility, commonality, implicability, conjunctive weights
            (``w(frame)`` ignored) or disjunctive weights (``v(empty)``
            ignored).  ``bel`` fixes ``m(empty) = 1 - bel(frame)``.
        validate : bool, default=True
            Check the resulting masses (finite, >= 0, sum to one within
            ``1e-9``) in one compiled pass.  For masses given as a
            C-contiguous float64 array of at least
            ``DEFERRED_CHECK_MIN_VALUES`` (65,536) values, the check is
            deferred to their first use: :func:`~dstk.combine` with the
            conjunctive, Dempster or Yager rule checks each row as its
            kernel reads it (the array is read once), and any other use
            runs the check first.  Invalid masses then raise the same
            :class:`~dstk.exceptions.InvalidMassError` at that first use.
            ``validate=False`` skips the check: for trusted pipelines whose
            arrays are valid by construction (invalid masses then give
            meaningless results, not errors).

        Returns
        -------
        MassFunction
            For ``kind="m"`` and a float64 array, the masses are not copied:
            the mass function holds a read-only view of ``values`` (a
            C-contiguous array is then combined without any copy), so do not
            modify ``values`` in place afterwards.  Other kinds and dtypes
            give a new array.

        Raises
        ------
        InvalidMassError
            If the values do not give a valid mass function (for large
            float64 masses, at their first use; see ``validate``).
        ValueError
            If the last axis is not ``2**n`` long.

        Notes
        -----
        Conversions use the fast Moebius transform (Kennes 1992; Smets 2002):
        ``q(A) = sum_{B >= A} m(B)``, ``b(A) = sum_{B <= A} m(B)``,
        ``bel(A) = b(A) - m(empty)``, ``pl(A) = 1 - b(complement A)``; the
        weight functions follow Denoeux (2008), Eqs. (13) and (29).

        Examples
        --------
        >>> import numpy as np
        >>> from dstk import MassFunction, Frame
        >>> m = MassFunction.from_array([[0, .2, .3, .5], [0, .6, 0, .4]], Frame("ab"))
        >>> m.batch_shape
        (2,)
        >>> m.to_array("pl")[0]
        array([0. , 0.7, 0.8, 1. ])
        """
        frame = _as_frame(frame)
        if frame is None:
            raise FrameError("from_array needs a frame.")
        checked = as_float_array(values, "values")  # complex, None, strings, ragged, sparse: clear errors
        given = np.asarray(values).dtype
        values = checked
        if values.ndim == 0 or values.shape[-1] != frame.n_subsets:
            if frame.n > MAX_FRAME_SIZE:  # 2**n values: refused whatever the array holds
                _dense.check_dense_size(frame.n, _dense.batch_size(values.shape[:-1]), what="from_array")
            raise ValueError(
                f"The last axis of `values` must have 2**n = {frame.n_subsets} entries for {frame!r}; "
                f"got shape {values.shape}."
            )
        _dense.check_dense_size(frame.n, _dense.batch_size(values.shape[:-1]))
        if kind not in _dense.KINDS:
            raise ValueError(f"Unknown kind {kind!r}; expected one of {_dense.KINDS}.")
        if kind != "m" and not np.all(np.isfinite(values)):
            raise InvalidMassError(f"The {kind} values contain NaN or infinite entries.")
        if validate and kind in _KIND_CONDITIONS:
            index, required, meaning = _KIND_CONDITIONS[kind]
            off = np.abs(values[..., index] - required) > 1e-9
            if np.any(off):
                where = np.unravel_index(int(np.argmax(off)), off.shape) if off.ndim else ()
                raise InvalidMassError(
                    f"`values` (kind={kind!r}) must have {meaning}; got {float(values[..., index][where])!r}"
                    + (f" at batch index {tuple(int(i) for i in where)}" if where else "")
                    + ". Check which representation the array holds."
                )
        if kind == "m":
            if (
                validate
                and values.size >= DEFERRED_CHECK_MIN_VALUES
                and given == np.float64
                and values.flags.c_contiguous
            ):
                # checked at first use: by the combination kernels while they
                # read it (one pass over the memory), else by the usual check
                view = values.view()
                view.flags.writeable = False
                return cls._from_storage(_storage.DeferredDenseStorage(view), frame)
            m = _dense.validate_masses(values, input_dtype=given) if validate else values
            if m is values or np.shares_memory(m, values):
                # no copy: a read-only view of the caller's array
                m = m.view()
                m.flags.writeable = False
            return cls._dense(m, frame)
        m = _dense.to_m(values, kind)  # a new array
        if validate:
            m = _dense.validate_masses(
                m, what=f"masses obtained from `{kind}`", input_dtype=given, transformed=True
            )
        return cls._dense(m, frame)

    @classmethod
    def from_dirichlet(
        cls,
        alpha: ArrayLike,
        *,
        prior_weight: float | None = None,
        frame: Frame | Iterable[Any] | None = None,
    ) -> MassFunction:
        """Mass functions of Dirichlet outputs: ``m({k}) = (alpha_k - 1) / S``, ``m(frame) = K / S``.

        Parameters
        ----------
        alpha : array_like of shape (..., K)
            Dirichlet parameters of an evidential network (``alpha_k = e_k +
            W / K``, at least ``W / K``), ``S = sum_k alpha_k``.
        prior_weight : float, optional
            Prior weight ``W``, by default ``K``.
        frame : Frame or iterable of labels, optional
            ``K`` labels; ``0 .. K-1`` by default.

        Returns
        -------
        MassFunction
            Focal sets the singletons (``b_k = e_k / (sum e + W)``) and the
            frame (``u = W / (sum e + W)``); see :class:`dstk.core.Opinion`.
        """
        return _operation("from_dirichlet")(cls, alpha, prior_weight=prior_weight, frame=frame)

    @classmethod
    def from_evidence(
        cls,
        evidence: ArrayLike,
        *,
        activation: str = "identity",
        prior_weight: float | None = None,
        frame: Frame | Iterable[Any] | None = None,
    ) -> MassFunction:
        """Mass functions of evidence vectors: ``m({k}) = e_k / S``, ``m(frame) = W / S``, ``S = sum e + W``.

        Parameters
        ----------
        evidence : array_like of shape (..., K)
            Non-negative evidence, or logits with ``activation``.
        activation : {"identity", "relu", "exp", "softplus"}, default "identity"
            Evidence map applied first.
        prior_weight : float, optional
            ``W``, by default ``K``.
        frame : Frame or iterable of labels, optional
            ``K`` labels; ``0 .. K-1`` by default.

        Returns
        -------
        MassFunction
        """
        return _operation("from_evidence")(
            cls, evidence, activation=activation, prior_weight=prior_weight, frame=frame
        )

    @classmethod
    def from_focal_sets(
        cls,
        focal_sets: Sequence[int] | np.ndarray,
        masses: ArrayLike,
        frame: Frame | Iterable[Any],
        *,
        validate: bool = True,
    ) -> MassFunction:
        """Build a mass function from its focal sets and their masses.

        Parameters
        ----------
        focal_sets : array_like of int, shape (F,), or bool array of shape (F, n)
            Bitmasks of the focal sets (shared by the whole batch): Python
            ints of any width (or an integer array on frames of up to 64
            labels), or a boolean membership matrix whose row ``f`` flags
            the labels of focal set ``f``.
        masses : array_like of shape (..., F)
            Their masses; leading axes are the batch.
        frame : Frame or iterable of labels
        validate : bool, default=True

        Returns
        -------
        MassFunction
            Stored densely when the frame has at most 16 labels, else in
            focal-set form (one 64-bit word a focal set up to 64 labels,
            rows of words above).

        Examples
        --------
        >>> import numpy as np
        >>> from dstk import Frame, MassFunction
        >>> frame = Frame(range(1000))
        >>> member = np.zeros((2, 1000), dtype=bool)
        >>> member[0, 7] = True  # the singleton {7}
        >>> member[1, :] = True  # the whole frame
        >>> m = MassFunction.from_focal_sets(member, [0.75, 0.25], frame)
        >>> round(m.pl({7, 8}), 6), round(m.bel({7, 8}), 6)
        (1.0, 0.75)
        """
        frame = _as_frame(frame)
        if frame is None:
            raise FrameError("`frame` is None; from_focal_sets needs the frame, e.g. frame=Frame(labels).")
        if isinstance(focal_sets, np.ndarray) and focal_sets.dtype == np.bool_ and focal_sets.ndim == 2:
            if focal_sets.shape[1] != frame.n:
                raise ValueError(
                    f"A boolean `focal_sets` matrix needs one column per label ({frame.n}); got shape "
                    f"{focal_sets.shape}."
                )
            focal_sets = _storage.masks_of_members(focal_sets)
        if isinstance(focal_sets, np.ndarray) and focal_sets.dtype == object:
            focal_sets = focal_sets.tolist()
        if isinstance(focal_sets, np.ndarray):
            focal = focal_sets
            if focal.dtype.kind not in "iu":
                raise ValueError(f"`focal_sets` must hold integer bitmasks; got dtype {focal.dtype}.")
            ints = focal.tolist()
        else:
            ints = []
            for x in focal_sets:
                if (
                    isinstance(x, (bool, np.bool_))
                    or not isinstance(x, (int, np.integer, float, np.floating))
                    or x != int(x)
                ):
                    raise ValueError(f"`focal_sets` must hold integer bitmasks; got {x!r}.")
                ints.append(int(x))
        if np.ndim(ints) != 1:
            raise ValueError(f"`focal_sets` must be 1-D; got shape {np.shape(ints)}.")
        if ints and (min(ints) < 0 or max(ints) > frame.full):
            bound = f"{frame.full}" if frame.n <= MAX_FRAME_SIZE else f"2**{frame.n} - 1"
            raise FrameError(f"Some focal set bitmasks are outside {frame!r} (valid: 0 .. {bound}).")
        wide = frame.n > MAX_FRAME_SIZE
        focal = np.array(ints, dtype=object if wide else np.uint64)
        given = np.asarray(masses).dtype
        values = as_float_array(masses, "masses")  # complex, None, strings, ragged, sparse: clear errors
        if values.shape[-1:] != focal.shape:
            raise ValueError(
                f"`masses` must end with an axis of length F = {focal.size}; got shape {values.shape}."
            )
        if wide:
            if validate:
                values = _dense.validate_masses(values, input_dtype=given)
            return cls._from_storage(_storage.WideStorage.from_masks(ints, values, frame.n), frame)
        if frame.n <= _dense.DENSE_MAX_LABELS:
            _dense.check_dense_size(frame.n, _dense.batch_size(values.shape[:-1]))
        if validate:
            values = _dense.validate_masses(values, input_dtype=given)
        focal, values = _sparse.merge_duplicates(focal, values)
        if frame.n <= _dense.DENSE_MAX_LABELS:
            dense = np.zeros(values.shape[:-1] + (frame.n_subsets,))
            dense[..., focal.astype(np.int64)] = values
            return cls._dense(dense, frame)
        return cls._sparse(focal, values, frame)

    @classmethod
    def vacuous(cls, frame: Frame | Iterable[Any], *, batch_shape: tuple[int, ...] = ()) -> MassFunction:
        """The vacuous mass function (all mass on the frame): total ignorance.

        Parameters
        ----------
        frame : Frame or iterable of labels
            The frame of discernment.
        batch_shape : tuple of int, default ()
            Shape of the batch of identical vacuous mass functions.

        Returns
        -------
        MassFunction
            m(frame) = 1.

        Examples
        --------
        >>> MassFunction.vacuous("ab").to_array("m")
        array([0., 0., 0., 1.])
        """
        frame = _as_frame(frame)
        _dense.check_batch(frame.n, batch_shape, "MassFunction.vacuous")
        return cls.from_focal_sets([frame.full], np.ones(tuple(batch_shape) + (1,)), frame, validate=False)

    @classmethod
    def categorical(
        cls, subset: Any, frame: Frame | Iterable[Any], *, batch_shape: tuple[int, ...] = ()
    ) -> MassFunction:
        """The categorical mass function m(A) = 1.

        Parameters
        ----------
        subset : label, iterable of labels, int bitmask or str
            The subset A that receives all the mass.
        frame : Frame or iterable of labels
            The frame of discernment.
        batch_shape : tuple of int, default ()
            Shape of the batch of identical mass functions.

        Returns
        -------
        MassFunction
            m(A) = 1.

        Examples
        --------
        >>> MassFunction.categorical("b", "ab").to_array("m")
        array([0., 0., 1., 0.])
        """
        frame = _as_frame(frame)
        _dense.check_batch(frame.n, batch_shape, "MassFunction.categorical")
        return cls.from_focal_sets(
            [frame.subset(subset)], np.ones(tuple(batch_shape) + (1,)), frame, validate=False
        )

    # -- basic properties -----------------------------------------------
    @property
    def frame(self) -> Frame:
        """Frame: the frame of discernment."""
        return self._frame

    @property
    def is_dense(self) -> bool:
        """bool: True for the dense form, False for the focal-set form."""
        return self._storage.is_dense

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """tuple: shape of the batch (``()`` for a single mass function)."""
        return self._storage.batch_shape

    @property
    def ndim(self) -> int:
        """int: number of batch axes."""
        return len(self.batch_shape)

    @property
    def size(self) -> int:
        """int: number of mass functions in the batch."""
        return _dense.batch_size(self.batch_shape)

    @property
    def nbytes(self) -> int:
        """int: bytes held by the stored masses (and, in the focal-set form, the focal-set bitmasks).

        ``8 * size * 2**n`` in the dense form, ``8 * (size + 1) * F`` in the
        focal-set form with ``F`` focal sets (a broadcast view counts the
        memory it shows, as numpy's ``nbytes``).

        Examples
        --------
        >>> from dstk import MassFunction
        >>> MassFunction({"a": 0.5, "a,b": 0.5}).nbytes  # dense: 2**2 masses
        32
        """
        return self._storage.nbytes

    def __len__(self):
        if not self.batch_shape:
            raise TypeError("len() of an unbatched MassFunction; use m.focal_sets() for its focal sets.")
        return self.batch_shape[0]

    def __iter__(self):
        """Iterate over the first batch axis (``list(m)`` gives one MassFunction per row)."""
        if not self.batch_shape:
            raise TypeError(
                "An unbatched MassFunction is not iterable: iterate over m.focal_sets().items() for its "
                "focal sets and masses, or batch it (m.reshape(1)) to iterate over mass functions."
            )
        for index in range(self.batch_shape[0]):
            yield self.batch[index]

    def __eq__(self, other: object) -> bool:
        """Exact equality: same frame, same batch shape and bit-equal masses (see :meth:`allclose`)."""
        if not isinstance(other, MassFunction):
            return NotImplemented
        if self.frame != other.frame or self.batch_shape != other.batch_shape:
            return False
        return self._storage.equal(other._storage)

    __hash__ = None  # type: ignore[assignment]  # mutable-looking container of floats: not hashable

    def __reduce__(self):
        return (MassFunction._restore, (self._frame,) + tuple(self._storage.state().values()))

    @classmethod
    def _restore(cls, frame, m, focal=None, fm=None):
        """Rebuild a saved mass function (pickle, skops), checked as at construction.

        ``m``: dense masses ``(..., 2**n)``, or None with ``focal`` (sorted
        distinct uint64 bitmasks ``(F,)``) and ``fm`` (``(..., F)``).  Raises
        :class:`~dstk.exceptions.InvalidMassError` for a state that is not a
        valid mass function on ``frame`` (tampered or corrupted file).
        """
        if not isinstance(frame, Frame):
            raise InvalidMassError(f"A saved MassFunction holds a frame of type {type(frame).__name__}.")
        if m is not None:
            if not isinstance(m, np.ndarray) or m.dtype != np.float64 or m.ndim < 1:
                raise InvalidMassError(
                    "A saved MassFunction holds dense masses that are not a float64 array."
                )
            if m.shape[-1] != frame.n_subsets:
                raise InvalidMassError(
                    f"A saved MassFunction holds dense masses of length {m.shape[-1]}; its frame of "
                    f"{frame.n} labels needs 2**{frame.n} = {frame.n_subsets}."
                )
            return cls._dense(_dense.validate_masses(m, what="saved masses"), frame)
        if isinstance(focal, str):  # a structured form: its name and parameters
            from . import _structured

            return cls._from_storage(_structured.restore(focal, fm, frame.n), frame)
        if frame.n > MAX_FRAME_SIZE:
            return cls._restore_wide(frame, focal, fm)
        if not isinstance(focal, np.ndarray) or focal.dtype != np.uint64 or focal.ndim != 1:
            raise InvalidMassError("A saved MassFunction holds focal sets that are not a 1-D uint64 array.")
        if not isinstance(fm, np.ndarray) or fm.dtype != np.float64 or fm.shape[-1:] != focal.shape:
            raise InvalidMassError(
                f"A saved MassFunction holds masses that are not a float64 array ending with the "
                f"{focal.size} focal sets."
            )
        if focal.size and (bool(np.any(focal[1:] <= focal[:-1])) or int(focal[-1]) > frame.full):
            raise InvalidMassError(
                f"A saved MassFunction holds focal sets that are not sorted distinct subsets of {frame!r}."
            )
        return cls._sparse(focal, _dense.validate_masses(fm, what="saved masses"), frame)

    @classmethod
    def _restore_wide(cls, frame, focal, fm):
        """Rebuild a saved mass function in the wide focal-set form (frames of more than 64 labels)."""
        from . import _wide

        width = _wide.n_words(frame.n)
        if not isinstance(focal, np.ndarray) or focal.dtype != np.uint64 or focal.ndim != 2:
            raise InvalidMassError("A saved MassFunction holds focal sets that are not a 2-D uint64 array.")
        if focal.shape[1] != width:
            raise InvalidMassError(
                f"A saved MassFunction holds focal sets of {focal.shape[1]} words; its frame of {frame.n} "
                f"labels needs {width}."
            )
        if not isinstance(fm, np.ndarray) or fm.dtype != np.float64 or fm.shape[-1:] != focal.shape[:1]:
            raise InvalidMassError(
                f"A saved MassFunction holds masses that are not a float64 array ending with the "
                f"{focal.shape[0]} focal sets."
            )
        rows, _ = _wide.merge_duplicates(focal, np.zeros(focal.shape[0]))
        outside = np.any(focal & ~_wide._full(frame.n))
        if outside or not np.array_equal(rows, focal):
            raise InvalidMassError(
                f"A saved MassFunction holds focal sets that are not sorted distinct subsets of {frame!r}."
            )
        storage = _storage.WideStorage(focal, _dense.validate_masses(fm, what="saved masses"), frame.n)
        return cls._from_storage(storage, frame)

    # -- plain-data and JSON forms ---------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A plain-data form (lists, numbers, labels) that :meth:`from_dict` turns back into this object.

        Returns
        -------
        dict
            ``{"format": "dstk.MassFunction", "version": 1, "frame": [labels],
            "batch_shape": [...], "focal_sets": [[labels of a focal set], ...],
            "masses": nested lists of shape batch_shape + (F,)}``: the focal
            sets that carry mass somewhere in the batch, as lists of labels in
            frame order, and their masses.  A mass function held by
            parameters (the weight-of-evidence form of
            :func:`dstk.classifiers.logistic_evidence`, the discounted
            Bayesian sources of :meth:`dstk.calibration.EvidentialFusionClassifier.predict_mass`
            on large frames) has ``"form"`` and ``"parameters"`` (nested
            lists by name) instead of ``"focal_sets"`` and ``"masses"``.  Floats are stored exactly (JSON
            writes the shortest repr that reads back to the same double).

        Examples
        --------
        >>> m = MassFunction({"a": 0.5, "a,b": 0.5})
        >>> m.to_dict()["focal_sets"], m.to_dict()["masses"]
        ([['a'], ['a', 'b']], [0.5, 0.5])
        >>> MassFunction.from_dict(m.to_dict()).allclose(m, atol=0)
        True
        """
        if self._storage.is_structured:  # its parameters, not its up to 2**n focal sets
            return {
                "format": "dstk.MassFunction",
                "version": 1,
                "frame": [_plain_label(x) for x in self._frame.labels],
                "batch_shape": list(self.batch_shape),
                "form": self._storage.FORM,  # type: ignore[attr-defined]
                "parameters": {k: v.tolist() for k, v in self._storage.state()["fm"].items()},
            }
        focal, masses = self._storage.used_columns()
        labels = self._frame.labels
        return {
            "format": "dstk.MassFunction",
            "version": 1,
            "frame": [_plain_label(x) for x in labels],
            "batch_shape": list(self.batch_shape),
            "focal_sets": [[_plain_label(x) for x in self._frame.labels_of(int(mask))] for mask in focal],
            "masses": np.asarray(masses, dtype=np.float64).tolist(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, validate: bool = True) -> MassFunction:
        """Rebuild a mass function from :meth:`to_dict`'s form.

        Parameters
        ----------
        data : mapping
            As returned by :meth:`to_dict` (or read back from JSON: labels
            that were tuples come back as lists and are turned into tuples).
        validate : bool, default=True
            Check the masses (finite, non-negative, summing to one).

        Returns
        -------
        MassFunction

        Raises
        ------
        ValueError
            A mapping that is not of this form, inconsistent shapes, ragged
            masses, a focal set listed twice or a label repeated in one.
        DataTypeError
            Fields of the wrong type (masses that are not numbers, a
            ``batch_shape`` that is not a list of integers, a frame or focal
            sets that are not lists).
        InvalidMassError
            Masses that are not a valid mass function (with ``validate``).
        """
        if not isinstance(data, Mapping) or data.get("format") != "dstk.MassFunction":
            raise ValueError(
                "`data` is not a MassFunction dictionary: it needs format='dstk.MassFunction' "
                "(use MassFunction.to_dict() to make one)."
            )
        if data.get("version") != 1:
            raise ValueError(
                f"Unsupported MassFunction dictionary version {data.get('version')!r}; expected 1."
            )
        if "form" in data:
            return cls._from_parameters(data)
        missing = [key for key in ("frame", "focal_sets", "batch_shape", "masses") if key not in data]
        if missing:
            raise ValueError(f"`data` lacks the key {missing[0]!r} of a MassFunction dictionary.")
        frame, focal_sets, batch_shape, masses = _checked_dict_fields(data)
        masks = []
        for subset in focal_sets:
            labels = [_hashable_label(x) for x in subset]
            mask = frame.subset(labels)
            if len(labels) != bin(mask).count("1"):
                raise ValueError(f"The focal set {subset!r} of `data` repeats a label; list each label once.")
            if mask in masks:
                raise ValueError(
                    f"The focal set {subset!r} appears twice in `data`; each focal set is listed once."
                )
            masks.append(mask)
        if 0 in batch_shape and masses.size == 0:  # an empty batch (to_dict writes no focal set): no masses
            masks = masks or [frame.full]
            masses = np.zeros(batch_shape + (len(masks),))
        if masses.shape != batch_shape + (len(masks),):
            raise ValueError(
                f"`masses` has shape {masses.shape}; batch_shape {batch_shape} and {len(masks)} focal sets "
                f"need {batch_shape + (len(masks),)}."
            )
        if not masks:
            raise ValueError("A MassFunction dictionary needs at least one focal set.")
        focal = masks if frame.n > MAX_FRAME_SIZE else np.array(masks, dtype=np.uint64)
        return cls.from_focal_sets(focal, masses, frame, validate=validate)

    @classmethod
    def _from_parameters(cls, data: Mapping[str, Any]) -> MassFunction:
        """Rebuild a mass function held by parameters from :meth:`to_dict`'s form (checked)."""
        from . import _structured

        labels, params = data.get("frame"), data.get("parameters")
        if not isinstance(labels, (list, tuple)) or not isinstance(params, Mapping):
            raise DataTypeError("`data` needs a list `frame` and a mapping `parameters` for its form.")
        frame = Frame([_hashable_label(x) for x in labels])
        arrays = {}
        for name, value in params.items():
            try:
                arrays[str(name)] = np.asarray(value, dtype=np.float64)
            except (TypeError, ValueError):
                raise DataTypeError(
                    f"The parameter {name!r} of `data` is not nested lists of numbers."
                ) from None
        storage = _structured.restore(str(data["form"]), arrays, frame.n)
        if list(storage.batch_shape) != list(data.get("batch_shape", [])):
            raise ValueError(
                f"`batch_shape` {data.get('batch_shape')!r} of `data` does not match its parameters "
                f"({list(storage.batch_shape)})."
            )
        return cls._from_storage(storage, frame)

    def to_json(self, **kwargs: Any) -> str:
        """The JSON text of :meth:`to_dict`.

        Parameters
        ----------
        **kwargs
            Passed to :func:`json.dumps` (e.g. ``indent=2``).

        Returns
        -------
        str

        Raises
        ------
        DataTypeError
            A frame label JSON cannot write back as itself (labels must be
            str, int, float, bool, None or tuples of these), unless
            ``default`` or ``cls`` is given.

        Examples
        --------
        >>> m = MassFunction({"a": 0.25, "b": 0.75})
        >>> MassFunction.from_json(m.to_json()).allclose(m, atol=0)
        True
        """
        import json

        if "default" not in kwargs and "cls" not in kwargs:
            for label in self._frame.labels:
                _check_json_label(label, label)
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_json(cls, text: str, *, validate: bool = True) -> MassFunction:
        """Rebuild a mass function from :meth:`to_json`'s text.

        Parameters
        ----------
        text : str
            JSON text of a :meth:`to_dict` form.
        validate : bool, default=True
            Check the masses.

        Returns
        -------
        MassFunction
        """
        import json

        return cls.from_dict(json.loads(text), validate=validate)

    # skops.io (which does not use __reduce__) stores these attributes and restores them
    def __getstate__(self) -> dict[str, Any]:
        return {"frame": self._frame, **self._storage.state()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        if not isinstance(state, dict) or not {"frame", "m", "focal", "fm"} <= state.keys():
            raise InvalidMassError("A saved MassFunction state lacks its frame or masses.")
        self._copy_from(MassFunction._restore(state["frame"], state["m"], state["focal"], state["fm"]))

    def _dense_m(self, what="this operation"):
        return self._storage.to_dense(self._frame.n, what)

    def to_array(self, kind: str = "m") -> np.ndarray:
        """Dense representation of the given kind, shape ``batch_shape + (2**n,)``.

        Parameters
        ----------
        kind : {"m", "bel", "pl", "q", "b", "w", "v"}, default="m"
            masses, belief, plausibility, commonality, implicability,
            conjunctive weights (Denoeux 2008, Eq. 13; ``w(frame)`` is set
            to 1) or disjunctive weights (Eq. 29; ``v(empty)`` is set to 1).

        Returns
        -------
        ndarray of shape batch_shape + (2**n,)

        Raises
        ------
        DogmaticError
            ``"w"`` of a mass function with m(frame) = 0, or ``"v"`` of one
            with m(empty) = 0.
        FrameTooLargeError
            If the dense array would be too large.
        """
        m = self._dense_m(f"to_array({kind!r})")
        return _dense.m_to(m, kind)

    def conjunctive_weights(self) -> np.ndarray:
        """Conjunctive weight function w (Denoeux 2008, Eq. 13); needs m(frame) > 0.

        Returns
        -------
        ndarray of shape batch_shape + (2**n,)
            ``w(A) = prod_{B >= A} q(B)^((-1)^(|B| - |A| + 1))`` for A != frame;
            ``w(frame)`` is set to 1.
        """
        return self.to_array("w")

    def disjunctive_weights(self) -> np.ndarray:
        """Disjunctive weight function v (Denoeux 2008, Eq. 29); needs m(empty) > 0.

        Returns
        -------
        ndarray of shape batch_shape + (2**n,)
            ``v(A) = prod_{B <= A} b(B)^((-1)^(|A| - |B| + 1))`` for A != empty;
            ``v(empty)`` is set to 1.
        """
        return self.to_array("v")

    # -- batch handling ---------------------------------------------------
    @property
    def batch(self) -> _BatchIndexer:
        """Indexer over the batch: ``m.batch[i]``, ``m.batch[:10]``, ``m.batch[mask]``."""
        return _BatchIndexer(self)

    def reshape(self, *shape: int | tuple[int, ...] | list[int]) -> MassFunction:
        """Reshape the batch axes (the subset axis is kept).

        Parameters
        ----------
        *shape : int or tuple of int
            The new batch shape (as for :meth:`numpy.ndarray.reshape`; one
            entry may be -1).

        Returns
        -------
        MassFunction
            The same mass functions with batch shape ``shape``.
        """
        first = shape[0] if len(shape) == 1 else None
        new_shape: tuple[Any, ...] = tuple(first) if isinstance(first, (tuple, list)) else shape
        return MassFunction._from_storage(self._storage.reshape(new_shape), self._frame)

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> MassFunction:
        """Broadcast the batch to ``batch_shape`` (numpy broadcasting rules).

        Parameters
        ----------
        batch_shape : tuple of int
            Target batch shape, compatible with ``self.batch_shape``.

        Returns
        -------
        MassFunction
            A read-only broadcast view with the new batch shape.

        Raises
        ------
        FrameTooLargeError
            If the broadcast batch, once materialised, would exceed the
            memory limit (``MAX_DENSE_BYTES``), as building it would.
        """
        return MassFunction._from_storage(self._storage.broadcast_to(batch_shape), self._frame)

    @staticmethod
    def stack(masses: Iterable[MassFunction], *, axis: int = 0) -> MassFunction:
        """Stack mass functions on one frame along a new batch axis.

        Parameters
        ----------
        masses : iterable of MassFunction
            On the same frame; batch shapes broadcast.
        axis : int, default 0
            Position of the new axis in the result's batch shape.

        Returns
        -------
        MassFunction
            Batch shape: the broadcast batch shape with a new axis of length
            ``len(masses)`` at ``axis``.

        Raises
        ------
        ValueError
            No mass functions, or ``axis`` out of bounds.
        FrameMismatchError
            Mass functions on different frames.
        """
        masses = list(masses)
        if not masses:
            raise ValueError("stack needs at least one mass function.")
        frame = masses[0].frame
        for mf in masses[1:]:
            _check_same_frame(masses[0], mf)
        shape = np.broadcast_shapes(*[mf.batch_shape for mf in masses])
        nd = len(shape) + 1
        ax = axis if axis >= 0 else axis + nd
        if not 0 <= ax < nd:
            raise ValueError(f"axis {axis} is out of bounds for a batch of {nd} dimensions.")
        stacked = _storage.stack([mf._storage for mf in masses], shape, ax)
        return MassFunction._from_storage(stacked, frame)

    def _focal_form(self):
        return self._storage.focal_form()

    # -- queries ----------------------------------------------------------
    def _mask(self, subset):
        return self._frame.subset(subset)

    def _scalar(self, x):
        x = np.asarray(x, dtype=np.float64)
        return float(x) if x.ndim == 0 else x

    def __getitem__(self, subset):
        if isinstance(subset, slice) or (isinstance(subset, np.ndarray) and subset.dtype == bool):
            raise TypeError(
                f"m[A] is the mass of the subset A, not a selection of the batch; got {type(subset).__name__}. "
                "Select mass functions of a batch with m.batch[index] (integers, slices or boolean masks)."
            )
        if (
            self.batch_shape
            and isinstance(subset, (int, np.integer))
            and not isinstance(subset, (bool, np.bool_))
        ):
            raise TypeError(
                f"m[{subset!r}] on a batch of {self.batch_shape} mass functions is ambiguous: an integer "
                "could select a row of the batch or name a subset. Write m.batch[i] for the i-th mass "
                "function, and m.mass(A) (or m[{label}], m[frozenset(...)]) for the mass of a subset in "
                "every row."
            )
        return self._scalar(self._storage.mass_of(self._mask(subset)))

    def mass(self, subset: Any) -> float | np.ndarray:
        """Mass of a subset, ``m(A)`` (same as ``m[A]``).

        Parameters
        ----------
        subset : label, iterable of labels, int bitmask or str
            The subset A, in any form :meth:`Frame.subset` accepts.

        Returns
        -------
        float or ndarray
            One value per mass function of the batch (a float when unbatched).
        """
        return self._scalar(self._storage.mass_of(self._mask(subset)))

    def bel(self, subset: Any) -> float | np.ndarray:
        """Belief ``bel(A) = sum of m(B) over non-empty B included in A``.

        Parameters
        ----------
        subset : label, iterable of labels, int bitmask or str
            The subset A, in any form :meth:`Frame.subset` accepts.

        Returns
        -------
        float or ndarray
            One value per mass function of the batch (a float when unbatched).
        """
        return self._bel_mask(self._mask(subset))

    def _bel_mask(self, mask):
        return self._scalar(self._storage.bel(mask))

    def pl(self, subset: Any) -> float | np.ndarray:
        """Plausibility ``pl(A) = sum of m(B) over B meeting A``.

        Parameters
        ----------
        subset : label, iterable of labels, int bitmask or str
            The subset A, in any form :meth:`Frame.subset` accepts.

        Returns
        -------
        float or ndarray
            One value per mass function of the batch (a float when unbatched).
        """
        return self._pl_mask(self._mask(subset))

    def _pl_mask(self, mask):
        return self._scalar(self._storage.pl(mask))

    def q(self, subset: Any) -> float | np.ndarray:
        """Commonality ``q(A) = sum of m(B) over B including A``.

        Parameters
        ----------
        subset : label, iterable of labels, int bitmask or str
            The subset A, in any form :meth:`Frame.subset` accepts.

        Returns
        -------
        float or ndarray
            One value per mass function of the batch (a float when unbatched).
        """
        return self._scalar(self._storage.q(self._mask(subset)))

    commonality = q

    def b(self, subset: Any) -> float | np.ndarray:
        """Implicability ``b(A) = bel(A) + m(empty)``.

        Parameters
        ----------
        subset : label, iterable of labels, int bitmask or str
            The subset A, in any form :meth:`Frame.subset` accepts.

        Returns
        -------
        float or ndarray
            One value per mass function of the batch (a float when unbatched).
        """
        return self._scalar(self._storage.b(self._mask(subset)))

    implicability = b

    @property
    def conflict(self) -> float | np.ndarray:
        """Mass of the empty set, ``m(empty)`` (float or array over the batch)."""
        return self._scalar(self._storage.empty_mass())

    def focal_sets(self, tolerance: float = 0.0) -> dict[frozenset, float]:
        """Focal sets (mass > tolerance) of an unbatched mass function.

        Parameters
        ----------
        tolerance : float, default 0.0
            Subsets with mass at or below it are left out (a finite number >= 0).

        Returns
        -------
        dict
            ``{frozenset(labels): mass}`` in bitmask order.

        Raises
        ------
        ValueError
            ``tolerance`` negative, NaN or infinite.
        """
        if isinstance(tolerance, (bool, str, bytes)) or not isinstance(tolerance, (int, float, np.number)):
            raise TypeError(f"`tolerance` must be a number >= 0; got {tolerance!r}.")
        if not (np.isfinite(tolerance) and tolerance >= 0):
            raise ValueError(
                f"`tolerance` must be a finite number >= 0 (masses at or below it are left out); got {tolerance!r}."
            )
        self._require_single("focal_sets()")
        masks, masses = self._nonzero(tolerance)
        return {frozenset(self._frame.labels_of(int(a))): float(v) for a, v in zip(masks, masses)}

    def _require_single(self, what):
        if self.batch_shape:
            raise ValueError(
                f"{what} needs a single mass function; this one has batch shape {self.batch_shape}. "
                "Select one with m.batch[i]."
            )

    def _nonzero(self, tolerance=0.0):
        return self._storage.nonzero(tolerance)

    def core(self) -> frozenset:
        """Union of the focal sets (unbatched), as a frozenset of labels.

        Returns
        -------
        frozenset
            The labels of some focal set; pl({w}) = 0 outside it.

        Raises
        ------
        ValueError
            A batch of mass functions (select one with ``m.batch[i]``).
        """
        self._require_single("core()")
        masks, _ = self._nonzero()
        union = 0
        for a in masks:
            union |= int(a)
        return frozenset(self._frame.labels_of(union))

    def _cardinality_weighted(self, fn):
        return self._storage.cardinality_weighted(fn)

    def specificity(self) -> float | np.ndarray:
        """Yager's specificity ``sum_{A != empty} m(A) / |A|``.

        Returns
        -------
        float or ndarray
            One value per mass function of the batch (a float when unbatched).
        """
        return self._scalar(self._cardinality_weighted(lambda c: 1.0 / c))

    def nonspecificity(self) -> float | np.ndarray:
        """Dubois-Prade nonspecificity ``sum_{A != empty} m(A) log2 |A|`` (bits): :func:`dstk.core.nonspecificity`.

        Returns
        -------
        float or ndarray
            One value per mass function of the batch (a float when unbatched).

        Raises
        ------
        InvalidMassError
            If some mass function puts mass on the empty set (normalise it first).
        """
        return _operation("nonspecificity")(self)

    # -- transforms -------------------------------------------------------
    def pignistic(self) -> np.ndarray:
        """Pignistic probabilities ``BetP``: :func:`dstk.pignistic` of ``self``.

        Returns
        -------
        ndarray of shape batch_shape + (n,)
        """
        return _operation("pignistic")(self)

    def pignistic_by_label(self) -> dict[Any, Any]:
        """Pignistic probabilities keyed by label: ``{label: BetP(label)}``.

        The labelled form of :meth:`pignistic`, whose last axis follows
        ``frame.labels`` (the order the frame was built with, sorted when the
        frame was inferred from a mapping).

        Returns
        -------
        dict
            ``label -> float`` for an unbatched mass function, ``label ->
            ndarray of shape batch_shape`` for a batch.

        Examples
        --------
        >>> from dstk import MassFunction
        >>> MassFunction({"a": 0.6, "a,b": 0.4}).pignistic_by_label()
        {'a': 0.8, 'b': 0.2}
        """
        values = self.pignistic()
        return {
            label: (float(values[..., i]) if values.ndim == 1 else values[..., i])
            for i, label in enumerate(self.frame.labels)
        }

    def extend(self, frame: Frame | Iterable[Any], *, new_labels: str = "possible") -> MassFunction:
        """The same evidence on a larger frame (a superset of this frame's labels).

        Parameters
        ----------
        frame : Frame or iterable of labels
            The larger frame; it must contain every label of ``self.frame``.
        new_labels : {"possible", "impossible"}, default "possible"
            ``"possible"``: the evidence says nothing about the new labels, so
            each focal set ``A`` becomes ``A ∪ (new labels)`` (the ballooning
            extension, or deconditioning, Smets 1993: the least committed
            extension whose conditioning on the old frame gives back ``self``).
            ``"impossible"``: the new labels are known to be excluded, so each
            focal set keeps its labels.

        Returns
        -------
        MassFunction
            On ``frame``, same batch shape.

        Raises
        ------
        FrameError
            ``frame`` lacks some label of ``self.frame``.
        ValueError
            ``new_labels`` is not one of the two choices.

        Examples
        --------
        >>> from dstk import MassFunction
        >>> m = MassFunction({"a": 0.6, "a,b": 0.4})
        >>> m.extend("abc")
        MassFunction({{a,c}: 0.6, Ω: 0.4}, frame=Frame(['a', 'b', 'c']))
        >>> m.extend("abc", new_labels="impossible")
        MassFunction({{a}: 0.6, {a,b}: 0.4}, frame=Frame(['a', 'b', 'c']))
        """
        if new_labels not in ("possible", "impossible"):
            raise ValueError(f"`new_labels` must be 'possible' or 'impossible'; got {new_labels!r}.")
        target = _as_frame(frame)
        missing = [label for label in self.frame.labels if label not in target.labels]
        if missing:
            raise FrameError(
                f"The frame {target!r} lacks labels of {self.frame!r}: {missing!r}. Pass a frame that "
                "contains every label (use extend_product for a product frame)."
            )
        positions = [target.labels.index(label) for label in self.frame.labels]
        added = 0
        if new_labels == "possible":
            for i, label in enumerate(target.labels):
                if label not in self.frame.labels:
                    added |= 1 << i
        return self._mapped(target, lambda old: _remap(old, positions) | (added if old else 0))

    def extend_product(self, frame: Frame | Iterable[Any]) -> MassFunction:
        """The vacuous extension to the product of this frame and another one.

        Each focal set ``A`` becomes ``A × frame`` (Shafer 1976, ch. 6; Smets
        1993): the evidence says nothing about the second component.  The
        labels of the product frame are the pairs ``(a, b)``, ``a`` of this
        frame and ``b`` of ``frame``, in row-major order.

        Parameters
        ----------
        frame : Frame or iterable of labels
            The second factor.

        Returns
        -------
        MassFunction
            On the product frame, same batch shape.

        Examples
        --------
        >>> from dstk import MassFunction
        >>> m = MassFunction({"a": 0.7, "a,b": 0.3})
        >>> product = m.extend_product(["x", "y"])
        >>> round(product.bel({("a", "x"), ("a", "y")}), 12)
        0.7
        """
        second = _as_frame(frame)
        n_first, n_second = self.frame.n, second.n
        target = Frame([(a, b) for a in self.frame.labels for b in second.labels])
        row = (1 << n_second) - 1

        def cylinder(old: int) -> int:
            out = 0
            for i in range(n_first):
                if (old >> i) & 1:
                    out |= row << (i * n_second)
            return out

        return self._mapped(target, cylinder)

    def _mapped(self, target: Frame, mapping: Any) -> MassFunction:
        """Masses moved from each focal set ``A`` to ``mapping(A)`` on ``target`` (duplicates summed)."""
        focal, masses = self._focal_form()
        new_focal = [mapping(int(a)) for a in focal.tolist()]
        if target.n <= MAX_FRAME_SIZE:
            return MassFunction.from_focal_sets(
                np.array(new_focal, dtype=np.uint64), masses, target, validate=False
            )
        return MassFunction.from_focal_sets(new_focal, masses, target, validate=False)

    def plausibility_transform(self) -> np.ndarray:
        """Plausibility transform (the normalised contour): :func:`dstk.plausibility_transform` of ``self``.

        Returns
        -------
        ndarray of shape batch_shape + (n,)
        """
        return _operation("plausibility_transform")(self)

    def contour(self) -> np.ndarray:
        """Contour function ``pl({w})`` of every singleton: :func:`dstk.core.contour` of ``self``.

        Returns
        -------
        ndarray of shape batch_shape + (n,)
        """
        return _operation("contour")(self)

    def discount(self, rate: ArrayLike) -> MassFunction:
        """Classical discounting: ``rate`` of every mass moves to the frame; see :func:`dstk.discount`.

        Parameters
        ----------
        rate : float or array_like
            As in :func:`dstk.discount`.

        Returns
        -------
        MassFunction
        """
        return _operation("discount")(self, rate)

    def contextual_discount(self, rates: ArrayLike) -> MassFunction:
        """Contextual discounting, one rate per label; see :func:`dstk.core.contextual_discount`.

        Parameters
        ----------
        rates : array_like of shape (..., n)
            As in :func:`dstk.core.contextual_discount`.

        Returns
        -------
        MassFunction
        """
        return _operation("contextual_discount")(self, rates)

    def condition(self, subset: Any, *, normalize: bool = True) -> MassFunction:
        """Dempster's (or, unnormalised, the TBM's) conditioning; see :func:`dstk.core.condition`.

        Parameters
        ----------
        subset, normalize
            As in :func:`dstk.core.condition`.

        Returns
        -------
        MassFunction
        """
        return _operation("condition")(self, subset, normalize=normalize)

    def normalize(self) -> MassFunction:
        """Dempster normalisation (drop m(empty), rescale the rest); see :func:`dstk.core.normalize`.

        Returns
        -------
        MassFunction
        """
        return _operation("normalize")(self)

    def decide(
        self,
        criterion: str = "pignistic",
        *,
        utility: ArrayLike | None = None,
        loss: ArrayLike | None = None,
        optimism: float | None = None,
        weights: Any = None,
        orness: float | None = None,
        return_indices: bool = False,
    ) -> np.ndarray:
        """One chosen act per mass function: :func:`dstk.decide` with ``m=self``.

        Parameters
        ----------
        criterion, utility, loss, optimism, weights, orness, return_indices
            As in :func:`dstk.decide`.

        Returns
        -------
        ndarray of shape batch_shape
        """
        return _operation("decide")(
            self,
            criterion=criterion,
            utility=utility,
            loss=loss,
            optimism=optimism,
            weights=weights,
            orness=orness,
            return_indices=return_indices,
        )

    def admissible_actions(
        self,
        criterion: str,
        *,
        utility: ArrayLike | None = None,
        loss: ArrayLike | None = None,
        return_labels: bool = False,
    ) -> np.ndarray:
        """The acts a partial order leaves admissible: :func:`dstk.admissible_actions` with ``m=self``.

        Parameters
        ----------
        criterion, utility, loss, return_labels
            As in :func:`dstk.admissible_actions`.

        Returns
        -------
        ndarray
        """
        return _operation("admissible_actions")(
            self, criterion=criterion, utility=utility, loss=loss, return_labels=return_labels
        )

    # -- combination ------------------------------------------------------
    def combine(
        self,
        *others: MassFunction,
        rule: str = "dempster",
        weights: ArrayLike | None = None,
        normalize: bool = False,
    ) -> MassFunction:
        """Combine ``self`` with ``others``: :func:`dstk.combine` with ``masses=[self, *others]``.

        Parameters
        ----------
        *others : MassFunction
            Mass functions on the same frame (batch shapes broadcast).
        rule, weights, normalize
            As in :func:`dstk.combine`; ``weights`` lists ``self`` first.

        Returns
        -------
        MassFunction
        """
        return _operation("combine")([self, *others], rule=rule, weights=weights, normalize=normalize)

    def __and__(self, other):
        """``m1 & m2``: unnormalised conjunctive rule (TBM)."""
        return self.combine(other, rule="conjunctive")

    def __or__(self, other):
        """``m1 | m2``: disjunctive rule."""
        return self.combine(other, rule="disjunctive")

    # -- comparisons ------------------------------------------------------
    def allclose(self, other: MassFunction, *, atol: float = 1e-10) -> bool:
        """True when both have the same frame and masses within ``atol``.

        Parameters
        ----------
        other : MassFunction
            On the same frame.
        atol : float, default 1e-10
            Absolute tolerance on every mass.

        Returns
        -------
        bool
            True when every mass of every batch element agrees within ``atol``.
        """
        _check_same_frame(self, other)
        return self._storage.allclose(other._storage, atol)

    # -- display ----------------------------------------------------------
    def _rows_for_display(self, max_rows=32):
        masks, masses = self._nonzero()
        order = (
            np.argsort(-masses, kind="stable")[:max_rows]
            if masses.size > max_rows
            else np.arange(masses.size)
        )
        return [(int(masks[i]), float(masses[i])) for i in order], masses.size

    def __repr__(self):
        if self.batch_shape or self._storage.is_structured:
            form = self._storage.describe()
            return f"MassFunction(batch_shape={self.batch_shape}, frame={self._frame!r}, {form})"
        rows, total = self._rows_for_display()
        body = ", ".join(f"{self._frame.format_subset(a)}: {v:.6g}" for a, v in rows)
        more = f", ... ({total - len(rows)} more)" if total > len(rows) else ""
        return f"MassFunction({{{body}{more}}}, frame={self._frame!r})"

    def _repr_html_(self):
        if self.batch_shape or self._storage.is_structured:  # held by parameters: no focal sets to list
            frame_text = html.escape(repr(self._frame))
            if self.batch_shape:
                head = f"<p>MassFunction: batch of shape {self.batch_shape} on {frame_text}</p>"
            else:  # held by parameters (no focal sets to list): its pignistic probabilities
                head = f"<p>MassFunction on {frame_text}, {html.escape(self._storage.describe())}</p>"
            flat = self.reshape(-1)
            k = min(5, flat.size)
            rows = []
            head_rows = flat.batch[:k]
            # BetP is undefined where all the mass is on the empty set: say so in that row, not raise
            defined = np.atleast_1d(np.asarray(head_rows.conflict, dtype=np.float64)) < 1.0
            bet = np.zeros((k, self._frame.n))
            if defined.any():
                bet[defined] = head_rows.batch[defined].pignistic()
            shown = min(self._frame.n, _HTML_COLUMNS)  # a frame may have thousands of labels
            cut = "<td>...</td>" if shown < self._frame.n else ""
            for i in range(k):
                if defined[i]:
                    cells = "".join(f"<td>{v:.4f}</td>" for v in bet[i, :shown]) + cut
                else:
                    span = shown + (1 if cut else 0)
                    cells = (
                        f'<td colspan="{span}">undefined (m(∅) = 1)</td>'
                        if span > 1
                        else "<td>undefined (m(∅) = 1)</td>"
                    )
                rows.append(f"<tr><td>{i}</td>{cells}</tr>")
            labels = self._frame.labels[:shown]
            hdr = "".join(f"<th>BetP({html.escape(str(l))})</th>" for l in labels)
            hdr += f"<th>({self._frame.n - shown} more)</th>" if cut else ""
            more = f"<p>... {flat.size - k} more</p>" if flat.size > k else ""
            if not self.batch_shape:  # one row: no sample column
                rows = [row.replace("<tr><td>0</td>", "<tr>", 1) for row in rows]
                return head + f"<table><tr>{hdr}</tr>{''.join(rows)}</table>"
            return head + f"<table><tr><th>sample</th>{hdr}</tr>{''.join(rows)}</table>{more}"
        rows, total = self._rows_for_display(64)
        out = [
            "<table><tr><th>focal set</th><th>m</th><th>bel</th><th>pl</th></tr>",
        ]
        for a, v in sorted(rows):
            name = html.escape(self._frame.format_subset(a))
            out.append(
                f"<tr><td>{name}</td><td>{_html_number(v)}</td><td>{_html_number(self._bel_mask(a))}</td>"
                f"<td>{_html_number(self._pl_mask(a))}</td></tr>"
            )
        out.append("</table>")
        if total > len(rows):
            out.append(f"<p>... {total - len(rows)} more focal sets</p>")
        return "".join(out)


def _html_number(value: float) -> str:
    """Four decimals, or three significant digits for a value so small that four decimals would read 0."""
    value = float(value)
    return f"{value:.4f}" if value == 0 or abs(value) >= 5e-5 else f"{value:.3g}"


#: The condition each dense representation meets at one subset: (index, value, description).
_KIND_CONDITIONS = {
    "bel": (0, 0.0, "bel(∅) = 0 (its first entry)"),
    "pl": (0, 0.0, "pl(∅) = 0 (its first entry)"),
    "q": (0, 1.0, "q(∅) = 1 (its first entry)"),
    "b": (-1, 1.0, "b(Ω) = 1 (its last entry)"),
}


def as_mass_function(value: Any, name: str = "m") -> MassFunction:
    """Return ``value`` as a :class:`MassFunction`, converting only what is unambiguous.

    A MassFunction is returned as is; a dict ``{focal set: mass}`` becomes
    ``MassFunction(value)`` (frame inferred from its keys).  Anything else
    (an array, whose frame would be a guess, a list, None, a string) raises.

    Raises
    ------
    DataTypeError
        (a TypeError and ValueError) ``value`` is not a mass function or a dict.
    """
    if isinstance(value, MassFunction):
        return value
    if isinstance(value, Mapping):
        return MassFunction(value)
    hint = (
        " For an array of masses use MassFunction.from_array(values, frame)."
        if isinstance(value, (np.ndarray, list, tuple))
        else ""
    )
    text = repr(value)
    raise DataTypeError(
        f"`{name}` must be a dstk.MassFunction (or a dict {{focal set: mass}}); got "
        f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}.{hint}"
    )


def _plain_label(label: Any) -> Any:
    """A label as plain data: numpy scalars as Python scalars, tuples kept (JSON writes them as lists)."""
    if isinstance(label, np.generic):
        return label.item()
    return label


def _check_json_label(part: Any, label: Any) -> None:
    """Raise DataTypeError unless ``label`` is JSON data that reads back as itself."""
    if isinstance(part, tuple):
        for item in part:
            _check_json_label(item, label)
    elif not (part is None or isinstance(part, (str, bool, int, float, np.bool_, np.integer, np.floating))):
        raise DataTypeError(
            f"The frame label {label!r} holds a {type(part).__name__}, which JSON cannot store; "
            "to_json needs labels that are str, int, float, bool, None or tuples of these (rename the "
            "labels, e.g. Frame([str(x) for x in frame]), or pass default= to json.dumps)."
        )


def _checked_dict_fields(data: Mapping[str, Any]) -> tuple[Frame, list[Any], tuple[int, ...], np.ndarray]:
    """The frame, focal sets, batch shape and masses of a :meth:`MassFunction.to_dict` form, type-checked."""
    labels, focal_sets, shape, values = data["frame"], data["focal_sets"], data["batch_shape"], data["masses"]
    if not isinstance(labels, (list, tuple)):
        raise DataTypeError(f"`frame` of `data` must be a list of labels; got {type(labels).__name__}.")
    frame = Frame([_hashable_label(x) for x in labels])
    if not isinstance(focal_sets, (list, tuple)) or not all(isinstance(f, (list, tuple)) for f in focal_sets):
        raise DataTypeError(
            f"`focal_sets` of `data` must be a list of lists of labels; got {focal_sets!r:.80}."
        )
    if not isinstance(shape, (list, tuple)) or not all(
        isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)) and n >= 0 for n in shape
    ):
        raise DataTypeError(
            f"`batch_shape` of `data` must be a list of non-negative integers; got {shape!r:.80}."
        )
    try:
        masses = np.asarray(values)
    except ValueError:
        raise ValueError(
            "`masses` of `data` is ragged: nested lists of numbers of shape batch_shape + (F,) are needed."
        ) from None
    if masses.dtype.kind not in "iuf":
        raise DataTypeError(
            f"`masses` of `data` must be nested lists of numbers; got {masses.dtype} values "
            f"({str(values)[:80]})."
        )
    return frame, list(focal_sets), tuple(int(n) for n in shape), masses.astype(np.float64)


def _hashable_label(label: Any) -> Any:
    """A label read back from JSON: lists (former tuples) as tuples."""
    if isinstance(label, list):
        return tuple(_hashable_label(x) for x in label)
    return label


class _BatchIndexer:
    __slots__ = ("_mf",)

    def __init__(self, mf):
        self._mf = mf

    def __getitem__(self, index):
        mf = self._mf
        if not mf.batch_shape:
            raise IndexError("This MassFunction has no batch axes to index.")
        if isinstance(index, tuple) and any(i is Ellipsis for i in index):
            raise IndexError("Ellipsis is not supported in m.batch[...] indexing.")
        idx = index if isinstance(index, tuple) else (index,)
        return MassFunction._from_storage(mf._storage.index(idx), mf._frame)


def _check_same_frame(a, b):
    if not isinstance(b, MassFunction):
        raise TypeError(f"Expected a MassFunction; got {type(b).__name__}.")
    if a.frame != b.frame:
        raise FrameMismatchError(
            f"Mass functions are defined on different frames: {a.frame!r} and {b.frame!r}. "
            + frame_mismatch_fix(a.frame, b.frame)
        )


def _remap(mask: int, positions: list[int]) -> int:
    """Move bit ``i`` of ``mask`` to bit ``positions[i]``."""
    out = 0
    for i, position in enumerate(positions):
        if (mask >> i) & 1:
            out |= 1 << position
    return out
