"""Accuracy of the likelihood count model's m(frame) at very large counts, against exact arithmetic."""

import mpmath
import numpy as np
import pytest

from dstk._kernels.counts import likelihood_mass_kernel, likelihood_masses
from dstk.evidence import from_counts


def _frame_mass_exact(k, n):
    """m(frame) = B(k + 1, n - k + 1) / L(k / n) (Xu et al. 2016, Eq. 31) with 60 digits."""
    with mpmath.workdps(60):
        k, n = mpmath.mpf(k), mpmath.mpf(n)
        tau = k / n
        return mpmath.beta(k + 1, n - k + 1) / (tau**k * (1 - tau) ** (n - k))


PAIRS = [
    (7, 10),
    (1, 3),
    (0.5, 2.5),
    (3, 1e9),
    (5e8, 1e9),
    (123456789, 1e9),
    (3e11, 1e12),
    (1, 1e12),
    (2.5e11 + 0.5, 1e12),
]


@pytest.mark.parametrize(("k", "n"), PAIRS)
def test_frame_mass_is_the_direct_value_to_full_relative_accuracy(k, n):
    exact = _frame_mass_exact(k, n)
    masses = from_counts(np.array([n - k, k]), model="likelihood", allow_fractional=True).to_array()
    assert float(abs(masses[3] - exact) / exact) < 1e-14
    # the masses still sum to one
    assert masses.sum() == pytest.approx(1.0, abs=4e-16)


@pytest.mark.parametrize(("k", "n"), PAIRS)
def test_swapping_the_classes_swaps_the_singletons_and_keeps_the_frame_mass(k, n):
    m0, m1, frame = likelihood_masses(float(k), float(n))
    s0, s1, s_frame = likelihood_masses(float(n - k), float(n))
    assert frame == s_frame  # bit for bit
    assert (s0, s1) == (m1, m0)


def test_rare_class_mass_against_exact_integration():
    """k = 1 of n = 1e12 and its mirror: m(rare class) = tau - int_0^tau pl (Eq. 32), 50 digits."""
    with mpmath.workdps(50):
        k, n = mpmath.mpf(1), mpmath.mpf(10) ** 12
        tau = k / n
        likelihood = tau**k * (1 - tau) ** (n - k)
        exact = tau - mpmath.quad(lambda t: t**k * (1 - t) ** (n - k) / likelihood, [0, tau])
    m0, m1, _ = likelihood_masses(1.0, 1e12)
    s0, s1, _ = likelihood_masses(1e12 - 1.0, 1e12)
    assert float(abs(m1 - exact) / exact) < 1e-12
    assert (s0, s1) == (m1, m0)


def test_memoised_kernel_returns_the_same_direct_value():
    k = np.array([5e8, 3.0, 5e8])
    n = np.array([1e9, 1e9, 1e9])
    out = likelihood_mass_kernel(k, n)
    for row, (ki, ni) in zip(out, zip(k, n)):
        assert tuple(row[1:]) == likelihood_masses(ki, ni)
