"""How every dstk.dask task runs in-memory dstk code on one chunk: no copy of the chunk, serial kernels.

Two things cost a task more than the in-memory call it wraps, and both are
avoided here:

* ``dask.array.map_blocks(..., drop_axis=...)`` builds a blockwise task with
  ``concatenate=True``, which copies every input chunk (``concatenate3``)
  even when the dropped axes hold a single chunk.  :func:`blockwise_whole`
  passes the chunk itself (the dropped axes must be single-chunk, which the
  callers check).
* dstk's kernels spread large batches over numba's threads; inside a task,
  the scheduler's workers already provide the parallelism, and nested threads
  oversubscribe the cores.  :func:`serial_kernels` runs the task's kernels on
  the calling thread only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import dask.array as da
import numba
import numpy as np

__all__ = ["blockwise_whole", "serial_kernels"]


@contextmanager
def serial_kernels() -> Iterator[None]:
    """Run numba's parallel kernels on the calling thread only (``numba.set_num_threads(1)``), then restore."""
    previous = numba.get_num_threads()
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
        concatenate=False,
        dtype=dtype,
        new_axes=new_axes,
        adjust_chunks=adjust_chunks,
        meta=np.empty((0,) * len(out_ind), dtype=dtype),
    )
