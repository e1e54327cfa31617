"""The one-pass check of mass rows: numpy and compiled kernel give the same answer, the definition's.

:func:`dstk._kernels.validation.check_mass_rows` answers small inputs, and on a cold
start larger ones within a budget of values, with numpy; the compiled kernel
otherwise.  Both are compared here with the definition written out row by row in
Python floats (a row passes when the sum of its entries is within the tolerance of 1
and no entry lies below ``-tolerance``; an entry in ``[-tolerance, 0)`` is noise).
"""

import math

import numpy as np
import pytest

from dstk._kernels import _jit, validation

TOLERANCE = 1e-9


def _definition(m, tolerance):
    bad = small_negative = False
    for row in m.tolist():
        if len(row) == 4:
            total = (row[0] + row[1]) + (row[2] + row[3])
        else:
            total = 0.0
            for x in row:
                total += x
        low = min(min(row), 0.0) if not any(math.isnan(x) for x in row) else math.nan
        bad |= not abs(total - 1.0) <= tolerance or low < -tolerance
        small_negative |= low < 0.0
    return bad, small_negative


def _cases(size):
    rng = np.random.default_rng(size)
    good = rng.dirichlet(np.ones(size), size=300)
    yield good
    noise = good.copy()
    noise[7, 1] += noise[7, 0] + 1e-12
    noise[7, 0] = -1e-12  # within the tolerance
    yield noise
    signed_zero = good.copy()
    signed_zero[3, 0] = -0.0
    yield signed_zero
    for value in (np.nan, np.inf, -np.inf, -0.25):
        bad = good.copy()
        bad[150, size - 1] = value
        yield bad
    off = good.copy()
    off[299, 1] += 1e-6
    yield off
    within = good.copy()
    within[0, 1] += 1e-11
    yield within


@pytest.mark.parametrize("size", [4, 8, 16])
def test_numpy_and_compiled_check_give_the_definitions_answer(size):
    for m in _cases(size):
        expected = _definition(m, TOLERANCE)
        assert validation._check_numpy(m, TOLERANCE) == expected
        assert tuple(validation._check_range(m, TOLERANCE, 0, m.shape[0])) == expected


def test_a_cold_process_checks_with_numpy_within_its_budget_then_compiles(monkeypatch):
    calls = []
    assert validation._check_range.cold_alternative_work == 1 << 25  # budget factor 1: the whole budget
    assert validation._check_range.interpreted_budget == 1
    monkeypatch.setattr(_jit, "_compiled_or_cached", lambda kernel: False)
    monkeypatch.setattr(_jit, "_interpreted_work", {})
    monkeypatch.setattr(validation._check_range, "cold_alternative_work", 3 * validation.COMPILED_MIN_VALUES)
    real = validation._check_numpy
    monkeypatch.setattr(validation, "_check_numpy", lambda m, t: calls.append(m.size) or real(m, t))
    m = np.random.default_rng(0).dirichlet(np.ones(8), size=validation.COMPILED_MIN_VALUES // 8)
    for _ in range(5):
        assert validation.check_mass_rows(m, TOLERANCE) == (False, False)
    assert calls == [m.size] * 3  # the budget spent, then the compiled kernel
    # with the kernel at hand (compiled, or in the cache) no numpy check above the small sizes
    monkeypatch.setattr(_jit, "_compiled_or_cached", lambda kernel: True)
    monkeypatch.setattr(_jit, "_interpreted_work", {})
    assert validation.check_mass_rows(m, TOLERANCE) == (False, False)
    assert len(calls) == 3
