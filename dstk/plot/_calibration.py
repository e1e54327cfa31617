"""Plots of evidential calibration: belief/plausibility curves against the score, reliability diagrams."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._base import (
    BELIEF_COLOR,
    PIGNISTIC_COLOR,
    PLAUSIBILITY_COLOR,
    check_mass_function,
    check_unit_interval,
    get_axes,
    legend_below,
    model_color,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike

    from dstk.core._mass import MassFunction

__all__ = ["plot_calibration_curves", "plot_reliability_diagram"]

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
    positive = (labels == 1) if np.isin(classes, (0, 1)).all() else (labels == classes.max())
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
        Unknown curve or display, no score range, mismatched data.

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
    if score_range is None:
        if calibration_scores is None:
            raise ValueError("Pass `score_range=(low, high)` or the calibration scores to set the x axis.")
        low, high = float(calibration_scores.min()), float(calibration_scores.max())
        pad = 0.05 * (high - low if high > low else 1.0)
        score_range = (low - pad, high + pad)
    low, high = (float(v) for v in score_range)
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ValueError(f"`score_range` must be (low, high) with low < high; got {score_range!r}.")
    grid = np.linspace(low, high, int(grid_size))
    fill = len(named) == 1 if fill is None else bool(fill)

    ax = get_axes(ax, figsize=(7.0, 4.8))
    for index, (name, calibrator) in enumerate(named):
        color = model_color(index)
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
        for curve in curves:
            single_colors = len(named) == 1
            line_color = (
                {"belief": BELIEF_COLOR, "plausibility": PLAUSIBILITY_COLOR, "pignistic": PIGNISTIC_COLOR}[
                    curve
                ]
                if single_colors
                else color
            )
            label = _NAMES[curve] if single_colors else (name if curve == curves[0] else None)
            ax.plot(
                grid, values[curve], color=line_color, linestyle=_STYLES[curve], linewidth=1.6, label=label
            )
    if len(named) > 1:  # explain the line styles once
        for curve in curves:
            ax.plot([], [], color="0.3", linestyle=_STYLES[curve], label=_NAMES[curve])

    if calibration_scores is not None and data_display is not None:
        labels_known = positive is not None
        if positive is not None:
            pos, neg = calibration_scores[positive], calibration_scores[~positive]
        else:
            pos, neg = np.empty(0), calibration_scores
        if data_display == "rug":
            ax.plot(
                neg,
                np.full(neg.size, -0.03),
                "|",
                color="0.25",
                markersize=8,
                alpha=0.6,
                label="calibration scores, class 0" if labels_known else "calibration scores",
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
        else:
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
                label="histogram of class-0 scores" if labels_known else "histogram of scores",
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


def plot_reliability_diagram(
    y_true: ArrayLike,
    prediction: ArrayLike | MassFunction,
    *,
    ax: Axes | None = None,
    belief: ArrayLike | None = None,
    plausibility: ArrayLike | None = None,
    n_bins: int = 10,
    strategy: str = "uniform",
    confidence: float = 0.95,
    label: str | None = None,
    title: str | None = None,
) -> Axes:
    """Reliability diagram with the mean [Bel, Pl] of class 1 in every bin as a band.

    Samples are binned by their predicted probability of class 1; each bin
    gives a point (mean predicted probability, observed frequency of class 1)
    with the Clopper-Pearson interval of the frequency as an error bar.  When
    belief and plausibility are known (or ``prediction`` is a mass function)
    the bins' mean ``[Bel({1}), Pl({1})]`` is shaded: a well calibrated
    evidential prediction has the observed frequency inside the band.

    Parameters
    ----------
    y_true : array_like of shape (n_samples,)
        Labels 0/1 (or two classes, the larger being class 1).
    prediction : array_like of shape (n_samples,) or MassFunction
        Predicted probability of class 1, or a batch of mass functions on a
        two-label frame (then the probability is BetP({1}) and belief and
        plausibility are read from it).
    ax : matplotlib Axes, optional
    belief, plausibility : array_like of shape (n_samples,), optional
        Bel({1}) and Pl({1}) of each sample, e.g. from a calibrator's
        ``predict_interval``.
    n_bins : int, default 10
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins on [0, 1] or bins of equal counts.
    confidence : float, default 0.95
        Level of the Clopper-Pearson error bars.
    label, title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        Mismatched lengths, probabilities outside [0, 1], labels not binary,
        belief above plausibility, bad ``n_bins`` or ``strategy``.

    Notes
    -----
    The reliability diagram of DeGroot & Fienberg (1983) with 10 equal-width
    bins (as in Zadrozny & Elkan 2002); the frequency interval is the exact
    binomial interval of Clopper & Pearson (1934), computed by
    :func:`dstk.evidence.clopper_pearson_interval` (Xu et al. 2016, Eq. 28).

    References
    ----------
    DeGroot, M. H. and Fienberg, S. E. (1983). The comparison and evaluation
    of forecasters. The Statistician 32, 12-22.

    Examples
    --------
    >>> import numpy as np
    >>> from dstk.plot import plot_reliability_diagram
    >>> rng = np.random.default_rng(0)
    >>> probability = rng.random(300)
    >>> y = (rng.random(300) < probability).astype(int)
    >>> ax = plot_reliability_diagram(y, probability, belief=0.8 * probability, plausibility=0.2 + 0.8 * probability)
    >>> ax.get_xlabel()
    'mean predicted probability of class 1 (in each bin)'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    from dstk.core._mass import MassFunction
    from dstk.evidence._counts import _check_confidence, _check_counts, _clopper_pearson

    if isinstance(prediction, MassFunction):
        prediction = check_mass_function(prediction, "prediction")
        if prediction.frame.n != 2:
            raise ValueError(
                f"A mass-function prediction must be on a two-label frame; got {prediction.frame!r}."
            )
        masses = prediction.reshape(-1)
        positive_label = frozenset([prediction.frame.labels[1]])
        if belief is not None or plausibility is not None:
            raise ValueError("Pass either a mass-function prediction or `belief`/`plausibility`, not both.")
        belief = np.asarray(masses.bel(positive_label), dtype=float).reshape(-1)
        plausibility = np.asarray(masses.pl(positive_label), dtype=float).reshape(-1)
        probability = masses.pignistic()[:, 1]
    else:
        probability = check_unit_interval(np.asarray(prediction, dtype=float).reshape(-1), "prediction")
    y_true = np.asarray(y_true).reshape(-1)
    if y_true.size != probability.size:
        raise ValueError(f"`y_true` has {y_true.size} labels but there are {probability.size} predictions.")
    classes = np.unique(y_true)
    if classes.size > 2:
        raise ValueError(f"`y_true` must be binary; got classes {classes.tolist()}.")
    positive = (y_true == 1) if np.isin(classes, (0, 1)).all() else (y_true == classes.max())
    if (belief is None) != (plausibility is None):
        raise ValueError(
            "Pass both `belief` and `plausibility` (e.g. calibrator.predict_interval(scores)), or neither."
        )
    if belief is not None and plausibility is not None:  # both or neither (checked above)
        belief = check_unit_interval(
            np.broadcast_to(np.asarray(belief, dtype=float), probability.shape), "belief"
        )
        plausibility = check_unit_interval(
            np.broadcast_to(np.asarray(plausibility, dtype=float), probability.shape), "plausibility"
        )
        if np.any(belief > plausibility + 1e-9):
            raise ValueError(
                "`belief` exceeds `plausibility` for some samples; pass Bel({1}) and Pl({1}) in order."
            )
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"`n_bins` must be a positive integer; got {n_bins!r}.")
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, int(n_bins) + 1)
    elif strategy == "quantile":
        edges = np.unique(np.quantile(probability, np.linspace(0.0, 1.0, int(n_bins) + 1)))
        edges[0], edges[-1] = 0.0, 1.0
    else:
        raise ValueError(f"`strategy` must be 'uniform' or 'quantile'; got {strategy!r}.")
    bins = np.clip(np.searchsorted(edges, probability, side="right") - 1, 0, edges.size - 2)
    occupied = np.unique(bins)
    count = np.array([np.sum(bins == b) for b in occupied])
    successes = np.array([np.sum(positive[bins == b]) for b in occupied])
    mean_probability = np.array([probability[bins == b].mean() for b in occupied])
    frequency = successes / count
    lower, upper = _clopper_pearson(*_check_counts(successes, count), _check_confidence(confidence))

    ax = get_axes(ax, figsize=(5.8, 5.4))
    ax.plot([0, 1], [0, 1], color="0.6", linestyle=":", linewidth=1, label="perfect calibration")
    if belief is not None and plausibility is not None:
        mean_belief = np.array([np.asarray(belief)[bins == b].mean() for b in occupied])
        mean_plausibility = np.array([np.asarray(plausibility)[bins == b].mean() for b in occupied])
        ax.fill_between(
            mean_probability,
            mean_belief,
            mean_plausibility,
            color=PLAUSIBILITY_COLOR,
            alpha=0.22,
            linewidth=0,
            label="mean [Bel({1}), Pl({1})] in the bin",
        )
        ax.plot(mean_probability, mean_belief, color=BELIEF_COLOR, linewidth=1.2, marker="_", markersize=10)
        ax.plot(
            mean_probability,
            mean_plausibility,
            color=PLAUSIBILITY_COLOR,
            linewidth=1.2,
            marker="_",
            markersize=10,
        )
    ax.errorbar(
        mean_probability,
        frequency,
        yerr=[frequency - lower, upper - frequency],
        fmt="o",
        color="black",
        markersize=5,
        capsize=3,
        linewidth=1,
        label=(label + ": " if label else "") + f"observed frequency ({confidence:.0%} interval)",
    )
    for x, y, n in zip(mean_probability, frequency, count):
        ax.annotate(str(n), (x, y), textcoords="offset points", xytext=(5, -10), fontsize=6, color="0.35")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("equal")
    ax.set_xlabel("mean predicted probability of class 1 (in each bin)")
    ax.set_ylabel("observed frequency of class 1")
    ax.set_title(
        title if title is not None else "Reliability diagram (numbers: samples per bin)", fontsize=10
    )
    ax.grid(True, color="0.93")
    legend_below(ax, ncol=1)
    return ax
