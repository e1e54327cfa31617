"""How leaf scores and leaf combiners evolve as leaves grow (Busch et al. 2021, Figs. 1 and 2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import check_positive_int
from ._base import get_axes, legend_below

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_leaf_score_evolution", "plot_combiner_score_evolution", "simulate_growing_leaves"]

#: Per-leaf scoring functions of :mod:`dstk.ensemble._leaf_scores`, with their decision threshold.
LEAF_SCORES = {
    "probability": ("leaf_probability", 0.5),
    "laplace": ("leaf_laplace", 0.5),
    "confidence_bounds": ("leaf_confidence_bound", 0.5),
    "plausibility": ("leaf_plausibility_score", 0.0),
}

TRIAL_COLOR = "#17becf"
MEAN_COLOR = "#d62728"
OUTER_QUANTILE_COLOR = "#2ca02c"
INNER_QUANTILE_COLOR = "#9467bd"


def simulate_growing_leaves(
    shape: tuple[int, ...],
    max_leaf_size: int = 100,
    positive_rate: float = 0.75,
    random_state: int | np.random.RandomState | None = 0,
) -> np.ndarray:
    """Positive counts of leaves grown one Bernoulli sample at a time.

    Parameters
    ----------
    shape : tuple of int
        Independent leaves, e.g. ``(n_trials,)`` or ``(n_ensembles, n_leaves)``.
    max_leaf_size : int, default 100
        Samples added to every leaf.
    positive_rate : float in [0, 1], default 0.75
        Probability that an added sample is positive.
    random_state : None, int or numpy Generator, default 0

    Returns
    -------
    ndarray of int64, shape ``shape + (max_leaf_size,)``
        Entry ``[..., t - 1]``: positives among the first ``t`` samples of the
        leaf (its negatives are ``t`` minus that).

    Raises
    ------
    ValueError
        A size below 1 or a rate outside [0, 1].

    Notes
    -----
    The simulation of Busch et al. (2021), Fig. 1 (one leaf per trial) and
    Fig. 2 (100 leaves per simulated ensemble).

    Examples
    --------
    >>> simulate_growing_leaves((2,), max_leaf_size=4, positive_rate=1.0).tolist()
    [[1, 2, 3, 4], [1, 2, 3, 4]]
    """
    shape = tuple(check_positive_int(s, "shape entries") for s in np.atleast_1d(shape).tolist())
    max_leaf_size = check_positive_int(max_leaf_size, "max_leaf_size")
    rate = float(positive_rate)
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"`positive_rate` must lie in [0, 1]; got {positive_rate!r}.")
    rng = (
        np.random.default_rng(random_state)
        if not isinstance(random_state, np.random.Generator)
        else random_state
    )
    draws = rng.random(shape + (max_leaf_size,)) < rate
    return np.cumsum(draws, axis=-1, dtype=np.int64)


def _draw_trajectories(ax, sizes, scores, threshold, ylabel, title, trial_name):
    """Busch et al.'s style: every trial in cyan, the mean in red, 10/90% and 25/75% quantiles."""
    ax.plot(sizes, scores.T, color=TRIAL_COLOR, alpha=0.25, linewidth=0.6)
    ax.plot([], [], color=TRIAL_COLOR, linewidth=1.2, label=f"{scores.shape[0]} simulated {trial_name}")
    low_outer, low_inner, high_inner, high_outer = np.quantile(scores, [0.1, 0.25, 0.75, 0.9], axis=0)
    ax.plot(sizes, low_outer, color=OUTER_QUANTILE_COLOR, linewidth=1.4, label="10%, 90% quantiles")
    ax.plot(sizes, high_outer, color=OUTER_QUANTILE_COLOR, linewidth=1.4)
    ax.plot(sizes, low_inner, color=INNER_QUANTILE_COLOR, linewidth=1.4, label="25%, 75% quantiles")
    ax.plot(sizes, high_inner, color=INNER_QUANTILE_COLOR, linewidth=1.4)
    ax.plot(sizes, scores.mean(axis=0), color=MEAN_COLOR, linewidth=2.0, label="mean")
    ax.axhline(threshold, color="black", linestyle=":", linewidth=1.0, label=f"threshold {threshold:g}")
    ax.set_xlim(sizes[0], sizes[-1])
    ax.set_xlabel("leaf size (samples in each leaf)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    legend_below(ax, ncol=2)
    return ax


def plot_leaf_score_evolution(
    score: str | Callable[..., Any] = "probability",
    *,
    ax: Axes | None = None,
    positive_rate: float = 0.75,
    max_leaf_size: int = 100,
    n_trials: int = 100,
    random_state: int | np.random.RandomState | None = 0,
    title: str | None = None,
) -> Axes:
    """Scores of a single leaf as samples are added to it (Busch et al. 2021, Fig. 1).

    Each trial grows one leaf by adding samples that are positive with
    probability ``positive_rate``; the score of the leaf is recomputed after
    every sample.  Small leaves give extreme, variable scores under the
    probability estimate; the uncertainty-aware scores stay near the decision
    threshold until the leaf holds enough evidence.

    Parameters
    ----------
    score : {"probability", "laplace", "confidence_bounds", "plausibility"} or callable
        A per-leaf score of :mod:`dstk.ensemble._leaf_scores`, or a callable
        ``score(positives, negatives) -> array`` (then its threshold is drawn
        at 0.5 unless it is one of the named scores).
    ax : matplotlib Axes, optional
    positive_rate : float, default 0.75
    max_leaf_size : int, default 100
    n_trials : int, default 100
    random_state : None, int or numpy Generator, default 0
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        Unknown score name, bad sizes or rate, or a callable returning the wrong shape or NaN.

    Notes
    -----
    Probability ``p / n`` and Laplace ``(p + 1) / (n + 2)`` (section 3.1.1),
    the plausibility score ``s+ - s-`` from Shaker & Huellermeier's degrees of
    support (3.1.2) and the confidence-bound score (3.1.3); the figure
    subtracts 0.5 from the probability-like scores, here the threshold is
    drawn instead.

    References
    ----------
    Busch, J., Kulessa, M., Loza Mencia, E. and Blockeel, H. (2021).
    Combining predictions under uncertainty: the case of random decision
    trees. Discovery Science 2021. Figure 1.

    Examples
    --------
    >>> from dstk.plot import plot_leaf_score_evolution
    >>> ax = plot_leaf_score_evolution("laplace", n_trials=10, max_leaf_size=20)
    >>> ax.get_ylabel()
    'leaf score: laplace'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    import dstk.ensemble._leaf_scores as ensemble

    if callable(score):
        function, threshold, name = score, 0.5, getattr(score, "__name__", "custom score")
    elif score in LEAF_SCORES:
        function_name, threshold = LEAF_SCORES[score]
        function, name = getattr(ensemble, function_name), score
    else:
        raise ValueError(
            f"Unknown leaf score {score!r}; choose one of {sorted(LEAF_SCORES)} or pass a callable."
        )
    n_trials = check_positive_int(n_trials, "n_trials")
    positives = simulate_growing_leaves((n_trials,), max_leaf_size, positive_rate, random_state)
    sizes = np.arange(1, positives.shape[-1] + 1)
    negatives = sizes[None, :] - positives
    scores = np.asarray(function(positives, negatives), dtype=float)
    if scores.shape != positives.shape:
        raise ValueError(f"The score returned shape {scores.shape} for counts of shape {positives.shape}.")
    if not np.all(np.isfinite(scores)):
        raise ValueError(
            f"The score {name!r} returned NaN or infinite values (for {int((~np.isfinite(scores)).sum())} of "
            f"{scores.size} leaves); a leaf score must be a finite number for every count."
        )
    ax = get_axes(ax)
    default_title = f"Leaf score '{name}', P(positive) = {positive_rate:g}"
    return _draw_trajectories(
        ax,
        sizes,
        scores,
        threshold,
        f"leaf score: {name}",
        title if title is not None else default_title,
        "leaves",
    )


def plot_combiner_score_evolution(
    combiner: str | Callable[..., Any] = "dempster",
    *,
    ax: Axes | None = None,
    n_leaves: int = 100,
    n_ensembles: int = 100,
    positive_rate: float = 0.75,
    max_leaf_size: int = 100,
    random_state: int | np.random.RandomState | None = 0,
    combiner_options: dict[str, Any] | None = None,
    title: str | None = None,
) -> Axes:
    """Combined score of an ensemble of growing leaves (Busch et al. 2021, Fig. 2).

    Each simulated ensemble has ``n_leaves`` leaves (one per tree), all grown
    like the leaf of :func:`plot_leaf_score_evolution`; at every leaf size
    the leaves are combined by ``combiner`` into one score.

    Parameters
    ----------
    combiner : str or callable, default "dempster"
        A combiner name accepted by :func:`dstk.ensemble.combine_leaves`
        (``"average"``, ``"vote"``, ``"laplace"``, ``"plausibility"``,
        ``"confidence_bounds"``, ``"pooling"``, ``"dempster"``,
        ``"cautious"``, ``"eva"`` or ``"<method>:<aggregate>"``), or a
        callable ``counts (n_ensembles, n_leaves, 2) -> scores (n_ensembles,)``.
    ax : matplotlib Axes, optional
    n_leaves, n_ensembles : int, default 100
    positive_rate : float, default 0.75
    max_leaf_size : int, default 100
    random_state : None, int or numpy Generator, default 0
    combiner_options : dict, optional
        Keyword options of :func:`dstk.ensemble.combine_leaves` (e.g.
        ``{"compatibility": "busch2021"}`` or ``{"class_prior": [0.25, 0.75]}``).
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        Unknown combiner, bad sizes or rate, a callable returning the wrong shape or NaN.

    Notes
    -----
    Counts are stacked as ``(n_ensembles, n_leaves, 2)`` with column 0 the
    negatives and column 1 the positives, the layout of
    :meth:`RandomDecisionTreesClassifier.leaf_counts`.  The threshold line is
    decision threshold of the combiner (0.5 for probabilities and votes, 0 for signed scores).

    References
    ----------
    Busch, J., Kulessa, M., Loza Mencia, E. and Blockeel, H. (2021).
    Combining predictions under uncertainty: the case of random decision
    trees. Discovery Science 2021. Figure 2.

    Examples
    --------
    >>> from dstk.plot import plot_combiner_score_evolution
    >>> ax = plot_combiner_score_evolution("eva", n_leaves=10, n_ensembles=10, max_leaf_size=20)
    >>> ax.get_ylabel()
    'combined score: eva'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    from dstk.ensemble._combiners import combine_leaves, decision_threshold, parse_combiner

    options = dict(combiner_options or {})
    if callable(combiner):
        function, threshold, name = combiner, 0.5, getattr(combiner, "__name__", "custom combiner")
    else:
        method, aggregate = parse_combiner(combiner)
        threshold = decision_threshold(method, aggregate)
        name = combiner

        def function(counts):
            return combine_leaves(
                counts, combiner=method if aggregate is None else f"{method}:{aggregate}", **options
            )

    n_leaves = check_positive_int(n_leaves, "n_leaves")
    n_ensembles = check_positive_int(n_ensembles, "n_ensembles")
    positives = simulate_growing_leaves((n_ensembles, n_leaves), max_leaf_size, positive_rate, random_state)
    sizes = np.arange(1, positives.shape[-1] + 1)
    scores = np.empty((n_ensembles, sizes.size))
    for column, size in enumerate(sizes):
        positive = positives[..., column]
        counts = np.stack([size - positive, positive], axis=-1)
        values = np.asarray(function(counts), dtype=float)
        if values.shape != (n_ensembles,):
            raise ValueError(
                f"The combiner returned shape {values.shape} for counts of shape {counts.shape}; "
                f"expected ({n_ensembles},) (one score per ensemble)."
            )
        if not np.all(np.isfinite(values)):
            raise ValueError(
                f"The combiner {name!r} returned NaN or infinite values for leaves of size {int(size)}; a combined "
                "score must be a finite number for every ensemble."
            )
        scores[:, column] = values
    ax = get_axes(ax)
    default_title = f"Combiner '{name}', {n_leaves} leaves, P(positive) = {positive_rate:g}"
    return _draw_trajectories(
        ax,
        sizes,
        scores,
        threshold,
        f"combined score: {name}",
        title if title is not None else default_title,
        "ensembles",
    )
