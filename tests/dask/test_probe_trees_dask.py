"""dstk.dask tree functions equal the in-memory results, chunked any way."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import dstk.dask as dd  # noqa: E402
from dstk.ensemble import (  # noqa: E402
    COMBINERS,
    RandomDecisionTreesClassifier,
    combine_leaves,
    combine_leaves_proba,
)


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(97, 4))
    y = (X[:, 0] + rng.normal(size=97) > 0).astype(int)
    with dask.config.set(scheduler="synchronous"):
        model = dd.fit_random_trees(RandomDecisionTreesClassifier(12, random_state=0), X, y, n_tasks=3)
        from_chunks = dd.fit_random_trees(
            RandomDecisionTreesClassifier(12, random_state=0),
            da.from_array(X, chunks=(10, 4)),
            da.from_array(y, chunks=13),
            n_tasks=3,
        )
    assert np.array_equal(model.leaf_counts(X), from_chunks.leaf_counts(X))
    return model, X


@pytest.mark.parametrize("chunks", [(97, 4), (1, 4), (7, 4), (50, 2), (33, 1)])
def test_chunked_equals_in_memory(fitted, chunks):
    model, X = fitted
    X_chunked = da.from_array(X, chunks=chunks)
    counts = model.leaf_counts(X)
    with dask.config.set(scheduler="synchronous"):
        assert np.array_equal(dd.leaf_counts(model, X_chunked, rechunk=True).compute(), counts)
        counts_chunked = da.from_array(counts, chunks=(chunks[0], -1, -1))
        for combiner in COMBINERS:
            for local, remote in (
                (combine_leaves, dd.combine_leaves),
                (combine_leaves_proba, dd.combine_leaves_proba),
            ):
                expected = local(counts, combiner=combiner)
                assert np.array_equal(remote(counts_chunked, combiner=combiner).compute(), expected)
        assert np.array_equal(
            dd.predict_proba(model, X_chunked, rechunk=True).compute(), model.predict_proba(X)
        )
