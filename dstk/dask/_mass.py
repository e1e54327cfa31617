"""A batch of mass functions stored as a chunked dask array."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import dask
import dask.array as da
import numpy as np

from .._validation import as_float_array, check_numeric_dtype, check_option, naming_argument
from ..core import _dense
from ..core._dense import KINDS
from ..core._frame import Frame
from ..core._mass import MassFunction
from ..exceptions import DataTypeError, FrameMismatchError, FrameTooLargeError, InvalidMassError
from ._blocks import blockwise_whole, serial_kernels

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["DaskMassFunction", "as_dask_mass"]


def _as_frame(frame: Frame | Iterable[Any]) -> Frame:
    return frame if isinstance(frame, Frame) else Frame(frame)


def _validate_block(block, frame, name, block_info=None):
    # raises InvalidMassError on the worker; the error surfaces at compute time
    with checking_chunk(name, block_info), serial_kernels():
        # the validated masses themselves (a read-only view of the chunk when it needed no cleaning), not a copy
        return MassFunction.from_array(block, frame, validate=True)._dense_m()


@contextmanager
def checking_chunk(name, block_info=None):
    """Context for the check of one chunk: its :class:`~dstk.exceptions.InvalidMassError` names the
    argument ``name`` and says that its indices are within the chunk, and where the chunk starts when
    ``block_info`` (dask's) tells.  A ``name`` of None checks nothing: the context does nothing.
    """
    if name is None:
        yield
        return
    try:
        yield
    except InvalidMassError as error:
        message = str(error) if f"`{name}`" in str(error) else f"`{name}`: {error}"
        info = (block_info or {}).get(0)
        where = ""
        if info is not None:
            start = tuple(int(a) for a, _ in info["array-location"][:-1])
            where = f" that starts at batch index {start}"
        raise InvalidMassError(f"{message} (The indices are within the dask chunk{where}.)") from None


def _with_pending_check(raw, frame, name, validate):
    """(masses, unchecked): the float64 masses of the array ``raw``, checked chunk by chunk with ``validate``,
    and, while that check is pending on float64 input, (``raw``, ``name``) for the consumers that check
    each chunk in their own pass (:func:`dstk.dask.combine`), else None."""
    if not validate:
        return (raw if raw.dtype == np.float64 else raw.astype(np.float64)), None
    return _checked(raw, frame, name), ((raw, name) if raw.dtype == np.float64 else None)


def _mass_array(array, frame, name, *, rechunk):
    """``array`` as a dask array of dense masses on ``frame``, chunked along its batch axes only, in the
    dtype given (float32 and float16 stay so: :func:`_with_pending_check` checks them in their own
    precision); structure and dtype are checked at once (errors name ``name``), the values later."""
    if isinstance(array, da.Array):
        check_numeric_dtype(array, name)
        masses = array
    else:
        if isinstance(array, np.ndarray) and array.dtype in (np.float32, np.float16):
            values = array  # checked with the tolerance of its precision, then stored in float64
        else:
            values = as_float_array(array, name)
        if values.ndim == 0:
            raise ValueError(
                f"`{name}` must be an array of dense masses of shape (..., 2**n); got the scalar {values!r}."
            )
        masses = da.from_array(values, chunks=("auto",) * (values.ndim - 1) + (-1,))
    if masses.ndim == 0 or masses.shape[-1] != frame.n_subsets:
        raise ValueError(
            f"The last axis of `{name}` must have 2**n = {frame.n_subsets} entries (one mass per subset) "
            f"for {frame!r}; got shape {masses.shape}."
        )
    if len(masses.chunks[-1]) > 1:
        if not rechunk:
            raise ValueError(
                f"The last axis of `{name}` (the {frame.n_subsets} subsets of the frame) is split into chunks "
                f"{masses.chunks[-1]}; every chunk must hold whole mass functions. Rechunk it with "
                f"{name}.rechunk({{-1: -1}}) or pass rechunk=True."
            )
        masses = masses.rechunk({masses.ndim - 1: -1})
    return masses


def _checked(masses, frame, name):
    """``masses`` with every chunk checked (:func:`_validate_block`) when it is computed."""
    return da.map_blocks(_validate_block, masses, frame, name, dtype=np.float64)


def _block_to_mass(block, frame):
    return MassFunction.from_array(block, frame, validate=False)


def _apply_to_block(block, frame, func, kwargs):
    return np.asarray(func(MassFunction.from_array(block, frame, validate=False), **kwargs))


class DaskMassFunction:
    """A batch of mass functions on one frame, stored as a chunked dask array.

    The dense masses are a dask array of shape ``batch_shape + (2**n,)``
    (the last axis indexed by subset bitmask, as in
    :meth:`dstk.MassFunction.from_array`), chunked along the batch axes only:
    every chunk holds whole mass functions, so every operation runs chunk by
    chunk with the in-memory code of :mod:`dstk.core` and nothing is gathered
    on one machine.

    Parameters
    ----------
    array : dask.array.Array or array_like of shape (..., 2**n)
        Dense masses.  A numpy array is wrapped with ``chunks="auto"`` along
        the batch axes.
    frame : Frame or iterable of labels
        The frame of discernment (``n`` labels).
    validate : bool, default=True
        Check every chunk when it is computed (finite, non-negative masses
        summing to one within 1e-9, see :meth:`dstk.MassFunction.from_array`);
        an invalid chunk raises :class:`~dstk.exceptions.InvalidMassError`
        from ``compute``.  Pass False for arrays built by dstk.
    rechunk : bool, default=False
        What to do when the last (``2**n``) axis is split across chunks:
        False raises ``ValueError``; True merges it into one chunk
        (``array.rechunk({-1: -1})``, a shuffle across the chunks of that
        axis).

    Raises
    ------
    DataTypeError
        ``array`` is None, a scipy sparse matrix, complex, or not numeric.
    ValueError
        ``array`` is ragged or a scalar, its last axis does not have ``2**n``
        entries, or it is split across chunks and ``rechunk`` is False.
    InvalidMassError
        From ``compute``, when ``validate`` and a chunk holds NaN, infinite
        or negative masses or masses that do not sum to one.

    Notes
    -----
    A ``DaskMassFunction`` pickles (a dask array and a frame), so it can be
    sent to workers or saved with its task graph.  The dense layout (subset
    bitmask = sum of 2**i over the labels i of the subset) and the
    definitions m, Bel, Pl, BetP are those of :class:`dstk.MassFunction`
    (Shafer 1976; Smets and Kennes 1994); chunking follows the blocked
    algorithms of dask (Rocklin 2015).

    References
    ----------
    Shafer, G. (1976). A Mathematical Theory of Evidence. Princeton
    University Press.
    Smets, P. and Kennes, R. (1994). The transferable belief model.
    Artificial Intelligence 66, 191-234.
    Rocklin, M. (2015). Dask: parallel computation with blocked algorithms and
    task scheduling. Proceedings of the 14th Python in Science Conference.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from dstk.dask import DaskMassFunction
    >>> values = np.tile([0.0, 0.5, 0.2, 0.3], (6, 1))
    >>> masses = DaskMassFunction(da.from_array(values, chunks=(2, 4)), frame=(0, 1))
    >>> masses
    DaskMassFunction(batch_shape=(6,), frame=Frame([0, 1]), chunksize=(2,), n_chunks=3)
    >>> masses.bel({1}).compute(scheduler="synchronous").round(3).tolist()
    [0.2, 0.2, 0.2, 0.2, 0.2, 0.2]
    >>> masses.compute(scheduler="synchronous").batch_shape
    (6,)
    """

    # _unchecked: (the masses before the per-chunk check, the argument name its errors use) while that
    # check is pending, for consumers that check each chunk in their own pass (dstk.dask.combine); else None
    __slots__ = ("_array", "_frame", "_unchecked")

    def __init__(
        self,
        array: da.Array | ArrayLike,
        frame: Frame | Iterable[Any],
        *,
        validate: bool = True,
        rechunk: bool = False,
    ) -> None:
        checked_frame = _as_frame(frame)
        raw = _mass_array(array, checked_frame, "array", rechunk=rechunk)
        masses, unchecked = _with_pending_check(raw, checked_frame, "array", validate)
        self._array: da.Array = masses
        self._frame: Frame = checked_frame
        self._unchecked: tuple[da.Array, str] | None = unchecked

    @classmethod
    def _trusted(cls, array, frame, unchecked=None):
        obj = cls.__new__(cls)
        obj._array, obj._frame, obj._unchecked = array, frame, unchecked
        return obj

    def __reduce__(self):
        return (DaskMassFunction._trusted, (self._array, self._frame))

    # -- properties -------------------------------------------------------
    @property
    def array(self) -> da.Array:
        """dask.array.Array: the dense masses, shape ``batch_shape + (2**n,)``."""
        return self._array

    @property
    def frame(self) -> Frame:
        """Frame: the frame of discernment."""
        return self._frame

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """tuple: shape of the batch."""
        return self._array.shape[:-1]

    @property
    def ndim(self) -> int:
        """int: number of batch axes."""
        return self._array.ndim - 1

    @property
    def chunks(self) -> tuple[tuple[int, ...], ...]:
        """tuple: chunks of the batch axes."""
        return self._array.chunks[:-1]

    def __repr__(self):
        # like MassFunction's repr, then dask's summary of the chunks (the largest chunk and their
        # number: the full chunk tuples grow with the data)
        chunksize = tuple(max(sizes) if sizes else 0 for sizes in self.chunks)
        n_chunks = int(np.prod([len(sizes) for sizes in self.chunks], dtype=np.int64))
        return (
            f"DaskMassFunction(batch_shape={self.batch_shape}, frame={self._frame!r}, "
            f"chunksize={chunksize}, n_chunks={n_chunks})"
        )

    # -- conversions -----------------------------------------------------
    def compute(self, **kwargs: Any) -> MassFunction:
        """Compute and gather into one in-memory :class:`~dstk.MassFunction` (small results only).

        Parameters
        ----------
        **kwargs
            Passed to :func:`dask.compute` (e.g. ``scheduler="synchronous"``).

        Returns
        -------
        MassFunction
            Batch shape ``batch_shape``, on ``frame``.
        """
        (values,) = dask.compute(self._array, **kwargs)
        return MassFunction.from_array(values, self._frame, validate=False)

    def persist(self, **kwargs: Any) -> DaskMassFunction:
        """Persist the masses in (distributed) memory.

        Parameters
        ----------
        **kwargs
            Passed to :func:`dask.persist`.

        Returns
        -------
        DaskMassFunction
            The same masses, backed by computed (in-memory or on-worker) chunks.
        """
        (array,) = dask.persist(self._array, **kwargs)
        return DaskMassFunction._trusted(array, self._frame)

    def to_delayed(self) -> np.ndarray:
        """One delayed in-memory :class:`~dstk.MassFunction` per chunk.

        Returns
        -------
        ndarray of dask.delayed.Delayed
            Shape ``numblocks`` of the batch axes; element ``[i, j, ...]`` is
            the chunk ``[i, j, ...]`` as a MassFunction.
        """
        blocks = self._array.to_delayed()
        blocks = blocks.reshape(blocks.shape[:-1])
        to_mass = dask.delayed(_block_to_mass, pure=True)
        out = np.empty(blocks.shape, dtype=object)
        for index in np.ndindex(blocks.shape):
            out[index] = to_mass(blocks[index], self._frame)
        return out

    def map_blocks(
        self, func: Callable[..., Any], *, tail: tuple[int, ...] = (), dtype: Any = np.float64, **kwargs: Any
    ) -> da.Array:
        """Apply ``func(MassFunction, **kwargs)`` to every chunk.

        Parameters
        ----------
        func : callable
            Takes the chunk as a batched :class:`~dstk.MassFunction` and
            returns an array of shape ``chunk_batch_shape + tail``.
        tail : tuple of int, default=()
            Trailing axes that ``func`` adds after the batch axes (e.g.
            ``(n,)`` for a pignistic probability).
        dtype : numpy dtype, default=float64
            Data type of the result.
        **kwargs
            Passed to ``func``.

        Returns
        -------
        dask.array.Array of shape ``batch_shape + tail``
        """
        tail = tuple(int(t) for t in tail)
        nd = self.ndim
        return blockwise_whole(
            _apply_to_block,
            tuple(range(nd)) + tuple(range(nd + 1, nd + 1 + len(tail))),
            self._array,
            tuple(range(nd + 1)),
            self._frame,
            func,
            kwargs,
            dtype=dtype,
            new_axes={nd + 1 + i: t for i, t in enumerate(tail)},
        )

    def to_array(self, kind: str = "m") -> da.Array:
        """Dense representation of the given kind (see :meth:`dstk.MassFunction.to_array`), lazily.

        Parameters
        ----------
        kind : str, default "m"
            ``"m"`` (masses), or another kind of :meth:`dstk.MassFunction.to_array`
            (e.g. ``"b"`` implicability, ``"q"`` commonality).

        Returns
        -------
        dask.array.Array
            Shape ``batch_shape + (2**n,)``, chunked like the masses.

        Raises
        ------
        ValueError
            Unknown ``kind``.
        """
        check_option(kind, "kind", KINDS)
        if kind == "m":
            return self._array
        return self.map_blocks(_to_array, tail=(self._frame.n_subsets,), kind=kind)

    def pignistic(self) -> da.Array:
        """Pignistic probabilities BetP({x}) = sum over A containing x of m(A) / card(A) (empty set excluded).

        Returns
        -------
        dask.array.Array
            Shape ``batch_shape + (n,)``, one column per label of ``frame``.
        """
        return self.map_blocks(_pignistic, tail=(self._frame.n,))

    def bel(self, subset: Any) -> da.Array:
        """Belief of ``subset``: Bel(A) = sum of m(B) over non-empty B included in A.

        Parameters
        ----------
        subset : set of labels or int bitmask
            The subset A of the frame.

        Returns
        -------
        dask.array.Array
            Shape ``batch_shape``.

        Raises
        ------
        FrameError
            ``subset`` holds a label outside the frame (raised at once).
        """
        return self.map_blocks(_bel, mask=self._subset_mask(subset))

    def pl(self, subset: Any) -> da.Array:
        """Plausibility of ``subset``: Pl(A) = sum of m(B) over B intersecting A.

        Parameters
        ----------
        subset : set of labels or int bitmask
            The subset A of the frame.

        Returns
        -------
        dask.array.Array
            Shape ``batch_shape``.

        Raises
        ------
        FrameError
            ``subset`` holds a label outside the frame (raised at once).
        """
        return self.map_blocks(_pl, mask=self._subset_mask(subset))

    def _subset_mask(self, subset):
        """The bitmask of ``subset``, checked now (not when a chunk is computed)."""
        with naming_argument("subset"):
            return self._frame.subset(subset)


def _to_array(mf, kind):
    return mf.to_array(kind)


def _pignistic(mf):
    return mf.pignistic()


def _bel(mf, mask):
    return mf._bel_mask(mask)


def _pl(mf, mask):
    return mf._pl_mask(mask)


def _check_dense_fits(mass: MassFunction) -> None:
    """Refuse, naming the alternative, a focal-set mass function whose dense chunks could not be built."""
    n = mass.frame.n
    rows = max(1, int(np.prod(mass.batch_shape, dtype=np.float64)))
    if n > 62 or (rows << n) * 8 > _dense.MAX_DENSE_BYTES:
        raise FrameTooLargeError(
            f"dstk.dask holds dense masses, 2**{n} values a mass function on this frame of {n} labels, "
            f"more than the memory limit of {_dense.MAX_DENSE_BYTES / 2**30:.0f} GiB for the "
            f"{rows} mass function(s) given. Combine mass functions in focal-set form in memory with "
            "dstk.combine (any frame size; split the batch yourself, e.g. one call per dask partition "
            "with dask.array.map_blocks or dask.bag), or build the dask masses on a frame of fewer labels."
        )


def as_dask_mass(
    masses: Any, *, frame: Frame | Iterable[Any] | None = None, validate: bool = True, rechunk: bool = False
) -> DaskMassFunction:
    """Return ``masses`` as a :class:`DaskMassFunction`.

    Parameters
    ----------
    masses : DaskMassFunction, MassFunction, dask.array.Array or array_like
        A DaskMassFunction (returned as is), an in-memory dense
        :class:`~dstk.MassFunction` (wrapped in ``"auto"`` chunks), or a dask
        or numpy array of dense masses of shape ``(..., 2**n)``.
    frame : Frame or iterable of labels, optional
        Required for a plain array; for a mass function, if given, it must be
        its frame.
    validate : bool, default True
        Check the chunks of a plain array when they are computed (see
        :class:`DaskMassFunction`).
    rechunk : bool, default False
        Merge a last axis split across chunks instead of raising.

    Returns
    -------
    DaskMassFunction
        The masses, chunked along the batch axes only.

    Raises
    ------
    FrameMismatchError
        ``frame`` differs from the frame of the given mass function.
    DataTypeError
        ``masses`` is None, a string, a dict, a scipy sparse matrix, complex
        or not numeric.
    TypeError
        A plain array without ``frame``.
    ValueError
        ``masses`` ragged or a scalar, or a last axis that does not have
        2**n entries, or is split and ``rechunk`` is False.
    InvalidMassError
        From ``compute``, when ``validate`` and a chunk holds invalid masses.
    FrameTooLargeError
        A mass function in focal-set form (more than 16 labels) whose dense masses exceed the memory
        limit (frames of more than about 28 labels): combine it in memory with :func:`dstk.combine`.

    Notes
    -----
    The dense layout is that of :meth:`dstk.MassFunction.from_array`: index
    = subset bitmask, masses on 2**n subsets (Shafer 1976).

    References
    ----------
    Shafer, G. (1976). A Mathematical Theory of Evidence. Princeton
    University Press.

    Examples
    --------
    >>> import numpy as np
    >>> from dstk import Frame, MassFunction
    >>> from dstk.dask import as_dask_mass
    >>> mass = MassFunction.from_array(np.array([[0.0, 0.5, 0.2, 0.3]]), Frame((0, 1)))
    >>> masses = as_dask_mass(mass)
    >>> masses.batch_shape, masses.pl({1}).compute(scheduler="synchronous").tolist()
    ((1,), [0.5])
    """
    if isinstance(masses, DaskMassFunction):
        if frame is not None and _as_frame(frame) != masses.frame:
            raise FrameMismatchError(f"The masses are on {masses.frame!r}, not on {_as_frame(frame)!r}.")
        return masses
    if isinstance(masses, MassFunction):
        if frame is not None and _as_frame(frame) != masses.frame:
            raise FrameMismatchError(f"The masses are on {masses.frame!r}, not on {_as_frame(frame)!r}.")
        if not masses.is_dense:
            _check_dense_fits(masses)
        return DaskMassFunction(masses.to_array("m"), masses.frame, validate=False, rechunk=rechunk)
    if masses is None or isinstance(masses, (str, bytes, dict)):
        raise DataTypeError(
            "`masses` must be a DaskMassFunction, a MassFunction, or a dask or numpy array of dense masses "
            f"(with `frame=`); got {type(masses).__name__} {masses!r:.60}."
        )
    if frame is None:
        raise TypeError(
            "A plain array of `masses` needs `frame=`; or wrap it first with DaskMassFunction(array, frame)."
        )
    checked_frame = _as_frame(frame)
    raw = _mass_array(masses, checked_frame, "masses", rechunk=rechunk)
    array, unchecked = _with_pending_check(raw, checked_frame, "masses", validate)
    return DaskMassFunction._trusted(array, checked_frame, unchecked)
