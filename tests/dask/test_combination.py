"""dstk.dask.combine on a LocalCluster against the in-memory dstk.combine.

References: the in-memory :func:`dstk.combine` (itself tested against brute
force in tests/core) for the same floats, and the brute-force definitions of
tests/core/reference.py (sums over pairs of subsets) on a few rows.
"""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

import dstk  # noqa: E402
from dstk import MassFunction  # noqa: E402
from dstk.dask import TREE_RULES, TREE_TOLERANCE, DaskMassFunction, combine, combine_with_conflict  # noqa: E402
from dstk.exceptions import (  # noqa: E402
    DogmaticError,
    FrameMismatchError,
    InvalidMassError,
    TotalConflictError,
)
from tests.core import reference as ref  # noqa: E402

ALL_RULES = sorted(dstk.RULES)


def random_masses(rng, shape, n_labels, *, positive_frame=True, positive_empty=False, zeros=0.3):
    """Random dense masses of shape ``shape + (2**n,)`` with some zero masses."""
    size = 2**n_labels
    values = rng.gamma(0.7, size=shape + (size,))
    values[rng.random(values.shape) < zeros] = 0.0
    values[..., 0] = rng.gamma(0.7, size=shape) if positive_empty else 0.0
    if positive_frame:
        values[..., size - 1] += 0.05
    return values / values.sum(axis=-1, keepdims=True)


def in_memory(values, frame, rule, axis, **options):
    out, kappa = dstk.combine_with_conflict(
        MassFunction.from_array(values, frame), rule=rule, axis=axis, **options
    )
    return out.to_array("m"), np.asarray(kappa)


def inputs_for(rule, rng, shape, n_labels):
    if rule == "bold":
        return random_masses(rng, shape, n_labels, positive_empty=True)
    return random_masses(rng, shape, n_labels)


@pytest.mark.parametrize("rule", ALL_RULES)
def test_blockwise_gives_the_same_floats_as_in_memory(client, rule):
    rng = np.random.default_rng(1)
    frame = dstk.Frame(("a", "b", "c"))
    n_sources = 3 if rule == "pcr6" else 5
    values = inputs_for(rule, rng, (50, n_sources), 3)
    lazy = DaskMassFunction(da.from_array(values, chunks=(7, n_sources, 8)), frame)
    fused, kappa = combine_with_conflict(lazy, rule=rule, axis=1)
    assert isinstance(fused, DaskMassFunction) and fused.chunks == ((7,) * 7 + (1,),)
    got, got_kappa = client.compute([fused.array, kappa], sync=True)
    want, want_kappa = in_memory(values, frame, rule, 1)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_kappa, want_kappa)


@pytest.mark.parametrize("rule", ALL_RULES)
def test_rechunk_method_gives_the_same_floats_for_split_sources(client, rule):
    rng = np.random.default_rng(2)
    frame = dstk.Frame((0, 1, 2))
    n_sources = 4 if rule == "pcr6" else 9
    values = inputs_for(rule, rng, (40, n_sources), 3)
    lazy = DaskMassFunction(da.from_array(values, chunks=(16, 2, 8)), frame)
    fused, kappa = combine_with_conflict(lazy, rule=rule, axis=1, reduction="rechunk")
    got, got_kappa = client.compute([fused.array, kappa], sync=True)
    want, want_kappa = in_memory(values, frame, rule, 1)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_kappa, want_kappa)


@pytest.mark.parametrize("rule", sorted(TREE_RULES))
@pytest.mark.parametrize("n_sources,source_chunk", [(5, 1), (40, 7), (70, 16)])
def test_tree_reduction_across_source_chunks(client, rule, n_sources, source_chunk):
    """Tree states agree with the in-memory fold: exactly for cautious/bold, within 1e-12 else.

    70 sources cross several rescalings of Dempster's commonality product.
    """
    rng = np.random.default_rng(n_sources)
    frame = dstk.Frame(("a", "b", "c"))
    values = inputs_for(rule, rng, (30, n_sources), 3)
    lazy = DaskMassFunction(da.from_array(values, chunks=(8, source_chunk, 8)), frame)
    fused, kappa = combine_with_conflict(lazy, rule=rule, axis=1, split_every=3)
    got, got_kappa = client.compute([fused.array, kappa], sync=True)
    want, want_kappa = in_memory(values, frame, rule, 1)
    if rule in ("cautious", "bold"):
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got_kappa, want_kappa)
    else:
        np.testing.assert_allclose(got, want, rtol=0, atol=TREE_TOLERANCE)
        np.testing.assert_allclose(got_kappa, want_kappa, rtol=0, atol=TREE_TOLERANCE)
    np.testing.assert_allclose(got.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


def test_tree_dempster_many_sources_stays_exact(client):
    """200 weak sources: the unrescaled product would underflow; rescaled tree states do not."""
    rng = np.random.default_rng(3)
    frame = dstk.Frame(("a", "b"))
    values = np.zeros((6, 200, 4))
    values[..., 1] = rng.uniform(0.0, 0.9, size=(6, 200))
    values[..., 2] = rng.uniform(0.0, 0.05, size=(6, 200)) * (1 - values[..., 1])
    values[..., 3] = 1 - values[..., 1] - values[..., 2]
    lazy = DaskMassFunction(da.from_array(values, chunks=(3, 25, 4)), frame)
    fused = combine(lazy, rule="dempster", axis=1, split_every=2)
    got = fused.array.compute()
    want, _ = in_memory(values, frame, "dempster", 1)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, want, rtol=0, atol=TREE_TOLERANCE)


def test_against_brute_force_definitions(client):
    """A few rows against the definitions (sums over pairs of subsets) of tests/core/reference."""
    rng = np.random.default_rng(4)
    frame = dstk.Frame(("a", "b", "c"))
    values = random_masses(rng, (4, 6), 3)
    lazy = DaskMassFunction(da.from_array(values, chunks=(2, 2, 8)), frame)

    def yager(*ms):
        out = ref.yager(*ms)
        out[0] = 0.0  # the reference moves m(empty) to the frame and leaves the copy
        return out

    for rule, reference in [
        ("conjunctive", ref.conjunctive),
        ("dempster", lambda *ms: ref.dempster(*ms)[0]),
        ("disjunctive", ref.disjunctive),
        ("yager", yager),
        ("cautious", ref.cautious),
    ]:
        got = combine(lazy, rule=rule, axis=1).array.compute()
        for row in range(4):
            want = np.asarray(reference(*values[row]), dtype=float)
            np.testing.assert_allclose(got[row], want, rtol=0, atol=1e-12, err_msg=rule)


def test_sources_as_separate_arrays_and_broadcasting(client):
    rng = np.random.default_rng(5)
    frame = dstk.Frame(("x", "y"))
    rasters = [random_masses(rng, (12, 10), 2) for _ in range(3)]
    prior = random_masses(rng, (), 2)  # one mass function broadcast over the raster
    lazy = [DaskMassFunction(da.from_array(r, chunks=(5, 4, 4)), frame) for r in rasters]
    lazy.append(DaskMassFunction(da.from_array(prior[None, None], chunks=(1, 1, 4)), frame))
    for method, check in [
        ("rechunk", np.testing.assert_array_equal),
        ("tree", lambda a, b: np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)),
    ]:
        fused = combine(lazy, rule="dempster", reduction=method)
        assert fused.batch_shape == (12, 10)
        want = dstk.combine(
            [MassFunction.from_array(r, frame) for r in rasters] + [MassFunction.from_array(prior, frame)],
            rule="dempster",
        ).to_array("m")
        check(fused.array.compute(), want)
    # DaskMassFunction.combine is the same call
    np.testing.assert_array_equal(
        combine([lazy[0], lazy[1]], rule="conjunctive").array.compute(),
        dstk.combine([MassFunction.from_array(r, frame) for r in rasters[:2]], rule="conjunctive").to_array(),
    )


def test_plain_arrays_with_frame_and_other_axes(client):
    rng = np.random.default_rng(6)
    values = random_masses(rng, (3, 8, 5), 2)
    arr = da.from_array(values, chunks=(1, 3, 2, 4))
    fused = combine(arr, rule="conjunctive", axis=-2, frame=(0, 1))
    assert fused.chunks == ((1, 1, 1), (2, 2, 1))  # the source axis (8 in chunks of 3) is reduced
    want, _ = in_memory(values, dstk.Frame((0, 1)), "conjunctive", 1)
    np.testing.assert_allclose(fused.array.compute(), want, rtol=0, atol=TREE_TOLERANCE)
    fused0 = combine(arr, rule="cautious", axis=0, frame=(0, 1))
    want0, _ = in_memory(values, dstk.Frame((0, 1)), "cautious", 0)
    np.testing.assert_array_equal(fused0.array.compute(), want0)


# -- bad input ---------------------------------------------------------------
def test_split_mass_axis_raises_or_rechunks():
    values = np.full((4, 8), 1 / 8)
    split = da.from_array(values, chunks=(2, 4))
    with pytest.raises(ValueError, match=r"last axis .* split into chunks .*rechunk"):
        DaskMassFunction(split, frame="abc")
    fixed = DaskMassFunction(split, frame="abc", rechunk=True)
    assert fixed.array.chunks[-1] == (8,)
    np.testing.assert_array_equal(fixed.array.compute(scheduler="synchronous"), values)
    with pytest.raises(ValueError, match="split into chunks"):
        combine(split, axis=0, frame="abc")


def test_wrong_last_axis_and_bad_masses():
    with pytest.raises(ValueError, match=r"2\*\*n = 4 entries"):
        DaskMassFunction(da.ones((3, 8), chunks=2), frame=(0, 1))
    bad = DaskMassFunction(da.from_array(np.full((4, 4), 0.3), chunks=(2, 4)), frame=(0, 1))
    with pytest.raises(InvalidMassError, match="sum to"):
        bad.array.compute(scheduler="synchronous")


def test_different_frames_raise_immediately():
    a = DaskMassFunction(np.tile([0, 0.5, 0.5, 0], (4, 1)), frame=("a", "b"))
    b = DaskMassFunction(np.tile([0, 0.5, 0.5, 0], (4, 1)), frame=("a", "c"))
    with pytest.raises(FrameMismatchError, match="different frames"):
        combine([a, b])
    with pytest.raises(FrameMismatchError):
        combine(a, axis=0, frame=("a", "c"))


def test_bad_rule_method_axis():
    m = DaskMassFunction(np.tile([0, 0.5, 0.2, 0.3], (4, 3, 1)), frame=(0, 1))
    with pytest.raises(ValueError, match="Unknown rule"):
        combine(m, rule="nope", axis=1)
    with pytest.raises(ValueError, match="`reduction` must be one of"):
        combine(m, axis=1, reduction="magic")
    with pytest.raises(ValueError, match="needs `axis`"):
        combine(m)
    with pytest.raises(ValueError, match="out of bounds"):
        combine(m, axis=2)
    with pytest.raises(ValueError, match="not associative"):
        combine(m, rule="pcr6", axis=1, reduction="tree")
    split = DaskMassFunction(da.from_array(np.tile([0, 0.5, 0.2, 0.3], (4, 3, 1)), chunks=(2, 1, 4)), (0, 1))
    with pytest.raises(ValueError, match=r"blockwise.*one chunk"):
        combine(split, axis=1, reduction="blockwise")
    with pytest.raises(ValueError, match="one entry per source"):
        combine(m, rule="average", axis=1, weights=[1, 2])


def test_errors_of_the_rules_surface_at_compute(client):
    frame = dstk.Frame((0, 1))
    conflict = np.zeros((4, 4, 4))
    conflict[:, :2, 1] = 1.0  # {0} for sources 0, 1
    conflict[:, 2:, 2] = 1.0  # {1} for sources 2, 3
    lazy = DaskMassFunction(da.from_array(conflict, chunks=(2, 2, 4)), frame)
    for method in ("tree", "rechunk"):
        fused = combine(lazy, rule="dempster", axis=1, reduction=method)
        with pytest.raises(TotalConflictError, match="total conflict"):
            client.compute(fused.array, sync=True)
    with pytest.raises(DogmaticError, match="non-dogmatic"):
        combine(lazy, rule="cautious", axis=1, reduction="tree").array.compute()
    with pytest.raises(DogmaticError, match="subnormal"):
        combine(lazy, rule="bold", axis=1, reduction="tree").array.compute()


def _with_conflicting_rows(rng, n_samples, n_sources, n_labels, bad_rows):
    """Random masses where the samples ``bad_rows`` are totally conflicting (two categorical sources)."""
    values = random_masses(rng, (n_samples, n_sources), n_labels)
    size = 2**n_labels
    for row in bad_rows:
        values[row] = 0.0
        values[row, :, size - 1] = 1.0  # vacuous sources, then two certain and disjoint ones
        values[row, 0, :] = 0.0
        values[row, 0, 1] = 1.0  # {label 0}
        values[row, -1, :] = 0.0
        values[row, -1, 2] = 1.0  # {label 1}
    return values


@pytest.mark.parametrize("on_conflict", ["vacuous", "nan"])
@pytest.mark.parametrize("sources_chunk", [None, 2])
def test_on_conflict_per_sample_matches_in_memory(client, on_conflict, sources_chunk):
    """A batch with totally conflicting rows: the same floats as dstk.combine with the same policy."""
    rng = np.random.default_rng(7)
    frame = dstk.Frame(("a", "b", "c"))
    bad_rows = [0, 3, 17, 18, 29]
    values = _with_conflicting_rows(rng, 30, 4, 3, bad_rows)
    chunks = (7, 4 if sources_chunk is None else sources_chunk, 8)
    lazy = DaskMassFunction(da.from_array(values, chunks=chunks), frame)
    with pytest.warns(dstk.exceptions.ConflictWarning, match="Total conflict"):
        expected, expected_kappa = in_memory(values, frame, "dempster", 1, on_conflict=on_conflict)
    fused, kappa = combine_with_conflict(lazy, rule="dempster", axis=1, on_conflict=on_conflict)
    got = client.compute(fused.array, sync=True)
    got_kappa = client.compute(kappa, sync=True)
    np.testing.assert_array_equal(got, expected)  # NaN rows equal NaN rows
    np.testing.assert_array_equal(got_kappa, expected_kappa)
    np.testing.assert_array_equal(got_kappa[bad_rows], 1.0)
    good = np.setdiff1d(np.arange(30), bad_rows)
    assert np.all(np.isfinite(got[good])) and np.all(got_kappa[good] < 1)
    fill = np.zeros(8)
    fill[-1] = 1.0
    np.testing.assert_array_equal(
        got[bad_rows], np.full((5, 8), np.nan) if on_conflict == "nan" else np.tile(fill, (5, 1))
    )
    # the good rows do not depend on the policy or on the bad rows: combined alone, raising on nothing
    alone = dstk.combine(MassFunction.from_array(values[good], frame), axis=1).to_array("m")
    np.testing.assert_array_equal(got[good], alone)
    plain = combine(lazy, rule="dempster", axis=1, on_conflict=on_conflict)
    np.testing.assert_array_equal(client.compute(plain.array, sync=True), got)


def test_on_conflict_of_separate_sources(client):
    rng = np.random.default_rng(8)
    frame = dstk.Frame(("a", "b"))
    values = _with_conflicting_rows(rng, 12, 3, 2, [2, 5])
    sources = [DaskMassFunction(da.from_array(values[:, k], chunks=(5, 4)), frame) for k in range(3)]
    with pytest.warns(dstk.exceptions.ConflictWarning):
        expected = dstk.combine(
            [MassFunction.from_array(values[:, k], frame) for k in range(3)], on_conflict="vacuous"
        ).to_array("m")
    got = client.compute(combine(sources, on_conflict="vacuous").array, sync=True)
    np.testing.assert_array_equal(got, expected)


def test_on_conflict_options_are_checked_at_once():
    frame = dstk.Frame((0, 1))
    lazy = DaskMassFunction(da.from_array(np.tile([0, 0.5, 0.2, 0.3], (4, 3, 1)), chunks=(2, 1, 4)), frame)
    with pytest.raises(ValueError, match="on_conflict"):
        combine(lazy, axis=1, on_conflict="ignore")
    with pytest.raises(ValueError, match="reduction='rechunk'"):
        combine(lazy, axis=1, on_conflict="vacuous", reduction="tree")
    # the conjunctive rule never meets total conflict: a tree is fine with any policy
    combine(lazy, rule="conjunctive", axis=1, on_conflict="vacuous", reduction="tree")
