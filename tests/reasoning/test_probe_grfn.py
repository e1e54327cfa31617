"""Probes of Gaussian random fuzzy numbers at extreme parameters (Denoeux 2023a, Sec. 4.2).

Bel and Pl are probabilities: whatever the parameters, they must be finite,
in [0, 1], with Bel <= Pl, never a silent NaN.
"""

from __future__ import annotations

import numpy as np
import pytest

from dstk.reasoning import GaussianRandomFuzzyNumber


@pytest.mark.parametrize(
    ("mean", "std", "precision"),
    [(0.0, 1e200, 1e-200), (0.0, 1e154, 1e10), (0.0, 1e200, 0.0), (3.0, 1e160, 1.0)],
)
def test_bel_and_pl_stay_probabilities_when_h_sigma_squared_overflows(mean, std, precision):
    number = GaussianRandomFuzzyNumber(mean, std, precision)
    lower = np.array([-1.0, -np.inf, 0.0, 5.0])
    upper = np.array([1.0, 0.0, np.inf, 5.0])
    pl, bel = number.pl(lower, upper), number.bel(lower, upper)
    assert np.all(np.isfinite(pl)) and np.all(np.isfinite(bel))
    assert np.all((bel >= 0) & (bel <= pl) & (pl <= 1))
    # the mode is spread over the whole line: an interval of width 2 is (almost) never certain
    assert bel[0] == pytest.approx(0.0, abs=1e-12)
    contour = number.contour([0.0, 5.0])
    assert np.all(np.isfinite(contour)) and np.all((contour >= 0) & (contour <= 1))
