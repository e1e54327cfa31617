"""Focal-set form (frames of more than 16 labels) and fallback paths, checked against brute force.

References: the popcount fallback against Python's ``int.bit_count``; decisions against sums over the
focal sets written out by hand; consonant mass functions against Shafer (1976), Theorem 10.1
(Pl(A) = max_{w in A} pl({w})) and m(empty) = 1 - max pl; the inverse pignistic transform against its
defining property BetP(m) = p (Dubois, Prade & Smets 2008).
"""

import itertools

import numpy as np
import pytest

from dstk.core import _sparse
from dstk.core._decisions import admissible_actions, decide
from dstk.core._frame import Frame
from dstk.core._mass import MassFunction
from dstk.core._transforms import consonant_from_contour, inverse_pignistic

N_LABELS = 20  # above DENSE_MAX_LABELS = 16: mass functions are stored in focal-set form


def test_popcount_fallback_without_numpy_bitwise_count(monkeypatch):
    rng = np.random.default_rng(0)
    masks = rng.integers(0, 2**63, size=200, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, 200).astype(
        np.uint64
    )
    masks = np.concatenate([masks, np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64)]).reshape(4, -1)
    expected = np.array([int(x).bit_count() for x in masks.ravel()]).reshape(masks.shape)
    if hasattr(np, "bitwise_count"):
        np.testing.assert_array_equal(_sparse.popcount(masks), expected)
        monkeypatch.delattr(np, "bitwise_count")
    fallback = _sparse.popcount(masks)
    assert fallback.dtype == np.int64
    np.testing.assert_array_equal(fallback, expected)


def _random_focal_set_mass(rng, batch=6):
    frame = Frame(range(N_LABELS))
    singletons = [1 << i for i in rng.choice(N_LABELS, size=4, replace=False)]
    others = [int(x) for x in rng.integers(1, 2**N_LABELS, size=5)]
    focal = sorted(set(singletons + others + [frame.full]))
    masses = rng.dirichlet(np.ones(len(focal)), size=batch)
    return MassFunction.from_focal_sets(focal, masses, frame), focal, masses


def test_singleton_decisions_in_focal_set_form_against_brute_force():
    rng = np.random.default_rng(1)
    m, focal, masses = _random_focal_set_mass(rng)
    assert not m.is_dense
    # brute force: bel({w}) = m({w}) and pl({w}) = sum of m(A) over A containing w (normalised: no empty set)
    bel = np.zeros((masses.shape[0], N_LABELS))
    pl = np.zeros((masses.shape[0], N_LABELS))
    for j, a in enumerate(focal):
        for w in range(N_LABELS):
            if a == 1 << w:
                bel[:, w] += masses[:, j]
            if (a >> w) & 1:
                pl[:, w] += masses[:, j]
    np.testing.assert_array_equal(decide(m, criterion="belief", return_indices=True), np.argmax(bel, axis=-1))
    np.testing.assert_array_equal(
        decide(m, criterion="plausibility", return_indices=True), np.argmax(pl, axis=-1)
    )
    np.testing.assert_array_equal(
        admissible_actions(m, criterion="interval_dominance"), pl >= bel.max(axis=-1, keepdims=True)
    )


def test_lower_upper_expectations_bad_utility_matrix():
    m = MassFunction({"a": 0.6, "a,b": 0.4})
    from dstk.core._decisions import lower_upper_expectations

    with pytest.raises(ValueError, match="shape"):
        lower_upper_expectations(m, [[1.0, 0.0, 0.0]])
    with pytest.raises(ValueError, match="NaN or infinite"):
        lower_upper_expectations(m, [[1.0, np.nan]])


def test_consonant_from_contour_per_sample_orders_in_focal_set_form():
    rng = np.random.default_rng(2)
    contour = rng.random((5, N_LABELS))
    contour[:3] /= contour[:3].max(axis=-1, keepdims=True)  # normal; the last two are subnormal
    m = consonant_from_contour(contour)
    assert not m.is_dense and m.batch_shape == (5,)
    np.testing.assert_allclose(m.contour(), contour, atol=1e-12)
    np.testing.assert_allclose(m.conflict, 1.0 - contour.max(axis=-1), atol=1e-12)
    for _ in range(20):
        subset = [int(w) for w in np.flatnonzero(rng.random(N_LABELS) < 0.3)] or [0]
        np.testing.assert_allclose(m.pl(subset), contour[:, subset].max(axis=-1), atol=1e-12)
    # every sample is consonant: its focal sets are nested
    for i in range(5):
        sets = sorted((frozenset(a) for a in m.batch[i].focal_sets(1e-15) if a), key=len)
        assert all(small <= large for small, large in itertools.pairwise(sets))


def test_inverse_pignistic_per_sample_orders_in_focal_set_form():
    rng = np.random.default_rng(3)
    probabilities = rng.dirichlet(np.ones(N_LABELS), size=4)
    m = inverse_pignistic(probabilities)
    assert not m.is_dense
    np.testing.assert_allclose(m.pignistic(), probabilities, atol=1e-12)
    # the contour of the least-committed consonant mass: pl({w}) = sum_v min(p(w), p(v))
    expected = np.minimum(probabilities[:, :, None], probabilities[:, None, :]).sum(axis=-1)
    np.testing.assert_allclose(m.contour(), expected, atol=1e-12)


def test_empty_batches_on_frames_in_focal_set_form():
    """A size-0 batch on more than 16 labels gives an empty result for every rule and transform."""
    import dstk
    from dstk.core import consonant_from_contour, inverse_pignistic

    frame = dstk.Frame(range(18))
    empty = dstk.MassFunction.from_focal_sets([frame.full], np.zeros((0, 1)), frame)
    for rule in ("conjunctive", "dempster", "yager", "disjunctive", "dubois_prade", "average"):
        assert dstk.combine([empty, empty], rule=rule).batch_shape == (0,)
    assert np.shape(dstk.conflict(empty, empty)) == (0,)
    assert inverse_pignistic(np.zeros((0, 18)), frame=frame).batch_shape == (0,)
    assert consonant_from_contour(np.zeros((0, 3, 18)), frame=frame).batch_shape == (0, 3)


def test_contextual_discount_keeps_the_focal_set_form_and_agrees_with_the_dense_kernel():
    import dstk
    from dstk.core import contextual_discount

    rng = np.random.default_rng(4)
    frame = dstk.Frame(range(18))
    focal = np.unique(rng.integers(1, 1 << 18, size=6).astype(np.uint64))
    masses = rng.dirichlet(np.ones(focal.size), size=3)
    m = dstk.MassFunction.from_focal_sets(focal, masses, frame)
    assert not m.is_dense
    dense = dstk.MassFunction._dense(m._dense_m(), frame)
    for rates in (
        np.r_[0.3, 0.0, 0.7, np.zeros(15)],  # one vector for the batch
        np.where(rng.random((3, 18)) < 0.2, rng.random((3, 18)), 0.0),  # one per row, mostly zero
        np.zeros(18),
    ):
        got = contextual_discount(m, rates)
        assert not got.is_dense
        expected = contextual_discount(dense, rates).to_array()
        full = np.zeros_like(expected)
        sets, values = got._storage.used_columns()
        full[..., np.asarray(sets, dtype=np.int64)] = values
        np.testing.assert_allclose(full, expected, rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="does not broadcast"):
        contextual_discount(m, np.zeros((2, 18)))
