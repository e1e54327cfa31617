"""Combining several calibrated classifiers as pieces of evidence: calibrate -> combine -> decide."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dstk.core._combination import (
    RULES,
    _check_combine_options,
    check_on_conflict,
    combine,
    combine_with_conflict,
)

from .._estimator import MassClassifierMixin
from .._validation import check_option
from ..exceptions import DogmaticError, TotalConflictError

if TYPE_CHECKING:
    from dstk.core._mass import MassFunction

__all__ = ["combine_classifiers", "EvidentialCombination"]


def _masses_of(classifier, X):
    if not hasattr(classifier, "predict_mass"):
        raise TypeError(
            f"{type(classifier).__name__} has no predict_mass: wrap it in "
            "EvidentialCalibratedClassifier (or pass a fitted evidential calibrator) first."
        )
    return classifier.predict_mass(X)


def combine_classifiers(
    classifiers: Iterable[Any],
    X: Any,
    *,
    rule: str = "dempster",
    inputs: Sequence[Any] | None = None,
    normalize: bool = False,
    on_conflict: str = "raise",
) -> MassFunction:
    """Combine the mass functions of several fitted evidential classifiers on the same samples.

    Parameters
    ----------
    classifiers : sequence of fitted estimators with ``predict_mass``
        E.g. :class:`~dstk.calibration.EvidentialCalibratedClassifier` objects
        trained on different data; all must predict on the same frame (the same
        classes in the same order).
    X : array_like
        The samples, given to every classifier (ignored when ``inputs`` is given).
    rule : str, default "dempster"
        A rule of :func:`dstk.combine`: ``"dempster"`` for classifiers trained on
        distinct (independent) data, ``"cautious"`` (idempotent) when they share
        data or features, ``"average"``, ``"conjunctive"``, ``"yager"``, ...
    inputs : sequence, optional
        One input per classifier (e.g. different feature sets or raw scores
        for calibrators) instead of the shared ``X``.
    normalize : bool, default False
        With ``rule="cautious"``: divide by 1 - m(empty), the normalised
        cautious rule (Denoeux 2008, Section 4.3; see :func:`dstk.combine`).
    on_conflict : {"raise", "vacuous", "nan"}, default "raise"
        Samples on which the classifiers conflict totally (K = 1, Dempster's
        rule undefined): raise :class:`~dstk.exceptions.TotalConflictError`
        naming them, or give those samples the vacuous mass function, or NaN
        masses, with a :class:`~dstk.exceptions.ConflictWarning` naming them
        (see :func:`dstk.combine`).

    Returns
    -------
    MassFunction
        Batch shape ``(n_samples,)``.  The conflict between the classifiers
        is :meth:`EvidentialCombination.predict_conflict`.

    Raises
    ------
    ValueError
        No classifier, or ``inputs`` of the wrong length.
    FrameMismatchError
        Classifiers predicting on different frames.
    TotalConflictError
        Dempster's rule with totally conflicting sources on some sample, with
        ``on_conflict="raise"``.

    Notes
    -----
    Dempster's rule (Xu et al. 2016, Eqs. 6-7) assumes distinct bodies of
    evidence; for Bayesian masses it is Bayes' rule with a uniform class prior.
    The cautious rule (Denoeux 2008) is the right choice for dependent sources.

    Examples
    --------
    >>> import numpy as np
    >>> from dstk.calibration import BinningCalibrator
    >>> scores = np.array([-2.0, -1.0, 1.0, 2.0, -1.5, 1.5])
    >>> y = np.array([0, 0, 1, 1, 0, 1])
    >>> a = BinningCalibrator(bins=[-3, 0, 3], model="dempster").fit(scores, y)
    >>> b = BinningCalibrator(bins=[-3, 0, 3], model="dempster").fit(scores[:2], y[:2] * 0 + [0, 1])
    >>> m = combine_classifiers([a, b], None, inputs=[[1.0], [-1.0]])
    >>> m.to_array().round(4)
    array([[0.    , 0.1111, 0.7778, 0.1111]])
    """
    check_on_conflict(on_conflict)
    check_option(rule, "rule", sorted(RULES))
    _check_combine_options(rule, None, normalize, None)  # also with one classifier, which skips combine
    masses = _classifier_masses(classifiers, X, inputs)
    if len(masses) == 1:
        return masses[0]
    with _advice_for_classifiers(rule):
        return combine(masses, rule=rule, normalize=normalize, on_conflict=on_conflict)


@contextlib.contextmanager
def _advice_for_classifiers(rule):
    """Errors of the rules on classifiers' outputs, re-raised with what to use instead."""
    try:
        yield
    except TotalConflictError as error:
        advice = TotalConflictError(
            f"{error} Bayesian classifier outputs (calibrators with model='bayes') rule classes out "
            "whenever a probability is 0; EvidentialFusionClassifier learns a discount rate of at least "
            "0.01 for each classifier and class, so that no classifier alone rules a class out."
        )
        advice.indices = error.indices
        raise advice from error
    except DogmaticError as error:
        if rule == "bold":
            message = (
                "The bold rule combines subnormal mass functions (m(empty) > 0, Denoeux 2008), and "
                "calibrated classifier outputs give no mass to the empty set. Use rule='cautious', its "
                "counterpart for normal mass functions of classifiers that share data, or 'dempster' for "
                "classifiers trained on distinct data."
            )
        else:
            message = (
                "The cautious rule needs non-dogmatic mass functions (m(frame) > 0), and a Bayesian "
                "classifier output (e.g. a calibrator with model='bayes') has m(frame) = 0. Use "
                "calibrators with model='likelihood' (their outputs keep mass on the frame), or "
                "EvidentialFusionClassifier(..., rule='cautious'), which discounts every classifier "
                "by at least 1e-6."
            )
        raise DogmaticError(message) from error


def _classifier_masses(classifiers, X, inputs):
    classifiers = list(classifiers)
    if not classifiers:
        raise ValueError("combine_classifiers needs at least one classifier.")
    if inputs is not None:
        inputs = list(inputs)
        if len(inputs) != len(classifiers):
            raise ValueError(f"`inputs` has {len(inputs)} entries for {len(classifiers)} classifiers.")
        masses = [_masses_of(c, x) for c, x in zip(classifiers, inputs)]
    else:
        masses = [_masses_of(c, X) for c in classifiers]
    _check_same_classes(classifiers)
    return masses


def _check_same_classes(classifiers):
    """Classifiers combined as evidence must predict on the same classes, in the same order."""
    reference = None
    for index, classifier in enumerate(classifiers):
        classes = getattr(classifier, "classes_", None)
        if classes is None:
            continue
        classes = list(np.asarray(classes).tolist())
        if reference is None:
            reference = (index, classes)
        elif classes != reference[1]:
            raise ValueError(
                f"The classifiers were fitted on different classes: classifier {reference[0]} has classes_ "
                f"{reference[1]!r} but classifier {index} has {classes!r}. Mass functions are combined class "
                "by class, so fit every classifier on labels with the same values (e.g. encode 'no'/'yes' "
                "as 0/1 everywhere)."
            )


class EvidentialCombination(MassClassifierMixin):
    """Several fitted evidential classifiers combined as evidence (no training of the combiner; deprecated).

    .. deprecated:: 0.3.0
        Use :func:`combine_classifiers` (the same combination as a function), or
        :class:`EvidentialFusionClassifier` to learn how much to trust each classifier
        (:class:`sklearn.frozen.FrozenEstimator` for classifiers fitted elsewhere).  This class will be
        removed in 0.4.

    The path of Xu et al. (2016), Section 5: each classifier is trained and
    calibrated on its own data, outputs a mass function per sample, and the
    mass functions are combined by a fixed rule before a decision.  New
    classifiers can be added without retraining anything.

    Parameters
    ----------
    classifiers : sequence of fitted estimators with ``predict_mass``
    rule : str, default "dempster"
        Combination rule (see :func:`combine_classifiers`); ``"cautious"`` for
        dependent classifiers.
    criterion : str, default "pignistic"
        Criterion of :meth:`dstk.MassFunction.decide` used by :meth:`predict`
        (``"pignistic"``, ``"plausibility"``, ``"belief"``, ...).
    normalize : bool, default False
        With ``rule="cautious"``: the normalised cautious rule (see
        :func:`combine_classifiers`).
    on_conflict : {"vacuous", "nan", "raise"}, default "vacuous"
        Samples on which the classifiers conflict totally get the vacuous
        mass function (so every sample has a prediction), NaN outputs, or
        raise; the first two warn with the sample indices.

    Attributes
    ----------
    classes_ : ndarray
        Labels of the common frame (from the first classifier).

    Raises
    ------
    ValueError
        An empty sequence of classifiers.

    Notes
    -----
    For a sample x with mass functions m_1, ..., m_K from the K classifiers,
    the combined mass is m = m_1 (+) ... (+) m_K under ``rule``; with Dempster's
    rule, m(A) = sum over B_1 ∩ ... ∩ B_K = A of prod_k m_k(B_k) / (1 - kappa)
    where kappa is the mass of the empty intersection (Xu et al. 2016, Eqs. 6-7).
    The decision maximises the pignistic probability BetP (Eq. 9) by default.
    The cautious rule (Denoeux 2008) is idempotent, so combining a classifier
    with itself (the example below) leaves its mass function unchanged.

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. IJAR 72, 55-70.
    Denoeux, T. (2008). Conjunctive and disjunctive combination of belief
    functions induced by nondistinct bodies of evidence. Artificial
    Intelligence 172, 234-264.

    Examples
    --------
    >>> import numpy as np
    >>> from dstk.calibration import BinningCalibrator
    >>> scores = np.array([-2.0, -1.0, 1.0, 2.0])
    >>> y = np.array([0, 0, 1, 1])
    >>> a = BinningCalibrator(bins=[-3, 0, 3], model="dempster").fit(scores, y)
    >>> ensemble = EvidentialCombination([a, a], rule="cautious")
    >>> ensemble.predict_mass([1.5]).to_array().round(4)
    array([[0.    , 0.    , 0.6667, 0.3333]])
    >>> ensemble.predict([1.5, -1.5])
    array([1, 0])
    """

    def __init__(
        self,
        classifiers: Iterable[Any],
        *,
        rule: str = "dempster",
        criterion: str = "pignistic",
        normalize: bool = False,
        on_conflict: str = "vacuous",
    ) -> None:
        warnings.warn(
            "EvidentialCombination is deprecated and will be removed in 0.4; use "
            "combine_classifiers(classifiers, X, rule=...) for a fixed rule, or EvidentialFusionClassifier "
            "to learn how much to trust each classifier.",
            FutureWarning,
            stacklevel=2,
        )
        self.classifiers = list(classifiers)
        self.rule = rule
        self.criterion = criterion
        self.normalize = normalize
        self.on_conflict = check_on_conflict(on_conflict)
        if not self.classifiers:
            raise ValueError("EvidentialCombination needs at least one fitted classifier.")
        self.classes_ = np.asarray(self.classifiers[0].classes_)

    def predict_mass(self, X: Any) -> MassFunction:
        """Combined mass functions of the classifiers.

        Parameters
        ----------
        X : array_like
            Samples, given to every classifier's ``predict_mass``.

        Returns
        -------
        MassFunction
            Batch shape ``(n_samples,)`` on the classifiers' common frame.
        """
        return combine_classifiers(
            self.classifiers, X, rule=self.rule, normalize=self.normalize, on_conflict=self.on_conflict
        )

    def predict_conflict(self, X: Any) -> np.ndarray:
        """Degree of conflict kappa between the classifiers on each sample.

        Parameters
        ----------
        X : array_like
            Samples, given to every classifier's ``predict_mass``.

        Returns
        -------
        ndarray of shape (n_samples,)
            Mass of the empty set in the unnormalised conjunctive combination
            (0 for a single classifier).
        """
        check_on_conflict(self.on_conflict)
        check_option(self.rule, "rule", sorted(RULES))
        _check_combine_options(self.rule, None, self.normalize, None)  # also with one classifier
        masses = _classifier_masses(self.classifiers, X, None)
        if len(masses) == 1:
            return np.zeros(masses[0].batch_shape)
        with _advice_for_classifiers(self.rule):
            _, conflict = combine_with_conflict(
                masses, rule=self.rule, normalize=self.normalize, on_conflict=self.on_conflict
            )
        return np.asarray(conflict)
