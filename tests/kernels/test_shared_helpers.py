"""The shared helpers that replaced repeated code: count checks, lazy attributes, source gathering."""

import numpy as np
import pytest

import dstk
from dstk._lazy import lazy_exports
from dstk._validation import check_counts


@pytest.mark.parametrize(
    ("values", "options", "match"),
    [
        ([1, -1], {}, "negative count"),
        ([1.0, np.nan], {}, "NaN or infinite"),
        ([1.0, np.inf], {}, "NaN or infinite"),
        ([1.5], {"whole": True}, "allow_fractional=True"),
        (["a"], {}, "numeric"),
        ([True, False], {}, "numeric"),
        ([1 + 2j], {}, "complex"),
        (np.array([object()]), {}, "numbers"),
    ],
)
def test_check_counts_rejects_with_the_argument_name(values, options, match):
    with pytest.raises(ValueError, match=match) as info:
        check_counts(values, name="leaf_counts", **options)
    assert "leaf_counts" in str(info.value)


def test_check_counts_dtypes():
    assert check_counts([1, 2]).dtype == np.float64
    assert check_counts(np.array([1, 2], dtype=np.int32), keep_integers=True).dtype == np.int32
    assert check_counts([True, False], keep_integers=True).dtype == np.int64
    assert check_counts([0.5, 2.25]).tolist() == [0.5, 2.25]
    assert check_counts(np.zeros((0, 2))).shape == (0, 2)


def test_lazy_exports_resolve_once_and_list_names():
    import types

    module = types.ModuleType("fake_package")
    import sys

    sys.modules["fake_package"] = module
    try:
        module.__getattr__, module.__dir__ = lazy_exports(
            "fake_package", {"sqrt": "math"}, computed={"answer": lambda: 42}
        )
        assert module.sqrt(4.0) == 2.0
        assert "sqrt" in vars(module)  # stored after the first access
        assert module.answer == 42
        assert "sqrt" in dir(module)
        with pytest.raises(AttributeError, match=r"fake_package.*nothing"):
            module.nothing
    finally:
        del sys.modules["fake_package"]


def test_dstk_lazy_attributes():
    assert dstk.MassFunction.__name__ == "MassFunction"
    assert dstk.core.__name__ == "dstk.core"
    assert isinstance(dstk.__version__, str)
    with pytest.raises(AttributeError, match="dstk"):
        dstk.not_a_name


def test_combine_source_checks_shared_by_memory_and_dask():
    from dstk.core._combination import _common_batch_shape, _source_axis
    from dstk.exceptions import FrameMismatchError

    assert _source_axis(-1, (3, 4)) == 1
    with pytest.raises(ValueError, match="needs `axis`"):
        _source_axis(None, (3,))
    with pytest.raises(ValueError, match="out of bounds"):
        _source_axis(2, (3, 4))
    with pytest.raises(ValueError, match="unbatched"):
        _source_axis(0, ())
    a = dstk.MassFunction.vacuous("ab", batch_shape=(2, 1))
    b = dstk.MassFunction.vacuous("ab", batch_shape=(3,))
    assert _common_batch_shape([a, b]) == (2, 3)
    with pytest.raises(FrameMismatchError):
        _common_batch_shape([a, dstk.MassFunction.vacuous("abc")])
    with pytest.raises(ValueError, match="do not broadcast"):
        _common_batch_shape([b, dstk.MassFunction.vacuous("ab", batch_shape=(4,))])
    with pytest.raises(ValueError, match="at least one"):
        _common_batch_shape([])


def test_tree_bit_count_matches_python_on_random_words():
    import numba

    from dstk._kernels.trees import _bit_count

    count = numba.njit(lambda word: _bit_count(word))
    rng = np.random.default_rng(0)
    words = [int(w) for w in rng.integers(0, 2**63, size=500, dtype=np.uint64)]
    words += [0, 1, 2**63, 2**64 - 1, 0x5555555555555555, 0xAAAAAAAAAAAAAAAA]
    for word in words:
        assert count(np.uint64(word)) == word.bit_count()
