"""A trained combiner of classifiers: contextual discounting learned on a validation set (Mercier et al. 2008)."""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..core._combination import RULES, combine
from ..core._dense import check_dense_size
from ..core._frame import Frame
from ..core._mass import MassFunction
from ..core._transforms import contextual_discount
from ..evidence._contextual import joint_contextual_rates, separate_contextual_rates
from ._base import EvidentialClassifierBase, require_sklearn, validate_features, validate_targets

__all__ = ["ContextualDiscountingCombiner"]

_TRAININGS = ("separate", "joint")
_CONFLICT_POLICIES = ("raise", "vacuous", "nan")


class ContextualDiscountingCombiner(EvidentialClassifierBase):
    """Combine classifiers after contextual discounting learned on a validation set (deprecated).

    .. deprecated:: 0.3.0
        Use :class:`dstk.calibration.EvidentialFusionClassifier` with
        ``training="plausibility_error"`` (the same rates, learned on cross-fitted outputs), with the
        classifiers wrapped in :class:`sklearn.frozen.FrozenEstimator` for ``prefit=True``.  This class
        will be removed in 0.4.

    Each classifier's output (its ``predict_mass``, or its ``predict_proba`` as a Bayesian mass function)
    is contextually discounted — one discount rate ``alpha_sk`` per classifier ``s`` and class ``k``, the
    classifier's unreliability when the truth is class ``k`` — and the discounted outputs are combined by
    ``rule``.  The rates minimise the squared error between the discounted plausibilities of the classes
    and the class indicators on validation data: per classifier in closed form (Mercier, Quost & Denoeux
    2008, the E_pl criterion of their Eq. 33), or jointly on the conjunctive combination.

    Parameters
    ----------
    estimators : list of (str, estimator) or list of estimators
        Classifiers with ``predict_proba`` or ``predict_mass``.
    rule : str, default="dempster"
        Combination rule of the discounted outputs, any of ``dstk.RULES``.
    training : {"separate", "joint"}, default="separate"
        ``"separate"``: each classifier's rates from its own plausibility error, in closed form (the
        paper's solution).  ``"joint"``: all rates at once on the plausibility error of the combination
        (starting from the separate rates).
    prefit : bool, default=False
        ``True``: the estimators are already fitted and all of ``(X, y)`` in ``fit`` is the validation set.
        ``False``: ``fit`` fits clones of the estimators on a stratified part of ``(X, y)`` and learns the
        rates on the remaining ``validation_fraction``.
    validation_fraction : float, default=0.3
        Share of the samples held out to learn the rates when ``prefit=False``.
    on_conflict : {"vacuous", "raise", "nan"}, default="vacuous"
        Samples whose discounted outputs are in total conflict under Dempster's rule: give them the
        vacuous mass function (and warn with their indices), raise, or give them NaN masses.
    random_state : int, RandomState or None, default=None
        Seeds the train/validation split (``prefit=False``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    estimators_ : list of fitted estimators
    rates_ : ndarray of shape (n_estimators, n_classes)
        The contextual discount rates (0: fully reliable, 1: ignored) in the convention of
        :func:`dstk.core.contextual_discount`.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.

    Notes
    -----
    Contextual discounting with rates ``alpha_k`` turns the contour ``pl({w_k})`` into
    ``pl({w_k}) + alpha_k (1 - pl({w_k}))`` (Mercier, Quost & Denoeux 2008), linear in the rates, so the
    plausibility criterion ``sum_i sum_k (pl'_i({w_k}) - delta_ik)^2`` has the closed-form minimiser of
    ``alpha_k = sum_i (1 - pl_ik)(delta_ik - pl_ik) / sum_i (1 - pl_ik)^2`` (clipped to [0, 1]) for each
    classifier: the bounded least-squares problem of Mercier, Quost & Denoeux (2008), Eq. 33 (Pichon et
    al. 2016, Eq. 47, in terms of ``beta_k = 1 - alpha_k``).  The combination of conjunctively combined
    sources has the product of their contours as contour; ``training="joint"`` minimises the criterion of
    that product over all rates in [0, 1] (L-BFGS-B with the analytic gradient).

    References
    ----------
    D. Mercier, B. Quost & T. Denoeux (2008). Refined modeling of sensor reliability in the belief function
    framework using contextual discounting. Information Fusion 9(2), 246-258.
    F. Pichon, D. Mercier, E. Lefevre & F. Delmotte (2016). Proposition and learning of some belief function
    contextual correction mechanisms. IJAR 72, 4-42.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from dstk.classifiers import ContextualDiscountingCombiner
    >>> X, y = load_iris(return_X_y=True)
    >>> combiner = ContextualDiscountingCombiner([LogisticRegression(max_iter=500), GaussianNB()],
    ...                                          random_state=0).fit(X, y)
    >>> combiner.rates_.shape
    (2, 3)
    """

    def __init__(
        self,
        estimators: Any,
        *,
        rule: str = "dempster",
        training: str = "separate",
        prefit: bool = False,
        validation_fraction: float = 0.3,
        on_conflict: str = "vacuous",
        random_state: Any = None,
    ) -> None:
        self.estimators = estimators
        self.rule = rule
        self.training = training
        self.prefit = prefit
        self.validation_fraction = validation_fraction
        self.on_conflict = on_conflict
        self.random_state = random_state

    def _estimator_list(self):
        if (
            self.estimators is None
            or isinstance(self.estimators, (str, bytes))
            or not hasattr(self.estimators, "__len__")
            or hasattr(self.estimators, "fit")  # one classifier, not a list of them
            or len(self.estimators) == 0
        ):
            raise ValueError(
                "`estimators` must be a non-empty list of classifiers (or of (name, classifier) pairs); "
                f"got {self.estimators!r}."
            )
        out = []
        for item in self.estimators:
            estimator = item[1] if isinstance(item, tuple) else item
            if not (hasattr(estimator, "predict_proba") or hasattr(estimator, "predict_mass")):
                raise ValueError(
                    f"Every estimator needs predict_proba or predict_mass; {type(estimator).__name__} has neither."
                )
            out.append(estimator)
        return out

    def _check_params(self):
        if self.rule not in RULES:
            raise ValueError(f"`rule` must be one of {sorted(RULES)}; got {self.rule!r}.")
        if self.training not in _TRAININGS:
            raise ValueError(f"`training` must be one of {_TRAININGS}; got {self.training!r}.")
        if self.on_conflict not in _CONFLICT_POLICIES:
            raise ValueError(f"`on_conflict` must be one of {_CONFLICT_POLICIES}; got {self.on_conflict!r}.")
        if not isinstance(self.prefit, (bool, np.bool_)):
            raise ValueError(f"`prefit` must be True or False; got {self.prefit!r}.")
        fraction = self.validation_fraction
        if not isinstance(fraction, numbers.Real) or not 0.0 < fraction < 1.0:
            raise ValueError(f"`validation_fraction` must lie in (0, 1); got {fraction!r}.")

    def fit(self, X: ArrayLike, y: ArrayLike) -> ContextualDiscountingCombiner:
        """Fit the classifiers (unless ``prefit``) and learn their contextual discount rates.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Features, in the format the classifiers take.
        y : array_like of shape (n_samples,)
            Class labels.

        Returns
        -------
        ContextualDiscountingCombiner
            ``self``, fitted.
        """
        require_sklearn("ContextualDiscountingCombiner")
        warnings.warn(
            "ContextualDiscountingCombiner is deprecated and will be removed in 0.4; use "
            "dstk.calibration.EvidentialFusionClassifier(estimators, training='plausibility_error'), "
            "with fitted classifiers wrapped in sklearn.frozen.FrozenEstimator for prefit=True.",
            FutureWarning,
            stacklevel=2,
        )
        from sklearn.base import clone
        from sklearn.model_selection import train_test_split

        self._check_params()
        estimators = self._estimator_list()
        X_checked = validate_features(self, X, reset=True, numeric=False)
        self.classes_, encoded = validate_targets(y, X_checked.shape[0])
        labels: np.ndarray = self.classes_[encoded]
        check_dense_size(self.classes_.size, 1, "the combined mass functions")
        self.n_classes_ = self.classes_.size
        X_input = X if hasattr(X, "iloc") else X_checked
        if self.prefit:
            self.estimators_ = estimators
            X_validation, y_validation = X_input, labels
        else:
            counts = np.unique(labels, return_counts=True)[1]
            n_validation = int(np.ceil(self.validation_fraction * labels.size))
            stratify = labels if counts.min() >= 2 and n_validation >= self.classes_.size else None
            indices = np.arange(labels.size)
            if labels.size < 2:
                raise ValueError(
                    "At least two samples are needed to split a validation set; pass prefit=True."
                )
            train, validation = train_test_split(
                indices, test_size=self.validation_fraction, stratify=stratify, random_state=self.random_state
            )
            take = (
                (lambda rows: X_input.iloc[rows])
                if hasattr(X_input, "iloc")
                else (lambda rows: X_input[rows])
            )
            self.estimators_ = [clone(e).fit(take(train), labels[train]) for e in estimators]
            X_validation, y_validation = take(validation), labels[validation]
        indicators = (y_validation[:, None] == self.classes_[None, :]).astype(np.float64)
        contours = np.stack(
            [self._source_mass(e, X_validation) @ self._membership() for e in self.estimators_]
        )
        rates = np.stack([separate_contextual_rates(c, indicators) for c in contours])
        if self.training == "joint":
            rates = joint_contextual_rates(contours, indicators, rates)
        self.rates_ = rates
        return self

    def _membership(self):
        n = self.n_classes_
        return ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(np.float64)

    def _source_mass(self, estimator: Any, X: Any) -> np.ndarray:
        """Dense masses of one classifier's output on ``Frame(classes_)``."""
        index = {label: k for k, label in enumerate(self.classes_.tolist())}
        n_subsets = 2**self.n_classes_
        if hasattr(estimator, "predict_mass"):
            mass = estimator.predict_mass(X)
            labels = list(mass.frame.labels)
            source = mass.to_array("m")
        else:
            proba = np.asarray(estimator.predict_proba(X), dtype=np.float64)
            labels = list(np.asarray(estimator.classes_).tolist())
            source = np.zeros((proba.shape[0], 2 ** len(labels)))
            source[:, 1 << np.arange(len(labels))] = proba
        unknown = [label for label in labels if label not in index]
        if unknown:
            raise ValueError(
                f"A classifier predicts classes {unknown!r} that are not in the training labels "
                f"{self.classes_.tolist()!r}."
            )
        bits = np.array([1 << index[label] for label in labels], dtype=np.int64)
        source_masks = np.arange(source.shape[1])
        target = np.zeros(source.shape[1], dtype=np.int64)
        for j, bit in enumerate(bits):
            target |= np.where((source_masks >> j) & 1, bit, 0)
        out = np.zeros((source.shape[0], n_subsets))
        np.add.at(out.T, target, source.T)
        return out

    def predict_mass(self, X: ArrayLike) -> MassFunction:
        """Discounted outputs of the classifiers combined by ``rule``.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        MassFunction
            Batch shape ``(n_samples,)`` on ``Frame(classes_)``.
        """
        self._check_fitted()
        X_checked = validate_features(self, X, reset=False, numeric=False)
        X_input = X if hasattr(X, "iloc") else X_checked
        frame = Frame(self.classes_.tolist())
        sources = [
            contextual_discount(MassFunction._dense(self._source_mass(e, X_input), frame), rates)
            for e, rates in zip(self.estimators_, self.rates_)
        ]
        if self.rule != "dempster":
            return combine(sources, rule=self.rule)
        unnormalised = combine(sources, rule="conjunctive").to_array("m")
        nonempty = unnormalised[:, 1:].sum(axis=1)
        conflicted = np.flatnonzero(nonempty <= 0)
        if conflicted.size:
            if self.on_conflict == "raise":
                from ..exceptions import TotalConflictError

                raise TotalConflictError(
                    f"The discounted classifier outputs are in total conflict for samples {conflicted[:10].tolist()}; "
                    "use on_conflict='vacuous' or another rule."
                )
            from .._validation import stacklevel_outside_dstk
            from ..exceptions import ConflictWarning

            warnings.warn(
                f"Total conflict for samples {conflicted[:10].tolist()} (of {conflicted.size}); "
                f"their combination is {'vacuous' if self.on_conflict == 'vacuous' else 'NaN'}.",
                ConflictWarning,
                stacklevel=stacklevel_outside_dstk(),
            )
        out = np.zeros_like(unnormalised)
        ok = nonempty > 0
        out[ok, 1:] = unnormalised[ok, 1:] / nonempty[ok, None]
        if self.on_conflict == "nan":
            out[~ok] = np.nan
        else:
            out[~ok, -1] = 1.0
        return MassFunction._dense(out, frame)

    def __sklearn_tags__(self):  # pragma: no cover - only used when sklearn is present
        tags = super().__sklearn_tags__()
        if tags is not None:
            tags.input_tags.allow_nan = False
        return tags
