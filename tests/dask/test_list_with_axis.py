"""``dstk.dask.combine`` with a list of sources refuses ``axis``, as ``dstk.combine`` does."""

import numpy as np
import pytest

pytest.importorskip("dask")

import dstk
import dstk.dask


def _sources():
    frame = dstk.Frame(["a", "b"])
    first = dstk.MassFunction.from_array(np.array([[0.0, 0.5, 0.2, 0.3], [0.0, 0.1, 0.6, 0.3]]), frame=frame)
    second = dstk.MassFunction.from_array(np.array([[0.0, 0.2, 0.2, 0.6], [0.0, 0.3, 0.1, 0.6]]), frame=frame)
    return first, second


@pytest.mark.parametrize("function", [dstk.dask.combine, dstk.dask.combine_with_conflict])
@pytest.mark.parametrize("axis", [0, -1])
def test_a_list_with_axis_is_refused_like_the_in_memory_combine(function, axis):
    sources = list(_sources())
    with pytest.raises(ValueError, match="`axis`"):
        dstk.combine(sources, axis=axis)
    with pytest.raises(ValueError, match="`axis`"):
        function(sources, rule="dempster", axis=axis)


def test_a_list_without_axis_still_combines_its_items():
    first, second = _sources()
    expected = dstk.combine([first, second], rule="dempster").to_array()
    got = dstk.dask.combine([first, second], rule="dempster").compute().to_array()
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)
