"""Belief and plausibility of success for the count models (Xu et al. 2016, Fig. 4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ._base import get_axes, legend_below, model_color

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.lines import Line2D

__all__ = ["plot_count_models", "MODEL_NAMES"]

#: Readable names of the binary count models of :func:`dstk.evidence.from_counts`.
MODEL_NAMES = {
    "bayes": "Bayes (k/n)",
    "inverse_pignistic": "inverse pignistic",
    "dempster": "Dempster's model",
    "confidence_interval": "Clopper-Pearson",
    "likelihood": "likelihood-based",
    "plausibility": "plausibility degrees",
}

_PANELS = {"sample_size": "by_sample_size", "proportion": "by_proportion"}


def plot_count_models(
    by: str = "sample_size",
    *,
    ax: Axes | None = None,
    models: Sequence[str] | None = None,
    proportion: tuple[int, int] = (2, 3),
    max_sample_size: int = 300,
    sample_size: int = 10,
    level: float = 0.95,
    title: str | None = None,
) -> Axes:
    """Belief and plausibility of success against sample size or proportion, one colour per count model.

    Panel (a) of Xu et al. (2016), Fig. 4 (``by="sample_size"``): a fixed
    proportion ``k/n`` observed in ever larger samples.  Panel (b)
    (``by="proportion"``): a fixed sample size, ``k = 0..n``.  Belief
    ``Bel({1}) = m({1})`` is drawn solid, plausibility
    ``Pl({1}) = m({1}) + m({0, 1})`` dashed, in the model's colour; the gap
    between them is the ignorance ``m({0, 1})`` left by ``n`` observations.

    Parameters
    ----------
    by : {"sample_size", "proportion"}, default "sample_size"
        Which panel of Fig. 4.
    ax : matplotlib Axes, optional
    models : sequence of str, optional
        Count models (keys of :data:`MODEL_NAMES`); default: the five of
        Xu et al.'s figure (every model but ``"plausibility"``, whose
        plausibility coincides with the inverse pignistic one at 1 for
        proportions above 1/2).
    proportion : tuple (numerator, denominator), default (2, 3)
        The fixed proportion of panel (a).
    max_sample_size : int, default 300
        Largest sample size of panel (a).
    sample_size : int, default 10
        The fixed ``n`` of panel (b).
    level : float, default 0.95
        Level of the Clopper-Pearson interval.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        Unknown ``by`` or model, and whatever
        :func:`dstk.evidence.figure4_data` rejects.

    Notes
    -----
    The values come from :func:`dstk.evidence.figure4_data` (Eqs. 24-32 of
    Xu et al. 2016).  Bayes and the inverse pignistic transform do not depend
    on ``n``; Dempster's model converges fastest to ``k/n``; the
    Clopper-Pearson model is the most conservative (section 4.1).

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential
    calibration of binary SVM classifiers. IJAR 72, 55-70. Figure 4.

    Examples
    --------
    >>> from dstk.plot import plot_count_models
    >>> ax = plot_count_models("proportion", models=["dempster", "likelihood"])
    >>> ax.get_xlabel()
    'observed proportion k/n (n = 10)'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    panel, models = _count_panel(by, models, proportion, max_sample_size, sample_size, level)
    ax = get_axes(ax)
    x = np.asarray(panel["x"], dtype=float)
    handles = _draw_models(ax, x, panel, models, level)
    default_title = _draw_reference(ax, by, x, proportion, sample_size)
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("Bel({1}) and Pl({1})")
    ax.set_title(title if title is not None else default_title, fontsize=10)
    ax.grid(True, color="0.92")
    legend_below(ax, handles, [handle.get_label() for handle in handles], ncol=3)
    return ax


def _count_panel(
    by: str,
    models: Sequence[str] | None,
    proportion: tuple[int, int],
    max_sample_size: int,
    sample_size: int,
    level: float,
) -> tuple[dict, tuple[str, ...]]:
    """Validate ``by`` and ``models``; return the panel of :func:`figure4_data` and the models."""
    from dstk.evidence._counts import _BINARY_MODELS
    from dstk.evidence._figures import figure4_data

    if by not in _PANELS:
        raise ValueError(f"`by` must be 'sample_size' or 'proportion'; got {by!r}.")
    if models is None:
        models = tuple(name for name in _BINARY_MODELS if name != "plausibility")
    models = tuple(models)
    unknown = [name for name in models if name not in _BINARY_MODELS]
    if unknown:
        raise ValueError(f"Unknown count model(s) {unknown}; choose from {_BINARY_MODELS}.")
    if not models:
        raise ValueError("`models` is empty; name at least one count model.")
    data = figure4_data(
        proportion=proportion,
        max_sample_size=max_sample_size,
        sample_size=sample_size,
        level=level,
        models=models,
    )
    return data[_PANELS[by]], models


def _draw_models(ax: Axes, x: np.ndarray, panel: dict, models: tuple[str, ...], level: float) -> list[Line2D]:
    """Belief solid and plausibility dashed per model; return the legend handles."""
    from matplotlib.lines import Line2D

    from dstk.evidence._counts import _BINARY_MODELS

    handles = []
    marker = "o" if x.size <= 15 else None
    for name in models:
        color = model_color(_BINARY_MODELS.index(name))
        belief = panel["belief"][name]
        plausibility = panel["plausibility"][name]
        label = MODEL_NAMES.get(name, name)
        if name == "confidence_interval":
            label = f"{label} ({level:.0%})"
        same = np.allclose(belief, plausibility, atol=1e-12)
        ax.plot(x, belief, color=color, linestyle="-", linewidth=1.6, marker=marker, markersize=3.5)
        if not same:
            ax.plot(
                x, plausibility, color=color, linestyle="--", linewidth=1.6, marker=marker, markersize=3.5
            )
        handles.append(
            Line2D([], [], color=color, linewidth=2.2, label=label + (" (Bel = Pl)" if same else ""))
        )
    handles.append(Line2D([], [], color="0.3", linestyle="-", label="Bel({1})  (solid)"))
    handles.append(Line2D([], [], color="0.3", linestyle="--", label="Pl({1})  (dashed)"))
    return handles


def _draw_reference(ax: Axes, by: str, x: np.ndarray, proportion: tuple[int, int], sample_size: int) -> str:
    """The dotted reference line, x label and x limits of the panel; return its default title."""
    if by == "sample_size":
        numerator, denominator = proportion
        ax.axhline(numerator / denominator, color="0.6", linewidth=0.8, linestyle=":")
        ax.set_xlabel("sample size n")
        ax.set_xlim(0, x.max() * 1.02)
        return f"Proportion {numerator}/{denominator}: belief and plausibility of success vs sample size"
    ax.plot([0, 1], [0, 1], color="0.6", linewidth=0.8, linestyle=":")
    ax.set_xlabel(f"observed proportion k/n (n = {sample_size})")
    ax.set_xlim(-0.02, 1.02)
    return f"n = {sample_size}: belief and plausibility of success vs proportion"
