"""tune_worker_malloc: an explicit opt-in that lets the workers reuse freed arrays (glibc mallopt).

Checked by its effect, not by timing: before the call a worker started by
distributed's nanny (MALLOC_TRIM_THRESHOLD_=65536) page-faults every freshly
allocated 1 MiB array; after it, the freed array is reused from the heap.
"""

import platform
import resource
import warnings

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

import dstk.dask  # noqa: E402
from dstk.dask import _workers  # noqa: E402

GLIBC = platform.libc_ver()[0] == "glibc"


def _page_faults_of_fresh_arrays(repeats=20, size=2**17):
    """Minor page faults while allocating, filling and freeing ``repeats`` arrays of ``size`` float64 (1 MiB)."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(repeats):
        values = np.empty(size)
        values.fill(1.0)
        del values
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def _page_faults_of_chunk_tasks(repeats=24, rows=25_000):
    """Minor page faults of a task that, like a chunk generator, allocates 5 MB and 20 MB arrays and frees them."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(repeats):
        u = np.ones((25, rows))
        out = np.empty((rows, 25, 4))
        out[..., 0] = 0.0
        np.multiply(u.T, 0.5, out=out[..., 1])
        np.multiply(1.0 - u.T, 0.4, out=out[..., 2])
        np.subtract(1.0 - out[..., 1], out[..., 2], out=out[..., 3])
        state = out.sum(axis=1)
        del u, out, state
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


@pytest.mark.skipif(not GLIBC, reason="mallopt thresholds are a glibc feature")
def test_workers_reuse_freed_arrays_after_the_call(client):
    client.run(_page_faults_of_fresh_arrays)  # warm up
    before = client.run(_page_faults_of_fresh_arrays)
    # distributed's default worker environment: every 1 MiB array is a fresh mapping (256 pages each)
    assert all(faults >= 20 * 200 for faults in before.values()), before
    in_task = [client.submit(_page_faults_of_chunk_tasks, pure=False) for _ in range(2)][-1].result()
    applied = dstk.dask.tune_worker_malloc(client)
    assert applied == dict.fromkeys(before, True)
    after = client.run(_page_faults_of_fresh_arrays)
    assert all(after[address] * 4 < before[address] for address in before), (before, after)
    # in a task thread too (its own glibc arena, whose heaps the top pad keeps)
    client.submit(_page_faults_of_chunk_tasks, pure=False).result()
    in_task_after = client.submit(_page_faults_of_chunk_tasks, pure=False).result()
    assert in_task_after * 4 < in_task, (in_task, in_task_after)
    assert all(client.run(_workers._malloc_state)[address][0] for address in before)
    # workers that join later (scaling, restarts) get the settings from the plugin
    cluster = client.cluster
    cluster.scale(3)
    client.wait_for_workers(3, timeout=60)
    states = client.run(_workers._malloc_state)
    assert len(states) == 3 and all(applied for applied, _ in states.values()), states
    cluster.scale(2)


def test_not_glibc_warns_and_changes_nothing(monkeypatch):
    monkeypatch.setattr(_workers.platform, "libc_ver", lambda: ("", ""))
    applied, reason = _workers._set_malloc(2**20, 2**28)
    assert not applied and "not glibc" in reason

    class Client:
        def register_plugin(self, plugin, name=None):
            assert isinstance(plugin, _workers._MallocPlugin) and name == "dstk-worker-malloc"
            plugin.setup(worker=None)

        def run(self, function):
            return {"tcp://a": function()}

    with pytest.warns(RuntimeWarning, match=r"not set on 1 of 1 worker\(s\): tcp://a: not glibc"):
        assert dstk.dask.tune_worker_malloc(Client()) == {"tcp://a": False}


@pytest.mark.skipif(not GLIBC, reason="mallopt thresholds are a glibc feature")
def test_thresholds_reach_mallopt(monkeypatch):
    calls = []

    def mallopt(parameter, value):
        calls.append((parameter, value))
        return 1

    class Libc:
        pass

    Libc.mallopt = staticmethod(mallopt)  # a function (ctypes sets argtypes on it), not a bound method

    monkeypatch.setattr(_workers.ctypes, "CDLL", lambda name: Libc())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        applied, _ = _workers._set_malloc(2**21, 2**27)
    assert applied
    assert calls == [(-3, 2**21), (-1, 2**27), (-2, 2**21)]  # M_MMAP_THRESHOLD, M_TRIM_THRESHOLD, M_TOP_PAD


@pytest.mark.parametrize(
    "options, error, match",
    [
        ({"mmap_threshold": 2**26}, ValueError, "`mmap_threshold` must be between 0 and 33554432"),
        ({"mmap_threshold": -1}, ValueError, "`mmap_threshold`"),
        ({"trim_threshold": -5}, ValueError, "`trim_threshold` must be >= 0"),
        ({"trim_threshold": 1.5}, TypeError, "`trim_threshold` must be a whole number"),
        ({"mmap_threshold": True}, TypeError, "`mmap_threshold`"),
    ],
)
def test_bad_thresholds(options, error, match):
    class Client:
        def register_plugin(self, plugin, name=None):
            raise AssertionError("never reached")

        run = register_plugin

    with pytest.raises(error, match=match):
        dstk.dask.tune_worker_malloc(Client(), **options)


@pytest.mark.parametrize("client", [None, 3.0, "tcp://127.0.0.1:8786", np.nan, distributed])
def test_something_that_is_not_a_client(client):
    with pytest.raises(TypeError, match=r"`client` must be a distributed\.Client"):
        dstk.dask.tune_worker_malloc(client)


def test_an_asynchronous_client_is_refused():
    class AsyncClient:
        asynchronous = True

        def register_plugin(self, plugin, name=None):
            raise AssertionError("never reached")

        run = register_plugin

    with pytest.raises(TypeError, match="asynchronous"):
        dstk.dask.tune_worker_malloc(AsyncClient())
