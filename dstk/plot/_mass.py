"""Plots of mass functions: focal sets, belief-plausibility intervals, ternary pignistic plots."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dstk._validation import as_float_array

from ._base import (
    BELIEF_COLOR,
    MASS_COLOR,
    PIGNISTIC_COLOR,
    PLAUSIBILITY_COLOR,
    check_mass_function,
    check_unit_interval,
    get_axes,
    legend_below,
    literal,
    model_color,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike

    from dstk.core._mass import MassFunction

__all__ = ["plot_mass", "plot_intervals", "plot_ternary"]


#: plot_mass draws at most this many focal sets and this many labels (the largest masses, the most plausible).
_MAX_ITEMS = 40


def plot_mass(
    m: MassFunction,
    *,
    ax: Axes | None = None,
    tolerance: float = 1e-12,
    show_values: bool = True,
    title: str | None = None,
) -> Axes:
    """Bar chart of the focal sets of one mass function, with the [Bel, Pl] interval of each singleton.

    The left part of the axes has one bar per focal set ``A`` (height
    ``m(A)``, sorted by cardinality); the right part has, for every label
    ``w`` of the frame, the interval ``[Bel({w}), Pl({w})]`` as a thick
    vertical segment and the pignistic probability ``BetP(w)`` as a dot.
    Beyond 40 focal sets (or labels) only the 40 of largest mass (of
    largest plausibility ``Pl({w})``, in frame order) are drawn, and a note
    says how many are left out: a wide frame stays a readable figure.

    Parameters
    ----------
    m : MassFunction
        One (unbatched) mass function.  Select one of a batch with ``m.batch[i]``.
    ax : matplotlib Axes, optional
        Where to draw; a new figure is made when None.
    tolerance : float, default 1e-12
        Focal sets with a mass at most ``tolerance`` are not drawn.
    show_values : bool, default True
        Write the mass above each bar.
    title : str, optional
        Axes title (default: ``"Mass function on {a, b, ...}"``).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError
        ``m`` is not a MassFunction.
    ValueError
        ``m`` is batched.

    Notes
    -----
    ``Bel(A) = sum_{empty != B subset of A} m(B)`` and
    ``Pl(A) = sum_{B meets A} m(B)`` (Shafer 1976, Chapter 2);
    ``BetP(w) = sum_{A contains w} m(A) / (|A| (1 - m(empty)))`` (Smets &
    Kennes 1994).  ``Bel({w}) <= BetP(w) <= Pl({w})`` for a normalised ``m``,
    so the dot lies on its segment; when ``m(empty) > 0`` BetP is normalised
    but Bel and Pl are not, and a note on the axes says so.

    References
    ----------
    Shafer, G. (1976). A Mathematical Theory of Evidence. Princeton.
    Smets, P. and Kennes, R. (1994). The transferable belief model. AI 66, 191-234.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> from dstk.plot import plot_mass
    >>> ax = plot_mass(MassFunction({"a": 0.5, "a,b": 0.3, "a,b,c": 0.2}))
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['{a}', '{a,b}', 'Ω', 'a', 'b', 'c']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    m = check_mass_function(m)
    if m.batch_shape:
        raise ValueError(
            f"plot_mass draws one mass function; this one has batch shape {m.batch_shape}. "
            "Select one with m.batch[i], or draw the batch with plot_intervals."
        )
    max_items = _MAX_ITEMS
    frame = m.frame
    focal = m.focal_sets(tolerance=tolerance)
    masks = [frame.subset(labels) for labels in focal]
    hidden_focal = max(len(masks) - max_items, 0)
    if hidden_focal:  # the focal sets of largest mass (ties: the first in bitmask order)
        masses = np.array(list(focal.values()))
        masks = [masks[i] for i in np.argsort(-masses, kind="stable")[:max_items]]
    masks.sort(key=lambda a: (a.bit_count(), a))
    labels = np.arange(frame.n)
    if frame.n > max_items:  # the labels of largest plausibility, in frame order
        labels = np.sort(np.argsort(-m.contour(), kind="stable")[:max_items])
    hidden = (hidden_focal, frame.n - labels.size)
    ax = get_axes(ax, figsize=(max(6.4, 0.55 * (len(masks) + labels.size) + 2.5), 4.4))
    positions = _draw_focal_bars(ax, m, masks, show_values=show_values)
    singleton_positions = _draw_singleton_intervals(ax, m, labels, start=len(masks) + 1.0)
    _label_focal_and_singleton_axes(ax, m, masks, labels, positions, singleton_positions, hidden=hidden)
    default_title = f"Mass function on {{{', '.join(literal(label) for label in frame.labels)}}}"
    ax.set_title(title if title is not None else default_title)
    return ax


def _draw_focal_bars(ax: Any, m: MassFunction, masks: list[int], *, show_values: bool) -> np.ndarray:
    """One bar of height m(A) per focal set A (bitmasks ``masks``) at 0, 1, ...; returns the positions."""
    masses = [float(m[_labels_of(m.frame, a)]) for a in masks]
    positions = np.arange(len(masks), dtype=float)
    bars = ax.bar(
        positions, masses, width=0.7, color=MASS_COLOR, edgecolor="#1f4e79", label="m(A), focal set A"
    )
    if show_values:
        ax.bar_label(bars, labels=[f"{v:.3g}" for v in masses], padding=2, fontsize=7)
    return positions


def _draw_singleton_intervals(ax: Any, m: MassFunction, labels: np.ndarray, *, start: float) -> np.ndarray:
    """[Bel({w}), Pl({w})] segments and BetP(w) dots of the label indices ``labels`` from ``start`` on;
    returns their positions."""
    frame = m.frame
    singleton_positions = start + np.arange(labels.size, dtype=float)
    bel = np.array([m.bel(_labels_of(frame, 1 << int(i))) for i in labels], dtype=float)
    pl = np.array([m.pl(_labels_of(frame, 1 << int(i))) for i in labels], dtype=float)
    ax.vlines(
        singleton_positions,
        bel,
        pl,
        colors=PLAUSIBILITY_COLOR,
        linewidth=7,
        alpha=0.55,
        label="[Bel, Pl] of {w}",
    )
    ax.scatter(singleton_positions, bel, marker="_", s=260, color=BELIEF_COLOR, zorder=3, linewidths=2.5)
    ax.scatter(singleton_positions, pl, marker="_", s=260, color=PLAUSIBILITY_COLOR, zorder=3, linewidths=2.5)
    if m.conflict < 1.0:
        betp = m.pignistic()[labels]
        ax.scatter(
            singleton_positions, betp, marker="o", s=36, color=PIGNISTIC_COLOR, zorder=4, label="BetP(w)"
        )
    ax.axvline(start - 1.0, color="0.6", linestyle=":", linewidth=1)
    return singleton_positions


def _label_focal_and_singleton_axes(
    ax: Any,
    m: MassFunction,
    masks: list[int],
    labels: np.ndarray,
    positions: np.ndarray,
    singleton_positions: np.ndarray,
    *,
    hidden: tuple[int, int],
) -> None:
    """Tick labels, limits, the two group captions, the notes (conflict, items not drawn) and the legend."""
    frame = m.frame
    tick_labels = [literal(frame.format_subset(a)) for a in masks] + [
        literal(frame.labels[int(i)]) for i in labels
    ]
    ax.set_xticks(np.concatenate([positions, singleton_positions]))
    long_names = sum(len(t) for t in tick_labels) > 4 * len(tick_labels)
    ax.set_xticklabels(
        tick_labels,
        rotation=35 if long_names else 0,
        ha="right" if long_names else "center",
        fontsize=8 if long_names else None,
    )
    ax.set_xlim(-0.7, singleton_positions[-1] + 0.7)
    ax.set_ylim(0.0, 1.3)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_ylabel("mass / belief / plausibility")
    transform = ax.get_xaxis_transform()
    caption = {"transform": transform, "ha": "center", "fontsize": 8, "color": "0.3"}
    if len(masks):
        ax.text((len(masks) - 1) / 2, 0.86, "focal sets", **caption)
    ax.text(singleton_positions.mean(), 0.86, "singletons", **caption)
    notes = []
    if 0.0 < m.conflict < 1.0:
        notes.append(f"m(∅) = {m.conflict:.3g}: BetP is normalised, Bel and Pl are not")
    if hidden[0]:
        notes.append(f"{hidden[0]} more focal sets not shown (the largest masses are)")
    if hidden[1]:
        notes.append(f"{hidden[1]} more labels not shown (the most plausible are)")
    for k, note in enumerate(notes):
        ax.text(0.5, 0.81 - 0.045 * k, note, transform=ax.transAxes, ha="center", fontsize=7, color="0.3")
    ax.legend(
        loc="upper center",
        ncol=3,
        fontsize=7,
        frameon=False,
        bbox_to_anchor=(0.5, 1.0),
        handlelength=1.2,
        columnspacing=1.0,
    )


def _labels_of(frame, mask):
    """The subset with bitmask ``mask`` as a frozenset of labels (unambiguous for every frame)."""
    return frozenset(frame.labels_of(mask))


def plot_intervals(
    m: MassFunction,
    *,
    subset: Any = None,
    ax: Axes | None = None,
    x: ArrayLike | None = None,
    y_true: ArrayLike | None = None,
    sort: bool = False,
    xlabel: str | None = None,
    title: str | None = None,
) -> Axes:
    """Interval plot of a batch: ``[Bel(A), Pl(A)]`` and ``BetP(A)`` for every mass function.

    Parameters
    ----------
    m : MassFunction
        A 1-D batch (an unbatched one is a batch of one).
    subset : label or subset, optional
        The event ``A`` (anything ``Frame.subset`` accepts).  Defaults to the
        second label of a two-label frame (the positive class of
        ``Frame((0, 1))``); required for larger frames.
    ax : matplotlib Axes, optional
    x : array_like of shape (n_samples,), optional
        Abscissa of each sample (e.g. its classifier score).  Default: the
        sample index (after sorting when ``sort``).
    y_true : array_like of shape (n_samples,), optional
        True labels (values of the frame's labels), or a boolean mask that is
        True where the true label is in ``A``: the pignistic dots are coloured
        by whether the true label is in ``A``.
    sort : bool, default False
        Order the samples by increasing ``BetP(A)`` (ignored when ``x`` is given).
    xlabel, title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError
        ``m`` is not a MassFunction.
    ValueError
        A batch with more than one axis, no ``subset`` for a frame of more than
        two labels, an empty ``subset``, ``x`` / ``y_true`` of the wrong length,
        or labels in ``y_true`` that are not in the frame.

    Notes
    -----
    The width ``Pl(A) - Bel(A) = sum of m(B)`` over the ``B`` meeting both
    ``A`` and its complement is the mass that could go either way: the
    ignorance about ``A`` (Shafer 1976).  ``BetP(A)`` is the pignistic
    probability (Smets & Kennes 1994).

    Examples
    --------
    >>> from dstk.evidence import from_counts
    >>> from dstk.plot import plot_intervals
    >>> ax = plot_intervals(from_counts([[1, 1], [1, 3], [2, 8]], model="dempster"))
    >>> ax.get_ylabel()
    'Bel({1}), BetP({1}), Pl({1})'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    m = check_mass_function(m)
    if not m.batch_shape:
        m = m.reshape(1)
    if m.ndim != 1:
        raise ValueError(
            f"plot_intervals needs a 1-D batch; got batch shape {m.batch_shape}. Use m.reshape(-1) to flatten it."
        )
    frame = m.frame
    mask = _event_mask(frame, subset)
    n_samples = m.batch_shape[0]
    event = _labels_of(frame, mask)
    bel = np.asarray(m.bel(event), dtype=float).reshape(n_samples)
    pl = np.asarray(m.pl(event), dtype=float).reshape(n_samples)
    members = [i for i in range(frame.n) if (mask >> i) & 1]
    betp = m.pignistic()[:, members].sum(axis=1)
    name = literal(frame.format_subset(mask, whole="Ω"))
    positions, order = _sample_positions(x, betp, sort=sort)
    truth = None if y_true is None else _true_label_in_event(y_true, frame, members, n_samples)[order]

    ax = get_axes(ax)
    _draw_intervals(ax, positions, bel[order], pl[order], betp[order], truth, name=name)
    ax.set_ylim(-0.03, 1.03)
    ax.set_ylabel(f"Bel({name}), BetP({name}), Pl({name})")
    if xlabel is None:
        xlabel = "x" if x is not None else ("sample (sorted by BetP)" if sort else "sample")
    ax.set_xlabel(xlabel)
    ax.set_title(
        title if title is not None else f"Belief-plausibility intervals of {name} ({n_samples} samples)"
    )
    legend_below(ax, ncol=3)
    return ax


def _event_mask(frame: Any, subset: Any) -> int:
    """Bitmask of the event ``subset``; None is the second label of a two-label frame."""
    if subset is not None:
        mask = int(frame.subset(subset))
        if mask == 0:
            raise ValueError(
                f"`subset` is the empty set ({subset!r}), whose [Bel, Pl] is [0, 0] for every mass function; "
                f"name a non-empty event, e.g. subset={frame.labels[-1]!r}."
            )
        return mask
    if frame.n != 2:
        raise ValueError(
            f"Pass `subset=` (the event whose [Bel, Pl] to draw): the frame {frame!r} has {frame.n} labels, "
            "so there is no default positive class."
        )
    return 2


def _sample_positions(x: ArrayLike | None, betp: np.ndarray, *, sort: bool) -> tuple[np.ndarray, np.ndarray]:
    """(abscissa of each drawn sample, order of the samples) for ``n_samples = betp.size`` samples."""
    n_samples = betp.size
    if x is None:
        order = np.argsort(betp, kind="stable") if sort else np.arange(n_samples)
        return np.arange(n_samples, dtype=float), order
    positions = as_float_array(x, "x").reshape(-1)
    if positions.size != n_samples:
        raise ValueError(f"`x` has {positions.size} values but the batch has {n_samples} mass functions.")
    if not np.all(np.isfinite(positions)):
        raise ValueError("`x` contains NaN or infinite values.")
    return positions, np.arange(n_samples)


def _true_label_in_event(y_true: ArrayLike, frame: Any, members: list[int], n_samples: int) -> np.ndarray:
    """Boolean of shape (n_samples,): the true label is in the event (label indices ``members``)."""
    y_true = np.asarray(y_true).reshape(-1)
    if y_true.size != n_samples:
        raise ValueError(f"`y_true` has {y_true.size} labels but the batch has {n_samples} mass functions.")
    if y_true.dtype == bool:
        return y_true  # already "the true label is in A"
    labels = list(frame.labels)
    unknown = sorted({repr(v) for v in y_true.tolist() if v not in labels})
    if unknown:
        raise ValueError(
            f"`y_true` holds labels that are not in the frame {labels}: {', '.join(unknown[:5])}. "
            "Pass the true labels, or a boolean mask that is True where the true label is in A."
        )
    labels_in_a = [frame.labels[i] for i in members]
    return np.array([v in labels_in_a for v in y_true.tolist()], dtype=bool)


def _draw_intervals(
    ax: Any,
    positions: np.ndarray,
    bel: np.ndarray,
    pl: np.ndarray,
    betp: np.ndarray,
    truth: np.ndarray | None,
    *,
    name: str,
) -> None:
    """[Bel, Pl] segments and BetP dots (coloured by ``truth`` when given), all of shape (n_samples,)."""
    n_samples = positions.size
    width = float(np.clip(300.0 / max(n_samples, 1), 0.6, 6.0))
    ax.vlines(
        positions,
        bel,
        pl,
        colors=PLAUSIBILITY_COLOR,
        alpha=0.55,
        linewidth=width,
        label=f"[Bel, Pl] of {name}",
    )
    size = float(np.clip(2000.0 / max(n_samples, 1), 4.0, 30.0))
    if truth is None:
        ax.scatter(positions, betp, s=size, color=PIGNISTIC_COLOR, zorder=3, label=f"BetP({name})")
        return
    ax.scatter(
        positions[truth],
        betp[truth],
        s=size,
        color="#009E73",
        zorder=3,
        label=f"BetP({name}), true label in {name}",
    )
    ax.scatter(
        positions[~truth],
        betp[~truth],
        s=size,
        color="#CC79A7",
        marker="s",
        zorder=3,
        label=f"BetP({name}), true label not in {name}",
    )


_SQRT3_HALF = np.sqrt(3.0) / 2.0


def _barycentric(probabilities):
    """(n, 3) probabilities -> (n, 2) points in the triangle (0,0), (1,0), (1/2, sqrt(3)/2)."""
    p = np.asarray(probabilities, dtype=float)
    return np.column_stack([p[:, 1] + 0.5 * p[:, 2], _SQRT3_HALF * p[:, 2]])


def plot_ternary(
    values: MassFunction | ArrayLike,
    *,
    ax: Axes | None = None,
    labels: Sequence[str] | None = None,
    y_true: ArrayLike | None = None,
    y_name: str = "true class",
    sectors: bool = True,
    grid: bool = True,
    title: str | None = None,
    **scatter_options: Any,
) -> Axes:
    """Ternary (barycentric) plot of pignistic probabilities on a three-class frame.

    Each sample is a point of the triangle whose vertices are the three
    classes; its distance to the side opposite a vertex is the probability of
    that class.

    Parameters
    ----------
    values : MassFunction or array_like of shape (n_samples, 3)
        A (batched) mass function on a three-label frame, drawn through its
        pignistic probabilities, or probability vectors directly.
    ax : matplotlib Axes, optional
    labels : sequence of 3 str, optional
        Vertex names (default: the frame's labels, or ``0, 1, 2``).
    y_true : array_like of shape (n_samples,), optional
        True class of each sample (a label, or an index 0-2 for arrays): one
        colour per class, with a legend.
    y_name : str, default "true class"
        How the legend names the groups of ``y_true`` (e.g. ``"decision"``).
    sectors : bool, default True
        Draw the three decision sectors of the argmax rule (segments from the
        centre to the middle of each side).
    grid : bool, default True
        Draw the 0.2, 0.4, 0.6, 0.8 iso-probability lines.
    title : str, optional
    **scatter_options
        Passed to ``Axes.scatter`` (e.g. ``s=``, ``alpha=``).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        Not three classes, rows not summing to one, values outside [0, 1].

    Notes
    -----
    The point of ``(p0, p1, p2)`` is ``p0 v0 + p1 v1 + p2 v2`` with the
    vertices ``v0 = (0, 0)``, ``v1 = (1, 0)``, ``v2 = (1/2, sqrt(3)/2)``
    (barycentric coordinates; Gebel 2009, Fig. 2.1).  ``BetP`` is Smets &
    Kennes' pignistic transform.

    References
    ----------
    Gebel, M. (2009). Multivariate calibration of classifier scores into the
    probability space. PhD thesis, TU Dortmund.

    Examples
    --------
    >>> import numpy as np
    >>> from dstk.plot import plot_ternary
    >>> ax = plot_ternary(np.array([[0.8, 0.1, 0.1], [0.2, 0.3, 0.5]]), labels=["a", "b", "c"])
    >>> sorted(t.get_text() for t in ax.texts)[:3]
    ['a', 'b', 'c']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    probabilities, frame_labels = _ternary_probabilities(values)
    if labels is None:
        labels = [literal(v) for v in (frame_labels if frame_labels is not None else (0, 1, 2))]
    labels = [str(v) for v in labels]
    if len(labels) != 3:
        raise ValueError(f"`labels` must name the three vertices; got {len(labels)} names.")
    classes: list[Any] = []
    if y_true is not None:  # checked before any figure is made
        y_true, classes = _ternary_classes(y_true, probabilities.shape[0], frame_labels, labels)
    ax = get_axes(ax, figsize=(5.6, 5.2))
    _draw_triangle(ax, labels, grid=grid, sectors=sectors)
    points = _barycentric(probabilities)
    options: dict[str, Any] = {"s": 18, "alpha": 0.75, "edgecolors": "none"}
    options.update(
        {
            key: (np.asarray(value) if isinstance(value, (list, tuple, np.ndarray)) else value)
            for key, value in scatter_options.items()
        }
    )
    if y_true is None:
        ax.scatter(points[:, 0], points[:, 1], color=PIGNISTIC_COLOR, zorder=3, **options)
    else:
        _scatter_by_class(ax, points, y_true, classes, [f"{y_name} {name}" for name in labels], options)
    ax.set_xlim(-0.15, 1.15)
    ax.set_ylim(-0.12, _SQRT3_HALF + 0.1)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title if title is not None else "Pignistic probabilities (barycentric coordinates)")
    return ax


def _ternary_probabilities(values: Any) -> tuple[np.ndarray, tuple[Any, ...] | None]:
    """(probabilities of shape (n_samples, 3), the frame's labels or None for arrays), checked."""
    from dstk.core._mass import MassFunction

    if isinstance(values, MassFunction):
        if values.frame.n != 3:
            raise ValueError(f"plot_ternary needs a three-label frame; got {values.frame!r}.")
        return values.pignistic().reshape(-1, 3), tuple(values.frame.labels)
    probabilities = as_float_array(values, "values")
    if probabilities.ndim == 1:
        probabilities = probabilities[None, :]
    if probabilities.ndim != 2 or probabilities.shape[1] != 3 or probabilities.shape[0] == 0:
        raise ValueError(
            "plot_ternary needs `values` of shape (n_samples, 3) with at least one row (probabilities "
            f"of three classes); got shape {probabilities.shape}."
        )
    probabilities = check_unit_interval(probabilities, "values")
    sums = probabilities.sum(axis=1)
    if np.any(np.abs(sums - 1.0) > 1e-6):
        bad = int(np.argmax(np.abs(sums - 1.0)))
        raise ValueError(
            f"Each row of `values` must sum to one (a probability vector); row {bad} sums to {sums[bad]:.6g}."
        )
    return probabilities, None


def _ternary_classes(
    y_true: ArrayLike, n_samples: int, frame_labels: tuple[Any, ...] | None, labels: list[str]
) -> tuple[np.ndarray, list[Any]]:
    """(true classes of shape (n_samples,), the three classes in vertex order), checked."""
    y_true = np.asarray(y_true).reshape(-1)
    if y_true.size != n_samples:
        raise ValueError(f"`y_true` has {y_true.size} labels but there are {n_samples} samples.")
    classes = list(frame_labels) if frame_labels is not None else [0, 1, 2]
    known = np.isin(y_true, np.asarray(classes, dtype=object))
    if not known.all() and frame_labels is None and np.isin(y_true, np.asarray(labels, dtype=object)).all():
        classes, known = list(labels), np.ones(y_true.size, dtype=bool)  # the vertex names, for arrays
    if not known.all():
        raise ValueError(
            f"`y_true` holds labels that are not classes of the plot, e.g. {y_true[~known][0]!r}; give "
            f"labels of the frame {classes} (indices 0-2 or the vertex names for probability arrays)."
        )
    return y_true, classes


def _draw_triangle(ax: Any, labels: list[str], *, grid: bool, sectors: bool) -> None:
    """The triangle, its iso-probability grid, the argmax sectors and the vertex names."""
    vertices = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, _SQRT3_HALF]])
    ax.fill(vertices[:, 0], vertices[:, 1], facecolor="white", edgecolor="black", linewidth=1.2, zorder=0)
    if grid:
        for level in (0.2, 0.4, 0.6, 0.8):
            for k in range(3):
                i, j = (k + 1) % 3, (k + 2) % 3
                ends = np.zeros((2, 3))
                ends[:, k] = level
                ends[0, i] = 1 - level
                ends[1, j] = 1 - level
                xy = _barycentric(ends)
                ax.plot(xy[:, 0], xy[:, 1], color="0.85", linewidth=0.7, zorder=1)
    if sectors:
        centre = vertices.mean(axis=0)
        for a, b in ((0, 1), (1, 2), (2, 0)):
            middle = (vertices[a] + vertices[b]) / 2
            ax.plot(
                [centre[0], middle[0]],
                [centre[1], middle[1]],
                color="0.45",
                linestyle="--",
                linewidth=0.9,
                zorder=1,
            )
    offsets = np.array([[0.0, -0.04], [0.0, -0.04], [0.0, 0.04]])
    aligns = (("center", "top"), ("center", "top"), ("center", "bottom"))
    for vertex, offset, (ha, va), name in zip(vertices, offsets, aligns, labels):
        ax.text(
            vertex[0] + offset[0], vertex[1] + offset[1], name, ha=ha, va=va, fontsize=11, fontweight="bold"
        )


def _scatter_by_class(
    ax: Any,
    points: np.ndarray,
    y_true: np.ndarray,
    classes: list[Any],
    legend_labels: list[str],
    options: dict[str, Any],
) -> None:
    """One coloured scatter per class present in ``y_true`` (points of shape (n_samples, 2)), a legend."""
    for index, label in enumerate(classes):
        hit = y_true == label
        if hit.any():
            group_options = {
                key: (value[hit] if np.ndim(value) == 1 and np.size(value) == hit.size else value)
                for key, value in options.items()
            }  # per-sample sizes etc. follow the group
            ax.scatter(
                points[hit, 0],
                points[hit, 1],
                color=model_color(index),
                zorder=3,
                label=legend_labels[index],
                **group_options,
            )
    ax.legend(loc="upper right", fontsize=7)
