"""The single fast Moebius transform of dstk against the definition and plain sweeps."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dstk._kernels import moebius, partial_combination, transforms


def _plain_sweeps(row, superset, sign):
    """The textbook n-sweep fast Moebius transform (Kennes 1992), one addition at a time."""
    x = row.copy()
    size = x.shape[0]
    step = 1
    while step < size:
        for base in range(0, size, 2 * step):
            for j in range(base, base + step):
                if superset:
                    x[j] += sign * x[j + step]
                else:
                    x[j + step] += sign * x[j]
        step *= 2
    return x


def _definition(row, superset, sign):
    """f(A) = sum over B superset (subset) of A of sign**|B xor A| x(B), by enumeration."""
    size = row.shape[0]
    out = np.zeros(size)
    for a, b in itertools.product(range(size), repeat=2):
        related = (a & b) == a if superset else (a & b) == b
        if related:
            out[a] += sign ** bin(a ^ b).count("1") * row[b]
    return out


@pytest.mark.parametrize("n", range(7))
@pytest.mark.parametrize("superset", [True, False])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_pass_is_the_definition_and_bit_equal_to_plain_sweeps(n, superset, sign):
    rng = np.random.default_rng(n)
    row = rng.random(2**n)
    x = row.copy()
    (moebius.superset_pass if superset else moebius.subset_pass)(x, sign)
    np.testing.assert_array_equal(x, _plain_sweeps(row, superset, sign))
    np.testing.assert_allclose(x, _definition(row, superset, sign), rtol=1e-12, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 9),
    data=st.data(),
)
def test_blocked_pass_bit_equal_to_plain_sweeps(n, data):
    row = data.draw(arrays(np.float64, 2**n, elements=st.floats(-1e6, 1e6, allow_nan=False)))
    for superset, sign in itertools.product([True, False], [1.0, -1.0]):
        x = row.copy()
        (moebius.superset_pass if superset else moebius.subset_pass)(x, sign)
        np.testing.assert_array_equal(x, _plain_sweeps(row, superset, sign))


@pytest.mark.parametrize("n", [1, 3, 5])
def test_transforms_are_inverse_pairs(n):
    rng = np.random.default_rng(1)
    m = rng.random((3, 2**n))
    for forward, inverse in [
        (transforms.superset_sum, transforms.superset_moebius),
        (transforms.subset_sum, transforms.subset_moebius),
    ]:
        x = m.copy()
        forward(x)
        inverse(x)
        np.testing.assert_allclose(x, m, rtol=0, atol=1e-14)


def test_no_module_defines_its_own_moebius_pass():
    """One implementation: the kernels that transform call dstk._kernels.moebius."""
    import dstk._kernels.combination as combination

    for module in (combination, transforms, partial_combination):
        for name in ("superset_pass", "subset_pass", "sum_from"):
            assert getattr(module, name, getattr(moebius, name)) is getattr(moebius, name)
        assert not hasattr(module, "_superset_pass")
        assert not hasattr(module, "_subset_pass")
