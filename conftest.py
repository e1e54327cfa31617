"""Root pytest configuration: skip doctest collection of layers whose optional dependency is absent."""

import importlib.util

collect_ignore = []
if importlib.util.find_spec("dask") is None or importlib.util.find_spec("distributed") is None:
    collect_ignore.append("dstk/dask")
if importlib.util.find_spec("matplotlib") is None:
    collect_ignore.append("dstk/plot")
if importlib.util.find_spec("sklearn") is None:
    collect_ignore.append("dstk/_demo.py")
