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


@pytest.mark.parametrize("first", [(0.0, 1e200, 1.0), (0.0, 1e154, 1e10), (0.0, 1e160, 1e-300)])
def test_combination_overflow_is_named_not_blamed_on_the_input(first):
    from dstk.reasoning import combine_grfn

    numbers = [GaussianRandomFuzzyNumber(*first), GaussianRandomFuzzyNumber(1.0, 1.0, 1.0)]
    with pytest.raises(ValueError, match="overflows float64"):
        combine_grfn(numbers)


def test_combination_after_rescaling_equals_the_rescaled_combination():
    from dstk.reasoning import combine_grfn

    # GRFN(0, 1e160, 1e-300) overflows std**2 (1e320), not precision * std**2 (1e20): in units
    # 1e100 times larger it is GRFN(0, 1e60, 1e-100), and it combines there
    parameters = [(0.0, 1e60, 1e-100), (1e-100, 1e-100, 1e200)]
    combined, conflict = combine_grfn([GaussianRandomFuzzyNumber(*p) for p in parameters])
    assert np.isfinite(combined.mean) and np.isfinite(combined.std) and 0.0 <= conflict <= 1.0
    # a change of unit commutes with the combination: means and stds times c, precisions over c**2
    c = 1e3
    again, conflict_again = combine_grfn(
        [GaussianRandomFuzzyNumber(m * c, s * c, h / c**2) for m, s, h in parameters]
    )
    assert float(conflict_again) == pytest.approx(float(conflict), rel=1e-12, abs=1e-300)
    assert float(again.mean) == pytest.approx(float(combined.mean) * c, rel=1e-12)
    assert float(again.std) == pytest.approx(float(combined.std) * c, rel=1e-12)
