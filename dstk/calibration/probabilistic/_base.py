"""Shared machinery of the binary probabilistic calibrators."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..._estimator import BaseEstimator, ClassifierMixin, check_is_fitted, frequency_weights
from ..._validation import check_binary_labels, check_consistent_length, check_scores

if TYPE_CHECKING:
    from typing_extensions import Self

    from ...core._mass import MassFunction

__all__ = ["BinaryProbabilisticCalibrator", "log_odds", "interval_to_mass", "interval_mass_array"]


def log_odds(probabilities: ArrayLike, clip: float = 1e-12) -> np.ndarray:
    """Log-odds ``log(p / (1 - p))`` of probabilities, clipped away from 0 and 1 (Gebel 2009, Eq. 4.7).

    Parameters
    ----------
    probabilities : array_like
        Probabilities in ``[0, 1]``.
    clip : float, default=1e-12
        Probabilities are clipped into ``[clip, 1 - clip]`` first so that the
        result is finite.

    Returns
    -------
    ndarray
        The log-odds, same shape as the input.

    Raises
    ------
    ValueError
        On values outside ``[0, 1]``, non-finite values or a bad ``clip``.

    Notes
    -----
    Gebel (2009), Eq. (4.7): probabilities of LDA, Naive Bayes or logistic
    regression are turned into scores before Bayes-rule calibration.

    Examples
    --------
    >>> log_odds([0.5, 0.75]).round(6).tolist()
    [0.0, 1.098612]
    """
    clip = float(clip)
    if not 0.0 < clip < 0.5:
        raise ValueError(f"`clip` must lie in (0, 0.5); got {clip!r}.")
    p = np.asarray(probabilities, dtype=np.float64)
    if not np.all(np.isfinite(p)):
        raise ValueError("`probabilities` contains NaN or infinite values.")
    if np.any(p < 0) or np.any(p > 1):
        raise ValueError(
            f"`probabilities` must lie in [0, 1]; got values from {p.min():.4g} to {p.max():.4g}. "
            "Pass decision values with input_kind='score' instead."
        )
    p = np.clip(p, clip, 1.0 - clip)
    return np.log(p) - np.log1p(-p)


def interval_to_mass(lower: ArrayLike, upper: ArrayLike, classes: ArrayLike) -> MassFunction:
    """Binary mass functions with ``Bel({classes[1]}) = lower`` and ``Pl({classes[1]}) = upper``.

    ``m({1}) = lower``, ``m({0}) = 1 - upper``, ``m(frame) = upper - lower``
    on the frame ``Frame(classes)``.
    """
    from ...core._frame import Frame
    from ...core._mass import MassFunction

    values = interval_mass_array(lower, upper)
    return MassFunction.from_array(values, Frame(tuple(np.asarray(classes).tolist())), validate=False)


def interval_mass_array(lower: ArrayLike, upper: ArrayLike) -> np.ndarray:
    """Dense binary masses ``[0, 1 - upper, lower, upper - lower]`` of intervals for ``P(class 1)``.

    ``lower`` is clipped to [0, 1] and ``upper`` to [lower, 1] first, so that
    every mass is non-negative.

    Parameters
    ----------
    lower, upper : array_like of the same shape
        Bounds of the probability of the positive class.

    Returns
    -------
    ndarray of shape ``lower.shape + (4,)``
        Indexed by subset bitmask: empty set, ``{0}``, ``{1}``, ``{0, 1}``.
    """
    low = np.clip(np.asarray(lower, dtype=np.float64), 0.0, 1.0)
    high = np.clip(np.maximum(np.asarray(upper, dtype=np.float64), low), 0.0, 1.0)
    values = np.zeros(low.shape + (4,))
    values[..., 1] = 1.0 - high
    values[..., 2] = low
    values[..., 3] = high - low
    return values


class BinaryProbabilisticCalibrator(ClassifierMixin, BaseEstimator):
    """Base class: ``fit(scores, y)``, ``predict_proba`` of shape ``(N, 2)``, ``predict``.

    Subclasses implement ``_fit(scores, y01)`` and
    ``_positive_probability(scores)``; ``y01`` encodes the larger label as 1.
    """

    _estimator_type = "classifier"
    _fitted_attribute = "classes_"

    def _check_input(self, scores: ArrayLike) -> np.ndarray:
        return check_scores(scores)

    def fit(self, scores: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the calibration map on held-out scores.

        Parameters
        ----------
        scores : array_like of shape (N,)
            One score (or probability, see the class) per sample; larger
            values favour the larger label.
        y : array_like of shape (N,)
            Labels of exactly two classes; the larger (sorted) label is the
            positive class.
        sample_weight : array_like of shape (N,), optional
            Whole-number frequency weights: weight ``w`` on a sample equals the
            sample repeated ``w`` times; 0 drops it.

        Returns
        -------
        self
        """
        s = self._check_input(scores)
        y = np.asarray(y)
        check_consistent_length(s, y, names=["scores", "y"])
        repeats = frequency_weights(sample_weight, s.shape[0], type(self).__name__)
        if repeats is not None:
            s, y = np.repeat(s, repeats), np.repeat(y, repeats, axis=0)
        classes, y01 = check_binary_labels(y)
        check_consistent_length(s, y01, names=["scores", "y"])
        self._fit(s, y01.astype(np.float64))
        self.classes_ = classes
        return self

    def _fit(self, scores: np.ndarray, y01: np.ndarray) -> None:
        """Fit the map on validated scores and 0/1 float targets (implemented by subclasses)."""
        raise NotImplementedError

    def _positive_probability(self, scores: np.ndarray) -> np.ndarray:
        """Positive-class probability of validated scores (implemented by subclasses)."""
        raise NotImplementedError

    def predict_positive(self, scores: ArrayLike) -> np.ndarray:
        """Calibrated probability of the positive class ``classes_[1]``, shape ``(N,)``."""
        check_is_fitted(self, self._fitted_attribute)
        s = self._check_input(scores)
        return np.clip(self._positive_probability(s), 0.0, 1.0)

    def predict_proba(self, scores: ArrayLike) -> np.ndarray:
        """Calibrated probabilities.

        Parameters
        ----------
        scores : array_like of shape (N,)
            Scores of the same kind as in ``fit``.

        Returns
        -------
        ndarray of shape (N, 2)
            Column 0: ``P(classes_[0])``; column 1: ``P(classes_[1])``.
        """
        p = self.predict_positive(scores)
        return np.column_stack([1.0 - p, p])

    def predict(self, scores: ArrayLike) -> np.ndarray:
        """Most probable class (the negative class on a tie at 0.5), shape ``(N,)``."""
        p = self.predict_positive(scores)
        return self.classes_[(p > 0.5).astype(np.intp)]
