"""Shared helpers of :mod:`dstk.plot`: the matplotlib import, axes creation, colours."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from dstk.core._mass import MassFunction

INSTALL_HINT = 'dstk.plot needs matplotlib (the optional extra "plot"): pip install "dstk-belief[plot]"'

try:  # matplotlib is an optional extra: fail with a message that says how to get it
    import matplotlib  # noqa: F401
    import matplotlib.pyplot as plt
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(f"{INSTALL_HINT} (import failed: {exc})") from exc

#: Colours of the belief, plausibility and pignistic curves (colour-blind safe, Okabe-Ito).
BELIEF_COLOR = "#0072B2"
PLAUSIBILITY_COLOR = "#D55E00"
PIGNISTIC_COLOR = "#000000"
MASS_COLOR = "#56B4E9"
#: Colours of the three predictive masses: m({1}), m({0}), m({0, 1}).
POSITIVE_COLOR = "#009E73"
NEGATIVE_COLOR = "#CC79A7"
IGNORANCE_COLOR = "#F0E442"
#: A qualitative cycle for several models on one axes.
MODEL_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")


def get_axes(ax, figsize=(6.4, 4.4)):
    """Return ``ax``, or the axes of a new figure of size ``figsize`` when ``ax`` is None."""
    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
        return ax
    if not hasattr(ax, "plot") or not hasattr(ax, "figure"):
        raise TypeError(
            f"`ax` must be a matplotlib Axes (or None for a new figure); got {type(ax).__name__}."
        )
    return ax


def model_color(index):
    """The ``index``-th colour of :data:`MODEL_COLORS` (cycling)."""
    return MODEL_COLORS[index % len(MODEL_COLORS)]


def check_mass_function(m: Any, name: str = "m") -> MassFunction:
    """Raise a clear TypeError unless ``m`` is a :class:`~dstk.core._mass.MassFunction`."""
    from dstk.core._mass import MassFunction

    if not isinstance(m, MassFunction):
        raise TypeError(
            f"`{name}` must be a dstk MassFunction; got {type(m).__name__}. Build one with "
            "dstk.MassFunction({...}) or MassFunction.from_array(values, frame)."
        )
    return m


def check_unit_interval(values: ArrayLike, name: str) -> np.ndarray:
    """Return ``values`` as float64, raising if any is outside [0, 1] or not finite."""
    arr = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"`{name}` contains NaN or infinite values.")
    if arr.size and (arr.min() < -1e-9 or arr.max() > 1 + 1e-9):
        raise ValueError(f"`{name}` must lie in [0, 1]; got values in [{arr.min():.4g}, {arr.max():.4g}].")
    return np.clip(arr, 0.0, 1.0)


def legend_below(ax, ncol=3, fontsize=8):
    """Put the legend under the axes (below the x label) so that it never hides data."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    return ax.legend(
        handles,
        labels,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.13),
        ncol=min(ncol, len(handles)),
        fontsize=fontsize,
        frameon=False,
    )
