"""Evidential binning calibration (Xu et al. 2016, Sections 2 and 4.1)."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np

from .._estimator import check_is_fitted
from .._kernels.calibration import table_lookup
from .._validation import check_scores
from ._base import BINARY_COUNT_MODELS, BinaryCalibrator, check_model

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["BinningCalibrator"]

_EMPTY_POLICIES = ("vacuous", "raise")


def _bin_counts(bin_index, y01, n_bins):
    """Counts (k_j, n_j) of class-1 examples and of all examples in each bin."""
    n = np.bincount(bin_index, minlength=n_bins).astype(np.float64)
    k = np.bincount(bin_index, weights=y01, minlength=n_bins)
    return k, n


def _counts_table(k, n, model, level, empty_bins, owner):
    """Dense (n_bins, 4) mass table of the bins, with the empty-bin policy applied.

    ``empty_bins="vacuous"``: an empty bin carries no evidence, so it gets the
    vacuous mass function m({0, 1}) = 1 (for ``model="bayes"`` its pignistic
    reading, the uniform probability 1/2, is used since a Bayesian mass cannot
    be vacuous).  ``"raise"``: a ValueError names the empty bins.
    """
    from ..evidence._counts import _binary_mass_array

    empty = n == 0
    if empty.any() and empty_bins == "raise":
        idx = np.flatnonzero(empty)
        raise ValueError(
            f"{owner}: bin(s) {idx[:10].tolist()} contain no calibration score. Use fewer bins, "
            "strategy='quantile' (equal frequency), or empty_bins='vacuous' (an empty bin then "
            "gives the vacuous mass function)."
        )
    table = np.zeros((k.shape[0], 4))
    full = ~empty
    if full.any():
        table[full] = _binary_mass_array(k[full], n[full], model, level=level)
    if empty.any():
        if model == "bayes":
            table[empty, 1] = 0.5
            table[empty, 2] = 0.5
        else:
            table[empty, 3] = 1.0
    return table


class _TableCalibrator(BinaryCalibrator):
    """A calibrator whose output is a function of the score's bin: every output is one table lookup.

    Subclasses set ``mass_table_`` (n_bins, 4) and implement ``_lookup_thresholds()``
    (the n_bins - 1 increasing inner edges; bin j holds edges[j-1] < s <= edges[j]).
    """

    mass_table_: np.ndarray

    def _lookup_thresholds(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _mass_array(self, scores):
        return table_lookup(scores, self._lookup_thresholds(), self.mass_table_)

    def _lookup(self, scores, columns):
        check_is_fitted(self, "classes_")
        scores = check_scores(scores, "scores")
        table = self.mass_table_
        derived = {
            "proba": lambda: np.column_stack(
                [1.0 - table[:, 2] - 0.5 * table[:, 3], table[:, 2] + 0.5 * table[:, 3]]
            ),
            "interval": lambda: np.column_stack([table[:, 2], table[:, 2] + table[:, 3]]),
        }[columns]()
        return table_lookup(scores, self._lookup_thresholds(), np.ascontiguousarray(derived))

    def predict_proba(self, scores: ArrayLike) -> np.ndarray:
        """Pignistic probabilities ``[BetP(0), BetP(1)]``, shape (n_samples, 2) (one table lookup)."""
        return self._lookup(scores, "proba")

    def predict_interval(self, scores: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Belief and plausibility of class 1: ``(Bel({1}), Pl({1}))``, each of shape (n_samples,)."""
        values = self._lookup(scores, "interval")
        return values[:, 0], values[:, 1]


class BinningCalibrator(_TableCalibrator):
    """Histogram-binning calibration with an evidential (or Bayesian) model per bin.

    Parameters
    ----------
    bins : int or array_like, default 10
        Either the number of bins or the increasing bin edges
        ``e_0 < e_1 < ... < e_B``.  Bins are right-closed intervals
        ``(e_{j-1}, e_j]`` as in Xu et al. (bins ``(-3, -2], ..., (2, 3]``);
        scores below ``e_0`` go to the first bin and scores above ``e_B`` to the
        last one (only the inner edges matter).
    strategy : {"uniform", "quantile"}, default "uniform"
        With an integer ``bins``: equal-width bins over the range of the
        calibration scores, or equal-frequency bins at their quantiles
        (repeated quantiles from tied scores are merged, so fewer bins may result).
    model : str, default "likelihood"
        How the counts (k_j positives out of n_j scores in bin j) become a mass
        function (:func:`dstk.evidence._counts.from_counts`):
        ``"bayes"`` (k/n, the probabilistic calibrator), ``"inverse_pignistic"``,
        ``"dempster"`` (Eq. 24), ``"confidence_interval"`` (Eqs. 25-28),
        ``"likelihood"`` (Eqs. 29-32) or ``"plausibility"``.
    level : float, default 0.95
        Level 1 - alpha of the Clopper-Pearson interval (``"confidence_interval"``).
    empty_bins : {"vacuous", "raise"}, default "vacuous"
        Policy for bins with no calibration score: the vacuous mass function
        (probability 1/2 for ``"bayes"``) or a ValueError at ``fit``.

    Attributes
    ----------
    edges_ : ndarray of shape (n_bins + 1,)
        Bin edges (outer edges are the calibration range for integer ``bins``).
    bin_counts_ : ndarray of shape (n_bins, 2)
        ``(k_j, n_j)`` per bin.
    mass_table_ : ndarray of shape (n_bins, 4)
        Dense masses of each bin.
    classes_ : ndarray of shape (2,)

    Raises
    ------
    ValueError
        Invalid ``bins`` (fewer than 1, non-increasing or non-finite edges),
        unknown ``strategy``/``model``/``empty_bins``, bad scores or labels, or
        empty bins with ``empty_bins="raise"``.

    Notes
    -----
    Bin j holds n_j calibration scores of which k_j are of class 1; a test score
    in bin j gets the mass function of (k_j, n_j), e.g. Dempster's model
    m({1}) = k_j/(n_j+1), m({0}) = (n_j-k_j)/(n_j+1), m({0,1}) = 1/(n_j+1)
    (Xu et al. 2016, Eq. 24).

    References
    ----------
    Zadrozny, B. and Elkan, C. (2001). Obtaining calibrated probability
    estimates from decision trees and naive Bayesian classifiers. ICML.
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. IJAR 72, 55-70.

    Examples
    --------
    >>> import numpy as np
    >>> scores = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])
    >>> y = np.array([0, 0, 1, 0, 1, 1])
    >>> calibrator = BinningCalibrator(bins=[-3, -1, 1, 3], model="dempster").fit(scores, y)
    >>> calibrator.predict_mass([0.0]).to_array().round(4)
    array([[0.    , 0.3333, 0.3333, 0.3333]])
    >>> bel, pl = calibrator.predict_interval([9.0])
    >>> print(bel.round(4), pl.round(4))
    [0.6667] [1.]
    """

    def __init__(
        self,
        bins: int | ArrayLike = 10,
        *,
        strategy: str = "uniform",
        model: str = "likelihood",
        level: float = 0.95,
        empty_bins: str = "vacuous",
    ) -> None:
        self.bins = bins
        self.strategy = strategy
        self.model = model
        self.level = level
        self.empty_bins = empty_bins

    def _edges(self, scores):
        bins = self.bins
        if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
            if bins < 1:
                raise ValueError(
                    f"`bins` must be a positive number of bins or an array of edges; got {bins!r}."
                )
            from ..core._dense import MAX_DENSE_BYTES

            if bins * 4 * 8 > MAX_DENSE_BYTES:  # the (bins, 4) float64 mass table
                raise ValueError(
                    f"`bins`={bins} is too many bins: their mass table would take {bins * 32 / 2**30:.3g} GiB "
                    f"(limit {MAX_DENSE_BYTES / 2**30:.3g} GiB). Use fewer bins (a few per hundred scores)."
                )
            if self.strategy == "uniform":
                low, high = scores.min(), scores.max()
                if low == high:
                    low, high = low - 0.5, high + 0.5
                with np.errstate(over="ignore"):
                    width = high - low
                if np.isfinite(width):
                    return np.linspace(low, high, bins + 1)
                # a range wider than the largest float (scores near +-1.8e308): weights of the two ends
                t = np.linspace(0.0, 1.0, bins + 1)
                return low * (1.0 - t) + high * t
            if self.strategy == "quantile":
                edges = np.unique(np.quantile(scores, np.linspace(0.0, 1.0, bins + 1)))
                if edges.size < 2:
                    edges = np.array([edges[0] - 0.5, edges[0] + 0.5])
                return edges
            raise ValueError(f"Unknown strategy {self.strategy!r}; choose 'uniform' or 'quantile'.")
        if isinstance(bins, bool) or np.ndim(bins) == 0:
            raise ValueError(
                f"`bins` must be a positive integer number of bins or a 1-D array of edges; got {bins!r}."
            )
        try:
            edges = np.asarray(bins, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"`bins` must be an int or an array of numeric edges; got {bins!r}.") from None
        if edges.ndim != 1 or edges.size < 2:
            raise ValueError(
                f"`bins` as edges must be a 1-D array of at least 2 values; got shape {edges.shape}."
            )
        if not np.all(np.isfinite(edges)):
            raise ValueError("`bins` edges must be finite; out-of-range scores already go to the end bins.")
        if np.any(np.diff(edges) <= 0):
            raise ValueError(f"`bins` edges must be strictly increasing; got {edges.tolist()}.")
        return edges

    def _fit(self, scores, y01):
        check_model(self.model, BINARY_COUNT_MODELS, type(self).__name__)
        if self.empty_bins not in _EMPTY_POLICIES:
            raise ValueError(f"Unknown empty_bins={self.empty_bins!r}; choose 'vacuous' or 'raise'.")
        edges = self._edges(scores)
        self.edges_ = edges
        self._inner_edges = np.ascontiguousarray(edges[1:-1])
        n_bins = edges.size - 1
        index = np.searchsorted(self._inner_edges, scores, side="left")
        k, n = _bin_counts(index, y01, n_bins)
        self.bin_counts_ = np.column_stack([k, n])
        self.mass_table_ = _counts_table(k, n, self.model, self.level, self.empty_bins, type(self).__name__)

    def bin_index(self, scores: ArrayLike) -> np.ndarray:
        """Index of the bin of each score (0 .. n_bins - 1).

        Parameters
        ----------
        scores : array_like of shape (n_samples,)
            Classifier scores; scores outside the fitted edges go to the first
            or the last bin.

        Returns
        -------
        ndarray of int of shape (n_samples,)
            Bin j is the right-closed interval ``(edges_[j], edges_[j + 1]]``.
        """
        from .._estimator import check_is_fitted
        from .._validation import check_scores

        check_is_fitted(self, "edges_")
        return np.searchsorted(self._inner_edges, check_scores(scores, "scores"), side="left")

    def _lookup_thresholds(self):
        return self._inner_edges
