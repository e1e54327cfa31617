"""The pool of reused buffers behind dstk's dask tasks, and ``dstk.dask.reuse_buffers``.

The pool must never hand out memory that an array still views (however that
array was derived), must keep at most its limits of idle memory, and must give
the dask results the same values as the same work in memory.
"""

import gc
import threading
import time

import numpy as np
import pytest

from dstk._kernels import _buffers
from dstk._kernels._buffers import BufferPool, reusing_buffers

MIB = 2**20


def test_outside_the_context_arrays_are_plain_numpy():
    values = _buffers.empty((1000, 100))
    assert values.flags.owndata and values.shape == (1000, 100)
    assert _buffers.zeros(5000, dtype=np.bool_).sum() == 0


def test_small_arrays_are_never_pooled():
    pool = BufferPool()
    with reusing_buffers(pool):
        small = _buffers.empty(100)
        large = _buffers.empty((200, 100))  # 160 kB
    assert small.flags.owndata and not large.flags.owndata
    assert pool.allocated == 1


def test_a_freed_buffer_is_reused_and_a_live_one_never():
    pool = BufferPool()
    first = pool.empty((1000, 300))
    address = first.ctypes.data
    second = pool.empty((1000, 300))
    assert second.ctypes.data != address
    del first
    third = pool.empty((1000, 300))
    assert third.ctypes.data == address and pool.reused == 1
    fourth = pool.empty((1000, 300))  # second and third are alive: a fresh buffer
    assert fourth.ctypes.data not in (address, second.ctypes.data)


@pytest.mark.parametrize(
    "derive",
    [
        lambda a: a[:, 1],
        lambda a: a.T,
        lambda a: a.reshape(-1)[5:],
        lambda a: a[::3].view(np.int64),
        lambda a: np.moveaxis(a, 0, 1)[2:],
        lambda a: memoryview(a),
        lambda a: np.asarray(memoryview(a)),
    ],
    ids=["column", "transpose", "flat-slice", "view-as-int", "moveaxis", "memoryview", "array-of-memoryview"],
)
def test_a_view_keeps_its_buffer_out_of_the_pool(derive):
    pool = BufferPool()
    values = pool.empty((1000, 300))
    values[:] = np.arange(300.0)
    view = derive(values)
    expected = np.array(view, copy=True)
    del values
    gc.collect()
    others = [pool.empty((1000, 300)) for _ in range(4)]
    for other in others:
        other.fill(-1.0)
    np.testing.assert_array_equal(np.asarray(view), expected)
    assert pool.reused == 0
    del view
    gc.collect()
    pool.empty((1000, 300))
    assert pool.reused == 1


def test_zeros_clears_a_reused_buffer():
    pool = BufferPool()
    values = pool.empty(300_000)
    values.fill(7.0)
    del values
    again = pool.zeros(300_000)
    assert pool.reused == 1 and not again.any()


def test_the_idle_memory_stays_within_its_limit_and_the_oldest_goes_first():
    pool = BufferPool(max_idle_bytes=6 * MIB, max_idle_seconds=60)
    arrays = [pool.empty(2 * MIB // 8) for _ in range(4)]
    addresses = [a.ctypes.data for a in arrays]
    while arrays:  # freed in order: the first one is the oldest idle buffer
        arrays.pop(0)
    assert pool.idle_bytes == 6 * MIB  # three of four kept: the first freed was dropped
    again = [pool.empty(2 * MIB // 8) for _ in range(3)]
    assert {a.ctypes.data for a in again} == set(addresses[1:])
    del again
    big = pool.empty(7 * MIB // 8)  # larger than the limit: never kept
    del big
    assert pool.idle_bytes == 6 * MIB and 8 * MIB not in pool._idle


def test_idle_buffers_are_freed_after_their_time():
    pool = BufferPool(max_idle_seconds=0.2)
    values = pool.empty(MIB)
    del values
    assert pool.idle_bytes > 0
    deadline = time.monotonic() + 10
    while pool.idle_bytes and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pool.idle_bytes == 0


def test_a_buffer_freed_inside_the_pools_own_critical_section_waits_and_is_kept():
    pool = BufferPool()
    values = pool.empty(MIB)
    address = values.ctypes.data
    pool._local.busy = True  # as if a garbage collection freed it while this thread held the lock
    del values
    pool._local.busy = False
    assert pool.idle_bytes == 0 and len(pool._pending) == 1
    assert pool.empty(MIB).ctypes.data != address  # drained at the end of this critical section
    assert pool.idle_bytes > 0 and not pool._pending


def test_reference_cycles_collected_during_allocations():
    pool = BufferPool()

    class Holder:
        pass

    for _ in range(200):
        holder = Holder()
        holder.values = pool.empty(20_000)
        holder.values.fill(1.0)
        holder.itself = holder  # freed only by the garbage collector, at any allocation
        del holder
        fresh = pool.empty(20_000)
        fresh.fill(2.0)
        assert (fresh == 2.0).all()
    gc.collect()
    assert pool.idle_bytes <= pool.max_idle_bytes


def test_threads_never_share_a_live_buffer():
    pool = BufferPool(max_idle_bytes=32 * MIB)
    errors = []

    def work(seed):
        rng = np.random.default_rng(seed)
        for _ in range(300):
            n = int(rng.choice([20_000, 40_000, 300_000]))
            values = pool.empty(n)
            values.fill(seed)
            time.sleep(0)
            if not (values == seed).all():
                errors.append(seed)
            del values

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and pool.reused > 0


def test_a_pooled_array_pickles_as_a_copy():
    import pickle

    pool = BufferPool()
    values = pool.empty((500, 100))
    values[:] = 3.0
    copy = pickle.loads(pickle.dumps(values))
    assert not np.shares_memory(copy, values) and (copy == 3.0).all()


# -- in dask tasks -------------------------------------------------------------------------
da = pytest.importorskip("dask.array")

import dstk  # noqa: E402
import dstk.dask  # noqa: E402


def _masses(seed, rows, sources):
    rng = np.random.default_rng(seed)
    m = np.zeros((rows, sources, 4))
    m[..., 1:] = rng.dirichlet(np.ones(3), size=(rows, sources))
    return m


@pytest.mark.parametrize("rule", ["dempster", "conjunctive", "yager", "disjunctive", "cautious"])
@pytest.mark.parametrize("scheduler", ["threads", "synchronous"])
@pytest.mark.parametrize("reduction", ["tree", "blockwise"])
def test_results_kept_across_computes_are_never_overwritten(rule, scheduler, reduction):
    """Results of earlier computes (pooled arrays in this process) keep their values while later ones run."""
    kept = []
    for seed in range(4):
        masses = _masses(seed, 20_000, 8)
        lazy = dstk.dask.combine_with_conflict(
            dstk.dask.DaskMassFunction(
                da.from_array(masses, chunks=(10_000, 2 if reduction == "tree" else 8, 4)), (0, 1)
            ),
            rule=rule,
            axis=1,
            reduction=reduction,
        )
        fused = lazy[0].compute(scheduler=scheduler)
        conflict = lazy[1].compute(scheduler=scheduler)
        expected, expected_conflict = dstk.combine_with_conflict(
            dstk.MassFunction.from_array(masses, (0, 1)), rule=rule, axis=1
        )
        kept.append((fused.to_array(), fused._dense_m(), np.array(conflict), expected.to_array()))
        np.testing.assert_allclose(fused.to_array(), expected.to_array(), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(conflict, expected_conflict, rtol=1e-9, atol=1e-12)
    for copy, live, _, expected in kept:
        np.testing.assert_array_equal(live, copy)
        np.testing.assert_allclose(live, expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kind", ["binning", "logistic-likelihood", "logistic-bayes"])
def test_calibrated_masses_of_a_chunked_predict_equal_memory(kind):
    from dstk.calibration import BinningCalibrator, LogisticCalibrator

    rng = np.random.default_rng(3)
    scores = rng.normal(size=400_000)
    labels = (rng.random(scores.size) < 1 / (1 + np.exp(-scores))).astype(int)
    calibrator = (
        BinningCalibrator(bins=8) if kind == "binning" else LogisticCalibrator(model=kind.split("-")[1])
    ).fit(scores[:2000], labels[:2000])
    lazy = dstk.dask.predict_mass(calibrator, da.from_array(scores, chunks=50_000))
    first = lazy.compute(scheduler="threads")._dense_m()
    copy = first.copy()
    second = lazy.compute(scheduler="threads").to_array()
    np.testing.assert_array_equal(first, copy)
    np.testing.assert_array_equal(second, calibrator.predict_mass(scores).to_array())


def test_tasks_reuse_their_buffers_instead_of_fresh_pages():
    """The tree reduction's states and merges, run again, take their large arrays from the pool."""
    masses = dstk.dask.DaskMassFunction(da.from_array(_masses(0, 60_000, 8), chunks=(20_000, 2, 4)), (0, 1))
    lazy = dstk.dask.combine(masses, rule="dempster", axis=1, reduction="tree")
    lazy.array.sum().compute(scheduler="synchronous")
    before = _buffers.POOL.reused
    lazy.array.sum().compute(scheduler="synchronous")
    assert _buffers.POOL.reused - before >= 12  # 12 chunk states and 3 merges, each with 4 arrays


def test_reuse_buffers_sets_the_limits_of_this_process():
    try:
        assert dstk.dask.reuse_buffers(max_idle_bytes=MIB, max_idle_seconds=2) == (MIB, 2.0)
        assert (_buffers.POOL.max_idle_bytes, _buffers.POOL.max_idle_seconds) == (MIB, 2.0)
        assert dstk.dask.reuse_buffers(max_idle_bytes=0) == (0, 10.0)
        with reusing_buffers():  # 0 bytes: nothing pooled
            assert _buffers.empty(MIB).flags.owndata
    finally:
        dstk.dask.reuse_buffers()
    assert (_buffers.POOL.max_idle_bytes, _buffers.POOL.max_idle_seconds) == (256 * MIB, 10.0)


@pytest.mark.parametrize(
    "options, error",
    [
        ({"max_idle_bytes": -1}, ValueError),
        ({"max_idle_bytes": 1.5}, TypeError),
        ({"max_idle_bytes": True}, TypeError),
        ({"max_idle_seconds": -1.0}, ValueError),
        ({"max_idle_seconds": float("inf")}, ValueError),
        ({"max_idle_seconds": float("nan")}, ValueError),
        ({"max_idle_seconds": "10"}, TypeError),
        ({"client": object()}, TypeError),
    ],
)
def test_reuse_buffers_rejects_bad_limits(options, error):
    name = next(iter(options))
    with pytest.raises(error, match=name):
        dstk.dask.reuse_buffers(**options)
    assert _buffers.POOL.max_idle_bytes == 256 * MIB


def test_reuse_buffers_on_the_workers_of_a_cluster(client):
    try:
        limits = dstk.dask.reuse_buffers(client, max_idle_bytes=8 * MIB, max_idle_seconds=1.5)
        assert limits and all(value == (8 * MIB, 1.5) for value in limits.values())

        def pool_limits():
            return _buffers.POOL.max_idle_bytes, _buffers.POOL.max_idle_seconds

        assert set(client.run(pool_limits).values()) == {(8 * MIB, 1.5)}
    finally:
        dstk.dask.reuse_buffers(client)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="fork is POSIX")
def test_a_forked_child_starts_with_an_empty_pool_and_a_free_lock():
    import os

    pool = BufferPool()
    values = pool.empty(MIB)
    del values
    assert pool.idle_bytes > 0
    pool._lock.acquire()  # as if another thread held the lock at the fork
    try:
        read, write = os.pipe()
        child = os.fork()
        if child == 0:  # pragma: no cover - the child reports through the pipe
            try:
                fresh = pool.empty(MIB)
                fresh.fill(1.0)
                ok = pool.idle_bytes == 0 and (fresh == 1.0).all()
                os.write(write, b"1" if ok else b"0")
            finally:
                os._exit(0)
        os.close(write)
        answer = os.read(read, 1)
        os.waitpid(child, 0)
    finally:
        pool._lock.release()
    assert answer == b"1"


def _pool_reuse_count():
    return _buffers.POOL.reused


def test_on_a_cluster_results_equal_memory_and_workers_reuse_their_buffers(client):
    """Tree and blockwise fusion and chunked calibration on 2 worker processes, twice, against memory."""
    from dstk.calibration import BinningCalibrator

    masses = _masses(5, 20_000, 8)
    scores = np.random.default_rng(6).normal(size=200_000)
    labels = (scores + np.random.default_rng(7).normal(size=scores.size) > 0).astype(int)
    calibrator = BinningCalibrator(bins=6).fit(scores[:3000], labels[:3000])
    expected_tree = dstk.combine_with_conflict(
        dstk.MassFunction.from_array(masses, (0, 1)), rule="dempster", axis=1
    )
    expected_masses = calibrator.predict_mass(scores).to_array()
    before = sum(client.run(_pool_reuse_count).values())
    for _ in range(2):
        lazy_masses = dstk.dask.DaskMassFunction(da.from_array(masses, chunks=(5_000, 2, 4)), (0, 1))
        tree = dstk.dask.combine_with_conflict(lazy_masses, rule="dempster", axis=1, reduction="tree")
        blockwise = dstk.dask.combine(lazy_masses, rule="dempster", axis=1, reduction="rechunk")
        calibrated = dstk.dask.predict_mass(calibrator, da.from_array(scores, chunks=25_000))
        fused, conflict, whole, predicted = client.compute(
            [tree[0].array, tree[1], blockwise.array, calibrated.array], sync=True
        )
        np.testing.assert_allclose(fused, expected_tree[0].to_array(), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(conflict, expected_tree[1], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(whole, expected_tree[0].to_array(), rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(predicted, expected_masses)
    assert sum(client.run(_pool_reuse_count).values()) > before
