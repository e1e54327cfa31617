"""Kernels run interpreted for small inputs (cold start) give bit-identical results.

:func:`dstk._kernels._jit.call_kernel` runs a kernel's Python source instead of
its compiled version below a work threshold (the ``interpreted_max_work`` of
the kernel's decorator).  The
compiled kernel is the reference: both must agree bit for bit on inputs that
reach every branch, and every calibrator that uses them must fit and predict
the same numbers whichever way its kernels run.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

import dstk.calibration as calibration
from dstk._kernels import _jit as jit
from dstk._kernels import calibration as kernels
from dstk._kernels import combination as combination_kernels
from dstk._kernels import counts as count_kernels
from dstk._kernels._jit import call_kernel


@pytest.fixture(autouse=True)
def interpret_even_when_compiled(monkeypatch):
    """call_kernel would call a kernel compiled or cached already: these tests need the interpreter."""
    monkeypatch.setattr(jit, "USE_COMPILED_WHEN_AVAILABLE", False)


def interpret(kernel, *args, **flags):
    """``call_kernel`` made to run ``kernel`` interpreted (its limit raised for this call)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kernel, "interpreted_max_work", 10**12, raising=False)
        return call_kernel(kernel, *args, work=0, **flags)


def same_bits(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same_bits(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def kernel_inputs(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    sums = rng.integers(0, 5, size=n).astype(np.float64)
    belief = rng.random(n) * 0.5
    plausibility = belief + rng.random(n) * 0.5
    thresholds = np.sort(rng.normal(size=int(rng.choice([0, 3, 40, 300]))))
    table = rng.random((thresholds.size + 1, 4))
    scores = np.concatenate((rng.normal(size=50), thresholds[:5], [np.nan, np.inf, -np.inf]))
    coefficients = rng.normal(size=(int(rng.integers(1, 30)), 3))
    return {
        "pool_adjacent_violators": (sums, sums + rng.integers(1, 4, size=n)),
        "venn_abers_table": (sums, sums + rng.integers(1, 4, size=n)),
        "isotonic_envelope": (belief, plausibility),
        "lookup_masses": (scores, thresholds, table, np.empty((scores.size, 4))),
        "chebyshev_clenshaw": (
            np.clip(rng.normal(size=200) / 2, -1, 1),
            coefficients,
            np.empty((200, 3)),
            np.empty((4, 128)),
        ),
    }


@pytest.mark.parametrize("seed", range(12))
def test_interpreted_kernels_match_the_compiled_ones_bit_for_bit(seed):
    for name, args in kernel_inputs(seed).items():
        kernel = getattr(kernels, name)
        compiled = kernel(*copy.deepcopy(args))  # fresh output buffers for each run
        interpreted = interpret(kernel, *copy.deepcopy(args))
        assert same_bits(compiled, interpreted), name


@pytest.mark.parametrize("integer", [True, False])
def test_interpreted_likelihood_mass_loop_matches_the_compiled_one(integer):
    rng = np.random.default_rng(int(integer))
    k = rng.integers(0, 60, 500).astype(np.float64) if integer else rng.random(500) * 60
    n = k + (rng.integers(0, 60, 500) if integer else rng.random(500) * 60)
    n[:5] = k[:5] = 0.0
    compiled = count_kernels.likelihood_mass_kernel(k, n)
    assert same_bits(compiled, count_kernels.likelihood_mass_kernel.py_func(k, n))


def count_pairs(seed):
    """(k, n) pairs: integer (memo table) or fractional, small to large n, k = 0, k = n, n = 0, ties."""
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 300))
    top = float(rng.choice([3, 60, 1e4, 1e6]))
    n = np.floor(rng.random(size) * top) if seed % 2 else rng.random(size) * top
    k = np.floor(rng.random(size) * (n + 1)) if seed % 2 else rng.random(size) * n
    k = np.minimum(k, n)
    k[:3], n[:3] = [0.0, 5.0, 7.0], [0.0, 5.0, 14.0]
    n[3:6] = k[3:6]
    return np.ascontiguousarray(k), np.ascontiguousarray(n)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize(
    "name", ["likelihood_mass_kernel", "plausibility_mass_kernel", "plausibility_degrees_kernel"]
)
def test_interpreted_count_kernels_match_the_compiled_ones_bit_for_bit(seed, name):
    kernel = getattr(count_kernels, name)
    k, n = count_pairs(seed)
    interpreted = interpret(kernel, k, n)
    assert same_bits(kernel(k, n), interpreted)


def test_interpreted_lgamma_is_the_compiled_one():
    """CPython's math.lgamma differs from the C library's, which numba calls: the interpreter uses the latter."""
    from dstk._kernels._jit import interpreted

    x = np.concatenate((np.arange(0.5, 40.0, 0.5), np.random.default_rng(0).uniform(0.0, 40.0, 2000)))
    stirling = interpreted(count_kernels._stirling_error)
    if stirling is count_kernels._stirling_error:
        pytest.skip("the C library's lgamma is not reachable through ctypes here: the kernel stays compiled")
    assert [stirling(v) for v in x] == [count_kernels._stirling_error(v) for v in x]
    assert any(math.lgamma(v) != stirling.__globals__["math"].lgamma(v) for v in x)  # why it is needed


def gamma_of(x):
    return math.gamma(x)


def test_kernels_using_unmatched_math_functions_stay_compiled():
    from numba import njit

    from dstk._kernels._jit import interpreted

    kernel = njit(gamma_of)
    assert interpreted(kernel) is kernel


CALIBRATION_KERNELS = (
    "pool_adjacent_violators",
    "isotonic_envelope",
    "lookup_masses",
    "chebyshev_clenshaw",
    "venn_abers_table",
    "logistic_profile_grid",
    "logistic_grid_masses",
)


def test_every_thresholded_kernel_carries_its_limit_on_its_decorator():
    budgeted = [k for k in vars(kernels).values() if getattr(k, "interpreted_max_work", -1) > 0]
    assert sorted(k.__name__ for k in budgeted) == sorted(CALIBRATION_KERNELS)
    assert all(hasattr(k, "py_func") for k in budgeted)
    assert kernels.logistic_profile_grid.interpreted_budget == 1.5
    assert kernels.logistic_grid_masses.interpreted_budget == 4.0


CALIBRATORS = [
    ("LogisticCalibrator", {"model": "likelihood"}),
    ("LogisticCalibrator", {"model": "likelihood", "interpolation": None}),
    ("IsotonicCalibrator", {}),
    ("IsotonicCalibrator", {"envelope": False}),
    ("BinningCalibrator", {}),
    ("BinningCalibrator", {"model": "bayes"}),
    ("BinningCalibrator", {"model": "plausibility"}),
    ("IsotonicCalibrator", {"model": "plausibility"}),
    ("IsotonicRegressionCalibrator", {}),
    ("VennAbersCalibrator", {}),
]


def fit_predict(name, options, scores, y, test):
    fitted = getattr(calibration, name)(**options).fit(scores, y)
    out = [fitted.predict_proba(test)]
    if hasattr(fitted, "predict_mass"):
        out.append(fitted.predict_mass(test).to_array())
    return tuple(out)


@pytest.mark.parametrize(("name", "options"), CALIBRATORS)
@pytest.mark.parametrize("n", [40, 700])
def test_calibrators_give_the_same_bits_interpreted_and_compiled(name, options, n, monkeypatch):
    rng = np.random.default_rng(n)
    scores = rng.normal(size=n)
    scores[::5] = np.round(scores[::5], 1)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * scores))).astype(int)
    test = np.concatenate((3 * rng.normal(size=100), [scores.min() - 1, scores.max() + 1, 0.0]))
    budgeted = [getattr(kernels, name) for name in CALIBRATION_KERNELS]
    budgeted += [count_kernels.likelihood_mass_kernel, count_kernels.plausibility_mass_kernel]
    budgeted += [count_kernels.plausibility_degrees_kernel]
    for kernel in budgeted:  # the decorators' limits, which every caller reads
        monkeypatch.setattr(kernel, "interpreted_max_work", 10**12)
    interpreted = fit_predict(name, options, scores, y, test)
    for kernel in budgeted:
        monkeypatch.setattr(kernel, "interpreted_max_work", -1)
    compiled = fit_predict(name, options, scores, y, test)
    assert same_bits(interpreted, compiled)


# ---------------------------------------------------------------- combination kernels


def fold_inputs(seed, size):
    """Source stacks (rows, K, size) reaching every branch of the fold kernels."""
    rng = np.random.default_rng(seed)
    k = int(rng.choice([1, 2, 5, 16, 17, 40]))
    rows = int(rng.integers(1, 23))
    m = rng.dirichlet(np.full(size, 0.3), size=(rows, k))
    if rows > 2:
        # near-dogmatic sources whose commonality products leave the normal range
        m[1] = 0.0
        m[1, :, 1] = 1.0
        m[1, :, size - 1] = 1e-200
        m[1, 0, size - 2] = 1e-250
    if rows > 3:
        m[2] = 0.0  # total conflict between two categorical sources
        m[2, :, 1] = 1.0
        m[2, 0, 1] = 0.0
        m[2, 0, 2] = 1.0
    if rows > 5 and seed % 2:
        m[4, 0, 0] -= 1e-12  # rounding noise below zero
        m[4, 0, 1] += 1e-12
    if rows > 6 and seed % 3 == 0:
        m[5, 0, 1] += 0.5  # invalid row
    return np.ascontiguousarray(m)


def run_fold(kernel, m, normalize, tolerance, interpreted):
    rows, _, size = m.shape
    out = np.zeros((rows, size))
    kappa = np.zeros(rows)
    total = np.zeros(rows, dtype=np.bool_)
    lost = np.zeros(rows, dtype=np.bool_)
    args = (m, normalize, out, kappa, total, lost, 0, rows, tolerance)
    status = interpret(kernel, *args) if interpreted else kernel(*args)
    if kernel is not combination_kernels._general_rows:  # rows left to the careful kernel, the same way
        careful = combination_kernels._CAREFUL_KERNELS[size]
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(careful, "interpreted_max_work", 10**12 if interpreted else -1)
            status = combination_kernels.finish_rows(m, normalize, out, kappa, total, lost, status, tolerance)
    return out, kappa, total, lost, np.int64(status)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize(("name", "size"), [("_binary_rows", 4), ("_ternary_rows", 8)])
def test_interpreted_fold_kernels_match_the_compiled_ones_bit_for_bit(seed, name, size):
    kernel = getattr(combination_kernels, name)
    m = fold_inputs(seed, size)
    for normalize in (True, False):
        for tolerance in (-1.0, 1e-9):
            compiled = run_fold(kernel, m, normalize, tolerance, interpreted=False)
            interpreted = run_fold(kernel, m, normalize, tolerance, interpreted=True)
            assert same_bits(compiled, interpreted), (normalize, tolerance)
    if m.shape[0] > 2 and m.shape[1] > 1:
        assert run_fold(kernel, m, True, -1.0, interpreted=False)[3][1]  # reached dempster_extended


@pytest.mark.parametrize("seed", range(6))
def test_interpreted_extended_and_pair_kernels_match_the_compiled_ones(seed):
    m = fold_inputs(seed, 4)  # dempster_extended runs interpreted on binary frames only
    n = m.shape[0]
    extended, pair = [], []
    for interpreted in (False, True):
        run = interpret if interpreted else call_kernel
        out, kappa, total = np.zeros((n, 4)), np.zeros(n), np.zeros(n, np.bool_)
        rows = np.arange(n, dtype=np.int64)
        # (fastmath: as combination.conjunctive on binary frames; compiled: work above the limit)
        extra = {} if interpreted else {"work": 10**13}
        run(combination_kernels.dempster_extended, m, rows, out, kappa, total, fastmath=True, **extra)
        extended.append((out, kappa, total))
        arrays = (np.zeros((n, 4)), np.zeros(n), np.zeros(n, np.bool_), np.zeros(n, np.bool_))
        a, b = np.ascontiguousarray(m[:, 0]).ravel(), np.ascontiguousarray(m[:, -1]).ravel()
        kernel = combination_kernels._binary_pair_rows
        run(kernel, a, 4, b, 4, True, *arrays, 0, n, -1.0, **extra)
        pair.append(arrays)
    assert same_bits(*extended)
    assert same_bits(*pair)


@pytest.mark.filterwarnings("ignore::dstk.exceptions.ConflictWarning")  # the total-conflict row
def test_combine_gives_the_same_bits_interpreted_and_compiled(monkeypatch):
    from dstk import Frame, MassFunction, combine_with_conflict

    rng = np.random.default_rng(5)
    budgeted = [k for k in vars(combination_kernels).values() if hasattr(k, "interpreted_max_work")]
    for size, frame in ((4, Frame("ab")), (8, Frame("abc"))):
        m = rng.dirichlet(np.full(size, 0.3), size=(30, 20))
        m[1] = 0.0  # near-dogmatic sources: products below the normal range (dempster_extended)
        m[1, :, 1] = 1.0
        m[1, :, size - 1] = 1e-200
        m[2] = 0.0  # total conflict
        m[2, :, 1] = 1.0
        m[2, 0, 1] = 0.0
        m[2, 0, 2] = 1.0
        sources = MassFunction.from_array(m, frame)
        pairs = [MassFunction.from_array(m[:, 0], frame), MassFunction.from_array(m[:, 1], frame)]
        results = []
        for limit in (10**12, -1):
            for kernel in budgeted:
                monkeypatch.setattr(kernel, "interpreted_max_work", limit)
            batch = combine_with_conflict(sources, axis=1, rule="dempster", on_conflict="nan")
            pair = combine_with_conflict(pairs, rule="dempster", on_conflict="nan")
            results.append(
                tuple(np.asarray(x.to_array() if hasattr(x, "to_array") else x) for x in batch + pair)
            )
        assert same_bits(*results)


def test_every_serial_row_kernel_of_the_fold_carries_its_interpretation_budget():
    tables = (combination_kernels._STACK_KERNELS, combination_kernels._PAIR_KERNELS)
    kernels_ = [serial for table in tables for serial, _ in table.values()]
    for kernel in kernels_ + [combination_kernels.dempster_extended]:
        assert hasattr(kernel, "py_func") and kernel.interpreted_max_work > 0
    assert combination_kernels._general_rows.interpreted_max_work == -1  # fast-math sums: always compiled


# ---------------------------------------------------------------- tree and leaf-table kernels


def test_tree_and_leaf_table_kernels_carry_their_interpretation_budgets():
    from dstk._kernels import leaf_tables, trees

    budgeted = [leaf_tables.distinct_rows, leaf_tables.mean_rows_exact]
    names = ("row_hashes", "marked_rows", "number_count_rows", "build_tree", "pack_tree", "finish_tree")
    budgeted += [
        getattr(trees, name) for name in names + ("route_rows_kernel", "leave_one_out_counts_kernel")
    ]
    for kernel in budgeted:
        assert hasattr(kernel, "py_func") and kernel.interpreted_max_work > 0


def test_call_kernel_reads_the_budget_of_the_decorator(monkeypatch):
    from dstk._kernels import leaf_tables

    monkeypatch.setattr(jit, "USE_COMPILED_WHEN_AVAILABLE", False)
    monkeypatch.setattr(jit, "_interpreted_work", {})
    calls = []
    real = jit.interpreted

    def spy(kernel, **options):
        calls.append(kernel)
        return real(kernel, **options)

    monkeypatch.setattr(jit, "interpreted", spy)
    bits = np.arange(12, dtype=np.uint64).reshape(4, 3) % 3
    limit = leaf_tables.distinct_rows.interpreted_max_work
    call_kernel(leaf_tables.distinct_rows, bits, work=limit)  # at the decorator's budget: interpreted
    call_kernel(leaf_tables.distinct_rows, bits, work=limit + 1)  # above it: compiled
    assert calls.count(leaf_tables.distinct_rows) == 1  # (its callees are interpreted too)


@pytest.mark.parametrize("seed", range(4))
def test_interpreted_tree_and_leaf_table_kernels_match_the_compiled_ones(seed):
    from dstk._kernels import leaf_tables, trees
    from dstk._kernels._jit import interpreted

    rng = np.random.default_rng(seed)
    columns = np.ascontiguousarray(rng.normal(size=(6, 200)))
    columns[1] = np.where(columns[1] > 0.3, 2.5, -1.0)  # binary features (marked rows)
    columns[2] = np.where(columns[2] > -0.5, 1.0, 0.0)
    columns[3, :20] = -0.0  # hashed as 0.0
    columns[3, 20:40] = 0.0
    nominal = np.array([False, False, False, False, True, False])
    bits = rng.integers(0, 4, size=(3000, 3)).astype(np.int64)  # many repeated rows: slot table grows
    keys = rng.integers(0, 40, size=(60, 9)).astype(np.int64)
    table = rng.normal(size=(40, 3)) * 10.0 ** rng.integers(-3, 3)
    calls = [
        (trees.row_hashes, (columns.view(np.uint64), np.uint64(0x8000000000000000))),
        (trees.marked_rows, (columns, nominal, columns.min(axis=1), columns.max(axis=1))),
        (leaf_tables.distinct_rows, (bits,)),
        (leaf_tables.mean_rows_exact, (keys, table, 2.0**40)),
    ]
    for kernel, args in calls:
        with np.errstate(all="ignore"):
            by_interpreter = interpreted(kernel)(*args)
        assert same_bits(kernel(*args), by_interpreter), kernel.__name__


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_interpreted_pignistic_of_small_frames_matches_the_compiled_one(n):
    from dstk._kernels import transforms
    from dstk._kernels._jit import interpreted

    rng = np.random.default_rng(n)
    size = 1 << n
    m = rng.dirichlet(np.full(size, 0.4), size=500) * rng.choice([1.0, 1e-300, 0.5], size=(500, 1))
    m[:20, 0] = 0.3  # subnormal mass functions (m(empty) > 0)
    m[20:40, 1:] = rng.integers(0, 2, size=(20, size - 1)) * 0.25 + 0.1
    m[40:60] = -0.0
    m[40:60, -1] = 1.0
    inverse = transforms.inverse_cardinalities(size)
    compiled = transforms.pignistic(m, n, inverse)
    # frames of at most PIGNISTIC_PLAIN_MAX_LABELS labels sum without fast-math: no callee stays compiled
    assert n <= transforms.PIGNISTIC_PLAIN_MAX_LABELS
    assert same_bits(compiled, interpreted(transforms.pignistic)(m, n, inverse))


def test_interpreted_count_row_numbering_matches_the_compiled_one():
    from dstk._kernels import trees
    from dstk._kernels._jit import interpreted

    rng = np.random.default_rng(7)
    runs = []
    for kernel in (trees.number_count_rows, interpreted(trees.number_count_rows)):
        table, n_rows, slots = np.zeros((4, 3), dtype=np.int64), 0, np.full(8, -1, dtype=np.int64)
        keys = []
        for _ in range(5):  # one forest's trees in turn: the table and the slots grow
            counts = rng.integers(0, 6, size=(300, 3)).astype(np.int32)
            with np.errstate(all="ignore"):
                k, table, n_rows, slots = kernel(counts, table, n_rows, slots)
            keys.append(k)
        runs.append((np.concatenate(keys), table[: int(n_rows)], np.int64(n_rows), slots))
        rng = np.random.default_rng(7)
    assert same_bits(*runs)


TREE_CASES = [
    {},
    {"min_samples_leaf": 3, "stop_at_pure_nodes": True},
    {"min_samples_leaf": 2, "nominal_features": [4], "empty_leaf": "siblings"},
    {"nominal_features": [4], "empty_leaf": "parent", "max_depth": 4},
    {"nominal_features": [4], "empty_leaf": "zero", "combiner": "dempster"},
    {"compatibility": "busch2021", "min_samples_leaf": 2},
    {"combiner": "eva", "min_samples_leaf": 4},
]


def grow_and_route(options, X, y, test):
    from dstk.ensemble import RandomDecisionTreesClassifier

    model = RandomDecisionTreesClassifier(6, random_state=3, n_jobs=2, **options).fit(X, y)
    return (
        *model._node_arrays(),
        model._forest["rows"],
        model.predict_proba(test),
        model.apply(test),
        model.leaf_counts(test),
        model.predict_mass(test).to_array(),
    )


@pytest.mark.parametrize("options", TREE_CASES)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_trees_grow_and_route_the_same_bits_interpreted_and_compiled(options, n_classes, monkeypatch):
    from dstk._kernels import trees as tree_kernels

    rng = np.random.default_rng(n_classes)
    X = rng.normal(size=(150, 6))
    X[:, 1] = np.where(X[:, 1] > 0.3, 2.5, -1.0)  # binary (marked rows)
    X[:, 2] = np.round(X[:, 2], 1)  # ties
    X[:20, 3] = -0.0
    X[:, 4] = rng.integers(0, 4, 150)  # nominal codes when listed
    y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=150), np.linspace(-0.5, 0.5, n_classes - 1))
    test = rng.normal(size=(40, 6))
    test[:, 1] = X[:40, 1]
    test[:, 4] = rng.integers(0, 6, 40)  # unseen nominal codes 4, 5
    budgeted = [k for k in vars(tree_kernels).values() if getattr(k, "interpreted_max_work", -1) > 0]
    assert len(budgeted) == 8, [k.__name__ for k in budgeted]
    for kernel in budgeted:
        monkeypatch.setattr(kernel, "interpreted_max_work", 10**12)
    interpreted_result = grow_and_route(options, X, y, test)
    for kernel in budgeted:
        monkeypatch.setattr(kernel, "interpreted_max_work", -1)
    compiled_result = grow_and_route(options, X, y, test)
    assert same_bits(interpreted_result, compiled_result)


def test_call_kernel_uses_the_compiled_kernel_when_it_is_at_hand(monkeypatch):
    from dstk._kernels import trees

    monkeypatch.setattr(jit, "USE_COMPILED_WHEN_AVAILABLE", True)
    columns = np.random.default_rng(0).normal(size=(3, 50))
    expected = trees.row_hashes(columns.view(np.uint64), np.uint64(0x8000000000000000))  # compiles
    assert jit._compiled_or_cached(trees.row_hashes)

    def fail(*args, **options):
        raise AssertionError("interpreted although compiled")

    monkeypatch.setattr(jit, "interpreted", fail)
    monkeypatch.setattr(trees.row_hashes, "interpreted_max_work", 10)
    hashes = call_kernel(trees.row_hashes, columns.view(np.uint64), np.uint64(0x8000000000000000), work=0)
    assert same_bits(hashes, expected)


@pytest.mark.parametrize("n", [1_000, 20_000])
def test_profile_table_kernels_give_the_same_bits_interpreted_and_compiled(n, monkeypatch):
    # the fit's whitened profile table and the masses from its series (logistic_profile_grid,
    # logistic_grid_masses) run interpreted on a cold start: the same interpolant bit for bit
    rng = np.random.default_rng(n)
    scores = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-1.5 * scores))).astype(int)
    test = np.concatenate((3 * rng.normal(size=100), [0.0]))
    fits = []
    for limit in (10**12, -1):  # interpreted, then compiled
        for kernel in (kernels.logistic_profile_grid, kernels.logistic_grid_masses):
            monkeypatch.setattr(kernel, "interpreted_max_work", limit)
        fitted = calibration.LogisticCalibrator(model="likelihood").fit(scores, y)
        assert fitted._logistic.profile_grid() is not None  # the table path, not the masses one by one
        fits.append((fitted._chebyshev_coefficients, fitted.predict_mass(test).to_array()))
    assert same_bits(fits[0], fits[1])
