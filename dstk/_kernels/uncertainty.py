"""Numba kernel for the aggregate uncertainty (maximal entropy over a credal set).

* :func:`maximum_entropy_probabilities`: the algorithm of Meyerowitz, Richman
  & Walker (1994) (also Harmanec, Resconi, Klir & Pan 1996, Algorithm 1) on
  dense belief rows.

Kernels take and return plain float64 arrays; validation is done by callers.
"""

import numpy as np

from dstk._kernels._jit import njit

__all__ = ["maximum_entropy_probabilities"]


@njit(cache=True)
def maximum_entropy_probabilities(bel, n, tolerance):
    """The probability of maximal Shannon entropy compatible with each belief row.

    Parameters
    ----------
    bel : ndarray of shape (N, 2**n)
        Belief values indexed by subset bitmask (``bel[:, 0] = 0``,
        ``bel[:, -1] = 1``).
    n : int
        Number of labels.
    tolerance : float
        Two ratios closer than this are ties (broken towards the larger set).

    Returns
    -------
    ndarray of shape (N, n)
        ``p`` with ``sum_{x in A} p(x) >= bel(A)`` for every ``A`` and maximal
        entropy.

    Notes
    -----
    Step 1 picks the non-empty set ``A`` maximising ``bel(A) / |A|`` (the
    largest such set on ties); step 2 gives every element of ``A`` that
    probability; step 3 conditions the belief function on the rest,
    ``bel'(B) = bel(B | A) - bel(A)``; the loop ends when every element has
    received its probability.  After removing ``R = A_1 | ... | A_k`` the
    conditioned belief is ``bel(B | R) - bel(R)`` for ``B`` outside ``R``, so
    the original rows are read and never rewritten: at most ``n`` sweeps over
    the subsets of the remaining elements, ``O(n 2**n)`` per row.
    """
    rows = bel.shape[0]
    full = (1 << n) - 1
    card = np.zeros(full + 1, dtype=np.int64)
    for a in range(1, full + 1):
        card[a] = card[a >> 1] + (a & 1)
    out = np.zeros((rows, n))
    for i in range(rows):
        removed = 0
        bel_removed = 0.0
        while removed != full:
            rest = full ^ removed
            best_ratio = -np.inf
            best_set = 0
            best_card = 0
            b = rest
            while b > 0:
                ratio = (bel[i, b | removed] - bel_removed) / card[b]
                if ratio > best_ratio + tolerance or (
                    ratio >= best_ratio - tolerance and card[b] > best_card
                ):
                    best_ratio = ratio
                    best_set = b
                    best_card = card[b]
                b = (b - 1) & rest
            value = best_ratio if best_ratio > 0.0 else 0.0
            for x in range(n):
                if (best_set >> x) & 1:
                    out[i, x] = value
            removed |= best_set
            bel_removed = bel[i, removed]
    return out
