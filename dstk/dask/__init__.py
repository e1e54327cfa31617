"""Belief functions on Dask: chunked mass functions, combination, calibration and tree ensembles.

This module needs the optional extra ``dask`` (``pip install "dstk-belief[dask]"``,
i.e. ``dask[array,distributed]``); ``import dstk`` never imports dask.

Every function builds a lazy dask graph whose tasks run the in-memory dstk
code on one chunk at a time, so the same code runs on a laptop (threads),
on a :class:`dask.distributed.LocalCluster` or on a cluster of machines.
Results stay chunked (dask arrays or :class:`DaskMassFunction`); call
``.compute()`` only on results small enough for the client.
"""

try:
    import dask
    import dask.array
except ImportError as error:  # pragma: no cover - exercised without dask only
    raise ImportError(
        "dstk.dask needs dask: install the optional extra with pip install 'dstk-belief[dask]' "
        "(dask[array,distributed])."
    ) from error

from ._combination import TREE_RULES, TREE_TOLERANCE, combine, combine_with_conflict
from ._ensemble import (
    combine_leaves,
    combine_leaves_proba,
    combine_leaves_to_mass,
    fit_random_trees,
    leaf_counts,
)
from ._estimators import map_samples, predict_interval, predict_mass, predict_proba
from ._mass import DaskMassFunction, as_dask_mass
from ._workers import reuse_buffers, tune_worker_malloc

__all__ = [
    "DaskMassFunction",
    "as_dask_mass",
    "combine",
    "combine_with_conflict",
    "TREE_RULES",
    "TREE_TOLERANCE",
    "map_samples",
    "predict_mass",
    "predict_interval",
    "predict_proba",
    "fit_random_trees",
    "leaf_counts",
    "combine_leaves",
    "combine_leaves_proba",
    "combine_leaves_to_mass",
    "reuse_buffers",
    "tune_worker_malloc",
]
