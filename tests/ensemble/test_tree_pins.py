"""The grown trees are pinned: the same seeds give the same trees, bit for bit.

The digests below were recorded from the tree-building code before its
optimisation (per-node scan bookkeeping, node table growth, parallel
building); any change of a split, a threshold, a node id or a count changes
a digest.  Only the implementation may change, never the trees.  The cases
ending in ``_default`` were added when pure stops became the default
(``stop_at_pure_nodes=None``); the others name ``stop_at_pure_nodes=False``
(or ``compatibility="busch2021"``) and keep their original digests.
"""

import hashlib

import numpy as np
import pytest

from dstk.ensemble import RandomDecisionTreesClassifier, _random_trees

_FIELDS = (
    "feature",
    "operator",
    "nominal",
    "threshold",
    "child_start",
    "n_children",
    "counts",
    "depth",
    "offsets",
)


def _digest(model):
    """SHA-256 of the forest's node arrays in canonical dtypes (int64, float64)."""
    h = hashlib.sha256()
    for name in _FIELDS:
        array = np.asarray(model._node_arrays()[name])
        canonical = array.astype(np.float64 if name == "threshold" else np.int64)
        h.update(name.encode())
        h.update(np.ascontiguousarray(canonical).tobytes())
    return h.hexdigest()[:24]


def _gaussian():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(400, 6))
    y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(size=400) > 1).astype(int)
    return X, y


def _integer_ties():
    rng = np.random.default_rng(12)
    X = rng.integers(0, 4, size=(300, 5)).astype(float)
    y = rng.integers(0, 3, size=300)
    return X, y


def _sparse_wide():
    rng = np.random.default_rng(13)
    X = (rng.random((300, 80)) < 0.04).astype(float)
    X[:, :3] = rng.random((300, 3)) < 0.5
    y = (X[:, 0] + X[:, 5] + rng.random(300) > 1.2).astype(int)
    return X, y


def _mixed_nominal():
    rng = np.random.default_rng(14)
    X = np.column_stack(
        [
            rng.normal(size=250),
            rng.integers(0, 5, size=250),
            rng.normal(size=250),
            rng.integers(0, 3, size=250),
        ]
    ).astype(float)
    y = (X[:, 0] + (X[:, 1] == 2) > 0.5).astype(int)
    return X, y


_DATA = {
    "gaussian": _gaussian,
    "integer_ties": _integer_ties,
    "sparse_wide": _sparse_wide,
    "mixed_nominal": _mixed_nominal,
}

_CASES = {
    "gaussian_leaf1": ("gaussian", {"min_samples_leaf": 1, "random_state": 0, "stop_at_pure_nodes": False}),
    "gaussian_leaf3": (
        "gaussian",
        {"min_samples_leaf": 3, "min_samples_split": 6, "random_state": 1, "stop_at_pure_nodes": False},
    ),
    "gaussian_depth": ("gaussian", {"max_depth": 4, "random_state": 2, "stop_at_pure_nodes": False}),
    "gaussian_sequential": (
        "gaussian",
        {"min_samples_leaf": 2, "random_state": 3, "compatibility": "busch2021"},
    ),
    "ties_leaf1": ("integer_ties", {"random_state": 4, "stop_at_pure_nodes": False}),
    "ties_leaf5": (
        "integer_ties",
        {"min_samples_leaf": 5, "min_samples_split": 10, "random_state": 5, "stop_at_pure_nodes": False},
    ),
    "ties_sequential": (
        "integer_ties",
        {"min_samples_leaf": 5, "random_state": 6, "compatibility": "busch2021"},
    ),
    "sparse_leaf1": ("sparse_wide", {"random_state": 7, "stop_at_pure_nodes": False}),
    "sparse_leaf4": (
        "sparse_wide",
        {"min_samples_leaf": 4, "min_samples_split": 8, "random_state": 8, "stop_at_pure_nodes": False},
    ),
    "sparse_sequential": (
        "sparse_wide",
        {"min_samples_leaf": 4, "random_state": 9, "compatibility": "busch2021"},
    ),
    "nominal": (
        "mixed_nominal",
        {"nominal_features": [1, 3], "min_samples_leaf": 2, "random_state": 10, "stop_at_pure_nodes": False},
    ),
    "nominal_sequential": (
        "mixed_nominal",
        {"nominal_features": [1, 3], "min_samples_leaf": 2, "random_state": 11, "compatibility": "busch2021"},
    ),
    # the default trees (stop_at_pure_nodes=None: pure stops), recorded when they became the default
    "gaussian_default": ("gaussian", {"random_state": 15}),
    "ties_default": ("integer_ties", {"min_samples_leaf": 2, "min_samples_split": 4, "random_state": 16}),
    "sparse_default": ("sparse_wide", {"random_state": 17}),
    "nominal_default": ("mixed_nominal", {"nominal_features": [1, 3], "random_state": 18}),
}

PINNED = {
    "gaussian_default": "b770c3a09160b6b9fced587e",
    "nominal_default": "ec726ddc5f38da804e6f38f2",
    "sparse_default": "95fdb04de1c41f488c769ff4",
    "ties_default": "1d6d3b10acb5f65d0667ece4",
    "gaussian_depth": "26b94c43ca0b9b1cea969102",
    "gaussian_leaf1": "0bb78b3df73af4c54ee520f9",
    "gaussian_leaf3": "8e80c3a5e7c43d7fb03efdc0",
    "gaussian_sequential": "aa3acf1711205eda8f128d75",
    "nominal": "2a4cd4ebf66c528da6c21254",
    "nominal_sequential": "8f9a61920b2f75151cd3e0a3",
    "sparse_leaf1": "8bb3a5cf116b1603f7f60b65",
    "sparse_leaf4": "fc859f2665606628d072d15f",
    "sparse_sequential": "1ed3131c64d76cfd889f3b94",
    "ties_leaf1": "7874cc7935bb526ec2e2b87c",
    "ties_leaf5": "12e6977e5d434605c46e63eb",
    "ties_sequential": "7a01ecb060be7e28277d8fa7",
}


@pytest.mark.parametrize("case", sorted(_CASES))
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_same_trees_for_the_same_seeds(case, n_jobs, monkeypatch):
    monkeypatch.setattr(
        _random_trees, "_PARALLEL_MIN_SAMPLE_TREES", 0
    )  # n_jobs=2: threads on these small sets
    data, params = _CASES[case]
    X, y = _DATA[data]()
    model = RandomDecisionTreesClassifier(12, n_jobs=n_jobs, **params).fit(X, y)
    assert _digest(model) == PINNED[case]


if __name__ == "__main__":  # prints the digests (run on the code whose trees are to be pinned)
    for case in sorted(_CASES):
        data, params = _CASES[case]
        X, y = _DATA[data]()
        print(f"    {case!r}: {_digest(RandomDecisionTreesClassifier(12, **params).fit(X, y))!r},")


def test_float32_routing_equals_float64_routing():
    """Samples that are float32 numbers are routed in float32 against thresholds rounded down.

    The test samples sit on and next to the float32 roundings of float64
    thresholds, where a rounding in the wrong direction would send them the
    other way; the routes must equal those of the float64 kernel.
    """
    from dstk.ensemble import combine_leaves

    X, y = _gaussian()
    model = RandomDecisionTreesClassifier(8, combiner="average", random_state=0, n_jobs=1).fit(X, y)
    arrays = model._node_arrays()
    thresholds = arrays["threshold"][arrays["feature"] >= 0]
    near = thresholds.astype(np.float32)
    values = np.concatenate(
        [near, np.nextafter(near, np.float32(np.inf)), np.nextafter(near, np.float32(-np.inf))]
    )
    rng = np.random.default_rng(0)
    X_test = rng.choice(values, size=(600, X.shape[1])).astype(np.float64)
    assert np.array_equal(X_test.astype(np.float32), X_test)  # the float32 path is taken
    expected = combine_leaves(model.leaf_counts(X_test), combiner="average")
    np.testing.assert_array_equal(model.predict_proba(X_test)[:, 1], expected)
