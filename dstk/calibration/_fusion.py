"""Classifiers combined as evidence, in the shape of scikit-learn's StackingClassifier."""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from .._estimator import (
    BaseEstimator,
    ClassifierMixin,
    check_is_fitted,
    check_meta_X,
    check_sample_weight,
    n_samples_of,
)
from .._estimator import validate_features as record_features
from .._validation import check_labels, check_option
from ._temperature import fit_inverse_temperature

__all__ = ["EvidentialFusionClassifier"]

_METHODS = ("temperature", None)
_TRAININGS = ("log_loss", "plausibility_error")
#: smallest probability a source may give a class (a 0 would let one source veto a class for ever)
_FLOOR = 1e-12
#: least discount rate of the sources combined by the cautious rule, which needs m(frame) > 0
_MIN_RATE = 1e-6
#: least learned rate: no classifier rules a class out on its own (its plausibility stays >= 0.01);
#: measured on wine, breast cancer and iris (5 splits): log-loss 0.145 / 0.114 / 0.069 with rates
#: down to 0, 0.064 / 0.099 / 0.085 with rates from 0.01 (one confident error cost 0.65 on wine)
_MIN_LEARNED_RATE = 0.01
#: the temperatures are sought in [0.05, 20] (as ln of the inverse temperature)
_LOG_INVERSE_BOUNDS = (-float(np.log(20.0)), -float(np.log(0.05)))
#: a classifier's probabilities may leave [0, 1] by this much (rounding) ...
_PROBABILITY_TOLERANCE = 1e-9
#: ... and their rows may sum to 1 within this (float32 outputs of many classes)
_SUM_TOLERANCE = 1e-4

try:  # the parameter handling of heterogeneous ensembles (``estimators__lr__C``)
    from sklearn.utils.metaestimators import _BaseComposition
except ImportError:  # pragma: no cover - scikit-learn is needed to fit anyway
    _BaseComposition = object  # type: ignore[assignment,misc]


#: points of a classifier's output distribution that stand in for its failed outputs: weighted quantiles
#: at the levels (m + 1/2) / M, M = 16, fewer when the copies of the out-of-fold outputs would exceed
#: _FAILURE_BUDGET values in all (many classes and samples)
_FAILURE_POINTS, _FAILURE_BUDGET = 16, 1 << 22


def _output_method(estimator: Any) -> str | None:
    """The method by which a classifier's outputs enter: the first of ``predict_proba``,
    ``predict_mass`` and ``decision_function`` it has (None: none of them)."""
    for method in ("predict_proba", "predict_mass", "decision_function"):
        if hasattr(estimator, method):
            return method
    return None


def _is_frozen(estimator: Any) -> bool:
    """Whether ``estimator`` is a :class:`sklearn.frozen.FrozenEstimator` (used as fitted)."""
    try:
        from sklearn.frozen import FrozenEstimator
    except ImportError:  # pragma: no cover - scikit-learn < 1.6
        return False
    return isinstance(estimator, FrozenEstimator)


def _score_probabilities(scores: ArrayLike) -> np.ndarray:
    """Class probabilities of ``decision_function`` scores read as logits.

    Shape (n_samples, n_classes): the softmax of the scores; shape (n_samples,) (two classes, positive
    for the second): the logits (0, s), i.e. the probability ``1 / (1 + exp(-s))`` of the second class.
    Scores of ``-inf`` or the lowest float (classes absent from a training fold, as
    :func:`sklearn.model_selection.cross_val_predict` fills them) give probability 0.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim == 1:
        scores = np.stack([np.zeros_like(scores), scores], axis=1)
    if not np.all(np.isfinite(scores) | (scores == -np.inf)):
        raise ValueError(
            "A classifier's decision_function returned NaN or +inf scores; check its input and fit."
        )
    with np.errstate(over="ignore"):
        return special.softmax(scores, axis=1)


def _checked_outputs(values: Any, n_samples: int, n_columns: int, name: str, method: str) -> np.ndarray:
    """A classifier's outputs by ``method`` as float64, refused unless they have one row per sample and
    ``n_columns`` columns (``decision_function``: also one score per sample for two classes) and, for
    probabilities, are finite, in [0, 1] and sum to 1 in each row."""
    values = np.asarray(values, dtype=np.float64)
    one_score = method == "decision_function" and values.ndim == 1 and n_columns == 2
    if values.shape[:1] != (n_samples,) or not (one_score or values.shape[1:] == (n_columns,)):
        shapes = f"({n_samples}, {n_columns})" + (
            f" or ({n_samples},)" if method == "decision_function" and n_columns == 2 else ""
        )
        raise ValueError(
            f"Classifier {name!r} gives {method} of shape {values.shape} on {n_samples} samples of "
            f"{n_columns} classes; {shapes} is needed: one row per sample, one column per class."
        )
    if method == "decision_function":
        if not np.all(np.isfinite(values) | (values == -np.inf)):
            raise ValueError(
                f"Classifier {name!r} gives NaN or +inf scores (decision_function); check its input and fit."
            )
        return values
    if not np.all(np.isfinite(values)):
        raise ValueError(
            f"Classifier {name!r} gives NaN or infinite probabilities ({method}); check its input and fit."
        )
    outside = values[(values < -_PROBABILITY_TOLERANCE) | (values > 1.0 + _PROBABILITY_TOLERANCE)]
    if outside.size:
        raise ValueError(
            f"Classifier {name!r} gives probabilities outside [0, 1] ({method}, e.g. {outside[0]!r}); pass "
            "a classifier whose outputs are class probabilities (one that only scores the classes enters "
            "by decision_function)."
        )
    sums = values.sum(axis=1)
    off = np.flatnonzero(np.abs(sums - 1.0) > _SUM_TOLERANCE)
    if off.size:
        raise ValueError(
            f"Classifier {name!r} gives probabilities ({method}) whose rows do not sum to 1 (sample "
            f"{int(off[0])}: {sums[off[0]]!r}); pass a classifier whose outputs are class probabilities."
        )
    return values


def _source_probabilities(
    estimator: Any, method: str | None, X: Any, name: str, n_classes: int
) -> tuple[np.ndarray, Any]:
    """A fitted classifier's class probabilities on ``X`` by ``method`` (checked by
    :func:`_checked_outputs`), and the classes of its columns (None: the ``n_classes`` of the fusion)."""
    n_samples = n_samples_of(X)
    if method == "predict_mass":
        mass = estimator.predict_mass(X)
        labels = mass.frame.labels
        return _checked_outputs(mass.pignistic(), n_samples, len(labels), name, "predict_mass"), labels
    classes = getattr(estimator, "classes_", None)
    n_columns = n_classes if classes is None else len(classes)
    if method == "decision_function":
        scores = _checked_outputs(estimator.decision_function(X), n_samples, n_columns, name, method)
        return _score_probabilities(scores), classes
    return _checked_outputs(estimator.predict_proba(X), n_samples, n_columns, name, "predict_proba"), classes


def _check_training_parts(folds: list, encoded: np.ndarray, classes: np.ndarray) -> None:
    """Refuse folds whose training part lacks a class of two or more samples: the classifiers fitted
    there cannot predict it, so their out-of-fold outputs give its samples probability 0 (a class of one
    sample is absent from one training part whatever the folds: its sample alone is affected)."""
    counts = np.bincount(encoded, minlength=classes.size)
    for train, _ in folds:
        present = np.zeros(classes.size, dtype=bool)
        present[encoded[train]] = True
        missing = np.flatnonzero(~present & (counts >= 2))
        if missing.size:
            c = int(missing[0])
            raise ValueError(
                f"Class {classes.tolist()[c]!r} ({counts[c]} samples) is absent from the training part of a "
                f"fold of `cv` ({len(folds)} folds): the classifiers fitted there cannot predict it, so "
                "their out-of-fold outputs would give it probability 0. Pass stratified folds (an integer "
                "`cv` or StratifiedKFold), or shuffle the samples."
            )


def _failure_outputs(contour: np.ndarray, weights: np.ndarray, n_points: int) -> np.ndarray:
    """Outputs of one classifier standing in for its failures: weighted quantiles of its outputs.

    The outputs are ordered by their decided class, then their largest probability, then their columns
    (identical outputs are tied); the output at the weighted levels ``(m + 1/2) / M`` of that order are
    returned, a stratified sample of the distribution of the classifier's outputs over the samples.  A
    sample of whole-number weight ``w`` and ``w`` copies of it give the same points.
    """
    n_samples, n_classes = contour.shape
    keys = [contour[:, k] for k in range(n_classes - 1, -1, -1)]
    order = np.lexsort([*keys, contour.max(axis=1), contour.argmax(axis=1)])
    cumulative = np.cumsum(weights[order])
    levels = (np.arange(n_points) + 0.5) / n_points * cumulative[-1]
    picked = order[np.minimum(np.searchsorted(cumulative, levels, side="left"), n_samples - 1)]
    return contour[picked]


def _failure_points(contours: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The points (S, M, K) of :func:`_failure_outputs` of every classifier (``M`` within the budget)."""
    n_sources = contours.shape[0]
    n_points = int(min(_FAILURE_POINTS, max(1, _FAILURE_BUDGET // (n_sources * contours[0].size))))
    return np.stack([_failure_outputs(contours[s], weights, n_points) for s in range(n_sources)])


def _with_failures(
    contours: np.ndarray, labels: np.ndarray, weights: np.ndarray, contamination: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Out-of-fold outputs plus, per classifier, copies where that classifier's outputs are unrelated.

    The weights make the criterion an expectation over the failure model of ``contamination``: no
    classifier fails (probability ``1 - contamination``) or classifier ``s`` fails (probability
    ``contamination / S`` each), its output then drawn from the distribution of its outputs over the
    samples, independently of the sample.  That distribution is represented by the ``M`` points of
    :func:`_failure_outputs` (probability ``1 / M`` each), so the criterion is deterministic and
    whole-number sample weights equal repetitions.
    """
    n_sources = contours.shape[0]
    copies, all_weights = [contours], [(1.0 - contamination) * weights]
    for s, points in enumerate(_failure_points(contours, weights)):
        for point in points:
            failed = contours.copy()
            failed[s] = point
            copies.append(failed)
            all_weights.append(contamination / (n_sources * points.shape[0]) * weights)
    return (
        np.concatenate(copies, axis=1),
        np.tile(labels, len(copies)),
        np.concatenate(all_weights),
    )


class EvidentialFusionClassifier(ClassifierMixin, _BaseComposition, BaseEstimator):
    """Classifiers combined as pieces of evidence, with reliabilities learned on out-of-fold outputs.

    ``fit`` clones and fits every classifier on all the data and, as scikit-learn's
    :class:`~sklearn.ensemble.StackingClassifier` does, also cross-fits them (``cv``) to obtain
    out-of-fold class probabilities.  On those it learns, per classifier, a temperature (``method``)
    and the contextual discount rates ``alpha_sk`` (Mercier, Quost & Denoeux 2008): the classifier's
    unreliability when the truth is class ``k``.  A prediction discounts each classifier's calibrated
    output contextually and combines the discounted mass functions by ``rule``.

    Read more in the :doc:`User Guide </guide/calibration>`.

    Parameters
    ----------
    estimators : list of (str, estimator)
        The classifiers, each with ``predict_proba``, ``predict_mass`` or ``decision_function``
        (the first of these it has is used): one with ``predict_mass`` only enters by the pignistic
        probabilities of its mass functions (cross-fitted in turn), one with ``decision_function``
        only (e.g. ``LinearSVC``, ``SVC()``) by its scores read as logits: their softmax, or for two
        classes the logits ``(0, s)`` of its one score ``s``.  Outputs with a row per sample and a
        column per class of the classifier are needed, and probabilities finite, in [0, 1] and summing
        to 1 in each row (within 1e-4); others are refused, naming the classifier.  A
        classifier wrapped in :class:`sklearn.frozen.FrozenEstimator` is used as fitted (trained
        elsewhere, on other data): ``fit`` only calibrates it and learns its rates on the data it is
        given.  ``"drop"`` leaves a classifier out.  A classifier's parameters are ``<name>__<parameter>`` in :meth:`get_params`
        and :meth:`set_params` (also ``estimators__<name>__<parameter>``), for grid searches.
    cv : int, cross-validation generator or iterable, default=5
        How the out-of-fold outputs are made (:func:`sklearn.model_selection.check_cv`, stratified); the
        same folds for every classifier.  The training part of each fold must hold every class of two or
        more samples (otherwise refused: the classifiers fitted there could not predict it).
    method : {"temperature"} or None, default="temperature"
        Calibration of each classifier's out-of-fold probabilities before the rates are learned:
        temperature scaling of its log-probabilities; None keeps them as they are.
    rule : str, default="dempster"
        Combination rule of the discounted mass functions, a name in :data:`dstk.RULES` but ``"bold"``
        (which combines subnormal mass functions; calibrated outputs are normal).  The rates are learned
        for a conjunctive combination; with ``"disjunctive"`` (one of the classifiers is reliable, not
        knowing which) they are 0.  The cautious rule
        needs non-dogmatic mass functions: for it every rate is at least 1e-6, so that a calibrated
        (Bayesian) output keeps some mass on the frame.
    training : {"log_loss", "plausibility_error"}, default="log_loss"
        Criterion of the rates: the log-loss of the plausibility transform of Dempster's combination of
        the discounted outputs, with every rate at least 0.01 so that no classifier alone rules a class
        out, or the plausibility error of Mercier, Quost & Denoeux (2008, Eq. 33), per classifier in
        closed form.
    contamination : float in [0, 1), default=0.1
        The assumed probability that a classifier fails on a sample at prediction time, its output then
        unrelated to the sample (e.g. a broken sensor or a corrupted feature set).  The rates minimise
        the expected criterion under this failure model: the out-of-fold outputs count with weight
        ``1 - contamination``, and, for each classifier in turn, the same outputs with that classifier's
        output replaced by one drawn from its outputs on the other samples count with weight
        ``contamination / n_estimators``.  That draw is represented by 16 of its outputs spread evenly
        over their distribution (weighted quantiles of the outputs ordered by decided class and largest
        probability; fewer when ``16 n_estimators n_samples n_classes`` exceeds 2**22), so that ``fit``
        is deterministic and whole-number sample weights equal repetitions.  The rates bound how far one classifier can move the
        combination; on each sample, Dempster's combination of the discounted classifiers weighs the
        hypothesis "classifier s is unreliable here" by how much s conflicts with the others (Mercier,
        Quost & Denoeux 2008, Section 3), so a failing classifier that contradicts the others loses its
        say on that sample.  0 learns the rates on the out-of-fold outputs as they are.  The default
        0.1 changes the log-loss on clean data by -0.005 to +0.008 against 0 (ten data sets, where the
        fusion stays level with or below stacking and within one standard error of the best single
        classifier) and lowers it by up to 0.14 when one classifier is fed noise at prediction time
        (``benchmarks/results/fusion.md``).
    failure_test_level : float in (0, 1) or None, default=None
        Test, on each batch ``X`` given to a prediction method, whether one of the classifiers (three or
        more) fails on the whole batch (e.g. fed a broken feature set), which the rates, fixed after ``fit``, cannot see.
        Per classifier ``s`` and sample, the statistic is the log-likelihood ratio of "the output of
        ``s`` bears on the sample" against "it is unrelated to it", reading the discounted outputs as
        likelihoods: ``log A_s = log sum_k P_-s(k) pl'_sk - log mean_k pl'_sk``, with ``P_-s`` the
        plausibility transform of the combination of the other classifiers (the plausibility of the
        output of ``s`` under the others' combination).  The one-sided Mann-Whitney U test (Mann &
        Whitney 1947) compares its values on the batch with those on the out-of-fold outputs
        (unweighted); a
        classifier with a p-value below ``failure_test_level / n_estimators`` (Bonferroni) is flagged,
        and one flagged classifier (of several, the one whose removal leaves the others' agreement
        least lowered; none on a tie, where the batch cannot tell which failed) is left out of the
        batch's combination, the others combined with the rates
        learned without it in ``fit``; a :class:`~dstk.exceptions.ConflictWarning` names it.  The
        predictions on a sample then depend on the other samples of the batch: pass batches of
        samples from one source of data (the test has little power on a few samples).  None (the
        default) predicts every sample on its own.  The test assumes that a classifier's outputs on
        new data are distributed as its out-of-fold outputs: a classifier whose fold models differ
        from the final one (e.g. a single decision tree, with few distinct outputs) can be flagged on
        clean data.  On three scikit-learn classifiers (scaled logistic regression, Gaussian naive
        Bayes, a random forest), one of them fed noise at prediction time, 0.001 flagged a classifier
        in 64 of 70 test sets (of 62 to 412 samples) and left the noisy one out in 60 (otherwise
        another), lowering the log-loss on average by 0.005 (Sonar, 62 samples, flagged in 5 of 10)
        to 0.18 (Ionosphere) on seven data sets of 10 splits; it flagged none of 160 clean test sets
        where 0.01 flagged 3 (``benchmarks/results/fusion.md``).
    on_conflict : {"vacuous", "nan", "raise"}, default="vacuous"
        Samples whose discounted outputs are in total conflict: the vacuous mass function (uniform
        probabilities), NaN, or an error; the first two warn with the samples' indices.
    n_jobs : int or None, default=None
        Parallel fits of the cross-validation folds (joblib).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    estimators_ : list of fitted estimators
        The classifiers fitted on all the data (or as given, when frozen), without the dropped ones.
    named_estimators_ : dict
        The same by name.
    temperatures_ : ndarray of shape (n_estimators,)
        The temperature of each classifier (1 when ``method`` is None).
    rates_ : ndarray of shape (n_estimators, n_classes)
        The contextual discount rates, in the convention of :func:`dstk.core.contextual_discount`
        (0: fully reliable, 1: ignored).
    out_of_fold_agreement_ : ndarray of shape (n_estimators, n_samples)
        With ``failure_test_level``: the log agreement ``log A_s`` of each classifier with the others
        on the out-of-fold outputs, the reference of the test.
    rates_without_ : ndarray of shape (n_estimators, n_estimators, n_classes)
        With ``failure_test_level``: ``rates_without_[s]`` are the rates learned without classifier
        ``s`` (NaN in its own row ``rates_without_[s, s]``).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.

    Notes
    -----
    Classifier ``s`` gives the calibrated probabilities ``q_s`` (a Bayesian mass function), whose
    contextual discounting with rates ``alpha_s`` has the contour ``q_sk + alpha_sk (1 - q_sk)``.
    Dempster's combination of the discounted sources has the product of their contours as contour, so
    its plausibility transform ``P(k) ∝ prod_s (q_sk + alpha_sk (1 - q_sk))`` needs no mass
    function on the power set; it is :meth:`predict_proba`, the probability consistent with Dempster's
    rule (Cobb & Shenoy 2006), and :meth:`predict` is its argmax.  :meth:`predict_mass` builds the
    combined mass function itself.  With all rates 0 and temperature 1 this is the product of the
    classifiers' probabilities (Bayes' rule with independent classifiers and a uniform prior); a rate
    near 1 ignores the classifier when the truth is that class.

    Selective decisions: to abstain on the least decided samples, rank them by the belief of the
    predicted class, ``Bel({predict(x)})`` (from :meth:`predict_interval`: ``bel`` of the class, and
    for two classes ``1 - pl`` when the prediction is ``classes_[0]``), and abstain on the smallest.  On scikit-learn's and the shared data sets (``benchmarks/bench_fusion.py``) this
    ranking gives the same selective errors as ranking by the predicted class's probability or
    pignistic probability within one standard error, and lower ones than ranking by the width
    ``Pl - Bel`` of its interval (e.g. error at 80 % coverage 0.074 against 0.089 on the Australian
    credit data).

    References
    ----------
    D. Mercier, B. Quost & T. Denoeux (2008). Refined modeling of sensor reliability in the belief
    function framework using contextual discounting. Information Fusion 9(2), 246-258.
    B. R. Cobb & P. P. Shenoy (2006). On the plausibility transformation method for translating belief
    function models to probability models. IJAR 41(3), 314-330.
    P. Xu, F. Davoine, H. Zha & T. Denoeux (2016). Evidential calibration of binary SVM classifiers.
    IJAR 72, 55-70.
    H. B. Mann & D. R. Whitney (1947). On a test of whether one of two random variables is
    stochastically larger than the other. Annals of Mathematical Statistics 18(1), 50-60.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from dstk.calibration import EvidentialFusionClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> fusion = EvidentialFusionClassifier(
    ...     [("lr", LogisticRegression(max_iter=1000)), ("nb", GaussianNB())]
    ... ).fit(X, y)
    >>> fusion.rates_.shape
    (2, 3)
    >>> fusion.predict_mass(X[:2]).batch_shape
    (2,)
    """

    def __init__(
        self,
        estimators: Any,
        *,
        cv: Any = 5,
        method: str | None = "temperature",
        rule: str = "dempster",
        training: str = "log_loss",
        contamination: float = 0.1,
        failure_test_level: float | None = None,
        on_conflict: str = "vacuous",
        n_jobs: int | None = None,
    ) -> None:
        self.estimators = estimators
        self.cv = cv
        self.method = method
        self.rule = rule
        self.training = training
        self.contamination = contamination
        self.failure_test_level = failure_test_level
        self.on_conflict = on_conflict
        self.n_jobs = n_jobs

    # -- parameters (nested, as scikit-learn's ensembles) --------------------------------------

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameters of the fusion and, with ``deep``, of its classifiers as ``<name>__<parameter>``.

        Parameters
        ----------
        deep : bool, default=True
            Also return the classifiers and their parameters.

        Returns
        -------
        params : dict
        """
        return self._get_params("estimators", deep=deep)

    def set_params(self, **params: Any) -> EvidentialFusionClassifier:
        """Set parameters, including ``<name>`` (a classifier, or ``"drop"``) and ``<name>__<parameter>``.

        Parameters
        ----------
        **params : dict
            Parameter names and values.  A classifier's parameter is ``<name>__<parameter>`` (as in
            :class:`~sklearn.ensemble.StackingClassifier`, and as :meth:`get_params` lists it), or
            ``estimators__<name>__<parameter>``, the same parameter spelled through ``estimators``
            (e.g. ``estimators__lr__C`` in a :class:`~sklearn.model_selection.GridSearchCV` grid).

        Returns
        -------
        EvidentialFusionClassifier
            ``self``.
        """
        prefix = "estimators__"
        translated: dict[str, Any] = {}
        for key, value in params.items():
            short = key[len(prefix) :] if key.startswith(prefix) else key
            if short in translated:
                raise ValueError(
                    f"The parameter {short!r} is given twice (as {short!r} and {prefix + short!r}); "
                    "give it once."
                )
            translated[short] = value
        self._set_params("estimators", **translated)
        return self

    @property
    def named_estimators(self) -> dict[str, Any]:
        """dict: the classifiers by name (unfitted), as given in ``estimators``."""
        return dict(self._checked_estimators())

    def _checked_estimators(self):
        estimators = self.estimators
        if (
            estimators is None
            or isinstance(estimators, (str, bytes))
            or not hasattr(estimators, "__len__")
            or len(estimators) == 0
        ):
            raise ValueError(
                f"`estimators` must be a non-empty list of (name, classifier) pairs; got {estimators!r}."
            )
        pairs = []
        for item in estimators:
            if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)):
                raise ValueError(
                    f"Each entry of `estimators` must be a (name, classifier) pair; got {item!r}. "
                    "Name the classifiers, e.g. [('lr', LogisticRegression()), ('nb', GaussianNB())]."
                )
            pairs.append(item)
        names = [name for name, _ in pairs]
        if len(set(names)) != len(names):
            raise ValueError(f"The names in `estimators` must be distinct; got {names!r}.")
        for name in names:
            if "__" in name:
                raise ValueError(f"Estimator names must not contain '__'; got {name!r}.")
        clashes = sorted(set(names) & set(self.get_params(deep=False)))
        if clashes:
            raise ValueError(
                f"The names {clashes!r} in `estimators` are parameters of EvidentialFusionClassifier; "
                "rename those classifiers (their nested parameters would be ambiguous)."
            )
        kept = [
            (name, estimator)
            for name, estimator in pairs
            if not (isinstance(estimator, str) and estimator == "drop")
        ]
        if not kept:
            raise ValueError("Every classifier of `estimators` is 'drop': at least one is needed.")
        for name, estimator in kept:
            if _output_method(estimator) is None:
                raise ValueError(
                    f"Classifier {name!r} ({type(estimator).__name__}) has none of predict_proba, "
                    "predict_mass and decision_function; pass a classifier that scores the classes."
                )
        return kept

    def _check_options(self):
        from ..core._combination import RULES, check_on_conflict

        check_option(self.method, "method", list(_METHODS))
        check_option(self.rule, "rule", sorted(RULES))
        if self.rule == "bold":
            raise ValueError(
                "rule='bold' combines subnormal mass functions (m(empty) > 0, Denoeux 2008), and calibrated "
                "classifier outputs give no mass to the empty set; use rule='cautious', the idempotent rule "
                "for classifiers trained on the same data, or 'dempster' for independent ones."
            )
        check_option(self.training, "training", list(_TRAININGS))
        contamination = self.contamination
        if (
            isinstance(contamination, bool)
            or not isinstance(contamination, numbers.Real)
            or not 0.0 <= contamination < 1.0
        ):
            raise ValueError(
                f"`contamination` must be a number in [0, 1) (the probability that a classifier fails on a "
                f"sample); got {contamination!r}."
            )
        level = self.failure_test_level
        if level is not None and (
            isinstance(level, bool) or not isinstance(level, numbers.Real) or not 0.0 < level < 1.0
        ):
            raise ValueError(
                f"`failure_test_level` must be None (no test) or a significance level in (0, 1), e.g. "
                f"0.01; got {level!r}."
            )
        check_on_conflict(self.on_conflict)

    # -- fitting ---------------------------------------------------------------------------------

    def fit(self, X: Any, y: ArrayLike, sample_weight: ArrayLike | None = None) -> EvidentialFusionClassifier:
        """Fit the classifiers, calibrate their out-of-fold outputs and learn their discount rates.

        Parameters
        ----------
        X : array_like or data frame of shape (n_samples, n_features)
            Training samples, in any format the classifiers accept.
        y : array_like of shape (n_samples,)
            Class labels.
        sample_weight : array_like of shape (n_samples,), optional
            Passed to the classifiers' ``fit`` (those that take it) and used as weights of the
            calibration and of the rates' criterion.

        Returns
        -------
        EvidentialFusionClassifier
            ``self``, fitted.
        """
        from sklearn.base import clone
        from sklearn.model_selection import check_cv, cross_val_predict
        from sklearn.utils.validation import has_fit_parameter

        self._check_options()
        pairs = self._checked_estimators()
        if self.failure_test_level is not None and len(pairs) < 3:
            raise ValueError(
                "`failure_test_level` tests each classifier against the others and needs at least three "
                f"classifiers (with two, each one's agreement with the other is the same number, so a batch "
                f"cannot tell which failed); got {len(pairs)}. Pass failure_test_level=None."
            )
        X = check_meta_X(X)
        classes, encoded = check_labels(y, "y")
        n_samples = encoded.shape[0]
        if getattr(X, "shape", (n_samples,))[0] != n_samples:
            raise ValueError(
                f"`X` has {X.shape[0]} samples but `y` has {n_samples}; pass one label per sample."
            )
        if classes.size < 2:
            raise ValueError(
                f"`y` has a single class ({classes.tolist()!r}); a classifier needs at least two."
            )
        record_features(self, X, reset=True)
        weights = check_sample_weight(sample_weight, n_samples)
        weight_array = np.ones(n_samples) if weights is None else weights
        self.classes_ = classes
        labels = classes[encoded]
        # the same folds for every classifier (a shuffling splitter without a seed would give each its own)
        folds = list(check_cv(self.cv, labels, classifier=True).split(X, labels))
        if not all(_is_frozen(estimator) for _, estimator in pairs):  # frozen ones are not fitted on folds
            _check_training_parts(folds, encoded, classes)
        estimators_, probabilities, temperatures = [], [], []
        for name, estimator in pairs:
            params = {}
            if weights is not None and has_fit_parameter(estimator, "sample_weight"):
                params["sample_weight"] = weights
            method = _output_method(estimator)
            # a frozen classifier keeps its own classes_ (maybe fewer): cross_val_predict would read them
            # as the indices of its label-encoded folds, so its columns are aligned by label instead
            if method == "predict_proba" and not _is_frozen(estimator):
                out_of_fold = cross_val_predict(
                    clone(estimator),
                    X,
                    labels,
                    cv=folds,
                    method="predict_proba",
                    n_jobs=self.n_jobs,
                    params=params,
                )
                out_of_fold = _checked_outputs(out_of_fold, n_samples, classes.size, name, "predict_proba")
                q = self._aligned(out_of_fold, classes, name)
            else:
                q = self._out_of_fold(estimator, method, X, labels, folds, params, classes, name)
            fitted = clone(estimator).fit(X, labels, **params)
            estimators_.append(fitted)
            log_q = np.log(np.clip(q, _FLOOR, 1.0))
            temperature = 1.0
            if self.method == "temperature":  # Guo et al. (2017): T in [0.05, 20]
                inverse = fit_inverse_temperature(
                    log_q, encoded, weight_array, log_bounds=_LOG_INVERSE_BOUNDS
                )
                temperature = 1.0 / inverse
            temperatures.append(temperature)
            probabilities.append(special.softmax(log_q / temperature, axis=1))
        contours = np.stack(probabilities)
        rates = self._learn_rates(contours, encoded, weight_array, classes.size)
        self.estimators_ = estimators_
        self.named_estimators_ = {name: fitted for (name, _), fitted in zip(pairs, estimators_)}
        self.temperatures_ = np.array(temperatures)
        self.rates_ = rates
        if self.failure_test_level is not None:
            self._fit_failure_test(contours, encoded, weight_array, classes.size)
        return self

    def _learn_rates(self, contours, encoded, weight_array, n_classes):
        """The discount rates of ``rule``, ``training`` and ``contamination`` on out-of-fold outputs."""
        from ..evidence._contextual import log_loss_contextual_rates, separate_contextual_rates

        failing = self.contamination > 0 and self.rule != "disjunctive"
        if self.rule == "disjunctive":  # "one of them is reliable": the discounting of the others is moot
            rates = np.zeros((contours.shape[0], n_classes))
        elif self.training == "log_loss":  # the failure terms in closed form (no copies of the outputs)
            points = _failure_points(contours, weight_array) if failing else None
            rates = log_loss_contextual_rates(
                contours,
                encoded,
                weights=weight_array,
                min_rate=_MIN_LEARNED_RATE,
                failure_points=points,
                contamination=self.contamination if failing else 0.0,
            )
        else:
            labels_used, weights_used = encoded, weight_array
            if failing:
                contours, labels_used, weights_used = _with_failures(
                    contours, encoded, weight_array, self.contamination
                )
            n_used = labels_used.size
            indicators = np.zeros((n_used, n_classes))
            indicators[np.arange(n_used), labels_used] = 1.0
            rates = np.stack([separate_contextual_rates(c, indicators, weights_used) for c in contours])
        return rates

    def _fit_failure_test(self, contours, encoded, weight_array, n_classes):
        """Out-of-fold agreement of each classifier, and the rates of the others for each left out."""
        from ..evidence._contextual import discount_contours
        from ..evidence._dissent import log_agreement

        n_sources = contours.shape[0]
        discounted = discount_contours(contours, self.rates_)
        self.out_of_fold_agreement_ = log_agreement(discounted)
        without = np.full((n_sources, n_sources, n_classes), np.nan)
        for s in range(n_sources):
            keep = np.delete(np.arange(n_sources), s)
            without[s, keep] = self._learn_rates(contours[keep], encoded, weight_array, n_classes)
        self.rates_without_ = without
        self._out_of_fold_discounted = discounted

    def _out_of_fold(self, estimator, method, X, labels, folds, params, classes, name):
        """Out-of-fold probabilities of a classifier entering by ``predict_mass`` or ``decision_function``, or
        frozen (aligned by its own classes)."""
        from sklearn.base import clone
        from sklearn.utils import _safe_indexing

        out = np.full((labels.size, classes.size), np.nan)
        seen = np.zeros(labels.size, dtype=int)
        for train, test in folds:
            fold_params = {key: np.asarray(value)[train] for key, value in params.items()}
            fitted = clone(estimator).fit(_safe_indexing(X, train), labels[train], **fold_params)
            probabilities, source_classes = _source_probabilities(
                fitted, method, _safe_indexing(X, test), name, classes.size
            )
            out[test] = self._aligned(probabilities, classes, name, source_classes)
            seen[test] += 1
        if not np.all(seen == 1):
            raise ValueError(
                "`cv` must split the samples into a partition (each sample in exactly one test fold), as "
                "the out-of-fold outputs need; use an integer or a KFold-like splitter."
            )
        return out

    @staticmethod
    def _aligned(probabilities, classes, name, source_classes=None):
        """Columns of a classifier's probabilities in the order of ``classes`` (0 for classes it lacks)."""
        probabilities = np.asarray(probabilities, dtype=np.float64)
        if source_classes is None:
            if probabilities.shape[1] != classes.size:
                raise ValueError(
                    f"Classifier {name!r} gives {probabilities.shape[1]} probabilities per sample for "
                    f"{classes.size} classes."
                )
            return probabilities
        index = {label: k for k, label in enumerate(classes.tolist())}
        out = np.zeros((probabilities.shape[0], classes.size))
        for j, label in enumerate(np.asarray(source_classes).tolist()):
            if label not in index:
                raise ValueError(
                    f"Classifier {name!r} predicts the class {label!r}, which is not in the training labels "
                    f"{classes.tolist()!r}."
                )
            out[:, index[label]] = probabilities[:, j]
        return out

    # -- predictions -----------------------------------------------------------------------------

    def _calibrated(self, X: Any) -> np.ndarray:
        """Calibrated probabilities of every classifier, shape (n_estimators, n_samples, n_classes)."""
        check_is_fitted(self, "rates_")
        X = check_meta_X(X)
        record_features(self, X, reset=False)
        out = []
        for (name, estimator), temperature in zip(self.named_estimators_.items(), self.temperatures_):
            probabilities, source_classes = _source_probabilities(
                estimator, _output_method(estimator), X, name, self.classes_.size
            )
            q = self._aligned(probabilities, self.classes_, name, source_classes)
            log_q = np.log(np.clip(q, _FLOOR, 1.0))
            out.append(special.softmax(log_q / temperature, axis=1))
        return np.stack(out)

    def _combined_sources(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """Calibrated outputs and rates of the classifiers combined on the batch ``X``.

        All of them, unless ``failure_test_level`` is set and the batch shows one failing
        (:func:`dstk.evidence._dissent.failing_source`): then the others, with the rates learned
        without it, and a warning naming it.
        """
        calibrated = self._calibrated(X)
        if self.failure_test_level is None or calibrated.shape[1] == 0:
            return calibrated, self.rates_
        from ..evidence._contextual import discount_contours
        from ..evidence._dissent import failing_source

        discounted = discount_contours(calibrated, self.rates_)
        p_values, failing = failing_source(
            self.out_of_fold_agreement_,
            self._out_of_fold_discounted,
            discounted,
            self.failure_test_level,
        )
        if failing < 0:
            return calibrated, self.rates_
        from .._validation import stacklevel_outside_dstk
        from ..exceptions import ConflictWarning

        name = list(self.named_estimators_)[failing]
        warnings.warn(
            f"Classifier {name!r} agrees with the others on these {calibrated.shape[1]} samples less than "
            f"on its out-of-fold outputs (one-sided Mann-Whitney p = {p_values[failing]:.2g}, below "
            f"failure_test_level / {p_values.size}); it is left out of this batch's combination.",
            ConflictWarning,
            stacklevel=stacklevel_outside_dstk(),
        )
        keep = np.delete(np.arange(calibrated.shape[0]), failing)
        return calibrated[keep], self.rates_without_[failing][keep]

    def _conflict_rows(self, rows: np.ndarray, what: str) -> None:
        if not rows.size:
            return
        if self.on_conflict == "raise":
            from ..exceptions import TotalConflictError

            raise TotalConflictError(
                f"The discounted classifiers are in total conflict on samples {rows[:10].tolist()}; pass "
                "on_conflict='vacuous' to give them the vacuous mass function."
            )
        from .._validation import stacklevel_outside_dstk
        from ..exceptions import ConflictWarning

        warnings.warn(
            f"Total conflict on samples {rows[:10].tolist()} (of {rows.size}); their {what} "
            f"{'is vacuous' if self.on_conflict == 'vacuous' else 'is NaN'}.",
            ConflictWarning,
            stacklevel=stacklevel_outside_dstk(),
        )

    def predict_proba(self, X: Any) -> np.ndarray:
        """The plausibility transform of the combined mass function.

        Parameters
        ----------
        X : array_like or data frame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            ``P(k) = pl({w_k}) / sum_l pl({w_l})`` of :meth:`predict_mass` (for Dempster's rule, the
            product of the discounted contours, normalised); uniform rows for samples in total conflict
            under ``on_conflict="vacuous"``, NaN under ``"nan"``.
        """
        from ..evidence._contextual import plausibility_transform_of_product

        if self.rule in ("dempster", "conjunctive"):
            probabilities, _ = plausibility_transform_of_product(*self._combined_sources(X))
        else:
            pl = np.asarray(self.predict_mass(X).contour(), dtype=np.float64)
            with np.errstate(invalid="ignore", divide="ignore"):
                probabilities = pl / pl.sum(axis=1, keepdims=True)
            probabilities[~(pl.sum(axis=1) > 0)] = np.nan
        conflicted = np.flatnonzero(np.isnan(probabilities).any(axis=1))
        self._conflict_rows(conflicted, "probabilities")
        if conflicted.size and self.on_conflict == "vacuous":
            probabilities[conflicted] = 1.0 / self.classes_.size
        return probabilities

    def predict(self, X: Any) -> np.ndarray:
        """The class of largest :meth:`predict_proba` (the first in ``classes_`` on ties).

        Parameters
        ----------
        X : array_like or data frame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        from .._estimator import labels_of_largest

        probabilities = self.predict_proba(X)  # raises NotFittedError before classes_ is read
        return labels_of_largest(self.classes_, probabilities)

    def predict_mass(self, X: Any) -> Any:
        """The classifiers' calibrated outputs, discounted contextually and combined by ``rule``.

        Parameters
        ----------
        X : array_like or data frame of shape (n_samples, n_features)

        Returns
        -------
        MassFunction
            Batch shape ``(n_samples,)`` on ``Frame(classes_)``.  When the ``2**n_classes`` masses a
            sample do not fit the memory limit (and ``rule`` is ``"dempster"`` or ``"conjunctive"``),
            it is held by the calibrated probabilities and rates of the sources instead, for any
            number of classes: mass, belief, plausibility and commonality of given sets, contour,
            pignistic transform, decisions and Dempster's combination stay exact, in time linear in
            the number of classes (exponential in the number of classifiers, ``3**n_estimators``).
        """
        from ..core._combination import combine
        from ..core._dense import check_dense_size
        from ..core._frame import Frame
        from ..core._mass import MassFunction
        from ..core._transforms import contextual_discount
        from ..exceptions import FrameTooLargeError

        calibrated, source_rates = self._combined_sources(X)
        n_classes = self.classes_.size
        frame = Frame(self.classes_.tolist())
        try:
            check_dense_size(n_classes, calibrated.shape[1], "the classifiers' combined mass functions")
        except FrameTooLargeError as error:
            if self.rule not in ("dempster", "conjunctive"):
                raise FrameTooLargeError(
                    f"{error} With rule='dempster' or 'conjunctive', the combination is held by the "
                    "discounted sources instead, on any number of classes."
                ) from None
            return self._sources_mass(calibrated, source_rates, frame)
        # the cautious rule needs non-dogmatic sources (Denoeux 2008): a rate of 0 on every class
        # would leave a Bayesian output dogmatic, so their rates are at least _MIN_RATE (m(frame) > 0)
        all_rates = np.maximum(source_rates, _MIN_RATE) if self.rule == "cautious" else source_rates
        sources = []
        for q, rates in zip(calibrated, all_rates):
            dense = np.zeros((q.shape[0], 1 << n_classes))
            dense[:, 1 << np.arange(n_classes)] = q
            sources.append(contextual_discount(MassFunction.from_array(dense, frame, validate=False), rates))
        if len(sources) == 1:
            return sources[0]
        return combine(sources, rule=self.rule, on_conflict=self.on_conflict)

    def _sources_mass(self, calibrated: np.ndarray, source_rates: np.ndarray, frame: Any) -> Any:
        """The combination held by its discounted sources (frames too large for 2**n masses a sample)."""
        from ..core._mass import MassFunction
        from ..core._structured import DiscountedBayesStorage

        probabilities = np.ascontiguousarray(np.moveaxis(calibrated, 0, 1))  # (n_samples, S, n)
        rates = np.broadcast_to(source_rates, probabilities.shape)
        storage = DiscountedBayesStorage.from_sources(probabilities, rates, normalized=False)
        if self.rule == "dempster":
            log_nonempty = storage._log_nonempty()
            conflicted = np.flatnonzero(~np.isfinite(log_nonempty))
            self._conflict_rows(conflicted, "mass function")
            if conflicted.size:  # vacuous: every rate 1 (then NaN parameters for on_conflict="nan")
                rates = np.array(rates)
                rates[conflicted] = 1.0
                storage = DiscountedBayesStorage.from_sources(probabilities, rates, normalized=False)
            storage = storage.normalize()
            if conflicted.size and self.on_conflict == "nan":
                probabilities[conflicted] = np.nan
                log_scale = np.array(storage.log_scale)
                log_scale[conflicted] = np.nan
                storage = DiscountedBayesStorage((probabilities, rates), log_scale, frame.n)
        return MassFunction._from_storage(storage, frame)

    def predict_interval(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """Belief and plausibility of the classes under :meth:`predict_mass`.

        Parameters
        ----------
        X : array_like or data frame of shape (n_samples, n_features)

        Returns
        -------
        bel, pl : ndarray
            For two classes, of shape (n_samples,) for class ``classes_[1]``; otherwise of shape
            (n_samples, n_classes).
        """
        from .._estimator import singleton_interval

        return singleton_interval(self.predict_mass(X))

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a pickled or skops-loaded fusion, checking its fitted arrays.

        ``rates_without_`` holds NaN on its diagonal by construction (``rates_without_[s, s]``), which
        the generic check of the other arrays (:func:`dstk._estimator.check_loaded_state`) refuses: it
        is checked here instead (NaN exactly on the diagonal, rates in [0, 1] elsewhere).

        Parameters
        ----------
        state : dict
            The attributes to restore.

        Raises
        ------
        InvalidStateError
            A fitted array that no fit produces.
        """
        state = dict(state)
        without = state.pop("rates_without_", None)
        super().__setstate__(state)
        if without is not None:
            from ..exceptions import InvalidStateError

            array = np.asarray(without, dtype=np.float64)
            n_sources = array.shape[0] if array.ndim == 3 else -1
            diagonal = np.eye(max(n_sources, 0), dtype=bool)
            valid = (
                n_sources >= 0
                and array.shape[1] == n_sources
                and np.all(np.isnan(array[diagonal]))
                and np.all((array[~diagonal] >= 0.0) & (array[~diagonal] <= 1.0))
            )
            if not valid:
                raise InvalidStateError(
                    "The loaded EvidentialFusionClassifier is not a fitted state: its `rates_without_` does "
                    "not hold NaN exactly on its diagonal and rates in [0, 1] elsewhere. The file was "
                    "modified or corrupted after saving; fit the estimator again or load a file you trust."
                )
            self.rates_without_ = without

    def __sklearn_tags__(self):
        """scikit-learn tags: a classifier; input checks are the classifiers' own."""
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
