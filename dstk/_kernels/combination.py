"""Combination rules on dense mass vectors (numba kernels).

Inputs are C-contiguous float64 arrays ``m`` of shape ``(rows, K, size)``:
``rows`` independent combinations of ``K`` sources each, ``size = 2**n``.
Outputs have shape ``(rows, size)``.  The transforms are the row passes of
:mod:`dstk._kernels.moebius`, so that the ``K`` sources of one row are folded
with a single scratch buffer.
"""

import math

import numba
import numpy as np
from llvmlite import ir
from numba import prange
from numba.core import cgutils, types
from numba.extending import intrinsic, overload

from dstk._kernels import _buffers, _jit
from dstk._kernels._jit import call_kernel, cold_alternative, njit, read_only
from dstk._kernels.moebius import subset_pass, sum_from, superset_pass
from dstk._kernels.validation import _check_numpy

# Source hashes of the kernel modules called here (see dstk._kernels._jit).
CALLED_KERNEL_SOURCES = {
    "dstk._kernels.moebius": "c6be9c7a6d9ad709",
    "dstk._kernels.validation": "a46dbc271f33dce4",
}


@njit(cache=True)
def _rescale_nonempty(acc):
    """Divide acc[1:] by its maximum (when positive); return the log of the factor."""
    size = acc.shape[0]
    scale = 0.0
    for a in range(1, size):
        if acc[a] > scale:
            scale = acc[a]
    if scale > 0.0:
        for a in range(1, size):
            acc[a] /= scale
        return math.log(scale)
    return 0.0


@njit(cache=True)
def _kappa(total, log_scale):
    """K = 1 - total * exp(log_scale), the conflict of a normalised commonality product (>= 0)."""
    k_val = 1.0 - total if log_scale == 0.0 else -math.expm1(math.log(total) + log_scale)
    return k_val if k_val > 0.0 else 0.0


@njit(cache=True)
def _finish_conjunctive(acc, normalize, log_scale):
    """Commonality product -> masses in place; return (kappa, total conflict flag)."""
    size = acc.shape[0]
    if normalize:
        acc[0] = 0.0
        superset_pass(acc, -1.0)
        total = sum_from(acc, 1)
        if total > 0.0:
            acc[0] = 0.0
            for a in range(1, size):
                acc[a] /= total
            return _kappa(total, log_scale), False
        for a in range(size):
            acc[a] = 0.0
        return 1.0, True
    superset_pass(acc, -1.0)
    total = sum_from(acc, 1)
    # m(empty) is recomputed from the others so that the row sums to 1
    acc[0] = 1.0 - total if total < 1.0 else 0.0
    return acc[0], False


#: Smallest positive normal float64.  A product of two non-zero factors that
#: lands below it has lost bits (subnormal) or vanished (underflow to 0).
_NORMAL_MIN = 2.2250738585072014e-308

#: Above this product of rescaling factors, a fold takes its log (far from overflow).
_LARGE = 1e280

#: Least number of input values for which :func:`conjunctive` spreads its
#: rows over numba's threads (``parallel=None``): 2**22 values (32 MiB).
#: On an idle two-core machine two threads took 0.78x the time of one at
#: 10**6 values, 0.71x at 4 * 10**6 and 0.69x at 1.6 * 10**7
#: (``benchmarks/bench_core.py``, table f3); on a machine whose cores are
#: busy with other work, starting the threads can cost more than the fold.
PARALLEL_MIN_VALUES = 1 << 22

# The row kernels' ``interpreted_max_work`` (their decorators) is the largest input (values read:
# rows x sources x subsets) of a serial fold that :func:`dstk._kernels._jit.call_kernel` runs
# interpreted instead of compiling the kernel: about 20 ms interpreted (0.3 us per value for the
# binary and two-source kernels, 0.45 us ternary, 1.2 us for :func:`dempster_extended`), where
# compiling the binary fold with its callees takes about 2 s of a cold start (measured
# 2026-11-24).  The fold of larger frames is always compiled: it sums with
# :func:`dstk._kernels.moebius.sum_from`, whose fast-math (reassociated) sum the interpreter does
# not reproduce; so is :func:`dempster_extended` beyond binary frames (a sum of three terms has
# one order whatever the reassociation).


@njit(cache=True)
def _lost(product, x, y):
    """True when ``product = x * y`` of two non-zero factors is not a normal float."""
    return (product < _NORMAL_MIN) & (x != 0.0) & (y != 0.0)


@njit(cache=True)
def _checked_binary_factors(q1, q2, q3, m1, m2, m3):
    """Commonalities q({0}), q({1}), q(frame) times those of one binary source (m({0}), m({1}), m(frame)).

    Returns the three products and whether one of them, of non-zero
    factors, left the normal float64 range (:func:`_lost`).
    """
    f1 = m1 + m3
    f2 = m2 + m3
    p1 = q1 * f1
    p2 = q2 * f2
    p3 = q3 * m3
    return p1, p2, p3, _lost(p1, q1, f1) | _lost(p2, q2, f2) | _lost(p3, q3, m3)


#: The extended fold keeps every commonality factor and product within
#: [2**-400, 2**400] (times a power of two kept apart), so that a product of
#: two of them is a normal float64, rounded as with an unbounded exponent;
#: multiplying by either bound is exact.
_EXTENDED_LOW = 2.0**-400
_EXTENDED_HIGH = 2.0**400
_EXTENDED_SHIFT = 400


@njit(cache=True)
def _extended_step(q, e, f):
    """``q * 2**e`` times ``f`` -> ``(q', e')``, with ``q'`` kept within [2**-400, 2**400] (or 0).

    A factor outside those bounds (zero, subnormal or huge; rare) is split by
    ``math.frexp``; a product leaving them is scaled back by 2**400.  Every
    product is thus of two normal floats with a normal result: the same
    rounding as with an unbounded exponent (scaling by a power of two is
    exact), at the cost of two comparisons.
    """
    if not _EXTENDED_LOW <= abs(f) <= _EXTENDED_HIGH:
        f, d = math.frexp(f)
        e += d
    p = q * f
    if abs(p) < _EXTENDED_LOW and p != 0.0:
        return p * _EXTENDED_HIGH, e - _EXTENDED_SHIFT
    if abs(p) > _EXTENDED_HIGH:
        return p * _EXTENDED_LOW, e + _EXTENDED_SHIFT
    return p, e


#: Sources folded between two renormalisations of the extended folds, and the
#: factors a block may hold for its plain products to stay normal: from a
#: commonality in [1/2, 1), 16 factors in [2**-38, 2] keep every partial
#: product within [2**-609, 2**16].
_EXTENDED_BLOCK = 16
_BLOCK_LOW = 2.0**-38
_BLOCK_HIGH = 2.0


@njit(cache=True)
def _normalized(q, e):
    """``q * 2**e`` as ``(mantissa in [1/2, 1), exponent)`` (0 stays 0)."""
    g, d = math.frexp(q)
    return g, e + d


@njit(cache=True)
def _extended_binary_fold(s, acc, expo):
    """Commonality products of the sources ``s`` (K, 4) of a binary frame, in extended range.

    Writes ``acc * 2**expo`` (size 4, entry 0 unused); the factors are those
    of :func:`dstk._kernels.moebius.superset_pass`: q({0}) = m({0}) +
    m(frame), q({1}) = m({1}) + m(frame), q(frame) = m(frame).  Blocks of
    16 sources are multiplied plainly from mantissas in [1/2, 1) when their
    factors lie in [2**-38, 2] (no product can leave the normal range), and
    otherwise product by product (:func:`_extended_step`); the same bits
    either way, at about the cost of an ordinary fold.
    """
    q1 = q2 = q3 = 1.0
    e1 = e2 = e3 = 0
    k_sources = s.shape[0]
    for k0 in range(0, k_sources, _EXTENDED_BLOCK):
        k1 = min(k0 + _EXTENDED_BLOCK, k_sources)
        p1, p2, p3 = q1, q2, q3
        low = _BLOCK_HIGH
        high = _BLOCK_LOW
        for k in range(k0, k1):
            x3 = s[k, 3]
            f1 = s[k, 1] + x3
            f2 = s[k, 2] + x3
            p1 *= f1
            p2 *= f2
            p3 *= x3
            low = min(low, min(x3, min(f1, f2)))
            high = max(high, max(f1, f2))
        if not (low >= _BLOCK_LOW and high <= _BLOCK_HIGH):
            p1, p2, p3 = q1, q2, q3
            for k in range(k0, k1):
                x3 = s[k, 3]
                p1, e1 = _extended_step(p1, e1, s[k, 1] + x3)
                p2, e2 = _extended_step(p2, e2, s[k, 2] + x3)
                p3, e3 = _extended_step(p3, e3, x3)
        q1, e1 = _normalized(p1, e1)
        q2, e2 = _normalized(p2, e2)
        q3, e3 = _normalized(p3, e3)
    acc[0], acc[1], acc[2], acc[3] = 1.0, q1, q2, q3
    expo[0], expo[1], expo[2], expo[3] = 0, e1, e2, e3


@njit(cache=True)
def _ternary_factors(s, k):
    """The seven non-empty commonalities of source row ``s[k]`` (8,), added as
    :func:`dstk._kernels.moebius.superset_pass` adds them (same bits)."""
    x7 = s[k, 7]
    f3 = s[k, 3] + x7
    f5 = s[k, 5] + x7
    f6 = s[k, 6] + x7
    return (s[k, 1] + s[k, 3]) + f5, (s[k, 2] + s[k, 3]) + f6, f3, (s[k, 4] + s[k, 5]) + f6, f5, f6, x7


@njit(cache=True)
def _extended_ternary_fold(s, acc, expo):
    """:func:`_extended_binary_fold` for a three-label frame: sources ``s`` (K, 8), outputs of size 8."""
    q = np.ones(8)
    e = np.zeros(8, dtype=np.int64)
    p = np.empty(8)
    k_sources = s.shape[0]
    for k0 in range(0, k_sources, _EXTENDED_BLOCK):
        k1 = min(k0 + _EXTENDED_BLOCK, k_sources)
        p1, p2, p3, p4, p5, p6, p7 = q[1], q[2], q[3], q[4], q[5], q[6], q[7]
        low = _BLOCK_HIGH
        high = _BLOCK_LOW
        for k in range(k0, k1):
            f1, f2, f3, f4, f5, f6, f7 = _ternary_factors(s, k)
            p1 *= f1
            p2 *= f2
            p3 *= f3
            p4 *= f4
            p5 *= f5
            p6 *= f6
            p7 *= f7
            low = min(min(low, min(f1, f2)), min(min(f3, f4), min(min(f5, f6), f7)))
            high = max(max(high, max(f1, f2)), max(max(f3, f4), max(max(f5, f6), f7)))
        p[1], p[2], p[3], p[4], p[5], p[6], p[7] = p1, p2, p3, p4, p5, p6, p7
        if not (low >= _BLOCK_LOW and high <= _BLOCK_HIGH):
            for x in range(1, 8):
                p[x] = q[x]
            for k in range(k0, k1):
                f = _ternary_factors(s, k)
                for x in range(1, 8):
                    p[x], e[x] = _extended_step(p[x], e[x], f[x - 1])
        for x in range(1, 8):
            q[x], e[x] = _normalized(p[x], e[x])
    for x in range(8):
        acc[x] = q[x]
        expo[x] = e[x]


@njit(cache=True)
def _extended_masses(acc, expo):
    """Commonality products ``acc * 2**expo`` -> normalised masses in ``acc``; return (kappa, total conflict).

    The products are scaled by the power of two of the largest (exact),
    turned into masses and divided by the sum of the non-empty ones.
    """
    size = acc.shape[0]
    top = 0
    found = False
    for x in range(1, size):
        if acc[x] != 0.0:
            g, e = math.frexp(acc[x])
            acc[x] = g
            expo[x] += e
            if not found or expo[x] > top:
                top = expo[x]
                found = True
    acc[0] = 0.0
    if found:
        for x in range(1, size):
            acc[x] = math.ldexp(acc[x], int(expo[x] - top)) if acc[x] != 0.0 else 0.0
        superset_pass(acc, -1.0)
        acc[0] = 0.0
    total = sum_from(acc, 1) if found else 0.0
    if not total > 0.0:
        for x in range(size):
            acc[x] = 0.0
        return 1.0, True
    for x in range(1, size):
        acc[x] /= total
    # 1 - K = total * 2**top
    k_val = -math.expm1(math.log(total) + top * math.log(2.0))
    return (k_val if k_val > 0.0 else 0.0), False


@njit(cache=True, interpreted_max_work=16_384)
def dempster_extended(m, rows, out, kappa, total_conflict):
    """Dempster's rule of the K sources of the rows ``rows`` of ``m``, in extended exponent range.

    Each commonality product is kept as a float64 within [2**-400, 2**400]
    and an integer power of two (:func:`_extended_step`), so no product
    underflows whatever the number of sources and the size of their masses,
    and each source costs about what it costs in the ordinary fold.  The
    products are then scaled by the power of two of the largest non-empty
    commonality (exact), turned into masses and normalised
    (:func:`_extended_masses`).  Every normalised mass that float64 can
    represent is obtained with the rounding error of an ordinary evaluation;
    smaller ones round to 0 or a subnormal.  Writes ``out[r]``, ``kappa[r]``
    and ``total_conflict[r]`` for each ``r`` in ``rows``.

    The other kernels send here the rows where a commonality product of
    non-zero factors left the normal float64 range (so that this path is
    compiled only when some input needs it).
    """
    k_sources = m.shape[1]
    size = m.shape[2]
    tmp = np.empty(size)
    expo = np.zeros(size, dtype=np.int64)
    for i in range(rows.shape[0]):
        r = rows[i]
        acc = out[r]
        if size == 4:
            _extended_binary_fold(m[r], acc, expo)
        elif size == 8:
            _extended_ternary_fold(m[r], acc, expo)
        else:
            for x in range(size):
                acc[x] = 1.0
                expo[x] = 0
            for k in range(k_sources):
                for x in range(size):
                    tmp[x] = m[r, k, x]
                superset_pass(tmp, 1.0)
                for x in range(1, size):
                    acc[x], expo[x] = _extended_step(acc[x], expo[x], tmp[x])
        kappa[r], total_conflict[r] = _extended_masses(acc, expo)


#: Bits of the status returned by the checked kernels (see :func:`conjunctive`).
SMALL_NEGATIVE = 1
INVALID = 2
#: Status bit of :func:`_binary_rows`: rows flagged in ``lost`` are to be folded by
#: :func:`_binary_careful_rows` (never returned by :func:`conjunctive`).
CAREFUL = 4
#: Status bit of :func:`_binary_rows`: some source row may fail the check; the
#: caller computes the status bits with :func:`check_status`.
RECHECK = 8


@njit(cache=True)
def _check_source(total, low, tolerance):
    """Status bits of one source row with entry sum ``total`` and smallest entry ``low`` (the tests of
    :mod:`dstk._kernels.validation`)."""
    status = 0
    if not abs(total - 1.0) <= tolerance or low < -tolerance:
        status = INVALID
    elif low < 0.0:
        status = SMALL_NEGATIVE
    return status


@njit(cache=True)
def _binary_masses(q1, q2, q3, inverse, log_inverse, normalize):
    """Commonalities q({0}), q({1}), q(frame) of a binary frame -> (masses, kappa, total conflict).

    Returns ``(m(empty), m({0}), m({1}), m(frame), kappa, total)``; the
    commonalities were multiplied by ``inverse * exp(log_inverse)``.
    Scalars only, so that the callers' loops inline it.
    """
    a1 = q1 - q3
    a2 = q2 - q3
    total = a1 + a2 + q3
    if normalize:
        if total > 0.0:
            return (
                0.0,
                a1 / total,
                a2 / total,
                q3 / total,
                _kappa_rescaled(total, inverse, log_inverse),
                False,
            )
        return 0.0, 0.0, 0.0, 0.0, 1.0, True
    empty = 1.0 - total if total < 1.0 else 0.0
    return empty, a1, a2, q3, empty, False


@njit(cache=True)
def _binary_store(out, kappa, total_conflict, r, values):
    """Write the tuple of :func:`_binary_masses` to row ``r``."""
    out[r, 0], out[r, 1], out[r, 2], out[r, 3], kappa[r], total_conflict[r] = values


@njit(cache=True)
def _check_binary_block(flat, i0, i1, tolerance):
    """:data:`RECHECK` when a binary source row stored at ``flat[i0:i1]`` (four values each) may fail the
    check or has a negative entry, else 0 (:func:`check_status` then finds the status bits in numpy: no
    second kernel loop to compile).  One contiguous read, before the block is folded: it also brings the
    block into the cache."""
    # index a slice from 0 (indices known to be non-negative: no wraparound
    # test, a loop as fast as np.sum)
    block = flat[i0:i1]
    near = True
    negative = False
    for j in range(block.shape[0] // 4):
        x0 = block[4 * j]
        x1 = block[4 * j + 1]
        x2 = block[4 * j + 2]
        x3 = block[4 * j + 3]
        # a NaN or infinite entry fails the comparison (NaN or infinite sum)
        near &= abs((x0 + x1) + (x2 + x3) - 1.0) <= tolerance
        negative |= (x0 < 0.0) | (x1 < 0.0) | (x2 < 0.0) | (x3 < 0.0)
    if near and not negative:
        return 0
    return RECHECK


def check_status(m, tolerance):
    """Status bits of the source rows ``m`` (..., size): the numpy check of :mod:`dstk._kernels.validation`."""
    bad, small_negative = _check_numpy(m, tolerance)
    return INVALID if bad else SMALL_NEGATIVE if small_negative else 0


@njit(cache=True)
def _kappa_rescaled(total, inverse, log_inverse):
    """K = 1 - total / (inverse * exp(log_inverse)) (>= 0), the rescaling undone.

    ``inverse * exp(log_inverse)`` is the product of the factors by which a
    fold multiplied its commonalities; no log is taken unless it was large.
    """
    if inverse == 1.0 and log_inverse == 0.0:
        k_val = 1.0 - total
    elif log_inverse == 0.0:
        k_val = 1.0 - total / inverse
    else:
        k_val = -math.expm1(math.log(total) - math.log(inverse) - log_inverse)
    return k_val if k_val > 0.0 else 0.0


def _fold_binary_sources(flat, start, row_stride, k0, k1, q):
    """Multiply the commonalities ``q`` of four binary rows by those of their sources ``k0:k1``.

    The rows start at ``flat[start + i * row_stride]`` (``i = 0..3``), four
    values per source; ``q`` holds ``(q({0}), q({1}), q(frame))`` of each row
    (twelve floats), multiplied in place of :func:`_binary_rows`'s scalar loop:
    ``q({0}) *= m({0}) + m(frame)``, ``q({1}) *= m({1}) + m(frame)``,
    ``q(frame) *= m(frame)``, source after source.  Compiled, the three
    products of a row are one vector multiplication (:func:`_fold_binary_simd`,
    the same operations in the same order, so the same bits); this Python
    version runs when the kernels run interpreted.
    """
    q = list(q)
    for row in range(4):
        base = start + row * row_stride
        q0, q1, q2 = q[3 * row : 3 * row + 3]
        for k in range(k0, k1):
            j = base + 4 * k
            x = flat[j + 3]
            q0 *= flat[j + 1] + x
            q1 *= flat[j + 2] + x
            q2 *= x
        q[3 * row : 3 * row + 3] = q0, q1, q2
    return tuple(q)


_F64 = ir.DoubleType()
_V4 = ir.VectorType(_F64, 4)
_I32 = ir.IntType(32)


@intrinsic
def _fold_binary_simd(typingctx, flat, start, row_stride, k0, k1, q):
    """:func:`_fold_binary_sources` in LLVM vector instructions (one 4-lane vector per row).

    Lane ``a`` of a row's vector holds q(A) for the subset with bitmask
    ``a``; each source's four masses are loaded as one vector ``v``, and
    the factor ``v + v[3]`` on lanes 1 and 2 and ``v`` on lanes 0 and 3
    (a masked addition: lane 3 is ``m(frame)`` itself, not ``m(frame) + 0``)
    multiplies the row's vector.  Lane 0 (``m(empty)`` products) is unused.
    No fast-math flags: every product is rounded as in the scalar loop.
    """
    if not (isinstance(flat, types.Array) and flat.ndim == 1 and flat.dtype == types.float64):
        return None
    result = types.UniTuple(types.float64, 12)
    sig = result(flat, types.intp, types.intp, types.intp, types.intp, result)

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        start, row_stride, k0, k1, q = args[1:]
        accumulators = []
        rows = []
        for r in range(4):
            vector = ir.Constant(_V4, [1.0, 1.0, 1.0, 1.0])
            for lane in range(3):
                value = builder.extract_value(q, 3 * r + lane)
                vector = builder.insert_element(vector, value, ir.Constant(_I32, lane + 1))
            slot = cgutils.alloca_once(builder, _V4)
            builder.store(vector, slot)
            accumulators.append(slot)
            offset = builder.add(start, builder.mul(row_stride, ir.Constant(start.type, r)))
            rows.append(builder.gep(array.data, [offset]))
        lanes_1_2 = ir.Constant(ir.VectorType(ir.IntType(1), 4), [0, 1, 1, 0])
        frame_lane = ir.Constant(ir.VectorType(_I32, 4), [3, 3, 3, 3])
        with cgutils.for_range(builder, builder.sub(k1, k0)) as loop:
            j = builder.mul(builder.add(loop.index, k0), ir.Constant(k0.type, 4))
            for r in range(4):
                pointer = builder.bitcast(builder.gep(rows[r], [j]), _V4.as_pointer())
                v = builder.load(pointer, align=8)
                x = builder.shuffle_vector(v, ir.Constant(_V4, ir.Undefined), frame_lane)
                factor = builder.select(lanes_1_2, builder.fadd(v, x), v)
                builder.store(builder.fmul(builder.load(accumulators[r]), factor), accumulators[r])
        out = context.get_constant_undef(result)
        for r in range(4):
            vector = builder.load(accumulators[r])
            for lane in range(3):
                value = builder.extract_element(vector, ir.Constant(_I32, lane + 1))
                out = builder.insert_value(out, value, 3 * r + lane)
        return out

    return sig, codegen


@overload(_fold_binary_sources)
def _fold_binary_sources_compiled(flat, start, row_stride, k0, k1, q):
    def fold(flat, start, row_stride, k0, k1, q):
        return _fold_binary_simd(flat, start, row_stride, k0, k1, q)  # type: ignore[call-arg]

    return fold


# cold_alternative_work: values of stacks of two binary sources that :func:`conjunctive` folds with
# :func:`_binary_pair_rows` while this kernel is cold (per unit of the budget factor).  The pair kernel
# reads the two sources where they lie in the stack (no copy) and gives each row the same bits; its only
# extra cost is the numpy check of the stack when ``tolerance`` is given (about 1 ns a value), so
# 50 x 2**23 values cost at most about 0.4 s in all, less than compiling this kernel (about 1.9 s with
# its callees, against 0.8 s for the pair kernel).
@njit(cache=True, interpreted_max_work=65_536, cold_alternative_work=1 << 23)
def _binary_rows(m, normalize, out, kappa, total_conflict, lost, r0, r1, tolerance):
    """Rows ``r0:r1`` of :func:`conjunctive` on a binary frame, commonalities in scalars.

    q({0}) = m({0}) + m(frame), q({1}) = m({1}) + m(frame), q(frame) =
    m(frame) (q(empty) plays no role: m(empty) is recomputed).  Four rows
    are folded together (four independent vector products, one per row, so
    that the multiplications overlap instead of waiting on each other;
    :func:`_fold_binary_sources`), after one contiguous read of their
    sources (:func:`_check_binary_block`: the check when ``tolerance >= 0``,
    and a prefetch that makes the fold about 1.5 times faster than reading
    four rows at once).  For Dempster's rule, every 16 sources the
    commonalities are multiplied by the inverse of their
    largest value (the product of these factors is kept, its log taken once
    it exceeds 1e280 and at the end), and a row holding a commonality below
    twice the smallest normal float64 at one of these points or after the
    last source is left to be redone with every product checked
    (:func:`_binary_careful_rows`; commonalities only shrink between
    rescalings, the factors being at most 1 up to the mass tolerance, so
    nothing is missed); a group of four where this happens before its fold
    is complete is folded again one row at a time.  Rows left are flagged
    in ``lost`` and the bit :data:`CAREFUL` is set in the result.  The last
    ``(r1 - r0) % 4`` rows are folded one at a time, the row in all four
    lanes (row step 0: the same operations, so the same bits as in a group).

    Returns :data:`RECHECK` when ``tolerance >= 0`` and some source row read
    may fail the check (:func:`check_status` gives its status bits),
    and :data:`CAREFUL` when rows were left.
    """
    k_sources = m.shape[1]
    flat = m.reshape(-1)
    stride = 4 * k_sources
    tiny = 2.0 * _NORMAL_MIN
    check = tolerance >= 0.0
    limit = tolerance if check else np.inf
    status = 0
    careful = 0
    alone_until = r0  # the rows of a group of four left to the careful fold are folded again one by one
    r = r0
    while r < r1:
        n = 4 if r + 4 <= r1 and r >= alone_until else 1
        row_stride = stride if n == 4 else 0
        status |= _check_binary_block(flat, r * stride, (r + n) * stride, limit)
        q = (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
        ia = ib = ic = id_ = 1.0
        la = lb = lc = ld = 0.0
        suspect = False
        k0 = 0
        while k0 < k_sources:
            # up to the next rescaling point (every 16 sources) or the last source
            k1 = min(k0 + 16, k_sources) if normalize else k_sources
            q = _fold_binary_sources(flat, r * stride, row_stride, k0, k1, q)
            k0 = k1
            if not normalize:
                continue
            a1, a2, a3, b1, b2, b3, c1, c2, c3, d1, d2, d3 = q
            low = (a1 < tiny) | (b1 < tiny) | (c1 < tiny) | (d1 < tiny)
            low |= (a2 < tiny) | (b2 < tiny) | (c2 < tiny) | (d2 < tiny)
            low |= (a3 < tiny) | (b3 < tiny) | (c3 < tiny) | (d3 < tiny)
            if low:
                suspect = True
                break
            if k1 % 16 == 0:
                sa = 1.0 / max(a1, a2)
                sb = 1.0 / max(b1, b2)
                sc = 1.0 / max(c1, c2)
                sd = 1.0 / max(d1, d2)
                q = (
                    a1 * sa, a2 * sa, a3 * sa,
                    b1 * sb, b2 * sb, b3 * sb,
                    c1 * sc, c2 * sc, c3 * sc,
                    d1 * sd, d2 * sd, d3 * sd,
                )  # fmt: skip
                ia *= sa
                ib *= sb
                ic *= sc
                id_ *= sd
                if max(max(ia, ib), max(ic, id_)) > _LARGE:
                    la += math.log(ia)
                    lb += math.log(ib)
                    lc += math.log(ic)
                    ld += math.log(id_)
                    ia = ib = ic = id_ = 1.0
        a1, a2, a3, b1, b2, b3, c1, c2, c3, d1, d2, d3 = q
        if not suspect:
            _binary_store(out, kappa, total_conflict, r, _binary_masses(a1, a2, a3, ia, la, normalize))
            if n == 4:
                _binary_store(
                    out, kappa, total_conflict, r + 1, _binary_masses(b1, b2, b3, ib, lb, normalize)
                )
                _binary_store(
                    out, kappa, total_conflict, r + 2, _binary_masses(c1, c2, c3, ic, lc, normalize)
                )
                _binary_store(
                    out, kappa, total_conflict, r + 3, _binary_masses(d1, d2, d3, id_, ld, normalize)
                )
        elif n == 4 and (k0 < k_sources or k_sources % 16 == 0):
            alone_until = r + 4  # left before the last source or a rescaling: again one row at a time
            continue
        elif n == 4:  # after the last source: the rows whose commonalities stayed normal are complete
            careful = CAREFUL
            for i, (x1, x2, x3, inverse, log_inverse) in enumerate(
                ((a1, a2, a3, ia, la), (b1, b2, b3, ib, lb), (c1, c2, c3, ic, lc), (d1, d2, d3, id_, ld))
            ):
                if (x1 < tiny) | (x2 < tiny) | (x3 < tiny):
                    lost[r + i] = True
                else:
                    _binary_store(
                        out,
                        kappa,
                        total_conflict,
                        r + i,
                        _binary_masses(x1, x2, x3, inverse, log_inverse, normalize),
                    )
        else:
            lost[r] = True
            careful = CAREFUL
        r += n
    return (status if check else 0) | careful


@njit(cache=True, interpreted_max_work=65_536)
def _binary_careful_rows(m, normalize, out, kappa, total_conflict, lost, rows):
    """The ``rows`` of :func:`_binary_rows` it left to this kernel, folded one by one, every product
    checked for leaving the normal range (:func:`_checked_binary_factors`).

    A separate kernel, compiled only when a call needs it (commonalities
    near the subnormal range, e.g. near-dogmatic sources, or exactly zero,
    e.g. totally conflicting sources): the common call compiles
    :func:`_binary_rows` alone.  ``lost[r]`` is set
    again for the rows that lost bits (for :func:`dempster_extended`).
    """
    for i in range(rows.shape[0]):
        r = rows[i]
        q1 = q2 = q3 = inverse = 1.0
        log_inverse = 0.0
        flag = False
        for k in range(m.shape[1]):
            q1, q2, q3, lost_now = _checked_binary_factors(q1, q2, q3, m[r, k, 1], m[r, k, 2], m[r, k, 3])
            flag |= lost_now
            if normalize and flag:
                break  # the row is recomputed in extended range: no fold on subnormals
            if normalize and k % 16 == 15:
                # same rescaling as the four-row path, so that every row's result
                # is the same whatever its position in the batch
                top = max(q1, q2)
                if top > 0.0:
                    s = 1.0 / top
                    q1 *= s
                    q2 *= s
                    q3 *= s
                    inverse *= s
                    if inverse > _LARGE:
                        log_inverse += math.log(inverse)
                        inverse = 1.0
        lost[r] = normalize and flag
        if not lost[r]:
            _binary_store(
                out, kappa, total_conflict, r, _binary_masses(q1, q2, q3, inverse, log_inverse, normalize)
            )


@njit(cache=True, interpreted_max_work=65_536)
def _binary_pair_rows(m1, step1, m2, step2, normalize, out, kappa, total_conflict, lost, r0, r1, tolerance):
    """Rows ``r0:r1`` of :func:`conjunctive` of a pair of sources on a binary frame (no stacking).

    The two-source case of :func:`_binary_rows`: q(A) = q1(A) q2(A) for the
    three non-empty subsets, each product checked for leaving the normal
    float64 range; no rescaling is needed for two factors of at most 1.
    Source ``k``'s row ``r`` is ``mk[r * stepk : r * stepk + 4]`` of a flat
    array (``stepk`` = 4 for C-contiguous rows; other steps read rows spaced
    in a larger array, e.g. one source of a stack, without a copy).  The
    rows are not checked (``tolerance`` is ignored); returns status 0.
    """
    # slices indexed from 0: indices known to be non-negative (no wraparound test)
    o = out[r0:r1]
    kp = kappa[r0:r1]
    tc = total_conflict[r0:r1]
    flags = lost[r0:r1]
    for r in range(r1 - r0):
        i = (r0 + r) * step1
        j = (r0 + r) * step2
        s = m1[i : i + 4]
        t = m2[j : j + 4]
        f3 = s[3]
        f1 = s[1] + f3
        f2 = s[2] + f3
        g3 = t[3]
        g1 = t[1] + g3
        g2 = t[2] + g3
        q1 = f1 * g1
        q2 = f2 * g2
        q3 = f3 * g3
        if normalize and (_lost(q1, f1, g1) | _lost(q2, f2, g2) | _lost(q3, f3, g3)):
            flags[r] = True
        else:
            _binary_store(o, kp, tc, r, _binary_masses(q1, q2, q3, 1.0, 0.0, normalize))
    return 0


@njit(cache=True)
def _ternary_masses(q1, q2, q3, q4, q5, q6, q7, log_scale, normalize):
    """Masses of the commonalities ``q1..q7`` (times ``exp(-log_scale)``) of a three-label frame.

    Returns ``(m(empty), m({0}), ..., m(frame), kappa, total conflict)``: the
    inverse Moebius transform m(A) = sum over B >= A of (-1)**|B - A| q(B)
    of the seven non-empty subsets (bitmasks as in :func:`_ternary_rows`).
    Scalars only (as :func:`_binary_masses`).
    """
    m7 = q7
    m3 = q3 - q7
    m5 = q5 - q7
    m6 = q6 - q7
    m1 = q1 - q3 - q5 + q7
    m2 = q2 - q3 - q6 + q7
    m4 = q4 - q5 - q6 + q7
    total = m1 + m2 + m3 + m4 + m5 + m6 + m7
    if normalize:
        if total > 0.0:
            return (
                0.0,
                m1 / total,
                m2 / total,
                m3 / total,
                m4 / total,
                m5 / total,
                m6 / total,
                m7 / total,
                _kappa(total, log_scale),
                False,
            )
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, True
    empty = 1.0 - total if total < 1.0 else 0.0
    return empty, m1, m2, m3, m4, m5, m6, m7, empty, False


@njit(cache=True, interpreted_max_work=40_000)
def _ternary_rows(m, normalize, out, kappa, total_conflict, lost, r0, r1, tolerance):
    """Rows ``r0:r1`` of :func:`conjunctive` on a three-label frame, in scalars.

    Subsets by bitmask: 1 = {0}, 2 = {1}, 3 = {0,1}, 4 = {2}, 5 = {0,2},
    6 = {1,2}, 7 = frame.  q(A) = sum of m(B) over B >= A (folded here),
    the masses by :func:`_ternary_masses`; for Dempster's rule the products
    are rescaled every 16 sources, and a row with a commonality below twice
    the smallest normal float64 at one of these points or after the last
    source is flagged in ``lost`` and left to :func:`_ternary_careful_rows`
    (bit :data:`CAREFUL` of the result; commonalities only shrink between
    rescalings, so nothing is missed).

    With ``tolerance >= 0`` the sources of each row are checked before its
    fold (:func:`_check_source`, the entries summed in order as
    :mod:`dstk._kernels.validation` sums them); returns :data:`RECHECK` as
    :func:`_check_binary_block`.  The check and the fold are written here, not
    in kernels of their own: each kernel called costs a compilation of its own
    on a cold start.
    """
    check = tolerance >= 0.0
    tiny = 2.0 * _NORMAL_MIN
    k_sources = m.shape[1]
    status = 0
    for r in range(r0, r1):
        if check:
            near = True
            negative = False
            for k in range(m.shape[1]):
                x0 = m[r, k, 0]
                x1 = m[r, k, 1]
                x2 = m[r, k, 2]
                x3 = m[r, k, 3]
                x4 = m[r, k, 4]
                x5 = m[r, k, 5]
                x6 = m[r, k, 6]
                x7 = m[r, k, 7]
                total = ((((((x0 + x1) + x2) + x3) + x4) + x5) + x6) + x7
                near &= abs(total - 1.0) <= tolerance
                negative |= (x0 < 0.0) | (x1 < 0.0) | (x2 < 0.0) | (x3 < 0.0)
                negative |= (x4 < 0.0) | (x5 < 0.0) | (x6 < 0.0) | (x7 < 0.0)
            if not near or negative:
                status |= RECHECK
        q1 = q2 = q3 = q4 = q5 = q6 = q7 = 1.0
        log_scale = 0.0
        flag = False
        for k in range(k_sources):
            f7 = m[r, k, 7]  # the factors of _ternary_careful_rows
            f3 = m[r, k, 3] + f7
            f5 = m[r, k, 5] + f7
            f6 = m[r, k, 6] + f7
            f1 = m[r, k, 1] + m[r, k, 3] + m[r, k, 5] + f7
            f2 = m[r, k, 2] + m[r, k, 3] + m[r, k, 6] + f7
            f4 = m[r, k, 4] + m[r, k, 5] + m[r, k, 6] + f7
            q1 = q1 * f1
            q2 = q2 * f2
            q3 = q3 * f3
            q4 = q4 * f4
            q5 = q5 * f5
            q6 = q6 * f6
            q7 = q7 * f7
            if normalize and (k % 16 == 15 or k == k_sources - 1):
                if min(min(min(q1, q2), min(q3, q4)), min(min(q5, q6), q7)) < tiny:
                    flag = True
                    break
            if normalize and (k % 16 == 15):
                scale = max(q1, max(q2, q4))
                if scale > 0.0:
                    q1 /= scale
                    q2 /= scale
                    q3 /= scale
                    q4 /= scale
                    q5 /= scale
                    q6 /= scale
                    q7 /= scale
                    log_scale += math.log(scale)
        if flag:
            lost[r] = True
            status |= CAREFUL
            continue
        values = _ternary_masses(q1, q2, q3, q4, q5, q6, q7, log_scale, normalize)
        out[r, 0], out[r, 1], out[r, 2], out[r, 3], out[r, 4], out[r, 5], out[r, 6], out[r, 7] = values[:8]
        kappa[r], total_conflict[r] = values[8], values[9]
    return status


@njit(cache=True, interpreted_max_work=40_000)
def _ternary_careful_rows(m, normalize, out, kappa, total_conflict, lost, rows):
    """The ``rows`` of :func:`_ternary_rows` it left to this kernel, folded with every product checked.

    A separate kernel, compiled only when a call needs it (as
    :func:`_binary_careful_rows`): the fold of :func:`_ternary_rows` (the same
    factors, each a left-to-right sum of its supersets' masses), stopped where
    one of two non-zero factors left the normal float64 range; ``lost[r]`` is
    set again for those rows (for :func:`dempster_extended`).
    """
    for i in range(rows.shape[0]):
        r = rows[i]
        q1 = q2 = q3 = q4 = q5 = q6 = q7 = 1.0
        log_scale = 0.0
        flag = False
        for k in range(m.shape[1]):
            f7 = m[r, k, 7]
            f1 = m[r, k, 1] + m[r, k, 3] + m[r, k, 5] + f7
            f2 = m[r, k, 2] + m[r, k, 3] + m[r, k, 6] + f7
            f4 = m[r, k, 4] + m[r, k, 5] + m[r, k, 6] + f7
            f3 = m[r, k, 3] + f7
            f5 = m[r, k, 5] + f7
            f6 = m[r, k, 6] + f7
            p1 = q1 * f1
            p2 = q2 * f2
            p3 = q3 * f3
            p4 = q4 * f4
            p5 = q5 * f5
            p6 = q6 * f6
            p7 = q7 * f7
            flag = (
                _lost(p1, q1, f1)
                | _lost(p2, q2, f2)
                | _lost(p3, q3, f3)
                | _lost(p4, q4, f4)
                | _lost(p5, q5, f5)
                | _lost(p6, q6, f6)
                | _lost(p7, q7, f7)
            )
            q1, q2, q3, q4, q5, q6, q7 = p1, p2, p3, p4, p5, p6, p7
            if flag:
                break  # the row is recomputed in extended range: no fold on subnormals
            if normalize and (k % 16 == 15):
                scale = max(q1, max(q2, q4))
                if scale > 0.0:
                    q1 /= scale
                    q2 /= scale
                    q3 /= scale
                    q4 /= scale
                    q5 /= scale
                    q6 /= scale
                    q7 /= scale
                    log_scale += math.log(scale)
        lost[r] = normalize and flag
        if not lost[r]:
            values = _ternary_masses(q1, q2, q3, q4, q5, q6, q7, log_scale, normalize)
            out[r, 0], out[r, 1], out[r, 2], out[r, 3], out[r, 4], out[r, 5], out[r, 6], out[r, 7] = values[
                :8
            ]
            kappa[r], total_conflict[r] = values[8], values[9]
    return 0


# cold_alternative_work: values of pairs that :func:`conjunctive` folds as stacks while this kernel is
# cold (per unit of the budget factor): 50 x 2**22 values, copied at about 1.3 ns each, cost about 0.3 s
# in all, less than compiling this kernel (0.6-1.6 s of its own: numba optimises and generates the code
# of the :func:`_ternary_rows` it calls again inside it); the stack kernel gives each row the same bits.
@njit(cache=True, interpreted_max_work=40_000, cold_alternative_work=1 << 22)
def _ternary_pair_rows(
    m1, step1, m2, step2, block, block_read, normalize, out, kappa, total_conflict, lost, r0, r1, tolerance
):
    """Rows ``r0:r1`` of :func:`conjunctive` of a pair of sources on a three-label frame (no stacking).

    Source ``k``'s row ``r`` is ``mk[r * stepk : r * stepk + 8]`` of a flat
    array (as in :func:`_binary_pair_rows`); blocks of 64 rows of the two
    sources are copied to the (64, 2, 8) scratch ``block``, which stays in
    the cache, and folded (and checked, with ``tolerance >= 0``) by
    :func:`_ternary_rows` through ``block_read``, a read-only view of
    ``block``: the specialisation of :func:`_ternary_rows` that folds a stack
    (one compilation for both calls), and each row gets the bits of the
    stacked fold.  Returns the status bits of :func:`_ternary_rows`.
    """
    size = block.shape[0]
    first = r0 - r0  # 0 as a run-time integer: a literal 0 would compile another specialisation
    status = 0
    for b0 in range(r0, r1, size):
        b1 = min(b0 + size, r1)
        for r in range(b0, b1):
            i = r * step1
            j = r * step2
            for x in range(8):
                block[r - b0, 0, x] = m1[i + x]
                block[r - b0, 1, x] = m2[j + x]
        status |= _ternary_rows(
            block_read,
            normalize,
            out[b0:b1],
            kappa[b0:b1],
            total_conflict[b0:b1],
            lost[b0:b1],
            first,
            b1 - b0,
            tolerance,
        )
    return status


@njit(cache=True, interpreted_max_work=-1)  # never interpreted: fast-math sums (see above)
def _general_rows(m, normalize, out, kappa, total_conflict, lost, r0, r1, tolerance):
    """Rows ``r0:r1`` of :func:`conjunctive` for any frame size (fast Moebius transforms).

    Every product is checked; rows that lost bits are flagged in ``lost``
    (Dempster's rule).  With ``tolerance >= 0`` every source row is checked
    as it is read; returns the union of the status bits
    (:func:`_check_source`).
    """
    k_sources = m.shape[1]
    size = m.shape[2]
    check = tolerance >= 0.0
    status = 0
    # the output row is the accumulator: one scratch row only
    tmp = np.empty(size)
    for r in range(r0, r1):
        acc = out[r]
        log_scale = 0.0
        flag = False
        for k in range(k_sources):
            src = m[r, k]
            if check:
                total = 0.0
                low = 0.0
                for x in range(size):
                    total += src[x]
                    low = min(low, src[x])
                status |= _check_source(total, low, tolerance)
            if flag:
                continue  # the row is recomputed in extended range (its sources still checked)
            if k == 0:
                for x in range(size):
                    acc[x] = src[x]
                superset_pass(acc, 1.0)
            else:
                for x in range(size):
                    tmp[x] = src[x]
                superset_pass(tmp, 1.0)
                if normalize:
                    for x in range(1, size):
                        p = acc[x] * tmp[x]
                        flag |= _lost(p, acc[x], tmp[x])
                        acc[x] = p
                else:
                    for x in range(size):
                        acc[x] *= tmp[x]
            if normalize and (k % 16 == 15):
                log_scale += _rescale_nonempty(acc)
        if flag:
            lost[r] = True
        else:
            kappa[r], total_conflict[r] = _finish_conjunctive(acc, normalize, log_scale)
    return status


@njit(cache=True, parallel=True, budget_of=_binary_rows)
def _binary_parallel(m, normalize, out, kappa, total_conflict, lost, tolerance, status):
    rows = m.shape[0]
    n_tasks = status.shape[0]
    for t in prange(n_tasks):
        status[t] = _binary_rows(
            m,
            normalize,
            out,
            kappa,
            total_conflict,
            lost,
            t * rows // n_tasks,
            (t + 1) * rows // n_tasks,
            tolerance,
        )


@njit(cache=True, parallel=True)
def _ternary_parallel(m, normalize, out, kappa, total_conflict, lost, tolerance, status):
    rows = m.shape[0]
    n_tasks = status.shape[0]
    for t in prange(n_tasks):
        status[t] = _ternary_rows(
            m,
            normalize,
            out,
            kappa,
            total_conflict,
            lost,
            t * rows // n_tasks,
            (t + 1) * rows // n_tasks,
            tolerance,
        )


@njit(cache=True, parallel=True)
def _general_parallel(m, normalize, out, kappa, total_conflict, lost, tolerance, status):
    rows = m.shape[0]
    n_tasks = status.shape[0]
    for t in prange(n_tasks):
        status[t] = _general_rows(
            m,
            normalize,
            out,
            kappa,
            total_conflict,
            lost,
            t * rows // n_tasks,
            (t + 1) * rows // n_tasks,
            tolerance,
        )


@njit(cache=True, parallel=True)
def _binary_pair_parallel(
    m1, step1, m2, step2, normalize, out, kappa, total_conflict, lost, tolerance, status
):
    rows = out.shape[0]
    n_tasks = status.shape[0]
    for t in prange(n_tasks):
        status[t] = _binary_pair_rows(
            m1,
            step1,
            m2,
            step2,
            normalize,
            out,
            kappa,
            total_conflict,
            lost,
            t * rows // n_tasks,
            (t + 1) * rows // n_tasks,
            tolerance,
        )


@njit(cache=True, parallel=True, budget_of=_ternary_pair_rows)
def _ternary_pair_parallel(
    m1, step1, m2, step2, block, block_read, normalize, out, kappa, total_conflict, lost, tolerance, status
):
    rows = out.shape[0]
    n_tasks = status.shape[0]
    for t in prange(n_tasks):  # one scratch block per task
        status[t] = _ternary_pair_rows(
            m1,
            step1,
            m2,
            step2,
            block[t],
            block_read[t],
            normalize,
            out,
            kappa,
            total_conflict,
            lost,
            t * rows // n_tasks,
            (t + 1) * rows // n_tasks,
            tolerance,
        )


#: The row kernels of :func:`conjunctive` (serial, threaded) by subset count, for a stack and for a pair
#: given apart; other frames fold a stack with :func:`_general_rows`.  Each takes ``(*inputs,
#: normalize, out, kappa, total_conflict, lost, r0, r1, tolerance)`` (threaded: ``tolerance, status``
#: after ``lost``).
_STACK_KERNELS = {4: (_binary_rows, _binary_parallel), 8: (_ternary_rows, _ternary_parallel)}
_PAIR_KERNELS = {
    4: (_binary_pair_rows, _binary_pair_parallel),
    8: (_ternary_pair_rows, _ternary_pair_parallel),
}
_GENERAL_KERNELS = (_general_rows, _general_parallel)

#: The kernels that fold the rows the stack kernels leave (bit :data:`CAREFUL`), by subset count.
_CAREFUL_KERNELS = {4: _binary_careful_rows, 8: _ternary_careful_rows}


def _use_threads(parallel, n_values, rows):
    """Whether to spread ``rows`` over numba's threads (``parallel=None``: large inputs only)."""
    if (parallel is None and n_values < PARALLEL_MIN_VALUES) or parallel is False or rows <= 1:
        return False, 1  # (numba.get_num_threads costs microseconds: not asked for small inputs)
    threads = numba.get_num_threads()
    if parallel is None:
        parallel = threads > 1 and n_values >= PARALLEL_MIN_VALUES and rows >= 2 * threads
    return bool(parallel) and rows > 1, threads


def _spaced_rows(m):
    """``(flat, step)``: the (rows, size) float64 array ``m`` as a flat read-only array whose row ``r`` is
    ``flat[r * step : r * step + size]``, a view when its rows are evenly spaced in one buffer (C-contiguous,
    or one source of a stack), else a C-contiguous copy."""
    rows, size = m.shape
    if m.dtype == np.float64 and m.flags.c_contiguous:
        return read_only(m.reshape(-1)), size
    if m.dtype == np.float64 and m.strides[1] == 8 and m.strides[0] >= 0 and m.strides[0] % 8 == 0 and rows:
        step = m.strides[0] // 8
        flat = np.lib.stride_tricks.as_strided(
            m, shape=((rows - 1) * step + size,), strides=(8,), writeable=False
        )
        return flat, step
    return read_only(np.ascontiguousarray(m, dtype=np.float64).reshape(-1)), size


def finish_rows(m, normalize, out, kappa, total_conflict, lost, status, tolerance):
    """Complete a call of a binary or three-label stack kernel (:data:`_STACK_KERNELS`) on ``m``; returns its status.

    :data:`RECHECK`: the status bits of the check, from :func:`check_status`.
    :data:`CAREFUL`: the rows flagged in ``lost`` are folded by
    :func:`_binary_careful_rows` or :func:`_ternary_careful_rows`, interpreted
    when they are few (e.g. a few totally conflicting rows), so that a cold
    start compiles the fast fold alone; not when the check failed
    (:data:`INVALID`).
    """
    if status & RECHECK:
        status = (status & CAREFUL) | check_status(m, tolerance)
    if status & CAREFUL:
        status &= ~CAREFUL
        if not status & INVALID:
            rows = lost.nonzero()[0]
            careful = _CAREFUL_KERNELS[m.shape[2]]
            if _jit.USE_COMPILED_WHEN_AVAILABLE and getattr(careful, "overloads", None):
                # compiled in this process: what call_kernel would call, without its keyword-argument call
                careful(m, normalize, out, kappa, total_conflict, lost, rows)
                return status
            call_kernel(
                careful,
                m,
                normalize,
                out,
                kappa,
                total_conflict,
                lost,
                rows,
                work=rows.size * m.shape[1] * m.shape[2],
            )
    return status


def _binary_stack_cold(kernel, work):
    """Whether :func:`conjunctive` folds a stack of two binary sources with the pair kernels instead of
    ``kernel`` (:func:`_binary_rows` or its threaded twin): :func:`dstk._kernels._jit.cold_alternative`,
    after one attribute look-up that answers for a kernel compiled in this process (the warm path)."""
    return not getattr(kernel, "overloads", None) and cold_alternative(kernel, work)


def _lost_rows_stack(sources, bad):
    """The sources of the rows ``bad`` as a read-only (len(bad), K, size) stack."""
    if type(sources) is tuple:
        return read_only(np.stack([sources[0][bad], sources[1][bad]], axis=1))
    return read_only(sources[bad])


def conjunctive(sources, normalize, *, tolerance=None, parallel=None):
    """Conjunctive combination of the K sources of every row: the product of their commonalities.

    ``sources``: C-contiguous float64 (rows, K, size), or a pair ``(m1, m2)`` of float64 (rows,
    size) arrays, two sources given apart (binary and three-label rows are then read where they lie,
    rows evenly spaced in memory without a copy).  ``normalize``: Dempster's rule, the product
    rescaled every 16 sources and divided by the sum of its non-empty masses; a row whose products
    leave the normal float64 range is recomputed by :func:`dempster_extended` (the algorithm:
    :func:`dstk.combine`, Notes).  Small inputs run interpreted on a cold start (the row kernels'
    ``interpreted_max_work``); rows are spread over numba's threads from
    :data:`PARALLEL_MIN_VALUES` values (``parallel=None``), always (``True``) or never (``False``).
    With ``tolerance`` (a stack, or a three-label pair) each source row is checked as it is read,
    with the tests of :func:`dstk._kernels.validation.check_mass_rows`.

    Returns ``(out, kappa, total, status)``: combined masses, the conflict K (mass of the empty set
    in the unnormalised combination; it may round to 1), a flag per row of exactly total conflict
    (zero output row), and the status bits of the check: :data:`INVALID` when some row failed
    (``out`` is then meaningless), :data:`SMALL_NEGATIVE` when some entry lies in ``[-tolerance,
    0)`` (the caller cleans the input and combines again); 0 without ``tolerance``.
    """
    pair = type(sources) is tuple
    if tolerance is None:
        tolerance = -1.0
    elif not tolerance >= 0.0 or (pair and sources[0].shape[-1] != 8):
        raise ValueError(
            f"`tolerance` must be >= 0 and the sources a stack or a three-label pair; got {tolerance!r}."
        )
    else:
        tolerance = float(tolerance)
    if pair:  # a pair given apart: binary and three-label rows read where they lie
        m1, m2 = sources
        rows, size = m1.shape
        k_sources = 2
        if size in _PAIR_KERNELS:
            serial, threaded_kernel = _PAIR_KERNELS[size]
            (flat1, step1), (flat2, step2) = _spaced_rows(m1), _spaced_rows(m2)
            inputs: tuple = (flat1, step1, flat2, step2)
        else:
            sources = np.stack([m1, m2], axis=1)
            pair = False
    if not pair:
        m = read_only(sources)  # one compiled specialisation for read-only and writable inputs
        rows, k_sources, size = m.shape
        inputs = (m,)
        serial, threaded_kernel = _STACK_KERNELS.get(size, _GENERAL_KERNELS)
    if _buffers.ACTIVE_POOL.get() is not None:
        out, kappa = _buffers.empty((rows, size)), _buffers.empty(rows)
        total_conflict, lost = _buffers.zeros(rows, dtype=np.bool_), _buffers.zeros(rows, dtype=np.bool_)
    else:  # (the common case: no pool, plain numpy arrays without the pool's look-ups)
        out, kappa = np.empty((rows, size)), np.empty(rows)
        total_conflict, lost = np.zeros(rows, dtype=np.bool_), np.zeros(rows, dtype=np.bool_)
    normalize = bool(normalize)
    work = rows * k_sources * size
    threaded, threads = _use_threads(parallel, work, rows) if parallel is not False else (False, 1)
    n_tasks = min(rows, 8 * threads) if threaded else 0
    stack_as_pair = (
        not pair
        and size == 4
        and k_sources == 2
        and _binary_stack_cold(threaded_kernel if threaded else serial, work)
    )
    if stack_as_pair:
        # a cold start: a stack of two binary sources folded by the pair kernels, which read the two
        # sources of each row where they lie (row step 8, the second source 4 values further) and give
        # the same bits; the check, fused in the stack kernels, done in numpy below
        flat = read_only(m.reshape(-1))
        inputs = (flat, 8, flat[4:], 8)
        serial, threaded_kernel = _PAIR_KERNELS[4]
    elif pair and size == 8 and cold_alternative(threaded_kernel if threaded else serial, work):
        # a cold start: the stack kernels fold the pair copied to a stack (read-only, C-contiguous: the
        # stack's specialisation), the pair's status handled below as a pair's
        stack = np.empty((rows, 2, 8))
        stack[:, 0], stack[:, 1] = m1, m2
        inputs = (read_only(stack),)
        serial, threaded_kernel = _STACK_KERNELS[8]
    elif pair and size == 8:  # the scratch blocks of _ternary_pair_rows, written and read (one per task)
        block = np.empty((n_tasks, 64, 2, 8) if threaded else (64, 2, 8))
        inputs += (block, read_only(block))
    if threaded:
        status_of_tasks = np.zeros(n_tasks, dtype=np.int64)
        threaded_kernel(*inputs, normalize, out, kappa, total_conflict, lost, tolerance, status_of_tasks)
        status = int(np.bitwise_or.reduce(status_of_tasks))
    elif _jit.USE_COMPILED_WHEN_AVAILABLE and getattr(serial, "overloads", None):
        # compiled in this process: what call_kernel would call, without its keyword-argument call
        status = serial(*inputs, normalize, out, kappa, total_conflict, lost, 0, rows, tolerance)
    else:
        status = call_kernel(
            serial,
            *inputs,
            normalize,
            out,
            kappa,
            total_conflict,
            lost,
            0,
            rows,
            tolerance,
            work=work,
        )
    if stack_as_pair and tolerance >= 0.0:  # the pair kernels do not check their rows
        status = check_status(m, tolerance)
    if status & (RECHECK | CAREFUL) and not pair:  # the stack kernel left rows to check or to fold
        status = finish_rows(m, normalize, out, kappa, total_conflict, lost, status, tolerance)
    elif status & RECHECK:  # a pair whose rows may fail the check: its status bits, nothing folded again
        first, second = check_status(m1, tolerance), check_status(m2, tolerance)
        return out, kappa, total_conflict, INVALID if (first | second) & INVALID else first | second
    elif status & CAREFUL:  # the same for a pair given apart: the rows left, stacked
        bad = np.flatnonzero(lost)
        out_bad, kappa_bad, total_bad = out[bad], kappa[bad], total_conflict[bad]
        lost_bad = lost[bad]
        status = finish_rows(
            _lost_rows_stack(sources, bad), normalize, out_bad, kappa_bad, total_bad, lost_bad, status, -1.0
        )
        out[bad], kappa[bad], total_conflict[bad], lost[bad] = out_bad, kappa_bad, total_bad, lost_bad
    if status & INVALID or not (normalize and lost.any()):
        return out, kappa, total_conflict, status
    bad = np.flatnonzero(lost)
    out_bad, kappa_bad, total_bad = out[bad], kappa[bad], total_conflict[bad]
    call_kernel(
        dempster_extended,
        _lost_rows_stack(sources, bad),
        np.arange(bad.size),
        out_bad,
        kappa_bad,
        total_bad,
        work=bad.size * k_sources * size,
        interpretable=size == 4,
        fastmath=True,  # binary frames: sum_from adds three terms, one order
    )
    out[bad], kappa[bad], total_conflict[bad] = out_bad, kappa_bad, total_bad
    return out, kappa, total_conflict, status


@njit(cache=True)
def disjunctive(m):
    """Disjunctive combination (product of implicabilities) of every row."""
    rows, k_sources, size = m.shape
    out = np.empty((rows, size))
    tmp = np.empty(size)
    for r in range(rows):
        acc = out[r]
        for k in range(k_sources):
            src = m[r, k]
            if k == 0:
                for a in range(size):
                    acc[a] = src[a]
                subset_pass(acc, 1.0)
            else:
                for a in range(size):
                    tmp[a] = src[a]
                subset_pass(tmp, 1.0)
                for a in range(size):
                    acc[a] *= tmp[a]
        subset_pass(acc, -1.0)
    return out


@njit(cache=True)
def log_conjunctive_weights(m):
    """ln w(A) = -sum_{B >= A} (-1)^{|B|-|A|} ln q(B) for A != frame (Denoeux 2008, Eq. 13).

    ``m`` has shape (rows, size) with m(frame) > 0 (checked by the caller).
    ln w(frame) is set to 0.
    """
    rows, size = m.shape
    out = np.empty((rows, size))
    for r in range(rows):
        tmp = out[r]
        src = m[r]
        for a in range(size):
            tmp[a] = src[a]
        superset_pass(tmp, 1.0)
        for a in range(size):
            tmp[a] = -math.log(tmp[a])
        superset_pass(tmp, -1.0)
        tmp[size - 1] = 0.0
    return out


@njit(cache=True)
def mass_from_log_conjunctive_weights(lw):
    """Inverse of :func:`log_conjunctive_weights` (ln w(frame) ignored).

    ln q(C) = sum_{B != frame} ln w(B) - sum_{B >= C, B != frame} ln w(B).
    """
    rows, size = lw.shape
    out = np.empty((rows, size))
    for r in range(rows):
        tmp = out[r]
        src = lw[r]
        for a in range(size - 1):
            tmp[a] = src[a]
        total = sum_from(tmp[: size - 1], 0)
        tmp[size - 1] = 0.0
        superset_pass(tmp, 1.0)
        for a in range(size):
            tmp[a] = math.exp(total - tmp[a])
        superset_pass(tmp, -1.0)
    return out


@njit(cache=True)
def log_disjunctive_weights(m):
    """ln v(A) = -sum_{B <= A} (-1)^{|A|-|B|} ln b(B) for A != empty (Denoeux 2008, Eq. 29).

    ``m`` has shape (rows, size) with m(empty) > 0 (checked by the caller).
    ln v(empty) is set to 0.
    """
    rows, size = m.shape
    out = np.empty((rows, size))
    for r in range(rows):
        tmp = out[r]
        src = m[r]
        for a in range(size):
            tmp[a] = src[a]
        subset_pass(tmp, 1.0)
        for a in range(size):
            tmp[a] = -math.log(tmp[a])
        subset_pass(tmp, -1.0)
        tmp[0] = 0.0
    return out


@njit(cache=True)
def mass_from_log_disjunctive_weights(lv):
    """Inverse of :func:`log_disjunctive_weights` (ln v(empty) ignored)."""
    rows, size = lv.shape
    out = np.empty((rows, size))
    for r in range(rows):
        tmp = out[r]
        src = lv[r]
        tmp[0] = 0.0
        for a in range(1, size):
            tmp[a] = src[a]
        total = sum_from(tmp, 1)
        subset_pass(tmp, 1.0)
        for a in range(size):
            tmp[a] = math.exp(total - tmp[a])
        subset_pass(tmp, -1.0)
    return out


@njit(cache=True)
def cautious(m, out, tmp):
    """Cautious rule (Denoeux 2008): minimum of the conjunctive weights, log domain.

    ``m``: (rows, K, size), every source with m(frame) > 0.  Unnormalised,
    written to ``out`` (rows, size); ``tmp``: a scratch row of ``size``
    entries.  Both come from the caller: arrays made here would compile
    numba's array constructors with the kernel (0.2 s of a cold start).
    """
    rows, k_sources, size = m.shape
    for r in range(rows):
        acc = out[r]
        for a in range(size):
            acc[a] = np.inf
        for k in range(k_sources):
            src = m[r, k]
            for a in range(size):
                tmp[a] = src[a]
            superset_pass(tmp, 1.0)
            for a in range(size):
                tmp[a] = math.log(tmp[a])
            superset_pass(tmp, -1.0)
            for a in range(size):
                v = -tmp[a]
                if v < acc[a]:
                    acc[a] = v
        acc[size - 1] = 0.0
        total = sum_from(acc[: size - 1], 0)
        superset_pass(acc, 1.0)
        for a in range(size):
            acc[a] = math.exp(total - acc[a])
        superset_pass(acc, -1.0)


@njit(cache=True)
def bold(m):
    """Bold rule (Denoeux 2008): minimum of the disjunctive weights, log domain.

    ``m``: (rows, K, size), every source with m(empty) > 0 (subnormal).
    """
    rows, k_sources, size = m.shape
    out = np.empty((rows, size))
    tmp = np.empty(size)
    for r in range(rows):
        acc = out[r]
        for a in range(size):
            acc[a] = np.inf
        for k in range(k_sources):
            src = m[r, k]
            for a in range(size):
                tmp[a] = src[a]
            subset_pass(tmp, 1.0)
            for a in range(size):
                tmp[a] = math.log(tmp[a])
            subset_pass(tmp, -1.0)
            for a in range(size):
                v = -tmp[a]
                if v < acc[a]:
                    acc[a] = v
        acc[0] = 0.0
        total = sum_from(acc, 1)
        subset_pass(acc, 1.0)
        for a in range(size):
            acc[a] = math.exp(total - acc[a])
        subset_pass(acc, -1.0)
    return out


@njit(cache=True)
def dubois_prade_pair(m1, m2):
    """Dubois-Prade rule of two sources, rows of (rows, size) arrays.

    m(C) = sum_{A & B = C} m1(A) m2(B) for C != empty, plus
    sum_{A & B = empty, A | B = C} m1(A) m2(B).  Pairs with an empty
    intersection are enumerated as B over the subsets of the complement of A
    (O(3**n)).
    """
    rows, size = m1.shape
    full = size - 1
    out = np.empty((rows, size))
    q1 = np.empty(size)
    q2 = np.empty(size)
    for r in range(rows):
        s1 = m1[r]
        s2 = m2[r]
        for a in range(size):
            q1[a] = s1[a]
            q2[a] = s2[a]
        superset_pass(q1, 1.0)
        superset_pass(q2, 1.0)
        for a in range(size):
            q1[a] *= q2[a]
        superset_pass(q1, -1.0)
        q1[0] = 0.0
        for a in range(size):
            va = m1[r, a]
            if va == 0.0:
                continue
            comp = full ^ a
            b = comp
            while True:
                vb = m2[r, b]
                if vb != 0.0:
                    q1[a | b] += va * vb
                if b == 0:
                    break
                b = (b - 1) & comp
        for a in range(size):
            out[r, a] = q1[a]
    return out


@njit(cache=True)
def pcr6(m, max_tuples):
    """PCR6 rule of K sources (Martin & Osswald 2006) by enumeration of focal tuples.

    For each tuple (X_1..X_K) of focal sets with an empty intersection the
    product of masses is shared among the X_i in proportion to m_i(X_i);
    tuples with a non-empty intersection go to the intersection.  Inputs must
    be normal (m(empty) = 0).  Returns (out, kappa, ok); ``ok[r]`` is False
    when a row would need more than ``max_tuples`` tuples.
    """
    rows, k_sources, size = m.shape
    out = np.zeros((rows, size))
    kappa = np.zeros(rows)
    ok = np.ones(rows, dtype=np.bool_)
    focal = np.empty((k_sources, size), dtype=np.int64)
    n_focal = np.empty(k_sources, dtype=np.int64)
    pos = np.empty(k_sources, dtype=np.int64)
    for r in range(rows):
        count = 1.0
        for k in range(k_sources):
            c = 0
            for a in range(1, size):
                if m[r, k, a] != 0.0:
                    focal[k, c] = a
                    c += 1
            n_focal[k] = c
            count *= c
        if count > max_tuples:
            ok[r] = False
            continue
        if count == 0:
            continue
        for k in range(k_sources):
            pos[k] = 0
        while True:
            inter = size - 1
            prod = 1.0
            ssum = 0.0
            for k in range(k_sources):
                a = focal[k, pos[k]]
                v = m[r, k, a]
                inter &= a
                prod *= v
                ssum += v
            if inter != 0:
                out[r, inter] += prod
            else:
                kappa[r] += prod
                for k in range(k_sources):
                    a = focal[k, pos[k]]
                    out[r, a] += m[r, k, a] * prod / ssum
            # odometer
            k = k_sources - 1
            while k >= 0:
                pos[k] += 1
                if pos[k] < n_focal[k]:
                    break
                pos[k] = 0
                k -= 1
            if k < 0:
                break
    return out, kappa, ok


@njit(cache=True)
def _slot(keys, used, key, shift, mask):
    """Open-addressing slot of ``key`` (Fibonacci hashing, linear probing)."""
    slot = np.int64((key * np.uint64(0x9E3779B97F4A7C15)) >> shift) & mask
    while used[slot] and keys[slot] != key:
        slot = (slot + 1) & mask
    return slot


@njit(cache=True)
def pair_accumulate(f1, m1t, f2, m2t, intersect, capacity, max_count):
    """Conjunctive (``intersect``) or disjunctive combination of two focal-set batches.

    ``f1`` (F1,), ``f2`` (F2,): uint64 focal bitmasks; ``m1t`` (F1, rows) and
    ``m2t`` (F2, rows): their masses, one column per combination.  Every pair
    (i, j) adds ``m1t[i] * m2t[j]`` to the result ``f1[i] & f2[j]`` (or
    ``|``), found in a hash table of the distinct results (Fibonacci hashing,
    linear probing, ``capacity`` a power of two doubled as needed): one pass
    over the pairs, memory proportional to the number of distinct results.

    Returns ``(focal, out, lost, ok)``: the sorted distinct results, the
    masses (rows, U), a flag per row set when a product of two non-zero
    masses left the normal float64 range, and ``ok`` False (the rest empty)
    as soon as there are more than ``max_count`` distinct results (the
    caller's memory guard).
    """
    n1 = f1.shape[0]
    n2 = f2.shape[0]
    rows = m1t.shape[1]
    bits = 0
    while (1 << bits) < capacity:
        bits += 1
    keys = np.zeros(capacity, dtype=np.uint64)
    used = np.zeros(capacity, dtype=np.bool_)
    values = np.zeros((capacity, rows))
    lost = np.zeros(rows, dtype=np.bool_)
    count = 0
    for i in range(n1):
        x = f1[i]
        a = m1t[i]
        for j in range(n2):
            c = (x & f2[j]) if intersect else (x | f2[j])
            shift = np.uint64(64 - bits)
            mask = (1 << bits) - 1
            slot = _slot(keys, used, c, shift, mask)
            if not used[slot]:
                count += 1
                if count > max_count:
                    return np.zeros(0, dtype=np.uint64), np.zeros((rows, 0)), lost, False
                if 2 * count > keys.shape[0]:
                    # grow: re-insert the keys and their rows of values
                    old_keys = keys
                    old_used = used
                    old_values = values
                    bits += 1
                    keys = np.zeros(1 << bits, dtype=np.uint64)
                    used = np.zeros(1 << bits, dtype=np.bool_)
                    values = np.zeros((1 << bits, rows))
                    shift = np.uint64(64 - bits)
                    mask = (1 << bits) - 1
                    for s in range(old_keys.shape[0]):
                        if old_used[s]:
                            t = _slot(keys, used, old_keys[s], shift, mask)
                            used[t] = True
                            keys[t] = old_keys[s]
                            values[t] = old_values[s]
                    slot = _slot(keys, used, c, shift, mask)
                used[slot] = True
                keys[slot] = c
            b = m2t[j]
            v = values[slot]
            for r in range(rows):
                p = a[r] * b[r]
                lost[r] |= _lost(p, a[r], b[r])
                v[r] += p
    slots = np.empty(count, dtype=np.int64)
    u = 0
    for s in range(keys.shape[0]):
        if used[s]:
            slots[u] = s
            u += 1
    found = keys[slots]
    order = np.argsort(found)
    focal = found[order]
    out = np.empty((rows, count))
    for u in range(count):
        v = values[slots[order[u]]]
        for r in range(rows):
            out[r, u] = v[r]
    return focal, out, lost, True


@njit(cache=True)
def pair_dempster_extended(f1, m1, x1, f2, m2, rows, unique, out, out_exp, log_nonempty, total_conflict):
    """Rows ``rows`` of Dempster's rule of two focal-set batches in extended exponent range.

    The first operand's masses are ``m1 * 2**x1`` (``x1`` (rows, F1) integer
    exponents carried along a fold), the second's ``m2``.  Each pair product
    is a mantissa and a power of two (``math.frexp``); each result focal set
    sums its products scaled by the largest power of two among them, and the
    row is normalised by its non-empty total.  The normalised masses are
    written as ``out * 2**out_exp``, so that a fold can continue without
    rounding to the subnormal range in between (the caller applies
    ``np.ldexp`` at the end).  ``log_nonempty[r]`` is the natural log of the
    non-empty mass before normalisation.
    """
    n1 = m1.shape[1]
    n2 = m2.shape[1]
    n_out = unique.shape[0]
    g1 = np.empty(n1)
    e1 = np.empty(n1, dtype=np.int64)
    g2 = np.empty(n2)
    e2 = np.empty(n2, dtype=np.int64)
    top_of = np.empty(n_out, dtype=np.int64)
    seen = np.empty(n_out, dtype=np.bool_)
    for q in range(rows.shape[0]):
        r = rows[q]
        for i in range(n1):
            g, e = math.frexp(m1[r, i])
            g1[i] = g
            e1[i] = e + x1[r, i]
        for j in range(n2):
            g, e = math.frexp(m2[r, j])
            g2[j] = g
            e2[j] = e
        for x in range(n_out):
            seen[x] = False
            top_of[x] = 0
            out[r, x] = 0.0
            out_exp[r, x] = 0
        for i in range(n1):
            if g1[i] == 0.0:
                continue
            for j in range(n2):
                c = f1[i] & f2[j]
                if g2[j] != 0.0 and c != np.uint64(0):
                    u = np.searchsorted(unique, c)
                    e = e1[i] + e2[j]
                    if not seen[u] or e > top_of[u]:
                        top_of[u] = e
                        seen[u] = True
        for i in range(n1):
            if g1[i] == 0.0:
                continue
            for j in range(n2):
                c = f1[i] & f2[j]
                if g2[j] != 0.0 and c != np.uint64(0):
                    u = np.searchsorted(unique, c)
                    out[r, u] += math.ldexp(g1[i] * g2[j], e1[i] + e2[j] - top_of[u])
        top = 0
        found = False
        for u in range(n_out):
            if seen[u] and (not found or top_of[u] > top):
                top = top_of[u]
                found = True
        total = 0.0
        if found:
            for u in range(n_out):
                if seen[u]:
                    total += math.ldexp(out[r, u], top_of[u] - top)
        if not total > 0.0:
            for u in range(n_out):
                out[r, u] = 0.0
            total_conflict[r] = True
            log_nonempty[r] = -np.inf
            continue
        for u in range(n_out):
            if seen[u]:
                out[r, u] /= total
                out_exp[r, u] = top_of[u] - top
        total_conflict[r] = False
        log_nonempty[r] = math.log(total) + top * math.log(2.0)


@njit(cache=True)
def focal_set_pairs(f1, f2, intersect):
    """Merge the set operation over all pairs of focal sets (focal-set form).

    ``f1`` (F1,), ``f2`` (F2,): uint64 focal bitmasks.  The pair (i, j) gives
    ``f1[i] & f2[j]`` (``intersect``) or ``f1[i] | f2[j]``.  Returns
    ``(unique, inverse)``: the sorted distinct results and, for the pair at
    flat index ``i * F2 + j``, the position of its result in ``unique`` —
    the same as ``np.unique(np.bitwise_and.outer(f1, f2).ravel(),
    return_inverse=True)``, by an LSD radix sort (8 bits a pass, stopping at
    the highest bit in use), O(F1 F2).
    """
    n1 = f1.shape[0]
    n2 = f2.shape[0]
    n_pairs = n1 * n2
    keys = np.empty(n_pairs, dtype=np.uint64)
    idx = np.empty(n_pairs, dtype=np.int64)
    used_bits = np.uint64(0)
    p = 0
    for i in range(n1):
        a = f1[i]
        for j in range(n2):
            c = (a & f2[j]) if intersect else (a | f2[j])
            keys[p] = c
            idx[p] = p
            used_bits |= c
            p += 1
    keys2 = np.empty(n_pairs, dtype=np.uint64)
    idx2 = np.empty(n_pairs, dtype=np.int64)
    count = np.empty(256, dtype=np.int64)
    digit_mask = np.uint64(255)
    for shift in range(0, 64, 8):
        sh = np.uint64(shift)
        if (used_bits >> sh) == np.uint64(0):
            break
        for b in range(256):
            count[b] = 0
        for q in range(n_pairs):
            count[np.int64((keys[q] >> sh) & digit_mask)] += 1
        total = 0
        for b in range(256):
            c = count[b]
            count[b] = total
            total += c
        for q in range(n_pairs):
            d = np.int64((keys[q] >> sh) & digit_mask)
            pos = count[d]
            keys2[pos] = keys[q]
            idx2[pos] = idx[q]
            count[d] = pos + 1
        keys, keys2 = keys2, keys
        idx, idx2 = idx2, idx
    unique = np.empty(n_pairs, dtype=np.uint64)
    inverse = np.empty(n_pairs, dtype=np.int64)
    u = -1
    for q in range(n_pairs):
        if u < 0 or keys[q] != unique[u]:
            u += 1
            unique[u] = keys[q]
        inverse[idx[q]] = u
    return unique[: u + 1].copy(), inverse


@njit(cache=True)
def pair_products(m1, m2, inverse, n_out):
    """out[r, inverse[i * F2 + j]] += m1[r, i] * m2[r, j] (rows of equal count).

    With ``inverse`` from :func:`focal_set_pairs` this is the conjunctive
    (or disjunctive) combination of two batches in focal-set form.  Also
    returns a flag per row set when a product of two non-zero masses left
    the normal float64 range.
    """
    rows, n1 = m1.shape
    n2 = m2.shape[1]
    out = np.zeros((rows, n_out))
    lost = np.zeros(rows, dtype=np.bool_)
    for r in range(rows):
        o = out[r]
        a = m1[r]
        b = m2[r]
        flag = False
        p = 0
        for i in range(n1):
            x = a[i]
            for j in range(n2):
                v = x * b[j]
                flag |= _lost(v, x, b[j])
                o[inverse[p]] += v
                p += 1
        lost[r] = flag
    return out, lost
