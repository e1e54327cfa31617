"""The wide focal-set form: focal sets of any width as multi-word uint64 bitsets.

A focal set on a frame of ``n`` labels is a row of ``ceil(n / 64)`` uint64
words: bit ``i % 64`` of word ``i // 64`` is set when label ``i`` belongs to
the set (the binary order of :class:`~dstk.core.Frame`, cut into words).
A batch of mass functions shares the focal sets ``focal`` (F, n_words),
stored without repeats in byte-wise sorted order, and holds masses of shape
``batch_shape + (F,)``.

The operations are written on these arrays once: the conjunctive and
disjunctive rules and Dempster's rule enumerate the pairs of focal sets,
O(F1 F2 n_words), and merge equal results; belief, plausibility and
commonality of given sets, the pignistic transform, the contour function,
discounting and conditioning are one pass over the focal sets.  Every array
whose size grows with the pairs is checked against
:data:`dstk.core._dense.MAX_DENSE_BYTES` before it is allocated.

References
----------
Shafer, G. (1976). A Mathematical Theory of Evidence. Princeton, ch. 2-3.
Smets, P., Kennes, R. (1994). The transferable belief model. Artificial
Intelligence 66(2), 191-234 (the pignistic transform, eq. 3).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..exceptions import FrameTooLargeError, TotalConflictError
from . import _dense, _sparse
from ._dense import MAX_DENSE_BYTES

__all__ = [
    "n_words",
    "pack",
    "unpack",
    "membership",
    "cardinality",
    "merge_duplicates",
    "combine",
    "belief",
    "plausibility",
    "commonality",
    "pignistic",
    "contour",
    "discount",
    "condition",
    "from_ints",
    "to_ints",
    "align",
    "union",
    "members_product",
]

#: The rules :func:`combine` applies, by name.
RULES = ("conjunctive", "dempster", "disjunctive")


def n_words(n: int) -> int:
    """Number of uint64 words of a subset of a frame of ``n`` labels."""
    return max((int(n) + 63) // 64, 1)


def pack(sets: Iterable[Iterable[int]], n: int) -> np.ndarray:
    """Bitsets (F, n_words) of the sets of label indices ``sets`` on a frame of ``n`` labels."""
    rows = [np.asarray(list(s), dtype=np.int64) for s in sets]
    out = np.zeros((len(rows), n_words(n)), dtype=np.uint64)
    for row, idx in enumerate(rows):
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise ValueError(f"label indices must lie in [0, {n}); got {idx.min()}..{idx.max()}")
        bits = np.left_shift(np.uint64(1), (idx % 64).astype(np.uint64))
        np.bitwise_or.at(out[row], idx // 64, bits)
    return out


def membership(focal: np.ndarray, n: int) -> np.ndarray:
    """(F, n) bool: does focal set f contain label i."""
    focal = np.ascontiguousarray(focal, dtype="<u8")
    as_bytes = focal.view(np.uint8).reshape(focal.shape[0], 8 * focal.shape[1])  # (no -1: F may be 0)
    return np.unpackbits(as_bytes, axis=1, bitorder="little")[:, :n].astype(bool)


def unpack(focal: np.ndarray, n: int) -> list[tuple[int, ...]]:
    """The label indices of each bitset of ``focal`` (F, n_words), in increasing order."""
    member = membership(focal, n)
    return [tuple(np.flatnonzero(row).tolist()) for row in member]


def cardinality(focal: np.ndarray) -> np.ndarray:
    """``|A|`` of each bitset of ``focal`` (F, n_words), int64."""
    return _sparse.popcount(focal).sum(axis=-1, dtype=np.int64)


def merge_duplicates(focal: np.ndarray, masses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``focal`` without repeats (byte-wise sorted), the masses of repeats summed."""
    focal = np.ascontiguousarray(focal, dtype=np.uint64)
    width = focal.shape[1]
    # one opaque key a row: a byte-wise sort, 3x faster than np.unique(axis=0)
    keys = focal.view(np.dtype((np.void, 8 * width))).ravel()
    uniq, inverse = np.unique(keys, return_inverse=True)
    rows = np.ascontiguousarray(uniq).view(np.uint64).reshape(-1, width)
    return rows, _sparse.scatter_sum(masses, inverse.ravel(), rows.shape[0])


def _check_pairs(n_pairs: int, n_words_: int, rows: int) -> None:
    """Refuse, before allocating, a pair enumeration above the memory limit."""
    # the pairs' bitsets (3 copies: numpy's table and its sort), the inverse index and
    # the kernel's sort keys and permutation (at most 56 bytes a pair), the pair masses
    need = n_pairs * (3 * 8 * n_words_ + 56 + 8 * rows)
    if need > MAX_DENSE_BYTES:
        raise FrameTooLargeError(
            f"Combining these focal-set mass functions enumerates {n_pairs:,} pairs of focal sets of "
            f"{n_words_} words for {rows:,} combination(s): about {need / 2**30:.1f} GiB, above the limit "
            f"of {MAX_DENSE_BYTES / 2**30:.0f} GiB (dstk.core._dense.MAX_DENSE_BYTES). Combine smaller "
            "batches, or prune focal sets of negligible mass first."
        )


def _normalize(focal: np.ndarray, masses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop the empty set and divide by the non-empty mass (Dempster's normalisation)."""
    # the focal sets are byte-wise sorted: the empty set (all zero) can only be the first
    if focal.shape[0] and not np.any(focal[0]):
        # (a contiguous copy: numpy sums a strided batch in another order)
        focal, kept = focal[1:], np.ascontiguousarray(masses[..., 1:])
    else:
        kept = masses
    total = kept.sum(axis=-1, keepdims=True)
    if np.any(total <= 0):
        raise TotalConflictError(
            "The mass functions are in total conflict (all the combined mass is on the empty set): "
            "Dempster's rule is undefined. Use the unnormalised conjunctive rule, or discount the sources."
        )
    return focal, kept / total


def combine(
    f1: np.ndarray, m1: np.ndarray, f2: np.ndarray, m2: np.ndarray, rule: str
) -> tuple[np.ndarray, np.ndarray]:
    """Combine two wide focal-set forms by ``rule`` (one of :data:`RULES`).

    The conjunctive rule gives ``m(A) = sum_{B & C = A} m1(B) m2(C)``
    (Smets and Kennes 1994, eq. 5), the disjunctive rule the same sum over
    ``B | C = A``, Dempster's rule the conjunctive result without the empty
    set, divided by its non-empty mass (Shafer 1976, eq. 3.1).  The batch
    shapes of ``m1`` (..., F1) and ``m2`` (..., F2) broadcast.
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}; got {rule!r}")
    f1 = np.ascontiguousarray(f1, dtype=np.uint64)
    f2 = np.ascontiguousarray(f2, dtype=np.uint64)
    m1 = np.asarray(m1, dtype=np.float64)
    m2 = np.asarray(m2, dtype=np.float64)
    batch = np.broadcast_shapes(m1.shape[:-1], m2.shape[:-1])
    rows = 1
    for length in batch:
        rows *= int(length)
    n_pairs = f1.shape[0] * f2.shape[0]
    _check_pairs(n_pairs, f1.shape[1], rows)
    if n_pairs < KERNEL_MIN_PAIRS or f1.shape[0] == 0 or f2.shape[0] == 0:
        op = np.bitwise_or if rule == "disjunctive" else np.bitwise_and
        pairs = op(f1[:, None, :], f2[None, :, :]).reshape(n_pairs, f1.shape[1])
        products = (m1[..., :, None] * m2[..., None, :]).reshape(batch + (n_pairs,))
        focal, masses = merge_duplicates(pairs, products)
    else:
        focal, masses = _kernel_combine(f1, m1, f2, m2, rule != "disjunctive", batch, rows)
    if rule == "dempster":
        focal, masses = _normalize(focal, masses)
    return focal, masses


#: Fewest pairs of focal sets that :func:`combine` merges with the compiled
#: kernel :func:`dstk._kernels.wide_pairs.pair_results` (a sort of the pairs by
#: their results, words recomputed from the operands) rather than with numpy (a
#: table of all the pairs' results, then a sort of its rows): below it numpy
#: takes milliseconds and the kernel is not compiled.  Both give the same bits.
KERNEL_MIN_PAIRS = 4096


def _kernel_combine(f1, m1, f2, m2, intersect, batch, rows):
    """The merged pair results and their summed products by the compiled kernels."""
    from .._kernels._jit import read_only
    from .._kernels.combination import pair_products
    from .._kernels.wide_pairs import pair_results

    unique, inverse = pair_results(read_only(f1), read_only(f2), intersect)
    a = np.ascontiguousarray(np.broadcast_to(m1, batch + m1.shape[-1:])).reshape(rows, f1.shape[0])
    b = np.ascontiguousarray(np.broadcast_to(m2, batch + m2.shape[-1:])).reshape(rows, f2.shape[0])
    # the products added in the pairs' order, as np.bincount adds them in merge_duplicates
    out, _ = pair_products(a, b, inverse, unique.shape[0])
    return unique, out.reshape(batch + (unique.shape[0],))


def _query(focal: np.ndarray, masses: np.ndarray, sets: np.ndarray, kind: str) -> np.ndarray:
    focal = np.asarray(focal, dtype=np.uint64)
    sets = np.atleast_2d(np.asarray(sets, dtype=np.uint64))
    _check_pairs(focal.shape[0] * sets.shape[0], focal.shape[1], 0)
    if kind == "bel":
        # B non-empty and B subset of A: no bit of B outside A
        select = np.all((focal[None, :, :] & ~sets[:, None, :]) == 0, axis=2)
        select &= np.any(focal != 0, axis=1)[None, :]
    elif kind == "pl":
        select = np.any((focal[None, :, :] & sets[:, None, :]) != 0, axis=2)
    else:  # q: A subset of B
        select = np.all((sets[:, None, :] & ~focal[None, :, :]) == 0, axis=2)
    return np.asarray(masses, dtype=np.float64) @ select.T.astype(np.float64)


def belief(focal: np.ndarray, masses: np.ndarray, sets: np.ndarray) -> np.ndarray:
    """``bel(A) = sum_{0 != B subset of A} m(B)`` for each bitset of ``sets`` (K, n_words): (..., K)."""
    return _query(focal, masses, sets, "bel")


def plausibility(focal: np.ndarray, masses: np.ndarray, sets: np.ndarray) -> np.ndarray:
    """``pl(A) = sum_{B & A != 0} m(B)`` for each bitset of ``sets`` (K, n_words): (..., K)."""
    return _query(focal, masses, sets, "pl")


def commonality(focal: np.ndarray, masses: np.ndarray, sets: np.ndarray) -> np.ndarray:
    """``q(A) = sum_{B superset of A} m(B)`` for each bitset of ``sets`` (K, n_words): (..., K)."""
    return _query(focal, masses, sets, "q")


def pignistic(focal: np.ndarray, masses: np.ndarray, n: int) -> np.ndarray:
    """``BetP(i) = sum_{B contains i} m(B) / (|B| (1 - m(0)))`` (Smets and Kennes 1994, eq. 3): (..., n)."""
    masses = np.asarray(masses, dtype=np.float64)
    size = cardinality(focal)
    nonempty = size > 0
    nonempty_mass = masses[..., nonempty].sum(axis=-1, keepdims=True)
    if np.any(nonempty_mass <= 0):
        raise TotalConflictError(
            "The pignistic transform is undefined for a mass function with all its mass on the empty set."
        )
    share = masses[..., nonempty] / size[nonempty]
    return members_product(share, focal[nonempty], n) / nonempty_mass


def contour(focal: np.ndarray, masses: np.ndarray, n: int) -> np.ndarray:
    """The contour function ``pl({i}) = sum_{B contains i} m(B)``: (..., n)."""
    return members_product(masses, focal, n)


#: Focal sets whose 0/1 membership rows are expanded at once by :func:`members_product`
#: (``block * n`` floats: 64 MiB on 10,000 labels).
MEMBERS_BLOCK_VALUES = 1 << 23


def members_product(values: np.ndarray, focal: np.ndarray, n: int) -> np.ndarray:
    """``values (..., F) @ membership (F, n)``, expanding a block of focal sets at a time: (..., n)."""
    values = np.asarray(values, dtype=np.float64)
    size = focal.shape[0]
    block = max(1, MEMBERS_BLOCK_VALUES // max(int(n), 1))
    if size <= block:
        return values @ membership(focal, n).astype(np.float64)
    out = np.zeros(values.shape[:-1] + (n,))
    for start in range(0, size, block):
        stop = min(start + block, size)
        out += values[..., start:stop] @ membership(focal[start:stop], n).astype(np.float64)
    return out


def _full(n: int) -> np.ndarray:
    full = np.zeros((1, n_words(n)), dtype=np.uint64)
    full[0, : n // 64] = np.iinfo(np.uint64).max
    if n % 64:
        full[0, n // 64] = np.uint64((1 << (n % 64)) - 1)
    return full


def discount(
    focal: np.ndarray, masses: np.ndarray, rate: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """Shafer's discounting: ``(1 - rate) m + rate m_vacuous`` (Shafer 1976, ch. 11)."""
    masses = np.asarray(masses, dtype=np.float64)
    rate = np.asarray(rate, dtype=np.float64)[..., None]
    full = _full(n)
    scaled = np.broadcast_to(
        (1.0 - rate) * masses, np.broadcast_shapes(rate.shape[:-1], masses.shape[:-1]) + masses.shape[-1:]
    )
    vacuous = np.broadcast_to(rate, scaled.shape[:-1] + (1,))
    return merge_duplicates(np.concatenate([focal, full]), np.concatenate([scaled, vacuous], axis=-1))


def condition(focal: np.ndarray, masses: np.ndarray, subset: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dempster's conditioning on the bitset ``subset`` (n_words,): ``m(. | A)`` (Shafer 1976, eq. 3.7)."""
    restricted = np.asarray(focal, dtype=np.uint64) & np.asarray(subset, dtype=np.uint64)[None, :]
    return _normalize(*merge_duplicates(restricted, masses))


def from_ints(masks: Iterable[int], n: int) -> np.ndarray:
    """Bitsets (F, n_words) of the subsets given as Python int bitmasks (bit ``i`` = label ``i``)."""
    masks = list(masks)
    width = n_words(n)
    raw = b"".join(int(mask).to_bytes(8 * width, "little") for mask in masks)
    return np.frombuffer(raw, dtype="<u8").astype(np.uint64).reshape(len(masks), width)


def to_ints(focal: np.ndarray) -> list[int]:
    """The Python int bitmask of each bitset of ``focal`` (F, n_words)."""
    focal = np.asarray(focal)
    width = 8 * focal.shape[1]
    raw = np.ascontiguousarray(focal, dtype="<u8").tobytes()
    return [int.from_bytes(raw[i : i + width], "little") for i in range(0, len(raw), width)]


def union(focal_sets: list[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]]:
    """The union of several (F_i, n_words) bitsets (byte-wise sorted, no repeats), and where each row went."""
    total = sum(f.shape[0] for f in focal_sets)
    _dense.check_array_bytes((3 * total, focal_sets[0].shape[1]), "The union of the focal sets")
    focal = np.ascontiguousarray(np.concatenate(focal_sets), dtype=np.uint64)
    width = focal.shape[1]
    keys = focal.view(np.dtype((np.void, 8 * width))).ravel()
    uniq, inverse = np.unique(keys, return_inverse=True)
    rows = np.ascontiguousarray(uniq).view(np.uint64).reshape(-1, width)
    bounds = np.cumsum([0] + [f.shape[0] for f in focal_sets])
    inverse = inverse.ravel()
    return rows, [inverse[bounds[i] : bounds[i + 1]] for i in range(len(focal_sets))]


def align(forms: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Several (focal, masses) pairs on the union of their focal sets (byte-wise sorted, no repeats)."""
    rows, positions = union([f for f, _ in forms])
    out = []
    for (_, fm), position in zip(forms, positions):
        _dense.check_array_bytes(
            fm.shape[:-1] + (rows.shape[0],), "The masses on the union of the focal sets"
        )
        values = np.zeros(fm.shape[:-1] + (rows.shape[0],))
        values[..., position] = fm
        out.append(values)
    return rows, out
