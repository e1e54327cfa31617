"""Degrees of support of binary leaves by bisection, with the floating-point operations of Busch et al.'s code.

Their code calls ``scipy.optimize.bisect`` (default tolerances ``xtol=2e-12``,
``rtol=4 * eps``, 100 iterations) on the crossing of the relative likelihood
with ``2 theta - 1`` (for pi+, bracket ``[p / (p + n), 1]``) or ``1 - 2 theta``
(for pi-, bracket ``[0, p / (p + n)]``).  The kernel below runs the same
bisection steps on the same function, evaluated in the same order with the
same ``pow``, so its results are bit-identical to that call (checked against
scipy in the tests) and about a thousand times faster.

Nothing is compiled at import time.
"""

import math

import numpy as np

from dstk._kernels._jit import njit

_XTOL = 2e-12
_RTOL = 4 * np.finfo(np.float64).eps
_MAX_ITER = 100


@njit(cache=True, nogil=True)
def _crossing(theta, positives, negatives, support_of_positive):
    total = positives + negatives
    normaliser = math.pow(positives / total, positives) * math.pow(negatives / total, negatives)
    relative_likelihood = (math.pow(theta, positives) * math.pow(1.0 - theta, negatives)) / normaliser
    if support_of_positive:
        return relative_likelihood - 2.0 * theta + 1.0
    return relative_likelihood + 2.0 * theta - 1.0


@njit(cache=True, nogil=True)
def _bisect(low, high, positives, negatives, support_of_positive):
    """scipy's bisection (``scipy/optimize/Zeros/bisect.c``), step by step."""
    f_low = _crossing(low, positives, negatives, support_of_positive)
    f_high = _crossing(high, positives, negatives, support_of_positive)
    if f_low * f_high > 0.0:
        return np.nan  # no sign change (cannot happen on the authors' brackets)
    if f_low == 0.0:
        return low
    if f_high == 0.0:
        return high
    step = high - low
    for _ in range(_MAX_ITER):
        step *= 0.5
        middle = low + step
        f_middle = _crossing(middle, positives, negatives, support_of_positive)
        if f_middle * f_low >= 0.0:
            low = middle
        if f_middle == 0.0 or abs(step) < _XTOL + _RTOL * abs(middle):
            return middle
    return low


@njit(cache=True, nogil=True)
def degree_of_support(positives, negatives, support_of_positive):
    """pi+ (``support_of_positive``) or pi- of a leaf, as the authors' code computes it."""
    if positives + negatives == 0.0:
        return 1.0
    frequency = positives / (positives + negatives)
    if support_of_positive:
        theta = _bisect(frequency, 1.0, positives, negatives, True)
        return 2.0 * theta - 1.0
    theta = _bisect(0.0, frequency, positives, negatives, False)
    return 1.0 - 2.0 * theta


@njit(cache=True, nogil=True)
def reference_leaf_masses(positives, negatives, out):
    """``out[i] = [0, m({0}), m({1}), m(frame)]`` of leaves (counts already rescaled), formed as in the authors' code.

    With u_e = min(pi+, pi-), u_a = 1 - max(pi+, pi-) and u = u_e + u_a:
    s+ = 1 - u if pi+ > pi-, (1 - u) / 2 if equal, else 0; s- = 1 - (s+ + u).
    """
    for i in range(positives.shape[0]):
        pi_plus = degree_of_support(positives[i], negatives[i], True)
        pi_minus = degree_of_support(positives[i], negatives[i], False)
        uncertainty = min(pi_plus, pi_minus) + (1.0 - max(pi_plus, pi_minus))
        if pi_plus > pi_minus:
            plus = 1.0 - uncertainty
        elif pi_plus == pi_minus:
            plus = (1.0 - uncertainty) / 2.0
        else:
            plus = 0.0
        out[i, 0] = 0.0
        out[i, 1] = 1.0 - (plus + uncertainty)
        out[i, 2] = plus
        out[i, 3] = uncertainty
    return out
