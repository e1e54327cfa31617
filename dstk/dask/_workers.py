"""Opt-in tuning of the worker processes of a dask.distributed cluster: glibc's malloc thresholds.

``distributed``'s nanny starts every worker process with
``MALLOC_TRIM_THRESHOLD_=65536`` (to return freed memory to the operating
system at once).  Setting any malloc tunable also switches off glibc's
dynamic mmap threshold, which stays at 128 KiB: every array larger than that
is then a fresh ``mmap`` whose pages fault (and are zeroed by the kernel) on
first touch, and is unmapped when freed.  A plain Python process instead
raises its mmap threshold to the size of the largest freed block (up to
32 MiB) and reuses freed arrays from its heap.  :func:`tune_worker_malloc`
gives the workers that behaviour back, explicitly and only when called.
"""

from __future__ import annotations

import ctypes
import numbers
import platform
import warnings
from typing import Any

try:  # distributed is part of the dask extra, but dstk.dask imports without it
    from distributed.diagnostics.plugin import WorkerPlugin as _WorkerPlugin
except ImportError:  # pragma: no cover - exercised without distributed only
    _WorkerPlugin = object  # type: ignore[assignment,misc]

__all__ = ["tune_worker_malloc", "reuse_buffers", "MAX_MMAP_THRESHOLD"]

#: glibc's ceiling for ``M_MMAP_THRESHOLD`` on 64-bit systems (``DEFAULT_MMAP_THRESHOLD_MAX``,
#: 4 MiB x sizeof(long)); ``mallopt`` refuses larger values.
MAX_MMAP_THRESHOLD = 32 * 2**20

_M_TRIM_THRESHOLD = -1  # mallopt parameter numbers of glibc's <malloc.h>
_M_TOP_PAD = -2
_M_MMAP_THRESHOLD = -3
_PLUGIN_NAME = "dstk-worker-malloc"
_BUFFER_PLUGIN_NAME = "dstk-worker-buffers"

# what the last call of _set_malloc did in this process: None (never called) or (applied, reason)
_STATE: dict[str, Any] = {"applied": None, "reason": "tune_worker_malloc was not called in this process"}


def _set_malloc(mmap_threshold: int, trim_threshold: int) -> tuple[bool, str]:
    """``mallopt(M_MMAP_THRESHOLD)`` and ``mallopt(M_TRIM_THRESHOLD)`` in this process (glibc only)."""
    library, version = platform.libc_ver()
    if library != "glibc":
        result = (False, f"not glibc (C library {library or 'unknown'!r}); nothing changed")
    else:
        try:
            mallopt = ctypes.CDLL("libc.so.6").mallopt
        except (OSError, AttributeError) as error:
            result = (False, f"glibc {version}: mallopt not found ({error}); nothing changed")
        else:
            mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
            mallopt.restype = ctypes.c_int
            mmap_ok = mallopt(_M_MMAP_THRESHOLD, mmap_threshold) == 1
            trim_ok = mallopt(_M_TRIM_THRESHOLD, trim_threshold) == 1
            # a worker thread's arena grows in heaps of at most 64 MiB that glibc unmaps as soon as one
            # is free, whatever the trim threshold; a top pad as large as the largest heap allocation
            # keeps them (glibc's heap_trim), so the task thread reuses its heap as the main thread does
            pad_ok = mallopt(_M_TOP_PAD, mmap_threshold) == 1
            if mmap_ok and trim_ok and pad_ok:
                result = (
                    True,
                    f"glibc {version}: mmap threshold {mmap_threshold}, trim threshold {trim_threshold}, "
                    f"top pad {mmap_threshold}",
                )
            else:
                result = (
                    False,
                    f"glibc {version}: mallopt refused (mmap {mmap_ok}, trim {trim_ok}, top pad {pad_ok})",
                )
    _STATE["applied"], _STATE["reason"] = result
    return result


def _malloc_state() -> tuple[bool | None, str]:
    return _STATE["applied"], _STATE["reason"]


class _SettingPlugin(_WorkerPlugin):  # type: ignore[misc,valid-type]
    """Worker plugin: call the subclass's ``setting(*arguments)`` in every worker, present and future."""

    idempotent = False
    setting: Any = None

    def __init__(self, *arguments: Any) -> None:
        self.arguments = arguments

    def setup(self, worker: Any) -> None:
        type(self).setting(*self.arguments)


class _MallocPlugin(_SettingPlugin):
    """The malloc thresholds (:func:`_set_malloc`) in every worker, also after restarts and scaling."""

    setting = staticmethod(_set_malloc)


def _check_threshold(value: Any, name: str, high: int | None) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"`{name}` must be a whole number of bytes; got {type(value).__name__} {value!r}.")
    number = int(value)
    if number < 0 or (high is not None and number > high):
        bound = f"between 0 and {high} (glibc's ceiling, 32 MiB)" if high is not None else ">= 0"
        raise ValueError(f"`{name}` must be {bound} bytes; got {value!r}.")
    return number


def _check_client(client: Any, function: str) -> None:
    if not (callable(getattr(client, "run", None)) and callable(getattr(client, "register_plugin", None))):
        raise TypeError(
            f"`client` must be a distributed.Client of the cluster to tune; got {type(client).__name__} "
            f"{client!r:.60}. Create one with distributed.Client(cluster)."
        )
    if getattr(client, "asynchronous", False) is True:
        raise TypeError(
            f"`client` is an asynchronous distributed.Client; {function} waits for the workers, so "
            "pass a synchronous client (distributed.Client(cluster)) of the same cluster."
        )


def tune_worker_malloc(
    client: Any, *, mmap_threshold: int = MAX_MMAP_THRESHOLD, trim_threshold: int = 256 * 2**20
) -> dict[str, bool]:
    """Let every worker of ``client``'s cluster reuse freed arrays from its heap (glibc ``mallopt``).

    An explicit opt-in: nothing in :mod:`dstk.dask` changes a cluster
    unless this function is called.  It registers a worker plugin that calls
    ``mallopt(M_MMAP_THRESHOLD, mmap_threshold)``,
    ``mallopt(M_TRIM_THRESHOLD, trim_threshold)`` and
    ``mallopt(M_TOP_PAD, mmap_threshold)`` in each worker process, now and in
    workers that join or restart later.

    Parameters
    ----------
    client : distributed.Client
        A (synchronous) client of the cluster.
    mmap_threshold : int, default 32 MiB
        Allocations of at least this many bytes get their own ``mmap``
        (fresh pages, faulted and zeroed on first touch); smaller ones come
        from the heap and reuse freed memory.  At most 32 MiB (glibc's
        ceiling on 64-bit systems).
    trim_threshold : int, default 256 MiB
        Free memory at the top of the heap above this many bytes is returned
        to the operating system; each worker keeps up to this much freed
        memory for reuse.

    Returns
    -------
    dict of str to bool
        For every worker address, whether the thresholds are set.

    Warns
    -----
    RuntimeWarning
        Workers where nothing was changed (not glibc, e.g. macOS, Windows or
        musl; or ``mallopt`` refused), named with the reason.

    Raises
    ------
    TypeError
        ``client`` is not a distributed client or is an asynchronous one, or
        a threshold is not a whole number.
    ValueError
        A threshold below 0, or ``mmap_threshold`` above 32 MiB.

    Notes
    -----
    ``distributed``'s nanny starts workers with ``MALLOC_TRIM_THRESHOLD_=65536``;
    setting any malloc tunable freezes glibc's mmap threshold at its initial
    128 KiB, so every array above 128 KiB is mapped, page-faulted and unmapped
    per task instead of being reused as in a plain Python process (whose
    threshold follows the largest freed block up to 32 MiB).  Tasks run on
    worker threads, whose glibc arenas grow in heaps of at most 64 MiB that
    are unmapped as soon as they are free, whatever the trim threshold; the
    top pad (extra memory requested with each heap extension and kept when a
    heap is trimmed) keeps them, so that large chunks reuse the same pages
    task after task.  The settings are per process and last until the worker
    exits; the plugin applies them again to restarted workers.  Same effect
    as starting the workers with ``MALLOC_MMAP_THRESHOLD_``,
    ``MALLOC_TRIM_THRESHOLD_`` and ``MALLOC_TOP_PAD_`` in
    ``distributed.nanny.pre-spawn-environ`` (see the guide "Scale-out on
    Dask").  The cost: each worker may keep up to ``trim_threshold`` bytes
    of freed memory that other processes cannot use.

    References
    ----------
    The GNU C Library manual, "Malloc Tunable Parameters" (``mallopt``,
    ``M_MMAP_THRESHOLD``, ``M_TRIM_THRESHOLD``).

    Examples
    --------
    >>> import distributed                                  # doctest: +SKIP
    >>> from dstk.dask import tune_worker_malloc            # doctest: +SKIP
    >>> client = distributed.Client(distributed.LocalCluster(n_workers=2))  # doctest: +SKIP
    >>> tune_worker_malloc(client)                          # doctest: +SKIP
    {'tcp://127.0.0.1:40133': True, 'tcp://127.0.0.1:41621': True}
    """
    _check_client(client, "tune_worker_malloc")
    mmap_threshold = _check_threshold(mmap_threshold, "mmap_threshold", MAX_MMAP_THRESHOLD)
    trim_threshold = _check_threshold(trim_threshold, "trim_threshold", None)
    client.register_plugin(_MallocPlugin(mmap_threshold, trim_threshold), name=_PLUGIN_NAME)
    states = client.run(_malloc_state)
    failed = {address: reason for address, (applied, reason) in states.items() if not applied}
    if failed:
        warnings.warn(
            f"tune_worker_malloc: the malloc thresholds were not set on {len(failed)} of {len(states)} "
            "worker(s): " + "; ".join(f"{address}: {reason}" for address, reason in sorted(failed.items())),
            RuntimeWarning,
            stacklevel=2,
        )
    return {address: bool(applied) for address, (applied, _) in states.items()}


def _set_buffer_pool(max_idle_bytes: int, max_idle_seconds: float) -> tuple[int, float]:
    """Set the limits of this process's pool of reused buffers (:data:`dstk._kernels._buffers.POOL`)."""
    from .._kernels._buffers import POOL

    POOL.max_idle_bytes = max_idle_bytes
    POOL.max_idle_seconds = max_idle_seconds
    if max_idle_bytes == 0:
        POOL.clear()
    return POOL.max_idle_bytes, POOL.max_idle_seconds


class _BufferPlugin(_SettingPlugin):
    """The limits of the pool of reused buffers (:func:`_set_buffer_pool`) in every worker, present and future."""

    setting = staticmethod(_set_buffer_pool)


def reuse_buffers(
    client: Any = None, *, max_idle_bytes: int = 256 * 2**20, max_idle_seconds: float = 10.0
) -> dict[str, tuple[int, float]] | tuple[int, float]:
    """Set how much memory the tasks of :mod:`dstk.dask` keep for reuse (0 bytes: none).

    dstk's dask tasks take their large arrays (results and temporaries of at
    least 128 KiB) from a pool of buffers in each process: a buffer returns
    to the pool when the last array viewing it is freed, and the next task's
    array of the same size reuses its pages instead of a fresh mapping, whose
    pages fault and are zeroed by the kernel on first touch (in a
    ``distributed`` worker every array above 128 KiB is a fresh mapping; see
    :func:`tune_worker_malloc`).  It is on by default with the values below;
    this function changes them, in this process or in every worker of a
    cluster.  Only dstk's own allocations inside dask tasks use the pool.

    Parameters
    ----------
    client : distributed.Client, optional
        A synchronous client: the limits are set in every worker, now and in
        workers that join or restart later (a worker plugin).  Without it,
        in this process (tasks of dask's threaded or synchronous scheduler).
    max_idle_bytes : int, default 256 MiB
        Idle buffers kept per process, at most; the oldest are freed first,
        and a buffer larger than this is never kept.  0 turns reuse off and
        frees the idle buffers.
    max_idle_seconds : float, default 10
        A buffer idle for longer is freed (by a timer thread, so that a
        process that stops using dstk returns the memory).

    Returns
    -------
    dict or tuple
        With ``client``: for every worker address, ``(max_idle_bytes,
        max_idle_seconds)`` as set; without it, that pair for this process.

    Raises
    ------
    TypeError
        ``client`` is not a synchronous distributed client, or a limit is
        not a number.
    ValueError
        A limit below 0, or a non-finite number of seconds.

    Notes
    -----
    An array from the pool is a view of its buffer (``flags.owndata`` is
    False); every view derived from it keeps the buffer in use, so the
    memory is never reused while any of them lives.  The idle buffers count
    as unmanaged memory in ``distributed``'s reports.

    Examples
    --------
    >>> import dstk.dask
    >>> dstk.dask.reuse_buffers(max_idle_bytes=64 * 2**20)
    (67108864, 10.0)
    >>> dstk.dask.reuse_buffers()  # the defaults again
    (268435456, 10.0)
    """
    max_idle_bytes = _check_threshold(max_idle_bytes, "max_idle_bytes", None)
    if isinstance(max_idle_seconds, bool) or not isinstance(max_idle_seconds, numbers.Real):
        raise TypeError(
            f"`max_idle_seconds` must be a number of seconds; got {type(max_idle_seconds).__name__} "
            f"{max_idle_seconds!r}."
        )
    seconds = float(max_idle_seconds)
    if not (seconds >= 0 and seconds < float("inf")):
        raise ValueError(f"`max_idle_seconds` must be a finite number >= 0; got {max_idle_seconds!r}.")
    if client is None:
        return _set_buffer_pool(max_idle_bytes, seconds)
    _check_client(client, "reuse_buffers")
    client.register_plugin(_BufferPlugin(max_idle_bytes, seconds), name=_BUFFER_PLUGIN_NAME)
    return client.run(_set_buffer_pool, max_idle_bytes, seconds)
