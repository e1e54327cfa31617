"""weight_of_conflict: Shafer's -log(1 - K) against mpmath at 100 digits, near K = 0, near K = 1 and between.

Reference: the definition, evaluated by brute force in mpmath (every tuple of
focal sets, one per source, each source normalised exactly): ``1 - K`` is the
sum of the products whose focal sets intersect, so the reference needs no
subtraction and holds every digit where ``K`` is within 1e-300 of 0 or 1.
"""

import itertools

import numpy as np
import pytest

mpmath = pytest.importorskip("mpmath")

import dstk  # noqa: E402
from dstk import Frame, MassFunction, weight_of_conflict  # noqa: E402
from dstk.exceptions import FrameMismatchError, TotalConflictError  # noqa: E402

mp = mpmath.mp


def reference(sources):
    """-log(1 - K) of the dense float sources (each a vector over subset bitmasks), in 100-digit mpmath."""
    with mpmath.workdps(100):
        exact = []
        for m in sources:
            values = [mpmath.mpf(float(x)) for x in m]
            total = mpmath.fsum(values)
            exact.append([(subset, x / total) for subset, x in enumerate(values) if x > 0])
        size = len(sources[0])
        agree = mpmath.mpf(0)
        for combo in itertools.product(*exact):
            common = size - 1
            for subset, _ in combo:
                common &= subset
            if common:
                agree += mpmath.fprod(x for _, x in combo)
        return mpmath.inf if agree == 0 else -mpmath.log(agree)


def relative_error(got, expected):
    with mpmath.workdps(100):
        if expected == 0:
            return abs(mpmath.mpf(got))
        return float(abs((mpmath.mpf(got) - expected) / expected))


def simple(frame, subset, mass, rest):
    """{subset: mass, frame: rest} on ``frame`` (``1.0 - rest`` may round to 1: the sum is within tolerance)."""
    return MassFunction({subset: mass, tuple(frame): rest}, frame=frame)


@pytest.mark.parametrize("eps", [1e-3, 1e-8, 1e-16, 1e-20, 1e-60, 1e-150, 1e-200, 1e-300])
def test_near_total_conflict(eps):
    """Two almost categorical, disjoint sources: 1 - K = 2 eps - eps**2, which kappa rounds to 1."""
    frame = Frame("ab")
    a = simple(frame, "a", 1.0 - eps, eps)
    b = simple(frame, "b", 1.0 - eps, eps)
    expected = reference([a.to_array(), b.to_array()])
    got = weight_of_conflict([a, b])
    assert relative_error(got, expected) < 1e-14
    if eps < 1e-16:  # where the conflict itself saturates
        assert dstk.combine_with_conflict([a, b], rule="conjunctive")[1] == 1.0


@pytest.mark.parametrize("eps", [1e-120, 1e-160, 1e-200])
def test_three_sources_below_float64_range(eps):
    """1 - K = 3 eps**2 + ... falls below 1e-308: the log of the rescaled sum keeps it."""
    frame = Frame("abc")
    sources = [simple(frame, label, 1.0 - eps, eps) for label in "abc"]
    expected = reference([s.to_array() for s in sources])
    assert relative_error(weight_of_conflict(sources), expected) < 1e-14


@pytest.mark.parametrize("eps", [1e-4, 1e-9, 1e-12, 1e-30, 1e-150])
def test_near_no_conflict(eps):
    """Two sources that barely disagree: K = eps**2, where 1 - K is 1 in float64."""
    frame = Frame("ab")
    a = simple(frame, "a", eps, 1.0 - eps)
    b = simple(frame, "b", eps, 1.0 - eps)
    expected = reference([a.to_array(), b.to_array()])
    assert relative_error(weight_of_conflict([a, b]), expected) < 1e-14


def test_random_sources_against_mpmath():
    rng = np.random.default_rng(3)
    frame = Frame("abc")
    worst = 0.0
    for trial in range(60):
        k = 2 + trial % 3
        values = rng.gamma(0.5, size=(k, 8))
        values[rng.random(values.shape) < 0.4] = 0.0
        values[:, 0] = 0.0
        values[:, 7] += 1e-3
        values /= values.sum(axis=1, keepdims=True)
        sources = [MassFunction.from_array(v, frame) for v in values]
        expected = reference(values)
        got = weight_of_conflict(sources)
        worst = max(worst, relative_error(got, expected))
        # in the ordinary range -log1p(-kappa) agrees (kappa's own rounding, 1 - K well above 2**-53)
        kappa = dstk.combine_with_conflict(sources, rule="conjunctive")[1]
        if 1e-6 < kappa < 1 - 1e-6:
            assert got == pytest.approx(-np.log1p(-kappa), rel=1e-8)
    assert worst < 1e-13


def test_sources_with_mass_on_the_empty_set():
    frame = Frame("ab")
    a = MassFunction.from_array(np.array([0.25, 0.5, 0.0, 0.25]), frame)
    b = MassFunction.from_array(np.array([0.1, 0.0, 0.6, 0.3]), frame)
    expected = reference([a.to_array(), b.to_array()])
    assert relative_error(weight_of_conflict([a, b]), expected) < 1e-14
    only_empty = MassFunction.from_array(np.array([1.0, 0.0, 0.0, 0.0]), frame)
    assert weight_of_conflict([only_empty, b]) == np.inf


def test_batches_axis_and_total_conflict():
    frame = Frame("ab")
    rng = np.random.default_rng(5)
    values = rng.dirichlet(np.ones(3), size=(4, 3))
    dense = np.zeros((4, 3, 4))
    dense[..., 1:] = values
    dense[2] = [[0, 1, 0, 0], [0, 0, 1, 0], [0, 0.5, 0, 0.5]]  # total conflict in sample 2
    batched = MassFunction.from_array(dense, frame)
    got = weight_of_conflict(batched, axis=1)
    assert got.shape == (4,)
    assert got[2] == np.inf
    for row in (0, 1, 3):
        assert relative_error(got[row], reference(dense[row])) < 1e-13
    # sources on axis 0 of the transposed batch, and as a list: the same floats
    swapped = MassFunction.from_array(np.swapaxes(dense, 0, 1), frame)
    np.testing.assert_array_equal(weight_of_conflict(swapped, axis=0), got)
    np.testing.assert_array_equal(weight_of_conflict([batched.batch[:, k] for k in range(3)]), got)
    # Dempster's rule refuses the sample that the weight calls infinite
    with pytest.raises(TotalConflictError):
        dstk.combine(batched, axis=1)


def test_additive_over_dempster_combination():
    """Con(m1, m2, m3) = Con(m1, m2) + Con(m1 + m2, m3) (Shafer 1976, Theorem 3.5)."""
    rng = np.random.default_rng(9)
    frame = Frame("abc")
    for _ in range(20):
        values = rng.dirichlet(np.full(7, 0.4), size=3)
        dense = np.concatenate([np.zeros((3, 1)), values], axis=1)
        m1, m2, m3 = (MassFunction.from_array(v, frame) for v in dense)
        both = dstk.combine([m1, m2])
        whole = weight_of_conflict([m1, m2, m3])
        parts = weight_of_conflict([m1, m2]) + weight_of_conflict([both, m3])
        assert whole == pytest.approx(parts, rel=1e-12)


def test_bad_inputs():
    with pytest.raises(FrameMismatchError):
        weight_of_conflict([MassFunction({"a": 1.0}, frame="ab"), MassFunction({"c": 1.0}, frame="cd")])
    with pytest.raises(ValueError, match="axis"):
        weight_of_conflict(MassFunction.from_array(np.tile([0, 0.5, 0.5, 0], (3, 1)), Frame("ab")))
    with pytest.raises(TypeError, match="masses"):
        weight_of_conflict("ab")
