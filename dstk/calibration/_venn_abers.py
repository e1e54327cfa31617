"""Inductive Venn-ABERS predictor as an evidential calibrator (Vovk & Petej 2014)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._kernels._jit import call_kernel
from .._kernels.calibration import venn_abers_table
from ._base import BinaryCalibrator

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["VennAbersCalibrator", "venn_abers_interval"]


class VennAbersCalibrator(BinaryCalibrator):
    """Inductive Venn-ABERS predictor (IVAP); its interval (p0, p1) read as a mass function.

    For a test score s, p0 (p1) is the isotonic-regression fit at s after adding
    (s, 0) (resp. (s, 1)) to the calibration set; 0 <= p0 <= p1 <= 1 and the
    mass function on {0, 1} is

        m({1}) = p0,   m({0}) = 1 - p1,   m({0, 1}) = p1 - p0,

    so that Bel({1}) = p0 and Pl({1}) = p1.

    The calibrator has no parameters.  The cross Venn-ABERS predictor (CVAP)
    needs refitting the underlying classifier on folds: use
    ``EvidentialCalibratedClassifier(estimator, method="venn_abers", cv=k)``,
    which averages the fold masses.

    Attributes
    ----------
    unique_scores_ : ndarray of shape (K,)
        Sorted distinct calibration scores.
    gap_table_ : ndarray of shape (K + 1, 2)
        (p0, p1) for a test score strictly between unique scores g-1 and g.
    tie_table_ : ndarray of shape (K, 2)
        (p0, p1) for a test score equal to unique score j.
    classes_ : ndarray of shape (2,)

    Raises
    ------
    ValueError
        Bad scores or labels (see :meth:`fit`).

    Notes
    -----
    Vovk & Petej (2014), Algorithm 1: p0 and p1 depend only on the position of
    s among the calibration scores, so both are tabulated at ``fit`` for the
    K + 1 gaps and K ties and prediction is a binary search.  The table costs
    O(n log n) (the sort) plus O(K) merges in practice: PAV blocks never split
    when points are added, so each entry merges the test point with the last
    blocks of the prefix's PAV and the first blocks of the suffix's PAV, both
    kept for every position by one sweep each (see
    :func:`dstk._kernels.calibration.venn_abers_table`).  The numbers are
    those of the ``venn-abers`` package (Vovk, Petej & Fedorova 2015,
    Algorithms 1-4), which computes them from the cumulative sum diagram.
    Vovk's single probability p = p1 / (1 - p0 + p1) differs from the pignistic
    probability (p0 + p1) / 2 returned by :meth:`predict_proba`; use
    :meth:`predict_vovk_probability` for the former.

    References
    ----------
    Vovk, V. and Petej, I. (2014). Venn-Abers predictors. UAI 2014.
    Vovk, V., Petej, I. and Fedorova, V. (2015). Large-scale probabilistic
    predictors with and without guarantee of validity. NIPS 2015.

    Examples
    --------
    >>> import numpy as np
    >>> scores = np.array([0.1, 0.3, 0.4, 0.6, 0.8, 0.9])
    >>> y = np.array([0, 0, 1, 0, 1, 1])
    >>> calibrator = VennAbersCalibrator().fit(scores, y)
    >>> bel, pl = calibrator.predict_interval([0.5])
    >>> print(bel.round(4), pl.round(4))
    [0.3333] [0.6667]
    >>> calibrator.predict_mass([0.5]).to_array().round(4)
    array([[0.    , 0.3333, 0.3333, 0.3333]])
    """

    def __init__(self) -> None:
        pass

    def _fit(self, scores, y01):
        unique, inverse = np.unique(scores, return_inverse=True)
        sums = np.bincount(inverse, weights=y01, minlength=unique.size)
        weights = np.bincount(inverse, minlength=unique.size).astype(np.float64)
        gap_p0, gap_p1, tie_p0, tie_p1 = call_kernel(
            venn_abers_table,
            sums,
            weights,
            work=sums.size,
        )
        self.unique_scores_ = unique
        self.gap_table_ = np.column_stack([gap_p0, gap_p1])
        self.tie_table_ = np.column_stack([tie_p0, tie_p1])

    def _interval(self, scores):
        unique = self.unique_scores_
        position = np.searchsorted(unique, scores, side="left")
        tied = position < unique.size
        tied[tied] = unique[position[tied]] == scores[tied]
        out = self.gap_table_[position]
        out[tied] = self.tie_table_[position[tied]]
        return out

    def _mass_array(self, scores):
        from .probabilistic._base import interval_mass_array

        interval = self._interval(scores)
        return interval_mass_array(interval[:, 0], interval[:, 1])

    def predict_vovk_probability(self, scores: ArrayLike) -> np.ndarray:
        """Vovk's merged probability p = p1 / (1 - p0 + p1) of class 1.

        Parameters
        ----------
        scores : array_like of shape (n_samples,)
            Test scores.

        Returns
        -------
        ndarray of shape (n_samples,)
            The probability that minimises the worst-case log loss over the
            interval [p0, p1] (Vovk, Petej and Fedorova 2015).
        """
        bel, pl = self.predict_interval(scores)
        return pl / (1.0 - bel + pl)


def venn_abers_interval(
    calibration_scores: ArrayLike, calibration_labels: ArrayLike, test_scores: ArrayLike
) -> np.ndarray:
    """(p0, p1) of the inductive Venn-ABERS predictor, shape (n_test, 2).

    Parameters
    ----------
    calibration_scores : array_like of shape (n,)
        Scores of the calibration examples.
    calibration_labels : array_like of shape (n,)
        Their labels (two classes; the larger one is class 1).
    test_scores : array_like of shape (n_test,)
        Scores to predict.

    Returns
    -------
    ndarray of shape (n_test, 2)
        Lower and upper probabilities (p0, p1) of class 1.

    Raises
    ------
    ValueError
        Bad scores or labels (see :meth:`VennAbersCalibrator.fit`).

    Notes
    -----
    p_y is the isotonic-regression (PAV) fit at the test score s after adding
    (s, y) to the calibration set (Vovk and Petej 2014, Algorithm 1); a
    shortcut for ``VennAbersCalibrator().fit(...).predict_interval(...)``.

    References
    ----------
    Vovk, V. and Petej, I. (2014). Venn-Abers predictors. UAI 2014.

    Examples
    --------
    >>> venn_abers_interval([0.1, 0.3, 0.4, 0.6, 0.8, 0.9], [0, 0, 1, 0, 1, 1], [0.5]).round(4)
    array([[0.3333, 0.6667]])
    """
    calibrator = VennAbersCalibrator().fit(calibration_scores, calibration_labels)
    bel, pl = calibrator.predict_interval(test_scores)
    return np.column_stack([bel, pl])
