"""Code matrices against Gebel (2009), Tab. 5.2-5.5, and the research notes' probability values."""

import itertools

import numpy as np
import pytest

from dstk.multiclass import (
    all_pairs_code,
    binary_tasks,
    check_code_matrix,
    complete_code,
    complete_code_size,
    make_code,
    one_vs_rest_code,
    sparse_code_size,
    sparse_code_success_probability,
    sparse_column_validity_probability,
    sparse_random_code,
)
from dstk.multiclass._codes import row_hamming_distances

# Gebel (2009), Tab. 5.5: K -> (OvR, all-pairs, sparse, complete)
TABLE_5_5 = {
    3: (3, 3, 24, 6),
    4: (4, 6, 30, 25),
    5: (5, 10, 35, 90),
    6: (6, 15, 39, 301),
    7: (7, 21, 42, 966),
    8: (8, 28, 45, 3025),
    9: (9, 36, 48, 9330),
    10: (10, 45, 50, 28501),
    11: (11, 55, 52, 86526),
    12: (12, 66, 54, 261625),
    13: (13, 78, 56, 788970),
    14: (14, 91, 57, 2375101),
    15: (15, 105, 59, 7141686),
    16: (16, 120, 60, 21457825),
    17: (17, 136, 61, 64439010),
    18: (18, 153, 63, 193448101),
    19: (19, 171, 64, 580606446),
    20: (20, 190, 65, 1742343625),
}


@pytest.mark.parametrize("K", sorted(TABLE_5_5))
def test_table_5_5_sizes(K):
    ovr, pairs, sparse, complete = TABLE_5_5[K]
    assert one_vs_rest_code(K).shape == (K, ovr)
    assert all_pairs_code(K).shape == (K, pairs)
    assert sparse_code_size(K) == sparse
    assert complete_code_size(K) == complete


def test_thesis_recursion_for_complete_code():
    v = {3: 6}
    for K in range(3, 20):
        v[K + 1] = 3 * v[K] + (3**K - 1) // 2 - v[K]
    assert all(v[K] == complete_code_size(K) for K in v)


@pytest.mark.parametrize("K", [3, 4, 5, 6])
def test_complete_code_enumeration_by_brute_force(K):
    code = complete_code(K)
    assert code.shape[1] == TABLE_5_5[K][3]
    cols = {tuple(c) for c in code.T}
    expected = set()
    for col in itertools.product((-1, 0, 1), repeat=K):
        if 1 in col and -1 in col and tuple(-x for x in col) not in expected:
            expected.add(col)
    assert len(cols) == len(expected) == code.shape[1]
    for c in cols:  # one of each sign-flip pair
        assert (c in expected) or (tuple(-x for x in c) in expected)


def test_ovr_and_pairs_layout():
    np.testing.assert_array_equal(one_vs_rest_code(4), 2 * np.eye(4) - 1)
    pairs = all_pairs_code(4)
    order = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]  # Tab. 5.3 column order
    for b, (k1, k2) in enumerate(order):
        assert pairs[k1, b] == 1 and pairs[k2, b] == -1 and np.count_nonzero(pairs[:, b]) == 2


def test_sparse_probability_analysis_matches_research_notes():
    # research notes A.4.1: ~0.41 for K = 8, ~0.031 for K = 7, ~0.99 for K = 9
    assert sparse_code_success_probability(8) == pytest.approx(0.41, abs=0.01)
    assert sparse_code_success_probability(7) == pytest.approx(0.031, abs=0.002)
    assert sparse_code_success_probability(9) == pytest.approx(0.99, abs=0.01)
    # eq. 5.4 against a direct count over all 4**K ... (exact enumeration for K = 3)
    K = 3
    probs = {-1: 0.25, 0: 0.5, 1: 0.25}
    total = sum(
        np.prod([probs[v] for v in col])
        for col in itertools.product((-1, 0, 1), repeat=K)
        if 1 in col and -1 in col
    )
    assert sparse_column_validity_probability(K) == pytest.approx(total)


@pytest.mark.parametrize("criterion", ["max_min_distance", "min_distance"])
def test_sparse_random_code_valid_and_seeded(criterion):
    a = sparse_random_code(10, n_draws=2000, criterion=criterion, random_state=1)
    b = sparse_random_code(10, n_draws=2000, criterion=criterion, random_state=1)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (10, 50)
    check_code_matrix(a)
    assert np.unique(a.T, axis=0).shape[0] == 50


def test_sparse_criterion_order():
    hi = sparse_random_code(12, n_draws=500, random_state=3)
    lo = sparse_random_code(12, n_draws=500, criterion="min_distance", random_state=3)
    d = lambda c: row_hamming_distances(c)[np.triu_indices(12, 1)].min()  # noqa: E731
    assert d(hi) >= d(lo)


def test_sparse_code_impossible_raises():
    with pytest.raises(ValueError, match="None of the"):
        sparse_random_code(3, n_draws=50, random_state=0)


def test_row_hamming_distance_brute_force():
    rng = np.random.RandomState(2)
    code = rng.randint(-1, 2, size=(4, 7))
    D = row_hamming_distances(code)
    for a in range(4):
        for b in range(4):
            ref = sum((1 - np.sign(code[a, j] * code[b, j])) / 2 for j in range(7))
            assert D[a, b] == pytest.approx(ref)


def test_binary_tasks_exclude_zero_classes():
    y = np.array([0, 1, 2, 2, 1])
    tasks = binary_tasks(y, all_pairs_code(3))
    rows, target = tasks[2]  # pair (1, 2)
    np.testing.assert_array_equal(rows, [1, 2, 3, 4])
    np.testing.assert_array_equal(target, [1, 0, 0, 1])


@pytest.mark.parametrize(
    "code, match",
    [
        ([[1, 2], [-1, 0]], "-1, 0 or"),
        ([[1, 1], [1, -1]], "lacks"),
        ([[1], [-1], [0]], "appears in no column"),
        ([1, -1], "shape"),
    ],
)
def test_check_code_matrix_errors(code, match):
    with pytest.raises(ValueError, match=match):
        check_code_matrix(code)


def test_make_code_errors():
    with pytest.raises(ValueError, match="Unknown code"):
        make_code("dense", 3)
    with pytest.raises(ValueError, match="rows"):
        make_code(one_vs_rest_code(3), 4)
    with pytest.raises(ValueError, match="n_classes"):
        one_vs_rest_code(1)
    with pytest.raises(ValueError, match="max_columns"):
        complete_code(14)


@pytest.mark.parametrize(
    "name, alias, builder",
    [
        ("one_vs_rest", "ovr", one_vs_rest_code),
        ("all_pairs", "ovo", all_pairs_code),
        ("complete", None, complete_code),
    ],
)
def test_make_code_names_and_aliases_build_the_same_matrix(name, alias, builder):
    for n_classes in (2, 3, 5):
        expected = builder(n_classes)
        np.testing.assert_array_equal(make_code(name, n_classes), expected)
        if alias is not None:
            np.testing.assert_array_equal(make_code(alias, n_classes), expected)


def test_make_code_sparse_is_the_seeded_sparse_random_code():
    np.testing.assert_array_equal(
        make_code("sparse", 9, random_state=4), sparse_random_code(9, random_state=4)
    )


@pytest.mark.parametrize("code", [[[1, 2], [-1, 0]], [[np.nan, 1], [1, -1]], [1, -1], np.zeros((3, 0))])
def test_row_distances_and_check_share_the_entry_check(code):
    for function in (row_hamming_distances, check_code_matrix):
        with pytest.raises(ValueError, match="`code`"):
            function(code)
