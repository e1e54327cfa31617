"""A cluster that goes away mid-computation: the Dask error surfaces, no partial result.

Each test starts and stops its own LocalCluster (2 worker processes on loopback).
"""

import os
import signal
import time

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import dstk  # noqa: E402
from dstk import MassFunction  # noqa: E402
from dstk.dask import DaskMassFunction, combine  # noqa: E402


def slow_identity(block):
    time.sleep(0.1)
    return block


def make_cluster():
    return distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=":0",
        worker_dashboard_address=None,
    )


def slow_masses(n_rows=40):
    values = np.tile([0.0, 0.5, 0.2, 0.3], (n_rows, 3, 1))
    values[:, 1] = [0.0, 0.1, 0.6, 0.3]
    array = da.from_array(values, chunks=(1, 3, 4)).map_blocks(slow_identity, dtype=np.float64)
    return values, DaskMassFunction(array, frame=(0, 1))


def test_cluster_closed_mid_computation_raises_and_returns_nothing():
    _, masses = slow_masses()
    cluster = make_cluster()
    client = distributed.Client(cluster)
    try:
        future = client.compute(combine(masses, rule="dempster", axis=1).array)
        time.sleep(0.5)  # 40 chunks x 0.1 s on 2 workers: about 2 s of work, under way
        assert future.status == "pending"
        cluster.close()
        with pytest.raises((distributed.client.FutureCancelledError, OSError, distributed.TimeoutError)):
            future.result(timeout=30)
        assert future.status != "finished"
    finally:
        client.close()
        cluster.close()


def test_worker_killed_mid_computation_is_recomputed_to_the_same_result():
    values, masses = slow_masses(30)
    with make_cluster() as cluster, distributed.Client(cluster) as client:
        future = client.compute(combine(masses, rule="dempster", axis=1).array)
        time.sleep(0.5)
        victim = sorted(client.scheduler_info()["workers"])[0]
        pid = client.run(os.getpid, workers=[victim])[victim]
        os.kill(pid, signal.SIGKILL)  # a worker process of this test's cluster; the nanny restarts it
        got = future.result(timeout=60)
    want = dstk.combine(MassFunction.from_array(values, (0, 1)), rule="dempster", axis=1).to_array()
    np.testing.assert_array_equal(got, want)
