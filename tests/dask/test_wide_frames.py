"""dstk.dask and mass functions on large frames: refused at once with the alternative, never half-built."""

import numpy as np
import pytest

pytest.importorskip("dask")

from dstk import Frame, MassFunction, combine
from dstk.dask import as_dask_mass
from dstk.dask import combine as dask_combine
from dstk.exceptions import FrameTooLargeError


def wide_batch(n, rows=3, seed=0):
    rng = np.random.default_rng(seed)
    member = rng.random((4, n)) < 0.4
    return MassFunction.from_focal_sets(
        member, rng.dirichlet(np.ones(4), rows), Frame([f"c{i}" for i in range(n)])
    )


@pytest.mark.parametrize("n", [40, 65, 1000])
def test_focal_set_batches_beyond_dense_are_refused_naming_dstk_combine(n):
    m = wide_batch(n)
    with pytest.raises(FrameTooLargeError, match=r"dstk\.combine"):
        as_dask_mass(m)
    with pytest.raises(FrameTooLargeError, match=r"dstk\.combine"):
        dask_combine([m, wide_batch(n, seed=1)], rule="dempster")
    # the alternative named works on the same input
    assert combine([m, wide_batch(n, seed=1)], rule="conjunctive").batch_shape == (3,)


def test_focal_set_batches_that_fit_are_accepted_as_dense_chunks():
    m = wide_batch(20)
    assert not m.is_dense
    dm = as_dask_mass(m)
    np.testing.assert_array_equal(dm.array.compute(scheduler="synchronous"), m.to_array("m"))
