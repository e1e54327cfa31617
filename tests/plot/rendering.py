"""Render an Axes' figure to PNG and check that it is not blank."""

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.image
import numpy as np


def render(ax, dpi=60):
    """Render the figure of ``ax`` to PNG; return (height, width, number of non-background pixels)."""
    buffer = io.BytesIO()
    ax.figure.savefig(buffer, format="png", dpi=dpi, facecolor="white")
    buffer.seek(0)
    image = matplotlib.image.imread(buffer, format="png")[..., :3]
    background = np.all(image > 0.99, axis=-1)
    return image.shape[0], image.shape[1], int((~background).sum())


def check_not_blank(ax, min_fraction=0.03):
    """Assert the rendered figure has a sensible size and enough drawn (non-white) pixels."""
    height, width, drawn = render(ax)
    assert height >= 150 and width >= 150, (height, width)
    assert drawn >= min_fraction * height * width, f"only {drawn} of {height * width} pixels drawn"
    return drawn
