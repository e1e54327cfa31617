"""Core layer: frames, mass functions, representations, combination rules, transforms, decisions.

Public names
------------
Frame, MassFunction, combine, combine_with_conflict, RULES, pignistic, plausibility_transform, contour,
discount, contextual_discount, condition, normalize, inverse_pignistic,
consonant_from_contour, decide, admissible_actions, owa_weights, lower_upper_expectations, jousselme_distance, conflict,
weight_of_conflict;
uncertainty measures: nonspecificity, aggregate_uncertainty, maximum_entropy_probability,
jirousek_shenoy_entropy, discord, strife, shannon_entropy, uncertainty_decomposition;
subjective logic: Opinion, fuse_opinions, trust_discount.
"""

from . import _mass, _opinions
from ._combination import RULES, combine, combine_with_conflict
from ._decisions import (
    ADMISSIBILITY_CRITERIA,
    CRITERIA,
    admissible_actions,
    decide,
    lower_upper_expectations,
    owa_weights,
)
from ._dense import DENSE_MAX_LABELS, MASS_TOLERANCE, MAX_DENSE_BYTES
from ._distances import conflict, jousselme_distance, weight_of_conflict
from ._frame import Frame
from ._mass import MassFunction
from ._opinions import ACTIVATIONS, FUSION_OPERATORS, Opinion, fuse_opinions, trust_discount
from ._transforms import (
    condition,
    consonant_from_contour,
    contextual_discount,
    contour,
    discount,
    inverse_pignistic,
    normalize,
    pignistic,
    plausibility_transform,
)
from ._uncertainty import (
    UNCERTAINTY_MEASURES,
    UncertaintyDecomposition,
    aggregate_uncertainty,
    discord,
    jirousek_shenoy_entropy,
    maximum_entropy_probability,
    nonspecificity,
    shannon_entropy,
    strife,
    uncertainty_decomposition,
)

# MassFunction's delegating methods (m.pignistic(), m.discount(rate), m.decide(), m.combine(...))
# call these functions through a registry, so that _mass never imports the modules that import it.
_mass._OPERATIONS.update(
    pignistic=pignistic,
    plausibility_transform=plausibility_transform,
    contour=contour,
    discount=discount,
    contextual_discount=contextual_discount,
    condition=condition,
    normalize=normalize,
    decide=decide,
    admissible_actions=admissible_actions,
    nonspecificity=nonspecificity,
    from_dirichlet=_opinions.mass_from_dirichlet,
    from_evidence=_opinions.mass_from_evidence,
    combine=combine,
)

__all__ = [
    "Frame",
    "MassFunction",
    "combine",
    "combine_with_conflict",
    "RULES",
    "pignistic",
    "plausibility_transform",
    "contour",
    "discount",
    "contextual_discount",
    "condition",
    "normalize",
    "inverse_pignistic",
    "consonant_from_contour",
    "decide",
    "admissible_actions",
    "CRITERIA",
    "ADMISSIBILITY_CRITERIA",
    "owa_weights",
    "Opinion",
    "fuse_opinions",
    "trust_discount",
    "ACTIVATIONS",
    "FUSION_OPERATORS",
    "lower_upper_expectations",
    "jousselme_distance",
    "conflict",
    "weight_of_conflict",
    "nonspecificity",
    "aggregate_uncertainty",
    "maximum_entropy_probability",
    "jirousek_shenoy_entropy",
    "discord",
    "strife",
    "shannon_entropy",
    "uncertainty_decomposition",
    "UncertaintyDecomposition",
    "UNCERTAINTY_MEASURES",
    "MASS_TOLERANCE",
    "DENSE_MAX_LABELS",
    "MAX_DENSE_BYTES",
]
