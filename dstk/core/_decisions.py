"""Decisions from mass functions: single-valued and set-valued."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validation import as_float_array
from ._mass import MassFunction, as_mass_function

__all__ = ["decide", "lower_upper_expectations", "CRITERIA"]

CRITERIA = ("pignistic", "plausibility", "belief", "interval_dominance", "maximin", "maximax")


def _utility_matrix(n, utility, loss, required=False):
    if utility is not None and loss is not None:
        raise ValueError("Pass either `utility` or `loss`, not both.")
    if utility is None and loss is None:
        if required:
            as_float_array(utility, "utility")  # raises the error for None
        return None
    name = "utility" if utility is not None else "loss"
    u = as_float_array(utility if utility is not None else loss, name)
    if u.ndim != 2 or u.shape[1] != n:
        raise ValueError(
            f"The `{name}` matrix must have shape (n_actions, n_labels) = (?, {n}); got {u.shape}."
        )
    if not np.all(np.isfinite(u)):
        raise ValueError(f"The `{name}` matrix contains NaN or infinite values.")
    return u if utility is not None else -u


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
    of u(a, .) with respect to Bel and Pl (Denoeux 2019, Eqs. 13-14).

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
    m = m.normalize()
    n = m.frame.n
    u = _utility_matrix(n, utility, None, required=True)
    focal, fm = m._storage.nonempty_focal()
    member = ((focal[:, None] >> np.arange(n, dtype=np.uint64)[None, :]) & np.uint64(1)).astype(bool)
    # (F, n_actions) min/max utility over each focal set
    big = np.where(member[:, None, :], u[None, :, :], np.inf)
    lo = big.min(axis=-1)
    hi = np.where(member[:, None, :], u[None, :, :], -np.inf).max(axis=-1)
    return fm @ lo, fm @ hi


def decide(
    m: MassFunction,
    *,
    criterion: str = "pignistic",
    utility: ArrayLike | None = None,
    loss: ArrayLike | None = None,
    return_indices: bool = False,
) -> np.ndarray:
    """Decide from a (batched) mass function.

    Parameters
    ----------
    m : MassFunction
    criterion : {"pignistic", "plausibility", "belief", "interval_dominance", "maximin", "maximax"}
        * ``"pignistic"``: maximise the pignistic expected utility (default
          utility: the identity, i.e. the most probable label under BetP);
        * ``"plausibility"``: maximise the plausibility of the singleton
          (with a utility matrix: the upper expected utility, "maximax");
        * ``"belief"``: maximise the belief of the singleton (with a utility
          matrix: the lower expected utility, "maximin");
        * ``"interval_dominance"``: the set of non-dominated actions: ``a``
          is dropped when some ``b`` has a lower expected utility above the
          upper expected utility of ``a`` (for singletons: ``bel({b}) >
          pl({a})``).
    utility, loss : array_like of shape (n_actions, n), optional
        Utility (or loss = minus utility) of each action under each label.
        Without them the actions are the labels with 0-1 utility.
    return_indices : bool, default False
        Return the index of the chosen label in ``m.frame.labels`` instead of
        the label itself.  With a utility or loss matrix the actions are its
        rows, so their indices are returned either way.

    Returns
    -------
    ndarray
        The chosen label (shape ``m.batch_shape``; the labels' own dtype), or
        the index of the chosen label / action; for ``"interval_dominance"``
        a boolean mask of shape ``m.batch_shape + (n_actions,)`` over the
        labels (or actions), in ``m.frame.labels`` order.

    Raises
    ------
    ValueError
        An unknown criterion, both ``utility`` and ``loss``, or a utility/loss
        matrix of the wrong shape or with NaN/infinite values.

    Notes
    -----
    Denoeux (2019), "Decision-making with belief functions: a review", IJAR
    109, Sections 3.1-3.3 (Eqs. 13-18).  Ties go to the smallest index.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> m = MassFunction({"a": 0.4, "b": 0.3, "a,b,c": 0.3})
    >>> str(m.decide("pignistic")), m.decide("interval_dominance").tolist()
    ('a', [True, True, False])
    >>> int(m.decide("pignistic", return_indices=True))
    0
    """
    m = as_mass_function(m, "m")
    chosen = _decide_indices(m, criterion, utility, loss)
    if return_indices or utility is not None or loss is not None or chosen.dtype == bool:
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


def _decide_indices(m, criterion, utility, loss):
    if criterion not in CRITERIA:
        raise ValueError(f"Unknown criterion {criterion!r}; choose one of {CRITERIA}.")
    n = m.frame.n
    u = _utility_matrix(n, utility, loss)
    if u is None and criterion in ("pignistic", "plausibility", "belief", "interval_dominance"):
        if criterion == "pignistic":
            return np.argmax(m.pignistic(), axis=-1)
        mn = m.normalize()
        pl = mn.contour()
        if criterion == "plausibility":
            return np.argmax(pl, axis=-1)
        bel = _singleton_masses(mn)
        if criterion == "belief":
            return np.argmax(bel, axis=-1)
        best_bel = bel.max(axis=-1, keepdims=True)
        return pl >= best_bel
    if u is None:
        u = np.eye(n)
    if criterion == "pignistic":
        return np.argmax(m.pignistic() @ u.T, axis=-1)
    lo, hi = lower_upper_expectations(m, u)
    if criterion in ("belief", "maximin"):
        return np.argmax(lo, axis=-1)
    if criterion in ("plausibility", "maximax"):
        return np.argmax(hi, axis=-1)
    return hi >= lo.max(axis=-1, keepdims=True)


def _singleton_masses(m):
    return m._storage.singleton_masses(m.frame.n)
