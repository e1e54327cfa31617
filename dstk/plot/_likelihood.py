"""Contour functions of likelihood-based belief functions (Xu et al. 2016, Figs. 3 and 6)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..evidence._predictive import _vectorised
from ._base import (
    IGNORANCE_COLOR,
    NEGATIVE_COLOR,
    POSITIVE_COLOR,
    check_unit_interval,
    draw_belief_band,
    finish_unit_axes,
    get_axes,
    legend_below,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike

__all__ = ["plot_cumulative_belief", "plot_logistic_contour", "plot_predictive_contour"]

DEFAULT_LEVELS = (0.05, 0.15, 0.3, 0.5, 0.7, 0.9)


def plot_cumulative_belief(
    likelihood: Any,
    *,
    grid: ArrayLike | None = None,
    ax: Axes | None = None,
    label: str | None = None,
) -> Axes:
    """Draw ``t -> Bel([0, t])`` and ``t -> Pl([0, t])`` of a likelihood-based belief function.

    The two curves are the lower and upper cumulative distribution functions
    of the belief function on the real parameter: every probability
    distribution in its credal set has a CDF between them.  Their gap at ``t``
    is the plausibility of the interval ``[0, t]`` not committed by the data.

    Parameters
    ----------
    likelihood : BinomialLikelihood
        A belief function on a parameter in [0, 1] whose ``bel`` and ``pl``
        accept arrays of interval ends (:class:`dstk.evidence.BinomialLikelihood`).
    grid : array_like of shape (n_points,), optional
        Values of ``t``; default 401 points on [0, 1].
    ax : matplotlib Axes, optional
    label : str, optional
        Title of the axes; default ``"k = ..., n = ..."``.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError
        ``likelihood`` has no vectorised ``bel`` and ``pl``.
    ValueError
        ``grid`` holds NaN, infinite or negative values.

    Notes
    -----
    For the consonant belief function induced by the relative likelihood
    ``pl(tau) = L(tau) / L(tau_hat)`` (Shafer 1976; Denoeux 2014, Eq. 12),
    ``Pl([0, t]) = pl(min(t, tau_hat))`` and
    ``Bel([0, t]) = 1 - pl(max(t, tau_hat))``.

    References
    ----------
    Denoeux, T. (2014). Likelihood-based belief function: justification and
    some extensions to low-quality data. International Journal of
    Approximate Reasoning 55(7), 1535-1547.

    Examples
    --------
    >>> from dstk.evidence import BinomialLikelihood
    >>> from dstk.plot import plot_cumulative_belief
    >>> ax = plot_cumulative_belief(BinomialLikelihood(3, 10))
    >>> [line.get_label() for line in ax.get_lines()]
    ['Pl([0, t])', 'Bel([0, t])']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if not (callable(getattr(likelihood, "bel", None)) and callable(getattr(likelihood, "pl", None))):
        raise TypeError(
            "`likelihood` must be a belief function on a scalar parameter with bel/pl methods, such as "
            f"dstk.evidence.BinomialLikelihood(k, n); got {type(likelihood).__name__}."
        )
    t = np.linspace(0.0, 1.0, 401) if grid is None else np.asarray(grid, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(t)):
        raise ValueError("`grid` contains NaN or infinite values.")
    if t.size and t.min() < 0:
        raise ValueError(
            f"`grid` holds the upper ends t of the intervals [0, t]; they must be >= 0; got {t.min():g}."
        )
    t = np.sort(t)
    upper = np.asarray(likelihood.pl(0.0, t), dtype=np.float64)
    lower = np.asarray(likelihood.bel(0.0, t), dtype=np.float64)
    ax = get_axes(ax)
    draw_belief_band(ax, t, lower, upper, lower_label="Bel([0, t])", upper_label="Pl([0, t])")
    if label is None and hasattr(likelihood, "k") and hasattr(likelihood, "n"):
        label = f"k = {likelihood.k:g}, n = {likelihood.n:g}"
    finish_unit_axes(ax, xlabel="t", ylabel="Bel([0, t]), Pl([0, t])", title=label, ncol=2)
    return ax


def _numerical_hessian(likelihood, point, step=1e-4):
    """Central-difference Hessian of the log-likelihood at ``point`` (2 parameters)."""
    point = np.asarray(point, dtype=float)
    scale = step * np.maximum(np.abs(point), 1.0)
    hessian = np.empty((2, 2))
    for i in range(2):
        for j in range(2):
            corners = []
            for si, sj in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                shifted = point.copy()
                shifted[i] += si * scale[i]
                shifted[j] += sj * scale[j]
                corners.append(likelihood.log_contour(shifted))
            hessian[i, j] = (corners[0] - corners[1] - corners[2] + corners[3]) / (4 * scale[i] * scale[j])
    return hessian


def _default_extent(likelihood: Any, lowest_level: float) -> tuple[float, float, float, float]:
    """Box holding the level set {pl >= lowest_level}, from the quadratic approximation at the MLE (x 1.5)."""
    mle = np.asarray(likelihood.mle_, dtype=float)
    hessian = _numerical_hessian(likelihood, mle)
    try:
        covariance = np.linalg.inv(-hessian)
    except np.linalg.LinAlgError:
        covariance = np.eye(2)
    variances = np.diag(covariance)
    if not np.all(np.isfinite(variances)) or np.any(variances <= 0):
        variances = np.ones(2)
    half_width = 1.5 * np.sqrt(-2.0 * np.log(lowest_level) * variances)
    return (mle[0] - half_width[0], mle[0] + half_width[0], mle[1] - half_width[1], mle[1] + half_width[1])


def plot_logistic_contour(
    likelihood: Any,
    *,
    ax: Axes | None = None,
    levels: ArrayLike = DEFAULT_LEVELS,
    score: float | None = None,
    tau: float | None = None,
    extent: tuple[float, float, float, float] | None = None,
    grid_size: int = 121,
    title: str | None = None,
) -> Axes:
    """Level sets of the contour function pl(theta_0, theta_1) of a two-parameter likelihood (Fig. 6a).

    Parameters
    ----------
    likelihood : LikelihoodBeliefFunction
        A two-parameter likelihood-based belief function, typically
        :class:`dstk.evidence.LogisticLikelihood` (parameters ``(theta_0,
        theta_1)`` of ``tau(s) = 1 / (1 + exp(theta_0 + theta_1 s))``).
    ax : matplotlib Axes, optional
    levels : sequence of float in (0, 1), default (0.05, 0.15, 0.3, 0.5, 0.7, 0.9)
        Values of pl at which the level sets (the focal sets, Eq. 13) are drawn.
    score, tau : float, optional
        Both given: draw the line ``theta_0 = ln(1/tau - 1) - theta_1 s``
        (Eq. 39), the parameters under which a test score ``s`` has
        probability ``tau``, and mark its most plausible point; the value
        there is the profile contour ``pl_T(tau; s)`` of Eq. 40.
    extent : tuple (theta_0 min, theta_0 max, theta_1 min, theta_1 max), optional
        Plotted box.  Default: 1.5 times the box of the lowest level set under
        the quadratic approximation of the log-likelihood at the MLE.
    grid_size : int, default 121
        Grid points per axis.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        Not a two-parameter likelihood, levels outside (0, 1), only one of
        ``score`` / ``tau``, ``tau`` outside (0, 1), a bad ``extent``.

    Notes
    -----
    ``pl(theta) = L(theta) / L(theta_hat)`` (Eq. 34 of Xu et al. 2016, Eq. 11
    of Shafer's likelihood-based belief function); the regions
    ``{pl >= gamma}`` are its focal sets.  Along the dashed line the
    probability of class 1 at score ``s`` is exactly ``tau``, and
    ``pl_T(tau; s) = sup`` of pl on that line (Eq. 40).

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential
    calibration of binary SVM classifiers. IJAR 72, 55-70. Figure 6a.

    Examples
    --------
    >>> import numpy as np
    >>> from dstk.evidence import LogisticLikelihood
    >>> from dstk.plot import plot_logistic_contour
    >>> rng = np.random.default_rng(0)
    >>> labels = (rng.random(60) < 0.5).astype(int)
    >>> scores = rng.normal(2.0 * labels - 1.0, 1.2)
    >>> ax = plot_logistic_contour(LogisticLikelihood(scores, labels), score=0.5, tau=0.7, grid_size=41)
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('$\\\\theta_0$ (intercept)', '$\\\\theta_1$ (slope)')
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    levels = _check_contour_options(likelihood, levels, score=score, tau=tau, grid_size=grid_size)
    extent = _checked_extent(extent, likelihood, lowest_level=float(levels.min()))
    ax = get_axes(ax, figsize=(6.0, 5.0))
    _draw_level_sets(ax, likelihood, levels, extent, grid_size=int(grid_size))
    if score is not None and tau is not None:  # both or neither (checked above)
        _draw_tau_line(ax, likelihood, float(score), float(tau), extent, grid_size=int(grid_size))
    ax.set_xlim(extent[0], extent[1])
    ax.set_ylim(extent[2], extent[3])
    ax.set_xlabel(r"$\theta_0$ (intercept)")
    ax.set_ylabel(r"$\theta_1$ (slope)")
    ax.set_title(title if title is not None else r"Level sets of pl($\theta_0, \theta_1$)", fontsize=10)
    legend_below(ax, ncol=1)
    return ax


def _check_contour_options(
    likelihood: Any, levels: ArrayLike, *, score: float | None, tau: float | None, grid_size: int
) -> np.ndarray:
    """Check the options of plot_logistic_contour; return the sorted levels."""
    if getattr(likelihood, "dimension", None) != 2 or not hasattr(likelihood, "log_contour"):
        raise ValueError(
            "plot_logistic_contour needs a two-parameter LikelihoodBeliefFunction (e.g. "
            f"dstk.evidence.LogisticLikelihood(scores, labels)); got {type(likelihood).__name__}."
        )
    levels = np.sort(np.asarray(levels, dtype=float).reshape(-1))
    if levels.size == 0 or np.any(~np.isfinite(levels)) or levels.min() <= 0 or levels.max() >= 1:
        raise ValueError(f"`levels` must be values of pl strictly between 0 and 1; got {levels.tolist()}.")
    if (score is None) != (tau is None):
        raise ValueError("Pass both `score` and `tau` to draw the line of Eq. 39, or neither.")
    if tau is not None and not 0.0 < float(tau) < 1.0:
        raise ValueError(f"`tau` must lie strictly between 0 and 1; got {tau!r}.")
    if int(grid_size) < 5:
        raise ValueError(f"`grid_size` must be at least 5; got {grid_size!r}.")
    return levels


def _checked_extent(
    extent: Any, likelihood: Any, *, lowest_level: float
) -> tuple[float, float, float, float]:
    """The box (theta_0 min, theta_0 max, theta_1 min, theta_1 max); the default holds the lowest level set."""
    if extent is None:
        extent = _default_extent(likelihood, lowest_level)
    low_0, high_0, low_1, high_1 = (float(v) for v in extent)
    extent = (low_0, high_0, low_1, high_1)
    if (
        len(extent) != 4
        or not (extent[0] < extent[1] and extent[2] < extent[3])
        or not np.all(np.isfinite(extent))
    ):
        raise ValueError(
            f"`extent` must be (theta_0 min, theta_0 max, theta_1 min, theta_1 max); got {extent!r}."
        )
    return extent


def _draw_level_sets(
    ax: Any, likelihood: Any, levels: np.ndarray, extent: tuple[float, float, float, float], *, grid_size: int
) -> None:
    """Filled and labelled level sets of pl on a grid_size x grid_size grid, a colour bar and the MLE."""
    theta_0 = np.linspace(extent[0], extent[1], grid_size)
    theta_1 = np.linspace(extent[2], extent[3], grid_size)
    grid_0, grid_1 = np.meshgrid(theta_0, theta_1)
    values = np.exp(likelihood.log_contour(np.stack([grid_0, grid_1], axis=-1)))
    filled = ax.contourf(
        grid_0, grid_1, values, levels=np.concatenate([levels, [1.0]]), cmap="Blues", alpha=0.85
    )
    lines = ax.contour(grid_0, grid_1, values, levels=levels, colors="#08306b", linewidths=0.8)
    ax.clabel(lines, fmt=lambda v: f"{v:g}", fontsize=7)
    colorbar = ax.figure.colorbar(filled, ax=ax, shrink=0.85)
    colorbar.set_label(r"contour function pl($\theta$)")
    mle = np.asarray(likelihood.mle_, dtype=float)
    ax.plot(
        mle[0],
        mle[1],
        marker="+",
        color="black",
        markersize=12,
        mew=2,
        linestyle="none",
        label=rf"MLE $\hat\theta$ = ({mle[0]:.2f}, {mle[1]:.2f})",
    )


def _draw_tau_line(
    ax: Any,
    likelihood: Any,
    score: float,
    tau: float,
    extent: tuple[float, float, float, float],
    *,
    grid_size: int,
) -> None:
    """The line {theta : tau(score; theta) = tau} (Eq. 39) and its most plausible point."""
    offset = np.log1p(-tau) - np.log(tau)
    line_1 = np.linspace(extent[2], extent[3], 4 * grid_size)
    line_0 = offset - line_1 * score
    ax.plot(
        line_0,
        line_1,
        color="#D55E00",
        linestyle="--",
        linewidth=1.5,
        label=rf"$\theta_0 = \ln(1/\tau - 1) - \theta_1 s$  ($\tau$ = {tau:g}, s = {score:g})",
    )
    on_line = np.exp(likelihood.log_contour(np.column_stack([line_0, line_1])))
    best = int(np.argmax(on_line))
    profile = (
        likelihood.profile_contour_tau(score, tau)
        if hasattr(likelihood, "profile_contour_tau")
        else float(on_line[best])
    )
    ax.plot(
        line_0[best],
        line_1[best],
        marker="o",
        color="#D55E00",
        linestyle="none",
        label=rf"most plausible point on the line: pl$_T(\tau; s)$ = {profile:.3f}",
    )


def plot_predictive_contour(
    contour: Any,
    tau_hat: float | None = None,
    *,
    ax: Axes | None = None,
    score: float | None = None,
    grid_size: int = 801,
    title: str | None = None,
) -> Axes:
    """Contour function on the probability of class 1, with the predictive masses shaded as areas (Figs. 3, 6b).

    In the unit square under and above the contour ``pl(tau)``:

    * the area under the curve is ``m({0, 1})`` (ignorance),
    * the area above it and left of the mode ``tau_hat`` is ``m({1}) = Bel({1})``,
    * the area above it and right of ``tau_hat`` is ``m({0}) = Bel({0})``.

    Parameters
    ----------
    contour : callable, BinomialLikelihood or LogisticLikelihood
        ``pl(tau)`` on [0, 1] (unimodal, maximum 1), or a likelihood-based
        belief function: a one-parameter one on tau (e.g.
        :class:`dstk.evidence.BinomialLikelihood`) or a
        :class:`dstk.evidence.LogisticLikelihood` with ``score`` (its profile
        contour ``pl_T(tau; s)``, Eq. 40).
    tau_hat : float, optional
        The mode; found numerically when omitted (known for the likelihood objects).
    ax : matplotlib Axes, optional
    score : float, optional
        The test score ``s`` (required for a LogisticLikelihood, else unused).
    grid_size : int, default 801
        Points on [0, 1] where the curve is drawn (the masses themselves are
        integrated adaptively, not on this grid).
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        A LogisticLikelihood without ``score``, a contour that is not a
        normalised unimodal function on [0, 1] (see
        :func:`dstk.evidence.predictive_mass`).

    Notes
    -----
    Xu et al. (2016), Eqs. 22c and 23c: ``m({1}) = tau_hat - int_0^tau_hat pl``,
    ``m({0}) = 1 - tau_hat - int_tau_hat^1 pl``, ``m({0, 1}) = int_0^1 pl``,
    computed by :func:`dstk.evidence.predictive_mass` (adaptive quadrature).

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential
    calibration of binary SVM classifiers. IJAR 72, 55-70. Figures 3 and 6b.

    Examples
    --------
    >>> from dstk.evidence import BinomialLikelihood
    >>> from dstk.plot import plot_predictive_contour
    >>> ax = plot_predictive_contour(BinomialLikelihood(7, 10))
    >>> [text.split(" (")[0] for text in (t.get_text() for t in ax.get_legend().get_texts())][1:]
    ['m({1}) = 0.5059', 'm({0}) = 0.1533', 'm({0,1}) = 0.3407']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    evaluate, tau_hat, masses, curve_name = _predictive_contour_parts(contour, tau_hat, score)
    tau = np.union1d(np.linspace(0.0, 1.0, int(grid_size)), [tau_hat])
    values = check_unit_interval(evaluate(tau), "contour values")
    ax = get_axes(ax, figsize=(6.0, 4.6))
    _draw_predictive_areas(ax, tau, values, tau_hat, masses, curve_name=curve_name)
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel(r"$\tau$ = probability of class 1")
    ax.set_ylabel("contour function (plausibility)")
    ax.set_title(title if title is not None else "Predictive mass function as areas", fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    order = [3, 1, 2, 0]
    legend_below(ax, [handles[i] for i in order], [labels[i] for i in order], ncol=2)
    return ax


def _predictive_contour_parts(
    contour: Any, tau_hat: float | None, score: float | None
) -> tuple[Any, float, np.ndarray, str]:
    """(vectorised pl(tau), its mode, masses [0, m({0}), m({1}), m({0,1})], the curve's legend name)."""
    from dstk.evidence._predictive import find_mode, predictive_mass

    masses = None
    if hasattr(contour, "profile_contour_tau"):
        if score is None:
            raise ValueError("A LogisticLikelihood has one contour per test score: pass `score=`.")
        likelihood, score = contour, float(score)
        if not np.isfinite(score):
            raise ValueError(f"`score` must be finite; got {score!r}.")
        evaluate = _vectorised(lambda t: likelihood.profile_contour_tau(score, t))
        tau_hat = float(likelihood.tau(score)) if tau_hat is None else float(tau_hat)
        masses = likelihood.predictive_mass(score).to_array()
        curve_name = rf"pl$_T(\tau; s = {score:g})$"
    elif hasattr(contour, "log_contour") and getattr(contour, "dimension", None) == 1:
        likelihood = contour
        evaluate = _vectorised(likelihood.contour)
        tau_hat = float(likelihood.mle_[0]) if tau_hat is None else float(tau_hat)
        if hasattr(likelihood, "predictive_mass"):
            masses = likelihood.predictive_mass().to_array()
        curve_name = r"pl($\tau$)"
    elif callable(contour):
        evaluate = _vectorised(contour)
        tau_hat = find_mode(contour) if tau_hat is None else float(tau_hat)
        curve_name = r"pl($\tau$)"
    else:
        raise ValueError(
            "`contour` must be a callable pl(tau), a one-parameter likelihood-based belief function or a "
            f"LogisticLikelihood; got {type(contour).__name__}."
        )
    if not 0.0 <= tau_hat <= 1.0:
        raise ValueError(f"`tau_hat` (the mode of the contour) must lie in [0, 1]; got {tau_hat!r}.")
    if masses is None:
        masses = predictive_mass(lambda t: float(evaluate(np.array([t]))[0]), tau_hat).to_array()
    return evaluate, tau_hat, np.asarray(masses, dtype=float), curve_name


def _draw_predictive_areas(
    ax: Any, tau: np.ndarray, values: np.ndarray, tau_hat: float, masses: np.ndarray, *, curve_name: str
) -> None:
    """The areas m({0,1}) under pl(tau), m({1}) and m({0}) above it, the curve and its mode."""
    left = tau <= tau_hat
    right = tau >= tau_hat
    ax.fill_between(
        tau,
        0.0,
        values,
        color=IGNORANCE_COLOR,
        alpha=0.75,
        linewidth=0,
        label=f"m({{0,1}}) = {masses[3]:.4f} (area under the curve)",
    )
    ax.fill_between(
        tau[left],
        values[left],
        1.0,
        color=POSITIVE_COLOR,
        alpha=0.55,
        linewidth=0,
        label=rf"m({{1}}) = {masses[2]:.4f} (above the curve, left of $\hat\tau$)",
    )
    ax.fill_between(
        tau[right],
        values[right],
        1.0,
        color=NEGATIVE_COLOR,
        alpha=0.55,
        linewidth=0,
        label=rf"m({{0}}) = {masses[1]:.4f} (above the curve, right of $\hat\tau$)",
    )
    ax.plot(tau, values, color="black", linewidth=1.6, label=curve_name)
    ax.axvline(tau_hat, color="0.25", linestyle=":", linewidth=1)
    ax.text(tau_hat, 0.015, rf" $\hat\tau$ = {tau_hat:.3f}", ha="left", va="bottom", fontsize=8, color="0.25")
