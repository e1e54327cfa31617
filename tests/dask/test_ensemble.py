"""Random decision trees on a LocalCluster: parallel fit, leaf counts and combiners on dask arrays.

References: the in-memory RandomDecisionTreesClassifier (fit of each group of
trees with its seed, leaf_counts, predict_proba) and dstk.ensemble's
in-memory combiners on the whole array.
"""

import pickle

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

import dstk  # noqa: E402
from dstk.dask import (  # noqa: E402
    DaskMassFunction,
    combine_leaves,
    combine_leaves_proba,
    combine_leaves_to_mass,
    fit_random_trees,
    leaf_counts,
    predict_mass,
    predict_proba,
)
from dstk.dask._ensemble import task_seeds  # noqa: E402

ensemble = pytest.importorskip("dstk.ensemble")
RandomDecisionTreesClassifier = ensemble.RandomDecisionTreesClassifier


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.7, size=600) > 0).astype(int)
    X_test = rng.normal(size=(450, 4))
    return X, y, X_test


@pytest.fixture(scope="module")
def params():
    return {
        "n_estimators": 12,
        "min_samples_leaf": 3,
        "min_samples_split": 6,
        "random_state": 7,
        "combiner": "dempster",
    }


@pytest.fixture(scope="module")
def fitted(client, data, params):
    X, y, _ = data
    return fit_random_trees(
        RandomDecisionTreesClassifier(**params), da.from_array(X, chunks=200), y, n_tasks=3
    )


def test_parallel_fit_equals_the_groups_fitted_in_memory(fitted, data, params):
    X, y, X_test = data
    assert fitted.n_estimators == 12 and fitted.node_count_.shape == (12,)
    assert fitted.get_params()["random_state"] == 7
    groups = [
        RandomDecisionTreesClassifier(**{**params, "n_estimators": 4, "random_state": int(seed)}).fit(X, y)
        for seed in task_seeds(7, 3)
    ]
    want_counts = np.concatenate([g.leaf_counts(X_test) for g in groups], axis=1)
    np.testing.assert_array_equal(fitted.leaf_counts(X_test), want_counts)
    np.testing.assert_array_equal(fitted.node_count_, np.concatenate([g.node_count_ for g in groups]))
    np.testing.assert_array_equal(fitted.n_leaves_, np.concatenate([g.n_leaves_ for g in groups]))
    # its predictions are those of the combiners on the concatenated leaves
    np.testing.assert_array_equal(
        fitted.predict_mass(X_test).to_array(),
        ensemble.combine_leaves_to_mass(want_counts, combiner="dempster").to_array(),
    )
    np.testing.assert_array_equal(
        fitted.predict_proba(X_test), ensemble.combine_leaves_proba(want_counts, combiner="dempster")
    )
    # deterministic: same random_state and n_tasks, same trees
    again = fit_random_trees(RandomDecisionTreesClassifier(**params), X, y, n_tasks=3)
    np.testing.assert_array_equal(again.leaf_counts(X_test), want_counts)


def test_leaf_counts_and_combiners_on_chunks_equal_in_memory(client, fitted, data):
    _, _, X_test = data
    lazy = da.from_array(X_test, chunks=(100, 4))
    counts = leaf_counts(fitted, lazy)
    assert counts.shape == (450, 12, 2) and counts.dtype == np.int64 and counts.chunks[0] == lazy.chunks[0]
    in_memory = fitted.leaf_counts(X_test)
    outputs = [counts]
    expected = [in_memory]
    for method in ("probability", "laplace", "plausibility", "dempster", "cautious", "eva"):
        options = {"class_prior": fitted.class_prior_} if method == "eva" else {}
        if method == "cautious":
            options["compatibility"] = "busch2021"
        outputs += [
            combine_leaves(counts, combiner=method, **options),
            combine_leaves_proba(counts, combiner=method, **options),
        ]
        expected += [
            ensemble.combine_leaves(in_memory, combiner=method, **options),
            ensemble.combine_leaves_proba(in_memory, combiner=method, **options),
        ]
    masses = combine_leaves_to_mass(counts, combiner="dempster")
    assert isinstance(masses, DaskMassFunction) and masses.frame == dstk.Frame((0, 1))
    outputs.append(masses.array)
    expected.append(ensemble.combine_leaves_to_mass(in_memory, combiner="dempster").to_array())
    outputs += [predict_proba(fitted, lazy), predict_mass(fitted, lazy).array]
    expected += [fitted.predict_proba(X_test), fitted.predict_mass(X_test).to_array()]
    for got, want in zip(client.compute(outputs, sync=True), expected):
        np.testing.assert_array_equal(got, want)


def test_multiclass_counts(client):
    rng = np.random.default_rng(2)
    counts = rng.integers(0, 5, size=(70, 9, 3))
    lazy = da.from_array(counts, chunks=(20, 9, 3))
    got = combine_leaves(lazy, combiner="probability").compute()
    assert got.shape == (70, 3)
    np.testing.assert_array_equal(got, ensemble.combine_leaves(counts, combiner="probability"))
    masses = combine_leaves_to_mass(lazy, combiner="dempster")
    assert masses.frame == dstk.Frame((0, 1, 2))
    np.testing.assert_array_equal(
        masses.array.compute(),
        ensemble.combine_leaves_to_mass(counts, combiner="dempster").to_array(),
    )


def test_fitted_forest_pickles(fitted, data):
    _, _, X_test = data
    back = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(back.leaf_counts(X_test), fitted.leaf_counts(X_test))
    np.testing.assert_array_equal(
        back.predict_mass(X_test).to_array(), fitted.predict_mass(X_test).to_array()
    )
    np.testing.assert_array_equal(back.predict_proba(X_test), fitted.predict_proba(X_test))
    assert back.get_params() == fitted.get_params()


def test_bad_input(fitted, data, params):
    X, y, _ = data
    with pytest.raises(ValueError, match="n_tasks"):
        fit_random_trees(RandomDecisionTreesClassifier(**params), X, y, n_tasks=13)
    with pytest.raises(ValueError, match="n_estimators"):
        fit_random_trees(RandomDecisionTreesClassifier(n_estimators=0), X, y)
    split = da.zeros((10, 6, 2), chunks=(5, 3, 2), dtype=np.int64)
    with pytest.raises(ValueError, match=r"only the first .*sample.* axis may be split"):
        combine_leaves(split)
    np.testing.assert_array_equal(
        combine_leaves(split + 1, rechunk=True).compute(scheduler="synchronous"), np.full(10, 0.5)
    )
    with pytest.raises(ValueError, match=r"\(n_samples, n_trees, n_classes\)"):
        combine_leaves(da.zeros((10, 2), chunks=5))
    with pytest.raises(ValueError, match="features"):  # the estimator's own check, at the probe
        leaf_counts(fitted, da.zeros((10, 3), chunks=5))
