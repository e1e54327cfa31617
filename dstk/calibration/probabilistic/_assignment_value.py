"""Garczarek's assignment-value (AV) calibration (Gebel 2009, Sec. 4.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import betainc, betaincinv

from ..._estimator import check_is_fitted
from ..._validation import check_level
from ._base import BinaryProbabilisticCalibrator, interval_to_mass
from ._normalization import simple_normalization

if TYPE_CHECKING:
    from ...core._mass import MassFunction

__all__ = ["AssignmentValueCalibrator", "beta_moments_fit"]


def beta_moments_fit(values: ArrayLike) -> tuple[float, float]:
    """Method-of-moments Beta fit in mean/dispersion form ``(p, N)`` (Gebel 2009, Sec. 4.4.3).

    Parameters
    ----------
    values : array_like of shape (n,)
        A sample in ``[0, 1]``.

    Returns
    -------
    mean : float
        ``p_hat = mean(values)``.
    dispersion : float
        ``N_hat = p_hat (1 - p_hat) / S - 1`` with ``S`` the variance (divisor
        ``n - 1``); ``inf`` when ``S = 0`` and ``<= 0`` when the sample is too
        spread for any Beta distribution.

    Notes
    -----
    ``B(p, N)`` has ``alpha = p N``, ``beta = (1 - p) N``, mean ``p`` and variance
    ``p (1 - p) / (N + 1)`` (the thesis prints ``N - 1``, a typo: its own
    definition ``alpha beta / ((alpha + beta)**2 (alpha + beta + 1))`` gives
    ``N + 1``), so ``N = p (1 - p) / var - 1``.

    References
    ----------
    M. Gebel, Multivariate calibration of classifier scores into the
    probability space, PhD thesis, TU Dortmund (2009), Sec. 4.4.
    U. Garczarek, Classification rules in standardized partition spaces,
    PhD thesis, Universität Dortmund (2002).

    Examples
    --------
    >>> p, N = beta_moments_fit([0.2, 0.4, 0.6])
    >>> round(p, 6), round(N, 6)
    (0.4, 5.0)
    """
    v = np.asarray(values, dtype=np.float64)
    if v.size < 2:
        return float(v.mean()) if v.size else np.nan, np.nan
    mean = float(v.mean())
    var = float(v.var(ddof=1))
    if var == 0.0:
        return mean, np.inf
    return mean, mean * (1.0 - mean) / var - 1.0


#: Beyond this dispersion a Beta law is a point mass for all practical purposes (and scipy's incomplete
#: beta functions become very slow); assignment values this concentrated are treated as constant.
MAX_DISPERSION = 1e8


def _beta_quantile(p, N, u):
    return betaincinv(p * N, (1.0 - p) * N, u)


class AssignmentValueCalibrator(BinaryProbabilisticCalibrator):
    """Garczarek's assignment-value calibration of binary probabilities or scores.

    Parameters
    ----------
    input_kind : {"probability", "score"}, default="probability"
        ``"score"``: inputs are first mapped into ``[0, 1]`` by simple
        normalisation (Eq. 4.1, ``rho = 1``, ``M`` fitted on the training
        scores), as the thesis requires.
    max_candidates : int, default=2000
        Upper bound on the number of dispersion values ``N`` tried per
        partition; when the integer range is larger, a geometric grid of
        integers (including both ends) is used instead.
    level : float, default=0.95
        Level of the local-correctness interval used by
        :meth:`predict_interval` and :meth:`predict_mass`.

    Attributes
    ----------
    partitions_ : list of dict
        One entry per assigned class (index 0 = negative, 1 = positive) with
        keys ``"n"`` (``N_T``), ``"n_correct"``, ``"correctness"``
        (``p_T``, possibly guarded), ``"assignment_mean"`` and
        ``"assignment_dispersion"`` (``p_hat_A``, ``N_hat_A``), ``"dispersion"``
        (the chosen ``N``) and ``"kind"`` (``"beta"``, ``"constant"`` or
        ``"empty"``).
    scale_ : float or None
        Normalisation constant for ``input_kind="score"``.
    classes_ : ndarray of shape (2,)

    Notes
    -----
    Gebel (2009), Sec. 4.4.3, after Garczarek (2002):

    1. Assign ``c_hat = +`` when ``p_+ > 0.5``; the assignment value is
       ``a = max(p_+, 1 - p_+)`` (Eq. 4.9).
    2. Per partition ``T_k``: fit ``B(p_hat_A, N_hat_A)`` to the assignment
       values by moments, and compute the local correctness ``p_T``
       (Eq. 4.10).
    3. Map ``P(k | a) = F^{-1}_{B(p_T, N)}(F_{B(p_hat_A, N_hat_A)}(a))`` (Eq. 4.11);
       the other class gets the complement.
    4. ``N`` is the integer between ``N_T`` and ``N_hat_A`` (inclusive) that
       *maximises* ``O_av = #correct + Ac`` (Eq. 4.12) on the partition, where
       ``#correct`` counts the samples correctly classified *after*
       calibration and ``Ac`` is Garczarek's accuracy with ``K = 2``
       (Gebel 2009, Sec. 4.4.3: the prose says maximise, Algorithm 2 says
       minimise; both terms are "higher is better").

    Guards (not in the thesis, which leaves these cases open): a local correctness
    of 0 or 1 is replaced by ``(n_correct + 0.5) / (N_T + 1)``; a partition
    whose assignment values have zero variance, fewer than two members or
    ``N_hat_A <= 0`` is mapped to that (guarded) local correctness as a
    constant; a test point falling in a partition that was empty in
    training keeps its input probability.

    References
    ----------
    U. Garczarek, *Classification rules in standardized partition spaces*,
    PhD thesis, Universitaet Dortmund, 2002.  Gebel (2009), Sec. 4.4.

    Examples
    --------
    >>> rng = np.random.RandomState(0)
    >>> p = rng.uniform(0, 1, 300)
    >>> y = (rng.uniform(0, 1, 300) < 0.2 + 0.6 * p).astype(int)
    >>> cal = AssignmentValueCalibrator().fit(p, y)
    >>> q = cal.predict_proba([0.1, 0.9])[:, 1]
    >>> bool(q[0] < 0.5 < q[1])
    True
    """

    scale_: float | None

    def __init__(self, input_kind: str = "probability", *, max_candidates: int = 2000, level: float = 0.95):
        self.input_kind = input_kind
        self.max_candidates = max_candidates
        self.level = level

    # -- helpers -----------------------------------------------------------------------------
    def _to_probability(self, s, fitting=False):
        if self.input_kind == "probability":
            if np.any(s < 0) or np.any(s > 1):
                raise ValueError(
                    "AssignmentValueCalibrator with input_kind='probability' needs values in [0, 1]; got "
                    f"values from {s.min():.4g} to {s.max():.4g}. Pass input_kind='score' for decision values."
                )
            return s
        if self.input_kind == "score":
            if fitting:
                scale = float(np.max(np.abs(s)))
                self.scale_ = scale
                if scale == 0.0:
                    raise ValueError("All training scores are 0; they cannot be normalised.")
            return simple_normalization(s, rho=1.0, scale=self.scale_)
        raise ValueError(f"`input_kind` must be 'probability' or 'score'; got {self.input_kind!r}.")

    def _candidates(self, n_t, n_a):
        lo, hi = sorted((float(n_t), min(float(n_a), MAX_DISPERSION)))
        lo_int = max(1.0, np.ceil(lo))
        hi_int = max(lo_int, np.floor(hi))
        limit = int(self.max_candidates)
        if hi_int - lo_int + 1 <= limit:
            return np.arange(lo_int, hi_int + 1.0)
        return np.unique(np.round(np.geomspace(lo_int, hi_int, limit)))

    @staticmethod
    def _map(part, a, correctness=None, dispersion=None):
        p_t = part["correctness"] if correctness is None else correctness
        N = part["dispersion"] if dispersion is None else dispersion
        if part["kind"] == "constant":
            return np.full_like(a, p_t)
        pa, na = part["assignment_mean"], part["assignment_dispersion"]
        u = betainc(pa * na, (1.0 - pa) * na, np.clip(a, 0.0, 1.0))
        return _beta_quantile(p_t, N, u)

    # -- fitting -------------------------------------------------------------------------------
    def _fit(self, s, y):
        check_level(self.level, meaning="a credible level")
        if int(self.max_candidates) < 2:
            raise ValueError(f"`max_candidates` must be an integer >= 2; got {self.max_candidates!r}.")
        self.scale_ = None
        p_pos = self._to_probability(s, fitting=True)
        assigned = (p_pos > 0.5).astype(np.intp)
        assignment = np.where(assigned == 1, p_pos, 1.0 - p_pos)
        self.partitions_ = []
        for k in (0, 1):
            members = assigned == k
            a = assignment[members]
            correct = (y[members] == k).astype(np.float64)
            n_t = int(members.sum())
            part: dict[str, Any] = {"n": n_t, "n_correct": int(correct.sum())}
            if n_t == 0:
                part.update(
                    kind="empty",
                    correctness=np.nan,
                    assignment_mean=np.nan,
                    assignment_dispersion=np.nan,
                    dispersion=np.nan,
                )
                self.partitions_.append(part)
                continue
            p_t = correct.mean()
            if p_t in (0.0, 1.0):
                p_t = (part["n_correct"] + 0.5) / (n_t + 1.0)
            pa, na = beta_moments_fit(a)
            part.update(correctness=float(p_t), assignment_mean=pa, assignment_dispersion=na)
            if not (np.isfinite(na) and 0 < na <= MAX_DISPERSION and 0 < pa < 1):
                part.update(kind="constant", dispersion=np.nan)
                self.partitions_.append(part)
                continue
            part["kind"] = "beta"
            best: tuple[float, float] | None = None
            for N in self._candidates(n_t, na):
                q = self._map(part, a, dispersion=N)
                n_correct_after = np.sum(np.where(q > 0.5, correct, 1.0 - correct))
                accuracy = 1.0 - 2.0 * np.mean(np.sqrt(2.0) * np.abs(correct - q))
                objective = n_correct_after + accuracy
                if best is None or objective > best[0]:
                    best = (objective, N)
            assert best is not None  # _candidates yields at least one value
            part["dispersion"] = float(best[1])
            part["objective"] = float(best[0])
            self.partitions_.append(part)

    # -- prediction ----------------------------------------------------------------------------
    def _assigned(self, s):
        p_pos = self._to_probability(s)
        assigned = (p_pos > 0.5).astype(np.intp)
        return p_pos, assigned, np.where(assigned == 1, p_pos, 1.0 - p_pos)

    def _positive_probability(self, s):
        p_pos, assigned, a = self._assigned(s)
        out = p_pos.copy()
        for k in (0, 1):
            part = self.partitions_[k]
            members = assigned == k
            if part["kind"] == "empty" or not members.any():
                continue
            q = self._map(part, a[members])
            out[members] = q if k == 1 else 1.0 - q
        return out

    def predict_interval(self, scores: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Interval for ``P(classes_[1] | a)`` from the uncertainty of the local correctness.

        Parameters
        ----------
        scores : array_like of shape (N,)

        Returns
        -------
        lower, upper : ndarray of shape (N,)

        Notes
        -----
        dstk's own extension: Garczarek attaches a correctness probability
        ``phi_k ~ B(p_T, N_T)`` to each partition (Gebel 2009, Sec. 4.4.3).
        Here ``p_T`` is replaced by the ends of the equal-tailed
        ``level`` credible interval of the Jeffreys posterior
        ``Beta(n_correct + 1/2, n_wrong + 1/2)``; the map (4.11) is increasing
        in ``p_T``, so the assigned-class probability gets the interval
        between the two mapped values.  Constant partitions use the same
        interval directly; points in a partition empty in training get the
        degenerate interval at their input probability.
        """
        check_is_fitted(self, "partitions_")
        s = self._check_input(scores)
        level = check_level(self.level, meaning="a credible level")
        p_pos, assigned, a = self._assigned(s)
        lower, upper = p_pos.copy(), p_pos.copy()
        for k in (0, 1):
            part = self.partitions_[k]
            members = assigned == k
            if part["kind"] == "empty" or not members.any():
                continue
            good, bad = part["n_correct"] + 0.5, part["n"] - part["n_correct"] + 0.5
            p_lo = betaincinv(good, bad, (1.0 - level) / 2.0)
            p_hi = betaincinv(good, bad, (1.0 + level) / 2.0)
            q_lo = self._map(part, a[members], correctness=p_lo)
            q_hi = self._map(part, a[members], correctness=p_hi)
            if k == 1:
                lower[members], upper[members] = q_lo, q_hi
            else:
                lower[members], upper[members] = 1.0 - q_hi, 1.0 - q_lo
        return np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)

    def predict_mass(self, scores: ArrayLike) -> MassFunction:
        """Binary mass functions from :meth:`predict_interval` (dstk's own extension).

        Parameters
        ----------
        scores : array_like of shape (N,)
            Scores to calibrate.

        Returns
        -------
        MassFunction of batch shape (N,)
            On ``Frame(classes_)``: ``m({classes_[1]}) = lower``,
            ``m({classes_[0]}) = 1 - upper``, ``m(frame) = upper - lower``.
        """
        lower, upper = self.predict_interval(scores)
        return interval_to_mass(lower, upper, self.classes_)
