"""Reliability diagrams with belief-plausibility bands (one panel per classifier or class)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._base import BELIEF_COLOR, MASS_COLOR, PLAUSIBILITY_COLOR, pyplot

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["reliability_diagram"]

_OUTSIDE_COLOR = "#D55E00"
_INSIDE_COLOR = "#000000"


def _is_bands(value):
    return all(
        hasattr(value, name)
        for name in ("belief", "plausibility", "mean_predicted", "frequency", "predictions")
    )


#: Panels of one row of a reliability diagram; longer rows (e.g. one panel per class) wrap.
_MAX_COLUMNS = 5


def _panels(bands):
    """Rows of (title, bands) panels."""
    if _is_bands(bands):
        return [[(None, bands)]]
    if isinstance(bands, Mapping):
        rows = []
        for name, value in bands.items():
            if _is_bands(value):
                rows.append([(str(name), value)])
            elif isinstance(value, Sequence) and value and all(_is_bands(v) for v in value):
                rows.append([(f"{name}: class {v.label}", v) for v in value])
            else:
                raise TypeError(
                    f"The value for {name!r} must be the output of dstk.metrics.reliability_bands; got "
                    f"{type(value).__name__}."
                )
        if not rows:
            raise ValueError("`bands` is an empty mapping; pass at least one reliability_bands result.")
        if all(len(row) == 1 and _is_bands(value) for row, value in zip(rows, bands.values())):
            return [[row[0] for row in rows]]  # several single results side by side
        return rows
    if (
        isinstance(bands, Sequence)
        and not isinstance(bands, str)
        and bands
        and all(_is_bands(v) for v in bands)
    ):
        return [[(f"class {v.label}", v) for v in bands]]
    raise TypeError(
        "`bands` must be the output of dstk.metrics.reliability_bands (one result, a list of them, e.g. "
        f"multiclass='class_wise', or a mapping name -> result); got {type(bands).__name__}."
    )


def _draw_panel(ax, hist_ax, bands, title, histogram, bins_histogram):
    ax.plot([0, 1], [0, 1], color="0.6", linestyle=":", linewidth=1, label="perfect calibration")
    lower, upper = np.asarray(bands.lower), np.asarray(bands.upper)
    width = np.maximum(upper - lower, 0.008)
    left = np.minimum(lower, np.clip(bands.mean_predicted - 0.004, 0, 1))
    ax.bar(
        left,
        np.asarray(bands.plausibility) - np.asarray(bands.belief),
        width=width,
        bottom=bands.belief,
        align="edge",
        color=PLAUSIBILITY_COLOR,
        alpha=0.25,
        edgecolor=PLAUSIBILITY_COLOR,
        linewidth=0.5,
        label=f"[Bel, Pl] of positive ({bands.model})",
    )
    if getattr(bands, "binning", "corp") == "corp":  # the PAV fit is a step function of the prediction
        ax.step(
            np.concatenate([lower, [upper[-1]]]),
            np.concatenate([bands.frequency, [bands.frequency[-1]]]),
            where="post",
            color=BELIEF_COLOR,
            linewidth=1.2,
            label="observed frequency",
        )
    else:
        ax.plot(
            bands.mean_predicted,
            bands.frequency,
            color=BELIEF_COLOR,
            linewidth=1.0,
            label="observed frequency",
        )
    outside = (bands.mean_predicted < bands.belief) | (bands.mean_predicted > bands.plausibility)
    ax.scatter(
        bands.mean_predicted[~outside],
        bands.frequency[~outside],
        s=14,
        color=_INSIDE_COLOR,
        zorder=3,
        label="bin: prediction inside band",
    )
    if outside.any():
        ax.scatter(
            bands.mean_predicted[outside],
            bands.frequency[outside],
            s=22,
            marker="D",
            color=_OUTSIDE_COLOR,
            zorder=3,
            label="bin: prediction outside band",
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.grid(True, color="0.93")
    ax.set_ylabel("observed frequency")
    label = bands.label
    if title is None:
        title = "binary" if label == 1 else ("top-label" if label == "top label" else f"class {label}")
    ax.set_title(title, fontsize=9)
    if histogram:
        hist_ax.hist(
            bands.predictions, bins=bins_histogram, range=(0, 1), color=MASS_COLOR, edgecolor="white"
        )
        hist_ax.set_yscale("log")
        hist_ax.set_xlim(0, 1)
        hist_ax.set_xlabel("predicted probability" if label != "top label" else "confidence (top-label)")
        hist_ax.set_ylabel("count", fontsize=8)
        ax.tick_params(labelbottom=False)
    else:
        ax.set_xlabel("predicted probability" if label != "top label" else "confidence (top-label)")


def reliability_diagram(
    bands: Any,
    *,
    histogram: bool = True,
    histogram_bins: int = 40,
    panel_size: float = 3.0,
    title: str | None = None,
) -> Figure:
    """Reliability diagrams with the [Bel, Pl] band of every bin and a histogram of predictions.

    Parameters
    ----------
    bands : ReliabilityBands, list of ReliabilityBands, or mapping
        The output of :func:`dstk.metrics.reliability_bands`: one result (one
        panel), a list (one panel each, e.g. ``multiclass="class_wise"``), or a
        mapping ``name -> result`` (panels side by side, e.g. several
        classifiers; the name titles the panel) or ``name -> list`` (one row
        per name).  A row of more than five panels wraps onto further rows,
        in order.
    histogram : bool, default=True
        Draw the histogram of the predictions (log counts) under each panel.
    histogram_bins : int, default=40
        Equal-width histogram bins on [0, 1].
    panel_size : float, default=3.0
        Width of one panel in inches.
    title : str, optional
        Title of the whole figure.

    Returns
    -------
    matplotlib.figure.Figure
        With constrained layout; ``fig.axes`` lists the reliability and
        histogram axes.

    Raises
    ------
    TypeError
        ``bands`` is not a reliability_bands result (or a list / mapping of them).
    ValueError
        An empty mapping, a bad ``histogram_bins`` or ``panel_size``.

    Notes
    -----
    Each bin is drawn as a box spanning its predictions horizontally and its
    ``[Bel, Pl]`` of the positive outcome vertically; the step line is the
    observed frequency (for CORP bins the PAV recalibration, Dimitriadis,
    Gneiting & Jordan 2021, Fig. 1).  A bin's point (mean prediction,
    observed frequency) is drawn as a diamond when the mean prediction lies
    outside the band: there the miscalibration exceeds what the bin's sample
    size explains.

    References
    ----------
    T. Dimitriadis, T. Gneiting, A. I. Jordan, Stable reliability diagrams for
    probabilistic classifiers, *PNAS* 118 (2021) e2016191118.

    Examples
    --------
    >>> import numpy as np
    >>> from dstk.metrics import reliability_bands
    >>> from dstk.plot import reliability_diagram
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=500)
    >>> y = (rng.uniform(size=500) < p**1.5).astype(int)
    >>> fig = reliability_diagram(reliability_bands(y, p))
    >>> len(fig.axes)
    2
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    rows = _panels(bands)
    if (
        isinstance(histogram_bins, bool)
        or not isinstance(histogram_bins, (int, np.integer))
        or histogram_bins < 1
    ):
        raise ValueError(f"`histogram_bins` must be a positive integer; got {histogram_bins!r}.")
    if (
        isinstance(panel_size, (bool, str))
        or not isinstance(panel_size, (int, float, np.integer, np.floating))
        or not (np.isfinite(panel_size) and panel_size > 0)
    ):
        raise ValueError(f"`panel_size` must be a finite number > 0 (inches); got {panel_size!r}.")
    # many panels (e.g. one per class): rows of at most _MAX_COLUMNS panels, in order
    rows = [row[i : i + _MAX_COLUMNS] for row in rows for i in range(0, len(row), _MAX_COLUMNS)]
    n_rows = len(rows)
    n_cols = max(len(r) for r in rows)
    height_ratios = [3, 1] * n_rows if histogram else [1] * n_rows
    fig = pyplot().figure(
        figsize=(panel_size * n_cols, panel_size * n_rows * (1.33 if histogram else 1.0) + 0.6),
        layout="constrained",
    )
    grid = fig.add_gridspec(len(height_ratios), n_cols, height_ratios=height_ratios)
    first = None
    for r, row in enumerate(rows):
        for c, (panel_title, panel) in enumerate(row):
            if histogram:
                ax = fig.add_subplot(grid[2 * r, c])
                hist_ax = fig.add_subplot(grid[2 * r + 1, c], sharex=ax)
            else:
                ax, hist_ax = fig.add_subplot(grid[r, c]), None
            _draw_panel(ax, hist_ax, panel, panel_title, histogram, int(histogram_bins))
            first = first or ax
    assert first is not None
    handles, labels = [], []
    for ax in fig.axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(
        handles,
        labels,
        loc="outside lower center",
        ncol=min(len(labels), 1 if n_cols == 1 else 3),
        fontsize=8,
        frameon=False,
    )
    if title is not None:
        fig.suptitle(title, fontsize=10)
    return fig
