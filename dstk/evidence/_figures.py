"""Data behind Xu et al. (2016), Figure 4: belief and plausibility of success for every count model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dstk.evidence._counts import _BINARY_MODELS, _binary_mass_array

__all__ = ["figure4_data"]


def figure4_data(
    proportion: tuple[int, int] = (2, 3),
    *,
    max_sample_size: int = 300,
    sample_size: int = 10,
    level: float = 0.95,
    models: Sequence[str] = _BINARY_MODELS,
) -> dict[str, Any]:
    """Belief and plausibility of success against sample size and against the proportion (Xu et al. Fig. 4).

    Parameters
    ----------
    proportion : tuple (numerator, denominator), default (2, 3)
        The fixed proportion of panel (a); sample sizes are the multiples of
        the denominator up to ``max_sample_size`` so that k is an integer.
    max_sample_size : int, default 300
        Largest sample size of panel (a).
    sample_size : int, default 10
        The fixed n of panel (b); k runs over 0..n.
    level : float, default 0.95
        Level of the Clopper-Pearson interval (the paper uses 95%).
    models : sequence of str
        Count models (see :func:`dstk.evidence._counts.from_counts`).

    Returns
    -------
    dict
        ``{"by_sample_size": panel, "by_proportion": panel}`` where each panel
        is a dict with keys ``"k"``, ``"n"`` (int arrays), ``"x"`` (the
        plotted abscissa: n for panel (a), k/n for panel (b)), and
        ``"belief"`` / ``"plausibility"``: dicts model -> float64 array of
        Bel({1}) = m({1}) and Pl({1}) = m({1}) + m({0, 1}).

    Raises
    ------
    ValueError
        Invalid proportion or sizes (and anything :func:`from_counts` rejects).

    Notes
    -----
    Bel({1}) and Pl({1}) from Eqs. 24-32 of Xu et al. (2016); "bayes" and
    "inverse_pignistic" do not depend on the sample size, Dempster's model
    converges fastest to k/n, the Clopper-Pearson model is the most
    conservative and the likelihood model lies in between (section 4.1).

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential
    calibration of binary SVM classifiers. IJAR 72, 55-70. Figure 4.

    Examples
    --------
    >>> data = figure4_data(max_sample_size=30)
    >>> data["by_sample_size"]["x"][:3]
    array([3, 6, 9])
    >>> print(data["by_proportion"]["belief"]["dempster"][7].round(4))
    0.6364
    """
    numerator, denominator = (int(v) for v in proportion)
    if not (0 <= numerator <= denominator and denominator >= 1):
        raise ValueError(
            f"`proportion` must be (numerator, denominator) with 0 <= numerator <= denominator; got {proportion!r}."
        )
    if int(max_sample_size) < denominator:
        raise ValueError(
            f"`max_sample_size` must be at least the denominator {denominator}; got {max_sample_size!r}."
        )
    if int(sample_size) < 1:
        raise ValueError(f"`sample_size` must be at least 1; got {sample_size!r}.")
    n_a = np.arange(denominator, int(max_sample_size) + 1, denominator)
    k_a = n_a // denominator * numerator
    n_b = np.full(int(sample_size) + 1, int(sample_size))
    k_b = np.arange(int(sample_size) + 1)
    panels = {}
    for name, k, n, x in (("by_sample_size", k_a, n_a, n_a), ("by_proportion", k_b, n_b, k_b / n_b)):
        belief, plausibility = {}, {}
        for model in models:
            masses = _binary_mass_array(k, n, model, level=level)
            belief[model] = masses[:, 2]
            plausibility[model] = masses[:, 2] + masses[:, 3]
        panels[name] = {"k": k, "n": n, "x": x, "belief": belief, "plausibility": plausibility}
    return panels
