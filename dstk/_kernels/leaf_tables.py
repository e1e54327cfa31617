"""Numba kernels that evaluate per-leaf quantities through a table of distinct leaf counts.

Leaf counts of an ensemble take few distinct values, so every per-leaf
quantity (a score, a mass function, a log-probability) is computed once per
distinct count vector and looked up through an integer key per leaf.  Keys are
mixed-radix codes ``sum_k c_k * radix_k``.

Kernels
-------
leaf_keys(counts, radix, used)
    Keys (n_samples, n_trees) of integer counts (n_samples, n_trees, K) and
    the mark of every used key.
mean_rows(keys, table)
    Mean over trees of ``table[key]`` rows: (n_samples, width).
"""

import numpy as np

from dstk._kernels._jit import njit


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
