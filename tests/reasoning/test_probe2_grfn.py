"""Second review of Gaussian random fuzzy numbers: inputs at the edges of float64.

The combination is covariant under a change of unit (Denoeux 2023a, Prop. 9):
for ``x -> c x`` a number ``GRFN(mu, sigma^2, h)`` becomes
``GRFN(c mu, c^2 sigma^2, h / c^2)``, and the combination of the rescaled
numbers is the rescaled combination with the same conflict.
"""

from __future__ import annotations

import numpy as np
import pytest

from dstk.reasoning import GaussianRandomFuzzyNumber, combine_grfn


@pytest.mark.parametrize("normalization", ["soft", "hard"])
@pytest.mark.parametrize("precision", [1e155, 1e200, 1e300])
def test_large_precisions_combine_like_the_rescaled_numbers(precision, normalization):
    # h1 * h2 overflowed although h1 h2 / (h1 + h2) and every h sigma^2 are finite
    c = np.sqrt(precision)
    means, std = np.array([0.0, 3.0]), 2.0
    numbers = [GaussianRandomFuzzyNumber(m / c, std / c, precision) for m in means]
    unit = [GaussianRandomFuzzyNumber(m, std, 1.0) for m in means]
    got, conflict = combine_grfn(numbers, normalization=normalization)
    want, want_conflict = combine_grfn(unit, normalization=normalization)
    assert float(got.mean) * c == pytest.approx(float(want.mean), rel=1e-12)
    assert float(got.std) * c == pytest.approx(float(want.std), rel=1e-12)
    assert float(got.precision) / c**2 == pytest.approx(float(want.precision), rel=1e-12)
    assert float(conflict) == pytest.approx(float(want_conflict), rel=1e-12)
