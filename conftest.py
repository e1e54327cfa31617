"""Root pytest configuration: skip doctest collection of layers whose optional dependency is absent."""

import importlib.util

collect_ignore = []
if importlib.util.find_spec("dask") is None or importlib.util.find_spec("distributed") is None:
    collect_ignore.append("dstk/dask")
if importlib.util.find_spec("matplotlib") is None:
    collect_ignore.append("dstk/plot")
if importlib.util.find_spec("sklearn") is None:
    collect_ignore.append("dstk/_demo.py")

#: test files and folders that take minutes (documentation build, notebooks executed top to bottom,
#: wheel and sdist builds, Dask clusters): ``pytest -m "not slow"`` leaves them out for a quick check
SLOW_PATHS = ("tests/notebooks/", "tests/meta/test_docs.py", "tests/meta/test_packaging.py", "tests/dask/")


def pytest_collection_modifyitems(config, items):
    import pytest

    for item in items:
        path = item.nodeid.split("::", 1)[0]
        if path.startswith(SLOW_PATHS):
            item.add_marker(pytest.mark.slow)
