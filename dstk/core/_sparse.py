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
    if rows == 0:
        return np.zeros(batch + (n_out,))
    flat = values.reshape(rows, -1)
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


#: Bytes a pair of focal sets takes when the pairs' results are sorted
#: (:func:`dstk._kernels.combination.focal_set_pairs`: keys, indices and
#: their radix-sort copies).
SORT_BYTES_PER_PAIR = 32

#: CPU seconds a pair of focal sets costs in :func:`pairwise` (its set
#: operation and hash or sort, and the rule's finish per result), and each
#: combination of the batch per pair (one product and sum), by the
#: disjunctive rule on frames of at most :data:`PAIR_COST_LABELS` labels;
#: the other rules cost :data:`PAIR_RULE_FACTORS` times more.  Two sources
#: of 4,096 random focal sets with one row took 75-101 ns a pair by the
#: disjunctive rule on 24-32 labels, 75-97 ns once divided by the factor of
#: :data:`PAIR_COST_LABELS` (107 ns on 64 labels), at load averages 1.7-4.6
#: (2-core x86_64, numba 0.68, one thread, CPU time, 2026-11-29).  The
#: estimate with one row, 110 ns, is the highest of 24-32 labels, 97 ns,
#: times a margin of 1.13: 4,096 x 4,096 pairs are estimated at 1.92 s on
#: 27 labels (measured 1.45-1.61 s), 1.99 s on 28 (1.57-1.70 s) and 2.27 s
#: on 32 (1.84-2.01 s, refused).  With ten rows 34-38 ns more a row were
#: measured earlier (load 2.7-8).
PAIR_SECONDS = 85e-9
PAIR_ROW_SECONDS = 25e-9

#: Cost of a pair of focal sets by each rule relative to the disjunctive
#: rule's (:data:`PAIR_SECONDS`), from the same 4,096 x 4,096 random focal
#: sets with one row on 24-64 labels (ratios to the disjunctive rule on the
#: same sources): conjunctive 0.94-1.13 (its pairs have as many distinct
#: results on wide frames); Dempster's 1.03-1.08 on 24 labels, 1.38-1.54 on
#: 26-32, 1.74 on 48 (it normalises, copies and prunes each result);
#: Yager's 1.5-3.2 (it merges the full frame into the result, ``np.unique``
#: over every result).  A rule not listed counts as the costliest.
PAIR_RULE_FACTORS = {"disjunctive": 1.0, "conjunctive": 1.1, "dempster": 1.5, "yager": 3.0}

#: Above this many labels spanned by the focal sets a pair costs more (more
#: distinct results, scattered sums): the estimate is multiplied by
#: ``min(labels, PAIR_COST_MAX_LABELS) / PAIR_COST_LABELS``.  Measured a pair
#: with one row: 105-139 ns on 27 labels, 104-154 on 28, 125-152 on 32,
#: 169-249 on 48, 194-207 on 64 (estimated 122, 126, 144, 216, 216 ns).
PAIR_COST_LABELS = 26
PAIR_COST_MAX_LABELS = 48

#: CPU seconds the dense route of a combination costs per subset, label,
#: combination of the batch and transform (one per source and the inverse):
#: the focal sets scattered to ``2**n`` arrays, the fast Moebius transforms
#: (``n 2**(n-1)`` butterflies each), the product and the gather back to
#: focal sets.  Two sources of the conjunctive, Dempster's, Yager's or the
#: disjunctive rule took 0.80-1.80 ns a subset, label and transform on
#: 22-24 labels at load average 4.4-4.9 (2-core x86_64, numba 0.68, one
#: thread, CPU time with the page faults of the fresh arrays, 2026-11-29):
#: one row of 24 labels ran in 0.96-1.39 s in 8 of 12 runs and 1.9-2.18 s in
#: the others (memory-bound; 0.8 s at load 1.4, up to 2.9 s at load 6-8).
#: The estimate is the highest measured, 1.80 ns, times a margin of 1.1:
#: one row of 24 labels is estimated at 2.42 s and refused (it can exceed
#: 2 s at load 4.5), one of 23 at 1.16 s, ten of 20 at 1.26 s.
DENSE_SECONDS = 2.0e-9

#: Cost of the dense route of a rule relative to the conjunctive one (log
#: weights of the cautious and bold rules, the pairwise fold of Dubois and
#: Prade's rule): 1.9-2.6x and 1.4-4x measured on 20-22 labels.
DENSE_RULE_FACTORS = {"cautious": 2.5, "bold": 2.5, "dubois_prade": 4.0, "pcr6": 4.0}

#: Frames of at most this many labels may be combined densely even when the
#: mass functions are stored in focal-set form (2**26 subsets: 512 MiB a
#: row; the memory limit and :data:`MAX_PAIRWISE_SECONDS` are checked too).
DENSE_SWITCH_MAX_LABELS = 26

#: Longest estimated CPU time of one focal-set combination, by pairs of
#: focal sets (:func:`pairwise`) or densely (:func:`choose_route`); above
#: it the combination is refused at once with
#: :class:`~dstk.exceptions.FrameTooLargeError` (the estimates in the
#: message) instead of running for minutes.  Raise it to run longer
#: combinations.
MAX_PAIRWISE_SECONDS = 2.0


def _pair_width(labels):
    """The factor of the pairs' estimate for focal sets spanning ``labels`` labels."""
    return max(1.0, min(int(labels), PAIR_COST_MAX_LABELS) / PAIR_COST_LABELS)


def _pair_rule_factor(rule):
    """The factor of :data:`PAIR_RULE_FACTORS` of ``rule`` (the largest one for a rule not listed)."""
    return PAIR_RULE_FACTORS.get(rule, max(PAIR_RULE_FACTORS.values()))


def pair_seconds(rows, labels, rule):
    """Estimated CPU seconds of one pair of focal sets in :func:`pairwise`, for ``rows`` combinations."""
    return (
        (PAIR_SECONDS + max(int(rows), 1) * PAIR_ROW_SECONDS) * _pair_width(labels) * _pair_rule_factor(rule)
    )


def pairs_seconds(sizes, rows, labels=0, rule="disjunctive", *, growing=True):
    """Estimated CPU seconds of the fold of :func:`pairwise` over sources of ``sizes`` focal sets by ``rule``.

    Each step pairs the accumulated focal sets with the next source's.  The
    accumulated focal sets are counted, erring long, as the product of the
    counts so far bounded by the ``2**labels`` subsets of the frame
    (``labels`` 0: not bounded), or, with ``growing=False``, erring short, as
    the largest count so far (simple support functions on a few labels keep
    few focal sets however many they are); ``labels`` is also the number of
    labels the focal sets span (see :data:`PAIR_COST_LABELS`), and each pair
    costs :data:`PAIR_RULE_FACTORS` of ``rule`` times the disjunctive rule's.
    """
    total = 0.0
    per_pair = pair_seconds(rows, labels, rule)
    bound = float(2 ** min(int(labels), 64)) if int(labels) > 0 else float("inf")
    accumulated = float(sizes[0]) if len(sizes) else 0.0
    for size in sizes[1:]:
        total += accumulated * float(size) * per_pair
        accumulated = min(bound, accumulated * float(size)) if growing else max(accumulated, float(size))
    return total


def dense_seconds(n, sources, rows, rule):
    """Estimated CPU seconds of combining ``sources`` focal-set sources densely on ``n`` labels."""
    factor = DENSE_RULE_FACTORS.get(rule, 1.0)
    return max(int(rows), 1) * (int(sources) + 1) * int(n) * float(1 << int(n)) * DENSE_SECONDS * factor


def dense_fits(n, sources, rows):
    """Whether the dense route's arrays (the sources and the result) fit under the memory limit."""
    from ._dense import MAX_DENSE_BYTES

    return (max(int(rows), 1) * (int(sources) + 1) << int(n)) * 8 <= MAX_DENSE_BYTES


def choose_route(n, sizes, rows, rule, *, pairs=True):
    """``"dense"`` or ``"pairs"``: the route of a focal-set combination with the lower estimated CPU time.

    ``sizes`` are the numbers of focal sets of the sources, ``rows`` the
    combinations of the batch, ``pairs`` whether ``rule`` has a route by
    pairs of focal sets.  The pairs' estimate is :func:`pairs_seconds`, the
    dense one :func:`dense_seconds` (on at most
    :data:`DENSE_SWITCH_MAX_LABELS` labels and when its arrays fit in
    memory, unless it is the rule's only route).  A rule without a route by
    pairs whose sources do not fit densely gets ``"dense"``: the dense
    conversion's memory guard refuses it, naming the size.

    Raises
    ------
    FrameTooLargeError
        When the cheaper route's estimate exceeds :data:`MAX_PAIRWISE_SECONDS`,
        before anything is allocated; the message gives both estimates.
    """
    from ._dense import MAX_DENSE_BYTES

    k = len(sizes)
    if not pairs and (max(int(rows), 1) * k << int(n)) * 8 > MAX_DENSE_BYTES:
        return "dense"
    possible = dense_fits(n, k, rows) and (not pairs or n <= DENSE_SWITCH_MAX_LABELS)
    dense = dense_seconds(n, k, rows, rule) if possible else None
    by_pairs = pairs_seconds(sizes, rows, n, rule) if pairs else None
    candidates = [(t, name) for t, name in ((dense, "dense"), (by_pairs, "pairs")) if t is not None]
    if candidates:
        seconds, route = min(candidates)
        if seconds <= MAX_PAIRWISE_SECONDS:
            return route
    if pairs and pairs_seconds(sizes, rows, n, rule, growing=False) <= MAX_PAIRWISE_SECONDS:
        # the worst case (every step multiplying the focal sets) is too slow, the best case is not: fold
        # by pairs, the fold refusing as soon as the focal sets it holds make the rest too slow
        return "pairs"
    _raise_too_slow_both(n, sizes, rows, rule, dense, by_pairs)


def check_fold_budget(spent, held, remaining, rows, labels, rule, done):
    """Refuse the rest of a fold by pairs when its estimate passes :data:`MAX_PAIRWISE_SECONDS`.

    ``spent`` is the estimated CPU seconds of the steps done, ``held`` the
    number of focal sets the fold holds after ``done`` sources, and
    ``remaining[j]`` the number of focal sets of the sources from ``j`` on
    (one entry a source and a final 0).  The rest is estimated with the held
    focal sets not growing (:func:`pairs_seconds` with ``growing=False``),
    so that a fold chosen on that best case is refused when its focal sets
    multiply, the CPU time spent so far being bounded by the limit.  Returns
    the estimate of the next step.

    Raises
    ------
    FrameTooLargeError
        When ``spent`` plus the estimate of the remaining steps exceeds the limit.
    """
    per_pair = pair_seconds(rows, labels, rule)
    rest = float(held) * float(remaining[done]) * per_pair
    if spent + rest > MAX_PAIRWISE_SECONDS:
        from ..exceptions import FrameTooLargeError

        n_sources = len(remaining) - 1
        raise FrameTooLargeError(
            f"Combining these {n_sources:,} focal-set mass functions on {labels} labels by the {rule} rule: "
            f"after {done:,} of them the combination holds {int(held):,} focal sets, and the other "
            f"{n_sources - done:,} would take at least {_shown(rest)} s of CPU (estimated), above the limit of "
            f"{MAX_PAIRWISE_SECONDS:g} s (dstk.core._sparse.MAX_PAIRWISE_SECONDS; raise it to wait). Prune "
            "focal sets of negligible mass first (e.g. keep the largest ones and renormalise), or combine "
            "fewer sources."
        )
    return float(held) * float(remaining[done] - remaining[done + 1]) * per_pair


def _shown(seconds):
    return f"{seconds:,.0f}" if seconds >= 10 else f"{seconds:.2g}"


def _raise_too_slow_both(n, sizes, rows, rule, dense, by_pairs):
    from ..exceptions import FrameTooLargeError

    if by_pairs is None:
        pairs_text = f"the {rule} rule has no route by pairs of focal sets"
    else:
        if len(sizes) <= 8:
            shape = " x ".join(f"{int(size):,}" for size in sizes) + " focal sets"
        else:  # one factor per source would make the message unreadable
            low, high = int(min(sizes)), int(max(sizes))
            each = f"{low:,}" if low == high else f"{low:,} to {high:,}"
            shape = f"focal sets ({len(sizes):,} sources of {each} focal sets each)"
        pairs_text = f"by pairs of {shape} about {_shown(by_pairs)} s of CPU"
    if dense is None:
        dense_text = (
            f"densely (2**{n} subsets) not possible: more than {DENSE_SWITCH_MAX_LABELS} labels or above the "
            "memory limit (dstk.core._dense.MAX_DENSE_BYTES)"
        )
    else:
        dense_text = f"densely (2**{n} subsets) about {_shown(dense)} s of CPU"
    raise FrameTooLargeError(
        f"Combining these {len(sizes)} focal-set mass functions on {n} labels by the {rule} rule, for each of "
        f"{int(rows):,} combination(s), takes an estimated: {pairs_text}; {dense_text}. The limit is "
        f"{MAX_PAIRWISE_SECONDS:g} s (dstk.core._sparse.MAX_PAIRWISE_SECONDS; raise it to wait). Prune focal "
        "sets of negligible mass first (e.g. keep the largest ones and renormalise), or combine smaller batches."
    )


def pairwise(f1, m1, f2, m2, op, *, normalize=False, exponents=None, max_bytes=None):
    """Combine two focal-set forms by a set operation on every pair of focal sets.

    ``op`` is ``"and"`` (conjunctive) or ``"or"`` (disjunctive).  When the
    distinct results are few (at most a quarter of the pairs: the frame
    spanned by the focal sets is small) or the pairs too many to sort in
    memory, the products are accumulated in one pass into a hash table of
    the distinct results (memory proportional to their number, see
    :func:`dstk._kernels.combination.pair_accumulate`); otherwise the pairs'
    results are radix-sorted (:func:`~dstk._kernels.combination.focal_set_pairs`,
    32 bytes a pair, sequential memory access).  With ``normalize`` (Dempster's rule, ``op="and"``) each result is
    divided by its non-empty mass; rows where a product leaves the normal
    float64 range, or whose first operand carries ``exponents`` (masses
    ``m1 * 2**exponents`` from an earlier step of a fold), are computed in
    extended exponent range (see
    :func:`dstk._kernels.combination.pair_dempster_extended`).

    Returns ``(focal, masses, log_nonempty, total_conflict, exponents)``: the
    sorted result focal sets, their masses (broadcast batch), the natural log
    of each combination's non-empty mass before normalisation (zeros without
    ``normalize``), the flag of total conflict, and None or the integer
    exponents of the masses (true masses ``masses * 2**exponents``).

    Raises
    ------
    FrameTooLargeError
        When the result would need more than ``max_bytes`` (default
        :data:`dstk.core._dense.MAX_DENSE_BYTES`), before allocating it; or
        when the estimated CPU time (``PAIR_SECONDS`` a pair plus
        ``PAIR_ROW_SECONDS`` a pair and combination, times the factors of
        :data:`PAIR_COST_LABELS` and of :data:`PAIR_RULE_FACTORS`: Dempster's
        rule with ``normalize``, else the rule of ``op``) exceeds
        :data:`MAX_PAIRWISE_SECONDS`, before starting.
    """
    from .._kernels.combination import focal_set_pairs, pair_accumulate, pair_dempster_extended, pair_products
    from ._dense import MAX_DENSE_BYTES

    max_bytes = MAX_DENSE_BYTES if max_bytes is None else max_bytes
    f1 = np.ascontiguousarray(f1, dtype=np.uint64)
    f2 = np.ascontiguousarray(f2, dtype=np.uint64)
    shape = np.broadcast_shapes(m1.shape[:-1], m2.shape[:-1])
    rows = int(np.prod(shape, dtype=np.int64))
    n_pairs = f1.size * f2.size
    # the hash table holds up to 4 rows of values a result (load <= 1/2, growth) and the result one
    max_count = max(1, max_bytes // (40 * max(rows, 1) + 16))
    capacity = 1 << max(4, int(2 * min(n_pairs, max_count, 1 << 12)).bit_length())
    a = np.ascontiguousarray(np.broadcast_to(m1, shape + m1.shape[-1:]), dtype=np.float64).reshape(
        rows, f1.size
    )
    b = np.ascontiguousarray(np.broadcast_to(m2, shape + m2.shape[-1:]), dtype=np.float64).reshape(
        rows, f2.size
    )
    union = int(np.bitwise_or.reduce(np.concatenate([f1, f2]))) if n_pairs else 0
    width = _pair_width(bin(union).count("1"))
    factor = _pair_rule_factor("dempster" if normalize else ("disjunctive" if op == "or" else "conjunctive"))
    estimate = n_pairs * (PAIR_SECONDS + rows * PAIR_ROW_SECONDS) * width * factor
    if estimate > MAX_PAIRWISE_SECONDS:
        _raise_too_slow(rows, f1.size, f2.size, estimate)
    distinct_bound = min(n_pairs, 1 << bin(union).count("1"))
    if n_pairs * SORT_BYTES_PER_PAIR > max_bytes and distinct_bound > max_count:
        # estimate the distinct results from a block of rows of the pair table before a long pass
        block = max(1, min(f1.size, (1 << 20) // max(f2.size, 1)))
        ops = np.bitwise_and if op == "and" else np.bitwise_or
        seen = np.unique(ops.outer(f1[:block], f2)).size
        if seen * (f1.size / block) > max_count:
            _raise_too_large(rows, int(seen * (f1.size / block)), n_pairs, max_bytes, more=False)
    if 4 * distinct_bound <= n_pairs or n_pairs * SORT_BYTES_PER_PAIR > max_bytes:
        # few distinct results (or too many pairs to sort in memory): hash table
        unique, out, lost, ok = pair_accumulate(
            f1, np.ascontiguousarray(a.T), f2, np.ascontiguousarray(b.T), op == "and", capacity, max_count
        )
        if not ok:
            _raise_too_large(rows, max_count, n_pairs, max_bytes, more=True)
    else:
        # mostly distinct results: sort the pairs' results (sequential memory access)
        unique, inverse = focal_set_pairs(f1, f2, op == "and")
        if rows * unique.size * 8 > max_bytes:
            _raise_too_large(rows, unique.size, n_pairs, max_bytes)
        out, lost = pair_products(a, b, inverse, unique.size)
        del inverse
    log_nonempty = np.zeros(rows)
    total = np.zeros(rows, dtype=bool)
    out_exp = None
    if normalize:
        if unique.size and unique[0] == 0:
            out[:, 0] = 0.0
        sums = out.sum(axis=1)
        total = ~(sums > 0)
        safe = np.where(total, 1.0, sums)
        out /= safe[:, None]
        with np.errstate(divide="ignore"):
            log_nonempty = np.where(total, -np.inf, np.log(safe))
        if exponents is not None:
            x1 = np.ascontiguousarray(np.broadcast_to(exponents, shape + m1.shape[-1:]), dtype=np.int64)
            x1 = x1.reshape(rows, -1)
            lost |= np.any(x1 != 0, axis=1)
        if lost.any():
            if exponents is None:
                x1 = np.zeros(a.shape, dtype=np.int64)
            out_exp = np.zeros(out.shape, dtype=np.int64)
            pair_dempster_extended(
                f1, a, x1, f2, b, np.flatnonzero(lost), unique, out, out_exp, log_nonempty, total
            )
            out_exp = out_exp.reshape(shape + (unique.size,))
    return (
        unique,
        out.reshape(shape + (unique.size,)),
        log_nonempty.reshape(shape),
        total.reshape(shape),
        out_exp,
    )


def _raise_too_slow(rows, n_first, n_second, estimate):
    from ..exceptions import FrameTooLargeError

    shown = _shown(estimate)
    raise FrameTooLargeError(
        f"Combining these focal-set mass functions pairs {n_first:,} x {n_second:,} focal sets "
        f"({n_first * n_second:,} pairs) for each of {rows:,} combination(s): about {shown} s of CPU "
        f"(estimated), above the limit of {MAX_PAIRWISE_SECONDS:g} s "
        "(dstk.core._sparse.MAX_PAIRWISE_SECONDS; raise it to wait). Prune focal sets of negligible mass "
        "first (e.g. keep the largest ones and renormalise), or combine smaller batches."
    )


def _raise_too_large(rows, n_results, n_pairs, max_bytes, more=False):
    from ..exceptions import FrameTooLargeError

    need = n_results * (40 * rows + 16)
    raise FrameTooLargeError(
        f"Combining these focal-set mass functions gives {'more than' if more else 'about'} {n_results:,} "
        f"distinct focal sets ({n_pairs:,} pairs of focal sets) for each of {rows:,} combination(s): "
        f"{'over ' if more else 'about '}{need / 2**30:.1f} GiB with the working memory, above the limit "
        f"of {max_bytes / 2**30:.0f} GiB (dstk.core._dense.MAX_DENSE_BYTES). Combine smaller batches, "
        "or prune focal sets of negligible mass first (e.g. keep the largest ones and renormalise)."
    )


def prune(focal, masses, tolerance=0.0, exponents=None):
    """Drop focal sets whose mass is <= tolerance in every batch member.

    With ``exponents`` (integer powers of two of the masses, same shape)
    returns them pruned too, as a third item.
    """
    keep = np.any(masses.reshape(-1, masses.shape[-1]) > tolerance, axis=0)
    if not keep.all():
        if not keep.any():
            keep[-1] = True
        focal, masses = focal[keep], np.ascontiguousarray(masses[..., keep])
        if exponents is not None:
            exponents = np.ascontiguousarray(exponents[..., keep])
    if exponents is None:
        return focal, masses
    return focal, masses, exponents
