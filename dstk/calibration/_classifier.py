"""EvidentialCalibratedClassifier: a classifier whose scores are calibrated into mass functions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._estimator import (
    BaseEstimator,
    MassClassifierMixin,
    MetaEstimatorMixin,
    check_is_fitted,
    check_meta_X,
    check_sample_weight,
    n_samples_of,
    validate_features,
)
from .._progress import progress
from .._validation import check_labels, check_option
from ._base import BinaryCalibrator

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from dstk.core._mass import MassFunction

__all__ = ["EvidentialCalibratedClassifier", "METHODS"]

METHODS = ("binning", "isotonic", "logistic", "sigmoid", "venn_abers", "venn_machine")


_MULTICLASS = ("auto", "temperature", "one_vs_rest")


def _uses_temperature(multiclass, method, model, n_classes):
    """Whether more than two classes are calibrated by evidential temperature scaling (else one-vs-rest)."""
    if n_classes <= 2 or multiclass == "one_vs_rest":
        return False
    if multiclass == "temperature":
        return True
    return isinstance(method, str) and method in ("logistic", "sigmoid") and model in ("likelihood", "bayes")


def _fit_calibrators(method, model, classes, scores, y_encoded, sample_weight, temperature=None):
    """One calibrator for two classes, else one per class (one-vs-rest), fitted on held-out scores.

    ``temperature``: None for one-vs-rest, else whether the scores are
    probabilities (one temperature calibration of all classes' logits).
    """
    n_classes = classes.size
    if temperature is not None:
        from ._temperature import TemperatureCalibration, logits_of

        return [TemperatureCalibration().fit(logits_of(scores, temperature), y_encoded, sample_weight)]
    if n_classes == 2:
        return [_make_calibrator(method, model).fit(scores, y_encoded, sample_weight=sample_weight)]
    calibrators = []
    for c in range(n_classes):
        target = (y_encoded == c).astype(np.intp)
        if target.min() == target.max():
            raise ValueError(
                f"Class {classes[c]!r} is absent from (or alone in) a calibration set; "
                "use fewer folds or stratified folds so that every class appears in each."
            )
        calibrators.append(
            _make_calibrator(method, model).fit(scores[:, c], target, sample_weight=sample_weight)
        )
    return calibrators


def _check_calibration_folds(folds, y_encoded, classes):
    """Raise, naming the class and its count, when a held-out fold misses a class (its calibrator needs both)."""
    counts = np.bincount(y_encoded, minlength=classes.size)
    for _, test in folds:
        missing = np.setdiff1d(np.arange(classes.size), y_encoded[test])
        if missing.size:
            c = int(missing[0])
            if counts[c] < 2:
                raise ValueError(
                    f"Class {classes.tolist()[c]!r} has only {counts[c]} sample(s), so it cannot appear in every "
                    f"calibration fold of `cv` ({len(folds)} folds): the fitted estimator and each fold's "
                    "calibrators need every class. Add samples of that class (at least 2) or drop it."
                )
            raise ValueError(
                f"Class {classes.tolist()[c]!r} is absent from a calibration fold of `cv` ({len(folds)} folds; the class has "
                f"{counts[c]} sample(s)): every fold's calibrators need every class. Pass `cv` with at most "
                f"{int(counts.min())} folds, more samples of that class, or `ensemble=False`."
            )


def _check_training_folds(folds, y_encoded, classes):
    """Raise, naming the class, when a class is absent from the training part of a fold: the out-of-fold
    scores of its column there are filler values (the lowest float or 0), not scores to calibrate."""
    counts = np.bincount(y_encoded, minlength=classes.size)
    for train, _ in folds:
        missing = np.setdiff1d(np.arange(classes.size), y_encoded[train])
        if missing.size:
            c = int(missing[0])
            label = classes.tolist()[c]
            if counts[c] < 2:
                raise ValueError(
                    f"Class {label!r} has only {counts[c]} sample(s), so it is absent from the training part "
                    f"of a fold of `cv` ({len(folds)} folds), where its out-of-fold scores would be filler "
                    "values, not scores to calibrate. Add samples of that class (at least 2) or drop it."
                )
            raise ValueError(
                f"Class {label!r} is absent from the training part of a fold of `cv` ({len(folds)} folds; the "
                f"class has {counts[c]} samples), where its out-of-fold scores would be filler values. Pass "
                "stratified folds (an integer `cv` or StratifiedKFold) so that every class is in each."
            )


def _check_prefit_classes(estimator, classes):
    """Raise when a frozen estimator was trained on other classes than those of ``y``."""
    fitted_classes = getattr(estimator, "classes_", None)
    if fitted_classes is not None and not np.array_equal(np.asarray(fitted_classes), classes):
        raise ValueError(
            f"The frozen estimator's classes_ {np.asarray(fitted_classes).tolist()!r} differ from the classes "
            f"of `y` {classes.tolist()!r}: its score columns would be read as other classes. Calibrate it on "
            "labels of the classes it was trained on, or let EvidentialCalibratedClassifier fit it."
        )


def _fit_estimator(estimator, X, y, sample_weight):
    if sample_weight is None:
        return estimator.fit(X, y)
    return estimator.fit(X, y, sample_weight=sample_weight)


def _fit_fold(estimator, X, y, y_encoded, train, test, sample_weight, method, calibration, classes):
    """Fit a clone on the training rows and the calibrators on its scores of the test rows."""
    from sklearn.base import clone
    from sklearn.utils import _safe_indexing

    weights_train = None if sample_weight is None else sample_weight[train]
    weights_test = None if sample_weight is None else sample_weight[test]
    model = _fit_estimator(clone(estimator), _safe_indexing(X, train), y[train], weights_train)
    if not np.array_equal(np.asarray(model.classes_), classes):
        raise ValueError(
            "A training fold lacks some class; use fewer folds or stratified folds "
            "(cv=StratifiedKFold(...)) so that every class appears in each."
        )
    scores = _scores(model, _safe_indexing(X, test), method, classes.size)
    method_name, model_name, temperature = calibration
    calibrators = _fit_calibrators(
        method_name, model_name, classes, scores, y_encoded[test], weights_test, temperature
    )
    return model, calibrators


def _make_calibrator(method, model):
    if model != "likelihood" and (
        isinstance(method, BinaryCalibrator) or method in ("venn_abers", "venn_machine")
    ):
        shown = type(method).__name__ if isinstance(method, BinaryCalibrator) else repr(method)
        raise ValueError(
            f"`model` is used by the 'logistic', 'isotonic' and 'binning' methods only; method {shown} does not "
            f"use it (got model={model!r}). Drop `model`, or set the calibrator's own model on the instance."
        )
    if isinstance(method, BinaryCalibrator):
        from sklearn.base import clone

        return clone(method)
    if method in ("logistic", "sigmoid"):
        from ._logistic import LogisticCalibrator

        return LogisticCalibrator(model=model)
    if method == "isotonic":
        from ._isotonic import IsotonicCalibrator

        return IsotonicCalibrator(model=model)
    if method == "binning":
        from ._binning import BinningCalibrator

        return BinningCalibrator(model=model)
    if method == "venn_abers":
        from ._venn_abers import VennAbersCalibrator

        return VennAbersCalibrator()
    if method == "venn_machine":
        from ._venn_machine import VennMachineCalibrator

        return VennMachineCalibrator()
    raise ValueError(
        f"Unknown method {method!r}; choose one of {', '.join(map(repr, METHODS))} "
        "or pass a calibrator instance (e.g. BinningCalibrator(bins=[-3, -2, -1, 0, 1, 2, 3]))."
    )


def _score_method(estimator):
    if hasattr(estimator, "decision_function"):
        return "decision_function"
    if hasattr(estimator, "predict_proba"):
        return "predict_proba"
    raise ValueError(
        f"{type(estimator).__name__} has neither decision_function nor predict_proba; "
        "it cannot be calibrated."
    )


def _scores(estimator, X, method, n_classes):
    values = np.asarray(getattr(estimator, method)(X))
    if np.iscomplexobj(values):
        raise ValueError(
            f"The estimator's {method} returned complex values (dtype {values.dtype}); real scores are needed."
        )
    values = values.astype(np.float64)
    if n_classes == 2:
        if values.ndim == 2:
            values = values[:, -1] if values.shape[1] == 2 else values[:, 0]
        return values
    if values.ndim != 2 or values.shape[1] != n_classes:
        raise ValueError(
            f"The estimator's {method} returned shape {values.shape}; one column per class "
            f"({n_classes}) is needed for one-vs-rest calibration."
        )
    return values


class EvidentialCalibratedClassifier(MetaEstimatorMixin, MassClassifierMixin, BaseEstimator):
    """Calibrate a classifier's scores into mass functions (cf. scikit-learn's CalibratedClassifierCV).

    Parameters
    ----------
    estimator : classifier, default None
        The classifier whose scores are calibrated (``decision_function`` is
        used when it exists, else ``predict_proba``).  Default:
        ``sklearn.svm.LinearSVC()``.  Wrap a fitted classifier in
        ``sklearn.frozen.FrozenEstimator`` to calibrate it without refitting
        (then all of ``X, y`` given to :meth:`fit` is calibration data).
    method : str or calibrator, default "logistic"
        ``"logistic"`` (alias ``"sigmoid"``, :class:`LogisticCalibrator`),
        ``"isotonic"``, ``"binning"`` (10 equal-width bins), ``"venn_abers"``,
        ``"venn_machine"`` (6-SVM taxonomy), or a calibrator instance (cloned).
    model : str, default "likelihood"
        Mass model of the binning / isotonic / logistic calibrators
        (``"bayes"`` gives the probabilistic calibration).
    cv : int, cross-validation generator or iterable, default None
        Folds for a classifier that is not frozen (None: 5-fold stratified).
    ensemble : bool or "auto", default "auto"
        As in scikit-learn >= 1.6: True fits one (classifier, calibrator) pair
        per fold and averages their mass functions (for ``"venn_abers"`` this
        is the cross Venn-ABERS predictor with averaged intervals); False
        calibrates the out-of-fold scores of all folds once and refits the
        classifier on all data.  "auto" is False for a FrozenEstimator and
        True otherwise.
    rule : str, default "dempster"
        Rule combining the one-vs-rest masses of more than two classes.
    on_conflict : {"vacuous", "nan", "raise"}, default "vacuous"
        Samples whose one-vs-rest masses conflict totally under ``rule`` (every
        class is excluded by some calibrator): ``"vacuous"`` gives them the
        vacuous mass function (uniform ``predict_proba``, the first class
        from ``predict``), ``"nan"`` NaN outputs, ``"raise"`` a
        :class:`~dstk.exceptions.TotalConflictError`; the first two warn with
        the sample indices (see :func:`dstk.combine`).
    multiclass : {"auto", "temperature", "one_vs_rest"}, default "auto"
        More than two classes: ``"temperature"`` calibrates all classes at
        once by temperature scaling of the logits z (decision values, or
        ln(p + 1e-12) of ``predict_proba``), softmax(z / T), with a
        likelihood-based belief function on 1 / T (see Notes); it never
        changes the predicted class.  ``"one_vs_rest"`` calibrates each class
        against the rest with ``method`` and combines the masses by ``rule``.
        ``"auto"``: temperature for ``method="logistic"`` (its multinomial
        form) with model ``"likelihood"`` or ``"bayes"``, one-vs-rest
        otherwise.
    n_jobs : int, default None
        Folds fitted in parallel by :mod:`joblib` (None: one job, -1: all
        processors), as in scikit-learn.
    verbose : int, default 0
        0: silent; 1 or more: progress of the folds through :mod:`logging`
        (logger ``"dstk"``) and a :mod:`tqdm` bar when tqdm is installed.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    calibrated_classifiers_ : list of (estimator, list of calibrators)
        One pair per fold (or a single pair); one calibrator per class for
        more than two classes, one in total for two.
    frame_ : Frame
        The frame of the classes (``Frame(classes_)``).
    n_features_in_ : int
        Number of columns of ``X`` in fit (when ``X`` is 2-D).
    feature_names_in_ : ndarray of str
        Column names of ``X`` in fit, when it is a data frame with string
        column names; predicting on other or reordered columns raises.

    Raises
    ------
    ValueError
        Unknown method, a single class, an estimator without scores, a
        calibration fold lacking a class, plus the calibrators' own errors.

    Notes
    -----
    Two classes: the scores of the class ``classes_[1]`` are calibrated into a
    mass function on {classes_[0], classes_[1]} (Xu et al. 2016, Section 4:
    Eqs. 24-32 per bin or isotonic block, Eqs. 33-40 for the logistic
    model; the Venn predictors' intervals are read as Bel and Pl).  More
    classes, ``multiclass="temperature"``: p(a) = softmax(a z) with the
    inverse temperature a = 1 / T >= 0 (Guo et al. 2017, Eq. 9); the
    relative likelihood pl(a) = L(a) / L(a_hat) of the calibration labels is
    a consonant belief function on a (Denoeux 2014, Eq. 11), and the
    predictive mass generalises Xu et al.'s (Eqs. 22-23):
    m({c}) = int_0^1 min {p_c(a) : pl(a) >= g} dg, m(frame) = 1 - sum_c m({c})
    (for two classes exactly Xu et al.'s construction).  Model ``"bayes"``
    gives the Bayesian mass softmax(a_hat z).  More classes,
    ``multiclass="one_vs_rest"``: the binary mass of class c is refined to
    the full frame (m({c}), m(not c), m(frame)) and the C refined masses are
    combined by ``rule``, Dempster's by default
    (:func:`~dstk.calibration.one_vs_rest_masses`).

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. IJAR 72, 55-70.
    Guo, C., Pleiss, G., Sun, Y. and Weinberger, K. Q. (2017). On
    calibration of modern neural networks. ICML 2017.
    Denoeux, T. (2014). Likelihood-based belief function: justification and
    some extensions to low-quality data. IJAR 55(7), 1535-1547.
    Zadrozny, B. and Elkan, C. (2002). Transforming classifier scores into
    accurate multiclass probability estimates. KDD.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> base = make_pipeline(StandardScaler(), LogisticRegression())
    >>> clf = EvidentialCalibratedClassifier(base, method="isotonic", cv=3).fit(X[::3], y[::3])
    >>> bel, pl = clf.predict_interval(X[1::3][:4])
    >>> bool(np.all(bel <= pl))
    True
    """

    _estimator_type = "classifier"

    def __init__(
        self,
        estimator: Any = None,
        *,
        method: str | BinaryCalibrator = "logistic",
        model: str = "likelihood",
        cv: Any = None,
        ensemble: str | bool = "auto",
        rule: str = "dempster",
        on_conflict: str = "vacuous",
        multiclass: str = "auto",
        n_jobs: int | None = None,
        verbose: int = 0,
    ) -> None:
        self.estimator = estimator
        self.method = method
        self.model = model
        self.cv = cv
        self.ensemble = ensemble
        self.rule = rule
        self.on_conflict = on_conflict
        self.multiclass = multiclass
        self.n_jobs = n_jobs
        self.verbose = verbose

    def __sklearn_tags__(self):
        """scikit-learn tags: sparse input when the wrapped estimator (default LinearSVC) takes it."""
        tags = super().__sklearn_tags__()
        if self.estimator is None:
            tags.input_tags.sparse = True  # LinearSVC
        return tags

    # -- fitting -------------------------------------------------------------------

    def fit(self, X: Any, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the classifier(s) and calibrators.

        Parameters
        ----------
        X : array_like or data frame of shape (n_samples, n_features)
            Training samples (for a prefit ``FrozenEstimator``: the calibration
            set), in any format the wrapped estimator accepts (arrays, sparse
            matrices, pandas data frames; rows are selected with
            :func:`sklearn.utils._safe_indexing`).
        y : array_like of shape (n_samples,)
            Class labels.
        sample_weight : array_like of shape (n_samples,), optional
            Passed on to the wrapped estimator's ``fit`` (its training rows) and
            to the calibrators (their calibration rows), where they are
            whole-number frequency weights.

        Returns
        -------
        EvidentialCalibratedClassifier
            ``self``, fitted.

        Raises
        ------
        ValueError
            Unknown ``method``/``model``/``ensemble``/``rule``/``on_conflict``, ``model``
            given to a method that does not use it, ``X`` and
            ``y`` of different lengths, a class absent from a training or
            calibration fold, a frozen estimator trained on other classes
            than those of ``y``, or ``sample_weight`` with an estimator whose
            ``fit`` does not take it.
        """
        from sklearn.base import clone
        from sklearn.model_selection import check_cv, cross_val_predict
        from sklearn.utils.validation import has_fit_parameter

        from ..core._combination import RULES, check_on_conflict

        try:
            from sklearn.frozen import FrozenEstimator
        except ImportError:  # pragma: no cover - scikit-learn < 1.6
            FrozenEstimator = ()
        if self.ensemble not in ("auto", True, False):
            raise ValueError(f"`ensemble` must be 'auto', True or False; got {self.ensemble!r}.")
        check_on_conflict(self.on_conflict)
        check_option(
            self.rule, "rule", sorted(RULES)
        )  # also where the temperature calibration leaves it unused
        if self.multiclass not in _MULTICLASS:
            raise ValueError(
                f"`multiclass` must be one of {', '.join(map(repr, _MULTICLASS))}; got {self.multiclass!r}."
            )
        if self.multiclass == "temperature" and self.model not in ("likelihood", "bayes"):
            raise ValueError(
                f"multiclass='temperature' takes model='likelihood' or 'bayes'; got model={self.model!r}. "
                "Use multiclass='one_vs_rest' for the other mass models."
            )
        if not isinstance(self.method, BinaryCalibrator):
            _make_calibrator(self.method, self.model)  # validates method early
        X = check_meta_X(X)
        classes, y_encoded = check_labels(y, "y")
        y = np.asarray(y)
        if y.ndim == 2:
            y = y[:, 0]
        n_classes = classes.size
        estimator = self.estimator
        if estimator is None:
            from sklearn.svm import LinearSVC

            estimator = LinearSVC()
        if n_samples_of(X) != len(y):
            raise ValueError(f"`X` has {n_samples_of(X)} samples but `y` has {len(y)}; they must be equal.")
        weights = check_sample_weight(sample_weight, len(y))
        prefit = isinstance(estimator, FrozenEstimator) if FrozenEstimator != () else False
        if weights is not None and not prefit and not has_fit_parameter(estimator, "sample_weight"):
            raise ValueError(
                f"`sample_weight` was given but {type(estimator).__name__}.fit does not take sample_weight; "
                "use an estimator that does, or wrap a fitted one in sklearn.frozen.FrozenEstimator so that "
                "the weights go to the calibrators only."
            )
        ensemble = (not prefit) if self.ensemble == "auto" else bool(self.ensemble)
        method = _score_method(estimator)
        temperature = (
            (method == "predict_proba")
            if _uses_temperature(self.multiclass, self.method, self.model, n_classes)
            else None
        )
        calibration: tuple[Any, str, bool | None] = (self.method, self.model, temperature)
        pairs = []
        if prefit:
            _check_prefit_classes(estimator, classes)
            scores = _scores(estimator, X, method, n_classes)
            pairs.append(
                (
                    estimator,
                    _fit_calibrators(
                        self.method, self.model, classes, scores, y_encoded, weights, temperature
                    ),
                )
            )
        else:
            # split on the encoded labels: stratified for every label type (object-dtype integers included)
            splitter = check_cv(5 if self.cv is None else self.cv, y_encoded, classifier=True)
            folds = list(splitter.split(X, y_encoded))
            if ensemble:
                _check_calibration_folds(folds, y_encoded, classes)
                from joblib import Parallel, delayed

                jobs = (
                    delayed(_fit_fold)(
                        estimator, X, y, y_encoded, train, test, weights, method, calibration, classes
                    )
                    for train, test in folds
                )
                results = Parallel(n_jobs=self.n_jobs, return_as="generator")(jobs)
                for pair in progress(
                    results, total=len(folds), verbose=self.verbose, description="calibrated folds"
                ):
                    pairs.append(pair)
            else:
                _check_training_folds(folds, y_encoded, classes)
                params = {} if weights is None else {"sample_weight": weights}
                scores = cross_val_predict(
                    clone(estimator), X, y, cv=folds, method=method, n_jobs=self.n_jobs, params=params
                )
                scores = np.asarray(scores, dtype=np.float64)
                if n_classes == 2 and scores.ndim == 2:
                    scores = scores[:, -1]
                calibrators = _fit_calibrators(
                    self.method, self.model, classes, scores, y_encoded, weights, temperature
                )
                model = _fit_estimator(clone(estimator), X, y, weights)
                pairs.append((model, calibrators))
        self.classes_ = classes
        self.calibrated_classifiers_ = pairs
        self._score_method = method
        self._temperature = temperature
        validate_features(self, X, reset=True)
        from ..core._frame import Frame

        self.frame_ = Frame(tuple(classes.tolist()))
        return self

    # -- outputs -------------------------------------------------------------------------

    def _predict_mass_array(self, X: Any) -> np.ndarray:
        """Dense masses on ``frame_``, averaged over the fold classifiers.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Samples, in the format the wrapped estimator accepts.

        Returns
        -------
        ndarray of shape (n_samples, 2**n_classes)
            Dense mass arrays in the bit order of ``frame_`` (index 0 is the
            empty set); the average over ``calibrated_classifiers_``.
        """
        check_is_fitted(self, "calibrated_classifiers_")
        X = check_meta_X(X)
        validate_features(self, X, reset=False)
        n_classes = self.classes_.size
        total: np.ndarray | None = None
        for model, calibrators in self.calibrated_classifiers_:
            scores = _scores(model, X, self._score_method, n_classes)
            if getattr(self, "_temperature", None) is not None:
                masses = self._temperature_masses(calibrators[0], scores)
            elif n_classes == 2:
                masses = calibrators[0]._predict_mass_array(scores)
            else:
                from ._one_vs_rest import one_vs_rest_masses

                binary = np.stack(
                    [cal._predict_mass_array(scores[:, c]) for c, cal in enumerate(calibrators)], axis=1
                )
                masses = one_vs_rest_masses(
                    binary,
                    classes=tuple(self.classes_.tolist()),
                    rule=self.rule,
                    on_conflict=self.on_conflict,
                ).to_array("m")
            total = masses if total is None else total + masses
        assert total is not None  # fit stores at least one (classifier, calibrators) pair
        return total / len(self.calibrated_classifiers_)

    def _temperature_masses(self, calibration, scores):
        """Dense masses of the temperature calibration: singletons and frame (model "likelihood"), or the
        Bayesian mass of softmax(a_hat z) (model "bayes")."""
        from ._temperature import logits_of

        logits = logits_of(scores, bool(self._temperature))
        if self.model == "bayes":
            singletons, frame = calibration.proba(logits), np.zeros(logits.shape[0])
        else:
            singletons = calibration.singleton_masses(logits)
            frame = np.clip(1.0 - singletons.sum(axis=1), 0.0, 1.0)
        masses = np.zeros((logits.shape[0], 2 ** logits.shape[1]))
        masses[:, 1 << np.arange(logits.shape[1])] = singletons
        masses[:, -1] = frame
        return masses

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Samples, in the format the wrapped estimator accepts.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            With the temperature calibration of more than two classes, the
            probabilities at the maximum-likelihood temperature,
            softmax(z / T_hat), averaged over the fold classifiers: the point
            of plausibility one of the belief function on the temperature,
            and a member of the credal set of :meth:`predict_mass`
            (Bel({c}) <= p_c <= Pl({c})).  Otherwise the pignistic
            probabilities of :meth:`predict_mass`.
        """
        check_is_fitted(self, "calibrated_classifiers_")
        if getattr(self, "_temperature", None) is None:
            return super().predict_proba(X)
        from ._temperature import logits_of

        X = check_meta_X(X)
        validate_features(self, X, reset=False)
        total = np.zeros((n_samples_of(X), self.classes_.size))
        for model, calibrators in self.calibrated_classifiers_:
            scores = _scores(model, X, self._score_method, self.classes_.size)
            total += calibrators[0].proba(logits_of(scores, bool(self._temperature)))
        return total / len(self.calibrated_classifiers_)

    def predict_mass(self, X: Any) -> MassFunction:
        """Mass functions on ``Frame(classes_)``, one per sample.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Samples, in the format the wrapped estimator accepts.

        Returns
        -------
        MassFunction
            Batch shape ``(n_samples,)`` on ``frame_``.
        """
        from ..core._mass import MassFunction

        return MassFunction.from_array(self._predict_mass_array(X), self.frame_, kind="m", validate=False)
