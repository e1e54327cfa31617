"""Mass functions from class counts ``(..., n_classes)``.

Counts always come with the classes on the last axis, in class order; binary
counts are ``(..., 2)`` = ``[n_negative, n_positive]`` (a calibration bin, an
isotonic block, a tree leaf).  Below, ``k = counts[..., 1]`` (class-1 counts)
and ``n = counts.sum(-1)``.  Dense layout of a binary mass array ``a`` of
shape ``(..., 4)``: ``a[..., 0] = m(empty) = 0``, ``a[..., 1] = m({0})``,
``a[..., 2] = m({1})``, ``a[..., 3] = m({0, 1})``.

Public functions
----------------
from_counts(counts, *, model=..., classes=None, **options)
    Batched :class:`~dstk.core.MassFunction` on ``Frame(classes)`` (default
    ``Frame(range(n_classes))``).
plausibility_degrees(counts)
    Shaker & Huellermeier's degrees of support ``(pi_plus, pi_minus)``.
clopper_pearson_interval(counts, *, level=0.95)
    The exact binomial interval of the positive-class probability.

The private ``_binary_mass_array(k, n, model)`` is the array fast path used by
the calibration and tree layers.

Models for binary counts (``model=``)
-------------------------------------
``"bayes"``
    m({1}) = k/n, m({0}) = 1 - k/n.  Raises for n = 0.
``"inverse_pignistic"``
    The least-committed consonant mass whose pignistic probability is
    (1 - k/n, k/n): with p = k/n, m({1}) = 2p - 1 and m(frame) = 2(1 - p) when
    p >= 1/2, m({0}) = 1 - 2p and m(frame) = 2p otherwise (Dubois, Prade & Smets).
``"dempster"``
    Dempster's model, Xu et al. (2016) Eq. 24: m({1}) = k/(n+1),
    m({0}) = (n-k)/(n+1), m(frame) = 1/(n+1).
``"confidence_interval"``
    Clopper-Pearson interval [L, U] at level ``level`` = 1 - alpha used
    as the contour 1 on [L, U] and alpha outside (Eq. 25): m({1}) = (1-alpha) L,
    m({0}) = (1-alpha)(1-U) (Eqs. 26c, 27c), L and U from Eq. 28.
``"likelihood"``
    Predictive belief function of the relative binomial likelihood (Eqs. 29-32),
    exact through the regularised incomplete beta function.
``"plausibility"``
    Shaker & Huellermeier's degrees (Busch et al. 2021, section 3.1.2):
    m({1}) = max(pi+ - pi-, 0), m({0}) = max(pi- - pi+, 0), m(frame) = u_a + u_e.

For n = 0 every model except ``"bayes"`` gives the vacuous mass function.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dstk._kernels._jit import call_kernel
from dstk._kernels.counts import (
    likelihood_mass_kernel,
    plausibility_degrees_kernel,
    plausibility_mass_kernel,
)
from dstk._validation import check_counts, check_level
from dstk.core._frame import Frame
from dstk.core._mass import MassFunction

__all__ = [
    "COUNT_MODELS",
    "from_counts",
    "plausibility_degrees",
    "clopper_pearson_interval",
]

#: Names accepted by ``model=`` wherever counts become mass functions (:func:`from_counts`,
#: the calibrators, the tree ensembles).  The first six take binary counts ``(..., 2)``;
#: ``"dempster"`` and ``"imprecise_dirichlet"`` take any number of classes.
COUNT_MODELS = (
    "bayes",
    "inverse_pignistic",
    "dempster",
    "confidence_interval",
    "likelihood",
    "plausibility",
    "imprecise_dirichlet",
)

_BINARY_MODELS = COUNT_MODELS[:6]
_CLASS_COUNT_MODELS = ("dempster", "imprecise_dirichlet")


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------


def _check_allow_fractional(allow_fractional):
    # any truthy value (the text "no") would accept weighted counts silently
    if not (
        isinstance(allow_fractional, (bool, np.bool_))
        or (isinstance(allow_fractional, (int, np.integer)) and allow_fractional in (0, 1))
    ):
        raise ValueError(f"`allow_fractional` must be True or False; got {allow_fractional!r}.")


def _check_counts(k, n, allow_fractional=False):
    """Validate and broadcast (k, n); return float64 arrays of the common shape."""
    _check_allow_fractional(allow_fractional)
    k_arr = check_counts(k, name="k", whole=not allow_fractional)
    n_arr = check_counts(n, name="n", whole=not allow_fractional)
    try:
        k_arr, n_arr = np.broadcast_arrays(k_arr, n_arr)
    except ValueError:
        raise ValueError(
            f"`k` and `n` must have broadcastable shapes; got {np.shape(k_arr)} and {np.shape(n_arr)}."
        ) from None
    if k_arr.size and (k_arr > n_arr).any():
        idx = np.argwhere(k_arr > n_arr)[0]
        idx_t = tuple(int(i) for i in idx)
        raise ValueError(
            f"`k` exceeds `n` at index {idx_t if idx_t else '()'} (k={k_arr[idx_t]!r}, n={n_arr[idx_t]!r}); "
            "k counts the class-1 examples among the n examples, so 0 <= k <= n."
        )
    return k_arr, n_arr


def _check_model(model, allowed):
    if model not in allowed:
        raise ValueError(f"Unknown model {model!r}; choose one of {', '.join(map(repr, allowed))}.")


# ---------------------------------------------------------------------------
# per-model array builders (flat 1-D float64 inputs, validated)
# ---------------------------------------------------------------------------


def _bayes(k, n):
    if (n == 0).any():
        raise ValueError(
            "model='bayes' is undefined for n = 0 (no examples): the proportion k/n does not exist. "
            "Use another model (they return the vacuous mass function for n = 0) or drop empty bins."
        )
    out = np.zeros(k.shape + (4,))
    p = k / n
    out[:, 1] = 1.0 - p
    out[:, 2] = p
    return out


def _inverse_pignistic(k, n):
    out = np.zeros(k.shape + (4,))
    empty = n == 0
    p = np.divide(k, n, out=np.full_like(k, 0.5), where=~empty)
    upper = p >= 0.5
    out[:, 2] = np.where(upper, 2.0 * p - 1.0, 0.0)
    out[:, 1] = np.where(upper, 0.0, 1.0 - 2.0 * p)
    out[:, 3] = np.where(upper, 2.0 * (1.0 - p), 2.0 * p)
    return out


def _dempster(k, n):
    out = np.zeros(k.shape + (4,))
    denominator = n + 1.0
    out[:, 1] = (n - k) / denominator
    out[:, 2] = k / denominator
    out[:, 3] = 1.0 / denominator
    return out


def clopper_pearson_interval(
    counts: ArrayLike, *, level: float = 0.95, allow_fractional: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson (exact) confidence interval for the probability of the positive class.

    Parameters
    ----------
    counts : array_like, shape (..., 2)
        Binary counts ``[n_negative, n_positive]`` on the last axis.
    level : float, default 0.95
        Confidence level 1 - alpha, in (0, 1).
    allow_fractional : bool, default False
        Accept real-valued (weighted) counts.

    Returns
    -------
    lower, upper : ndarray of float64
        The bounds; ``lower = 0`` when k = 0, ``upper = 1`` when k = n, and
        ``[0, 1]`` when n = 0.

    Raises
    ------
    ValueError
        Invalid counts (not ``(..., 2)``, negative, non-finite, or non-integer
        unless ``allow_fractional``) or a ``level`` outside (0, 1).

    Notes
    -----
    Xu et al. (2016) Eq. 28: ``lower = B(alpha/2; k, n-k+1)``,
    ``upper = B(1-alpha/2; k+1, n-k)`` with ``B(q; a, b)`` the q-quantile of
    the beta distribution, computed with :func:`scipy.special.betaincinv`.

    References
    ----------
    Clopper, C. J. and Pearson, E. S. (1934). The use of confidence or fiducial
    limits illustrated in the case of the binomial. Biometrika 26(4), 404-413.

    Examples
    --------
    >>> lower, upper = clopper_pearson_interval([3, 7])
    >>> print(f"{float(lower):.4f} {float(upper):.4f}")
    0.3475 0.9333
    """
    level = check_level(level, meaning="1 - alpha of the Clopper-Pearson interval")
    k, n = _binary_counts(counts, allow_fractional)
    lower, upper = _clopper_pearson(k, n, level)
    broken = ~(np.isfinite(lower) & np.isfinite(upper))
    if broken.any():
        index = tuple(int(i) for i in np.argwhere(broken)[0])
        raise ValueError(
            f"The Clopper-Pearson interval cannot be computed for counts this large (k={float(k[index])!r} "
            f"of n={float(n[index])!r}): scipy's inverse incomplete beta function breaks down. Counts up "
            "to 1e15 are supported."
        )
    return lower, upper


def _clopper_pearson(k, n, level):
    # betaincinv costs ~1 us per call: evaluate it once per distinct (k, n) pair (leaf and bin
    # counts repeat heavily), then scatter back
    if k.size > 64:
        flat_k, flat_n = np.ravel(k), np.ravel(n)
        largest = float(flat_n.max()) if flat_n.size else 0.0
        if largest < 2.0**26 and np.all(flat_n == np.floor(flat_n)) and np.all(flat_k == np.floor(flat_k)):
            key = flat_k.astype(np.int64) * (int(largest) + 1) + flat_n.astype(np.int64)
            if (int(largest) + 1) ** 2 <= 4 * key.size + 4096:  # small counts: a direct table, no sort
                present = np.zeros((int(largest) + 1) ** 2, dtype=bool)
                present[key] = True
                unique = np.flatnonzero(present)
                position = np.empty(present.size, dtype=np.int64)
                position[unique] = np.arange(unique.size)
                inverse = position[key]
            else:
                unique, inverse = np.unique(key, return_inverse=True)
            if unique.size < 0.5 * key.size:
                lower, upper = _clopper_pearson(
                    (unique // (int(largest) + 1)).astype(np.float64),
                    (unique % (int(largest) + 1)).astype(np.float64),
                    level,
                )
                return lower[inverse].reshape(np.shape(k)), upper[inverse].reshape(np.shape(k))
    from scipy import special  # imported here: scipy.special costs ~0.3 s, only this interval needs it

    alpha = 1.0 - level
    with np.errstate(invalid="ignore", divide="ignore"):
        lower = np.where(k > 0, special.betaincinv(np.where(k > 0, k, 1.0), n - k + 1.0, alpha / 2.0), 0.0)
        upper = np.where(
            k < n, special.betaincinv(k + 1.0, np.where(k < n, n - k, 1.0), 1.0 - alpha / 2.0), 1.0
        )
    return lower, upper


def _confidence_interval(k, n, level):
    lower, upper = _clopper_pearson(k, n, level)
    out = np.zeros(k.shape + (4,))
    out[:, 2] = level * lower
    out[:, 1] = level * (1.0 - upper)
    out[:, 3] = 1.0 - out[:, 1] - out[:, 2]
    return out


def _distinct_integer_pairs(k, n):
    """``(first, inverse)`` with ``(k, n)[first]`` the distinct pairs and ``inverse`` each row's, or None.

    For integer counts whose pairs 0 <= k <= n <= max(n) number at most max(rows / 2, 2**16)
    (the condition of the kernels' memo table): a presence array over the pair index
    n (n + 1) / 2 + k, O(rows + pairs).  None otherwise (computed row by row).
    """
    size = k.shape[0]
    if size == 0 or not (np.all(k == np.floor(k)) and np.all(n == np.floor(n))):
        return None
    largest = float(n.max())
    entries = (largest + 1.0) * (largest + 2.0) / 2.0
    if largest > 1e6 or entries > max(size / 2.0, 65536.0):
        return None
    n_int = n.astype(np.int64)
    index = n_int * (n_int + 1) // 2 + k.astype(np.int64)
    first_row = np.full(int(entries), -1, dtype=np.int64)
    first_row[index[::-1]] = np.arange(size - 1, -1, -1)  # the last write wins: the first row of each pair
    present = np.flatnonzero(first_row >= 0)
    position = np.empty(int(entries), dtype=np.int64)
    position[present] = np.arange(present.size)
    return first_row[present], position[index]


def _likelihood(k, n):
    k = np.ascontiguousarray(k)
    n = np.ascontiguousarray(n)
    # integer counts repeat: the masses of each distinct pair once (run interpreted when they are
    # few: no compilation on a cold start), then one row per count
    pairs = _distinct_integer_pairs(k, n)
    if pairs is not None and pairs[0].size < k.shape[0]:
        first, inverse = pairs
        return _likelihood_rows(np.ascontiguousarray(k[first]), np.ascontiguousarray(n[first]))[inverse]
    return _likelihood_rows(k, n)


def _likelihood_rows(k, n):
    # the kernel's limit counts 10 + sqrt(n) per row interpreted with its callees, rows alone with
    # its callees compiled
    limit = likelihood_mass_kernel.interpreted_max_work
    work = 10 * k.shape[0]
    if work <= limit:
        work += int(np.sqrt(n).sum())
    if work <= limit:
        return call_kernel(likelihood_mass_kernel, k, n, work=work)
    return call_kernel(likelihood_mass_kernel, k, n, work=k.shape[0], compiled_callees=True)


def _plausibility(k, n):
    return call_kernel(
        plausibility_mass_kernel,
        np.ascontiguousarray(k),
        np.ascontiguousarray(n),
        work=k.shape[0],
    )


# ---------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------


def plausibility_degrees(
    counts: ArrayLike, *, allow_fractional: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Shaker & Huellermeier's degrees of support of class 1 and class 0.

    Parameters
    ----------
    counts : array_like, shape (..., 2)
        Binary counts ``[n_negative, n_positive]`` on the last axis, e.g. of a
        tree leaf.
    allow_fractional : bool, default False
        Accept real-valued (weighted) counts; the formula is the same.

    Returns
    -------
    pi_plus, pi_minus : ndarray of float64
        Arrays of shape ``counts.shape[:-1]``, each in [0, 1].
        Epistemic uncertainty is ``min(pi_plus, pi_minus)`` and aleatoric
        uncertainty ``1 - max(pi_plus, pi_minus)``.

    Raises
    ------
    ValueError
        Counts not of shape ``(..., 2)``; negative, non-finite or (unless
        ``allow_fractional``) non-integer counts.

    Notes
    -----
    Busch et al. (2021), section 3.1.2, after Shaker & Huellermeier: with
    p = n_positive, q = n_negative, n = p + q, p_hat = p/n and the relative likelihood
    pl(theta) = theta^p (1-theta)^q / (p_hat^p (1-p_hat)^q),

    pi_plus = sup_theta min(pl(theta), 2 theta - 1),
    pi_minus = sup_theta min(pl(theta), 1 - 2 theta).

    pi_plus = 2 theta* - 1 where theta* >= max(p_hat, 1/2) solves
    pl(theta) = 2 theta - 1; it is found by safeguarded Newton iterations on
    ``log pl((1 + e^v)/2) - v = 0`` in a numba kernel (log domain: no underflow
    and **no count rescaling**, unlike the reference code which rescales
    counts above 537).  ``log pl`` is computed as ``-n KL(p_hat || theta)``
    from ``theta - p_hat``, with no cancellation between the two
    log-likelihoods, so the relative accuracy stays within about 1e-13
    (a few ulps of ``log pi``) at any count.
    n = 0 gives (1, 1); a pure leaf (q = 0) gives pi_plus = 1.

    References
    ----------
    Shaker, M. H. and Huellermeier, E. (2020). Aleatoric and epistemic
    uncertainty with random forests. IDA 2020.
    Busch, J., Kulessa, M., Loza Mencia, E. and Blockeel, H. (2021).
    Combining predictions under uncertainty: the case of random decision
    trees. Discovery Science 2021.

    Examples
    --------
    >>> pi_plus, pi_minus = plausibility_degrees([[1, 1], [1, 2], [0, 0]])
    >>> print(pi_plus.round(6), pi_minus.round(6))
    [0.618034 0.712083 1.      ] [0.618034 0.411958 1.      ]
    """
    k, n = _binary_counts(counts, allow_fractional)
    return _plausibility_degrees(k, n)


def _plausibility_degrees(k_arr, n_arr):
    """Degrees of support from validated ``(k, n)`` arrays of one shape."""
    shape = k_arr.shape
    pi_plus, pi_minus = call_kernel(
        plausibility_degrees_kernel,
        np.ascontiguousarray(k_arr).reshape(-1),
        np.ascontiguousarray(n_arr).reshape(-1),
        work=k_arr.size,
    )
    return pi_plus.reshape(shape), pi_minus.reshape(shape)


def _binary_mass_array(
    k: ArrayLike,
    n: ArrayLike,
    model: str = "likelihood",
    *,
    level: float = 0.95,
    allow_fractional: bool = False,
) -> np.ndarray:
    """Dense binary mass arrays ``(..., 4)`` from (class-1 count, total), the fast path.

    ``k`` and ``n`` broadcast, ``0 <= k <= n``; the formulas are those of
    :func:`from_counts`.  Used by the calibration and tree layers, which hold
    their counts as (k, n) pairs.
    """
    _check_model(model, _BINARY_MODELS)
    # checked whatever the model: a calibrator passes its ``level`` along unused by the other models
    level = check_level(level, meaning="1 - alpha of the Clopper-Pearson interval")
    k_arr, n_arr = _check_counts(k, n, allow_fractional)
    shape = k_arr.shape
    k_flat = np.ascontiguousarray(k_arr).reshape(-1)
    n_flat = np.ascontiguousarray(n_arr).reshape(-1)
    if model == "bayes":
        out = _bayes(k_flat, n_flat)
    elif model == "inverse_pignistic":
        out = _inverse_pignistic(k_flat, n_flat)
    elif model == "dempster":
        out = _dempster(k_flat, n_flat)
    elif model == "confidence_interval":
        out = _confidence_interval(k_flat, n_flat, level)
    elif model == "likelihood":
        out = _likelihood(k_flat, n_flat)
    elif np.any(n_flat > 2.0**53):  # the plausibility kernel's logarithms break down (compiled or not)
        out = np.full(k_flat.shape + (4,), np.nan)
    else:
        out = _plausibility(k_flat, n_flat)
    if not np.isfinite(out).all():
        row = int(np.flatnonzero(~np.isfinite(out).all(axis=-1))[0])
        raise ValueError(
            f"model={model!r} cannot compute masses for counts this large (k={float(k_flat[row])!r} of "
            f"n={float(n_flat[row])!r}): its float64 arithmetic breaks down. Counts up to 1e15 are "
            "supported; use model='dempster' or model='imprecise_dirichlet' for larger ones."
        )
    return out.reshape(shape + (4,))


def _binary_counts(counts, allow_fractional):
    """Validate binary counts ``(..., 2)``; return ``(k, n)`` = (class-1 counts, totals)."""
    arr = _check_class_counts(counts, allow_fractional)
    if arr.shape[-1] != 2:
        raise ValueError(
            f"`counts` must be binary counts of shape (..., 2) = [n_negative, n_positive]; "
            f"got shape {arr.shape}."
        )
    return arr[..., 1], arr.sum(axis=-1)


# ---------------------------------------------------------------------------
# multi-class counts
# ---------------------------------------------------------------------------


def _check_class_counts(counts, allow_fractional):
    _check_allow_fractional(allow_fractional)
    arr = check_counts(counts, name="counts", whole=not allow_fractional)
    if arr.ndim == 0:
        raise ValueError("`counts` must have a last axis of classes, shape (..., n_classes); got a scalar.")
    n_classes = arr.shape[-1]
    if n_classes < 2:
        raise ValueError(f"`counts` needs at least two classes on its last axis; got shape {arr.shape}.")
    if n_classes > 20:
        raise ValueError(
            f"`counts` has {n_classes} classes; the dense representation needs 2**{n_classes} "
            "masses per function. At most 20 classes are supported."
        )
    with np.errstate(over="ignore"):
        finite_totals = np.isfinite(arr.sum(axis=-1)).all()
    if not finite_totals:
        raise ValueError(
            "`counts` sum to more than float64 holds (about 1.8e308) on the last axis; the total N of "
            "every model would be infinite. Pass smaller counts."
        )
    return arr


def _class_mass_array(counts, model="dempster", *, prior_strength=1.0, allow_fractional=False):
    """Dense mass arrays ``(..., 2**n_classes)`` from class counts (Dempster / imprecise Dirichlet)."""
    _check_model(model, _CLASS_COUNT_MODELS)
    if model == "imprecise_dirichlet":
        try:
            strength = float(prior_strength)
        except (TypeError, ValueError):
            raise ValueError(f"`prior_strength` must be a positive number; got {prior_strength!r}.") from None
        if not (strength > 0.0 and np.isfinite(strength)):
            raise ValueError(
                f"`prior_strength` (the s of the imprecise Dirichlet model) must be > 0 and finite; "
                f"got {prior_strength!r}. Walley recommends s = 1 or s = 2."
            )
    else:
        strength = 1.0
    arr = _check_class_counts(counts, allow_fractional)
    n_classes = arr.shape[-1]
    total = arr.sum(axis=-1)
    denominator = total + strength
    out = np.zeros(arr.shape[:-1] + (2**n_classes,))
    for c in range(n_classes):
        out[..., 2**c] = arr[..., c] / denominator
    out[..., 2**n_classes - 1] = strength / denominator
    return out


def _counts_mass_array(counts, model, *, level, prior_strength, allow_fractional):
    """Dense masses from counts ``(..., n_classes)``: the one dispatch behind :func:`from_counts`."""
    _check_model(model, COUNT_MODELS)
    if model in _CLASS_COUNT_MODELS:
        return _class_mass_array(
            counts, model, prior_strength=prior_strength, allow_fractional=allow_fractional
        )
    arr = _check_class_counts(counts, allow_fractional)
    if arr.shape[-1] != 2:
        raise ValueError(
            f"model={model!r} takes binary counts of shape (..., 2) = [n_negative, n_positive]; got "
            f"{arr.shape[-1]} classes on the last axis. For more classes use model='dempster' or "
            "model='imprecise_dirichlet'."
        )
    return _binary_mass_array(
        arr[..., 1], arr.sum(axis=-1), model, level=level, allow_fractional=allow_fractional
    )


def from_counts(
    counts: ArrayLike,
    *,
    model: str = "likelihood",
    classes: Iterable[Any] | None = None,
    level: float = 0.95,
    prior_strength: float = 1.0,
    allow_fractional: bool = False,
) -> MassFunction:
    """Mass functions on the frame of the classes from class counts ``(..., n_classes)``.

    Parameters
    ----------
    counts : array_like, shape (..., n_classes)
        Non-negative class counts with the classes on the last axis, in class
        order (e.g. the class histogram of a bin or of a tree leaf).  Binary
        counts are ``(..., 2)`` = ``[n_negative, n_positive]``.
    model : str, default "likelihood"
        A name in :data:`COUNT_MODELS`.  With ``k = counts[..., 1]`` and
        ``n = counts.sum(-1)``, for binary counts only:

        - ``"bayes"``: m({1}) = k/n (no ignorance); raises for n = 0.
        - ``"inverse_pignistic"``: least-committed consonant mass whose pignistic
          probability is (1 - k/n, k/n).
        - ``"confidence_interval"``: Clopper-Pearson interval as a contour
          (Xu et al. 2016, Eqs. 25-28, with the factor 1 - alpha of Eqs. 26c and 27c).
        - ``"likelihood"``: predictive belief function of the relative binomial
          likelihood (Eqs. 29-32), exact via the regularised incomplete beta.
        - ``"plausibility"``: Shaker & Huellermeier's degrees of support
          (Busch et al. 2021, section 3.1.2).

        For any number of classes:

        - ``"dempster"``: Dempster's model, m({c}) = n_c/(N+1), m(frame) = 1/(N+1)
          (Eq. 24 for two classes).
        - ``"imprecise_dirichlet"``: m({c}) = n_c/(N+s), m(frame) = s/(N+s) with
          s = ``prior_strength`` (Walley 1996).
    classes : sequence, optional
        The labels of the classes, in the order of the last axis of ``counts``;
        the result lives on ``Frame(classes)``.  Default ``range(n_classes)``,
        so binary counts give ``Frame((0, 1))`` with m({1}) at dense index 2.
    level : float, default 0.95
        Level 1 - alpha of the Clopper-Pearson interval (``"confidence_interval"``).
    prior_strength : float, default 1.0
        The s > 0 of the imprecise Dirichlet model.
    allow_fractional : bool, default False
        Accept real-valued (weighted) counts.

    Returns
    -------
    MassFunction
        Batch shape ``counts.shape[:-1]``; the dense index of {c} is ``2**c``.

    Raises
    ------
    ValueError
        Counts without a class axis, negative, non-finite or (unless
        ``allow_fractional``) non-integer; an unknown model or a binary-only model
        with more than two classes; ``level`` outside (0, 1); a non-positive
        ``prior_strength``; ``level`` or ``prior_strength`` given to a model
        that does not use them; n = 0 with ``model="bayes"``; ``classes`` of the wrong
        length.

    Notes
    -----
    With tau_hat = k/n:

    - Dempster (Eq. 24): m({1}) = k/(n+1), m({0}) = (n-k)/(n+1), m(frame) = 1/(n+1).
    - Confidence interval (Eqs. 25-28): contour 1 on the Clopper-Pearson
      interval [L, U] and alpha outside gives m({1}) = (1-alpha) L,
      m({0}) = (1-alpha)(1-U).
    - Likelihood (Eqs. 29-32): pl(tau) = tau^k (1-tau)^(n-k) / L(tau_hat),
      m({1}) = tau_hat - int_0^tau_hat pl, m({0}) = 1 - tau_hat - int_tau_hat^1 pl,
      where int_0^tau_hat pl = B(k+1, n-k+1) I_tau_hat(k+1, n-k+1) / L(tau_hat).
    - Plausibility: m({1}) = max(pi+ - pi-, 0), m({0}) = max(pi- - pi+, 0),
      m(frame) = u_a + u_e with u_e = min(pi+, pi-), u_a = 1 - max(pi+, pi-);
      see :func:`plausibility_degrees`.
    - Imprecise Dirichlet: Bel({c}) = n_c/(N+s) and Pl({c}) = (n_c+s)/(N+s), the
      lower and upper probabilities of Walley's model.

    n = 0 gives the vacuous mass function for every model except "bayes".

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. International Journal of Approximate Reasoning
    72, 55-70.
    Walley, P. (1996). Inferences from multinomial data: learning about a bag
    of marbles. JRSS B 58(1), 3-57.
    Busch, J., Kulessa, M., Loza Mencia, E. and Blockeel, H. (2021). Combining
    predictions under uncertainty: the case of random decision trees.

    Examples
    --------
    >>> masses = from_counts([[3, 7], [0, 10]], model="likelihood")
    >>> masses.to_array().round(4)
    array([[0.    , 0.1533, 0.5059, 0.3407],
           [0.    , 0.    , 0.9091, 0.0909]])
    >>> from_counts([2, 2, 0], model="dempster", classes=("a", "b", "c"))["a"]
    0.4
    """
    # an option the chosen model does not use is an error, not silently ignored
    if model != "confidence_interval" and level != 0.95:
        raise ValueError(
            f"`level` is used by model='confidence_interval' only; model={model!r} does not use it. "
            "Drop `level`, or choose model='confidence_interval'."
        )
    if model != "imprecise_dirichlet" and prior_strength != 1.0:
        raise ValueError(
            f"`prior_strength` is used by model='imprecise_dirichlet' only; model={model!r} does not use it. "
            "Drop `prior_strength`, or choose model='imprecise_dirichlet'."
        )
    values = _counts_mass_array(
        counts,
        model,
        level=level,
        prior_strength=prior_strength,
        allow_fractional=allow_fractional,
    )
    n_classes = values.shape[-1].bit_length() - 1
    if classes is None:
        frame = Frame(tuple(range(n_classes)))
    else:
        frame = classes if isinstance(classes, Frame) else Frame(tuple(classes))
        if len(frame) != n_classes:
            raise ValueError(
                f"`classes` has {len(frame)} labels but `counts` has {n_classes} classes on its last "
                "axis; pass one label per class, in the order of the counts."
            )
    return MassFunction.from_array(values, frame, kind="m", validate=False)
