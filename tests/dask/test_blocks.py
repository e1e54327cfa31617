"""How dstk.dask runs a task: the chunk itself (no copy), serial kernels, and the binary tree state."""

import numba
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
import dask  # noqa: E402

from dstk.dask._blocks import blockwise_whole, serial_kernels  # noqa: E402


def test_the_task_gets_the_chunk_itself_not_a_copy():
    made, seen = [], []

    def make(block_info=None):
        rows = block_info[None]["chunk-shape"][0]
        block = np.full((rows, 3, 4), float(block_info[None]["chunk-location"][0]))
        made.append(block.__array_interface__["data"][0])
        return block

    def record(block):
        seen.append(block.__array_interface__["data"][0])
        return block.sum(axis=(1, 2))

    array = da.map_blocks(make, chunks=((2, 2, 2), (3,), (4,)), dtype=np.float64, meta=np.empty((0, 0, 0)))
    out = blockwise_whole(record, (0,), array, (0, 1, 2), dtype=np.float64)
    np.testing.assert_allclose(out.compute(scheduler="synchronous"), np.repeat([0.0, 12.0, 24.0], 2))
    assert len(seen) == 3 and set(seen) <= set(
        made
    )  # map_blocks(drop_axis=...) hands over a concatenated copy


def test_kernels_run_serially_inside_a_task_and_the_setting_is_restored():
    before = numba.get_num_threads()
    threads = []

    def record(block):
        threads.append(numba.get_num_threads())
        return block

    array = da.ones((4, 2), chunks=(2, 2))
    blockwise_whole(record, (0, 1), array, (0, 1), dtype=np.float64).compute(scheduler="synchronous")
    assert threads == [1, 1]
    assert numba.get_num_threads() == before
    with serial_kernels():
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before


# -- fewer tasks: dstk's layers fuse with the blockwise steps around them -------------------
def _work_tasks(collection):
    """Tasks left after dask's optimisation (aliases and literal data nodes do no work)."""
    (optimized,) = dask.optimize(collection)
    return [key for key, node in dict(optimized.__dask_graph__()).items() if type(node).__name__ == "Task"]


def _generated_masses(rows, row_chunk, sources, source_chunk):
    def make(block_info=None):
        (r0, r1), (s0, s1), _ = block_info[None]["array-location"]
        u = np.add.outer(np.arange(r0, r1), np.arange(s0, s1)) % 7 / 7.0
        return np.stack([0.0 * u, 0.5 * u, 0.4 * (1.0 - u), 1.0 - 0.5 * u - 0.4 * (1.0 - u)], axis=-1)

    chunks = (
        da.core.normalize_chunks(row_chunk, (rows,))[0],
        da.core.normalize_chunks(source_chunk, (sources,))[0],
        (4,),
    )
    return da.map_blocks(make, chunks=chunks, dtype=np.float64, meta=np.empty((0, 0, 0)))


def _consume(values, conflict):
    def per_chunk(v, c):
        return np.stack([v.sum(axis=0), np.full(4, c.sum())])[:1]

    return da.blockwise(
        per_chunk, "ik", values, "ik", conflict, "i", adjust_chunks={"i": 1}, dtype=np.float64
    )


@pytest.mark.parametrize("source_chunk, per_row_chunk", [(12, 1), (4, 3 + 1)])
def test_combination_and_its_consumer_fuse_into_one_task_per_chunk(source_chunk, per_row_chunk):
    """Blockwise: input, validation, combination, both slices and the consumer in one task per row chunk.

    Tree: one task per input chunk (input, validation, partial state), then one per row chunk (last
    merge, finish, slices, consumer): no separate finishing or slicing task.
    """
    from dstk import Frame, MassFunction, combine_with_conflict
    from dstk.dask import DaskMassFunction
    from dstk.dask import combine_with_conflict as dask_combine_with_conflict

    array = _generated_masses(20, 5, 12, source_chunk)
    fused, conflict = dask_combine_with_conflict(
        DaskMassFunction(array, Frame((0, 1))), axis=1, split_every=4
    )
    out = _consume(fused.array, conflict)
    assert len(_work_tasks(out)) == 4 * per_row_chunk
    expected_m, expected_k = combine_with_conflict(
        MassFunction.from_array(array.compute(scheduler="synchronous"), (0, 1)), axis=1
    )
    values, kappa = dask.compute(fused.array, conflict, scheduler="synchronous")
    np.testing.assert_allclose(values, expected_m.to_array(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(kappa, expected_k, rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        out.compute(scheduler="synchronous"),
        _consume(da.from_array(values, chunks=(5, 4)), da.from_array(kappa, chunks=5)).compute(
            scheduler="synchronous"
        ),
    )


def test_interval_outputs_fuse_with_the_prediction():
    from dstk.calibration import BinningCalibrator
    from dstk.dask import predict_interval

    rng = np.random.default_rng(0)
    scores = rng.normal(size=200)
    calibrator = BinningCalibrator(bins=5, model="likelihood").fit(scores, (scores > 0).astype(int))
    bel, pl = predict_interval(calibrator, da.from_array(scores, chunks=50))
    width = pl - bel  # element-wise: fuses with both slices and the prediction
    assert len(_work_tasks(width)) == 4
    expected_bel, expected_pl = calibrator.predict_interval(scores)
    np.testing.assert_array_equal(width.compute(scheduler="synchronous"), expected_pl - expected_bel)


def test_estimator_tasks_return_the_predicted_masses_without_a_copy():
    from dstk import Frame, MassFunction
    from dstk.dask._estimators import _call_block

    made = []

    class Fixed:
        def predict_mass(self, scores):
            values = np.tile([0.0, 0.5, 0.25, 0.25], (len(scores), 1))
            made.append(values)
            return MassFunction.from_array(values, Frame((0, 1)))

    out = _call_block(np.zeros(3), Fixed(), "predict_mass", {}, (4,), np.dtype(np.float64))
    assert np.shares_memory(out, made[0])  # to_array would copy every chunk
    np.testing.assert_array_equal(out, made[0])


@pytest.mark.parametrize("split_every, merges_per_row_chunk", [(None, 1), (4, 2 + 1), (2, 4 + 2 + 1)])
def test_default_fan_in_merges_up_to_16_partial_states_in_one_task(split_every, merges_per_row_chunk):
    """8 source chunks: one merge task per row chunk by default (dask's fan-in 4 would need 3)."""
    from dstk import Frame, MassFunction, combine
    from dstk.dask import DaskMassFunction
    from dstk.dask import combine as dask_combine

    array = _generated_masses(20, 10, 16, 2)
    fused = dask_combine(DaskMassFunction(array, Frame((0, 1))), axis=1, split_every=split_every)
    assert len(_work_tasks(fused.array)) == 2 * (8 + merges_per_row_chunk)
    expected = combine(MassFunction.from_array(array.compute(scheduler="synchronous"), (0, 1)), axis=1)
    np.testing.assert_allclose(
        fused.array.compute(scheduler="synchronous"), expected.to_array(), rtol=0, atol=1e-12
    )


@pytest.mark.parametrize("wrap", ["array", "mass_function"])
def test_in_memory_masses_are_chunked_with_all_sources_of_a_sample_together(wrap):
    """Where dstk chooses the chunks (numpy input), the source axis is one chunk: blockwise, same floats."""
    from dstk import MassFunction, combine_with_conflict
    from dstk.dask import combine_with_conflict as dask_combine_with_conflict

    rng = np.random.default_rng(3)
    values = rng.dirichlet(np.ones(3), size=(60, 200))
    values = np.concatenate([np.zeros((60, 200, 1)), values], axis=-1)
    masses = MassFunction.from_array(values, (0, 1))
    with dask.config.set({"array.chunk-size": "32KiB"}):  # "auto" alone would split both batch axes
        assert len(da.from_array(values, chunks=("auto", "auto", -1)).chunks[1]) > 1
        fused, kappa = dask_combine_with_conflict(values if wrap == "array" else masses, frame=(0, 1), axis=1)
    assert len(fused.chunks[0]) > 1  # still chunked along the samples
    assert len(_work_tasks(fused.array)) == len(fused.chunks[0])  # one blockwise task per chunk, no tree
    expected_m, expected_k = combine_with_conflict(masses, axis=1)
    got_m, got_k = dask.compute(fused.array, kappa, scheduler="synchronous")
    np.testing.assert_array_equal(got_m, expected_m.to_array())  # blockwise: the in-memory floats
    np.testing.assert_array_equal(got_k, expected_k)


def test_repr_summarises_the_chunks():
    # the chunk tuples grow with the data; the repr shows the largest chunk and their number, as dask does
    from dstk.dask import DaskMassFunction

    array = da.from_array(np.tile([0.0, 0.2, 0.3, 0.5], (1000, 10, 1)), chunks=(100, 5, 4))
    text = repr(DaskMassFunction(array, (0, 1)))
    assert (
        text
        == "DaskMassFunction(batch_shape=(1000, 10), frame=Frame([0, 1]), chunksize=(100, 5), n_chunks=20)"
    )
    assert len(text) < 100
