"""The validated fold: the check of large float64 masses deferred to the combination kernels.

``MassFunction.from_array`` defers the check of large C-contiguous float64
masses to their first use; ``combine`` with the conjunctive, Dempster and
Yager rules checks each source row as its kernel reads it.  Every error must
be the one the separate check gives, and every result the one of checked
masses.
"""

import pickle

import numpy as np
import pytest

from dstk import Frame, MassFunction, combine, combine_with_conflict
from dstk._kernels import combination as kernels
from dstk.core import _dense
from dstk.core._mass import DEFERRED_CHECK_MIN_VALUES
from dstk.exceptions import InvalidMassError

from . import reference as ref

FRAMES = {4: Frame("ab"), 8: Frame("abc"), 16: Frame("abcd")}


def _masses(rng, rows, k, size):
    m = rng.dirichlet(np.ones(size - 1), size=(rows, k))
    return np.ascontiguousarray(np.concatenate([np.zeros((rows, k, 1)), m], axis=-1))


def _large(rng, size, k=7):
    rows = DEFERRED_CHECK_MIN_VALUES // (k * size) + 3  # an odd count: the kernels' remainder rows too
    return _masses(rng, rows, k, size)


def _separate_check_message(values):
    """The message of the check as run before any combination (the reference)."""
    with pytest.raises(InvalidMassError) as error:
        _dense.validate_masses(values)
    return str(error.value)


def _corrupt(values, what, row, source):
    bad = values.copy()
    if what == "nan":
        bad[row, source, 2] = np.nan
    elif what == "inf":
        bad[row, source, 1] = np.inf
    elif what == "negative":
        bad[row, source, 1] += 0.25
        bad[row, source, 2] = -0.25
    elif what == "sum":
        bad[row, source, -1] += 1e-6
    return bad


@pytest.mark.parametrize("size", [4, 8, 16])
@pytest.mark.parametrize("what", ["nan", "inf", "negative", "sum"])
@pytest.mark.parametrize("rule", ["dempster", "conjunctive", "yager"])
def test_error_of_the_fused_check_is_the_separate_checks(size, what, rule):
    rng = np.random.default_rng(size)
    values = _large(rng, size)
    for row, source in [(0, 0), (values.shape[0] - 1, 6), (values.shape[0] // 2, 3)]:
        bad = _corrupt(values, what, row, source)
        expected = _separate_check_message(bad)
        mf = MassFunction.from_array(bad, FRAMES[size])  # deferred: no error yet
        with pytest.raises(InvalidMassError) as error:
            combine(mf, axis=1, rule=rule)
        assert str(error.value) == expected
        # any other first use raises the same error
        with pytest.raises(InvalidMassError) as error:
            MassFunction.from_array(bad, FRAMES[size]).to_array()
        assert str(error.value) == expected


@pytest.mark.parametrize("size", [4, 8, 16])
def test_fused_result_equals_the_checked_result(size):
    rng = np.random.default_rng(10 + size)
    values = _large(rng, size)
    frame = FRAMES[size]
    fused, kappa = combine_with_conflict(MassFunction.from_array(values, frame), axis=1)
    trusted, kappa2 = combine_with_conflict(MassFunction.from_array(values, frame, validate=False), axis=1)
    np.testing.assert_array_equal(fused.to_array(), trusted.to_array())
    np.testing.assert_array_equal(kappa, kappa2)
    # rows of the batch against the brute-force definition
    for r in (0, values.shape[0] - 1):
        expected, k = ref.dempster(*values[r])
        np.testing.assert_allclose(fused.to_array()[r], expected, atol=1e-12)
        assert kappa[r] == pytest.approx(k, abs=1e-12)


@pytest.mark.parametrize("size", [4, 8])
def test_rounding_noise_below_zero_is_cleaned_as_by_the_separate_check(size):
    rng = np.random.default_rng(20 + size)
    values = _large(rng, size)
    values[5, 2, 1] += values[5, 2, 2] + 1e-12
    values[5, 2, 2] = -1e-12  # within the tolerance
    cleaned = np.where(values < 0, 0.0, values)
    fused = combine(MassFunction.from_array(values, FRAMES[size]), axis=1).to_array()
    expected = combine(MassFunction.from_array(cleaned, FRAMES[size], validate=False), axis=1).to_array()
    np.testing.assert_array_equal(fused, expected)


def test_deferred_masses_are_checked_once_and_not_copied():
    rng = np.random.default_rng(3)
    values = _large(rng, 4)
    mf = MassFunction.from_array(values, FRAMES[4])
    combine(mf, axis=1)
    held = mf._storage.masses  # the array the mass function holds (to_array gives a copy)
    assert np.shares_memory(held, values)
    assert not held.flags.writeable
    # other uses of a deferred mass function: pickling, equality, batch shape
    fresh = MassFunction.from_array(values, FRAMES[4])
    assert fresh.batch_shape == values.shape[:-1]
    assert pickle.loads(pickle.dumps(fresh)) == mf


def test_small_arrays_are_checked_at_construction():
    with pytest.raises(InvalidMassError):
        MassFunction.from_array(np.array([[0.0, 0.5, 0.5, 0.5]]), FRAMES[4])


@pytest.mark.parametrize("size", [4, 8, 16])
@pytest.mark.parametrize("normalize", [True, False])
def test_threaded_and_serial_kernels_agree(size, normalize):
    rng = np.random.default_rng(30 + size)
    values = _masses(rng, 101, 19, size)
    serial = kernels.conjunctive(values, normalize, tolerance=1e-9, parallel=False)
    threaded = kernels.conjunctive(values, normalize, tolerance=1e-9, parallel=True)
    for a, b in zip(serial, threaded):
        np.testing.assert_array_equal(a, b)
    assert serial[3] == 0
    values[77, 4, 1] = np.nan
    assert kernels.conjunctive(values, normalize, tolerance=1e-9, parallel=True)[3] & kernels.INVALID
    assert kernels.conjunctive(values, normalize, tolerance=1e-9, parallel=False)[3] & kernels.INVALID


@pytest.mark.parametrize("rule", ["dempster", "conjunctive", "yager"])
def test_two_binary_sources_kernel_equals_the_fold_and_the_definition(rule):
    rng = np.random.default_rng(4)
    values = _masses(rng, 257, 2, 4)
    values[3] = [[0, 1e-200, 0, 1 - 1e-200], [0, 0, 1e-200, 1 - 1e-200]]  # products leave the normal range
    values[4] = [[0, 1, 0, 0], [0, 0, 0, 1]]
    a = MassFunction.from_array(np.ascontiguousarray(values[:, 0]), FRAMES[4])
    b = MassFunction.from_array(np.ascontiguousarray(values[:, 1]), FRAMES[4])
    pair = combine([a, b], rule=rule).to_array()
    fold = combine(MassFunction.from_array(values, FRAMES[4]), axis=1, rule=rule).to_array()
    np.testing.assert_array_equal(pair, fold)
    for r in range(8):
        if rule == "dempster":
            expected = ref.dempster(values[r, 0], values[r, 1])[0]
        elif rule == "yager":
            expected = ref.yager(values[r, 0], values[r, 1])
        else:
            expected = ref.conjunctive(values[r, 0], values[r, 1])
        np.testing.assert_allclose(pair[r], expected, rtol=1e-12, atol=1e-15)
