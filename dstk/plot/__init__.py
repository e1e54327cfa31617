"""Plots for exploring belief and plausibility (optional extra ``plot``: matplotlib).

Neither ``import dstk`` nor ``import dstk.plot`` imports matplotlib: the first
plot drawn does.  ``import dstk.plot`` raises an :class:`ImportError` that says
``pip install "dstk-belief[plot]"`` when matplotlib is not installed.  Every single-panel function takes ``ax=None`` (a new figure is made when None)
and returns the matplotlib Axes it drew on.

* :mod:`dstk.plot._mass`: :func:`plot_mass` (focal sets and singleton
  intervals), :func:`plot_intervals` (a batch as [Bel, Pl] intervals),
  :func:`plot_ternary` (pignistic probabilities of three-class frames).
* :mod:`dstk.plot._counts`: :func:`plot_count_models` (Xu et al. 2016, Fig. 4).
* :mod:`dstk.plot._likelihood`: :func:`plot_cumulative_belief` (Bel/Pl of [0, t]),
  :func:`plot_logistic_contour` (Fig. 6a) and :func:`plot_predictive_contour` (Figs. 3 and 6b).
* :mod:`dstk.plot._calibration`: :func:`plot_calibration_curves` (Figs. 1, 5, 7).
* :mod:`dstk.plot._diagnostics`: :func:`reliability_diagram` (bins with [Bel, Pl]
  bands from :func:`dstk.metrics.reliability_bands`, histograms, class-wise panels).
* :mod:`dstk.plot._grfn`: :func:`plot_grfn_contour`, :func:`plot_grfn_intervals` (Bel/Pl of
  ``[mu - r, mu + r]``) and :func:`plot_grfn_cumulative` (lower/upper CDFs) of a Gaussian random fuzzy
  number (:class:`dstk.reasoning.GaussianRandomFuzzyNumber`).
* :mod:`dstk.plot._ensemble`: :func:`plot_leaf_score_evolution` and
  :func:`plot_combiner_score_evolution` (Busch et al. 2021, Figs. 1-2).
"""

from ._base import INSTALL_HINT  # raises ImportError with INSTALL_HINT when matplotlib is not installed
from ._calibration import plot_calibration_curves
from ._counts import plot_count_models
from ._diagnostics import reliability_diagram
from ._ensemble import plot_combiner_score_evolution, plot_leaf_score_evolution, simulate_growing_leaves
from ._grfn import plot_grfn_contour, plot_grfn_cumulative, plot_grfn_intervals
from ._likelihood import plot_cumulative_belief, plot_logistic_contour, plot_predictive_contour
from ._mass import plot_intervals, plot_mass, plot_ternary

__all__ = [
    "plot_mass",
    "plot_intervals",
    "plot_ternary",
    "plot_count_models",
    "plot_cumulative_belief",
    "plot_logistic_contour",
    "plot_predictive_contour",
    "plot_calibration_curves",
    "reliability_diagram",
    "plot_leaf_score_evolution",
    "plot_combiner_score_evolution",
    "plot_grfn_contour",
    "plot_grfn_intervals",
    "plot_grfn_cumulative",
]
