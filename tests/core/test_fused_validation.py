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


def _large_pair(rng):
    """Two three-label batches given apart, each large enough for a deferred check, and their stack."""
    values = _masses(rng, DEFERRED_CHECK_MIN_VALUES // 8 + 3, 2, 8)
    return values, [np.ascontiguousarray(values[:, i]) for i in range(2)]


@pytest.mark.parametrize("what", ["nan", "inf", "negative", "sum"])
@pytest.mark.parametrize("which", [0, 1])
def test_error_of_the_fused_check_of_a_three_label_pair_is_the_separate_checks(what, which):
    rng = np.random.default_rng(40)
    values, _ = _large_pair(rng)
    for row in (0, values.shape[0] - 1, values.shape[0] // 2):
        bad = _corrupt(values, what, row, which)
        a, b = (np.ascontiguousarray(bad[:, i]) for i in range(2))
        expected = _separate_check_message(bad[:, which])
        pair = [MassFunction.from_array(a, FRAMES[8]), MassFunction.from_array(b, FRAMES[8])]
        assert all(x._storage.pending() is not None for x in pair)  # deferred: no error yet
        with pytest.raises(InvalidMassError) as error:
            combine(pair)
        assert str(error.value) == expected


@pytest.mark.parametrize("rule", ["dempster", "conjunctive", "yager"])
def test_three_label_pair_checked_by_the_fold_equals_the_checked_pair_and_the_definition(rule):
    rng = np.random.default_rng(41)
    values, (a, b) = _large_pair(rng)
    deferred = [MassFunction.from_array(a, FRAMES[8]), MassFunction.from_array(b, FRAMES[8])]
    fused, kappa = combine_with_conflict(deferred, rule=rule)
    assert all(x._storage.pending() is None for x in deferred)  # marked checked by the fold
    assert all(np.shares_memory(x._storage.masses, v) for x, v in zip(deferred, (a, b)))
    trusted = [MassFunction.from_array(v, FRAMES[8], validate=False) for v in (a, b)]
    expected, kappa2 = combine_with_conflict(trusted, rule=rule)
    np.testing.assert_array_equal(fused.to_array(), expected.to_array())
    np.testing.assert_array_equal(kappa, kappa2)
    # the stacked fold gives the same bits; rows against the brute-force definition (Dempster)
    stacked, _ = combine_with_conflict(
        MassFunction.from_array(values, FRAMES[8], validate=False), axis=1, rule=rule
    )
    np.testing.assert_array_equal(fused.to_array(), stacked.to_array())
    if rule == "dempster":
        for r in (0, values.shape[0] - 1):
            reference, k = ref.dempster(a[r], b[r])
            np.testing.assert_allclose(fused.to_array()[r], reference, atol=1e-12)
            assert kappa[r] == pytest.approx(k, abs=1e-12)


def test_rounding_noise_below_zero_in_a_three_label_pair_is_cleaned_as_by_the_separate_check():
    rng = np.random.default_rng(42)
    _, (a, b) = _large_pair(rng)
    b[5, 1] += b[5, 2] + 1e-12
    b[5, 2] = -1e-12  # within the tolerance
    fused = combine([MassFunction.from_array(a, FRAMES[8]), MassFunction.from_array(b, FRAMES[8])])
    cleaned = [MassFunction.from_array(np.where(v < 0, 0.0, v), FRAMES[8], validate=False) for v in (a, b)]
    np.testing.assert_array_equal(fused.to_array(), combine(cleaned).to_array())


@pytest.mark.parametrize("normalize", [True, False])
def test_checked_three_label_pair_kernel_equals_the_checked_stack_kernel(normalize):
    rng = np.random.default_rng(43)
    values = _masses(rng, 1001, 2, 8)
    pair = (np.ascontiguousarray(values[:, 0]), values[:, 1])  # one C-contiguous, one spaced
    for parallel in (False, True):
        stacked = kernels.conjunctive(values, normalize, tolerance=1e-9, parallel=parallel)
        given_apart = kernels.conjunctive(pair, normalize, tolerance=1e-9, parallel=parallel)
        for x, y in zip(stacked, given_apart):
            np.testing.assert_array_equal(x, y)
    values[77, 1, 2] = np.nan
    bad = (values[:, 0], values[:, 1])
    assert kernels.conjunctive(bad, normalize, tolerance=1e-9, parallel=False)[3] == kernels.INVALID
    with pytest.raises(ValueError, match="three-label pair"):
        kernels.conjunctive((values[:, 0, :4], values[:, 1, :4]), normalize, tolerance=1e-9)
