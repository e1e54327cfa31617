"""numba kernels of dstk: plain arrays in and out, one module per algorithm.

Every module compiles with :func:`dstk._kernels._jit.njit` and pins the source
hashes of the kernel modules it calls (``CALLED_KERNEL_SOURCES``), so that
numba's on-disk cache never runs an old version of a called kernel; see
:mod:`dstk._kernels._jit`.
"""
