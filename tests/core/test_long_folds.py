"""Dempster's rule of hundreds to thousands of sources, against exact rational arithmetic.

Long folds of informative sources drive the commonality products far below
the normal float64 range (after a few hundred sources on four labels, a few
thousand on two); the kernels then finish those rows in extended exponent
range.  Every mass that float64 can represent, m(frame) included, must come
out with the rounding error of the fold, and smaller ones as 0 or a
subnormal within a few steps of the subnormal grid.
"""

from fractions import Fraction

import numpy as np
import pytest

from dstk import Frame, MassFunction, combine, combine_with_conflict

from .test_float_edges import exact_dempster


def _product(values):
    """The product of Python integers, pairwise (a product tree: fast for thousands of factors)."""
    values = list(values)
    while len(values) > 1:
        values = [values[i] * values[i + 1] for i in range(0, len(values) - 1, 2)] + values[
            len(values) & ~1 :
        ]
    return values[0]


def exact_by_commonalities(sources, n_labels):
    """Dempster's rule of ``sources`` (K, 2**n) floats, exactly: q = product of the sources'
    commonalities (Shafer 1976, Eq. 3.9 and Theorem 3.3), masses by the inverse transform
    (Eq. 2.3), divided by the sum of the non-empty masses.

    Each source's commonality is an exact sum of floats, a fraction ``N / 2**j``; the products
    keep numerators and powers of two apart, as Python integers.  Returns the 2**n normalised
    masses (m(empty) = 0) correctly rounded to float64 (Python's integer division rounds
    correctly).
    """
    size = 1 << n_labels
    ratios = [
        [sum((Fraction(float(row[b])) for b in range(size) if b & a == a), Fraction(0)).as_integer_ratio()
         for row in sources]
        for a in range(size)
    ]  # fmt: skip
    numerators = [_product(n for n, _ in ratios[a]) for a in range(size)]
    shifts = [sum(d.bit_length() - 1 for _, d in ratios[a]) for a in range(size)]
    top = max(shifts)
    q = [numerators[a] << (top - shifts[a]) for a in range(size)]  # q(A) * 2**top
    m = [
        sum((-1) ** bin(b ^ a).count("1") * q[b] for b in range(size) if b & a == a) if a else 0
        for a in range(size)
    ]
    total = sum(m[1:])
    return [x / total for x in m]


def informative_sources(rng, rows, k, n_labels):
    """Random masses with about half of the mass on the frame (as in bench_combine_sources.py)."""
    v = rng.random((rows, k, 1 << n_labels))
    v[..., 0] = 0
    v[..., -1] += 1.0
    return v / v.sum(-1, keepdims=True)


def assert_close_to_exact(got, exact, k):
    """Within the rounding of a fold of ``k`` products (4 k + 16 epsilons relative) plus four
    steps of the subnormal grid."""
    for have, want in zip(got, exact):
        want = float(want)
        tol = (4 * k + 16) * np.finfo(float).eps * abs(want) + 4 * 5e-324
        assert abs(have - want) <= tol, (have, want)


def test_the_commonality_reference_agrees_with_enumeration():
    rng = np.random.default_rng(3)
    v = informative_sources(rng, 1, 12, 3)[0]
    enumerated = exact_dempster([{a: Fraction(float(x)) for a, x in enumerate(row) if x} for row in v])
    by_q = exact_by_commonalities(v, 3)
    assert all(by_q[a] == float(enumerated.get(a, 0)) for a in range(8))


@pytest.mark.parametrize(
    ("n_labels", "k"), [(2, 100), (2, 2500), (2, 5000), (3, 700), (3, 2000), (4, 300), (4, 800)]
)
def test_long_folds_of_informative_sources_match_exact(n_labels, k):
    rng = np.random.default_rng(k + n_labels)
    v = informative_sources(rng, 3, k, n_labels)
    frame = Frame(range(n_labels))
    got = combine(MassFunction.from_array(v, frame, validate=True), axis=1).to_array()
    for row in range(3):
        exact = exact_by_commonalities(v[row], n_labels)
        assert_close_to_exact(got[row], exact, k)
        # m(frame): exact where float64 represents it, 0 only where the exact value is below half
        # the smallest subnormal
        if float(exact[-1]) >= np.finfo(float).tiny:
            assert got[row, -1] > 0.0


@pytest.mark.parametrize("n_labels", [2, 3, 4])
def test_products_far_below_float64_with_a_normal_result(n_labels):
    """1,200 sources with m(empty) = 0.6 multiply every non-empty commonality by 0.4 (0.4**1200 ~
    1e-478, far below float64's range) and leave the normalised result that of the other sources."""
    rng = np.random.default_rng(n_labels)
    size = 1 << n_labels
    informative = informative_sources(rng, 1, 40, n_labels)[0]
    empty_heavy = np.zeros((1200, size))
    empty_heavy[:, 0] = 0.6
    empty_heavy[:, -1] = 0.4
    v = np.concatenate([informative[:20], empty_heavy, informative[20:]])
    frame = Frame(range(n_labels))
    result, kappa = combine_with_conflict(MassFunction.from_array(v[None], frame, validate=True), axis=1)
    exact = exact_by_commonalities(v, n_labels)
    assert_close_to_exact(result.to_array()[0], exact, len(v))
    assert result.to_array()[0, -1] > 0.0  # the informative sources' m(frame), not 0
    assert kappa == 1.0  # 1 - K = 0.4**1200 * ... rounds K to 1


def test_extended_rows_give_the_same_bits_in_every_position_and_batch():
    """A row that needs the extended range is combined alike alone and among ordinary rows."""
    rng = np.random.default_rng(7)
    frame = Frame("abc")
    long = informative_sources(rng, 5, 2000, 3)
    alone = [
        combine(MassFunction.from_array(long[i : i + 1], frame, validate=True), axis=1) for i in range(5)
    ]
    batch = combine(MassFunction.from_array(long, frame, validate=True), axis=1).to_array()
    for i in range(5):
        assert np.array_equal(alone[i].to_array()[0], batch[i])
