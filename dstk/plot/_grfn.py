"""Gaussian random fuzzy numbers: contour, Bel/Pl of centred intervals, lower and upper CDFs (Denoeux 2023)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._base import PIGNISTIC_COLOR, PLAUSIBILITY_COLOR, draw_belief_band, finish_unit_axes, get_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike

__all__ = ["plot_grfn_contour", "plot_grfn_intervals", "plot_grfn_cumulative"]


def _single_number(number: Any) -> Any:
    from dstk.reasoning import GaussianRandomFuzzyNumber

    if not isinstance(number, GaussianRandomFuzzyNumber):
        raise TypeError(
            "`number` must be a dstk.reasoning.GaussianRandomFuzzyNumber (e.g. "
            f"EvidentialRegressor.predict_grfn(X)[i]); got {type(number).__name__}."
        )
    if number.mean.size != 1:
        raise ValueError(
            f"`number` must hold a single number; got batch shape {number.shape}. Index it, e.g. number[0]."
        )
    return number[(0,) * number.mean.ndim] if number.mean.ndim else number


def _grid(grid: Any, default: np.ndarray) -> np.ndarray:
    if grid is None:
        return default
    from dstk._validation import as_float_array

    values = as_float_array(grid, "grid", finite=True).reshape(-1)
    if values.size < 2:
        raise ValueError(f"`grid` must hold at least 2 points; got {values.size}.")
    return np.sort(values)


def _span(number: Any) -> tuple[float, float]:
    mean, std, precision = float(number.mean), float(number.std), float(number.precision)
    fuzzy = 3.0 / np.sqrt(precision) if precision > 0 else 3.0 * max(std, 1.0)
    half = 3.0 * std + fuzzy
    return mean - half, mean + half


def plot_grfn_contour(
    number: Any, *, grid: ArrayLike | None = None, ax: Axes | None = None, label: str | None = None
) -> Axes:
    """Draw the contour function ``x -> pl(x)`` of a Gaussian random fuzzy number, with its mode's density.

    Parameters
    ----------
    number : GaussianRandomFuzzyNumber
        A single number (batch size 1).
    grid : array_like of shape (n_points,), optional
        Values of ``x``; default 401 points over ``mean +- (3 std + 3 / sqrt(precision))``.
    ax : matplotlib Axes, optional
    label : str, optional
        Title of the axes; default the parameters.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError
        ``number`` is not a :class:`~dstk.reasoning.GaussianRandomFuzzyNumber`.
    ValueError
        ``number`` holds several numbers, or ``grid`` holds NaN or infinite values.

    Notes
    -----
    ``pl(x) = (1 + h sigma^2)^(-1/2) exp(-h (x - mu)^2 / (2 (1 + h sigma^2)))`` (Denoeux 2023, Eq. (41));
    its height ``(1 + h sigma^2)^(-1/2)`` below 1 shows the conflict between the random mode and the
    fuzziness.  The dotted curve is the density of ``N(mu, sigma^2)`` scaled to height 1.

    References
    ----------
    T. Denoeux (2023). Reasoning with fuzzy and uncertain evidence using epistemic random fuzzy sets:
    general framework and practical models. *Fuzzy Sets and Systems* 453, 1-36.

    Examples
    --------
    >>> from dstk.reasoning import GaussianRandomFuzzyNumber
    >>> from dstk.plot import plot_grfn_contour
    >>> ax = plot_grfn_contour(GaussianRandomFuzzyNumber(2.0, 1.0, 2.0))
    >>> [line.get_label() for line in ax.get_lines()]
    ['pl(x)', 'density of the mode (scaled)']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    number = _single_number(number)
    x = _grid(grid, np.linspace(*_span(number), 401))
    ax = get_axes(ax)
    ax.plot(x, number.contour(x), color=PLAUSIBILITY_COLOR, label="pl(x)")
    std = float(number.std)
    if std > 0:
        with np.errstate(over="ignore"):  # a tiny std: the standardised offsets overflow, the density is 0
            density = np.exp(-0.5 * ((x - float(number.mean)) / std) ** 2)
        ax.plot(
            x,
            density,
            color=PIGNISTIC_COLOR,
            linestyle=":",
            label="density of the mode (scaled)",
        )
    finish_unit_axes(ax, xlabel="x", ylabel="pl(x)", title=_title(number, label), ncol=2)
    return ax


def plot_grfn_intervals(
    number: Any,
    *,
    grid: ArrayLike | None = None,
    ax: Axes | None = None,
    label: str | None = None,
) -> Axes:
    """Draw ``r -> Bel([mu - r, mu + r])`` and ``r -> Pl([mu - r, mu + r])`` of a Gaussian random fuzzy number.

    The belief prediction interval at level ``alpha`` is where the Bel curve crosses ``alpha``
    (:meth:`~dstk.reasoning.GaussianRandomFuzzyNumber.interval`); the curve of the mode's normal
    law, ``P(|M - mu| <= r)``, lies between the two.

    Parameters
    ----------
    number : GaussianRandomFuzzyNumber
        A single number (batch size 1).
    grid : array_like of shape (n_points,), optional
        Half-widths ``r >= 0``; default 401 points on ``[0, 3 std + 3 / sqrt(precision)]``.
    ax : matplotlib Axes, optional
    label : str, optional
        Title of the axes; default the parameters.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError
        ``number`` is not a :class:`~dstk.reasoning.GaussianRandomFuzzyNumber`.
    ValueError
        ``number`` holds several numbers, or ``grid`` holds NaN, infinite or negative values.

    References
    ----------
    T. Denoeux (2023). Quantifying prediction uncertainty in regression using random fuzzy sets: the
    ENNreg model. *IEEE Transactions on Fuzzy Systems* 31(10), 3690-3699 (Fig. 3).

    Examples
    --------
    >>> from dstk.reasoning import GaussianRandomFuzzyNumber
    >>> from dstk.plot import plot_grfn_intervals
    >>> ax = plot_grfn_intervals(GaussianRandomFuzzyNumber(2.0, 1.0, 2.0))
    >>> [line.get_label() for line in ax.get_lines()]
    ['Pl([mu - r, mu + r])', 'P(|M - mu| <= r)', 'Bel([mu - r, mu + r])']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    number = _single_number(number)
    low, high = _span(number)
    r = _grid(grid, np.linspace(0.0, 0.5 * (high - low), 401))
    if (r < 0).any():
        raise ValueError("`grid` holds half-widths; they must be >= 0.")
    mean = float(number.mean)
    belief, plausibility = number.bel(mean - r, mean + r), number.pl(mean - r, mean + r)
    ax = get_axes(ax)
    draw_belief_band(
        ax,
        r,
        belief,
        plausibility,
        lower_label="Bel([mu - r, mu + r])",
        upper_label="Pl([mu - r, mu + r])",
        probability=2.0 * _normal_cdf(r, float(number.std)) - 1.0,
        probability_label="P(|M - mu| <= r)",
    )
    finish_unit_axes(ax, xlabel="half-width r", ylabel="Bel, Pl", title=_title(number, label), ncol=3)
    return ax


def plot_grfn_cumulative(
    number: Any, *, grid: ArrayLike | None = None, ax: Axes | None = None, label: str | None = None
) -> Axes:
    """Draw the lower and upper cumulative distribution functions ``Bel((-inf, x])`` and ``Pl((-inf, x])``.

    Every probability distribution compatible with the number has its CDF between the two curves; the
    normal CDF of the mode (dotted) is one of them.

    Parameters
    ----------
    number : GaussianRandomFuzzyNumber
        A single number (batch size 1).
    grid : array_like of shape (n_points,), optional
        Values of ``x``; default 401 points over ``mean +- (3 std + 3 / sqrt(precision))``.
    ax : matplotlib Axes, optional
    label : str, optional
        Title of the axes; default the parameters.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError
        ``number`` is not a :class:`~dstk.reasoning.GaussianRandomFuzzyNumber`.
    ValueError
        ``number`` holds several numbers, or ``grid`` holds NaN or infinite values.

    Examples
    --------
    >>> from dstk.reasoning import GaussianRandomFuzzyNumber
    >>> from dstk.plot import plot_grfn_cumulative
    >>> ax = plot_grfn_cumulative(GaussianRandomFuzzyNumber(2.0, 1.0, 2.0))
    >>> [line.get_label() for line in ax.get_lines()]
    ['Pl((-inf, x])', 'P(M <= x)', 'Bel((-inf, x])']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    number = _single_number(number)
    x = _grid(grid, np.linspace(*_span(number), 401))
    belief, plausibility = number.cumulative(x)
    ax = get_axes(ax)
    draw_belief_band(
        ax,
        x,
        belief,
        plausibility,
        lower_label="Bel((-inf, x])",
        upper_label="Pl((-inf, x])",
        probability=_normal_cdf(x - float(number.mean), float(number.std)),
        probability_label="P(M <= x)",
    )
    finish_unit_axes(
        ax, xlabel="x", ylabel="Bel((-inf, x]), Pl((-inf, x])", title=_title(number, label), ncol=3
    )
    return ax


def _normal_cdf(offset: np.ndarray, std: float) -> np.ndarray:
    """``P(M - mu <= offset)`` for the mode ``M ~ N(mu, std^2)`` (a step at 0 when ``std`` is 0)."""
    from scipy.special import ndtr

    if std > 0:
        return ndtr(offset / std)
    return (offset >= 0).astype(float)


def _title(number: Any, label: str | None) -> str:
    """``label``, or the number's parameters when it is None."""
    if label is not None:
        return label
    return f"GRFN(mu = {float(number.mean):.3g}, sigma = {float(number.std):.3g}, h = {float(number.precision):.3g})"
