"""Shared machinery of the binary score calibrators: validation and the mass -> output methods."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._estimator import BaseEstimator, ClassifierMixin, check_is_fitted, frequency_weights
from .._validation import check_binary_labels, check_consistent_length, check_scores
from ..evidence._counts import _BINARY_MODELS

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from dstk.core._frame import Frame
    from dstk.core._mass import MassFunction

__all__ = ["BinaryCalibrator", "BINARY_COUNT_MODELS", "binary_frame", "wrap_binary_masses", "check_model"]

#: The names of :data:`dstk.evidence.COUNT_MODELS` that take binary counts (bins, isotonic blocks).
BINARY_COUNT_MODELS = _BINARY_MODELS


def check_model(model: str, allowed: Sequence[str], owner: str) -> str:
    """Raise a clear ValueError unless ``model`` is one of ``allowed``."""
    if model not in allowed:
        raise ValueError(
            f"Unknown model {model!r} for {owner}; choose one of {', '.join(map(repr, allowed))}."
        )
    return model


def binary_frame() -> Frame:
    """``Frame((0, 1))``: dense index 1 = {0}, 2 = {1}, 3 = {0, 1}."""
    from ..core._frame import Frame

    return Frame((0, 1))


def wrap_binary_masses(values: np.ndarray, classes: Sequence[Any] | np.ndarray | None = None) -> MassFunction:
    """Wrap a valid (N, 4) float64 array as a batched MassFunction on ``Frame(classes)`` (default (0, 1))."""
    from ..core._frame import Frame
    from ..core._mass import MassFunction

    frame = binary_frame() if classes is None else Frame(tuple(np.asarray(classes).tolist()))
    return MassFunction.from_array(values, frame, kind="m", validate=False)


class BinaryCalibrator(ClassifierMixin, BaseEstimator):
    """Base class: 1-D scores in, mass functions on {0, 1} out.

    Subclasses implement ``_fit(scores, y01)`` and ``_mass_array(scores)``
    returning the dense ``(N, 4)`` masses ``[0, m({0}), m({1}), m({0, 1})]``.
    Class 1 is the larger of the two labels seen in ``fit`` (``classes_[1]``).
    """

    _estimator_type = "classifier"

    def fit(self, scores: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the calibration map on scores and their true labels.

        Parameters
        ----------
        scores : array_like of shape (n_samples,)
            Classifier scores (decision values or probabilities), larger meaning
            more likely class 1; a column vector (n, 1) is accepted.
        y : array_like of shape (n_samples,)
            Labels of exactly two classes; the larger label is class 1.
        sample_weight : array_like of shape (n_samples,), optional
            Whole-number frequency weights: fitting with weight ``w`` on a
            sample equals fitting with the sample repeated ``w`` times (the
            counts behind the mass functions count observations); 0 drops it.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Scores that are not 1-D, empty, NaN or infinite; labels of a single
            class or of more than two classes; scores and labels of different
            lengths; weights that are negative or not whole numbers; plus the
            calibrator's own conditions.
        """
        scores = check_scores(scores, "scores")
        y = np.asarray(y)
        check_consistent_length(scores, y, names=["scores", "y"])
        repeats = frequency_weights(sample_weight, scores.shape[0], type(self).__name__)
        if repeats is not None:
            scores, y = np.repeat(scores, repeats), np.repeat(y, repeats, axis=0)
        classes, y01 = check_binary_labels(y, "y")
        self._fit(scores, y01.astype(np.float64))
        self.classes_ = classes
        self.n_samples_fit_ = int(scores.shape[0])
        return self

    # -- outputs ----------------------------------------------------------------

    def _checked_masses(self, scores):
        check_is_fitted(self, "classes_")
        scores = check_scores(scores, "scores")
        return self._mass_array(scores)

    def predict_mass(self, scores: ArrayLike) -> MassFunction:
        """Mass functions on ``Frame(classes_)``, one per score.

        Parameters
        ----------
        scores : array_like of shape (n_samples,)

        Returns
        -------
        MassFunction
            Batch shape ``(n_samples,)`` on ``Frame(classes_)`` (the labels seen in
            ``fit``); ``m({classes_[1]})`` is dense index 2, ``m({classes_[0]})``
            index 1 and the frame index 3 (use ``.to_array()``).
        """
        return wrap_binary_masses(self._checked_masses(scores), self.classes_)

    def _predict_mass_array(self, scores: ArrayLike) -> np.ndarray:
        """The dense masses ``(n_samples, 4)`` = ``[0, m({0}), m({1}), m({0, 1})]``."""
        return self._checked_masses(scores)

    def predict_interval(self, scores: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Belief and plausibility of class 1: ``(Bel({1}), Pl({1}))``, each of shape (n_samples,)."""
        masses = self._checked_masses(scores)
        return masses[:, 2].copy(), masses[:, 2] + masses[:, 3]

    def predict_proba(self, scores: ArrayLike) -> np.ndarray:
        """Pignistic probabilities ``[BetP(0), BetP(1)]``, shape (n_samples, 2).

        ``BetP({1}) = m({1}) + m({0, 1}) / 2`` (Smets & Kennes 1994; Xu et al.
        2016, Eq. 9).  For ``model="bayes"`` this is the probabilistic
        calibrator's own output.
        """
        masses = self._checked_masses(scores)
        proba = np.empty((masses.shape[0], 2))  # written in place: no temporary column
        positive = proba[:, 1]
        np.multiply(masses[:, 3], 0.5, out=positive)
        positive += masses[:, 2]
        np.subtract(1.0, positive, out=proba[:, 0])
        return proba

    def predict(self, scores: ArrayLike) -> np.ndarray:
        """Class of larger pignistic probability (ties go to ``classes_[0]``)."""
        positive = self.predict_proba(scores)[:, 1]
        return self.classes_[(positive > 0.5).astype(np.intp)]

    # -- to implement ------------------------------------------------------------

    def _fit(self, scores, y01):  # pragma: no cover - abstract
        raise NotImplementedError

    def _mass_array(self, scores):  # pragma: no cover - abstract
        raise NotImplementedError
