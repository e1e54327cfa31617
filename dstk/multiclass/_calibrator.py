"""Turn any binary calibrator (probabilistic or evidential) into a multi-class one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._estimator import BaseEstimator, check_is_fitted, clone_estimator
from .._validation import check_labels
from ._codes import make_code
from ._coupling import couple_probabilities
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
    m = np.asarray(task_masses, dtype=np.float64)
    c = np.asarray(code)
    K, B = c.shape
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


class MulticlassCalibrator(BaseEstimator):
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

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    code_ : ndarray of shape (K, B)
    calibrators_ : list of B fitted binary calibrators
    task_sizes_ : ndarray of shape (B,)
    coupling_result_ : CouplingResult
        Of the last :meth:`predict_proba` call (``converged`` per sample).

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
    ):
        self.calibrator = calibrator
        self.code = code
        self.task_weights = task_weights
        self.max_iter = max_iter
        self.tol = tol
        self.rule = rule
        self.random_state = random_state

    def _check_scores(self, scores: ArrayLike, n_columns: int | None = None) -> np.ndarray:
        s = np.asarray(scores, dtype=np.float64)
        if s.ndim != 2 or s.shape[0] == 0:
            raise ValueError(
                f"`scores` must have shape (n_samples, n_tasks), one column per binary task; got {np.shape(scores)}."
            )
        if not np.all(np.isfinite(s)):
            raise ValueError("`scores` contains NaN or infinite values.")
        if n_columns is not None and s.shape[1] != n_columns:
            raise ValueError(
                f"`scores` must have {n_columns} columns (one per task, as in fit); got {s.shape[1]}."
            )
        return s

    def fit(self, scores: ArrayLike, y: ArrayLike) -> Self:
        """Fit one calibrator per task.

        Parameters
        ----------
        scores : array_like of shape (N, B)
            Task scores (column ``b`` favours the positive group of task ``b``),
            e.g. from :class:`~dstk.multiclass.CodeMatrixClassifier`.
        y : array_like of shape (N,)
            Class labels.

        Returns
        -------
        self
        """
        if self.task_weights not in ("samples", "uniform"):
            raise ValueError(f"`task_weights` must be 'samples' or 'uniform'; got {self.task_weights!r}.")
        if not (hasattr(self.calibrator, "fit") and hasattr(self.calibrator, "predict_proba")):
            raise ValueError("`calibrator` must have fit(scores, y) and predict_proba(scores) methods.")
        s = self._check_scores(scores)
        classes, y_idx = check_labels(y)
        if y_idx.shape[0] != s.shape[0]:
            raise ValueError(f"`scores` has {s.shape[0]} rows but `y` has {y_idx.shape[0]} labels.")
        self.code_ = make_code(self.code, classes.size, random_state=self.random_state)
        if self.code_.shape[1] != s.shape[1]:
            raise ValueError(
                f"`scores` has {s.shape[1]} columns but the code matrix has {self.code_.shape[1]} tasks."
            )
        self.classes_ = classes
        self.calibrators_ = []
        sizes = []
        for b, (rows, target) in enumerate(binary_tasks(y_idx, self.code_)):
            if np.unique(target).size < 2:
                raise ValueError(
                    f"Binary task {b} has a single class among its training rows; cannot calibrate it."
                )
            cal = clone_estimator(self.calibrator)
            cal.fit(s[rows, b], target)
            self.calibrators_.append(cal)
            sizes.append(rows.size)
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
        check_is_fitted(self, "calibrators_")
        s = self._check_scores(scores, self.code_.shape[1])
        return np.column_stack(
            [np.asarray(c.predict_proba(s[:, b]))[:, 1] for b, c in enumerate(self.calibrators_)]
        )

    def predict_proba(self, scores: ArrayLike) -> np.ndarray:
        """Coupled class probabilities, shape ``(N, K)``; see ``coupling_result_`` for convergence.

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
        r = self.predict_task_proba(scores)
        weights = self.task_sizes_ if self.task_weights == "samples" else None
        self.coupling_result_ = couple_probabilities(
            r, self.code_, task_weights=weights, max_iter=self.max_iter, tol=self.tol
        )
        return self.coupling_result_.probabilities

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
        return self.classes_[np.argmax(self.predict_proba(scores), axis=1)]

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

        check_is_fitted(self, "calibrators_")
        if not hasattr(self.calibrators_[0], "predict_mass"):
            raise AttributeError(
                f"{type(self.calibrators_[0]).__name__} has no predict_mass; use an evidential calibrator or "
                "one with an interval (e.g. AssignmentValueCalibrator)."
            )
        s = self._check_scores(scores, self.code_.shape[1])
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
        return combine(masses, rule=self.rule, axis=1)
