"""dstk.plot._ensemble: score evolution of growing leaves (Busch et al. 2021, Figs. 1-2)."""

import numpy as np
import pytest

pytest.importorskip("dstk.ensemble")

from dstk.plot import plot_combiner_score_evolution, plot_leaf_score_evolution, simulate_growing_leaves

from .rendering import check_not_blank


def test_simulation_is_a_cumulative_bernoulli_count():
    positives = simulate_growing_leaves((500,), max_leaf_size=50, positive_rate=0.75, random_state=3)
    assert positives.shape == (500, 50)
    steps = np.diff(np.concatenate([np.zeros((500, 1), dtype=int), positives], axis=1), axis=1)
    assert set(np.unique(steps)) <= {0, 1}
    assert abs(steps.mean() - 0.75) < 0.02  # 25 000 Bernoulli(0.75) draws
    again = simulate_growing_leaves((500,), max_leaf_size=50, positive_rate=0.75, random_state=3)
    assert np.array_equal(positives, again)


def trial_lines(ax, n_trials):
    return np.array([line.get_ydata() for line in ax.lines[:n_trials]])


def test_leaf_laplace_trajectories_follow_the_formula():
    ax = plot_leaf_score_evolution("laplace", n_trials=20, max_leaf_size=30, random_state=1)
    positives = simulate_growing_leaves((20,), 30, 0.75, 1)
    sizes = np.arange(1, 31)
    expected = (positives + 1) / (sizes + 2)  # Busch et al. section 3.1.1 (without the -0.5 shift)
    assert np.allclose(trial_lines(ax, 20), expected)
    mean_line = next(line for line in ax.lines if line.get_label() == "mean")
    assert np.allclose(mean_line.get_ydata(), expected.mean(axis=0))
    threshold = next(line for line in ax.lines if line.get_label().startswith("threshold"))
    assert threshold.get_ydata()[0] == 0.5
    check_not_blank(ax)


def test_leaf_scores_every_name_and_callable():
    for name in ["probability", "plausibility", "confidence_bounds"]:
        check_not_blank(plot_leaf_score_evolution(name, n_trials=10, max_leaf_size=15))
    ax = plot_leaf_score_evolution(lambda p, n: p / (p + n), n_trials=5, max_leaf_size=10)
    assert ax.get_ylabel() == "leaf score: <lambda>"


def test_pooling_combiner_is_the_pooled_frequency():
    ax = plot_combiner_score_evolution("pooling", n_leaves=7, n_ensembles=9, max_leaf_size=12, random_state=2)
    positives = simulate_growing_leaves((9, 7), 12, 0.75, 2)
    sizes = np.arange(1, 13)
    expected = positives.sum(axis=1) / (7 * sizes)  # Busch et al. section 4.0.1
    assert np.allclose(trial_lines(ax, 9), expected)
    check_not_blank(ax)


def test_dempster_and_eva_combiners_render():
    ax = plot_combiner_score_evolution("dempster", n_leaves=20, n_ensembles=10, max_leaf_size=30)
    threshold = next(line for line in ax.lines if line.get_label().startswith("threshold"))
    assert threshold.get_ydata()[0] == 0.0
    check_not_blank(ax)
    ax = plot_combiner_score_evolution(
        "eva", n_leaves=20, n_ensembles=10, max_leaf_size=30, combiner_options={"class_prior": [0.25, 0.75]}
    )
    check_not_blank(ax)


def test_errors():
    with pytest.raises(ValueError, match="Unknown leaf score"):
        plot_leaf_score_evolution("median")
    with pytest.raises(ValueError, match="Unknown combination method"):
        plot_combiner_score_evolution("median")
    with pytest.raises(ValueError, match="positive_rate"):
        plot_leaf_score_evolution(positive_rate=1.5)
    with pytest.raises(ValueError, match="n_trials"):
        plot_leaf_score_evolution(n_trials=0)
    with pytest.raises(ValueError, match="one score per ensemble"):
        plot_combiner_score_evolution(
            lambda counts: counts.sum(axis=1), n_leaves=3, n_ensembles=4, max_leaf_size=5
        )
