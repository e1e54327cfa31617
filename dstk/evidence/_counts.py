"""Mass functions from counts: k successes (class 1) among n trials.

One count pair ``(k, n)`` (a calibration bin, an isotonic block, a tree leaf)
is turned into a mass function on the binary frame ``Frame((0, 1))``; ``k``
counts class 1.  Dense layout of a binary mass array ``a`` of shape
``(..., 4)``: ``a[..., 0] = m(empty) = 0``, ``a[..., 1] = m({0})``,
``a[..., 2] = m({1})``, ``a[..., 3] = m({0, 1})``.

Public functions
----------------
from_counts(k, n, model=..., **options)
    Batched :class:`~dstk.core._mass.MassFunction` (or the raw array with
    ``return_array=True``).
counts_to_mass_array(k, n, model=..., **options)
    The raw ``(..., 4)`` float64 array, the fast path for the calibration and
    tree layers.
plausibility_degrees(k, n)
    Shaker & Huellermeier's degrees of support ``(pi_plus, pi_minus)``.
from_class_counts(counts, model=..., **options)
    Multi-class counts ``(..., n_classes)``: Dempster's model and the
    imprecise Dirichlet model.

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
    Clopper-Pearson interval [L, U] at level ``confidence`` = 1 - alpha used
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

from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from dstk._kernels.counts import (
    likelihood_mass_kernel,
    plausibility_degrees_kernel,
    plausibility_mass_kernel,
)

__all__ = [
    "BINARY_MODELS",
    "CLASS_COUNT_MODELS",
    "from_counts",
    "counts_to_mass_array",
    "plausibility_degrees",
    "from_class_counts",
    "class_counts_to_mass_array",
    "clopper_pearson_interval",
]

BINARY_MODELS = (
    "bayes",
    "inverse_pignistic",
    "dempster",
    "confidence_interval",
    "likelihood",
    "plausibility",
)

CLASS_COUNT_MODELS = ("dempster", "imprecise_dirichlet")


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------


def _as_count_array(values, name):
    arr = np.asarray(values)
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"`{name}` must contain numbers (counts); got objects.") from None
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise ValueError(f"`{name}` must be a numeric array of counts; got dtype {arr.dtype}.")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise ValueError(f"`{name}` must be real counts; got complex dtype {arr.dtype}.")
    return np.asarray(arr, dtype=np.float64)


def _check_counts(k, n, allow_fractional=False):
    """Validate and broadcast (k, n); return float64 arrays of the common shape."""
    k_arr = _as_count_array(k, "k")
    n_arr = _as_count_array(n, "n")
    try:
        k_arr, n_arr = np.broadcast_arrays(k_arr, n_arr)
    except ValueError:
        raise ValueError(
            f"`k` and `n` must have broadcastable shapes; got {np.shape(k_arr)} and {np.shape(n_arr)}."
        ) from None
    for arr, name in ((k_arr, "k"), (n_arr, "n")):
        if arr.size == 0:
            continue
        if not np.isfinite(arr).all():
            raise ValueError(f"`{name}` contains NaN or infinite counts; counts must be finite.")
        if (arr < 0).any():
            bad = arr[arr < 0].flat[0]
            raise ValueError(f"`{name}` contains a negative count ({bad!r}); counts must be >= 0.")
        if not allow_fractional and (np.floor(arr) != arr).any():
            bad = arr[np.floor(arr) != arr].flat[0]
            raise ValueError(
                f"`{name}` contains a non-integer count ({bad!r}). Counts must be whole numbers; "
                "pass `allow_fractional=True` for weighted (real-valued) counts."
            )
    if k_arr.size and (k_arr > n_arr).any():
        idx = np.argwhere(k_arr > n_arr)[0]
        idx_t = tuple(int(i) for i in idx)
        raise ValueError(
            f"`k` exceeds `n` at index {idx_t if idx_t else '()'} (k={k_arr[idx_t]!r}, n={n_arr[idx_t]!r}); "
            "k counts the class-1 examples among the n examples, so 0 <= k <= n."
        )
    return k_arr, n_arr


def _check_confidence(confidence):
    try:
        value = float(confidence)
    except (TypeError, ValueError):
        raise ValueError(f"`confidence` must be a number in (0, 1); got {confidence!r}.") from None
    if not 0.0 < value < 1.0:
        raise ValueError(
            f"`confidence` (the level 1 - alpha of the Clopper-Pearson interval) must lie in (0, 1); "
            f"got {confidence!r}. For a 95% interval pass confidence=0.95."
        )
    return value


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
    k: ArrayLike, n: ArrayLike, confidence: float = 0.95, allow_fractional: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson (exact) confidence interval for a binomial proportion.

    Parameters
    ----------
    k, n : array_like
        Successes and trials (broadcast together), ``0 <= k <= n``.
    confidence : float, default 0.95
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
        Invalid counts or a confidence level outside (0, 1).

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
    >>> lower, upper = clopper_pearson_interval(7, 10)
    >>> print(f"{float(lower):.4f} {float(upper):.4f}")
    0.3475 0.9333
    """
    confidence = _check_confidence(confidence)
    k, n = _check_counts(k, n, allow_fractional)
    return _clopper_pearson(k, n, confidence)


def _clopper_pearson(k, n, confidence):
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
                    confidence,
                )
                return lower[inverse].reshape(np.shape(k)), upper[inverse].reshape(np.shape(k))
    alpha = 1.0 - confidence
    with np.errstate(invalid="ignore", divide="ignore"):
        lower = np.where(k > 0, special.betaincinv(np.where(k > 0, k, 1.0), n - k + 1.0, alpha / 2.0), 0.0)
        upper = np.where(
            k < n, special.betaincinv(k + 1.0, np.where(k < n, n - k, 1.0), 1.0 - alpha / 2.0), 1.0
        )
    return lower, upper


def _confidence_interval(k, n, confidence):
    lower, upper = _clopper_pearson(k, n, confidence)
    out = np.zeros(k.shape + (4,))
    out[:, 2] = confidence * lower
    out[:, 1] = confidence * (1.0 - upper)
    out[:, 3] = 1.0 - out[:, 1] - out[:, 2]
    return out


def _likelihood(k, n):
    return likelihood_mass_kernel(np.ascontiguousarray(k), np.ascontiguousarray(n))


def _plausibility(k, n):
    return plausibility_mass_kernel(np.ascontiguousarray(k), np.ascontiguousarray(n))


# ---------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------


def plausibility_degrees(
    k: ArrayLike, n: ArrayLike, allow_fractional: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Shaker & Huellermeier's degrees of support of class 1 and class 0.

    Parameters
    ----------
    k : array_like
        Number of class-1 (positive) examples, e.g. in a tree leaf.
    n : array_like
        Total number of examples (positives + negatives); broadcast with ``k``.
        Note: the second argument is the **total**, not the negative count; for
        a leaf with ``(n_negative, n_positive)`` call
        ``plausibility_degrees(n_positive, n_negative + n_positive)``.
    allow_fractional : bool, default False
        Accept real-valued (weighted) counts; the formula is the same.

    Returns
    -------
    pi_plus, pi_minus : ndarray of float64
        Arrays of the broadcast shape of ``k`` and ``n``, each in [0, 1].
        Epistemic uncertainty is ``min(pi_plus, pi_minus)`` and aleatoric
        uncertainty ``1 - max(pi_plus, pi_minus)``.

    Raises
    ------
    ValueError
        Negative, non-finite or (unless ``allow_fractional``) non-integer
        counts, or ``k > n``.

    Notes
    -----
    Busch et al. (2021), section 3.1.2, after Shaker & Huellermeier: with
    p = k, q = n - k, p_hat = p/n and the relative likelihood
    pl(theta) = theta^p (1-theta)^q / (p_hat^p (1-p_hat)^q),

    pi_plus = sup_theta min(pl(theta), 2 theta - 1),
    pi_minus = sup_theta min(pl(theta), 1 - 2 theta).

    pi_plus = 2 theta* - 1 where theta* >= max(p_hat, 1/2) solves
    pl(theta) = 2 theta - 1; it is found by safeguarded Newton iterations on
    ``log pl((1 + e^v)/2) - v = 0`` in a numba kernel (log domain: no underflow
    and **no count rescaling**, unlike the reference code which rescales
    counts above 537).  Relative accuracy is a few ulps times ``n`` (the
    cancellation in ``log pl``), i.e. better than 1e-10 for n <= 1e6.
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
    >>> pi_plus, pi_minus = plausibility_degrees([1, 2, 0], [2, 3, 0])
    >>> print(pi_plus.round(6), pi_minus.round(6))
    [0.618034 0.712083 1.      ] [0.618034 0.411958 1.      ]
    """
    k_arr, n_arr = _check_counts(k, n, allow_fractional)
    shape = k_arr.shape
    pi_plus, pi_minus = plausibility_degrees_kernel(
        np.ascontiguousarray(k_arr).reshape(-1), np.ascontiguousarray(n_arr).reshape(-1)
    )
    return pi_plus.reshape(shape), pi_minus.reshape(shape)


def counts_to_mass_array(
    k: ArrayLike,
    n: ArrayLike,
    model: str = "likelihood",
    *,
    confidence: float = 0.95,
    allow_fractional: bool = False,
) -> np.ndarray:
    """Dense binary mass arrays ``(..., 4)`` from counts, without building a MassFunction.

    Parameters
    ----------
    k : array_like
        Class-1 counts (successes).
    n : array_like
        Total counts (trials); broadcast with ``k``; ``0 <= k <= n``.
    model : {"bayes", "inverse_pignistic", "dempster", "confidence_interval", \
"likelihood", "plausibility"}, default "likelihood"
        See the module documentation and :func:`from_counts`.
    confidence : float, default 0.95
        Level of the Clopper-Pearson interval (``model="confidence_interval"``).
    allow_fractional : bool, default False
        Accept real-valued (weighted) counts.

    Returns
    -------
    ndarray of float64, shape ``broadcast_shape + (4,)``
        ``[m(empty) = 0, m({0}), m({1}), m({0, 1})]`` along the last axis.

    Raises
    ------
    ValueError
        Invalid counts, unknown model, confidence outside (0, 1), or n = 0
        with ``model="bayes"``.

    Notes
    -----
    Same formulas as :func:`from_counts` (Xu et al. 2016, Eqs. 24-32; Busch et
    al. 2021, section 3.1.2).

    Examples
    --------
    >>> counts_to_mass_array([7, 0], [10, 0], model="dempster").round(4)
    array([[0.    , 0.2727, 0.6364, 0.0909],
           [0.    , 0.    , 0.    , 1.    ]])
    """
    _check_model(model, BINARY_MODELS)
    if model == "confidence_interval":
        confidence = _check_confidence(confidence)
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
        out = _confidence_interval(k_flat, n_flat, confidence)
    elif model == "likelihood":
        out = _likelihood(k_flat, n_flat)
    else:
        out = _plausibility(k_flat, n_flat)
    return out.reshape(shape + (4,))


def _binary_frame():
    from dstk.core._frame import Frame

    return Frame((0, 1))


def _wrap(values, frame):
    from dstk.core._mass import MassFunction

    return MassFunction.from_array(values, frame, kind="m", validate=False)


def from_counts(
    k: ArrayLike,
    n: ArrayLike,
    model: str = "likelihood",
    *,
    confidence: float = 0.95,
    allow_fractional: bool = False,
    return_array: bool = False,
) -> Any:
    """Mass functions on the binary frame ``(0, 1)`` from counts (k of class 1 among n).

    Parameters
    ----------
    k : array_like
        Class-1 counts (successes), any shape.
    n : array_like
        Total counts (trials), broadcast with ``k``; ``0 <= k <= n``.
    model : str, default "likelihood"
        One of:

        - ``"bayes"``: m({1}) = k/n (no ignorance); raises for n = 0.
        - ``"inverse_pignistic"``: least-committed consonant mass whose pignistic
          probability is (1 - k/n, k/n).
        - ``"dempster"``: Dempster's model (Xu et al. 2016, Eq. 24).
        - ``"confidence_interval"``: Clopper-Pearson interval as a contour
          (Eqs. 25-28, with the factor 1 - alpha of Eqs. 26c and 27c).
        - ``"likelihood"``: predictive belief function of the relative binomial
          likelihood (Eqs. 29-32), exact via the regularised incomplete beta.
        - ``"plausibility"``: Shaker & Huellermeier's degrees of support
          (Busch et al. 2021, section 3.1.2).
    confidence : float, default 0.95
        Level 1 - alpha of the Clopper-Pearson interval.
    allow_fractional : bool, default False
        Accept real-valued (weighted) counts.
    return_array : bool, default False
        Return the dense ``(..., 4)`` float64 array instead of a MassFunction
        (same as :func:`counts_to_mass_array`).

    Returns
    -------
    MassFunction or ndarray
        Batched mass function on ``Frame((0, 1))`` with batch shape the
        broadcast shape of ``k`` and ``n``; m({1}) sits at dense index 2.

    Raises
    ------
    ValueError
        ``k > n``, negative, non-finite or (unless ``allow_fractional``)
        non-integer counts; an unknown model; ``confidence`` outside (0, 1);
        n = 0 with ``model="bayes"``.

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

    n = 0 gives the vacuous mass function for every model except "bayes".

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. International Journal of Approximate Reasoning
    72, 55-70.
    Busch, J., Kulessa, M., Loza Mencia, E. and Blockeel, H. (2021). Combining
    predictions under uncertainty: the case of random decision trees.

    Examples
    --------
    >>> masses = from_counts([7, 10], [10, 10], model="likelihood", return_array=True)
    >>> masses.round(4)
    array([[0.    , 0.1533, 0.5059, 0.3407],
           [0.    , 0.    , 0.9091, 0.0909]])
    """
    values = counts_to_mass_array(k, n, model, confidence=confidence, allow_fractional=allow_fractional)
    if return_array:
        return values
    return _wrap(values, _binary_frame())


# ---------------------------------------------------------------------------
# multi-class counts
# ---------------------------------------------------------------------------


def _check_class_counts(counts, allow_fractional):
    arr = _as_count_array(counts, "counts")
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
    if arr.size:
        if not np.isfinite(arr).all():
            raise ValueError("`counts` contains NaN or infinite values; counts must be finite.")
        if (arr < 0).any():
            raise ValueError(
                f"`counts` contains a negative count ({arr[arr < 0].flat[0]!r}); counts must be >= 0."
            )
        if not allow_fractional and (np.floor(arr) != arr).any():
            raise ValueError(
                f"`counts` contains a non-integer count ({arr[np.floor(arr) != arr].flat[0]!r}). "
                "Pass `allow_fractional=True` for weighted counts."
            )
    return arr


def class_counts_to_mass_array(
    counts: ArrayLike, model: str = "dempster", *, prior_strength: float = 1.0, allow_fractional: bool = False
) -> np.ndarray:
    """Dense mass arrays ``(..., 2**n_classes)`` from class counts ``(..., n_classes)``.

    Parameters
    ----------
    counts : array_like, shape (..., n_classes)
        Non-negative class counts; class c is the c-th label of the frame.
    model : {"dempster", "imprecise_dirichlet"}, default "dempster"
        ``"dempster"``: m({c}) = n_c / (N + 1), m(frame) = 1 / (N + 1).
        ``"imprecise_dirichlet"``: m({c}) = n_c / (N + s), m(frame) = s / (N + s).
    prior_strength : float, default 1.0
        The parameter s > 0 of the imprecise Dirichlet model.
    allow_fractional : bool, default False
        Accept real-valued (weighted) counts.

    Returns
    -------
    ndarray of float64, shape ``(..., 2**n_classes)``
        Dense masses; {c} sits at index ``2**c`` and the frame at ``2**n_classes - 1``.

    Raises
    ------
    ValueError
        Invalid counts, unknown model or ``prior_strength <= 0``.

    Notes
    -----
    Dempster's model generalised from Xu et al. (2016) Eq. 24 to several
    classes; the imprecise Dirichlet model (Walley 1996) gives lower and upper
    probabilities n_c/(N+s) and (n_c+s)/(N+s), which are exactly Bel and Pl of
    this mass function.  Both give the vacuous mass function when N = 0.

    References
    ----------
    Walley, P. (1996). Inferences from multinomial data: learning about a bag
    of marbles. JRSS B 58(1), 3-57.

    Examples
    --------
    >>> class_counts_to_mass_array([3, 1, 0]).round(2)
    array([0. , 0.6, 0.2, 0. , 0. , 0. , 0. , 0.2])
    """
    _check_model(model, CLASS_COUNT_MODELS)
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


def from_class_counts(
    counts: ArrayLike,
    model: str = "dempster",
    *,
    prior_strength: float = 1.0,
    allow_fractional: bool = False,
    return_array: bool = False,
) -> Any:
    """Mass functions on ``Frame(range(n_classes))`` from class counts.

    Parameters
    ----------
    counts : array_like, shape (..., n_classes)
        Non-negative class counts (e.g. the class histogram of a tree leaf).
    model : {"dempster", "imprecise_dirichlet"}, default "dempster"
        ``"dempster"``: Dempster's model generalised, m({c}) = n_c/(N+1),
        m(frame) = 1/(N+1).  ``"imprecise_dirichlet"``: m({c}) = n_c/(N+s),
        m(frame) = s/(N+s).
    prior_strength : float, default 1.0
        The s > 0 of the imprecise Dirichlet model.
    allow_fractional : bool, default False
        Accept real-valued (weighted) counts.
    return_array : bool, default False
        Return the dense array (see :func:`class_counts_to_mass_array`).

    Returns
    -------
    MassFunction or ndarray
        Batch shape ``counts.shape[:-1]``; the dense index of {c} is ``2**c``.

    Raises
    ------
    ValueError
        Invalid counts, unknown model, or a non-positive ``prior_strength``.

    Notes
    -----
    With N = sum_c n_c: Bel({c}) = n_c/(N+s) and Pl({c}) = (n_c+s)/(N+s), the
    lower and upper probabilities of the imprecise Dirichlet model (Walley
    1996); s = 1 is Dempster's model (Xu et al. 2016, Eq. 24 for two classes).

    References
    ----------
    Walley, P. (1996). Inferences from multinomial data: learning about a bag
    of marbles. JRSS B 58(1), 3-57.

    Examples
    --------
    >>> from_class_counts([[2, 2], [0, 0]], return_array=True)
    array([[0. , 0.4, 0.4, 0.2],
           [0. , 0. , 0. , 1. ]])
    """
    values = class_counts_to_mass_array(
        counts, model, prior_strength=prior_strength, allow_fractional=allow_fractional
    )
    if return_array:
        return values
    from dstk.core._frame import Frame

    n_classes = np.shape(values)[-1].bit_length() - 1
    return _wrap(values, Frame(tuple(range(n_classes))))
