"""Evidential isotonic-regression calibration (Xu et al. 2016, Sections 2 and 4.2)."""

from __future__ import annotations

import numpy as np

from .._kernels._jit import call_kernel
from .._kernels.calibration import isotonic_envelope, pool_adjacent_violators
from .._validation import as_float_array, check_consistent_length, check_scores
from ._base import BINARY_COUNT_MODELS, check_model
from ._binning import _counts_table, _TableCalibrator

__all__ = ["IsotonicCalibrator", "isotonic_blocks"]


def isotonic_blocks(
    scores: np.ndarray, y01: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """PAV blocks of the non-decreasing least-squares fit of ``y01`` on ``scores``.

    Parameters
    ----------
    scores : ndarray of shape (n,)
    y01 : ndarray of shape (n,), values in {0, 1}

    Returns
    -------
    lower_scores, upper_scores : ndarray of shape (n_blocks,)
        Smallest and largest calibration score of each block.
    positives, totals : ndarray of shape (n_blocks,)
        Class-1 count k_j and size n_j of each block; the fitted value is k_j / n_j.

    Notes
    -----
    Tied scores are pooled first (their mean label is the target, as in
    scikit-learn's ``IsotonicRegression``); the pool-adjacent-violators
    algorithm (Ayer et al. 1955) then merges adjacent blocks while the left
    mean is >= the right mean, so the blocks are the maximal constant pieces
    of the fit (Xu et al. 2016, Eq. 1 minimised).

    References
    ----------
    Ayer, M., Brunk, H. D., Ewing, G. M., Reid, W. T. and Silverman, E. (1955).
    An empirical distribution function for sampling with incomplete
    information. Annals of Mathematical Statistics 26(4), 641-647.

    Examples
    --------
    >>> import numpy as np
    >>> lower, upper, positives, totals = isotonic_blocks(
    ...     np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.0, 1.0, 0.0, 1.0]))
    >>> lower.tolist(), upper.tolist(), positives.tolist(), totals.tolist()
    ([0.1, 0.2, 0.4], [0.1, 0.3, 0.4], [0.0, 1.0, 1.0], [1.0, 2.0, 1.0])
    """
    scores = check_scores(scores)
    y01 = as_float_array(y01, "y01", finite=True)
    check_consistent_length(scores, y01, names=("scores", "y01"))
    if not np.isin(y01, (0.0, 1.0)).all():
        raise ValueError(
            "`y01` must hold 0/1 labels (encode the classes first, e.g. 1 for the positive class)."
        )
    unique, inverse = np.unique(scores, return_inverse=True)
    sums = np.bincount(inverse, weights=y01, minlength=unique.size)
    weights = np.bincount(inverse, minlength=unique.size).astype(np.float64)
    starts, block_sums, block_weights = call_kernel(
        pool_adjacent_violators,
        sums,
        weights,
        work=sums.size,
    )
    ends = np.append(starts[1:], unique.size) - 1
    return unique[starts], unique[ends], block_sums, block_weights


class IsotonicCalibrator(_TableCalibrator):
    """Isotonic-regression calibration; each PAV block is a bin with an evidential model.

    Parameters
    ----------
    model : str, default "likelihood"
        Counts-to-mass model of each block (see
        :class:`~dstk.calibration.BinningCalibrator`): ``"bayes"`` (the isotonic
        fit k_j/n_j), ``"inverse_pignistic"``, ``"dempster"``,
        ``"confidence_interval"``, ``"likelihood"`` or ``"plausibility"``.
    envelope : bool, default True
        Replace the per-block Bel({1}) and Pl({1}) by their isotonic envelopes
        (Section 4.2) so that both are non-decreasing in the score.
    level : float, default 0.95
        Clopper-Pearson level for ``model="confidence_interval"``.

    Attributes
    ----------
    thresholds_ : ndarray of shape (n_blocks - 1,)
        Block boundaries: midpoints between the last calibration score of a
        block and the first score of the next one.  A test score s belongs to
        block j when ``thresholds_[j-1] < s <= thresholds_[j]``; scores below
        (above) the calibration range belong to the first (last) block.
    block_counts_ : ndarray of shape (n_blocks, 2)
        ``(k_j, n_j)`` of each block.
    block_scores_ : ndarray of shape (n_blocks, 2)
        Lowest and highest calibration score of each block.
    mass_table_ : ndarray of shape (n_blocks, 4)
        Dense masses of each block (after the envelope).
    classes_ : ndarray of shape (2,)

    Raises
    ------
    ValueError
        Unknown model, bad scores or labels.

    Notes
    -----
    With (Bel_j, Pl_j) the interval of block j from its counts, the envelope is
    Pl*_j = max_{i <= j} Pl_i (upward scan) and Bel*_j = min_{i >= j} Bel_i
    (downward scan); the mass function of block j is then m({1}) = Bel*_j,
    m({0}) = 1 - Pl*_j, m({0, 1}) = Pl*_j - Bel*_j (Xu et al. 2016, Section
    4.2, Fig. 5).  Since Bel*_j <= Bel_j <= Pl_j <= Pl*_j it stays a valid mass
    function.  The fitted map is a step function (no interpolation between
    blocks, unlike scikit-learn's ``IsotonicRegression``, which interpolates
    linearly): a score must fall in one block to get that block's evidence.
    With ``model="bayes"`` the envelope changes nothing (the fit is already
    isotonic).

    References
    ----------
    Zadrozny, B. and Elkan, C. (2002). Transforming classifier scores into
    accurate multiclass probability estimates. KDD.
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. IJAR 72, 55-70.

    Examples
    --------
    >>> import numpy as np
    >>> scores = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    >>> y = np.array([0, 1, 0, 1, 1, 1])
    >>> calibrator = IsotonicCalibrator(model="dempster").fit(scores, y)
    >>> calibrator.block_counts_
    array([[0., 1.],
           [1., 2.],
           [3., 3.]])
    >>> calibrator.predict_mass([0.25, 0.9]).to_array().round(4)
    array([[0.    , 0.3333, 0.3333, 0.3333],
           [0.    , 0.    , 0.75  , 0.25  ]])
    """

    def __init__(self, *, model: str = "likelihood", envelope: bool = True, level: float = 0.95) -> None:
        self.model = model
        self.envelope = envelope
        self.level = level

    def _fit(self, scores, y01):
        check_model(self.model, BINARY_COUNT_MODELS, type(self).__name__)
        if not isinstance(self.envelope, (bool, np.bool_)):
            raise ValueError(f"`envelope` must be True or False; got {self.envelope!r}.")
        lower, upper, positives, totals = isotonic_blocks(scores, y01)
        self.block_scores_ = np.column_stack([lower, upper])
        self.block_counts_ = np.column_stack([positives, totals])
        with np.errstate(over="ignore"):
            thresholds = 0.5 * (upper[:-1] + lower[1:])
        wide = ~np.isfinite(thresholds)  # two blocks further apart than the largest float: halves first
        thresholds[wide] = 0.5 * upper[:-1][wide] + 0.5 * lower[1:][wide]
        self.thresholds_ = np.ascontiguousarray(thresholds)
        table = _counts_table(positives, totals, self.model, self.level, "raise", type(self).__name__)
        if self.envelope:
            belief = table[:, 2]
            plausibility = table[:, 2] + table[:, 3]
            low, high = call_kernel(
                isotonic_envelope,
                np.ascontiguousarray(belief),
                np.ascontiguousarray(plausibility),
                work=belief.size,
            )
            table = np.zeros_like(table)
            table[:, 2] = low
            table[:, 1] = 1.0 - high
            table[:, 3] = high - low
        self.mass_table_ = table

    def _lookup_thresholds(self):
        return self.thresholds_
