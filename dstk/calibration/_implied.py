"""Implied posterior probabilities from a family of re-weighted classifiers (Nalbantov & Ivanov).

A binary classifier trained with class weights ``(w_-, w_+)`` places its
boundary where the posterior of the positive class equals
``w_- / (w_+ + w_-)`` (for penalties ``z_+ C`` and ``z_- C``: the level
``z_- / (z_+ + z_-)``).  Training M such classifiers at uniformly spaced levels
and counting, for a point ``x``, the fraction that vote positive estimates
``P(+ | x)`` without any parametric link between score and probability.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._estimator import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    check_is_fitted,
    check_meta_X,
    check_sample_weight,
    n_samples_of,
    validate_features,
)
from .._validation import as_float_array, check_binary_labels, check_random_state

if TYPE_CHECKING:
    from typing_extensions import Self

    from ..core._mass import MassFunction

__all__ = ["ImpliedPosteriorClassifier", "implied_weights", "vote_fraction"]


def implied_weights(
    levels: ArrayLike, n_positive: int, n_negative: int, *, convention: str = "equal_effective"
) -> tuple[np.ndarray, np.ndarray]:
    """Penalty factors ``(z_+, z_-)`` whose boundaries sit at the given posterior levels.

    Parameters
    ----------
    levels : array_like of shape (M,)
        Implied posterior levels ``lambda`` in ``(0, 1)``: the boundary of a
        model is where ``P(+ | x) = lambda`` (under the training class priors).
    n_positive, n_negative : int
        Class counts ``n_+``, ``n_-``.
    convention : {"equal_effective", "fixed_total"}, default="equal_effective"
        ``"equal_effective"``: ``z_+ = 1 - lambda`` and ``z_- = lambda`` (the
        paper's recommendation, end of Sec. 3, for ``C_+ = C_-``).
        ``"fixed_total"``: keep the effective total ``z_+ n_+ + z_- n_-`` equal
        to the base ``0.5 (n_+ + n_-)`` with ``z_- = 0.5 + (0.5 - z_+) n_+/n_-``
        (Sec. 2) and solve ``lambda = z_- / (z_+ + z_-)`` for ``z_+``:
        ``z_+ = (1 - lambda)(1 + r) / (2 (lambda + (1 - lambda) r))``, ``r = n_+/n_-``.

    Returns
    -------
    z_positive, z_negative : ndarray of shape (M,)
        Both positive; the base model has ``z_+ = z_- = 0.5``.

    Raises
    ------
    ValueError
        On levels outside ``(0, 1)``, non-positive counts or an unknown
        convention.

    Notes
    -----
    Nalbantov & Ivanov, Sec. 2, Eq. (12), with the label direction corrected
    (with Bayes' rule written the standard way): the boundary of the ``(z_+ C, z_- C)``-weighted
    classifier is where the base-prior posterior equals ``z_- / (z_+ + z_-)``,
    i.e. ``1 - z_+`` in the equal-effective case, not ``z_+`` as printed.
    The inversion of Eq. (12) for uniform levels is dstk's.

    References
    ----------
    G. Nalbantov, S. Ivanov, Tutorial on implied posterior probability for
    SVMs (technical note); the method is Nalbantov & Ivanov (2019).

    Examples
    --------
    >>> zp, zn = implied_weights([0.25, 0.5], 10, 10)
    >>> zp.tolist(), zn.tolist()
    ([0.75, 0.5], [0.25, 0.5])
    """
    lam = as_float_array(levels, "levels")
    if lam.ndim != 1 or lam.size == 0 or not np.all((lam > 0) & (lam < 1)):
        raise ValueError("`levels` must be a non-empty 1-D array of values strictly inside (0, 1).")
    if n_positive <= 0 or n_negative <= 0:
        raise ValueError(
            f"Both classes need at least one sample; got n_positive={n_positive}, n_negative={n_negative}."
        )
    if convention == "equal_effective":
        return 1.0 - lam, lam.copy()
    if convention == "fixed_total":
        r = n_positive / n_negative
        zp = (1.0 - lam) * (1.0 + r) / (2.0 * (lam + (1.0 - lam) * r))
        zn = 0.5 + (0.5 - zp) * r
        return zp, zn
    raise ValueError(f"`convention` must be 'equal_effective' or 'fixed_total'; got {convention!r}.")


def vote_fraction(votes: ArrayLike) -> np.ndarray:
    """Implied posterior ``(sum of votes + 1) / (M + 2)`` with the two fictitious end models (Eq. 13).

    Parameters
    ----------
    votes : array_like of shape (N, M)
        ``cl(h, x)`` of the M real models: 1 positive, 0 negative, 0.5 on the
        boundary.

    Returns
    -------
    ndarray of shape (N,)
        Values in ``[1/(M+2), (M+1)/(M+2)]``.

    Raises
    ------
    ValueError
        If ``votes`` is not 2-D with at least one model, or holds values
        other than 0, 0.5 and 1.

    Notes
    -----
    Nalbantov & Ivanov, Sec. 3, Eq. (13): the average vote over the M real
    models and the all-positive (``z_+ = 1``) and all-negative (``z_+ = 0``)
    fictitious models.

    References
    ----------
    G. Nalbantov, S. Ivanov, Tutorial on implied posterior probability for
    SVMs (technical note); the method is Nalbantov & Ivanov (2019).

    Examples
    --------
    Worked examples of Sec. 4 (nine real hyperplanes):

    >>> vote_fraction([[0, 0, 0, 0, 1, 0, 0, 1, 1], [0, 0, 0, 0, 0, 0, 0, 1, 1]]).tolist() == [4 / 11, 3 / 11]
    True
    """
    v = as_float_array(votes, "votes")
    if v.ndim != 2 or v.shape[1] == 0:
        raise ValueError(f"`votes` must have shape (n_samples, n_models >= 1); got {v.shape}.")
    if not np.all(np.isin(v, (0.0, 0.5, 1.0))):
        raise ValueError("`votes` must hold 0 (negative), 1 (positive) or 0.5 (on the boundary).")
    return (v.sum(axis=1) + 1.0) / (v.shape[1] + 2.0)


class ImpliedPosteriorClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Implied posterior probability (IPP) meta-estimator over a class-weightable binary classifier.

    Parameters
    ----------
    estimator : classifier
        A scikit-learn-style binary classifier accepting ``class_weight`` (as
        :class:`sklearn.svm.SVC`) or ``sample_weight`` in ``fit``.  The model
        at level 0.5 (weights 1 and 1) is the estimator itself.
    n_models : int, default=99
        M real models at the levels ``j / (M + 1)``, ``j = 1..M`` (the paper
        suggests 99; its German-credit run uses a 0.005 step, ``M = 199``).
    convention : {"equal_effective", "fixed_total"}, default="equal_effective"
        Weight schedule, see :func:`implied_weights`.
    weighting : {"auto", "class_weight", "sample_weight", "resample"}, default="auto"
        How weights reach the estimator (``"auto"``: ``class_weight`` if the
        estimator has that parameter, else ``sample_weight`` if its ``fit``
        takes it, else ``"resample"``, e.g. for a Pipeline).  Weights are
        ``2 z_+`` for positives and ``2 z_-`` for negatives, multiplying any
        class weights given as a dict in the estimator.  ``"resample"`` is the
        paper's fallback for learners without weights: each model is fitted
        on ``N`` rows drawn with replacement with probabilities proportional
        to the weights (random, see ``random_state``).
    isotonic : bool, default=False
        Post-calibrate the vote fraction by isotonic regression fitted on the
        training votes (use :meth:`calibrate` with held-out data instead to
        avoid in-sample optimism).
    random_state : int, RandomState or None
        Only used by ``weighting="resample"``.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    levels_ : ndarray of shape (M,)
        Implied posterior levels of the real models.
    positive_weights_, negative_weights_ : ndarray of shape (M,)
        ``z_+`` and ``z_-``.
    estimators_ : list of M fitted classifiers
    isotonic_ : IsotonicRegressionCalibrator or None

    Notes
    -----
    Nalbantov & Ivanov, *Tutorial on implied posterior probability for
    SVMs*, Sec. 1-3: keep the effective total fixed while re-weighting, add
    the two fictitious end models, and estimate ``P(+ | x)`` by the vote
    fraction (Eq. 13), ties (``x`` on a boundary) counting one half.  The
    estimate need not be monotone in the base model's score and does not
    depend on the score scale.  The label direction follows the corrected
    reading (see :func:`implied_weights`): the model with ``z_+ > 0.5`` has its
    boundary at a posterior level below 0.5.

    References
    ----------
    G. Nalbantov, S. Ivanov, Tutorial on implied posterior probability for
    SVMs (technical note).

    Examples
    --------
    >>> from sklearn.svm import SVC
    >>> from sklearn.datasets import make_classification
    >>> X, y = make_classification(n_samples=80, n_features=4, random_state=0)
    >>> ipp = ImpliedPosteriorClassifier(SVC(kernel="linear", C=1.0), n_models=9).fit(X, y)
    >>> p = ipp.predict_proba(X[:3])
    >>> p.shape, bool(np.all((p > 0) & (p < 1)))
    ((3, 2), True)
    """

    _estimator_type = "classifier"

    def __init__(
        self,
        estimator: Any,
        *,
        n_models: int = 99,
        convention: str = "equal_effective",
        weighting: str = "auto",
        isotonic: bool = False,
        random_state: int | np.random.RandomState | None = None,
    ):
        self.estimator = estimator
        self.n_models = n_models
        self.convention = convention
        self.weighting = weighting
        self.isotonic = isotonic
        self.random_state = random_state

    def _weighting(self):
        if self.weighting == "auto":
            has = hasattr(self.estimator, "get_params") and "class_weight" in self.estimator.get_params(
                deep=False
            )
            if has:
                return "class_weight"
            from sklearn.utils.validation import has_fit_parameter

            # a learner whose fit takes no sample_weight (e.g. a Pipeline): the paper's resampling
            return "sample_weight" if has_fit_parameter(self.estimator, "sample_weight") else "resample"
        if self.weighting not in ("class_weight", "sample_weight", "resample"):
            raise ValueError(
                f"`weighting` must be 'auto', 'class_weight', 'sample_weight' or 'resample'; got {self.weighting!r}."
            )
        return self.weighting

    def __sklearn_tags__(self):
        """scikit-learn tags: a binary classifier."""
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X: Any, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the M re-weighted models.

        Parameters
        ----------
        X : array_like of shape (N, p)
            Training inputs.
        y : array_like of shape (N,)
            Two classes; the larger label is the positive class.
        sample_weight : array_like of shape (N,), optional
            Weights of the samples, multiplying the IPP weights of every level
            (passed as ``sample_weight`` to the estimator's ``fit``, or as
            resampling probabilities with ``weighting="resample"``).

        Returns
        -------
        ImpliedPosteriorClassifier
            ``self``, fitted.

        Raises
        ------
        ValueError
            On a bad ``n_models``, mismatched lengths, labels that are not
            binary, or an estimator ``class_weight`` string that would
            override the schedule.
        """
        from .._estimator import clone_estimator
        from .probabilistic._isotonic import IsotonicRegressionCalibrator

        M = self.n_models
        if not isinstance(M, (int, np.integer)) or isinstance(M, bool) or M < 1:
            raise ValueError(f"`n_models` must be a positive integer; got {M!r}.")
        from sklearn.utils import _safe_indexing

        X = check_meta_X(X)
        classes, y01 = check_binary_labels(y)
        y = np.asarray(y)
        if y.ndim == 2:
            y = y[:, 0]
        if n_samples_of(X) != y01.shape[0]:
            raise ValueError(f"`X` has {n_samples_of(X)} rows but `y` has {y01.shape[0]} labels.")
        user_weights = check_sample_weight(sample_weight, y01.shape[0])
        n_pos = int(y01.sum())
        n_neg = y01.size - n_pos
        levels = np.arange(1, M + 1) / (M + 1.0)
        zp, zn = implied_weights(levels, n_pos, n_neg, convention=self.convention)
        mode = self._weighting()
        base_weights = {}
        if mode == "class_weight":
            current = self.estimator.get_params(deep=False).get("class_weight")
            if isinstance(current, str):
                raise ValueError(
                    f"The estimator's class_weight={current!r} would override the IPP schedule; set it to None "
                    "or a dict."
                )
            base_weights = dict(current) if current else {}
        rng = check_random_state(self.random_state)
        self.estimators_ = []
        for j in range(M):
            model = clone_estimator(self.estimator)
            w_pos, w_neg = 2.0 * zp[j], 2.0 * zn[j]
            if mode == "class_weight":
                weights = {
                    classes[0]: w_neg * base_weights.get(classes[0], 1.0),
                    classes[1]: w_pos * base_weights.get(classes[1], 1.0),
                }
                model.set_params(class_weight=weights)
                if user_weights is None:
                    model.fit(X, y)
                else:
                    model.fit(X, y, sample_weight=user_weights)
            elif mode == "sample_weight":
                weights = np.where(y01 == 1, w_pos, w_neg)
                model.fit(X, y, sample_weight=weights if user_weights is None else weights * user_weights)
            else:
                weights = np.where(y01 == 1, w_pos, w_neg)
                if user_weights is not None:
                    weights = weights * user_weights
                rows = rng.choice(y01.size, size=y01.size, replace=True, p=weights / weights.sum())
                if np.unique(y01[rows]).size < 2:  # keep both classes in every resample
                    rows[:2] = [np.flatnonzero(y01 == 0)[0], np.flatnonzero(y01 == 1)[0]]
                model.fit(_safe_indexing(X, rows), y[rows])
            self.estimators_.append(model)
        self.classes_ = classes
        self.levels_ = levels
        self.positive_weights_, self.negative_weights_ = zp, zn
        self.isotonic_ = None
        validate_features(self, X, reset=True)
        if self.isotonic:
            self.isotonic_ = IsotonicRegressionCalibrator().fit(self._raw_positive(X), y01)
        return self

    def predict_votes(self, X: Any) -> np.ndarray:
        """Votes ``cl(h_j, x)`` of the real models, shape ``(N, M)``: 1, 0, or 0.5 on the boundary.

        Parameters
        ----------
        X : array_like of shape (N, p)
            Inputs accepted by the fitted estimators.

        Returns
        -------
        ndarray of shape (N, M)
            Column ``j`` is the vote of the model at level ``levels_[j]``.
        """
        check_is_fitted(self, "estimators_")
        X = check_meta_X(X)
        validate_features(self, X, reset=False)
        votes = []
        for model in self.estimators_:
            if hasattr(model, "decision_function"):
                d = np.asarray(model.decision_function(X), dtype=np.float64).ravel()
                votes.append(np.where(d > 0, 1.0, np.where(d < 0, 0.0, 0.5)))
            else:
                pred = np.asarray(model.predict(X))
                votes.append((pred == self.classes_[1]).astype(np.float64))
        return np.column_stack(votes)

    def _raw_positive(self, X):
        return vote_fraction(self.predict_votes(X))

    def calibrate(self, X: Any, y: ArrayLike) -> Self:
        """Fit the isotonic post-calibration on held-out data.

        Parameters
        ----------
        X : array_like of shape (N, p)
            Inputs accepted by the fitted estimators.
        y : array_like of shape (N,)
            Labels with the same two classes as in :meth:`fit`.

        Returns
        -------
        ImpliedPosteriorClassifier
            ``self``, with ``isotonic_`` refitted on ``(X, y)``.
        """
        from .probabilistic._isotonic import IsotonicRegressionCalibrator

        check_is_fitted(self, "estimators_")
        classes, y01 = check_binary_labels(y)
        if not np.array_equal(classes, self.classes_):
            raise ValueError(
                f"`y` has classes {classes.tolist()}, but the model was fitted on {self.classes_.tolist()}."
            )
        self.isotonic_ = IsotonicRegressionCalibrator().fit(self._raw_positive(X), y01)
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Implied posterior probabilities, shape ``(N, 2)`` (column 1 = ``classes_[1]``).

        Parameters
        ----------
        X : array_like of shape (N, p)
            Inputs accepted by the fitted estimators.

        Returns
        -------
        ndarray of shape (N, 2)
            The vote fraction (Eq. 13), isotonically post-calibrated when
            ``isotonic_`` is set.
        """
        p = self._raw_positive(X)
        if self.isotonic_ is not None:
            p = self.isotonic_.predict_proba(p)[:, 1]
        return np.column_stack([1.0 - p, p])

    def predict(self, X: Any) -> np.ndarray:
        """Class with implied posterior above 0.5 (``classes_[0]`` on a tie).

        Parameters
        ----------
        X : array_like of shape (N, p)
            Inputs accepted by the fitted estimators.

        Returns
        -------
        ndarray of shape (N,)
            Labels from ``classes_``.
        """
        p = self.predict_proba(X)[:, 1]
        return self.classes_[(p > 0.5).astype(np.intp)]

    def decision_function(self, X: Any) -> np.ndarray:
        """The (uncalibrated) vote fraction minus 0.5, shape ``(N,)``.

        Parameters
        ----------
        X : array_like of shape (N, p)
            Inputs accepted by the fitted estimators.

        Returns
        -------
        ndarray of shape (N,)
            Positive values favour ``classes_[1]``.
        """
        return self._raw_positive(X) - 0.5

    def predict_interval(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """Interval of implied levels consistent with the votes (dstk's own extension).

        Parameters
        ----------
        X : array_like of shape (N, p)
            Inputs accepted by the fitted estimators.

        Returns
        -------
        lower, upper : ndarray of shape (N,)
            With ``a`` the highest level whose model votes positive (0 for
            the fictitious all-positive model) and ``b`` the lowest level
            whose model votes negative (1 for the fictitious all-negative
            model), the interval is the hull of ``a``, ``b`` and the vote
            fraction.  Without degeneracy ``a < b`` are adjacent grid levels
            and the interval is ``[k/(M+1), (k+1)/(M+1)]`` (the grid's
            resolution); crossing boundaries (degeneracy, Sec. 3) widen it
            to the whole range of conflicting levels.  A boundary vote (0.5)
            counts on both sides.  Not in Nalbantov & Ivanov.
        """
        votes = self.predict_votes(X)
        levels = self.levels_
        pos = np.where(votes > 0, levels, 0.0).max(axis=1)
        neg = np.where(votes < 1, levels, 1.0).min(axis=1)
        v = vote_fraction(votes)
        lower = np.minimum(np.minimum(pos, neg), v)
        upper = np.maximum(np.maximum(pos, neg), v)
        return lower, upper

    def predict_mass(self, X: Any) -> MassFunction:
        """Binary mass functions from :meth:`predict_interval` (dstk's own extension).

        Parameters
        ----------
        X : array_like of shape (N, p)
            Inputs accepted by the fitted estimators.

        Returns
        -------
        MassFunction of batch shape (N,)
            On ``Frame(classes_)``: ``m({classes_[1]}) = lower``,
            ``m({classes_[0]}) = 1 - upper``, ``m(frame) = upper - lower``.
        """
        from .probabilistic._base import interval_to_mass

        lower, upper = self.predict_interval(X)
        return interval_to_mass(lower, upper, self.classes_)
