"""Reused buffers for the large arrays that dask tasks make (outputs and temporaries of the kernels).

In a worker of ``distributed`` every array above 128 KiB is a fresh ``mmap``
(the nanny's ``MALLOC_TRIM_THRESHOLD_`` freezes glibc's mmap threshold), and
so is every array above 32 MiB in any process: its pages fault and are zeroed
by the kernel on first touch, which costs as much as the work itself for
memory-bound kernels.  Inside :func:`reusing_buffers` the allocation sites of
the kernels (:func:`empty`, :func:`zeros`) take their memory from a
:class:`BufferPool`: a buffer returns to the pool when the last array viewing
it is freed, and the next array of the same size class reuses its pages.
Outside the context, and for small arrays, :func:`empty` is ``np.empty``.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
import time
import weakref
from collections.abc import Iterator

import numpy as np

__all__ = ["BufferPool", "empty", "zeros", "reusing_buffers", "POOL", "ACTIVE_POOL", "MIN_POOLED_BYTES"]

#: Arrays smaller than this come from ``np.empty`` (the C library reuses them well enough).
MIN_POOLED_BYTES = 128 * 2**10
_SMALL_CLASS = 64 * 2**10  # size classes: multiples of 64 KiB up to 2 MiB, then of 2 MiB
_LARGE_CLASS = 2 * 2**20


def _size_class(nbytes: int) -> int:
    step = _SMALL_CLASS if nbytes < _LARGE_CLASS else _LARGE_CLASS
    return -(-nbytes // step) * step


class BufferPool:
    """Idle buffers kept for reuse, at most ``max_idle_bytes`` of them, each for at most ``max_idle_seconds``.

    Thread-safe.  An array from :meth:`empty` is a view of a pooled buffer
    through a ``memoryview`` (so that every view of the array, however
    derived, keeps the buffer in use); when the last of them is freed, the
    buffer returns to the pool, unless the pool would then hold more than
    ``max_idle_bytes``, in which case its oldest idle buffers are freed first.
    Buffers idle for longer than ``max_idle_seconds`` are freed at the next
    use of the pool or by a timer, so that a worker that stops using dstk
    returns the memory.
    """

    def __init__(self, max_idle_bytes: int = 256 * 2**20, max_idle_seconds: float = 10.0) -> None:
        self._lock = threading.Lock()
        self._local = threading.local()  # .busy: this thread is inside the pool's critical section
        self._pending: list[tuple[np.ndarray, int]] = []  # buffers freed while their thread was busy
        self._idle: dict[int, list[tuple[float, np.ndarray]]] = {}
        self._idle_bytes = 0
        self._timer: threading.Timer | None = None
        self.max_idle_bytes = int(max_idle_bytes)
        self.max_idle_seconds = float(max_idle_seconds)
        self.reused = 0  # counters, for tests and benchmarks
        self.allocated = 0
        _POOLS.add(self)

    def _after_fork(self) -> None:
        """In a forked child: a fresh lock (another thread may have held it at the fork), no timer, no idle buffers."""
        self._lock = threading.Lock()
        self._local = threading.local()
        self._pending = []
        self._idle = {}
        self._idle_bytes = 0
        self._timer = None

    @property
    def idle_bytes(self) -> int:
        """Bytes held by idle buffers."""
        return self._idle_bytes

    def empty(self, shape: int | tuple[int, ...], dtype: type | np.dtype = np.float64) -> np.ndarray:
        """An uninitialised C-contiguous array on a pooled buffer (reused when one of its size class is idle)."""
        dtype = np.dtype(dtype)
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        count = 1
        for extent in shape:
            count *= int(extent)
        nbytes = count * dtype.itemsize
        size = _size_class(max(nbytes, 1))
        raw = None
        with self._critical():
            self._expire(time.monotonic())
            stack = self._idle.get(size)
            if stack:
                raw = stack.pop()[1]
                if not stack:
                    del self._idle[size]
                self._idle_bytes -= size
                self.reused += 1
        if raw is None:
            raw = np.empty(size, dtype=np.uint8)
            self.allocated += 1
        window = memoryview(raw)[:nbytes]  # type: ignore[arg-type]
        flat = np.frombuffer(window, dtype=dtype, count=count)
        del window
        # flat.base: numpy's own memoryview of the buffer, the object every view of the array keeps alive
        # (numpy collapses chains of views up to it); the buffer returns to the pool when it is freed
        weakref.finalize(flat.base, self._release, raw, size).atexit = False
        return flat.reshape(shape)

    def zeros(self, shape: int | tuple[int, ...], dtype: type | np.dtype = np.float64) -> np.ndarray:
        out = self.empty(shape, dtype)
        out.fill(0)
        return out

    def clear(self) -> None:
        """Free every idle buffer."""
        with self._critical():
            self._pending.clear()
            self._idle.clear()
            self._idle_bytes = 0

    @contextlib.contextmanager
    def _critical(self) -> Iterator[None]:
        """The pool's lock; buffers freed meanwhile by this thread (a garbage collection) wait in ``_pending``."""
        with self._lock:
            self._local.busy = True
            try:
                yield
                while self._pending:  # freed by this thread while it held the lock: kept now
                    self._keep(*self._pending.pop())
            finally:
                self._local.busy = False

    def _release(self, raw: np.ndarray, size: int) -> None:
        """The finalizer of a pooled array's buffer (runs when its last view is freed, in any thread)."""
        if getattr(self._local, "busy", False):  # inside this thread's own critical section: no re-entry
            self._pending.append((raw, size))
            return
        with self._critical():
            self._keep(raw, size)

    def _keep(self, raw: np.ndarray, size: int) -> None:
        if size > self.max_idle_bytes:
            return
        now = time.monotonic()
        self._expire(now)
        while self._idle_bytes + size > self.max_idle_bytes:
            self._drop_oldest()
        self._idle.setdefault(size, []).append((now, raw))
        self._idle_bytes += size
        if self._timer is None and self.max_idle_seconds > 0:
            self._timer = threading.Timer(self.max_idle_seconds, self._on_timer)
            self._timer.daemon = True
            self._timer.start()

    def _on_timer(self) -> None:
        with self._critical():
            self._timer = None
            self._expire(time.monotonic())
            if self._idle_bytes and self.max_idle_seconds > 0:
                self._timer = threading.Timer(self.max_idle_seconds, self._on_timer)
                self._timer.daemon = True
                self._timer.start()

    def _expire(self, now: float) -> None:
        limit = now - self.max_idle_seconds
        for size in list(self._idle):
            stack = self._idle[size]
            kept = [(t, raw) for t, raw in stack if t >= limit]
            self._idle_bytes -= size * (len(stack) - len(kept))
            if kept:
                self._idle[size] = kept
            else:
                del self._idle[size]

    def _drop_oldest(self) -> None:
        size, index = min(
            ((size, i) for size, stack in self._idle.items() for i in range(len(stack))),
            key=lambda item: self._idle[item[0]][item[1]][0],
        )
        del self._idle[size][index]
        if not self._idle[size]:
            del self._idle[size]
        self._idle_bytes -= size


def _reset_pools_after_fork() -> None:
    for pool in list(_POOLS):
        pool._after_fork()


_POOLS: weakref.WeakSet[BufferPool] = weakref.WeakSet()
if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_reset_pools_after_fork)

#: The pool of this process, used inside :func:`reusing_buffers`.
POOL = BufferPool()
#: The pool in use (inside :func:`reusing_buffers`), else None: outside, :func:`empty` is ``np.empty``.
ACTIVE_POOL: contextvars.ContextVar[BufferPool | None] = contextvars.ContextVar(
    "dstk_buffer_pool", default=None
)


@contextlib.contextmanager
def reusing_buffers(pool: BufferPool | None = None) -> Iterator[BufferPool]:
    """Within the block, :func:`empty` and :func:`zeros` take arrays of at least 128 KiB from ``pool`` (default :data:`POOL`)."""
    pool = POOL if pool is None else pool
    token = ACTIVE_POOL.set(pool if pool.max_idle_bytes > 0 else None)
    try:
        yield pool
    finally:
        ACTIVE_POOL.reset(token)


def _pool_for(shape: int | tuple[int, ...], dtype: type | np.dtype) -> BufferPool | None:
    """The active pool when an array of this shape and dtype is large enough to take from it, else None."""
    pool = ACTIVE_POOL.get()
    if pool is not None and np.prod(shape, dtype=np.int64) * np.dtype(dtype).itemsize >= MIN_POOLED_BYTES:
        return pool
    return None


def empty(shape: int | tuple[int, ...], dtype: type | np.dtype = np.float64) -> np.ndarray:
    """``np.empty``, or a pooled array inside :func:`reusing_buffers` (C order, at least 128 KiB)."""
    pool = _pool_for(shape, dtype)
    return np.empty(shape, dtype=dtype) if pool is None else pool.empty(shape, dtype)


def zeros(shape: int | tuple[int, ...], dtype: type | np.dtype = np.float64) -> np.ndarray:
    """``np.zeros``, or a zeroed pooled array inside :func:`reusing_buffers`."""
    pool = _pool_for(shape, dtype)
    return np.zeros(shape, dtype=dtype) if pool is None else pool.zeros(shape, dtype)
