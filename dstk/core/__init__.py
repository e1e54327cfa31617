"""Core layer: frames, mass functions, representations, combination rules, transforms, decisions.

Public names
------------
Frame, MassFunction, combine, RULES, pignistic, plausibility_transform, contour,
discount, contextual_discount, condition, normalize, inverse_pignistic,
consonant_from_contour, decide, lower_upper_expectations, jousselme_distance, conflict.
"""

from .frame import Frame
from .mass import MassFunction
from .combination import combine, RULES
from .transforms import (
    pignistic,
    plausibility_transform,
    contour,
    discount,
    contextual_discount,
    condition,
    normalize,
    inverse_pignistic,
    consonant_from_contour,
)
from .decisions import decide, lower_upper_expectations
from .distances import jousselme_distance, conflict
from ._dense import MASS_TOLERANCE, DENSE_MAX_LABELS, MAX_DENSE_BYTES

__all__ = [
    "Frame", "MassFunction", "combine", "RULES", "pignistic", "plausibility_transform", "contour",
    "discount", "contextual_discount", "condition", "normalize", "inverse_pignistic",
    "consonant_from_contour", "decide", "lower_upper_expectations", "jousselme_distance", "conflict",
    "MASS_TOLERANCE", "DENSE_MAX_LABELS", "MAX_DENSE_BYTES",
]
