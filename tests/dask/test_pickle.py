"""Objects that travel to workers pickle cleanly and survive a round trip through the cluster."""

import pickle

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

import dstk  # noqa: E402
from dstk import Frame, MassFunction  # noqa: E402
from dstk.dask import DaskMassFunction, combine  # noqa: E402


def bel_of_first(mf):
    return np.asarray(mf.bel({"a"}))


def test_frame_and_mass_functions_pickle():
    frame = Frame(["a", "b", "c"])
    assert pickle.loads(pickle.dumps(frame)) == frame
    dense = MassFunction({"a": [0.2, 0.5], "a,b": 0.3, "a,b,c": [0.5, 0.2]})
    back = pickle.loads(pickle.dumps(dense))
    assert back.frame == dense.frame and back.is_dense
    np.testing.assert_array_equal(back.to_array(), dense.to_array())
    big = Frame(range(20))  # focal-set form
    sparse = MassFunction.from_focal_sets([1, 3, big.full], [[0.2, 0.3, 0.5]], big)
    assert not sparse.is_dense
    back = pickle.loads(pickle.dumps(sparse))
    assert not back.is_dense and back.frame == big
    for got, expected in zip(back._focal_form(), sparse._focal_form()):
        np.testing.assert_array_equal(got, expected)


def test_dask_mass_function_pickles_with_its_graph():
    values = np.tile([0.0, 0.5, 0.2, 0.3], (6, 1))
    lazy = DaskMassFunction(da.from_array(values, chunks=(2, 4)), frame=("a", "b"))
    back = pickle.loads(pickle.dumps(lazy))
    assert back.frame == lazy.frame and back.chunks == lazy.chunks
    np.testing.assert_array_equal(back.array.compute(scheduler="synchronous"), values)


def test_mass_functions_round_trip_through_the_cluster(client):
    frame = Frame(["a", "b"])
    m = MassFunction.from_array(np.tile([0.0, 0.5, 0.2, 0.3], (5, 1)), frame)
    [remote] = client.scatter([m])
    got = client.submit(bel_of_first, remote).result()
    np.testing.assert_array_equal(got, m.bel({"a"}))
    returned = client.submit(lambda x: x, remote).result()
    np.testing.assert_array_equal(returned.to_array(), m.to_array())
    # MassFunction chunks come back from to_delayed()
    lazy = DaskMassFunction(da.from_array(np.tile([0.0, 0.5, 0.2, 0.3], (6, 1)), chunks=(4, 4)), frame)
    blocks = lazy.to_delayed()
    assert blocks.shape == (2,)
    first, second = client.compute(list(blocks), sync=True)
    assert isinstance(first, MassFunction) and first.batch_shape == (4,) and second.batch_shape == (2,)
    assert first.frame == frame
    fused = combine([lazy, lazy], rule="conjunctive").compute()
    assert isinstance(fused, MassFunction)
    six = MassFunction.from_array(np.tile([0.0, 0.5, 0.2, 0.3], (6, 1)), frame)
    np.testing.assert_array_equal(fused.to_array(), dstk.combine([six, six], rule="conjunctive").to_array())
