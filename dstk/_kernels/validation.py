"""One-pass check of mass rows (numba kernels), serial and threaded.

Every kernel reads a C-contiguous float64 array ``m`` of shape ``(rows,
size)`` once, without branches in the inner loop: a row passes when the sum
of its entries is within ``tolerance`` of 1 and its smallest entry is at
least ``-tolerance``.  A NaN or infinite entry makes the row sum NaN or
infinite and fails the first test, so finiteness needs no separate check.
"""

import numba
import numpy as np
from numba import prange

from dstk._kernels._jit import cold_alternative, njit

#: Least number of values for which :func:`check_mass_rows` uses threads (2**24: 128 MiB).  The
#: check is one pass over memory: on the shared two-core machine (load 8) the threaded kernel took
#: 16 ms of CPU (48 ms wall) at 1.6 * 10**6 values where the serial one took 1.3 ms (1.4 ms wall),
#: and 24 ms against 12 ms at 1.6 * 10**7; compiling it costs about 2 s of a cold start (the serial
#: kernel 0.4 s).  Each deferred mass function is checked once.
PARALLEL_MIN_VALUES = 1 << 24

#: Below this number of values :func:`check_mass_rows` uses numpy: a few
#: microseconds more per call, but no compilation (about 0.6 s of CPU on a
#: cold cache) on the path of every small input.
COMPILED_MIN_VALUES = 1 << 14


# cold_alternative_work: values a process checks with numpy (above COMPILED_MIN_VALUES) before it
# compiles the kernel for larger inputs, unless it is compiled or cached: about one compile time
# (0.4-0.5 s of CPU) at 10-15 ns per value in numpy (the kernel: about 1 ns), so that a first call
# on 10**5 rows checks in 20 ms instead of compiling (budget factor 1: this is the whole budget).
@njit(cache=True, cold_alternative_work=1 << 25, interpreted_budget=1)
def _check_range(m, tolerance, r0, r1):
    """(bad, small_negative) over rows r0:r1; see the module docstring."""
    size = m.shape[1]
    bad = False
    small_negative = False
    if size == 4:
        for r in range(r0, r1):
            x0 = m[r, 0]
            x1 = m[r, 1]
            x2 = m[r, 2]
            x3 = m[r, 3]
            total = (x0 + x1) + (x2 + x3)
            low = min(min(x0, x1), min(x2, x3))
            bad |= (not abs(total - 1.0) <= tolerance) | (low < -tolerance)
            small_negative |= low < 0.0
        return bad, small_negative
    for r in range(r0, r1):
        total = 0.0
        low = 0.0
        for a in range(size):
            x = m[r, a]
            total += x
            low = min(low, x)
        bad |= (not abs(total - 1.0) <= tolerance) | (low < -tolerance)
        small_negative |= low < 0.0
    return bad, small_negative


@njit(cache=True, parallel=True)
def _check_parallel(m, tolerance, n_tasks):
    rows = m.shape[0]
    bad = np.zeros(n_tasks, dtype=np.bool_)
    small = np.zeros(n_tasks, dtype=np.bool_)
    for t in prange(n_tasks):
        bad[t], small[t] = _check_range(m, tolerance, t * rows // n_tasks, (t + 1) * rows // n_tasks)
    return bad.any(), small.any()


def _check_numpy(m, tolerance):
    """:func:`_check_range` in numpy over rows ``m`` (..., size), the entries summed in the kernel's order."""
    if m.shape[-1] == 4:
        total = (m[..., 0] + m[..., 1]) + (m[..., 2] + m[..., 3])
    else:
        total = m[..., 0].copy()
        for a in range(1, m.shape[-1]):
            total += m[..., a]
    low = m.min(axis=-1)
    bad = bool(np.any(~(np.abs(total - 1.0) <= tolerance) | (low < -tolerance)))
    return bad, bool(np.any(low < 0.0))


def check_mass_rows(m, tolerance):
    """Return ``(bad, small_negative)`` for the mass rows ``m`` (rows, size).

    ``bad`` is True when some row has a NaN or infinite entry, an entry below
    ``-tolerance`` or a sum off 1 by more than ``tolerance`` (the caller then
    runs the detailed check that names the problem); ``small_negative`` when
    some entry lies in ``[-tolerance, 0)`` (rounding noise the caller sets to
    0).  Rows are spread over numba's threads for large inputs; inputs of
    fewer than :data:`COMPILED_MIN_VALUES` values, and on a cold start those
    within the budget of :func:`_check_range`, are checked in numpy (same sums,
    same results).
    """
    if m.size < COMPILED_MIN_VALUES:
        return _check_numpy(m, float(tolerance))
    threads = numba.get_num_threads()
    if threads > 1 and m.size >= PARALLEL_MIN_VALUES:
        return _check_parallel(m, float(tolerance), 4 * threads)
    if cold_alternative(_check_range, m.size):
        return _check_numpy(m, float(tolerance))
    # the range kernel itself, not a kernel calling it: one compilation on a cold start, the
    # specialisation (int64 bounds) that the threaded kernel calls
    return _check_range(m, float(tolerance), 0, m.shape[0])
