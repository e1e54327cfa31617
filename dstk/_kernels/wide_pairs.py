"""Numba kernel: the distinct results of a set operation over all pairs of wide focal sets.

A wide focal set is a row of ``W`` uint64 words (bit ``i % 64`` of word
``i // 64`` for label ``i``, see :mod:`dstk.core._wide`).  For two lists
``f1`` (F1, W) and ``f2`` (F2, W), :func:`pair_results` sorts the pairs
``(i, j)`` by the result ``f1[i] & f2[j]`` (or ``|``) in byte-wise order --
the order of ``np.unique`` on one opaque key a row, the canonical order of the
wide form -- and returns the distinct results with, for every pair, the
position of its result.  Byte-wise order of a little-endian word is the
numeric order of the byte-swapped word, so the sort is an ``argsort`` of the
first byte-swapped word, its ties broken word by word.
"""

import numpy as np

from dstk._kernels._jit import njit

__all__ = ["pair_results"]


@njit(cache=True)
def _byteswap(x):
    """The word ``x`` with its 8 bytes in reverse order."""
    out = np.uint64(0)
    for _ in range(8):
        out = (out << np.uint64(8)) | (x & np.uint64(0xFF))
        x = x >> np.uint64(8)
    return out


@njit(cache=True)
def _pair_word(f1, f2, p, w, intersect):
    """Word ``w`` of the result of the pair at flat index ``p = i * F2 + j``."""
    i = p // f2.shape[0]
    j = p - i * f2.shape[0]
    return (f1[i, w] & f2[j, w]) if intersect else (f1[i, w] | f2[j, w])


@njit(cache=True)
def pair_results(f1, f2, intersect):
    """Distinct results of ``f1[i] & f2[j]`` (``intersect``) or ``f1[i] | f2[j]`` over all pairs.

    ``f1`` (F1, W), ``f2`` (F2, W): uint64 bitsets, C-contiguous.  Returns
    ``(unique, inverse)``: the distinct results (U, W) in byte-wise order and,
    for the pair at flat index ``i * F2 + j``, the position of its result in
    ``unique`` -- what ``np.unique`` on one void key a row returns for the
    (F1 F2, W) table of results, without building that table: the pairs are
    sorted by their first byte-swapped word, then every run of pairs equal on
    the words so far by the next word (a run whose next word is constant is
    not sorted).  The pairs' words are recomputed from ``f1`` and ``f2``, which
    stay in cache: the working memory is about 41 bytes a pair (sort keys,
    permutation and its scratch, run marks, ``inverse``) besides ``unique``.
    """
    n2 = f2.shape[0]
    width = f1.shape[1]
    n_pairs = f1.shape[0] * n2
    keys = np.empty(n_pairs, dtype=np.uint64)
    p = 0
    for i in range(f1.shape[0]):
        for j in range(n2):
            keys[p] = _byteswap((f1[i, 0] & f2[j, 0]) if intersect else (f1[i, 0] | f2[j, 0]))
            p += 1
    order = np.argsort(keys)
    # starts[k]: the pair at sorted position k differs from the one before (on the words so far)
    starts = np.empty(n_pairs, dtype=np.bool_)
    n_runs = 0
    for k in range(n_pairs):
        starts[k] = k == 0 or keys[order[k]] != keys[order[k - 1]]
        n_runs += starts[k]
    for w in range(1, width):
        if n_runs == n_pairs:
            break
        start = 0
        while start < n_pairs:
            stop = start + 1
            while stop < n_pairs and not starts[stop]:
                stop += 1
            if stop - start > 1:
                length = stop - start
                first = _pair_word(f1, f2, order[start], w, intersect)
                constant = True
                for t in range(length):
                    word = _pair_word(f1, f2, order[start + t], w, intersect)
                    keys[t] = _byteswap(word)
                    constant = constant and word == first
                if not constant:
                    run = order[start:stop].copy()
                    sub = np.argsort(keys[:length])
                    for t in range(length):
                        order[start + t] = run[sub[t]]
                    for t in range(1, length):
                        if keys[sub[t]] != keys[sub[t - 1]]:
                            starts[start + t] = True
                            n_runs += 1
            start = stop
    unique = np.empty((n_runs, width), dtype=np.uint64)
    inverse = np.empty(n_pairs, dtype=np.int64)
    u = -1
    for k in range(n_pairs):
        q = order[k]
        if starts[k]:
            u += 1
            i = q // n2
            j = q - i * n2
            for w in range(width):
                unique[u, w] = (f1[i, w] & f2[j, w]) if intersect else (f1[i, w] | f2[j, w])
        inverse[q] = u
    return unique, inverse
