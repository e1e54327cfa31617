"""The binary fold's vector products: the same bits as the scalar products, the definition's values.

``dstk._kernels.combination._fold_binary_sources`` multiplies the three
commonalities of a binary row as one four-lane vector when compiled (an LLVM
vector intrinsic) and runs as a scalar Python loop when the kernels run
interpreted; both must give the same bits, and the fold of many sources the
values of Dempster's rule by definition.
"""

import warnings

import numpy as np
import pytest
from numba import njit

from dstk import Frame, MassFunction, combine, combine_with_conflict
from dstk._kernels import combination as kernels
from dstk._kernels._jit import interpreted
from dstk.exceptions import ConflictWarning

from . import reference as ref


@njit(cache=False)
def _compiled_fold(flat, start, row_stride, k0, k1, q):
    return kernels._fold_binary_sources(flat, start, row_stride, k0, k1, q)


def _binary_sources(rng, rows, k, concentration=1.0):
    m = rng.dirichlet(np.full(3, concentration), size=(rows, k))
    return np.ascontiguousarray(np.concatenate([np.zeros((rows, k, 1)), m], axis=-1))


@pytest.mark.parametrize("seed", range(4))
def test_vector_products_equal_the_scalar_products_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    for k in (1, 2, 15, 16, 17, 33):
        values = _binary_sources(rng, 5, k, concentration=0.2)
        values[1, :, 3] *= 1e-150  # products near the subnormal range
        values[1, :, 1] += 1 - values[1].sum(axis=-1)
        values[2, 0] = [0.0, -0.0, 0.0, 1.0]  # a negative zero
        flat = values.reshape(-1)
        flat.flags.writeable = False
        q = tuple(rng.uniform(0.5, 2.0, 12))
        for k0, k1 in ((0, k), (0, k // 2), (k // 2, k)):
            for start in (0, 4 * k):
                compiled = _compiled_fold(flat, start, 4 * k, k0, k1, q)
                python = kernels._fold_binary_sources(flat, start, 4 * k, k0, k1, q)
                np.testing.assert_array_equal(
                    np.array(compiled).view(np.uint64), np.array(python).view(np.uint64)
                )


@pytest.mark.parametrize("normalize", [True, False])
def test_compiled_and_interpreted_folds_agree_around_every_rescaling_point(normalize):
    rng = np.random.default_rng(7)
    for k in (15, 16, 17, 31, 32, 33, 48):
        values = _binary_sources(rng, 11, k, concentration=0.3)
        values.flags.writeable = False
        results = []
        for kernel in (kernels._binary_rows, interpreted(kernels._binary_rows)):
            out, kappa = np.zeros((11, 4)), np.zeros(11)
            total, lost = np.zeros(11, np.bool_), np.zeros(11, np.bool_)
            status = kernel(values, normalize, out, kappa, total, lost, 0, 11, 1e-9)
            # the rows left to the careful kernel, in the same mode
            with pytest.MonkeyPatch.context() as patch:
                limit = -1 if kernel is kernels._binary_rows else 10**12
                patch.setattr(kernels._binary_careful_rows, "interpreted_max_work", limit)
                status = kernels.finish_rows(values, normalize, out, kappa, total, lost, status, 1e-9)
            results.append((out, kappa, total, lost, status))
        for a, b in zip(*results):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("rule", ["dempster", "conjunctive", "yager"])
def test_long_binary_fold_equals_the_definition(rule):
    rng = np.random.default_rng(3)
    values = _binary_sources(rng, 9, 40, concentration=2.0)  # 9 rows: two groups of four and one more
    combined, kappa = combine_with_conflict(MassFunction.from_array(values, Frame("ab")), axis=1, rule=rule)
    for r in range(9):
        sources = list(values[r])
        if rule == "dempster":
            expected, expected_kappa = ref.dempster(*sources)
        else:
            conjunctive = ref.conjunctive(*sources)
            expected_kappa = conjunctive[0]
            expected = ref.yager(*sources) if rule == "yager" else conjunctive
        np.testing.assert_allclose(combined.to_array()[r], expected, rtol=1e-10, atol=1e-15)
        np.testing.assert_allclose(kappa[r], expected_kappa, rtol=1e-10, atol=1e-15)


def test_large_validated_fold_equals_the_unvalidated_fold():
    rng = np.random.default_rng(11)
    values = _binary_sources(rng, 1001, 100)
    checked = combine(MassFunction.from_array(values, Frame("ab")), axis=1).to_array()
    trusted = combine(MassFunction.from_array(values, Frame("ab"), validate=False), axis=1).to_array()
    np.testing.assert_array_equal(checked, trusted)


@pytest.mark.parametrize("size", [4, 8])
@pytest.mark.parametrize("seed", range(4))
def test_check_status_follows_the_row_tests_of_the_definition(seed, size):
    rng = np.random.default_rng(seed)
    values = np.zeros((12, 3, size))
    values[..., 1:] = rng.dirichlet(np.ones(size - 1), size=(12, 3))
    tolerance = 1e-9
    cases = [values.copy()]
    for r, k, entry, change in ((2, 1, 0, -1e-12), (5, 0, 3, 0.5), (7, 2, 1, np.nan), (9, 1, 2, -0.25)):
        case = values.copy()
        case[r, k, entry] += change
        if change == -1e-12:  # rounding noise below zero in a row still summing to 1
            case[r, k, 1 + (entry + 1) % 3] -= change
        cases.append(case)
    for case in cases:
        expected = 0
        for row in case.reshape(-1, size):  # one source row at a time, in plain Python
            if size == 4:  # the order of the binary kernels' check
                total = (float(row[0]) + float(row[1])) + (float(row[2]) + float(row[3]))
            else:  # entry after entry, as dstk._kernels.validation
                total = 0.0
                for x in row:
                    total += float(x)
            low = min(float(x) for x in row)
            if not abs(total - 1.0) <= tolerance or low < -tolerance:
                expected |= kernels.INVALID
            elif low < 0.0:
                expected |= kernels.SMALL_NEGATIVE
        if expected & kernels.INVALID:
            expected = kernels.INVALID
        assert kernels.check_status(case, tolerance) == expected


def test_batches_of_any_length_equal_the_row_by_row_fold():
    rng = np.random.default_rng(12)
    values = _binary_sources(rng, 11, 20, concentration=0.3)
    values[6] = 0.0  # near-dogmatic sources: the careful fold and the extended range
    values[6, :, 1] = 1.0 - 1e-200
    values[6, :, 3] = 1e-200
    frame = Frame("ab")
    for rows in (1, 3, 4, 5, 8, 11):
        batch = combine(MassFunction.from_array(values[:rows], frame), axis=1).to_array()
        for r in range(rows):
            alone = combine(MassFunction.from_array(values[r : r + 1], frame), axis=1).to_array()[0]
            np.testing.assert_array_equal(batch[r], alone)


@pytest.mark.parametrize("rule", ["dempster", "conjunctive"])
def test_three_label_fold_with_rows_left_to_the_careful_kernel_equals_the_definition(rule):
    # rows near the subnormal range and a total conflict: folded again by the careful kernel
    # (compiled on demand), then in extended range; as a stack and as a pair given apart
    rng = np.random.default_rng(21)
    values = np.zeros((9, 20, 8))
    values[..., 1:] = rng.dirichlet(np.full(7, 0.5), size=(9, 20))
    values[2] = 0.0
    values[2, :, 1] = 1.0 - 1e-40
    values[2, :, 7] = 1e-40  # commonality of the frame 1e-800: only in extended range
    values[4] = 0.0
    values[4, :, 1] = 1.0
    values[4, 0] = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]  # total conflict
    values[6, :, 7] *= 1e-16
    values[6, :, 1] = 1.0 - values[6, :, 2:].sum(axis=-1)
    frame = Frame("abc")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConflictWarning)  # the total conflict of row 4, NaN asked for
        combined, kappa = combine_with_conflict(
            MassFunction.from_array(values, frame), axis=1, rule=rule, on_conflict="nan"
        )
    for r in range(9):
        if rule == "dempster":
            if r == 4:  # total conflict: Dempster's rule is undefined, NaN asked for
                assert np.isnan(combined.to_array()[r]).all() and kappa[r] == 1.0
                continue
            expected, expected_kappa = ref.dempster(*values[r])
        else:
            expected = ref.conjunctive(*values[r])
            expected_kappa = expected[0]
        np.testing.assert_allclose(combined.to_array()[r], expected, rtol=1e-9, atol=1e-300)
        np.testing.assert_allclose(kappa[r], expected_kappa, rtol=1e-9, atol=1e-15)
    two = values[:, :2]
    stacked = kernels.conjunctive(np.ascontiguousarray(two), rule == "dempster")
    apart = kernels.conjunctive((two[:, 0], two[:, 1]), rule == "dempster")
    for a, b in zip(stacked[:3], apart[:3]):
        np.testing.assert_array_equal(a, b)
