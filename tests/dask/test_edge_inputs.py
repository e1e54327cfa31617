"""Edge inputs of dstk.dask: weighted averages, merged states that lost their masses, class names, unknown chunks."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import dstk  # noqa: E402
import dstk.dask as dd  # noqa: E402
from dstk.exceptions import TotalConflictError  # noqa: E402


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.mark.parametrize("reduction", ["blockwise", "rechunk", "auto"])
def test_weighted_average_gives_the_in_memory_floats(reduction):
    """The weights reach the in-memory rule as given (normalising them twice moved masses by an ulp)."""
    rng = np.random.default_rng(0)
    masses = rng.dirichlet(np.ones(4), size=(5, 3))
    weights = [0.7, 0.4, 0.1]
    expected = dstk.combine(
        dstk.MassFunction.from_array(masses, (0, 1)), rule="average", axis=1, weights=weights
    )
    chunks = (2, 1, 4) if reduction == "rechunk" else (2, 3, 4)
    got = dd.combine(
        da.from_array(masses, chunks=chunks),
        frame=(0, 1),
        rule="average",
        axis=1,
        weights=weights,
        reduction=reduction,
    )
    np.testing.assert_array_equal(got.array.compute(), expected.to_array())


def test_a_tree_merge_in_total_conflict_points_to_the_rechunk_reduction():
    """Masses of 1e-400 are lost in each chunk's float64 state; the merge then finds total conflict, and the
    error says that reduction='rechunk' combines the sources of a sample in one task, as in memory."""
    tiny = 1e-200
    a, b = [0, 1 - 2 * tiny, tiny, tiny], [0, tiny, 1 - 2 * tiny, tiny]
    masses = np.array([[a, a, b, b]])
    expected = dstk.combine(dstk.MassFunction.from_array(masses, "ab"), rule="dempster", axis=1).to_array()
    source = dd.as_dask_mass(da.from_array(masses, chunks=(1, 2, 4)), frame="ab")
    with pytest.raises(TotalConflictError, match="reduction='rechunk'"):
        dd.combine(source, rule="dempster", axis=1).array.compute()
    got = dd.combine(source, rule="dempster", axis=1, reduction="rechunk").array.compute()
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_combine_leaves_to_mass_puts_the_class_names_on_the_frame():
    counts = np.array([[[0, 3], [1, 2], [4, 0]], [[2, 2], [0, 1], [3, 1]]])
    expected = dstk.ensemble.combine_leaves_to_mass(counts, classes=["neg", "pos"])
    got = dd.combine_leaves_to_mass(da.from_array(counts, chunks=(1, 3, 2)), classes=["neg", "pos"])
    assert got.frame == expected.frame == dstk.Frame(["neg", "pos"])
    np.testing.assert_array_equal(got.pl({"pos"}).compute(), expected.pl({"pos"}))
    with pytest.raises(ValueError, match="`classes` names 3 classes"):
        dd.combine_leaves_to_mass(da.from_array(counts, chunks=(1, 3, 2)), classes=["a", "b", "c"])


def test_estimators_take_arrays_of_unknown_chunk_sizes():
    """After boolean filtering the chunk sizes are unknown (NaN): the first chunk holding a sample is probed."""
    from dstk.calibration import BinningCalibrator
    from dstk.ensemble import RandomDecisionTreesClassifier

    rng = np.random.default_rng(0)
    scores = rng.normal(size=200)
    labels = (scores + rng.normal(size=200) > 0).astype(int)
    calibrator = BinningCalibrator(bins=5).fit(scores, labels)
    grid = np.linspace(-2, 2, 10)
    filtered = da.from_array(grid, chunks=5)
    filtered = filtered[filtered > 0.5]  # the first chunk is empty
    assert np.isnan(filtered.shape[0])
    kept = grid[grid > 0.5]
    np.testing.assert_array_equal(
        dd.predict_proba(calibrator, filtered).compute(), calibrator.predict_proba(kept)
    )
    np.testing.assert_array_equal(
        dd.predict_mass(calibrator, filtered).array.compute(), calibrator.predict_mass(kept).to_array()
    )
    low, high = dd.predict_interval(calibrator, filtered)
    expected_low, expected_high = calibrator.predict_interval(kept)
    np.testing.assert_array_equal(low.compute(), expected_low)
    np.testing.assert_array_equal(high.compute(), expected_high)
    with pytest.raises(ValueError, match="no samples"):
        dd.predict_proba(calibrator, filtered[filtered > 100])

    X = rng.normal(size=(100, 3))
    model = RandomDecisionTreesClassifier(5, random_state=0).fit(X, (X[:, 0] > 0).astype(int))
    lazy = da.from_array(X, chunks=(50, 3))
    lazy = lazy[lazy[:, 0] > -1]
    np.testing.assert_array_equal(dd.leaf_counts(model, lazy).compute(), model.leaf_counts(X[X[:, 0] > -1]))
