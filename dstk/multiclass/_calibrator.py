"""Turn any binary calibrator (probabilistic or evidential) into a multi-class one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._estimator import (
    BaseEstimator,
    ClassifierMixin,
    check_is_fitted,
    check_sample_weight,
    clone_estimator,
    validate_score_matrix,
)
from .._validation import as_float_array, check_labels
from ._codes import check_code_matrix, column_count_error, make_code
from ._coupling import CouplingResult, couple_probabilities
from ._tasks import binary_tasks

if TYPE_CHECKING:
    from typing_extensions import Self

    from ..core._mass import MassFunction

__all__ = ["MulticlassCalibrator", "embed_task_masses"]


def embed_task_masses(task_masses: ArrayLike, code: ArrayLike) -> np.ndarray:
    """Move binary-task masses onto the K-class frame by deconditioning (Smets' conditional embedding).

    Parameters
    ----------
    task_masses : ndarray of shape (N, B, 4)
        Dense binary masses per task on the frame ``(negative, positive)``:
        index 0 = empty set, 1 = {negative}, 2 = {positive}, 3 = frame.
    code : ndarray of shape (K, B)

    Returns
    -------
    ndarray of shape (N, B, 2**K)
        ``m({+})`` goes to ``K_b+ or K_b0``, ``m({-})`` to ``K_b- or K_b0``,
        ``m(frame)`` to the whole frame and ``m(empty)`` stays on the empty
        set, where ``K_b0`` are the classes left out of task ``b``.

    Notes
    -----
    Task ``b`` is trained only on classes in ``K_b+ or K_b-``, so its output is
    evidence conditional on that set; the least committed extension to the
    whole frame transfers each mass ``m(A)`` to ``A or (complement of the task's
    classes)`` (Smets 1993; used for pairwise combination by Quost, Denoeux
    & Masson 2007).

    Examples
    --------
    >>> from dstk.multiclass._codes import all_pairs_code
    >>> m = np.array([[[0.0, 0.2, 0.5, 0.3]] * 3])
    >>> out = embed_task_masses(m, all_pairs_code(3))
    >>> out[0, 0, [5, 6, 7]].tolist()   # {0, 2}: 0.5, {1, 2}: 0.2, frame: 0.3
    [0.5, 0.2, 0.3]
    """
    m = as_float_array(task_masses, "task_masses", finite=True)
    c = check_code_matrix(code)
    K, B = c.shape
    if m.ndim != 3 or m.shape[1:] != (B, 4):
        raise ValueError(
            f"`task_masses` must have shape (n_samples, {B}, 4) (one binary mass function per sample and task "
            f"of the code); got {m.shape}."
        )
    bits = 1 << np.arange(K)
    left_out = ((c == 0) * bits[:, None]).sum(axis=0)
    positive = ((c == 1) * bits[:, None]).sum(axis=0) | left_out
    negative = ((c == -1) * bits[:, None]).sum(axis=0) | left_out
    out = np.zeros(m.shape[:2] + (2**K,))
    rows = np.arange(B)
    out[:, rows, 0] += m[:, :, 0]
    out[:, rows, negative] += m[:, :, 1]
    out[:, rows, positive] += m[:, :, 2]
    out[:, :, 2**K - 1] += m[:, :, 3]
    return out


def _fit_parameters(estimator: Any) -> tuple[str, ...]:
    import inspect

    try:
        return tuple(inspect.signature(estimator.fit).parameters)
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return ()


class MulticlassCalibrator(ClassifierMixin, BaseEstimator):
    """Multi-class calibration by one binary calibrator per task of a code matrix.

    Parameters
    ----------
    calibrator : binary calibrator
        Any object with ``fit(scores, y)`` and ``predict_proba(scores)``
        (``(N, 2)``, column 1 = label 1), e.g. a
        :mod:`dstk.calibration.probabilistic` calibrator or an evidential
        calibrator of :mod:`dstk.calibration`; if it has ``predict_mass``,
        :meth:`predict_mass` is available.  Cloned for every task.
    code : {"one_vs_rest", "all_pairs", "complete", "sparse"} or array_like of shape (K, B), default="one_vs_rest"
        Code matrix of the binary tasks whose scores are passed to ``fit``.
    task_weights : {"samples", "uniform"}, default="samples"
        Coupling weights ``n_b``: the number of training samples of each
        task (Zadrozny 2001) or all ones.
    max_iter : int, default=500
        Coupling iteration cap.
    tol : float, default=1e-10
        Coupling tolerance.
    rule : str, default="dempster"
        Combination rule of :func:`dstk.combine` used by :meth:`predict_mass`.
    random_state : int, RandomState or None
        For ``code="sparse"``.
    on_conflict : {"vacuous", "nan", "raise"}, default="vacuous"
        Samples whose task masses conflict totally under ``rule`` in
        :meth:`predict_mass`: the vacuous mass function, NaN masses, or an
        error; the first two warn with the sample indices (see
        :func:`dstk.combine`).

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    code_ : ndarray of shape (K, B)
    calibrators_ : list of B fitted binary calibrators
    task_sizes_ : ndarray of shape (B,)
        Training samples of each task (their summed ``sample_weight`` when given).
    n_features_in_ : int
        Number of score columns (tasks) seen in fit.
    feature_names_in_ : ndarray of str
        Column names, when ``scores`` was a data frame with string names.

    Notes
    -----
    Gebel (2009), Fig. 5.1, route 2: task ``b`` calibrator is fitted on the
    scores of the samples whose class has ``psi[k, b] != 0`` with target
    ``psi[k, b] = +1``; its positive-group probabilities are coupled
    (:func:`~dstk.multiclass.couple_probabilities`, Zadrozny 2001).
    :meth:`predict_mass` is dstk's own evidential route: each task's binary
    mass is deconditioned onto the K-class frame
    (:func:`embed_task_masses`) and the B masses are combined with
    ``rule``.

    Examples
    --------
    >>> from dstk.calibration.probabilistic import PlattCalibrator
    >>> rng = np.random.RandomState(0)
    >>> y = np.repeat([0, 1, 2], 30)
    >>> scores = -1 + 2 * np.eye(3)[y] + rng.normal(0, 0.7, (90, 3))
    >>> cal = MulticlassCalibrator(PlattCalibrator()).fit(scores, y)
    >>> cal.predict_proba(scores[:2]).shape
    (2, 3)
    """

    _estimator_type = "classifier"

    def __init__(
        self,
        calibrator: Any,
        *,
        code: str | ArrayLike = "one_vs_rest",
        task_weights: str = "samples",
        max_iter: int = 500,
        tol: float = 1e-10,
        rule: str = "dempster",
        random_state: int | np.random.RandomState | None = None,
        on_conflict: str = "vacuous",
    ):
        self.calibrator = calibrator
        self.code = code
        self.task_weights = task_weights
        self.max_iter = max_iter
        self.tol = tol
        self.rule = rule
        self.random_state = random_state
        self.on_conflict = on_conflict

    def _check_scores(self, scores: ArrayLike) -> np.ndarray:
        check_is_fitted(self, "calibrators_")
        return validate_score_matrix(self, scores, reset=False)

    def fit(self, scores: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit one calibrator per task.

        Parameters
        ----------
        scores : array_like of shape (N, B)
            Task scores (column ``b`` favours the positive group of task ``b``),
            e.g. from :class:`~dstk.multiclass.CodeMatrixClassifier`.
        y : array_like of shape (N,)
            Class labels.
        sample_weight : array_like of shape (N,), optional
            Passed on, restricted to each task's rows, to the task
            calibrators' ``fit`` (dstk's calibrators take whole-number
            frequency weights).

        Returns
        -------
        self
        """
        if self.task_weights not in ("samples", "uniform"):
            raise ValueError(f"`task_weights` must be 'samples' or 'uniform'; got {self.task_weights!r}.")
        if not (hasattr(self.calibrator, "fit") and hasattr(self.calibrator, "predict_proba")):
            raise ValueError("`calibrator` must have fit(scores, y) and predict_proba(scores) methods.")
        from ..core._combination import check_on_conflict

        check_on_conflict(self.on_conflict)
        s = validate_score_matrix(self, scores, reset=True)
        classes, y_idx = check_labels(y)
        if y_idx.shape[0] != s.shape[0]:
            raise ValueError(f"`scores` has {s.shape[0]} rows but `y` has {y_idx.shape[0]} labels.")
        weights = check_sample_weight(sample_weight, s.shape[0])
        if weights is not None and "sample_weight" not in _fit_parameters(self.calibrator):
            raise ValueError(
                f"`sample_weight` was given but {type(self.calibrator).__name__}.fit does not take "
                "sample_weight; use a calibrator that does (every dstk calibrator does)."
            )
        self.code_ = make_code(self.code, classes.size, random_state=self.random_state)
        if self.code_.shape[1] != s.shape[1]:
            raise column_count_error(s.shape[1], self.code_, self.code, classes)
        self.classes_ = classes
        self.calibrators_ = []
        sizes = []
        for b, (rows, target) in enumerate(binary_tasks(y_idx, self.code_)):
            if np.unique(target).size < 2:
                raise ValueError(
                    f"Binary task {b} has a single class among its training rows; cannot calibrate it."
                )
            cal = clone_estimator(self.calibrator)
            if weights is None:
                cal.fit(s[rows, b], target)
            else:
                cal.fit(s[rows, b], target, sample_weight=weights[rows])
            self.calibrators_.append(cal)
            sizes.append(rows.size if weights is None else weights[rows].sum())  # frequency weights
        self.task_sizes_ = np.asarray(sizes, dtype=np.float64)
        return self

    def predict_task_proba(self, scores: ArrayLike) -> np.ndarray:
        """Calibrated positive-group probability of every task, shape ``(N, B)``.

        Parameters
        ----------
        scores : array_like of shape (N, B)
            Task scores, one column per task of ``code_``.

        Returns
        -------
        ndarray of shape (N, B)
            ``r_b``, column 1 of each task calibrator's ``predict_proba``.
        """
        s = self._check_scores(scores)
        return np.column_stack(
            [np.asarray(c.predict_proba(s[:, b]))[:, 1] for b, c in enumerate(self.calibrators_)]
        )

    def predict_coupling(self, scores: ArrayLike) -> CouplingResult:
        """The coupling of the task probabilities, with its convergence per sample.

        Parameters
        ----------
        scores : array_like of shape (N, B)
            Task scores, one column per task of ``code_``.

        Returns
        -------
        CouplingResult
            ``probabilities`` (what :meth:`predict_proba` returns),
            ``converged`` per sample and the iteration counts.
        """
        r = self.predict_task_proba(scores)
        weights = self.task_sizes_ if self.task_weights == "samples" else None
        return couple_probabilities(r, self.code_, task_weights=weights, max_iter=self.max_iter, tol=self.tol)

    def predict_proba(self, scores: ArrayLike) -> np.ndarray:
        """Coupled class probabilities, shape ``(N, K)``; :meth:`predict_coupling` gives the convergence.

        Parameters
        ----------
        scores : array_like of shape (N, B)
            Task scores, one column per task of ``code_``.

        Returns
        -------
        ndarray of shape (N, K)
            Rows sum to 1; columns in ``classes_`` order.  A
            :class:`~dstk.exceptions.ConvergenceWarning` is issued when the
            coupling does not converge for some rows.
        """
        return self.predict_coupling(scores).probabilities

    def predict(self, scores: ArrayLike) -> np.ndarray:
        """Most probable class, shape ``(N,)``.

        Parameters
        ----------
        scores : array_like of shape (N, B)
            Task scores, one column per task of ``code_``.

        Returns
        -------
        ndarray of shape (N,)
            The label of ``classes_`` with the largest coupled probability.
        """
        probabilities = self.predict_proba(scores)  # raises NotFittedError before classes_ is read
        return self.classes_[np.argmax(probabilities, axis=1)]

    def predict_mass(self, scores: ArrayLike) -> MassFunction:
        """Combined mass functions on ``Frame(classes_)``, batch shape ``(N,)`` (dstk's own extension).

        Parameters
        ----------
        scores : array_like of shape (N, B)
            Task scores, one column per task of ``code_``.

        Returns
        -------
        MassFunction
            Batch shape ``(N,)`` on ``Frame(classes_)``: the B deconditioned
            task masses combined with ``rule``.

        Raises
        ------
        AttributeError
            When the binary calibrator has no ``predict_mass``.
        ValueError
            When K > 16 (dense masses on ``2**K`` subsets), or on bad scores.
        """
        from ..core._combination import combine
        from ..core._frame import Frame
        from ..core._mass import MassFunction

        s = self._check_scores(scores)
        if not hasattr(self.calibrators_[0], "predict_mass"):
            raise AttributeError(
                f"{type(self.calibrators_[0]).__name__} has no predict_mass; use an evidential calibrator or "
                "one with an interval (e.g. AssignmentValueCalibrator)."
            )
        K = self.classes_.size
        if K > 16:
            raise ValueError(
                f"predict_mass builds dense masses on 2**K subsets; K={K} is too large (max 16)."
            )
        task = np.stack(
            [c.predict_mass(s[:, b]).to_array("m") for b, c in enumerate(self.calibrators_)], axis=1
        )
        dense = embed_task_masses(task, self.code_)
        frame = Frame(tuple(self.classes_.tolist()))
        masses = MassFunction.from_array(dense, frame, validate=False)
        return combine(masses, rule=self.rule, axis=1, on_conflict=self.on_conflict)
