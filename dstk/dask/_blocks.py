"""How every dstk.dask task runs in-memory dstk code on one chunk: no copy of the chunk, serial kernels.

Two things cost a task more than the in-memory call it wraps, and both are
avoided here:

* ``dask.array.map_blocks(..., drop_axis=...)`` builds a blockwise task with
  ``concatenate=True``, which copies every input chunk (``concatenate3``)
  even when the dropped axes hold a single chunk.  :func:`blockwise_whole`
  passes the chunk itself (the dropped axes must be single-chunk, which the
  callers check).
* Every task costs the distributed scheduler and worker a fixed amount of
  CPU (about 1-2 ms of worker CPU on a loaded 2-core machine), whatever its
  size.  The layers built here are ``Blockwise`` layers with dask's default
  ``concatenate=None`` (that of ``map_blocks`` and element-wise operations),
  so that ``compute`` fuses them with the blockwise steps before and after
  them into one task per chunk; slicing a packed result
  (:func:`split_last_slot`) is blockwise too, where ``x[..., :n]`` would be
  a separate, unfusable task per chunk.
* dstk's kernels spread large batches over numba's threads; inside a task,
  the scheduler's workers already provide the parallelism, and nested threads
  oversubscribe the cores.  :func:`serial_kernels` runs the task's kernels on
  the calling thread only, and lets them take their large arrays from the
  pool of reused buffers (:mod:`dstk._kernels._buffers`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import dask.array as da
import numba
import numpy as np

from .._kernels._buffers import reusing_buffers

__all__ = ["blockwise_whole", "last_axis_entry", "serial_kernels", "split_last_slot"]


@contextmanager
def serial_kernels() -> Iterator[None]:
    """The context of a dask task: numba's kernels on the calling thread only, large arrays from the pool.

    ``numba.set_num_threads(1)`` (restored after), and
    :func:`dstk._kernels._buffers.reusing_buffers` for the arrays the kernels allocate.
    """
    previous = numba.get_num_threads()
    with reusing_buffers():
        if previous == 1:
            yield
            return
        numba.set_num_threads(1)  # per calling thread: other threads of the worker are not affected
        try:
            yield
        finally:
            numba.set_num_threads(previous)


def _call_whole(func, block, *args):
    while isinstance(block, list):  # one block per dropped axis, each of a single chunk
        block = block[0]
    with serial_kernels():
        return func(block, *args)


def blockwise_whole(
    func: Callable[..., np.ndarray],
    out_ind: tuple[int, ...],
    array: da.Array,
    in_ind: tuple[int, ...],
    *args: Any,
    dtype: Any,
    new_axes: dict[int, int] | None = None,
    adjust_chunks: dict[int, int] | None = None,
) -> da.Array:
    """``func(chunk, *args)`` for every chunk of ``array``, one task per chunk, without copying the chunk.

    Parameters
    ----------
    func : callable
        Takes one chunk (an ndarray) and ``args``; returns the output block.
    out_ind, in_ind : tuple of int
        Index labels of the output and of ``array`` (as in
        :func:`dask.array.blockwise`); labels of ``in_ind`` missing from
        ``out_ind`` are dropped and must be single-chunk axes.
    *args
        Passed to ``func`` unchanged (plain objects or ``dask.delayed``).
    dtype : numpy dtype
        Of the output.
    new_axes, adjust_chunks : dict, optional
        As in :func:`dask.array.blockwise`: sizes of output axes absent from
        ``array``, and new (single-chunk) sizes of kept axes.

    Returns
    -------
    dask.array.Array
    """
    dropped = [axis for axis, label in enumerate(in_ind) if label not in out_ind]
    assert all(len(array.chunks[axis]) == 1 for axis in dropped), "dropped axes must be single-chunk"
    pairs: list[Any] = [func, None, array, in_ind]
    for arg in args:
        pairs += [arg, None]
    return da.blockwise(
        _call_whole,
        out_ind,
        *pairs,
        concatenate=None,  # lists, as False, but fusable with map_blocks and element-wise layers
        dtype=dtype,
        new_axes=new_axes,
        adjust_chunks=adjust_chunks,
        meta=np.empty((0,) * len(out_ind), dtype=dtype),
    )


def _leading(block, size):
    return block[..., :size]


def _slot(block, index):
    return block[..., index]


def split_last_slot(packed: da.Array, size: int) -> tuple[da.Array, da.Array]:
    """``(packed[..., :size], packed[..., size])`` as blockwise layers that fuse with their consumers.

    Parameters
    ----------
    packed : dask.array.Array
        Its last axis is one chunk of ``size + 1`` entries (e.g. masses then
        the conflict).
    size : int
        Number of leading entries.

    Returns
    -------
    leading, slot : dask.array.Array
        Views of each chunk (no copy), with the chunks of ``packed`` on the
        other axes.
    """
    index = tuple(range(packed.ndim))
    leading = da.blockwise(
        _leading,
        index,
        packed,
        index,
        size,
        None,
        dtype=packed.dtype,
        adjust_chunks={packed.ndim - 1: size},
        meta=np.empty((0,) * packed.ndim, dtype=packed.dtype),
    )
    return leading, last_axis_entry(packed, size)


def last_axis_entry(packed: da.Array, index: int) -> da.Array:
    """``packed[..., index]`` as a blockwise layer that fuses with its consumers (a view of each chunk).

    Parameters
    ----------
    packed : dask.array.Array
        Its last axis is one chunk.
    index : int
        Entry of the last axis.

    Returns
    -------
    dask.array.Array
        With the chunks of ``packed`` on the other axes.
    """
    axes = tuple(range(packed.ndim))
    return blockwise_whole(_slot, axes[:-1], packed, axes, index, dtype=packed.dtype)
