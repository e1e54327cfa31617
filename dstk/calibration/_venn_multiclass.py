"""Multi-class Venn predictors: one-vs-rest or pairwise binary Venn predictors combined as mass functions."""

from __future__ import annotations

import numbers
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._estimator import (
    BaseEstimator,
    MassClassifierMixin,
    MetaEstimatorMixin,
    check_is_fitted,
    check_meta_X,
    validate_features,
)
from .._validation import as_float_array
from ._base import BinaryCalibrator
from ._split import class_probabilities, fit_on_training_part

if TYPE_CHECKING:
    from ..core._mass import MassFunction

__all__ = ["VennMulticlassClassifier", "pairwise_masses", "DECOMPOSITIONS"]

DECOMPOSITIONS = ("one_vs_rest", "pairwise")
_METHODS = ("venn_abers", "venn_machine")
_CLIP = 1e-12


def _log_odds(numerator, denominator):
    num = np.clip(numerator, _CLIP, None)
    den = np.clip(denominator, _CLIP, None)
    return np.log(num) - np.log(den)


def pairwise_masses(binary_masses: ArrayLike, pairs: ArrayLike, n_classes: int) -> np.ndarray:
    """Ballooning extensions of pairwise masses to the frame of all classes.

    Parameters
    ----------
    binary_masses : array_like of shape (..., n_pairs, 4)
        For the pair ``(i, j)``, the dense mass on ``{0 = j, 1 = i}`` given that
        the class is ``i`` or ``j``: ``[0, m({j}), m({i}), m({i, j})]``.
    pairs : array_like of shape (n_pairs, 2)
        The class indices ``(i, j)`` of every pair.
    n_classes : int
        Size of the frame (at most 16).

    Returns
    -------
    ndarray of shape (..., n_pairs, 2**n_classes)
        Dense masses: with ``R`` the classes outside the pair,
        ``m({i} | R) = m({i})``, ``m({j} | R) = m({j})``, ``m(frame) = m({i, j})``.

    Raises
    ------
    ValueError
        On shapes that do not match, more than 16 classes, or pairs that are
        not two different class indices in ``0 .. n_classes - 1``.

    Notes
    -----
    The least committed mass function on the whole frame whose conditioning
    on ``{i, j}`` is the pairwise one: Smets' ballooning extension (Smets
    1993, Sec. 5; Denoeux 2008), the form in which Quost, Denoeux & Masson
    (2007) combine pairwise classifiers.

    References
    ----------
    P. Smets, Belief functions: the disjunctive rule of combination and the
    generalized Bayesian theorem, *IJAR* 9 (1993) 1-35.
    B. Quost, T. Denoeux, M.-H. Masson, Pairwise classifier combination using
    belief functions, *Pattern Recognition Letters* 28 (2007) 644-653.

    Examples
    --------
    >>> pairwise_masses([[0, 0.2, 0.5, 0.3]], [[0, 1]], 3)
    array([[0. , 0. , 0. , 0. , 0. , 0.5, 0.2, 0.3]])
    """
    binary = as_float_array(binary_masses, "binary_masses")
    if isinstance(n_classes, (bool, np.bool_)) or not isinstance(n_classes, numbers.Integral):
        raise ValueError(f"`n_classes` must be an integer (the size of the frame); got {n_classes!r}.")
    given = as_float_array(pairs, "pairs")
    if not np.all(given == np.round(given)):
        raise ValueError(f"`pairs` must hold integer class indices; got {given.tolist()}.")
    pairs = given.astype(np.intp)
    if binary.ndim < 2 or binary.shape[-1] != 4 or pairs.ndim != 2 or pairs.shape != (binary.shape[-2], 2):
        raise ValueError(
            f"`binary_masses` must have shape (..., n_pairs, 4) and `pairs` shape (n_pairs, 2); got "
            f"{binary.shape} and {pairs.shape}."
        )
    if not 2 <= n_classes <= 16:
        raise ValueError(f"`n_classes` must be between 2 and 16 (dense frames); got {n_classes}.")
    if pairs.size and (pairs.min() < 0 or pairs.max() >= n_classes):
        raise ValueError(
            f"`pairs` must hold class indices in 0..{n_classes - 1} (n_classes={n_classes}); got values "
            f"from {pairs.min()} to {pairs.max()}."
        )
    same = np.flatnonzero(pairs[:, 0] == pairs[:, 1])
    if same.size:
        raise ValueError(
            f"Each pair must name two different classes; pair {int(same[0])} is {pairs[same[0]].tolist()}."
        )
    full = (1 << n_classes) - 1
    out = np.zeros(binary.shape[:-1] + (1 << n_classes,))
    for p, (i, j) in enumerate(pairs):
        rest = full ^ (1 << int(i)) ^ (1 << int(j))
        out[..., p, rest | (1 << int(i))] += binary[..., p, 2]
        out[..., p, rest | (1 << int(j))] += binary[..., p, 1]
        out[..., p, full] += binary[..., p, 3]
    return out


class VennMulticlassClassifier(MetaEstimatorMixin, MassClassifierMixin, BaseEstimator):
    """Multi-class Venn-ABERS or Venn-machine predictor whose binary intervals are combined as mass functions.

    Parameters
    ----------
    estimator : classifier with ``predict_proba``, default None
        The underlying classifier (default
        ``sklearn.linear_model.LogisticRegression(max_iter=1000)``).  A
        ``sklearn.frozen.FrozenEstimator`` uses all of ``X, y`` given to
        :meth:`fit` as calibration data.
    method : {"venn_abers", "venn_machine"} or BinaryCalibrator, default="venn_abers"
        The binary Venn predictor: inductive Venn-ABERS
        (:class:`VennAbersCalibrator`), the Venn machine with the score-interval
        taxonomy (:class:`VennMachineCalibrator`, 6 categories of the log-odds),
        or a calibrator instance (cloned for each binary problem).
    decomposition : {"one_vs_rest", "pairwise"}, default="one_vs_rest"
        ``"one_vs_rest"``: problem ``c`` against the rest with score
        ``log(p_c / (1 - p_c))``; its ``(p0, p1)`` becomes ``m({c}) = p0``,
        ``m(not c) = 1 - p1``, ``m(frame) = p1 - p0``.  ``"pairwise"``: problem
        ``i`` against ``j`` on the calibration samples of those two classes,
        with score ``log(p_i / p_j)``; its interval is the mass on ``{i, j}``
        given that the class is one of them, extended by ballooning
        (:func:`pairwise_masses`).
    rule : str, default="dempster"
        Rule of :func:`dstk.combine` combining the binary mass functions.
    on_conflict : {"vacuous", "nan", "raise"}, default="vacuous"
        Samples whose binary masses conflict totally under ``rule`` (Venn
        intervals can be degenerate, ``p0 = p1`` in {0, 1}): ``"vacuous"``
        gives them the vacuous mass function, ``"nan"`` NaN outputs,
        ``"raise"`` a :class:`~dstk.exceptions.TotalConflictError`; the first
        two warn with the sample indices (see :func:`dstk.combine`).
    calibration_size : float, default=0.3
        Fraction of ``X`` held out (stratified) for calibration when the
        estimator is not frozen.
    random_state : int, RandomState or None, default None
        Seed of the training/calibration split.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    frame_ : Frame
    estimator_ : classifier
    calibrators_ : list of BinaryCalibrator
        One per class (one-vs-rest) or per pair.
    pairs_ : ndarray of shape (n_problems, 2)
        ``(c, -1)`` per class for one-vs-rest; ``(i, j)`` per pair.

    Notes
    -----
    Multi-class Venn-ABERS prediction by decomposition into binary problems
    follows Manokhin (2017) (pairwise inductive and cross Venn-ABERS
    predictors) and Johansson et al. (2021); instead of coupling the pairwise
    probabilities (Price et al. 1995) the binary intervals, which are
    lower and upper probabilities, are read as mass functions and combined
    by a rule of Dempster-Shafer theory (Quost, Denoeux & Masson 2007 for the
    pairwise case; Xu et al. 2016, Sec. 6 for one-vs-rest), so the width of
    each interval is kept as ignorance in the combination.

    References
    ----------
    V. Vovk, I. Petej, Venn-Abers predictors, *UAI* 2014.
    V. Manokhin, Multi-class probabilistic classification using inductive and
    cross Venn-Abers predictors, *COPA* 2017, PMLR 60, 228-240.
    B. Quost, T. Denoeux, M.-H. Masson, Pairwise classifier combination using
    belief functions, *Pattern Recognition Letters* 28 (2007) 644-653.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = VennMulticlassClassifier(random_state=0).fit(X[::2], y[::2])
    >>> clf.predict_mass(X[1::2]).batch_shape
    (75,)
    >>> float(np.mean(clf.predict(X[1::2]) == y[1::2])) > 0.9
    True
    """

    _estimator_type = "classifier"

    def __init__(
        self,
        estimator: Any = None,
        *,
        method: str | BinaryCalibrator = "venn_abers",
        decomposition: str = "one_vs_rest",
        rule: str = "dempster",
        on_conflict: str = "vacuous",
        calibration_size: float = 0.3,
        random_state: Any = None,
    ) -> None:
        self.estimator = estimator
        self.method = method
        self.decomposition = decomposition
        self.rule = rule
        self.on_conflict = on_conflict
        self.calibration_size = calibration_size
        self.random_state = random_state

    def _new_calibrator(self):
        if isinstance(self.method, BinaryCalibrator):
            from sklearn.base import clone

            return clone(self.method)
        if self.method == "venn_abers":
            from ._venn_abers import VennAbersCalibrator

            return VennAbersCalibrator()
        if self.method == "venn_machine":
            from ._venn_machine import VennMachineCalibrator

            return VennMachineCalibrator()
        raise ValueError(
            f"`method` must be one of {_METHODS} or a BinaryCalibrator instance; got {self.method!r}."
        )

    def _problem_scores(self, P):
        if self.decomposition == "one_vs_rest":
            scores = _log_odds(P, 1.0 - P)
        else:
            i, j = self.pairs_[:, 0], self.pairs_[:, 1]
            scores = _log_odds(P[:, i], P[:, j])
        # A Venn predictor jumps where a test score passes a calibration score, and the wrapped
        # estimator's probabilities of one sample may differ by an ulp with the batch it is computed
        # in (BLAS blocking): scores equal to 12 decimals are one score, so a prediction does not
        # depend on the other samples of the batch.
        return np.round(scores, 12)

    def __sklearn_tags__(self):
        """scikit-learn tags: sparse input when the wrapped estimator (default LogisticRegression) takes it."""
        tags = super().__sklearn_tags__()
        if self.estimator is None:
            tags.input_tags.sparse = True  # LogisticRegression
        return tags

    def fit(self, X: Any, y: ArrayLike) -> VennMulticlassClassifier:
        """Fit the classifier on a training part and the binary Venn predictors on a calibration part.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)

        Returns
        -------
        VennMulticlassClassifier
            ``self``, fitted.

        Raises
        ------
        ValueError
            Unknown ``method`` or ``decomposition``, ``calibration_size``
            outside (0, 1), fewer than two or more than 16 classes, an
            estimator without ``predict_proba``, or a class absent from the
            calibration set.
        """
        if self.decomposition not in DECOMPOSITIONS:
            raise ValueError(f"`decomposition` must be one of {DECOMPOSITIONS}; got {self.decomposition!r}.")
        self._new_calibrator()  # validates method
        from ..core._combination import check_on_conflict

        check_on_conflict(self.on_conflict)
        self.estimator_, self.classes_, X_cal, encoded = fit_on_training_part(self, X, y)
        n_classes = self.classes_.size
        if not 2 <= n_classes <= 16:
            raise ValueError(f"VennMulticlassClassifier needs 2 to 16 classes; got {n_classes}.")
        missing = np.setdiff1d(np.arange(n_classes), encoded)
        if missing.size:
            raise ValueError(
                f"Classes {self.classes_[missing].tolist()} have no calibration sample; use a larger "
                "(stratified) calibration set."
            )
        if self.decomposition == "one_vs_rest":
            self.pairs_ = np.column_stack([np.arange(n_classes), np.full(n_classes, -1)])
        else:
            self.pairs_ = np.array(list(combinations(range(n_classes), 2)), dtype=np.intp)
        scores = self._problem_scores(class_probabilities(self.estimator_, X_cal, n_classes))
        self.calibrators_ = []
        for p, (i, j) in enumerate(self.pairs_):
            if j < 0:
                inside, target = slice(None), (encoded == i).astype(np.intp)
            else:
                inside = (encoded == i) | (encoded == j)
                target = (encoded[inside] == i).astype(np.intp)
            self.calibrators_.append(self._new_calibrator().fit(scores[inside, p], target))
        from ..core._frame import Frame

        self.frame_ = Frame(tuple(self.classes_.tolist()))
        return self

    def predict_binary_masses(self, X: Any) -> np.ndarray:
        """Dense binary masses ``[0, m(negative), m(positive), m(either)]`` of every binary problem.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_problems, 4)
            Positive = class ``pairs_[p, 0]``; negative = the rest
            (one-vs-rest) or class ``pairs_[p, 1]`` (pairwise).
        """
        check_is_fitted(self, "calibrators_")
        X = check_meta_X(X)
        validate_features(self, X, reset=False)
        scores = self._problem_scores(class_probabilities(self.estimator_, X, self.classes_.size))
        return np.stack(
            [cal._predict_mass_array(scores[:, p]) for p, cal in enumerate(self.calibrators_)], axis=1
        )

    def predict_mass(self, X: Any) -> MassFunction:
        """Combined mass functions on ``Frame(classes_)``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        MassFunction
            Batch shape ``(n_samples,)``.

        Raises
        ------
        TotalConflictError
            With ``on_conflict="raise"``, when the binary masses of a sample
            conflict totally under ``rule``.
        """
        from ..core._combination import combine
        from ..core._mass import MassFunction

        binary = self.predict_binary_masses(X)
        n_classes = self.classes_.size
        if self.decomposition == "one_vs_rest":
            from ._one_vs_rest import refine_one_vs_rest

            extended = refine_one_vs_rest(binary)
        else:
            extended = pairwise_masses(binary, self.pairs_, n_classes)
        stacked = MassFunction.from_array(extended, self.frame_, kind="m", validate=False)
        return combine(stacked, rule=self.rule, axis=1, on_conflict=self.on_conflict)
