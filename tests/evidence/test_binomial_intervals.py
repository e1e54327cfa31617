"""BinomialLikelihood.bel / pl on arrays of interval ends, against the definition on a fine grid."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk.evidence import BinomialLikelihood

GRID = np.linspace(0.0, 1.0, 200_001)


def brute_pl(likelihood, lower, upper):
    """sup of the contour over [lower, upper] on a fine grid (the definition, Shafer 1976)."""
    points = np.concatenate([GRID, [lower, upper]])
    inside = (points >= lower) & (points <= upper) & (points >= 0.0) & (points <= 1.0)
    if not inside.any():
        return 0.0
    return float(np.max(np.exp(likelihood.log_contour(points[inside]))))


@settings(max_examples=40, deadline=None)
@given(
    k=st.integers(0, 30),
    extra=st.integers(0, 30),
    ends=st.lists(st.floats(0.0, 1.0), min_size=2, max_size=2),
)
def test_pl_and_bel_match_the_definition(k, extra, ends):
    likelihood = BinomialLikelihood(k, k + extra) if k + extra > 0 else BinomialLikelihood(0, 1)
    lower, upper = sorted(ends)
    assert likelihood.pl(lower, upper) == pytest.approx(brute_pl(likelihood, lower, upper), abs=1e-4)
    # Bel(A) = 1 - Pl(complement of A) within [0, 1]
    # the contour is continuous on [0, 1]: the sup over [0, lower) is its value on [0, lower]
    below = brute_pl(likelihood, 0.0, lower) if lower > 0 else 0.0
    above = brute_pl(likelihood, upper, 1.0) if upper < 1 else 0.0
    complement = max(below, above)
    assert likelihood.bel(lower, upper) == pytest.approx(1.0 - complement, abs=1e-4)


def test_arrays_broadcast_and_equal_the_scalar_calls():
    likelihood = BinomialLikelihood(7, 20)
    t = np.linspace(0.0, 1.0, 101)
    pl, bel = likelihood.pl(0.0, t), likelihood.bel(0.0, t)
    assert pl.shape == bel.shape == t.shape
    np.testing.assert_array_equal(pl, [likelihood.pl(0.0, v) for v in t])
    np.testing.assert_array_equal(bel, [likelihood.bel(0.0, v) for v in t])
    assert np.all(bel <= pl) and np.all(np.diff(pl) >= 0) and np.all(np.diff(bel) >= 0)
    assert pl[-1] == 1.0 and bel[-1] == 1.0 and bel[0] == 0.0


def test_bad_interval_is_a_clear_error():
    likelihood = BinomialLikelihood(2, 5)
    with pytest.raises(ValueError, match="lower <= upper"):
        likelihood.pl(0.8, 0.2)
    with pytest.raises(ValueError, match="lower <= upper"):
        likelihood.bel(np.nan, 0.5)
    with pytest.raises(TypeError, match="complex"):
        likelihood.pl(0.1 + 1j, 0.5)
