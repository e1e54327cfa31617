"""Fixtures for the dask tests: one real LocalCluster per test module.

The whole folder is skipped when dask or distributed is not installed.
"""

import importlib.util

import pytest

if importlib.util.find_spec("dask") is None or importlib.util.find_spec("distributed") is None:
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(scope="module")
def client():
    """A LocalCluster of 2 worker processes (1 thread each) on loopback, and its client."""
    distributed = pytest.importorskip("distributed")
    import warnings

    warnings.filterwarnings(
        "ignore", message="Mismatched versions found"
    )  # optional packages on workers only
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",
            worker_dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client
