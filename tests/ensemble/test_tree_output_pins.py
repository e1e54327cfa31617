"""The outputs of fitted forests are pinned: predictions must not change with the storage of the trees.

The outputs were first pinned as SHA-256 digests, recorded on the code
before the trees' storage and routing were rewritten, and re-recorded twice
(the leave-one-out score of a sample alone in its leaf; the Kullback-Leibler
form of the degrees of support), each time checked array by array.  On
2026-11-28 the digests stopped matching on a machine whose processor has
AVX2 but not AVX-512 (every output of every case, the authors' own trees
too, at the code the digests were recorded on): the last bits of vectorised
floating-point reductions depend on the SIMD width.  The outputs of that code
are now stored (``data/tree_output_pins.npz``): integer outputs (``apply``,
``leaf_counts``) must be equal, floating-point outputs equal to 1e-9.  The two three-class
``predict_proba`` outputs of EVA and Dempster (``integers_3_classes`` 001,
002) were re-recorded when their probabilities got a fitted temperature:
every other output unchanged, the new rows softmax(a ln p) of the old rows p
with one a per forest.  On 2026-11-29 the calibrated outputs (001, 002 of the
cases whose combiner is calibrated) were re-recorded when the fitted inverse
temperature became the root of the likelihood's derivative to a few units in
the last place (it had been a quasi-Newton optimum with a finite-difference
gradient, up to 6e-5 relative from the maximiser and moved by the machine's
BLAS kernel): they moved by at most 2.6e-8, every other output unchanged.
"""

import hashlib
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone

from dstk.ensemble import RandomDecisionTreesClassifier, _random_trees

_COMBINERS = (
    "average",
    "vote",
    "laplace",
    "laplace:vote",
    "plausibility",
    "confidence_bounds",
    "pooling",
    "dempster",
    "cautious",
    "eva",
)


def _gaussian(seed, n=300, n_features=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(size=n) > 0.8).astype(int)
    return X, y


def _integers(seed, n=300):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, 4)).astype(float)
    X[rng.random(X.shape) < 0.1] = -0.0
    y = rng.integers(0, 3, size=n)
    return X, y


def _nominal(seed, n=300):
    rng = np.random.default_rng(seed)
    X = np.column_stack(
        [rng.normal(size=n), rng.integers(0, 6, size=n), rng.normal(size=n), rng.integers(0, 3, size=n)]
    ).astype(float)
    # code 5 of feature 1 only with feature 3 = 0: nominal splits below a split on feature 3 have empty children
    X[X[:, 1] == 5, 3] = 0.0
    y = (X[:, 0] + (X[:, 1] == 2) + rng.normal(size=n) > 0.5).astype(int)
    return X, y


def _test_samples(X, seed):
    rng = np.random.default_rng(seed + 100)
    X_test = X[rng.permutation(X.shape[0])[:200]].copy()
    X_test[:50] += rng.normal(scale=0.3, size=(50, X.shape[1]))
    return X_test


def _outputs(model, X_test, combiners):
    """Every output reading the trees, as a list of arrays."""
    arrays = [model.apply(X_test), model.leaf_counts(X_test)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # predict_mass of EVA: the uncalibrated probabilities
        for combiner in combiners:
            model.set_params(combiner=combiner)
            arrays.append(model.decision_function(X_test))
            arrays.append(model.predict_mass(X_test).to_array())
            arrays.append(model.predict_mass(X_test, normalize=False).to_array())
    return arrays


def _digest(arrays):
    h = hashlib.sha256()
    for array in arrays:
        array = np.ascontiguousarray(array)
        h.update(str(array.dtype).encode() + str(array.shape).encode())
        h.update(array.tobytes())
    return h.hexdigest()[:24]


def _case(name):
    kind, seed, params = _CASES[name]
    if kind == "gaussian":
        X, y = _gaussian(seed)
    elif kind == "float32":
        X, y = _gaussian(seed)
        X = X.astype(np.float32).astype(np.float64)
    elif kind == "integers":
        X, y = _integers(seed)
    else:
        X, y = _nominal(seed)
        params = {"nominal_features": [1, 3], **params}
    X_test = _test_samples(X, seed)
    if kind == "nominal":
        X_test[:20, 1] = 9.0  # unseen codes
    return X, y, X_test, params


_CASES = {
    "gaussian_leaf1": ("gaussian", 0, {"random_state": 0}),
    "gaussian_leaf4": ("gaussian", 1, {"min_samples_leaf": 4, "min_samples_split": 8, "random_state": 1}),
    "gaussian_busch": (
        "gaussian",
        2,
        {"min_samples_leaf": 2, "random_state": 2, "compatibility": "busch2021"},
    ),
    "float32_leaf2": ("float32", 3, {"min_samples_leaf": 2, "random_state": 3}),
    "integers_3_classes": ("integers", 4, {"min_samples_leaf": 3, "random_state": 4}),
    "nominal_siblings": ("nominal", 5, {"min_samples_leaf": 2, "random_state": 5}),
    "nominal_parent": ("nominal", 6, {"empty_leaf": "parent", "random_state": 6}),
    "nominal_zero": ("nominal", 7, {"empty_leaf": "zero", "min_samples_leaf": 3, "random_state": 7}),
}

#: the outputs recorded by ``python tests/ensemble/test_tree_output_pins.py --record`` (integers exact,
#: floats to 1e-9: the last bits of floating-point reductions differ between machines whose numpy and
#: numba use other SIMD widths, which SHA-256 digests of the raw bytes could not tolerate)
PINS = Path(__file__).with_name("data") / "tree_output_pins.npz"


def _assert_pinned(prefix, arrays):
    with np.load(PINS) as stored:
        expected = [stored[key] for key in sorted(stored.files) if key.startswith(prefix + "/")]
    assert len(arrays) == len(expected), f"{prefix}: {len(arrays)} outputs, {len(expected)} pinned"
    for index, (actual, pinned) in enumerate(zip(arrays, expected)):
        actual = np.asarray(actual)
        assert actual.shape == pinned.shape and actual.dtype == pinned.dtype, (prefix, index)
        if np.issubdtype(pinned.dtype, np.floating):
            np.testing.assert_allclose(
                actual, pinned, rtol=1e-9, atol=1e-12, err_msg=f"{prefix} output {index}"
            )
        else:
            np.testing.assert_array_equal(actual, pinned, err_msg=f"{prefix} output {index}")


def _combiners_for(y):
    if np.unique(y).size > 2:
        return ("average", "vote", "laplace", "pooling", "dempster", "cautious", "eva")
    return _COMBINERS


def _fitted_outputs(name, *, n_jobs=1):
    X, y, X_test, params = _case(name)
    arrays = []
    for combiner in ("average", "eva", "dempster"):  # the calibrated combiners fit their score map in fit
        model = RandomDecisionTreesClassifier(8, n_jobs=n_jobs, combiner=combiner, **params).fit(X, y)
        arrays.append(model.predict_proba(X_test))
    arrays += _outputs(model, X_test, _combiners_for(y))
    return arrays


@pytest.mark.parametrize("name", sorted(_CASES))
def test_outputs_pinned(name):
    _assert_pinned(name, _fitted_outputs(name))


def test_outputs_pinned_two_threads_and_concatenated(monkeypatch):
    monkeypatch.setattr(_random_trees, "_PARALLEL_MIN_SAMPLE_TREES", 0)  # threads on this small set
    X, y, X_test, params = _case("nominal_siblings")
    parts = [
        RandomDecisionTreesClassifier(5, n_jobs=2, **{**params, "random_state": seed}).fit(X, y)
        for seed in (0, 1)
    ]
    merged = RandomDecisionTreesClassifier.concatenate(parts)
    _assert_pinned("concatenated", _outputs(merged, X_test, _COMBINERS))


def test_pickle_and_clone_keep_outputs():
    X, y, X_test, params = _case("nominal_siblings")
    model = RandomDecisionTreesClassifier(6, **params).fit(X, y)
    expected = _outputs(model, X_test, ("average", "dempster"))
    restored = pickle.loads(pickle.dumps(model))
    assert _digest(_outputs(restored, X_test, ("average", "dempster"))) == _digest(expected)
    refitted = clone(model).fit(X, y)
    assert _digest(_outputs(refitted, X_test, ("average", "dempster"))) == _digest(expected)


def _record():
    """Write the outputs of the current code to ``PINS`` (run on the code whose outputs are to be pinned)."""
    outputs = {}
    for case in sorted(_CASES):
        for index, array in enumerate(_fitted_outputs(case)):
            outputs[f"{case}/{index:03d}"] = np.asarray(array)
    X, y, X_test, params = _case("nominal_siblings")
    _random_trees._PARALLEL_MIN_SAMPLE_TREES = 0
    parts = [
        RandomDecisionTreesClassifier(5, n_jobs=2, **{**params, "random_state": seed}).fit(X, y)
        for seed in (0, 1)
    ]
    merged = RandomDecisionTreesClassifier.concatenate(parts)
    for index, array in enumerate(_outputs(merged, X_test, _COMBINERS)):
        outputs[f"concatenated/{index:03d}"] = np.asarray(array)
    np.savez_compressed(PINS, **outputs)


if __name__ == "__main__":
    import sys

    if "--record" in sys.argv:
        _record()


def _brute_force_leaf_counts(arrays, x, tree, policy):
    """Counts of the leaf of ``x`` in ``tree`` walked on the grown node arrays (the definition, node by node)."""
    a = arrays["offsets"][tree]

    def walk(node):
        g = a + node
        if arrays["feature"][g] < 0:
            return arrays["counts"][g].astype(np.int64)
        value = x[arrays["feature"][g]]
        start, n_children = arrays["child_start"][g], arrays["n_children"][g]
        if arrays["nominal"][g]:
            child = int(value) if value >= 0 and value == int(value) and value < n_children else -1
            if child >= 0 and arrays["counts"][a + start + child].sum() > 0:
                return walk(start + child)
            if policy == "parent":
                return arrays["counts"][g].astype(np.int64)
            if policy == "zero":
                return np.zeros(arrays["counts"].shape[1], dtype=np.int64)
            children = [start + c for c in range(n_children) if arrays["counts"][a + start + c].sum() > 0]
            return sum(walk(c) for c in children)
        threshold = arrays["threshold"][g]
        first = value < threshold if arrays["operator"][g] == 0 else value <= threshold
        return walk(start if first else start + 1)

    return walk(0)


@pytest.mark.parametrize("policy", ["siblings", "parent", "zero"])
@pytest.mark.parametrize("seed", [0, 1])
def test_leaf_counts_equal_the_walk_of_the_grown_arrays(policy, seed):
    X, y = _nominal(seed, n=120)
    model = RandomDecisionTreesClassifier(
        4, nominal_features=[1, 3], empty_leaf=policy, random_state=seed
    ).fit(X, y)
    X_test = _test_samples(X, seed)[:60]
    X_test[:10, 1] = 9.0  # unseen codes
    X_test[10:20, 3] = -1.0
    arrays = model._node_arrays()
    expected = np.array(
        [[_brute_force_leaf_counts(arrays, x, t, policy) for t in range(4)] for x in model._encode(X_test)]
    )
    np.testing.assert_array_equal(model.leaf_counts(X_test), expected)
