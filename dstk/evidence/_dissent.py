"""Whether one of several combined sources fails on a batch: its agreement with the others, tested.

Used by :class:`dstk.calibration.EvidentialFusionClassifier` (``failure_test_level``).  A source's
output on a sample is summarised, as in :mod:`dstk.evidence._contextual`, by its discounted contour
``pl'_sik``; Dempster's combination of the sources has their product as contour.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

__all__ = ["log_agreement", "failing_source"]

#: smallest contour value used inside logarithms
_TINY = 1e-300


def log_agreement(discounted: np.ndarray) -> np.ndarray:
    """Log-likelihood ratio of "source s is informative on sample i" against "unrelated to it".

    Reading the discounted contours as likelihoods of the classes (uniform prior), the other sources
    give the class probabilities ``P_-s,i(k) ∝ prod_{j != s} pl'_jik`` (the plausibility transform of
    their Dempster combination); source ``s``'s output is then expected with likelihood
    ``sum_k P_-s,i(k) pl'_sik`` when it bears on the sample, and with ``mean_k pl'_sik`` when it is an
    output drawn independently of the sample's class.  The statistic is the log of their ratio,

        ``log A_si = log sum_k P_-s,i(k) pl'_sik - log mean_k pl'_sik``,

    the plausibility of source ``s``'s output under the combination of the others, relative to a
    uniform combination: positive when ``s`` agrees with the others, negative when it contradicts them.

    Parameters
    ----------
    discounted : ndarray of shape (S, n, K)
        Each source's discounted contour on each sample (S >= 2).

    Returns
    -------
    ndarray of shape (S, n)
    """
    log_contour = np.log(np.maximum(discounted, _TINY))
    others = log_contour.sum(axis=0, keepdims=True) - log_contour
    posterior = special.softmax(others, axis=2)
    return np.log(np.maximum((posterior * discounted).sum(axis=2), _TINY)) - np.log(
        np.maximum(discounted.mean(axis=2), _TINY)
    )


def failing_source(
    reference: np.ndarray, discounted_reference: np.ndarray, discounted: np.ndarray, level: float
) -> tuple[np.ndarray, int]:
    """The source that a batch shows failing, if any, by a rank test of its agreement with the others.

    For each source ``s``, the one-sided Mann-Whitney U test (Mann & Whitney 1947) of "the log
    agreement :func:`log_agreement` of ``s`` on the batch is stochastically smaller than on the
    reference samples" gives a p-value; the sources whose p-value is below ``level / S`` (Bonferroni)
    are flagged.  One flagged source is returned as failing; of several (a failing source also lowers
    the agreement of the sources it contradicts), the one whose removal leaves the least drop of the
    others' mean log agreement between the reference and the batch.  When that choice is a tie (equal
    to ``1e-9`` relative, e.g. two sources contradicting each other beside a vacuous third, whose log
    agreements are then equal by symmetry), the batch cannot say which source failed and none is
    returned.  With two sources the log agreements are always equal (``A_1 = A_2``), so at least three
    are needed.

    Parameters
    ----------
    reference : ndarray of shape (S, n_reference)
        Log agreement of each source on reference samples (e.g. out-of-fold outputs).
    discounted_reference : ndarray of shape (S, n_reference, K)
        The discounted contours the reference was computed from.
    discounted : ndarray of shape (S, n, K)
        The discounted contours on the batch.
    level : float
        Family-wise significance level.

    Returns
    -------
    p_values : ndarray of shape (S,)
    failing : int
        Index of the failing source, or -1.
    """
    batch = log_agreement(discounted)
    n_sources = batch.shape[0]
    p_values = np.array(
        [stats.mannwhitneyu(batch[s], reference[s], alternative="less").pvalue for s in range(n_sources)]
    )
    if n_sources < 3:
        raise ValueError(
            f"The failure test compares each source with the others and needs at least three; got {n_sources} "
            "(with two, each one's agreement with the other is the same number)."
        )
    flagged = np.flatnonzero(p_values < level / n_sources)
    if flagged.size == 0:
        return p_values, -1
    if flagged.size == 1:
        return p_values, int(flagged[0])
    rest_drop = np.empty(flagged.size)  # the least drop of the others' agreement once s is left out
    for i, s in enumerate(flagged):
        keep = np.delete(np.arange(n_sources), s)
        rest = log_agreement(discounted[keep]).mean(axis=1) - log_agreement(discounted_reference[keep]).mean(
            axis=1
        )
        rest_drop[i] = rest.min()
    order = np.argsort(-rest_drop, kind="stable")
    first, second = rest_drop[order[0]], rest_drop[order[1]]
    if first - second <= 1e-9 * max(1.0, abs(first), abs(second)):
        return p_values, -1  # a tie: the batch cannot tell which of them failed
    return p_values, int(flagged[order[0]])
