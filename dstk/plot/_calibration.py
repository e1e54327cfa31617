"""Plots of evidential calibration: belief/plausibility curves against the score, reliability diagrams."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._base import (
    BELIEF_COLOR,
    PIGNISTIC_COLOR,
    PLAUSIBILITY_COLOR,
    get_axes,
    legend_below,
    model_color,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike


__all__ = ["plot_calibration_curves"]

_CURVES = ("belief", "plausibility", "pignistic")
_STYLES = {"belief": "-", "plausibility": "--", "pignistic": ":"}
_NAMES = {"belief": "Bel({1})", "plausibility": "Pl({1})", "pignistic": "BetP({1})"}


def _as_named_calibrators(calibrators, names):
    if isinstance(calibrators, dict):
        items = list(calibrators.items())
    elif isinstance(calibrators, (list, tuple)):
        items = [(None, c) for c in calibrators]
    else:
        items = [(None, calibrators)]
    if not items:
        raise ValueError(
            "`calibrators` is empty; pass a fitted calibrator, a list or a dict name -> calibrator."
        )
    if names is not None:
        names = list(names)
        if len(names) != len(items):
            raise ValueError(f"`names` has {len(names)} entries for {len(items)} calibrators.")
        items = [(name, c) for name, (_, c) in zip(names, items)]
    named = []
    for name, calibrator in items:
        if not hasattr(calibrator, "predict_interval") or not hasattr(calibrator, "predict_proba"):
            raise TypeError(
                f"{type(calibrator).__name__} is not an evidential calibrator: it needs predict_interval and "
                "predict_proba (e.g. dstk.calibration.LogisticCalibrator(...).fit(scores, y))."
            )
        if name is None:
            model = getattr(calibrator, "model", None)
            name = type(calibrator).__name__.replace("Calibrator", "") + (f" ({model})" if model else "")
        named.append((str(name), calibrator))
    return named


def _check_data(scores: ArrayLike, labels: ArrayLike | None) -> tuple[np.ndarray, np.ndarray | None]:
    scores = np.asarray(scores, dtype=float).reshape(-1)
    if scores.size == 0 or not np.all(np.isfinite(scores)):
        raise ValueError("`calibration_scores` must be a non-empty array of finite scores.")
    if labels is None:
        return scores, None
    labels = np.asarray(labels).reshape(-1)
    if labels.size != scores.size:
        raise ValueError(
            f"`calibration_labels` has {labels.size} labels but `calibration_scores` has {scores.size} scores."
        )
    classes = np.unique(labels)
    if classes.size > 2:
        raise ValueError(f"`calibration_labels` must be binary; got classes {classes.tolist()}.")
    positive = (labels == 1) if np.isin(classes, (0, 1)).all() else (labels == classes[-1])  # the larger
    return scores, positive


def plot_calibration_curves(
    calibrators: Any,
    *,
    ax: Axes | None = None,
    calibration_scores: ArrayLike | None = None,
    calibration_labels: ArrayLike | None = None,
    names: Sequence[str] | None = None,
    curves: Sequence[str] = _CURVES,
    score_range: tuple[float, float] | None = None,
    grid_size: int = 200,
    data_display: str | None = "rug",
    fill: bool | None = None,
    title: str | None = None,
) -> Axes:
    """Belief, plausibility and pignistic probability of class 1 against the score (Xu et al. Figs. 1, 5, 7).

    Parameters
    ----------
    calibrators : calibrator, list of calibrators or dict name -> calibrator
        Fitted evidential calibrators (anything with ``predict_interval`` and
        ``predict_proba``, e.g. :class:`dstk.calibration.LogisticCalibrator`);
        several are drawn on the same axes, one colour each.
    ax : matplotlib Axes, optional
    calibration_scores, calibration_labels : array_like of shape (n_samples,), optional
        The calibration data, shown as a rug (``data_display="rug"``: class-1
        scores as ticks along the top, class-0 scores along the bottom) or as
        histograms (``"histogram"``: class 1 hanging from the top, class 0
        standing on the bottom).  Labels are 0/1 (or two classes, the larger
        being class 1).
    names : sequence of str, optional
        Legend names (default: the dict keys, else class and ``model``).
    curves : subset of ("belief", "plausibility", "pignistic")
        Which curves to draw: Bel({1}) solid, Pl({1}) dashed, BetP({1}) dotted.
    score_range : (low, high), optional
        Scores on the x axis (default: the range of the calibration scores,
        widened by 5%; required without calibration scores).
    grid_size : int, default 200
        Scores at which the calibrators are evaluated.
    data_display : {"rug", "histogram", None}, default "rug"
    fill : bool, optional
        Shade between Bel and Pl (default: only when one calibrator is drawn).
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError
        Something that is not an evidential calibrator.
    ValueError
        Unknown curve or display, no score range, mismatched data, ``grid_size`` below 2.

    Notes
    -----
    ``Bel({1}) = m({1})``, ``Pl({1}) = m({1}) + m({0, 1})`` and
    ``BetP({1}) = m({1}) + m({0, 1}) / 2`` of the calibrated mass function
    ``m_s`` at each score ``s`` (Xu et al. 2016, section 4); the band between
    Bel and Pl narrows where calibration data are dense.

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential
    calibration of binary SVM classifiers. IJAR 72, 55-70. Figures 1, 5, 7.

    Examples
    --------
    >>> import numpy as np
    >>> from dstk.calibration import BinningCalibrator
    >>> from dstk.plot import plot_calibration_curves
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 40)
    >>> scores = rng.normal(2.0 * y - 1.0, 1.0)
    >>> calibrator = BinningCalibrator(bins=5, model="likelihood").fit(scores, y)
    >>> ax = plot_calibration_curves(calibrator, calibration_scores=scores, calibration_labels=y, grid_size=50)
    >>> ax.get_ylabel()
    'probability of class 1'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    named = _as_named_calibrators(calibrators, names)
    curves = tuple(curves)
    unknown = [c for c in curves if c not in _CURVES]
    if unknown or not curves:
        raise ValueError(f"`curves` must be a non-empty subset of {_CURVES}; got {list(curves)}.")
    if data_display not in ("rug", "histogram", None):
        raise ValueError(f"`data_display` must be 'rug', 'histogram' or None; got {data_display!r}.")
    positive = None
    if calibration_scores is not None:
        calibration_scores, positive = _check_data(calibration_scores, calibration_labels)
    elif calibration_labels is not None:
        raise ValueError("`calibration_labels` needs `calibration_scores`.")
    low, high = _score_range(score_range, calibration_scores)
    if isinstance(grid_size, bool) or not isinstance(grid_size, (int, np.integer)) or grid_size < 2:
        raise ValueError(
            f"`grid_size` must be an integer >= 2 (the scores at which the curves are drawn); got {grid_size!r}."
        )
    grid = np.linspace(low, high, int(grid_size))
    fill = len(named) == 1 if fill is None else bool(fill)

    ax = get_axes(ax, figsize=(7.0, 4.8))
    for index, (name, calibrator) in enumerate(named):
        _draw_calibrator_curves(
            ax, calibrator, grid, curves, color_index=index, name=name, fill=fill, alone=len(named) == 1
        )
    if len(named) > 1:  # explain the line styles once
        for curve in curves:
            ax.plot([], [], color="0.3", linestyle=_STYLES[curve], label=_NAMES[curve])
    if calibration_scores is not None and data_display == "rug":
        _draw_rug(ax, calibration_scores, positive)
    elif calibration_scores is not None and data_display == "histogram":
        _draw_histograms(ax, calibration_scores, positive, low=low, high=high)
    ax.set_xlim(low, high)
    ax.set_ylim(-0.06, 1.06)
    ax.set_xlabel("classifier score s")
    ax.set_ylabel("probability of class 1")
    ax.grid(True, color="0.93")
    if title is None:
        title = "Evidential calibration" + (f": {named[0][0]}" if len(named) == 1 else "")
    ax.set_title(title, fontsize=10)
    legend_below(ax, ncol=3)
    return ax


def _score_range(score_range: tuple[float, float] | None, scores: np.ndarray | None) -> tuple[float, float]:
    """The x range: ``score_range``, else the scores' range padded by 5 % on each side."""
    if score_range is None:
        if scores is None:
            raise ValueError("Pass `score_range=(low, high)` or the calibration scores to set the x axis.")
        low, high = float(scores.min()), float(scores.max())
        pad = 0.05 * (high - low if high > low else 1.0)
        score_range = (low - pad, high + pad)
    message = f"`score_range` must be two finite numbers (low, high) with low < high; got {score_range!r}."
    try:
        low, high = (float(v) for v in score_range)
    except (TypeError, ValueError):
        raise ValueError(message) from None
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ValueError(message)
    return low, high


def _draw_calibrator_curves(
    ax: Any,
    calibrator: Any,
    grid: np.ndarray,
    curves: tuple[str, ...],
    *,
    color_index: int,
    name: str,
    fill: bool,
    alone: bool,
) -> None:
    """Bel({1}), Pl({1}) and BetP({1}) of one calibrator on ``grid`` (shape (grid_size,)).

    ``alone``: one calibrator on the axes, so each curve has its own colour and legend
    entry; otherwise the calibrator's colour, and its name on the first curve only.
    """
    color = model_color(color_index)
    if hasattr(calibrator, "_predict_mass_array"):  # one pass: [0, m({0}), m({1}), m({0,1})]
        masses = np.asarray(calibrator._predict_mass_array(grid), dtype=float)
        belief, plausibility = masses[:, 2], masses[:, 2] + masses[:, 3]
        pignistic = masses[:, 2] + 0.5 * masses[:, 3]
    else:
        belief, plausibility = (np.asarray(v, dtype=float) for v in calibrator.predict_interval(grid))
        pignistic = np.asarray(calibrator.predict_proba(grid), dtype=float)[:, 1]
    values = {"belief": belief, "plausibility": plausibility, "pignistic": pignistic}
    if fill:
        ax.fill_between(grid, belief, plausibility, color=color, alpha=0.15, linewidth=0)
    own_colors = {"belief": BELIEF_COLOR, "plausibility": PLAUSIBILITY_COLOR, "pignistic": PIGNISTIC_COLOR}
    for curve in curves:
        line_color = own_colors[curve] if alone else color
        label = _NAMES[curve] if alone else (name if curve == curves[0] else None)
        ax.plot(grid, values[curve], color=line_color, linestyle=_STYLES[curve], linewidth=1.6, label=label)


def _split_by_class(scores: np.ndarray, positive: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(class-1 scores, class-0 scores); without labels all scores count as class 0."""
    if positive is None:
        return np.empty(0), scores
    return scores[positive], scores[~positive]


def _draw_rug(ax: Any, scores: np.ndarray, positive: np.ndarray | None) -> None:
    """Class-0 scores as ticks along the bottom, class-1 scores along the top."""
    pos, neg = _split_by_class(scores, positive)
    ax.plot(
        neg,
        np.full(neg.size, -0.03),
        "|",
        color="0.25",
        markersize=8,
        alpha=0.6,
        label="calibration scores, class 0" if positive is not None else "calibration scores",
    )
    if pos.size:
        ax.plot(
            pos,
            np.full(pos.size, 1.03),
            "|",
            color="#009E73",
            markersize=8,
            alpha=0.6,
            label="calibration scores, class 1",
        )


def _draw_histograms(
    ax: Any, scores: np.ndarray, positive: np.ndarray | None, *, low: float, high: float
) -> None:
    """Histogram of class-0 scores standing on 0, of class-1 scores hanging from 1 (30 bins)."""
    pos, neg = _split_by_class(scores, positive)
    edges = np.linspace(low, high, 31)
    neg_counts, _ = np.histogram(neg, edges)
    pos_counts, _ = np.histogram(pos, edges)
    scale = 0.18 / max(neg_counts.max(initial=0), pos_counts.max(initial=0), 1)
    widths = np.diff(edges)
    ax.bar(
        edges[:-1],
        neg_counts * scale,
        width=widths,
        align="edge",
        bottom=0.0,
        color="0.6",
        alpha=0.5,
        label="histogram of class-0 scores" if positive is not None else "histogram of scores",
    )
    if pos.size:
        ax.bar(
            edges[:-1],
            -pos_counts * scale,
            width=widths,
            align="edge",
            bottom=1.0,
            color="#009E73",
            alpha=0.4,
            label="histogram of class-1 scores",
        )
