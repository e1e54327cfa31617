"""Regression tests for defects found by probing the code matrices."""

import pytest

from dstk.multiclass import make_code, sparse_random_code


@pytest.mark.parametrize(("n_classes", "n_columns"), [(2, 3), (3, 13), (3, None)])
def test_sparse_code_with_more_columns_than_distinct_valid_ones_says_so(n_classes, n_columns):
    # 3**K - 2**(K + 1) + 1 distinct columns hold a +1 and a -1: 2 for K = 2, 12 for K = 3
    with pytest.raises(ValueError, match="distinct columns") as info:
        sparse_random_code(n_classes, n_columns=n_columns, random_state=0)
    assert "more draws" not in str(info.value)


def test_make_code_sparse_three_classes_names_the_limit():
    with pytest.raises(ValueError, match="at most 12 distinct"):
        make_code("sparse", 3, random_state=0)


def test_sparse_code_at_the_limit_still_draws():
    code = sparse_random_code(3, n_columns=4, random_state=0)
    assert code.shape == (3, 4)


@pytest.mark.parametrize("y", [[0, 1, 3], [0, 1, -1], [0, 1, 1.5]])
def test_binary_tasks_refuses_indices_outside_the_code_rows(y):
    from dstk.multiclass import binary_tasks, one_vs_rest_code

    # -1 silently selected the last row of the code, 3 raised a bare IndexError, 1.5 was truncated
    with pytest.raises(ValueError, match=r"class indices 0\.\.2"):
        binary_tasks(y, one_vs_rest_code(3))
