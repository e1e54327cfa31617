"""Code matrices that reduce a K-class problem to binary tasks (Allwein et al. 2000; Gebel 2009, Sec. 5.2).

A code matrix ``Psi`` has shape ``(K, B)`` and entries in ``{-1, 0, +1}``:
``Psi[k, b] = +1`` (class ``k`` is positive in task ``b``), ``-1`` (negative)
or ``0`` (class ``k`` is left out of task ``b``).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .._validation import as_float_array, check_random_state

__all__ = [
    "one_vs_rest_code",
    "all_pairs_code",
    "complete_code",
    "complete_code_size",
    "sparse_random_code",
    "sparse_code_size",
    "sparse_column_validity_probability",
    "sparse_code_success_probability",
    "row_hamming_distances",
    "check_code_matrix",
    "make_code",
]


def _check_n_classes(n_classes: int, minimum: int = 2) -> int:
    if not isinstance(n_classes, (int, np.integer)) or isinstance(n_classes, bool) or n_classes < minimum:
        raise ValueError(f"`n_classes` must be an integer >= {minimum}; got {n_classes!r}.")
    return int(n_classes)


def _code_entries(code: ArrayLike, *, min_rows: int) -> np.ndarray:
    """``code`` as a float64 matrix of shape (K >= min_rows, B >= 1) with entries in {-1, 0, +1}."""
    c = as_float_array(code, "code")
    if c.ndim != 2 or c.shape[0] < min_rows or c.shape[1] < 1:
        raise ValueError(
            f"`code` must be a matrix of shape (n_classes >= {min_rows}, n_tasks >= 1), one row per class; "
            f"got shape {c.shape}."
        )
    if not np.all(np.isin(c, (-1, 0, 1))):
        raise ValueError("`code` entries must be -1, 0 or +1 (a NaN, infinite or other value was found).")
    return c


def _valid_columns(columns: np.ndarray, axis: int = 0) -> np.ndarray:
    """Whether each column holds a ``+1`` and a ``-1`` (a binary task needs a positive and a negative class)."""
    return (columns == 1).any(axis=axis) & (columns == -1).any(axis=axis)


def one_vs_rest_code(n_classes: int) -> np.ndarray:
    """One-against-rest code: ``+1`` on the diagonal, ``-1`` elsewhere (Gebel 2009, Tab. 5.2).

    Parameters
    ----------
    n_classes : int
        ``K >= 2``.

    Returns
    -------
    ndarray of shape (K, K), dtype int8

    Raises
    ------
    ValueError
        If ``n_classes`` is not an integer ``>= 2``.

    Notes
    -----
    ``Psi[k, b] = +1`` if ``k = b`` and ``-1`` otherwise: task ``b`` separates
    class ``b`` from all the others (Gebel 2009, Tab. 5.2; Allwein et al.
    2000).  ``B = K`` tasks, each using all the training data.

    References
    ----------
    .. [1] E. L. Allwein, R. E. Schapire and Y. Singer, "Reducing multiclass to binary: a unifying
       approach for margin classifiers", JMLR 1 (2000) 113-141.
    .. [2] M. Gebel, "Multivariate calibration of classifier scores into the probability space",
       PhD thesis, TU Dortmund (2009), Sec. 5.2.

    Examples
    --------
    >>> one_vs_rest_code(3).tolist()
    [[1, -1, -1], [-1, 1, -1], [-1, -1, 1]]
    """
    K = _check_n_classes(n_classes)
    return (2 * np.eye(K, dtype=np.int8) - 1).astype(np.int8)


def all_pairs_code(n_classes: int) -> np.ndarray:
    """All-pairs code: one column per pair ``k1 < k2`` (+1 for ``k1``, -1 for ``k2``; Tab. 5.3).

    Parameters
    ----------
    n_classes : int
        ``K >= 2``.

    Returns
    -------
    ndarray of shape (K, K (K - 1) / 2), dtype int8
        Columns in the order (0,1), (0,2), ..., (0,K-1), (1,2), ...

    Raises
    ------
    ValueError
        If ``n_classes`` is not an integer ``>= 2``.

    Notes
    -----
    Column ``b`` of pair ``(k1, k2)`` has ``Psi[k1, b] = +1``,
    ``Psi[k2, b] = -1`` and zeros elsewhere: the task is trained only on the
    samples of the two classes (Gebel 2009, Tab. 5.3; Hastie & Tibshirani
    1998).  ``B = K (K - 1) / 2``.

    References
    ----------
    .. [1] E. L. Allwein, R. E. Schapire and Y. Singer, "Reducing multiclass to binary: a unifying
       approach for margin classifiers", JMLR 1 (2000) 113-141.
    .. [2] M. Gebel, "Multivariate calibration of classifier scores into the probability space",
       PhD thesis, TU Dortmund (2009), Sec. 5.2.

    Examples
    --------
    >>> all_pairs_code(3).tolist()
    [[1, 1, 0], [-1, 0, 1], [0, -1, -1]]
    """
    K = _check_n_classes(n_classes)
    pairs = [(a, b) for a in range(K) for b in range(a + 1, K)]
    code = np.zeros((K, len(pairs)), dtype=np.int8)
    for j, (a, b) in enumerate(pairs):
        code[a, j] = 1
        code[b, j] = -1
    return code


def complete_code_size(n_classes: int) -> int:
    """Number of columns of the complete code, ``(3**K - 2**(K+1) + 1) / 2`` (Gebel 2009, Tab. 5.5).

    Parameters
    ----------
    n_classes : int
        ``K >= 2``.

    Returns
    -------
    int
        ``v_K``, the number of distinct valid columns up to a sign flip.

    Raises
    ------
    ValueError
        If ``n_classes`` is not an integer ``>= 2``.

    Notes
    -----
    Of the ``3**K`` columns over ``{-1, 0, +1}``, ``2 * 2**K - 1`` lack a
    ``+1`` or a ``-1`` (inclusion-exclusion); the remaining ones come in sign-flipped
    pairs, so ``v_K = (3**K - 2**(K+1) + 1) / 2``.  This is the closed form of
    Gebel's recursion ``v_{K+1} = 3 v_K + (3**K - 1)/2 - v_K`` (Gebel 2009,
    Sec. 5.2.3 and Tab. 5.5).

    References
    ----------
    .. [1] E. L. Allwein, R. E. Schapire and Y. Singer, "Reducing multiclass to binary: a unifying
       approach for margin classifiers", JMLR 1 (2000) 113-141.
    .. [2] M. Gebel, "Multivariate calibration of classifier scores into the probability space",
       PhD thesis, TU Dortmund (2009), Sec. 5.2.

    Examples
    --------
    >>> [complete_code_size(k) for k in (3, 4, 5)]
    [6, 25, 90]
    """
    K = _check_n_classes(n_classes)
    return (3**K - 2 ** (K + 1) + 1) // 2


def complete_code(n_classes: int, *, max_columns: int = 1_000_000) -> np.ndarray:
    """Complete ECOC: every valid column once, a column and its sign flip counted once (Sec. 5.2.3).

    Parameters
    ----------
    n_classes : int
        ``K >= 2``.
    max_columns : int, default=1_000_000
        Refuse larger codes (``K = 13`` has 788,970 columns).

    Returns
    -------
    ndarray of shape (K, v_K), dtype int8
        Columns holding at least one ``+1`` and one ``-1``; of each pair
        ``(c, -c)`` the one whose first non-zero entry is ``+1`` is kept.

    Raises
    ------
    ValueError
        When the code would exceed ``max_columns``, or ``n_classes`` is not
        an integer ``>= 2``.

    Notes
    -----
    ``v_K = (3**K - 2**(K+1) + 1) / 2`` (closed form of Gebel's recursion
    ``v_{K+1} = 3 v_K + (3**K - 1)/2 - v_K``, Gebel 2009, Sec. 5.2.3).

    References
    ----------
    .. [1] E. L. Allwein, R. E. Schapire and Y. Singer, "Reducing multiclass to binary: a unifying
       approach for margin classifiers", JMLR 1 (2000) 113-141.
    .. [2] M. Gebel, "Multivariate calibration of classifier scores into the probability space",
       PhD thesis, TU Dortmund (2009), Sec. 5.2.

    Examples
    --------
    >>> complete_code(3).shape
    (3, 6)
    """
    K = _check_n_classes(n_classes)
    size = complete_code_size(K)
    if size > max_columns:
        raise ValueError(
            f"The complete code for K={K} has {size} columns (> max_columns={max_columns}); use a sparse "
            "random code instead (Allwein et al. call the complete code intractable for K > 13)."
        )
    digits = np.arange(3**K)[None, :] // (3 ** np.arange(K))[:, None] % 3
    columns = (digits - 1).astype(np.int8)  # entries in {-1, 0, 1}
    first = np.argmax(columns != 0, axis=0)
    first_value = columns[first, np.arange(columns.shape[1])]
    keep = _valid_columns(columns) & (first_value == 1)
    return np.ascontiguousarray(columns[:, keep])


def sparse_code_size(n_classes: int) -> int:
    """``B = round(15 log2 K)`` columns of a sparse random code (Gebel 2009, Tab. 5.5).

    Parameters
    ----------
    n_classes : int
        ``K >= 2``.

    Returns
    -------
    int
        ``floor(15 log2 K + 1/2)``.

    Raises
    ------
    ValueError
        If ``n_classes`` is not an integer ``>= 2``.

    Notes
    -----
    Allwein et al. (2000) draw sparse codes with about ``15 log2 K``
    columns; Gebel (2009, Sec. 5.2.2 and Tab. 5.5) rounds to the nearest
    integer, which is what the table's values (24 for K = 3, 42 for K = 7,
    57 for K = 14) follow.

    References
    ----------
    .. [1] E. L. Allwein, R. E. Schapire and Y. Singer, "Reducing multiclass to binary: a unifying
       approach for margin classifiers", JMLR 1 (2000) 113-141.
    .. [2] M. Gebel, "Multivariate calibration of classifier scores into the probability space",
       PhD thesis, TU Dortmund (2009), Sec. 5.2.

    Examples
    --------
    >>> [sparse_code_size(k) for k in (3, 7, 14)]
    [24, 42, 57]
    """
    K = _check_n_classes(n_classes)
    return math.floor(15.0 * math.log2(K) + 0.5)


def sparse_column_validity_probability(n_classes: int) -> float:
    """Probability that a random sparse column holds a ``+1`` and a ``-1``: ``1 - 2 (3/4)**K + (1/2)**K`` (Eq. 5.4).

    Parameters
    ----------
    n_classes : int
        ``K >= 2``.

    Returns
    -------
    float
        ``P_{-,+} = 1 - 2 (3/4)**K + (1/2)**K``.

    Raises
    ------
    ValueError
        If ``n_classes`` is not an integer ``>= 2``.

    Notes
    -----
    Entries are 0 with probability 1/2 and ``-1``, ``+1`` with 1/4 each.  A
    column lacks a ``+1`` with probability ``(3/4)**K``, likewise a ``-1``,
    and lacks both (all zeros) with probability ``(1/2)**K``; inclusion-exclusion
    gives Gebel (2009), Eq. (5.4).

    References
    ----------
    .. [1] E. L. Allwein, R. E. Schapire and Y. Singer, "Reducing multiclass to binary: a unifying
       approach for margin classifiers", JMLR 1 (2000) 113-141.
    .. [2] M. Gebel, "Multivariate calibration of classifier scores into the probability space",
       PhD thesis, TU Dortmund (2009), Sec. 5.2.

    Examples
    --------
    >>> sparse_column_validity_probability(2)
    0.125
    """
    K = _check_n_classes(n_classes)
    return 1.0 - 2.0 * 0.75**K + 0.5**K


def sparse_code_success_probability(
    n_classes: int, *, n_columns: int | None = None, n_draws: int = 10000
) -> float:
    """Upper bound on the probability that at least one of ``n_draws`` random codes is valid (Eq. 5.5).

    Parameters
    ----------
    n_classes : int
        ``K >= 2``.
    n_columns : int, optional
        ``B``; :func:`sparse_code_size` by default.
    n_draws : int, default=10000
        Number of random matrices drawn.

    Returns
    -------
    float
        ``1 - (1 - prod_{b=0}^{B-1} (P_{-,+} - b / 4**K))**n_draws``.

    Notes
    -----
    Gebel (2009), Eqs. (5.4)-(5.5); the product bounds the probability that
    all ``B`` columns are valid and pairwise distinct.

    Examples
    --------
    >>> round(sparse_code_success_probability(9), 2)
    0.99
    """
    K = _check_n_classes(n_classes)
    B = sparse_code_size(K) if n_columns is None else int(n_columns)
    p = sparse_column_validity_probability(K)
    all_valid = 1.0
    for b in range(B):
        all_valid *= max(p - b * 4.0 ** (-K), 0.0)  # 4**-K underflows to 0 for large K, never overflows
    return 1.0 - (1.0 - all_valid) ** n_draws


def row_hamming_distances(code: ArrayLike) -> np.ndarray:
    """Generalised Hamming distances between the rows of a code, ``sum_b (1 - sign(psi_k1,b psi_k2,b)) / 2``.

    Parameters
    ----------
    code : array_like of shape (K, B)

    Returns
    -------
    ndarray of shape (K, K)
        Zero entries count one half (Allwein et al. 2000).

    Notes
    -----
    ``d(k1, k2) = sum_b (1 - sign(Psi[k1, b] Psi[k2, b])) / 2``: a column
    where the rows disagree counts 1, agree 0, and where either row is 0
    counts 1/2 (Allwein et al. 2000; Gebel 2009, Sec. 5.2.2).  The
    smallest off-diagonal distance measures how well the code separates the
    classes.

    References
    ----------
    .. [1] E. L. Allwein, R. E. Schapire and Y. Singer, "Reducing multiclass to binary: a unifying
       approach for margin classifiers", JMLR 1 (2000) 113-141.
    .. [2] M. Gebel, "Multivariate calibration of classifier scores into the probability space",
       PhD thesis, TU Dortmund (2009), Sec. 5.2.

    Examples
    --------
    >>> row_hamming_distances(one_vs_rest_code(3)).tolist()
    [[0.0, 2.0, 2.0], [2.0, 0.0, 2.0], [2.0, 2.0, 0.0]]
    """
    c = _code_entries(code, min_rows=1)
    prod = np.sign(c[:, None, :] * c[None, :, :])
    return np.sum((1.0 - prod) / 2.0, axis=2)


def sparse_random_code(
    n_classes: int,
    *,
    n_columns: int | None = None,
    n_draws: int = 10000,
    criterion: str = "max_min_distance",
    random_state: int | np.random.RandomState | None = None,
) -> np.ndarray:
    """Sparse random ECOC (Allwein et al. 2000; Gebel 2009, Sec. 5.2.2).

    Parameters
    ----------
    n_classes : int
        ``K >= 2``.
    n_columns : int, optional
        ``B``; ``round(15 log2 K)`` by default.
    n_draws : int, default=10000
        Number of random matrices drawn.
    criterion : {"max_min_distance", "min_distance"}, default="max_min_distance"
        ``"max_min_distance"``: keep the valid matrix whose smallest row
        distance is largest (Allwein et al.).  ``"min_distance"``: the
        thesis's wording, the valid matrix whose smallest row distance is
        smallest (Gebel 2009, Sec. 5.2.2; likely a slip, as Allwein et al.
        2000 maximise the smallest distance).
    random_state : int, RandomState or None

    Returns
    -------
    ndarray of shape (K, B), dtype int8

    Raises
    ------
    ValueError
        When none of the draws is valid (likely for ``K < 8``; see
        :func:`sparse_code_success_probability`), at once when ``B`` exceeds
        the ``3**K - 2**(K + 1) + 1`` distinct columns that hold a ``+1`` and a
        ``-1`` (the default ``B`` for ``K <= 3``).

    Notes
    -----
    Entries are i.i.d.: 0 with probability 1/2, ``-1`` and ``+1`` with 1/4
    each.  A matrix is valid when every column holds a ``+1`` and a ``-1``
    and no two columns are identical.

    References
    ----------
    .. [1] E. L. Allwein, R. E. Schapire and Y. Singer, "Reducing multiclass to binary: a unifying
       approach for margin classifiers", JMLR 1 (2000) 113-141.
    .. [2] M. Gebel, "Multivariate calibration of classifier scores into the probability space",
       PhD thesis, TU Dortmund (2009), Sec. 5.2.

    Examples
    --------
    >>> code = sparse_random_code(10, random_state=0)
    >>> code.shape
    (10, 50)
    """
    K = _check_n_classes(n_classes)
    B = sparse_code_size(K) if n_columns is None else int(n_columns)
    if B < 1:
        raise ValueError(f"`n_columns` must be >= 1; got {n_columns!r}.")
    distinct = 3**K - 2 ** (K + 1) + 1  # columns of {-1, 0, +1}^K holding a +1 and a -1
    if B > distinct:
        raise ValueError(
            f"None of the {K}x{B} sparse codes can be valid: a {K}-class code has at most {distinct} distinct "
            f"columns (each needs a +1 and a -1). Pass `n_columns` <= {distinct}, or use the complete code "
            "(make_code('complete', n_classes)) for small K."
        )
    if criterion not in ("max_min_distance", "min_distance"):
        raise ValueError(f"`criterion` must be 'max_min_distance' or 'min_distance'; got {criterion!r}.")
    rng = check_random_state(random_state)
    best, best_value = None, None
    chunk = max(1, min(int(n_draws), 2_000_000 // max(K * B, 1)))
    remaining = int(n_draws)
    while remaining > 0:
        m = min(chunk, remaining)
        remaining -= m
        u = rng.random_sample((m, K, B))
        draws = np.where(u < 0.25, -1, np.where(u < 0.5, 1, 0)).astype(np.int8)
        ok = _valid_columns(draws, axis=1).all(axis=1)
        for idx in np.flatnonzero(ok):
            mat = draws[idx]
            if np.unique(mat.T, axis=0).shape[0] < B:
                continue
            d = row_hamming_distances(mat)
            value = d[np.triu_indices(K, 1)].min()
            better = best is None or (
                value > best_value if criterion == "max_min_distance" else value < best_value
            )
            if better:
                best, best_value = mat.copy(), value
    if best is None:
        raise ValueError(
            f"None of the {n_draws} random {K}x{B} codes was valid (every column needs a +1 and a -1, "
            f"columns must differ); the success probability is at most "
            f"{sparse_code_success_probability(K, n_columns=B, n_draws=n_draws):.3g}. Use more draws, fewer columns, "
            "or the complete code for small K."
        )
    return best


def column_count_error(
    n_columns: int, code_matrix: np.ndarray, code: object, classes: np.ndarray
) -> ValueError:
    """The error for score columns that do not match the tasks of the code built from the classes of ``y``."""
    shown = classes.tolist() if classes.size <= 10 else classes[:10].tolist() + ["..."]
    named = f"code={code!r}" if isinstance(code, str) else "the code matrix given"
    return ValueError(
        f"`scores` has {n_columns} columns but the code matrix has {code_matrix.shape[1]} tasks: "
        f"`y` holds {classes.size} classes {shown} and {named} gives {code_matrix.shape[1]} tasks for "
        "them. Pass one score column per task; if a class is missing from `y` (e.g. from a fold), fit on "
        "labels that hold every class."
    )


def check_code_matrix(code: ArrayLike, *, n_classes: int | None = None) -> np.ndarray:
    """Validate a user-supplied code matrix and return it as int8.

    Parameters
    ----------
    code : array_like of shape (K, B)
        Entries in ``{-1, 0, +1}``.
    n_classes : int, optional
        Expected ``K``.

    Returns
    -------
    ndarray of shape (K, B), dtype int8

    Raises
    ------
    ValueError
        On other entries, a wrong number of rows, a column without a ``+1``
        or without a ``-1``, or a class that no column involves.

    Notes
    -----
    A valid code matrix (Gebel 2009, Sec. 5.2; Allwein et al. 2000) gives
    each binary task at least one positive and one negative class, and
    involves every class in at least one task, so that every class
    probability is identified by the coupling of Sec. 5.3.

    References
    ----------
    .. [1] E. L. Allwein, R. E. Schapire and Y. Singer, "Reducing multiclass to binary: a unifying
       approach for margin classifiers", JMLR 1 (2000) 113-141.
    .. [2] M. Gebel, "Multivariate calibration of classifier scores into the probability space",
       PhD thesis, TU Dortmund (2009), Sec. 5.2.

    Examples
    --------
    >>> check_code_matrix([[1, 0], [-1, 1], [0, -1]]).dtype
    dtype('int8')
    """
    c = _code_entries(code, min_rows=2).astype(np.int8)
    if n_classes is not None and c.shape[0] != n_classes:
        raise ValueError(f"The code matrix has {c.shape[0]} rows but there are {n_classes} classes.")
    bad = ~_valid_columns(c)
    if bad.any():
        raise ValueError(
            f"Column {int(np.flatnonzero(bad)[0])} of the code matrix lacks a +1 or a -1; every binary task "
            "needs both a positive and a negative class."
        )
    unused = ~(c != 0).any(axis=1)
    if unused.any():
        raise ValueError(f"Class {int(np.flatnonzero(unused)[0])} appears in no column of the code matrix.")
    return c


def make_code(
    code: str | ArrayLike, n_classes: int, *, random_state: int | np.random.RandomState | None = None
) -> np.ndarray:
    """Build a code from a name (``"one_vs_rest"``, ``"all_pairs"``, ``"complete"``, ``"sparse"``) or validate a matrix.

    Parameters
    ----------
    code : str or array_like of shape (K, B)
        ``"one_vs_rest"`` (alias ``"ovr"``), ``"all_pairs"`` (alias
        ``"ovo"``), ``"complete"``, ``"sparse"``, or a user-supplied matrix
        with entries in ``{-1, 0, +1}``.
    n_classes : int
        ``K >= 2``.
    random_state : int, RandomState or None, default=None
        Seed of the sparse random code (ignored otherwise).

    Returns
    -------
    ndarray of shape (K, B), dtype int8

    Raises
    ------
    ValueError
        On an unknown name, or a matrix rejected by :func:`check_code_matrix`.

    Notes
    -----
    Dispatches to :func:`one_vs_rest_code`, :func:`all_pairs_code`,
    :func:`complete_code` or :func:`sparse_random_code` (Gebel 2009,
    Sec. 5.2), or validates a matrix with :func:`check_code_matrix`.

    References
    ----------
    .. [1] E. L. Allwein, R. E. Schapire and Y. Singer, "Reducing multiclass to binary: a unifying
       approach for margin classifiers", JMLR 1 (2000) 113-141.
    .. [2] M. Gebel, "Multivariate calibration of classifier scores into the probability space",
       PhD thesis, TU Dortmund (2009), Sec. 5.2.

    Examples
    --------
    >>> make_code("all_pairs", 4).shape
    (4, 6)
    """
    if isinstance(code, str):
        name = _CODE_ALIASES.get(code, code)
        if name not in _CODE_BUILDERS:
            raise ValueError(
                f"Unknown code {code!r}; use 'one_vs_rest', 'all_pairs', 'complete', 'sparse' or a (K, B) matrix."
            )
        return _CODE_BUILDERS[name](n_classes, random_state)
    return check_code_matrix(code, n_classes=n_classes)


_CODE_BUILDERS = {
    "one_vs_rest": lambda n_classes, random_state: one_vs_rest_code(n_classes),
    "all_pairs": lambda n_classes, random_state: all_pairs_code(n_classes),
    "complete": lambda n_classes, random_state: complete_code(n_classes),
    "sparse": lambda n_classes, random_state: sparse_random_code(n_classes, random_state=random_state),
}
_CODE_ALIASES = {"ovr": "one_vs_rest", "ovo": "all_pairs"}
