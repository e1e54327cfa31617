"""The plausibility leaf model evaluated with the floating-point operations of Busch et al.'s code.

dstk's own leaf model (``dstk.ensemble._leaf_scores.leaf_plausibility_degrees``) solves
for the degrees of support to machine precision.  The authors' code finds them
by bisection (scipy's ``bisect`` with its default tolerances, accurate to about
1e-12) on fixed brackets and forms the masses from them in a particular order
(reproduced by :mod:`dstk._kernels.plausibility_bisection`).
Both are the same model; the results differ in the last 12 digits.  That only
matters where the combined score ties exactly in exact arithmetic, as the
cautious rule does with small leaves (its ties are then broken by rounding):
evaluating the leaves here, in the same order of operations, gives the
authors' scores bit for bit (``compatibility="busch2021"`` of
:func:`dstk.ensemble.combine_leaves`).

The authors' code (github.com/olfub/RDT-Uncertainty,
``prediction/prediction_methods.py``, ``plaus_values_4``); Busch et al.
(2021), section 3.1.2.
"""

from __future__ import annotations

import numpy as np

from dstk._kernels.plausibility_bisection import reference_leaf_masses

REFERENCE_RESCALE_ABOVE = 537.0


def reference_plausibility_mass_rows(c: np.ndarray, rescale_above: float | None) -> np.ndarray:
    """Rows ``c = [n-, n+]`` (m, 2) -> ``[0, m({0}), m({1}), m(frame)]`` (m, 4) as in the authors' code.

    Counts whose larger member exceeds ``rescale_above`` (``None``: the
    authors' 537, without which their solver underflows) are first scaled to
    it and rounded half to even.  m({0}) can be a rounding residue of order
    1e-16 (possibly negative) where the exact value is 0, exactly as in their
    code.
    """
    limit = REFERENCE_RESCALE_ABOVE if rescale_above is None else float(rescale_above)
    negatives = np.ascontiguousarray(c[:, 0], dtype=np.float64)
    positives = np.ascontiguousarray(c[:, 1], dtype=np.float64)
    largest = np.maximum(positives, negatives)
    scale = largest > limit
    if scale.any():
        factor = largest[scale] / limit
        positives[scale] = np.round(positives[scale] / factor)
        negatives[scale] = np.round(negatives[scale] / factor)
    return reference_leaf_masses(positives, negatives, np.empty((c.shape[0], 4)))
