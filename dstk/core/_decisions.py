"""Decisions from mass functions: one chosen act (:func:`decide`) or the set of admissible acts."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from numpy.typing import ArrayLike

from .._validation import as_float_array, check_in_range, check_option, first_indices
from ..exceptions import InvalidMassError
from . import _dense
from ._mass import MassFunction, as_mass_function

__all__ = [
    "decide",
    "admissible_actions",
    "lower_upper_expectations",
    "owa_weights",
    "CRITERIA",
    "ADMISSIBILITY_CRITERIA",
]

#: criteria of :func:`decide` (one chosen act per mass function)
CRITERIA = (
    "pignistic",
    "plausibility",
    "belief",
    "maximin",
    "maximax",
    "hurwicz",
    "generalized_hurwicz",
    "owa",
)

#: criteria of :func:`admissible_actions` (a set of acts per mass function)
ADMISSIBILITY_CRITERIA = (
    "interval_dominance",
    "maximality",
    "e_admissibility",
    "strong_dominance",
    "weak_dominance",
)

# ties: two expected utilities closer than this (times the largest |utility|, at least 1) are equal
_TIE = 1e-9


def _utility_matrix(n, utility, loss, required=False):
    if utility is not None and loss is not None:
        raise ValueError("Pass either `utility` or `loss`, not both.")
    if utility is None and loss is None:
        if required:
            as_float_array(utility, "utility")  # raises the error for None
        return None
    name = "utility" if utility is not None else "loss"
    u = as_float_array(utility if utility is not None else loss, name)
    if u.ndim != 2 or u.shape[1] != n or u.shape[0] == 0:
        raise ValueError(
            f"The `{name}` matrix must have shape (n_actions, n_labels) = (?, {n}) with at least one action; "
            f"got {u.shape}."
        )
    if not np.all(np.isfinite(u)):
        raise ValueError(f"The `{name}` matrix contains NaN or infinite values.")
    return u if utility is not None else -u


def _focal_sets(m, drop_unused=True):
    """``(member (F, n) bool, masses batch_shape + (F,))`` of the normalised non-empty focal sets.

    Subsets that carry no mass in any row of the batch are dropped when ``drop_unused`` (the linear
    programmes need it; a weighted sum over the subsets does not: their zero masses add nothing).
    """
    m = m.normalize()
    member, fm = m._storage.nonempty_members(m.frame.n)
    fm = np.asarray(fm, dtype=np.float64)
    if not drop_unused:
        return member, fm
    used = np.any(fm.reshape(-1, fm.shape[-1]) != 0, axis=0) if fm.size else np.zeros(0, bool)
    if not np.all(used):
        member, fm = member[used], fm[..., used]
    return member, fm


#: Values of a working array (focal sets x acts x labels) of the lower and upper utilities.
_BLOCK_VALUES = 1 << 22


def _min_max(member, u):
    """Minimum and maximum of each act's utility over each focal set: two arrays (F, n_actions)."""
    n_focal, (n_actions, n) = member.shape[0], u.shape
    _dense.check_array_bytes((2, n_focal, n_actions), "The lower and upper utilities of the focal sets")
    lo, hi = np.empty((n_focal, n_actions)), np.empty((n_focal, n_actions))
    # blocks of focal sets: one (block, n_actions, n) working array of at most _BLOCK_VALUES values
    block = max(1, _BLOCK_VALUES // max(1, n_actions * n))
    for start in range(0, n_focal, block):
        rows = member[start : start + block, None, :]
        lo[start : start + block] = np.where(rows, u[None, :, :], np.inf).min(axis=-1)
        hi[start : start + block] = np.where(rows, u[None, :, :], -np.inf).max(axis=-1)
    return lo, hi


def _expectations(member, fm, u):
    """Lower and upper expected utilities ``batch_shape + (n_actions,)``, in one product over the masses."""
    lo, hi = _min_max(member, u)
    both = fm @ np.concatenate([lo, hi], axis=1)
    k = u.shape[0]
    return both[..., :k], both[..., k:]


def lower_upper_expectations(m: MassFunction, utility: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper expected utilities of each action (Choquet integrals).

    Parameters
    ----------
    m : MassFunction
        Normalised internally (m(empty) removed by Dempster normalisation).
    utility : array_like of shape (n_actions, n)
        Utility of each action (rows) under each label (columns).

    Returns
    -------
    lower, upper : ndarray of shape m.batch_shape + (n_actions,)
        The lower and upper expected utilities of each action.

    Raises
    ------
    ValueError
        A utility matrix of the wrong shape or with NaN/infinite values.
    TotalConflictError
        If some mass function has all its mass on the empty set.

    Notes
    -----
    ``E_lower(a) = sum_A m(A) min_{w in A} u(a, w)`` and
    ``E_upper(a) = sum_A m(A) max_{w in A} u(a, w)``: the Choquet integrals
    of u(a, .) with respect to Bel and Pl (Denoeux 2019, Eqs. 13-14), equal
    to the minimum and maximum of the expected utility over the credal set
    ``{p : P(A) >= Bel(A) for all A}``.

    References
    ----------
    Denoeux, T. (2019). Decision-making with belief functions: a review.
    IJAR 109, 87-110.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> m = MassFunction({"a": 0.6, "a,b": 0.4})
    >>> lower, upper = lower_upper_expectations(m, [[1.0, 0.0], [0.0, 1.0]])
    >>> lower.tolist(), upper.tolist()
    ([0.6, 0.0], [1.0, 0.4])
    """
    m = as_mass_function(m, "m")
    u = _utility_matrix(m.frame.n, utility, None, required=True)
    member, fm = _focal_sets(m, drop_unused=False)
    lower, upper = _expectations(member, fm, u)
    return np.ascontiguousarray(lower), np.ascontiguousarray(upper)


def owa_weights(cardinality: int, *, orness: float) -> np.ndarray:
    """Maximum-entropy OWA weights of a given degree of orness (optimism).

    Parameters
    ----------
    cardinality : int
        Number of weights (the cardinality of a focal set).
    orness : float in [0, 1]
        ``sum_i (k - i) / (k - 1) w_i`` (``i = 1 .. k``, ``k = cardinality``): 1 puts all
        weight on the best outcome (max), 0 on the worst (min), 0.5 spreads it
        evenly (mean).

    Returns
    -------
    ndarray of shape (cardinality,)
        Non-negative weights summing to one, ``w[0]`` for the best outcome.

    Raises
    ------
    ValueError
        ``cardinality`` below 1 or ``orness`` outside [0, 1].

    Notes
    -----
    The weights of maximal entropy ``-sum w_i log w_i`` among those with the
    given orness (O'Hagan's problem) are geometric, ``w_i proportional to
    x**(k - i)`` (Fuller and Majlender 2001, Eq. 2); ``x`` is found by
    root finding.  Yager (1992) uses them, one vector per focal-set
    cardinality, in the OWA decision criterion (Denoeux 2019, Sec. 4.1).

    References
    ----------
    R. Fuller and P. Majlender (2001). An analytic approach for obtaining
    maximal entropy OWA operator weights. Fuzzy Sets and Systems 124, 53-57.

    R. R. Yager (1992). Decision making under Dempster-Shafer uncertainties.
    Int. J. General Systems 20, 233-245.

    Examples
    --------
    >>> owa_weights(2, orness=0.7).round(12).tolist()
    [0.7, 0.3]
    >>> owa_weights(3, orness=0.5).round(12).tolist()
    [0.333333333333, 0.333333333333, 0.333333333333]
    """
    from scipy.optimize import brentq

    if (
        isinstance(cardinality, (bool, np.bool_))
        or not isinstance(cardinality, (int, np.integer))
        or cardinality < 1
    ):
        raise ValueError(f"`cardinality` must be an integer >= 1; got {cardinality!r}.")
    beta = check_in_range(orness, "orness", low=0.0, high=1.0)
    k = int(cardinality)
    if k == 1:
        return np.ones(1)
    position = (k - 1 - np.arange(k)) / (k - 1)  # weight of the i-th best outcome in the orness
    if beta >= 1.0 - 1e-15:
        return np.eye(k)[0]
    if beta <= 1e-15:
        return np.eye(k)[-1]
    if abs(beta - 0.5) < 1e-15:
        return np.full(k, 1.0 / k)

    def weights(log_x):
        logits = (k - 1 - np.arange(k)) * log_x
        w = np.exp(logits - logits.max())
        return w / w.sum()

    # orness of the geometric weights rises from 0 to 1 as log x goes from -inf to inf; a logit span of
    # 800 brackets every orness for few labels, an extreme orness on many labels needs a wider bracket
    def gap(log_x):
        return weights(log_x) @ position - beta

    low, high = -800.0 / k, 800.0 / k
    if gap(low) > 0 or gap(high) < 0:
        low, high = -800.0, 800.0
    log_x = brentq(gap, low, high, xtol=1e-14, rtol=1e-14)
    return weights(log_x)


def _owa_table(member, u, weights, orness, used):
    """``sum over elements of A`` of the OWA of each act's utilities on each focal set: (F, n_actions).

    With ``used`` (a mask over the subsets), subsets of a cardinality that carries no mass get 0: they
    add nothing, and ``weights`` need not cover their cardinality.
    """
    sizes = member.sum(axis=1)
    out = np.zeros((member.shape[0], u.shape[0]))
    for k in np.unique(sizes):
        rows = np.flatnonzero(sizes == k)
        if used is not None and not used[rows].any():
            continue
        w = _owa_vector(int(k), weights, orness)
        elements = np.nonzero(member[rows])[1].reshape(rows.size, int(k))  # (F_k, k) label indices
        values = -np.sort(-u[:, elements], axis=-1)  # (acts, F_k, k), best first
        out[rows] = (values @ w).T
    return out


def _owa_vector(k, weights, orness):
    if weights is None:
        return owa_weights(k, orness=orness)
    w = weights(k) if callable(weights) else weights.get(k) if isinstance(weights, Mapping) else None
    if w is None:
        raise ValueError(
            f"`weights` has no OWA weight vector for focal sets of {k} labels; pass a mapping "
            "{cardinality: weights} covering every cardinality, a callable k -> weights, or `orness`."
        )
    w = as_float_array(w, "weights")
    if w.shape != (k,) or not np.all(np.isfinite(w)) or np.any(w < 0) or abs(w.sum() - 1.0) > 1e-9:
        raise ValueError(
            f"The OWA weights for focal sets of {k} labels must be {k} non-negative numbers summing to one "
            f"(the first for the best outcome); got {w!r}."
        )
    return w


def decide(
    m: MassFunction,
    *,
    criterion: str = "pignistic",
    utility: ArrayLike | None = None,
    loss: ArrayLike | None = None,
    optimism: float | None = None,
    weights: Mapping[int, ArrayLike] | Callable[[int], ArrayLike] | None = None,
    orness: float | None = None,
    return_indices: bool = False,
) -> np.ndarray:
    """One chosen act per mass function, by a decision criterion.

    Parameters
    ----------
    m : MassFunction
        A mass function or a batch of them (normalised internally).
    criterion : str, default "pignistic"
        One of :data:`CRITERIA`; ``u(a, w)`` is the utility of act ``a``
        under label ``w``, the focal sets ``A`` are those of the normalised
        ``m``:

        * ``"pignistic"``: the largest pignistic expected utility
          ``sum_w BetP(w) u(a, w)``;
        * ``"belief"`` / ``"maximin"``: the largest lower expected utility
          ``sum_A m(A) min_{w in A} u(a, w)`` (without a utility matrix
          ``"belief"`` picks the label of largest ``Bel({w})``);
        * ``"plausibility"`` / ``"maximax"``: the largest upper expected
          utility ``sum_A m(A) max_{w in A} u(a, w)`` (without a utility
          matrix ``"plausibility"`` picks the label of largest ``Pl({w})``);
        * ``"hurwicz"``: Hurwicz's pessimism-optimism index applied to the
          interval of expected utilities, ``optimism * E_upper(a) +
          (1 - optimism) * E_lower(a)`` (Strat 1990);
        * ``"generalized_hurwicz"``: Jaffray's generalised Hurwicz criterion,
          Hurwicz's index applied inside each focal set,
          ``sum_A m(A) [optimism max_{w in A} u(a, w) + (1 - optimism)
          min_{w in A} u(a, w)]`` (Denoeux 2019, Eq. 26).  Both Choquet
          integrals are linear in ``m``, so for mass functions the two
          criteria give the same value; ``"hurwicz"`` is the reading on
          expectations and ``"generalized_hurwicz"`` the one on focal sets
          that generalises to a pessimism index per focal set;
        * ``"owa"``: Yager's OWA criterion ``sum_A m(A) OWA_w(u(a, A))``,
          the utilities on each focal set sorted best first and weighted by
          the OWA weights for its cardinality (Yager 1992; Denoeux 2019,
          Sec. 4.1): ``orness=1`` is maximax, ``orness=0`` maximin,
          ``orness=0.5`` the pignistic criterion.
    utility, loss : array_like of shape (n_actions, n), optional
        Utility (or loss = minus utility) of each act (rows) under each label
        (columns).  Without them the acts are the labels with 0-1 utility.
    optimism : float in [0, 1], optional
        Weight of the best outcome in ``"hurwicz"`` and
        ``"generalized_hurwicz"`` (required there, unused otherwise).
    weights : mapping or callable, optional
        OWA weights for ``"owa"``: ``weights[k]`` (or ``weights(k)``) is the
        vector of ``k`` non-negative weights summing to one, the first for
        the best outcome, applied to focal sets of ``k`` labels (needed only
        for the cardinalities of the focal sets).
    orness : float in [0, 1], optional
        For ``"owa"`` instead of ``weights``: the maximum-entropy weights of
        this degree of optimism (:func:`owa_weights`).
    return_indices : bool, default False
        Return the index of the chosen label in ``m.frame.labels`` instead of
        the label itself.  With a utility or loss matrix the acts are its
        rows, so their indices are returned either way.

    Returns
    -------
    ndarray of shape m.batch_shape
        The chosen label (the labels' own dtype) or the index of the chosen
        label / act; ties (values closer than ``1e-9`` times the largest
        absolute utility, at least 1) go to the smallest index.

    Raises
    ------
    ValueError
        An unknown criterion (a set-valued criterion names
        :func:`admissible_actions`), both ``utility`` and ``loss``, a utility
        or loss matrix of the wrong shape or with NaN/infinite values, a
        missing or invalid ``optimism``, ``weights`` or ``orness``.
    InvalidMassError
        If a mass function of the batch has NaN masses (``on_conflict="nan"``):
        it has no best act.

    See Also
    --------
    admissible_actions : the set of acts that a partial order leaves.

    Notes
    -----
    Denoeux (2019), "Decision-making with belief functions: a review", IJAR
    109, Sections 3-4 (lower and upper expectations Eqs. 13-14, the
    generalised Hurwicz criterion Eq. 26, the OWA criterion Sec. 4.1).

    References
    ----------
    T. Denoeux (2019). Decision-making with belief functions: a review.
    IJAR 109, 87-110.

    J.-Y. Jaffray (1989). Linear utility theory for belief functions.
    Operations Research Letters 8, 107-112.

    T. M. Strat (1990). Decision analysis using belief functions. IJAR 4,
    391-417.

    R. R. Yager (1992). Decision making under Dempster-Shafer uncertainties.
    Int. J. General Systems 20, 233-245.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> m = MassFunction({"a": 0.4, "b": 0.3, "a,b,c": 0.3})
    >>> str(m.decide("pignistic")), int(m.decide("pignistic", return_indices=True))
    ('a', 0)
    >>> u = [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]
    >>> # act 0: 0.4 + 0.3 (0.9 * 1 + 0.1 * 0) = 0.67; act 1: 0.3 + 0.3 * 0.9 = 0.57
    >>> int(decide(m, criterion="hurwicz", utility=u, optimism=0.9))
    0
    """
    m = as_mass_function(m, "m")
    chosen = _decide_indices(m, criterion, utility, loss, optimism, weights, orness)
    if return_indices or utility is not None or loss is not None:
        return chosen
    return _label_array(m.frame.labels)[chosen]


def _label_array(labels):
    """The frame's labels as an ndarray (their own dtype when numpy can keep it, else object).

    Labels of several types (``0`` and ``"a"``, or ``1`` and ``2.5``) are kept as objects: numpy would turn
    them into strings or floats, which are not the frame's labels.
    """
    try:
        array = np.asarray(labels) if len({type(label) for label in labels}) == 1 else None
    except (ValueError, TypeError):
        array = None
    if array is None or array.ndim != 1 or array.dtype.kind in "OV":
        array = np.empty(len(labels), dtype=object)
        array[:] = list(labels)
    return array


#: Criteria whose 0-1-utility decision needs only m({a}) and pl({a}) (the structured forms).
_SINGLETON_CRITERIA = ("maximin", "maximax", "hurwicz", "generalized_hurwicz")


def _first_best(values, tol):
    """The first index whose value is within ``tol`` of the row's largest (ties to the smallest index).

    A plain argmax would let rounding choose between equal expectations: a matrix product may give two
    identical acts' expectations that differ in the last bit.
    """
    k = values.shape[-1]
    if k > _COLUMN_LOOP_ACTS:
        best = values.max(axis=-1, keepdims=True)
        if np.isnan(best).any():
            _raise_nan_rows(np.isnan(best[..., 0]))
        return np.argmax(values >= best - tol, axis=-1)
    # few acts: a loop over the columns is as fast as one argmax (a reduction over a short last axis is not)
    best = values[..., 0].copy()
    for j in range(1, k):
        np.maximum(best, values[..., j], out=best)
    if np.isnan(best).any():
        _raise_nan_rows(np.isnan(best))
    threshold = best - tol
    chosen = np.full(values.shape[:-1], k - 1, dtype=np.intp)
    for j in range(k - 2, -1, -1):
        chosen[values[..., j] >= threshold] = j
    return chosen[()]


#: Up to this many acts :func:`_first_best` loops over the columns.
_COLUMN_LOOP_ACTS = 32


def _raise_nan_rows(missing):
    bad = np.flatnonzero(missing)
    raise InvalidMassError(
        f"{bad.size} mass function(s) of the batch have NaN masses (on_conflict='nan'; flat indices "
        f"[{first_indices(bad)}]), and a NaN has no best act: decide the other rows, use "
        "admissible_actions (an empty set there) or on_conflict='vacuous'."
    )


def _pignistic(m):
    """``m.pignistic()``, with the NaN rows named (the transform reports them as a total conflict)."""
    try:
        return m.pignistic()
    except InvalidMassError:
        masses = np.asarray(m._storage.nonempty_focal()[1])
        missing = np.isnan(masses).any(axis=-1) if masses.size else np.zeros(masses.shape[:-1], bool)
        if missing.any():
            _raise_nan_rows(missing)
        raise


def _decide_indices(m, criterion, utility, loss, optimism, weights, orness):
    if criterion in ADMISSIBILITY_CRITERIA:
        raise ValueError(
            f"criterion={criterion!r} gives a set of acts, not one: use "
            f"dstk.admissible_actions(m, criterion={criterion!r}) (a boolean mask over the acts)."
        )
    check_option(criterion, "criterion", CRITERIA)
    if criterion in ("hurwicz", "generalized_hurwicz"):
        if optimism is None:
            raise ValueError(
                f"criterion={criterion!r} needs `optimism`, the weight in [0, 1] of the best outcome."
            )
        alpha = check_in_range(optimism, "optimism", low=0.0, high=1.0)
    if criterion == "owa":
        if (weights is None) == (orness is None):
            raise ValueError(
                "criterion='owa' needs exactly one of `weights` (OWA weight vectors) or `orness`."
            )
        if weights is not None and not (callable(weights) or isinstance(weights, Mapping)):
            raise ValueError(
                "`weights` must be a mapping {cardinality: weight vector} or a callable k -> weight vector; "
                f"got {type(weights).__name__}."
            )
        if orness is not None:
            check_in_range(orness, "orness", low=0.0, high=1.0)
    n = m.frame.n
    u = _utility_matrix(n, utility, loss)
    tol = _TIE * (1.0 if u is None else max(1.0, float(np.abs(u).max())))
    if u is None and criterion in ("pignistic", "plausibility", "belief"):
        if criterion == "pignistic":
            return _first_best(_pignistic(m), tol)
        mn = m.normalize()
        if criterion == "plausibility":
            return _first_best(mn.contour(), tol)
        return _first_best(mn._storage.singleton_masses(n), tol)
    if u is None and m._storage.is_structured and criterion in _SINGLETON_CRITERIA:
        # 0-1 utilities: min / max of 1[a = w] over B is 1[B = {a}] / 1[a in B], so the lower and upper
        # expectations are m({a}) and pl({a}) of the normalised mass function (no focal set listed)
        mn = m.normalize()
        lower, upper = mn._storage.singleton_masses(n), mn.contour()
        weight = 0.0 if criterion == "maximin" else 1.0 if criterion == "maximax" else alpha
        return _first_best(weight * upper + (1.0 - weight) * lower, tol)
    if u is None:
        u = np.eye(n)
    if criterion == "pignistic":
        return _first_best(_pignistic(m) @ u.T, tol)
    member, fm = _focal_sets(m, drop_unused=False)
    if criterion == "owa":
        used = None if weights is None else np.any(fm.reshape(-1, fm.shape[-1]) != 0, axis=0)
        return _first_best(fm @ _owa_table(member, u, weights, orness, used), tol)
    lo, hi = _min_max(member, u)
    if criterion in ("belief", "maximin"):
        return _first_best(fm @ lo, tol)
    if criterion in ("plausibility", "maximax"):
        return _first_best(fm @ hi, tol)
    if criterion == "hurwicz":
        lower, upper = _expectations(member, fm, u)
        return _first_best(alpha * upper + (1.0 - alpha) * lower, tol)
    return _first_best(fm @ (alpha * hi + (1.0 - alpha) * lo), tol)  # generalized_hurwicz


def admissible_actions(
    m: MassFunction,
    *,
    criterion: str,
    utility: ArrayLike | None = None,
    loss: ArrayLike | None = None,
    return_labels: bool = False,
) -> np.ndarray:
    """The acts that a partial preference order leaves undominated, per mass function.

    Parameters
    ----------
    m : MassFunction
        A mass function or a batch of them (normalised internally).
    criterion : str
        One of :data:`ADMISSIBILITY_CRITERIA`.  With ``E_lower`` and
        ``E_upper`` the lower and upper expected utilities
        (:func:`lower_upper_expectations`) and ``P`` the credal set
        ``{p : P(A) >= Bel(A) for all A}``, an act ``a`` is kept unless:

        * ``"interval_dominance"``: some ``b`` has ``E_lower(b) >
          E_upper(a)``;
        * ``"strong_dominance"``: some ``b`` is strictly preferred under the
          preorder ``b >= a iff E_lower(b) >= E_upper(a)`` (Denoeux 2019,
          Sec. 4.2); it differs from interval dominance on ties only (an act
          whose upper expectation equals another's lower one is dropped
          unless the two intervals coincide in a single point);
        * ``"weak_dominance"``: some ``b`` is strictly preferred under
          ``b >= a iff E_lower(b) >= E_lower(a) and E_upper(b) >=
          E_upper(a)`` (Denoeux 2019, Sec. 4.2);
        * ``"maximality"``: some ``b`` has ``min_{p in P} E_p(u_b - u_a) >
          0``, the minimum being the Choquet integral ``sum_A m(A)
          min_{w in A} (u(b, w) - u(a, w))`` (Walley 1991, Sec. 3.9;
          Troffaes 2007, Sec. 3.3);
        * ``"e_admissibility"``: ``a`` maximises the expected utility ``E_p(u_a)`` for no ``p`` in
          ``P`` (Levi 1974; Troffaes 2007, Sec. 3.4).  Solved exactly, one
          linear programme per candidate act over the allocations of each
          focal set's mass to its elements (``sum_A |A|`` variables, scipy's
          HiGHS): the credal set of a belief function is the set of those
          allocations.

        E-admissible acts are maximal, and maximal acts are undominated by
        interval dominance.  Expected utilities closer than ``1e-9`` times
        the largest absolute utility (at least 1) count as equal.
    utility, loss : array_like of shape (n_actions, n), optional
        Utility (or loss = minus utility) of each act under each label.
        Without them the acts are the labels with 0-1 utility.
    return_labels : bool, default False
        Return, per mass function, the frozenset of the admissible acts'
        labels (the frame's labels; with a utility or loss matrix the acts'
        row indices) instead of the boolean mask.

    Returns
    -------
    ndarray
        Boolean mask of shape ``m.batch_shape + (n_actions,)``, true for the
        admissible acts (acts in the order of the labels or of the utility
        rows); with ``return_labels=True`` an object array of shape
        ``m.batch_shape`` of frozensets.  Rows whose masses are NaN (the
        ``on_conflict="nan"`` policy) have no admissible act (an all-false
        mask, an empty set).

    Raises
    ------
    ValueError
        An unknown criterion (a single-act criterion names :func:`decide`),
        both ``utility`` and ``loss``, or a utility or loss matrix of the
        wrong shape or with NaN/infinite values.
    TotalConflictError
        If some mass function has all its mass on the empty set.

    See Also
    --------
    decide : one chosen act per mass function.

    References
    ----------
    T. Denoeux (2019). Decision-making with belief functions: a review.
    IJAR 109, 87-110.

    M. C. M. Troffaes (2007). Decision making under uncertainty using
    imprecise probabilities. IJAR 45, 17-29.

    P. Walley (1991). Statistical Reasoning with Imprecise Probabilities.
    Chapman and Hall.

    I. Levi (1974). On indeterminate probabilities. J. Philosophy 71,
    391-418.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> vacuous = MassFunction({"x,y": 1.0})
    >>> hedge = [[1.0, 0.0], [0.0, 1.0], [0.6, 0.6]]
    >>> admissible_actions(vacuous, criterion="e_admissibility", utility=hedge).tolist()
    [True, True, True]
    >>> poor_hedge = [[1.0, 0.0], [0.0, 1.0], [0.4, 0.4]]
    >>> admissible_actions(vacuous, criterion="e_admissibility", utility=poor_hedge).tolist()
    [True, True, False]
    >>> admissible_actions(vacuous, criterion="maximality", utility=poor_hedge).tolist()
    [True, True, True]
    >>> m = MassFunction({"a": 0.5, "b": 0.2, "a,b,c": 0.3})
    >>> sorted(admissible_actions(m, criterion="interval_dominance", return_labels=True).item())
    ['a', 'b']
    """
    m = as_mass_function(m, "m")
    if criterion in CRITERIA:
        raise ValueError(
            f"criterion={criterion!r} chooses one act: use dstk.decide(m, criterion={criterion!r}); "
            f"admissible_actions takes one of {ADMISSIBILITY_CRITERIA}."
        )
    check_option(criterion, "criterion", ADMISSIBILITY_CRITERIA)
    n = m.frame.n
    u = _utility_matrix(n, utility, loss)
    labelled = u is None
    if u is None:
        u = np.eye(n)
    masks = _admissible(m, criterion, u)
    if not return_labels:
        return masks
    names = _label_array(m.frame.labels) if labelled else np.arange(u.shape[0])
    flat = masks.reshape(-1, u.shape[0])
    out = np.empty(flat.shape[0], dtype=object)
    for i, row in enumerate(flat):
        out[i] = frozenset(names[row].tolist())
    return out.reshape(masks.shape[:-1])


def _admissible(m, criterion, u):
    n_actions = u.shape[0]
    tol = _TIE * max(1.0, float(np.abs(u).max()))
    raw = np.asarray(m._storage.nonempty_focal()[1])
    nan_rows = np.isnan(raw).any(axis=-1) if raw.size else np.zeros(raw.shape[:-1], bool)
    member, fm = _focal_sets(m)
    fm = np.where(nan_rows[..., None], 0.0, fm)
    batch = fm.shape[:-1]
    if criterion in ("maximality", "e_admissibility"):
        # D[b, a] = lower expectation of u_b - u_a (Choquet integral), per focal set then per row
        diff = u[:, None, :] - u[None, :, :]  # (b, a, n)
        lowest = np.where(member[:, None, None, :], diff[None], np.inf).min(axis=-1)  # (F, b, a)
        lower_gain = (fm @ lowest.reshape(lowest.shape[0], -1)).reshape(batch + (n_actions, n_actions))
        np.einsum("...ii->...i", lower_gain)[...] = -np.inf  # b = a does not count
        masks = lower_gain.max(axis=-2) <= tol
        if criterion == "e_admissibility":
            masks = _e_admissible(member, fm, u, masks, tol)
    else:
        lower, upper = _expectations(member, fm, u)  # (..., acts)
        lb, ua = lower[..., :, None], upper[..., None, :]  # index [b, a]
        if criterion == "interval_dominance":
            beats = lb > ua + tol
        elif criterion == "strong_dominance":
            geq = lb >= ua - tol  # b >= a
            beats = geq & ~np.swapaxes(geq, -1, -2)
        else:  # weak_dominance
            lower_b, lower_a = lower[..., :, None], lower[..., None, :]
            upper_b = upper[..., :, None]
            geq = (lower_b >= lower_a - tol) & (upper_b >= ua - tol)
            beats = geq & ~np.swapaxes(geq, -1, -2)
        idx = np.arange(n_actions)
        beats[..., idx, idx] = False
        masks = ~beats.any(axis=-2)
    return masks & ~nan_rows[..., None]


def _e_admissible(member, fm, u, maximal, tol):
    """E-admissibility among the maximal acts, one linear programme per undecided act and row."""
    from scipy.optimize import linprog

    n_actions = u.shape[0]
    flat_fm = fm.reshape(-1, fm.shape[-1])
    flat_max = maximal.reshape(-1, n_actions)
    out = np.zeros_like(flat_max)
    focal_of, element_of = np.nonzero(member)  # one variable per (focal set, element) pair
    for row in range(flat_fm.shape[0]):
        candidates = flat_max[row]
        if not candidates.any():
            continue
        masses = flat_fm[row]
        keep = masses[focal_of] > 0
        focal, element = focal_of[keep], element_of[keep]
        # the act best under one distribution of the credal set (BetP) is E-admissible
        p = np.bincount(element, weights=masses[focal] / member[focal].sum(axis=1), minlength=u.shape[1])
        expected = u @ p
        out[row] = candidates & (expected >= expected.max() - tol)
        if n_actions == 1:
            continue
        used = np.flatnonzero(masses > 0)
        a_eq = (focal[None, :] == used[:, None]).astype(np.float64)
        a_eq = np.hstack([a_eq, np.zeros((used.size, 1))])
        cost = np.zeros(focal.size + 1)
        cost[-1] = -1.0  # maximise the margin t
        for a in np.flatnonzero(candidates & ~out[row]):
            others = np.delete(np.arange(n_actions), a)
            # t - sum_s x_s (u_a - u_b)(element_s) <= 0 for every other act b
            a_ub = np.hstack([-(u[a][None, :] - u[others])[:, element], np.ones((others.size, 1))])
            result = linprog(
                cost,
                A_ub=a_ub,
                b_ub=np.zeros(others.size),
                A_eq=a_eq,
                b_eq=masses[used],
                bounds=[(0, None)] * focal.size + [(None, None)],
                method="highs",
            )
            if result.status != 0:  # pragma: no cover - a feasible, bounded programme by construction
                raise RuntimeError(f"E-admissibility linear programme failed: {result.message}")
            out[row, a] = -result.fun >= -tol
    return out.reshape(maximal.shape)
