"""Statistical evidence: belief functions from data.

* :func:`from_counts`: mass functions from class counts ``(..., n_classes)``
  (binary counts ``(..., 2)`` = ``[n_negative, n_positive]``) by a model of
  :data:`COUNT_MODELS`; :func:`plausibility_degrees` (Shaker & Huellermeier)
  and :func:`clopper_pearson_interval`.
* :mod:`dstk.evidence._likelihood`: likelihood-based (consonant) belief
  functions on a parameter, built-in models, profile contours.
* :mod:`dstk.evidence._predictive`: predictive belief functions for a binary
  outcome from a unimodal contour on the success probability
  (:func:`predictive_mass`; with the quadrature's error bound
  :func:`predictive_mass_quadrature`, a :class:`QuadratureEstimate`; by
  simulation :func:`predictive_mass_monte_carlo`, a :class:`MonteCarloEstimate`).
* :mod:`dstk.evidence._figures`: the data behind Xu et al. (2016), Figure 4.

Submodules are imported lazily so that ``import dstk.evidence`` stays cheap.
"""

from dstk._lazy import lazy_exports

_LAZY = {
    "COUNT_MODELS": "dstk.evidence._counts",
    "from_counts": "dstk.evidence._counts",
    "plausibility_degrees": "dstk.evidence._counts",
    "clopper_pearson_interval": "dstk.evidence._counts",
    "LikelihoodBeliefFunction": "dstk.evidence._likelihood",
    "BinomialLikelihood": "dstk.evidence._likelihood",
    "MultinomialLikelihood": "dstk.evidence._likelihood",
    "LogisticLikelihood": "dstk.evidence._likelihood",
    "predictive_mass": "dstk.evidence._predictive",
    "predictive_mass_quadrature": "dstk.evidence._predictive",
    "predictive_mass_monte_carlo": "dstk.evidence._predictive",
    "QuadratureEstimate": "dstk.evidence._predictive",
    "MonteCarloEstimate": "dstk.evidence._predictive",
    "figure4_data": "dstk.evidence._figures",
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
