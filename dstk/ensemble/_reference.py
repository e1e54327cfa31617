"""The plausibility leaf model evaluated with the floating-point operations of Busch et al.'s code.

dstk's own leaf model (:func:`dstk.ensemble.leaf_plausibility_degrees`) solves
for the degrees of support to machine precision.  The authors' code finds them
by bisection (scipy's ``bisect`` with its default tolerances, accurate to about
1e-12) on fixed brackets and forms the masses from them in a particular order.
Both are the same model; the results differ in the last 12 digits.  That only
matters where the combined score ties exactly in exact arithmetic, as the
cautious rule does with small leaves (its ties are then broken by rounding):
evaluating the leaves here, in the same order of operations, gives the
authors' scores bit for bit (``reference_arithmetic=True`` of
:func:`dstk.ensemble.combine_leaves`).

Research note ``calib-ensemble-anchors.md`` section 1.2 (plausibility,
``plaus_values_4``); Busch et al. (2021), section 3.1.2.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import bisect

REFERENCE_RESCALE_ABOVE = 537.0


def _crossing(theta, positives, negatives, support_of_positive):
    """pl(theta) - (2 theta - 1) for pi+, pl(theta) - (1 - 2 theta) for pi- (the bracketed root)."""
    total = positives + negatives
    normaliser = (positives / total) ** positives * (negatives / total) ** negatives
    relative_likelihood = (theta**positives * (1 - theta) ** negatives) / normaliser
    if support_of_positive:
        return relative_likelihood - 2 * theta + 1
    return relative_likelihood + 2 * theta - 1


def _degree(positives, negatives, support_of_positive):
    if positives + negatives == 0:
        return 1.0
    frequency = positives / (positives + negatives)
    low, high = (frequency, 1.0) if support_of_positive else (0.0, frequency)
    theta = bisect(_crossing, low, high, args=(positives, negatives, support_of_positive))
    return 2 * theta - 1 if support_of_positive else 1 - 2 * theta


def _leaf_values(positives, negatives, rescale_above):
    """(s+, s-, u) of one leaf, formed as the authors' code forms them."""
    largest = max(positives, negatives)
    if largest > rescale_above:
        positives = float(round(positives / (largest / rescale_above)))
        negatives = float(round(negatives / (largest / rescale_above)))
    pi_plus = _degree(positives, negatives, True)
    pi_minus = _degree(positives, negatives, False)
    epistemic = min(pi_plus, pi_minus)
    aleatoric = 1 - max(pi_plus, pi_minus)
    uncertainty = epistemic + aleatoric
    if pi_plus > pi_minus:
        support_plus = 1 - uncertainty
    elif pi_plus == pi_minus:
        support_plus = (1 - uncertainty) / 2
    else:
        support_plus = 0.0
    support_minus = 1 - (support_plus + uncertainty)
    return support_plus, support_minus, uncertainty


def reference_plausibility_mass_rows(c: np.ndarray, rescale_above: float | None) -> np.ndarray:
    """Rows ``c = [n-, n+]`` (m, 2) -> ``[0, m({0}), m({1}), m(frame)]`` (m, 4) as in the authors' code.

    ``rescale_above=None`` means the authors' 537 (their solver underflows
    without it).  m({0}) can be a rounding residue of order 1e-16 (possibly
    negative) where the exact value is 0, exactly as in their code.
    """
    limit = REFERENCE_RESCALE_ABOVE if rescale_above is None else float(rescale_above)
    out = np.zeros((c.shape[0], 4))
    for row in range(c.shape[0]):
        plus, minus, uncertainty = _leaf_values(float(c[row, 1]), float(c[row, 0]), limit)
        out[row, 1] = minus
        out[row, 2] = plus
        out[row, 3] = uncertainty
    return out
