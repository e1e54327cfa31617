"""Belief-plausibility intervals are never reversed, and interval_width is never negative."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk import MassFunction
from dstk._estimator import singleton_interval as _interval
from dstk.metrics import interval_width


def _brute_force(values, n):
    """Bel({c}) = m({c}); Pl({c}) = sum of m(A) over the subsets A containing c (Shafer 1976, ch. 2)."""
    bel = np.stack([values[..., 1 << c] for c in range(n)], axis=-1)
    pl = np.stack([sum(values[..., a] for a in range(2**n) if a >> c & 1) for c in range(n)], axis=-1)
    return bel, pl


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 5), rows=st.integers(1, 30), seed=st.integers(0, 10_000), sparse=st.booleans())
def test_interval_never_reversed(n, rows, seed, sparse):
    rng = np.random.RandomState(seed)
    alpha = 0.05 if sparse else 1.0  # mostly near-categorical masses: where rounding used to reverse
    values = rng.dirichlet(np.full(2**n, alpha), rows)
    values[:, 0] = 0.0
    values /= values.sum(axis=1, keepdims=True)
    bel, pl = _interval(MassFunction.from_array(values, tuple(range(n))))
    ref_bel, ref_pl = _brute_force(values, n)
    if n == 2:
        ref_bel, ref_pl = ref_bel[..., 1], ref_pl[..., 1]
    assert np.all(pl >= bel)
    np.testing.assert_allclose(bel, ref_bel, atol=1e-15)
    np.testing.assert_allclose(pl, ref_pl, atol=1e-12)
    assert np.all(pl <= 1.0)


def test_interval_of_categorical_masses_is_exact():
    """Masses of the form m({c}) = 1 - tiny: pl was 1 - b(not c) and fell below bel by an ulp."""
    values = np.zeros((3, 8))
    values[:, 1] = 1 - 1e-17 * np.arange(3)
    values[:, 7] = 1 - values[:, 1]
    bel, pl = _interval(MassFunction.from_array(values, (0, 1, 2), validate=False))
    assert np.all(pl >= bel)
    np.testing.assert_array_equal(pl[:, 0], 1.0)


def test_interval_width_never_negative():
    lower = np.array([0.3, 0.5 + 1e-13, 0.2])
    upper = np.array([0.3, 0.5, 0.2])
    assert interval_width(lower, upper) == 0.0
    assert interval_width([0.1, 0.2], [0.3, 0.2]) == pytest.approx(0.1)
    with pytest.raises(ValueError, match="lower <= upper"):
        interval_width([0.6], [0.5])
