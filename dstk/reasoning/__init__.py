"""Reasoning: belief functions over several variables and on the real line.

* :class:`GaussianRandomFuzzyNumber`: Gaussian random fuzzy numbers, belief
  functions on the real line (Denoeux 2023), and :func:`combine_grfn`, their
  combination by the product-intersection rule.
* :class:`Variable`, :class:`Valuation`: belief functions over several
  variables on the product of their labels; :func:`conditional_embedding`,
  :func:`generalized_bayes` (Smets 1993) and :class:`ValuationNetwork`
  (exact propagation by variable elimination).

Submodules are imported lazily so that ``import dstk.reasoning`` stays cheap.
"""

from dstk._lazy import lazy_exports

_LAZY: dict[str, str] = {
    # Gaussian random fuzzy numbers on the real line
    "GaussianRandomFuzzyNumber": "dstk.reasoning._grfn",
    "combine_grfn": "dstk.reasoning._grfn",
    # several variables: valuations and valuation networks
    "Variable": "dstk.reasoning._valuation",
    "Valuation": "dstk.reasoning._valuation",
    "ValuationNetwork": "dstk.reasoning._network",
    "conditional_embedding": "dstk.reasoning._network",
    "generalized_bayes": "dstk.reasoning._network",
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
