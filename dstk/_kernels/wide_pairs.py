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


#: Segments up to this length are sorted by insertion.
_INSERTION_MAX = 16
#: Segments from this length on are first split into buckets by their top 11 bits.
_BUCKET_MIN = 4096
_BUCKET_BITS = 11


@njit(cache=True)
def _sort_small(keys, order):
    """Sort ``keys`` in place, permuting ``order`` alike (insertion sort, or an argsort)."""
    n = keys.shape[0]
    if n <= _INSERTION_MAX:
        for t in range(1, n):
            key = keys[t]
            item = order[t]
            s = t - 1
            while s >= 0 and keys[s] > key:
                keys[s + 1] = keys[s]
                order[s + 1] = order[s]
                s -= 1
            keys[s + 1] = key
            order[s + 1] = item
        return
    permutation = np.argsort(keys)
    sorted_keys = keys[permutation]
    sorted_order = order[permutation]
    keys[:] = sorted_keys
    order[:] = sorted_order


@njit(cache=True)
def _sort(keys, order):
    """Sort uint64 ``keys`` in place, permuting ``order`` alike.

    Long segments are first scattered into 2**11 buckets by the 11 highest
    bits in which the keys differ (one counting pass, one pass moving the keys
    with their items), then each bucket, which fits in cache, is sorted on its
    own.
    """
    n = keys.shape[0]
    if n < _BUCKET_MIN:
        _sort_small(keys, order)
        return
    # the buckets split on the highest bits in which the keys differ
    differ = np.uint64(0)
    for t in range(n):
        differ |= keys[t] ^ keys[0]
    if differ == np.uint64(0):
        return
    top = 0
    while top < 64 and (differ >> np.uint64(top)) != np.uint64(0):
        top += 1
    radix = 1 << _BUCKET_BITS
    shift = np.uint64(max(top - _BUCKET_BITS, 0))
    mask = np.uint64(radix - 1)
    bounds = np.zeros(radix + 1, dtype=np.int64)
    for t in range(n):
        bounds[np.int64((keys[t] >> shift) & mask) + 1] += 1
    for b in range(radix):
        bounds[b + 1] += bounds[b]
    position = bounds[:radix].copy()
    moved_keys = np.empty(n, dtype=np.uint64)
    moved_order = np.empty(n, dtype=np.int64)
    for t in range(n):
        b = np.int64((keys[t] >> shift) & mask)
        target = position[b]
        moved_keys[target] = keys[t]
        moved_order[target] = order[t]
        position[b] = target + 1
    for b in range(radix):
        if bounds[b + 1] - bounds[b] > 1:
            _sort_small(moved_keys[bounds[b] : bounds[b + 1]], moved_order[bounds[b] : bounds[b + 1]])
    keys[:] = moved_keys
    order[:] = moved_order


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
    stay in cache: the working memory is about 41 bytes a pair (sort keys and
    their scratch, permutation and its scratch, run marks, ``inverse``)
    besides ``unique``.
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
    order = np.arange(n_pairs)
    _sort(keys, order)
    # starts[k]: the pair at sorted position k differs from the one before (on the words so far)
    starts = np.empty(n_pairs, dtype=np.bool_)
    n_runs = 0
    for k in range(n_pairs):
        starts[k] = k == 0 or keys[k] != keys[k - 1]
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
                first = _pair_word(f1, f2, order[start], w, intersect)
                constant = True
                for k in range(start, stop):
                    word = _pair_word(f1, f2, order[k], w, intersect)
                    keys[k] = _byteswap(word)
                    constant = constant and word == first
                if not constant:
                    _sort(keys[start:stop], order[start:stop])
                    for k in range(start + 1, stop):
                        if keys[k] != keys[k - 1]:
                            starts[k] = True
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
