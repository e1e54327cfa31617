"""Coupling binary-task probabilities into K-class probabilities (Hastie & Tibshirani 1998; Zadrozny 2001)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._kernels.coupling import couple, couple_one_vs_rest
from .._validation import as_float_array
from ..exceptions import ConvergenceWarning
from ._codes import check_code_matrix

__all__ = ["CouplingResult", "couple_probabilities"]


@dataclass
class CouplingResult:
    """Output of :func:`couple_probabilities`: class probabilities and a per-sample convergence report.

    Parameters
    ----------
    probabilities : ndarray of shape (N, K)
        Coupled class probabilities (rows sum to 1).
    n_iter : ndarray of shape (N,)
        Iterations used per sample (accelerated cycles, or root-finding
        steps for the one-against-rest closed form).
    converged : ndarray of shape (N,), bool
        Whether each sample reached the tolerance.

    Notes
    -----
    Coupling (Gebel 2009, Sec. 5.3, Eq. 5.6; Zadrozny 2001) is iterative for
    general code matrices, so non-convergence is reported per sample rather
    than silently returned: check :attr:`all_converged` or ``converged``
    before trusting a row.

    References
    ----------
    B. Zadrozny, Reducing multiclass to binary by coupling probability
    estimates, NIPS 2001.

    Examples
    --------
    >>> import numpy as np
    >>> result = CouplingResult(np.array([[0.5, 0.5]]), np.array([1]), np.array([True]))
    >>> result.all_converged
    True
    """

    probabilities: np.ndarray
    n_iter: np.ndarray
    converged: np.ndarray

    @property
    def all_converged(self) -> bool:
        """True when every sample converged (``bool``)."""
        return bool(np.all(self.converged))


def _one_vs_rest_columns(code):
    """Column of each class if ``code`` is a (column-permuted) one-against-rest code, else None."""
    K, B = code.shape
    if B != K or np.any(code == 0) or np.any((code == 1).sum(axis=0) != 1):
        return None
    positive_class = np.argmax(code == 1, axis=0)
    if np.unique(positive_class).size != K:
        return None
    columns = np.empty(K, dtype=np.intp)
    columns[positive_class] = np.arange(K)
    return columns


def couple_probabilities(
    task_probabilities: ArrayLike,
    code: ArrayLike,
    *,
    task_weights: ArrayLike | None = None,
    method: str = "bradley_terry",
    max_iter: int = 500,
    tol: float = 1e-10,
    clip: float = 1e-9,
    warn: bool = True,
) -> CouplingResult:
    """Couple the positive-class probabilities of B binary tasks into K-class probabilities.

    Parameters
    ----------
    task_probabilities : array_like of shape (N, B)
        ``r_b``: the calibrated probability that the class belongs to the
        positive group ``K_b+`` of task ``b`` (given it is in ``K_b+`` or ``K_b-``).
    code : array_like of shape (K, B)
        Code matrix with entries in ``{-1, 0, +1}``.
    task_weights : array_like of shape (B,), optional
        ``n_b``, usually the number of training samples of task ``b``; all
        ones by default.
    method : {"bradley_terry", "zadrozny"}, default="bradley_terry"
        ``"bradley_terry"``: minimise the KL criterion exactly (closed form
        for one-against-rest codes, the generalised Bradley-Terry update of
        Huang, Weng & Lin 2006 otherwise).  ``"zadrozny"``: Zadrozny's (2001)
        update as published.  Both are Hastie & Tibshirani's pairwise
        coupling for all-pairs codes (same fixed point).
    max_iter : int, default=500
        Iteration cap per sample (see Notes).
    tol : float, default=1e-10
        Stop when no probability changes by more than ``tol``.
    clip : float, default=1e-9
        ``r_b`` is clipped into ``[clip, 1 - clip]``.
    warn : bool, default=True
        Issue a :class:`~dstk.exceptions.ConvergenceWarning` naming the
        number of samples that did not converge.

    Returns
    -------
    CouplingResult
        ``probabilities`` (N, K), ``n_iter`` and ``converged`` per sample.

    Raises
    ------
    ValueError
        On probabilities outside ``[0, 1]``, an invalid code matrix, a shape
        mismatch or non-positive task weights.

    Notes
    -----
    Minimises ``sum_b n_b KL(r_b || mu_b)`` over the simplex, with ``mu_b``
    the probability of the positive group of task ``b`` given its two groups
    (Gebel 2009, Eq. 5.6).  ``"zadrozny"``'s fixed point is the minimiser for
    all-pairs codes only; ``"bradley_terry"`` is exact for one-against-rest
    codes and iterates Huang, Weng & Lin's update otherwise (SQUAREM
    accelerated; convergence is reported per sample).

    Read more in the :ref:`User Guide <coupling>`.

    References
    ----------
    T. Hastie, R. Tibshirani, Classification by pairwise coupling, *Annals
    of Statistics* 26 (1998) 451-471.
    B. Zadrozny, Reducing multiclass to binary by coupling probability
    estimates, NIPS 2001.
    T.-K. Huang, R. C. Weng, C.-J. Lin, Generalized Bradley-Terry models and
    multi-class probability estimates, *JMLR* 7 (2006) 85-115.

    Examples
    --------
    >>> from dstk.multiclass._codes import all_pairs_code
    >>> # pairwise rates generated by p = (0.5, 0.3, 0.2): r_12 = 5/8, r_13 = 5/7, r_23 = 3/5
    >>> res = couple_probabilities([[5 / 8, 5 / 7, 3 / 5]], all_pairs_code(3))
    >>> res.probabilities.round(6).tolist()
    [[0.5, 0.3, 0.2]]
    """
    r = as_float_array(task_probabilities, "task_probabilities")
    if r.ndim == 1:
        r = r[None, :]
    if r.ndim != 2 or r.shape[0] == 0:
        raise ValueError(
            f"`task_probabilities` must have shape (n_samples, n_tasks); got {np.shape(task_probabilities)}."
        )
    if not np.all(np.isfinite(r)) or np.any(r < 0) or np.any(r > 1):
        raise ValueError(
            "`task_probabilities` must be finite probabilities in [0, 1]; calibrate the binary scores first "
            "(e.g. with PlattCalibrator) or normalise them with simple_normalization."
        )
    c = check_code_matrix(code)
    if c.shape[1] != r.shape[1]:
        raise ValueError(
            f"`task_probabilities` has {r.shape[1]} columns but the code matrix has {c.shape[1]} tasks."
        )
    if task_weights is None:
        w = np.ones(c.shape[1])
    else:
        w = as_float_array(task_weights, "task_weights")
        if w.shape != (c.shape[1],) or not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise ValueError(
                f"`task_weights` must hold {c.shape[1]} positive finite values; got {task_weights!r}."
            )
    if not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"`max_iter` must be a positive integer; got {max_iter!r}.")
    if not (float(tol) > 0):
        raise ValueError(f"`tol` must be positive; got {tol!r}.")
    clip = float(clip)
    if not 0.0 < clip < 0.5:
        raise ValueError(f"`clip` must lie in (0, 0.5); got {clip!r}.")
    r = np.clip(r, clip, 1.0 - clip)
    if method not in ("bradley_terry", "zadrozny"):
        raise ValueError(f"`method` must be 'bradley_terry' or 'zadrozny'; got {method!r}.")
    one_vs_rest_columns = _one_vs_rest_columns(c) if method == "bradley_terry" else None
    if one_vs_rest_columns is not None:
        probabilities, n_iter, converged = couple_one_vs_rest(
            np.ascontiguousarray(r[:, one_vs_rest_columns]),
            np.ascontiguousarray(w[one_vs_rest_columns]),
            int(max_iter),
            float(tol),
        )
    else:
        probabilities, n_iter, converged = couple(
            np.ascontiguousarray(r),
            np.ascontiguousarray(c),
            w,
            int(max_iter),
            float(tol),
            0 if method == "zadrozny" else 1,
        )
    result = CouplingResult(probabilities, n_iter, converged)
    if warn and not result.all_converged:
        warnings.warn(
            f"Coupling did not converge for {int((~converged).sum())} of {converged.size} samples within "
            f"max_iter={max_iter} (tol={tol}); see CouplingResult.converged. Increase max_iter or check the "
            "code matrix.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return result
