"""Shared helpers of :mod:`dstk.plot`: the (lazy) matplotlib import, axes creation, colours."""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from dstk.core._mass import MassFunction

INSTALL_HINT = 'dstk.plot needs matplotlib (the optional extra "plot"): pip install "dstk-belief[plot]"'

# matplotlib is an optional extra: fail on import with a message that says how to get it, but import it
# (and pyplot, which picks a backend) only when a plot is drawn.
try:
    _MATPLOTLIB_SPEC = importlib.util.find_spec("matplotlib")
except ValueError:  # pragma: no cover - a module without a spec in sys.modules
    _MATPLOTLIB_SPEC = None
if _MATPLOTLIB_SPEC is None:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(f"{INSTALL_HINT} (import failed: no module named 'matplotlib')")


def pyplot() -> Any:
    """``matplotlib.pyplot``, imported on the first call (the first plot drawn)."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - a broken installation
        raise ImportError(f"{INSTALL_HINT} (import failed: {exc})") from exc
    return plt


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
        _, ax = pyplot().subplots(figsize=figsize, layout="constrained")
        return ax
    if not hasattr(ax, "plot") or not hasattr(ax, "figure"):
        raise TypeError(
            f"`ax` must be a matplotlib Axes (or None for a new figure); got {type(ax).__name__}."
        )
    return ax


def literal(text: Any) -> str:
    """``text`` as a string matplotlib draws literally: ``$`` escaped, so that a label such as ``"$5"`` or
    ``"$x$"`` is not read as mathtext (which drops the dollars or fails on an unknown command)."""
    return str(text).replace("$", r"\$")


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


def legend_below(ax, handles=None, labels=None, *, ncol=3, fontsize=8):
    """Put the legend in a band reserved above the data, inside the axes, so that it never hides data.

    The legend takes at most ``ncol`` columns, fewer where it would be wider
    than the axes; the upper y limit then grows by the height of its rows,
    and the y ticks stay those of the data's range.  The legend lies inside
    the axes, so every layout engine (``tight_layout``, constrained layout,
    none) keeps it in the figure; a legend hung below the axes is cut or
    overlaps the x label under ``tight_layout``.
    """
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    options = {
        "loc": "upper center",
        "fontsize": fontsize,
        "frameon": False,
        "borderaxespad": 0.2,
        "handlelength": 1.5,
        "columnspacing": 1.2,
    }
    try:
        renderer = ax.figure.canvas.get_renderer()
    except AttributeError:  # pragma: no cover - backends without a renderer before drawing
        renderer = None
    axes_box = ax.get_window_extent(renderer) if renderer is not None else None
    legend: Any = None
    for columns in range(min(ncol, len(handles)), 0, -1):
        if legend is not None:
            legend.remove()
        legend = ax.legend(handles, labels, ncol=columns, **options)
        if axes_box is None or legend.get_window_extent(renderer).width <= axes_box.width:
            break
    if axes_box is not None and axes_box.height > 0:
        share = legend.get_window_extent(renderer).height / axes_box.height + 0.03
    else:  # pragma: no cover
        share = 0.025 + 0.075 * -(-len(handles) // legend._ncols) * fontsize / 8
    share = min(share, 0.6)
    bottom, top = ax.get_ylim()
    ticks = [t for t in ax.get_yticks() if min(bottom, top) - 1e-12 <= t <= max(bottom, top) + 1e-12]
    ax.set_ylim(bottom, top + (top - bottom) * share / (1.0 - share))
    ax.set_yticks(ticks)
    return legend


def draw_belief_band(
    ax: Any,
    x: ArrayLike,
    lower: ArrayLike,
    upper: ArrayLike,
    *,
    lower_label: str,
    upper_label: str,
    probability: ArrayLike | None = None,
    probability_label: str | None = None,
) -> None:
    """Draw a plausibility curve (``upper``), an optional dotted probability curve, the belief curve
    (``lower``), and shade the gap between them (the uncommitted mass), in that order."""
    ax.plot(x, upper, color=PLAUSIBILITY_COLOR, label=upper_label)
    if probability is not None:
        ax.plot(x, probability, color=PIGNISTIC_COLOR, linestyle=":", label=probability_label)
    ax.plot(x, lower, color=BELIEF_COLOR, label=lower_label)
    ax.fill_between(x, lower, upper, color=IGNORANCE_COLOR, alpha=0.35, linewidth=0)


def finish_unit_axes(ax: Any, *, xlabel: str, ylabel: str, title: str | None, ncol: int) -> None:
    """Label the axes, show y on [0, 1] (with a small margin), set the title when one is given, add the legend."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(-0.02, 1.02)
    if title:
        ax.set_title(title)
    legend_below(ax, ncol=ncol)
