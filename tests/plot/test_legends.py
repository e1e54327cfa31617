"""Legends survive every layout engine: inside the figure, clear of the axis labels and of the data."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from dstk.evidence import BinomialLikelihood, from_counts
from dstk.plot import plot_count_models, plot_cumulative_belief, plot_intervals, plot_predictive_contour


def draw_intervals(ax):
    return plot_intervals(from_counts([[1, 2], [4, 8], [40, 80], [1, 0], [10, 1]], model="likelihood"), ax=ax)


def draw_cumulative(ax):
    return plot_cumulative_belief(BinomialLikelihood(3, 10), ax=ax)


def draw_counts(ax):
    return plot_count_models("proportion", ax=ax, sample_size=10)


def draw_contour(ax):
    return plot_predictive_contour(BinomialLikelihood(7, 10), ax=ax)


@pytest.mark.parametrize("draw", [draw_intervals, draw_cumulative, draw_counts, draw_contour])
@pytest.mark.parametrize("engine", ["tight", "constrained", None])
def test_legend_inside_the_figure_and_clear_of_labels(draw, engine):
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), layout=engine)
    for ax in axes:
        draw(ax)
    if engine is None:
        fig.tight_layout()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    figure_box = fig.bbox
    for ax in axes:
        legend = ax.get_legend().get_window_extent(renderer)
        assert figure_box.x0 - 1 <= legend.x0 and legend.x1 <= figure_box.x1 + 1
        assert figure_box.y0 - 1 <= legend.y0 and legend.y1 <= figure_box.y1 + 1
        assert not legend.overlaps(ax.xaxis.label.get_window_extent(renderer))
        assert not legend.overlaps(ax.title.get_window_extent(renderer))
        # the data stay below the legend: every line's points lie under its lower edge
        to_display = ax.transData.transform
        for line in ax.get_lines():
            xy = np.column_stack(line.get_data()).astype(float)
            inside = (xy[:, 0] >= ax.get_xlim()[0]) & (xy[:, 0] <= ax.get_xlim()[1])
            if inside.any():
                assert to_display(xy[inside])[:, 1].max() <= legend.y0 + 1
    plt.close(fig)
