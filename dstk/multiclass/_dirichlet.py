"""Dirichlet calibration of binary-task scores or K-class probabilities (Gebel 2009, Sec. 5.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import betainc, gammaincinv

from .._estimator import BaseEstimator, ClassifierMixin, check_is_fitted, validate_score_matrix
from .._validation import as_float_array, check_in_range, check_labels
from ..calibration.probabilistic._normalization import simple_normalization
from ._codes import check_code_matrix, column_count_error, make_code

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["DirichletCalibrator", "combine_task_probabilities"]

_POOLS = ("product", "geometric_mean", "trimmed_geometric_mean", "direct")


#: Rows at or above which the special functions run in several threads.
_THREADED_ROWS = 20_000


def _row_threaded(func, params, values):
    """``func(params, values)`` evaluated on row blocks in threads (same floats as one call).

    scipy's special functions are numpy ufuncs that release the GIL, so row
    blocks of a large ``(N, K)`` array run in parallel on several cores; each
    element is computed by the same routine, so the result is bit-identical.
    """
    import os
    from concurrent.futures import ThreadPoolExecutor

    values = np.asarray(values, dtype=np.float64)
    n_threads = min(os.cpu_count() or 1, 8)
    if values.ndim != 2 or values.shape[0] < _THREADED_ROWS or n_threads < 2:
        return func(params, values)
    out = np.empty(values.shape)  # params broadcast along the last axis (one per class)
    bounds = np.linspace(0, values.shape[0], n_threads + 1).astype(int)

    def work(i):
        lo, hi = bounds[i], bounds[i + 1]
        out[lo:hi] = func(params, values[lo:hi])

    with ThreadPoolExecutor(n_threads) as pool:
        list(pool.map(work, range(n_threads)))
    return out


def combine_task_probabilities(
    task_probabilities: ArrayLike, code: ArrayLike, *, pool: str = "geometric_mean", trim: float = 0.1
) -> np.ndarray:
    """Per-class combination ``r[i, k]`` of binary-task probabilities (Gebel 2009, Eqs. 5.11-5.12).

    Parameters
    ----------
    task_probabilities : array_like of shape (N, B)
        ``p_b``: probability of the positive group of task ``b``, strictly
        inside ``(0, 1)``.
    code : array_like of shape (K, B)
        Code matrix.
    pool : {"product", "geometric_mean", "trimmed_geometric_mean"}, default="geometric_mean"
        ``"product"``: ``prod_{b: psi=+1} p_b prod_{b: psi=-1} (1 - p_b)`` (5.11);
        ``"geometric_mean"``: that product to the power ``1 / #{b: psi != 0}``
        (5.12); ``"trimmed_geometric_mean"``: the geometric mean after
        removing ``floor(trim * n_k)`` of the sorted factors at each end.
    trim : float, default=0.1
        Fraction trimmed per side for ``"trimmed_geometric_mean"`` (R's
        ``mean(x, trim=0.1)`` rounding: ``floor(trim * n)`` values per side).

    Returns
    -------
    ndarray of shape (N, K)

    Raises
    ------
    ValueError
        On probabilities not strictly inside ``(0, 1)``, a bad pool or trim.

    Notes
    -----
    Computed in log space, so the product of many factors does not
    underflow before the final ``exp``.

    References
    ----------
    M. Gebel, Multivariate calibration of classifier scores into the
    probability space, PhD thesis, TU Dortmund (2009), Sec. 5.4.2, Eqs. (5.11)-(5.12).

    Examples
    --------
    >>> from dstk.multiclass._codes import one_vs_rest_code
    >>> combine_task_probabilities([[0.5, 0.5, 0.5]], one_vs_rest_code(3), pool="product").round(12).tolist()
    [[0.125, 0.125, 0.125]]
    """
    # checked whatever the pool, so that an invalid trim is never silently ignored
    trim = check_in_range(trim, "trim", low=0.0, high=0.5, high_inclusive=False)
    p = as_float_array(task_probabilities, "task_probabilities")
    c = check_code_matrix(code)
    if p.ndim != 2 or p.shape[1] != c.shape[1]:
        raise ValueError(f"`task_probabilities` must have shape (n_samples, {c.shape[1]}); got {p.shape}.")
    if not np.all(np.isfinite(p)) or np.any(p <= 0) or np.any(p >= 1):
        raise ValueError(
            "`task_probabilities` must lie strictly inside (0, 1) (no NaN) for Dirichlet calibration; normalise scores "
            "with rho > 1 (Gebel uses rho = 1.05)."
        )
    trim = check_in_range(trim, "trim", low=0.0, high=0.5, high_inclusive=False)
    log_p = np.log(p)
    log_q = np.log1p(-p)
    positive = (c == 1).astype(np.float64)
    negative = (c == -1).astype(np.float64)
    if pool in ("product", "geometric_mean"):
        log_r = log_p @ positive.T + log_q @ negative.T
        if pool == "geometric_mean":
            log_r = log_r / (positive + negative).sum(axis=1)
        return np.exp(log_r)
    if pool == "trimmed_geometric_mean":
        out = np.empty((p.shape[0], c.shape[0]))
        for k in range(c.shape[0]):
            factors = np.concatenate([log_p[:, c[k] == 1], log_q[:, c[k] == -1]], axis=1)
            n = factors.shape[1]
            cut = int(np.floor(trim * n))
            factors = np.sort(factors, axis=1)[:, cut : n - cut]
            out[:, k] = np.exp(factors.mean(axis=1))
        return out
    raise ValueError(f"`pool` must be one of {_POOLS[:3]} here; got {pool!r}.")


class DirichletCalibrator(ClassifierMixin, BaseEstimator):
    """Gebel's one-step Dirichlet calibration of reduction scores into K-class probabilities.

    Parameters
    ----------
    code : {"one_vs_rest", "all_pairs", "complete", "sparse"} or array_like of shape (K, B), default="one_vs_rest"
        Code matrix of the binary tasks whose scores are passed to ``fit``
        (ignored for ``pool="direct"``).
    pool : {"geometric_mean", "trimmed_geometric_mean", "product", "direct"}, default="geometric_mean"
        How task probabilities are combined per class (``diri-g-mean``,
        ``diri-g-trim``, ``diri-prod``); ``"direct"`` takes a K-column
        probability matrix as input (``diri-direct``, Eq. 5.13).
    trim : float, default=0.1
        Trimming per side for ``"trimmed_geometric_mean"``.
    rho : float, default=1.05
        Simple-normalisation stretch applied to each task's scores (one
        ``M`` per task column, fitted on the training scores).
    degrees_of_freedom : {"2h", "h"}, default="2h"
        ``"2h"``: chi-square quantiles with ``2 h_k`` degrees of freedom, so
        the normalised vector is ``Dirichlet(h)`` (Eq. 5.9); ``"h"``: the
        thesis's printed ``h_k`` (a ``Dirichlet(h/2)``).  As ``m`` is
        grid-searched, the two only rescale ``m``.
    max_grid : int, default=200
        The thesis searches ``m`` over ``1, 2, ..., 2N``; when ``2N`` exceeds
        ``max_grid``, a geometric grid of ``max_grid`` integers from 1 to
        ``2N`` is searched instead.
    clip : float, default=1e-12
        Uniform values are clipped into ``[clip, 1 - clip]`` before the
        chi-square quantile.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    code_ : ndarray of shape (K, B) or None
    scale_ : ndarray of shape (B,) or None
        Per-task normalisation constants ``M_b``.
    beta_params_ : ndarray of shape (K, 2)
        Method-of-moments ``(alpha_k, beta_k)`` of the combined values.
    class_prior_ : ndarray of shape (K,)
        ``pi_k``, the training class frequencies.
    dispersion_ : int
        The selected ``m``.
    criterion_ : float
        ``(CR (1 - RMSE) WCR)**(1/3)`` of the selected ``m`` on the training data.

    Notes
    -----
    Gebel (2009), Sec. 5.4.2:

    1. normalise each task's scores with Eq. (4.1) and ``rho = 1.05``;
    2. combine per class (Eqs. 5.11-5.13);
    3. fit ``Beta(alpha_k, beta_k)`` per class by moments
       (``N_k = r_k (1 - r_k)/S_k - 1``);
    4. ``u = F_Beta(r)``, ``x_k = F^{-1}_{chi2}(u_k)``, ``p_k = x_k / sum_j x_j``
       with ``h_k = m pi_k``;
    5. ``m`` maximises the geometric mean of CR, 1-RMSE and WCR on the
       training data (Gebel 2009, Sec. 5.4.2, which does not say on which
       data the criterion is evaluated; the training data is dstk's reading).

    A row whose chi-square quantiles all underflow to 0 gets the class
    prior.  The chi-square quantile is ``2 * gammaincinv(df/2, u)``; the
    factor 2 cancels in the normalisation.

    References
    ----------
    Gebel (2009), Sec. 5.4; J. Aitchison, Inverted Dirichlet ... (1963).

    Examples
    --------
    >>> rng = np.random.RandomState(0)
    >>> y = np.repeat([0, 1, 2], 40)
    >>> scores = -np.ones((120, 3)) + 2 * np.eye(3)[y] + rng.normal(0, 0.8, (120, 3))
    >>> cal = DirichletCalibrator().fit(scores, y)
    >>> P = cal.predict_proba(scores)
    >>> P.shape, bool(np.allclose(P.sum(axis=1), 1.0))
    ((120, 3), True)
    """

    _estimator_type = "classifier"

    def __init__(
        self,
        code: str | ArrayLike = "one_vs_rest",
        *,
        pool: str = "geometric_mean",
        trim: float = 0.1,
        rho: float = 1.05,
        degrees_of_freedom: str = "2h",
        max_grid: int = 200,
        clip: float = 1e-12,
    ):
        self.code = code
        self.pool = pool
        self.trim = trim
        self.rho = rho
        self.degrees_of_freedom = degrees_of_freedom
        self.max_grid = max_grid
        self.clip = clip

    def _check_matrix(self, scores, reset):
        return validate_score_matrix(self, scores, reset=reset)

    def _combined(self, s):
        if self.pool == "direct":
            if np.any(s < 0) or np.any(s > 1):
                raise ValueError("pool='direct' needs a probability matrix with entries in [0, 1].")
            return np.clip(s, self.clip, 1.0 - self.clip)
        # test scores beyond rho * M would normalise to exactly 0 or 1: keep them inside (0, 1)
        p = np.clip(simple_normalization(s, rho=self.rho, scale=self.scale_), self.clip, 1.0 - self.clip)
        assert self.code_ is not None  # set by fit for every pool but "direct"
        return combine_task_probabilities(p, self.code_, pool=self.pool, trim=self.trim)

    def _uniforms(self, r):
        a, b = self.beta_params_[:, 0], self.beta_params_[:, 1]
        r = np.clip(r, 0.0, 1.0)
        u = _row_threaded(lambda ab, x: betainc(ab[0], ab[1], x), (a, b), r)
        return np.clip(u, self.clip, 1.0 - self.clip)

    def _probabilities(self, u, m):
        shape = m * self.class_prior_
        if self.degrees_of_freedom == "h":
            shape = shape / 2.0
        x = _row_threaded(gammaincinv, shape, u)
        total = x.sum(axis=1, keepdims=True)
        bad = ~(total[:, 0] > 0)
        out = np.empty_like(x)
        out[~bad] = x[~bad] / total[~bad]
        out[bad] = self.class_prior_
        return out

    def fit(self, scores: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the per-class Beta laws and select ``m``.

        Parameters
        ----------
        scores : array_like of shape (N, B)
            Task scores (or, for ``pool="direct"``, a K-column
            probability matrix).
        y : array_like of shape (N,)
            Class labels.
        sample_weight : None
            Not supported (the method-of-moments Beta fit and the selection
            of ``m`` count samples); anything but None raises.

        Returns
        -------
        self
        """
        from .._probability_measures import dirichlet_selection_criterion

        if sample_weight is not None:
            raise ValueError(
                "DirichletCalibrator does not support sample_weight (its Beta fit and the selection of m "
                "count samples); fit on a resampled set instead (rows repeated by their weights)."
            )
        if self.pool not in _POOLS:
            raise ValueError(f"`pool` must be one of {_POOLS}; got {self.pool!r}.")
        if self.degrees_of_freedom not in ("2h", "h"):
            raise ValueError(f"`degrees_of_freedom` must be '2h' or 'h'; got {self.degrees_of_freedom!r}.")
        check_in_range(self.trim, "trim", low=0.0, high=0.5, high_inclusive=False)
        check_in_range(self.clip, "clip", low=0.0, high=0.5, low_inclusive=False, high_inclusive=False)
        s = self._check_matrix(scores, reset=True)
        classes, y_idx = check_labels(y)
        if y_idx.shape[0] != s.shape[0]:
            raise ValueError(f"`scores` has {s.shape[0]} rows but `y` has {y_idx.shape[0]} labels.")
        K = classes.size
        if self.pool == "direct":
            if s.shape[1] != K:
                raise ValueError(f"pool='direct' needs one column per class ({K}); got {s.shape[1]}.")
            self.code_, self.scale_ = None, None
        else:
            self.code_ = make_code(self.code, K)
            if self.code_.shape[1] != s.shape[1]:
                raise column_count_error(s.shape[1], self.code_, self.code, classes)
            self.scale_ = np.max(np.abs(s), axis=0)
            if np.any(self.scale_ == 0):
                raise ValueError("A task's scores are all 0; it cannot be normalised.")
        r = self._combined(s)
        mean = r.mean(axis=0)
        var = r.var(axis=0, ddof=1) if r.shape[0] > 1 else np.zeros(K)
        with np.errstate(divide="ignore", invalid="ignore"):
            dispersion = mean * (1.0 - mean) / var - 1.0
        bad = ~(np.isfinite(dispersion) & (dispersion > 0))
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"The method-of-moments Beta fit failed for class {classes[k]!r} (combined values have zero "
                "variance or are too spread); Dirichlet calibration needs varying scores and enough samples "
                "per class."
            )
        self.beta_params_ = np.column_stack([mean * dispersion, (1.0 - mean) * dispersion])
        self.class_prior_ = np.bincount(y_idx, minlength=K) / y_idx.size
        if np.any(self.class_prior_ == 0):
            raise ValueError("Every class must occur in the training labels.")
        self.classes_ = classes
        u = self._uniforms(r)
        top = 2 * s.shape[0]
        if top <= int(self.max_grid):
            grid = np.arange(1, top + 1)
        else:
            grid = np.unique(np.round(np.geomspace(1, top, int(self.max_grid))).astype(int))
        best: tuple[float, int] | None = None
        for m in grid:
            value = dirichlet_selection_criterion(y_idx, self._probabilities(u, float(m)))
            if best is None or value > best[0]:
                best = (value, int(m))
        assert best is not None  # the grid is never empty
        self.criterion_, self.dispersion_ = float(best[0]), best[1]
        return self

    def predict_proba(self, scores: ArrayLike) -> np.ndarray:
        """Calibrated class probabilities, shape ``(N, K)`` (columns in ``classes_`` order).

        Parameters
        ----------
        scores : array_like of shape (N, B)
            Task scores with the columns seen in ``fit`` (or, for
            ``pool="direct"``, a K-column probability matrix).

        Returns
        -------
        ndarray of shape (N, K)
            ``p_k = x_k / sum_j x_j`` with ``x_k`` the chi-square quantile of
            the Beta probability of the combined value (Gebel 2009, Eq. 5.9).
        """
        check_is_fitted(self, "dispersion_")
        s = self._check_matrix(scores, reset=False)
        return self._probabilities(self._uniforms(self._combined(s)), float(self.dispersion_))

    def predict(self, scores: ArrayLike) -> np.ndarray:
        """Most probable class, shape ``(N,)``.

        Parameters
        ----------
        scores : array_like of shape (N, B)
            As for :meth:`predict_proba`.

        Returns
        -------
        ndarray of shape (N,)
            The label of ``classes_`` with the largest calibrated probability.
        """
        probabilities = self.predict_proba(scores)  # raises NotFittedError before classes_ is read
        return self.classes_[np.argmax(probabilities, axis=1)]
