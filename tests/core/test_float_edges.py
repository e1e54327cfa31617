"""Dempster's rule at the edges of float64, against exact rational arithmetic.

Near-dogmatic sources make the commonality products underflow long before
the normalised result does; every mass of the result that float64 can
represent must come out with ordinary rounding error, in the dense and the
focal-set form, n-ary and as a pairwise fold.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk import Frame, MassFunction, combine, combine_with_conflict
from dstk.exceptions import TotalConflictError


def exact_dempster(sources):
    """Dempster's rule by enumeration of focal-set tuples in exact rationals.

    ``sources``: list of {bitmask: Fraction}.  Returns {bitmask: Fraction}.
    """
    acc = {None: Fraction(1)}  # None = the frame (identity of intersection)
    for src in sources:
        nxt = {}
        for a, va in acc.items():
            for b, vb in src.items():
                c = b if a is None else a & b
                nxt[c] = nxt.get(c, Fraction(0)) + va * vb
        acc = nxt
    nonempty = sum(v for c, v in acc.items() if c != 0)
    if nonempty == 0:
        raise ZeroDivisionError
    return {c: v / nonempty for c, v in acc.items() if c != 0 and v != 0}


def check_close(result, exact, frame):
    """Every mass within the rounding error of a short chain of operations.

    16 float64 epsilons relative, plus 4 steps of the subnormal grid (a result
    below 2.2e-308 carries fewer significant bits).
    """
    masks, masses = result._nonzero()
    got = dict(zip((int(a) for a in masks), (float(v) for v in masses)))
    for mask, value in exact.items():
        want = float(value)
        have = got.pop(mask, 0.0)
        tol = 16 * np.finfo(float).eps * abs(want) + 4 * 5e-324
        assert abs(have - want) <= tol, (mask, have, want)
    # no mass where the exact result has none
    assert all(v == 0.0 for v in got.values()), got


def near_dogmatic(frame, eps, k):
    """Source k: m({label k}) = 1 - eps, m(frame) = eps (as floats and exact)."""
    e = Fraction(eps)
    mf = MassFunction.from_focal_sets([1 << k, frame.full], [1 - eps, eps], frame)
    return mf, {1 << k: Fraction(1 - eps), frame.full: e}


@pytest.mark.parametrize("n_labels", [3, 5, 18, 30])
@pytest.mark.parametrize("eps", [1e-100, 1e-154, 1e-162, 1e-300])
def test_three_near_dogmatic_sources(n_labels, eps):
    frame = Frame(range(n_labels))
    pairs = [near_dogmatic(frame, eps, k) for k in range(3)]
    sources = [p[0] for p in pairs]
    exact = exact_dempster([p[1] for p in pairs])
    result, kappa = combine_with_conflict(sources, rule="dempster")
    assert abs(result[frozenset({0})] - 1 / 3) < 1e-15
    check_close(result, exact, frame)
    assert kappa == 1.0  # K = 1 - 3 eps**2 (1 - eps) + ... rounds to 1
    # the pairwise fold gives the same masses
    folded = combine([combine(sources[:2], rule="dempster"), sources[2]], rule="dempster")
    check_close(folded, exact, frame)


@pytest.mark.parametrize("n_labels", [2, 3, 4, 25])
@pytest.mark.parametrize("eps", [1e-20, 1e-40, 1e-41, 1e-200])
def test_sixteen_alternating_sources(n_labels, eps):
    frame = Frame(range(n_labels))
    pairs = [near_dogmatic(frame, eps, k % 2) for k in range(16)]
    exact = exact_dempster([p[1] for p in pairs])
    result = combine([p[0] for p in pairs], rule="dempster")
    check_close(result, exact, frame)
    folded = pairs[0][0]
    for p in pairs[1:]:
        folded = combine([folded, p[0]], rule="dempster")
    check_close(folded, exact, frame)


def test_batched_rows_keep_their_own_scale():
    """Rows needing the extended range do not disturb ordinary rows of the same batch."""
    frame = Frame("ab")
    eps = np.array([1e-300, 0.3, 1e-170, 0.5, 1e-20, 1e-41, 0.9, 1e-5, 1e-160])
    m1 = MassFunction.from_array(np.stack([0 * eps, 1 - eps, 0 * eps, eps], axis=-1), frame)
    m2 = MassFunction.from_array(np.stack([0 * eps, 0 * eps, 1 - eps, eps], axis=-1), frame)
    for sources in ([m1, m2], [m1, m2, m1, m2], [m1, m2] * 8, [m1, m2] * 20):
        got = combine(sources, rule="dempster").to_array()
        for i, e in enumerate(eps):
            ex = exact_dempster(
                [
                    {1: Fraction(1 - e), 3: Fraction(e)}
                    if j % 2 == 0
                    else {2: Fraction(1 - e), 3: Fraction(e)}
                    for j in range(len(sources))
                ]
            )
            for mask, v in ex.items():
                assert abs(got[i, mask] - float(v)) <= 16 * np.finfo(float).eps * float(v) + 2e-323


def test_exact_total_conflict_still_raises():
    frame = Frame("ab")
    a = MassFunction.categorical("a", frame)
    b = MassFunction.categorical("b", frame)
    with pytest.raises(TotalConflictError):
        combine([a, b], rule="dempster")
    big = Frame(range(30))
    with pytest.raises(TotalConflictError):
        combine([MassFunction.categorical(0, big), MassFunction.categorical(1, big)], rule="dempster")


@settings(max_examples=40, deadline=None)
@given(
    exponents=st.lists(st.integers(-320, -1), min_size=2, max_size=6),
    labels=st.lists(st.integers(0, 2), min_size=6, max_size=6),
    n_labels=st.sampled_from([3, 4, 24]),
)
def test_random_tiny_masses_match_exact(exponents, labels, n_labels):
    """Sources m({l}) = 1 - 10**e, m(frame) = 10**e: dense, focal-set and fold agree with exact."""
    frame = Frame(range(n_labels))
    pairs = [near_dogmatic(frame, 10.0**e, labels[i]) for i, e in enumerate(exponents)]
    exact = exact_dempster([p[1] for p in pairs])
    result = combine([p[0] for p in pairs], rule="dempster")
    check_close(result, exact, frame)


def test_each_row_independent_of_its_position_in_the_batch():
    """The binary fold works on four rows at a time: any row count gives the same bits per row."""
    rng = np.random.default_rng(5)
    values = rng.dirichlet(np.ones(3), size=(11, 20))
    values = np.concatenate([np.zeros((11, 20, 1)), values], axis=-1)
    frame = Frame("ab")
    whole = combine(MassFunction.from_array(values, frame), axis=1).to_array()
    for start in range(4):
        part = combine(MassFunction.from_array(values[start:], frame), axis=1).to_array()
        np.testing.assert_array_equal(part, whole[start:])
