"""One-vs-rest evidential calibration: binary masses refined to the full frame, combined by a rule."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import as_float_array, check_binary_mass_rows

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from dstk.core._mass import MassFunction

__all__ = ["refine_one_vs_rest", "one_vs_rest_masses"]


def refine_one_vs_rest(binary_masses: ArrayLike) -> np.ndarray:
    """Refine binary masses on {not c, c} to the frame of all classes.

    Parameters
    ----------
    binary_masses : array_like of shape (..., n_classes, 4)
        For class c, the dense mass on {0 = "not c", 1 = "c"}:
        ``[0, m(not c), m(c), m(either)]``.

    Returns
    -------
    ndarray of shape (..., n_classes, 2**n_classes)
        Dense masses on the frame of the classes (bit c = class c):
        m({c}) = m(c), m(frame minus {c}) = m(not c), m(frame) = m(either).

    Raises
    ------
    ValueError
        Fewer than two classes, more than 16 (dense frames), a last axis
        that is not 4 long, or rows that are not valid binary mass functions
        on {not c, c} (negative, NaN, m(∅) > 0, or not summing to one).

    Notes
    -----
    The refining maps "c" to {c} and "not c" to its complement; the mass
    function is the vacuous extension of the binary one (Shafer 1976, ch. 6).

    Examples
    --------
    >>> refine_one_vs_rest([[0, 0.2, 0.5, 0.3], [0, 0.6, 0.1, 0.3]])
    array([[0. , 0.5, 0.2, 0.3],
           [0. , 0.6, 0.1, 0.3]])
    """
    binary = as_float_array(binary_masses, "binary_masses")
    if binary.ndim < 2 or binary.shape[-1] != 4:
        raise ValueError(f"`binary_masses` must have shape (..., n_classes, 4); got {binary.shape}.")
    check_binary_mass_rows(binary, "binary_masses")
    n_classes = binary.shape[-2]
    if n_classes < 2:
        raise ValueError("One-vs-rest needs at least two classes.")
    if n_classes > 16:
        raise ValueError(
            f"{n_classes} classes: the dense frame would need 2**{n_classes} masses; at most 16."
        )
    full = 2**n_classes - 1
    out = np.zeros(binary.shape[:-1] + (2**n_classes,))
    for c in range(n_classes):
        out[..., c, 1 << c] += binary[..., c, 2]
        out[..., c, full ^ (1 << c)] += binary[..., c, 1]
        out[..., c, full] += binary[..., c, 3]
    return out


def one_vs_rest_masses(
    binary_masses: ArrayLike,
    *,
    classes: Sequence[Any] | None = None,
    rule: str = "dempster",
    on_conflict: str = "raise",
) -> MassFunction:
    """Combine one-vs-rest binary masses into one mass function on all classes.

    Parameters
    ----------
    binary_masses : array_like of shape (n_samples, n_classes, 4)
        Binary masses of "class c" against "not c" for each class.
    classes : sequence, optional
        Labels of the frame (default ``range(n_classes)``).
    rule : str, default "dempster"
        Combination rule of :func:`dstk.combine` (``"dempster"``,
        ``"conjunctive"``, ``"cautious"``, ...).
    on_conflict : {"raise", "vacuous", "nan"}, default "raise"
        Per-sample policy for a total conflict under ``rule`` (see
        :func:`dstk.combine`).

    Returns
    -------
    MassFunction
        Batch shape ``(n_samples,)`` on ``Frame(classes)``.

    Raises
    ------
    TotalConflictError
        Dempster's rule with totally conflicting binary masses (e.g. two
        classes each certain) and ``on_conflict="raise"``.

    Notes
    -----
    Each refined mass has focal sets {c}, the complement of {c} and the frame;
    their Dempster combination is the one-vs-rest extension that Xu et al.
    (2016), Section 6, point to; see also Quost, Denoeux & Masson (2007) for
    pairwise decompositions.

    Examples
    --------
    >>> masses = one_vs_rest_masses([[[0, 0.2, 0.7, 0.1], [0, 0.8, 0.1, 0.1], [0, 0.9, 0.0, 0.1]]])
    >>> masses.pignistic().round(3)
    array([[0.904, 0.068, 0.027]])
    """
    from ..core._combination import combine
    from ..core._frame import Frame
    from ..core._mass import MassFunction

    refined = refine_one_vs_rest(binary_masses)
    if refined.ndim != 3:
        raise ValueError(
            f"`binary_masses` must have shape (n_samples, n_classes, 4); got {np.shape(binary_masses)}."
        )
    n_classes = refined.shape[1]
    frame = Frame(tuple(range(n_classes)) if classes is None else tuple(classes))
    stacked = MassFunction.from_array(refined, frame, kind="m", validate=False)
    return combine(stacked, rule=rule, axis=1, on_conflict=on_conflict)
