"""How dstk.dask runs a task: the chunk itself (no copy), serial kernels, and the binary tree state."""

import numba
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

from dstk._kernels import partial_combination  # noqa: E402
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


@pytest.mark.parametrize("k_sources", [1, 2, 15, 16, 17, 33, 50])
@pytest.mark.parametrize("normalize", [True, False])
def test_binary_state_is_bit_identical_to_the_general_commonality_product(k_sources, normalize):
    rng = np.random.default_rng(k_sources)
    m = rng.dirichlet(np.ones(4), size=(7, k_sources))
    m[..., 0] = 0.0
    m /= m.sum(axis=-1, keepdims=True)
    m[0, :, 3] = 0.0  # a dogmatic row
    m[0] /= m[0].sum(axis=-1, keepdims=True)
    m[1, :, 1:3] = [1e-200, 0.0]  # tiny factors
    m[1, :, 3] = 1.0 - 1e-200
    general = partial_combination.commonality_product(m, normalize)
    binary = partial_combination.binary_commonality_product(m, normalize)
    np.testing.assert_array_equal(binary, general)
    # a strided chunk of a larger array (the source axis split) gives the same floats
    wide = np.concatenate([m, m], axis=1)[:, :k_sources]
    np.testing.assert_array_equal(partial_combination.binary_commonality_product(wide, normalize), general)
