"""The focal-set form: focal bitmasks (uint64, shared by a batch) and masses (..., F).

Used for frames of more than 16 labels (up to 64).  Combinations enumerate
pairs of focal sets, O(F1 F2), then merge equal results with ``np.unique``.
"""

import numpy as np

__all__ = ["merge_duplicates", "to_dense", "from_dense", "align", "popcount", "pairwise"]


def popcount(masks):
    """Number of set bits of each uint64 mask."""
    x = np.asarray(masks, dtype=np.uint64)
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x).astype(np.int64)
    out = np.zeros(x.shape, dtype=np.int64)
    y = x.copy()
    while np.any(y):
        out += (y & np.uint64(1)).astype(np.int64)
        y >>= np.uint64(1)
    return out


def merge_duplicates(focal, masses):
    """Sort focal masks and sum the masses of repeated ones."""
    focal = np.asarray(focal, dtype=np.uint64)
    uniq, inv = np.unique(focal, return_inverse=True)
    if uniq.size == focal.size:
        order = np.argsort(focal)
        return focal[order], np.ascontiguousarray(masses[..., order])
    return uniq, scatter_sum(masses, inv.ravel(), uniq.size)


def scatter_sum(values, index, n_out):
    """out[..., j] = sum of values[..., i] over i with index[i] == j."""
    values = np.asarray(values, dtype=np.float64)
    batch = values.shape[:-1]
    rows = int(np.prod(batch, dtype=np.int64))
    flat = values.reshape(rows, -1)
    if rows == 0:
        return np.zeros(batch + (n_out,))
    offs = (np.arange(rows, dtype=np.int64) * n_out)[:, None] + index[None, :]
    out = np.bincount(offs.ravel(), weights=flat.ravel(), minlength=rows * n_out)
    return out.reshape(batch + (n_out,))


def to_dense(focal, masses, size):
    out = np.zeros(masses.shape[:-1] + (size,))
    out[..., focal.astype(np.int64)] = masses
    return out


def from_dense(m):
    """Focal-set form of a dense batch (focal sets = union of the batch's non-zeros)."""
    any_nz = np.any(m.reshape(-1, m.shape[-1]) != 0, axis=0)
    idx = np.flatnonzero(any_nz)
    if idx.size == 0:
        idx = np.array([m.shape[-1] - 1])
    return idx.astype(np.uint64), np.ascontiguousarray(m[..., idx])


def align(forms):
    """Express several (focal, masses) pairs on the union of their focal sets."""
    focal = np.unique(np.concatenate([f for f, _ in forms]))
    out = []
    for f, fm in forms:
        pos = np.searchsorted(focal, f)
        arr = np.zeros(fm.shape[:-1] + (focal.size,))
        arr[..., pos] = fm
        out.append(arr)
    return focal, out


def pairwise(f1, m1, f2, m2, op):
    """Combine two focal-set forms by a set operation on every pair of focal sets.

    ``op`` is ``"and"`` (conjunctive) or ``"or"`` (disjunctive).  Returns the
    merged focal masks and the masses (broadcast batch).
    """
    from .._kernels.combination import focal_set_pairs, pair_products

    uniq, inv = focal_set_pairs(
        np.ascontiguousarray(f1, dtype=np.uint64), np.ascontiguousarray(f2, dtype=np.uint64), op == "and"
    )
    shape = np.broadcast_shapes(m1.shape[:-1], m2.shape[:-1])
    a = np.ascontiguousarray(np.broadcast_to(m1, shape + m1.shape[-1:])).reshape(-1, m1.shape[-1])
    b = np.ascontiguousarray(np.broadcast_to(m2, shape + m2.shape[-1:])).reshape(-1, m2.shape[-1])
    out = pair_products(a, b, inv, uniq.size)
    return uniq, out.reshape(shape + (uniq.size,))


def prune(focal, masses, tolerance=0.0):
    """Drop focal sets whose mass is <= tolerance in every batch member."""
    keep = np.any(masses.reshape(-1, masses.shape[-1]) > tolerance, axis=0)
    if keep.all():
        return focal, masses
    if not keep.any():
        keep[-1] = True
    return focal[keep], np.ascontiguousarray(masses[..., keep])
