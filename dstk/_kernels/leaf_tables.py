"""Numba kernels that evaluate per-leaf quantities through a table of distinct leaf counts.

Leaf counts of an ensemble take few distinct values, so every per-leaf
quantity (a score, a mass function, a log-probability) is computed once per
distinct count vector and looked up through an integer key per leaf.  Keys are
mixed-radix codes ``sum_k c_k * radix_k``.

Kernels
-------
distinct_rows(bits)
    Hash-based numbering of the distinct rows of an int64 array (the counts,
    or the bit patterns of float counts): one pass, linear in the number of
    rows whatever the count values (no table indexed by the counts).
leaf_keys(counts, radix, used)
    Keys (n_samples, n_trees) of integer counts (n_samples, n_trees, K) and
    the mark of every used key.
mean_rows(keys, table)
    Mean over trees of ``table[key]`` rows: (n_samples, width).
mean_rows_exact(keys, table, scale)
    The same mean accumulated in fixed point (``round(value * scale)`` as
    int64), so that equal multisets of leaves give bit-equal means.

``distinct_row_keys`` and ``exact_mean_rows`` call ``distinct_rows`` and
``mean_rows_exact``, interpreted (not compiled) for small inputs.
"""

import numpy as np

from dstk._kernels._jit import call_kernel, njit

_HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_HASH_MIX = np.uint64(0xBF58476D1CE4E5B9)


@njit(cache=True, nogil=True)
def _row_hash(bits, i):
    h = np.uint64(0x243F6A8885A308D3)
    for k in range(bits.shape[1]):
        h = (h ^ np.uint64(bits[i, k])) * _HASH_MULTIPLIER
        h ^= h >> np.uint64(29)
    h *= _HASH_MIX
    return h ^ (h >> np.uint64(32))


# Interpretation budgets (``interpreted_max_work`` on the decorators: the largest work, values of
# the input, of a call :func:`dstk._kernels._jit.call_kernel` runs interpreted rather than
# compiled): about 20 ms interpreted (2.5 us per value of ``distinct_rows``, 1 us per sample x
# tree x column of ``mean_rows_exact``) against 0.6-0.7 s to compile either kernel on a cold
# start (measured 2026-11-24).


@njit(cache=True, nogil=True, interpreted_max_work=8_192)
def distinct_rows(bits):
    """Number the distinct rows of ``bits`` (int64, (n_rows, width)) in order of first appearance.

    Returns
    -------
    keys : int64 (n_rows,)
        ``keys[i]`` = number of the distinct row equal to ``bits[i]``.
    first : int64 (n_distinct,)
        Index of the first occurrence of each distinct row.

    Notes
    -----
    Open addressing with linear probing in a power-of-two slot array kept at
    most half full (doubled and rebuilt when it fills): expected O(1) per row.
    """
    n_rows, width = bits.shape
    capacity = 1024
    slots = np.full(capacity, -1, dtype=np.int64)
    first = np.empty(64, dtype=np.int64)
    n_distinct = 0
    keys = np.empty(n_rows, dtype=np.int64)
    for i in range(n_rows):
        mask = np.uint64(capacity - 1)
        position = np.int64(_row_hash(bits, i) & mask)
        while True:
            slot = slots[position]
            if slot < 0:
                break
            j = first[slot]
            equal = True
            for k in range(width):
                if bits[j, k] != bits[i, k]:
                    equal = False
                    break
            if equal:
                break
            position = (position + 1) & (capacity - 1)
        if slot >= 0:
            keys[i] = slot
            continue
        if n_distinct == first.shape[0]:
            enlarged = np.empty(2 * first.shape[0], dtype=np.int64)
            for d in range(n_distinct):  # not a slice assignment (see mean_rows_exact)
                enlarged[d] = first[d]
            first = enlarged
        first[n_distinct] = i
        slots[position] = n_distinct
        keys[i] = n_distinct
        n_distinct += 1
        if 2 * n_distinct > capacity:
            capacity *= 2
            slots = np.full(capacity, -1, dtype=np.int64)
            mask = np.uint64(capacity - 1)
            for d in range(n_distinct):
                position = np.int64(_row_hash(bits, first[d]) & mask)
                while slots[position] >= 0:
                    position = (position + 1) & (capacity - 1)
                slots[position] = d
    return keys, first[:n_distinct].copy()


def distinct_row_keys(bits):
    """:func:`distinct_rows` of ``bits``, run interpreted for small inputs (same bits)."""
    return call_kernel(distinct_rows, bits, work=bits.size)


def exact_mean_rows(keys, table, scale):
    """:func:`mean_rows_exact`, run interpreted for small inputs (same bits)."""
    table = np.ascontiguousarray(table)
    return call_kernel(
        mean_rows_exact,
        keys,
        table,
        scale,
        work=keys.size * table.shape[1] + table.size,
    )


@njit(cache=True, nogil=True, interpreted_max_work=20_000)
def mean_rows_exact(keys, table, scale):
    """``out[i] = mean_t table[keys[i, t]]`` summed exactly in fixed point.

    Every table value is rounded to a multiple of ``1 / scale`` (``scale`` a
    power of two chosen by the caller so that no sum over the trees
    overflows int64) and the integers are summed, so the result depends only
    on the multiset of rows reached, not on the order of the trees.
    """
    n_samples, n_trees = keys.shape
    n_rows, width = table.shape
    fixed = np.empty((n_rows, width), dtype=np.int64)
    for r in range(n_rows):
        for j in range(width):
            # np.rint: round half to even, as np.round (whose compiled version,
            # numba's round_ndigits, takes 0.5 s to compile)
            fixed[r, j] = np.int64(np.rint(table[r, j] * scale))
    out = np.zeros((n_samples, width))
    total = np.zeros(width, dtype=np.int64)
    for i in range(n_samples):
        for j in range(width):
            total[j] = 0
        for t in range(n_trees):
            row = keys[i, t]
            for j in range(width):
                total[j] += fixed[row, j]
        for j in range(width):
            out[i, j] = (np.float64(total[j]) / scale) / n_trees
    return out


@njit(cache=True, nogil=True)
def leaf_keys(counts, radix, used):
    """Mixed-radix keys of integer leaf counts; marks ``used[key] = True``."""
    n_samples, n_trees, n_classes = counts.shape
    keys = np.empty((n_samples, n_trees), dtype=np.int64)
    for i in range(n_samples):
        for t in range(n_trees):
            key = 0
            for k in range(n_classes):
                key += np.int64(counts[i, t, k]) * radix[k]
            keys[i, t] = key
            used[key] = True
    return keys


@njit(cache=True, nogil=True)
def mean_rows(keys, table):
    """``out[i] = mean_t table[keys[i, t]]``."""
    n_samples, n_trees = keys.shape
    width = table.shape[1]
    out = np.zeros((n_samples, width))
    for i in range(n_samples):
        for t in range(n_trees):
            row = keys[i, t]
            for j in range(width):
                out[i, j] += table[row, j]
        for j in range(width):
            out[i, j] /= n_trees
    return out


@njit(cache=True, nogil=True)
def sum_rows(keys, table):
    """``out[i] = sum_t table[keys[i, t]]``, in tree order."""
    n_samples, n_trees = keys.shape
    width = table.shape[1]
    out = np.zeros((n_samples, width))
    for i in range(n_samples):
        for t in range(n_trees):
            row = keys[i, t]
            for j in range(width):
                out[i, j] += table[row, j]
    return out


@njit(cache=True, nogil=True)
def gather_rows(keys, table):
    """``out[i, t] = table[keys[i, t]]``: (n_samples, n_trees, width)."""
    n_samples, n_trees = keys.shape
    width = table.shape[1]
    out = np.empty((n_samples, n_trees, width))
    for i in range(n_samples):
        for t in range(n_trees):
            row = keys[i, t]
            for j in range(width):
                out[i, t, j] = table[row, j]
    return out


@njit(cache=True, nogil=True)
def class_max(counts):
    """Per-class maximum of leaf counts (n_samples, n_trees, K) as int64 (one pass)."""
    n_samples, n_trees, n_classes = counts.shape
    out = np.zeros(n_classes, dtype=np.int64)
    for i in range(n_samples):
        for t in range(n_trees):
            for k in range(n_classes):
                c = np.int64(counts[i, t, k])
                if c > out[k]:
                    out[k] = c
    return out


@njit(cache=True, nogil=True)
def sum_over_trees(counts):
    """Pooled counts: ``counts.sum(axis=1)`` as float64 (n_samples, K)."""
    n_samples, n_trees, n_classes = counts.shape
    out = np.zeros((n_samples, n_classes))
    for i in range(n_samples):
        for t in range(n_trees):
            for k in range(n_classes):
                out[i, k] += counts[i, t, k]
    return out
