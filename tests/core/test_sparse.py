"""Focal-set form (frames of more than 16 labels) against dict-based brute force."""

import itertools

import numpy as np
import pytest

from dstk import Frame, MassFunction, combine, combine_with_conflict, jousselme_distance
from dstk.exceptions import FrameTooLargeError, TotalConflictError


def _random_sparse(rng, n, F):
    masks = set()
    while len(masks) < F:
        bits = rng.random(n) < rng.uniform(0.2, 0.9)
        mask = sum(1 << i for i in range(n) if bits[i])
        if mask:
            masks.add(mask)
    masks = sorted(masks)
    w = rng.random(F)
    return masks, w / w.sum()


def _dict_combine(d1, d2, op):
    out = {}
    for (a, x), (b, y) in itertools.product(d1.items(), d2.items()):
        c = op(a, b)
        out[c] = out.get(c, 0.0) + x * y
    return out


def _as_dict(mf):
    return {int(a): float(v) for a, v in zip(*mf._focal_form()) if v > 0}


@pytest.mark.parametrize("n", [17, 30, 60, 64])
def test_sparse_rules_match_dict_reference(n):
    rng = np.random.default_rng(n)
    frame = Frame(range(n))
    f1, w1 = _random_sparse(rng, n, 12)
    f2, w2 = _random_sparse(rng, n, 9)
    m1 = MassFunction.from_focal_sets(f1, w1, frame)
    m2 = MassFunction.from_focal_sets(f2, w2, frame)
    assert not m1.is_dense
    d1, d2 = dict(zip(f1, w1)), dict(zip(f2, w2))
    conj = _dict_combine(d1, d2, lambda a, b: a & b)
    got = _as_dict(combine([m1, m2], rule="conjunctive"))
    assert got.keys() == {k for k, v in conj.items() if v > 0}
    for k in got:
        assert got[k] == pytest.approx(conj[k], abs=1e-14)
    disj = _dict_combine(d1, d2, lambda a, b: a | b)
    got = _as_dict(combine([m1, m2], rule="disjunctive"))
    for k in disj:
        assert got[k] == pytest.approx(disj[k], abs=1e-14)
    k_conf = conj.get(0, 0.0)
    if k_conf < 1:
        got, kappa = combine_with_conflict([m1, m2], rule="dempster")
        got = _as_dict(got)
        assert kappa == pytest.approx(k_conf, abs=1e-12)
        for k, v in conj.items():
            if k:
                assert got[k] == pytest.approx(v / (1 - k_conf), rel=1e-9)
    # queries by definition
    for a in f1[:3] + f2[:3]:
        labels = frame.labels_of(a)
        assert m1.bel(labels) == pytest.approx(sum(v for b, v in d1.items() if b & ~a == 0 and b), abs=1e-14)
        assert m1.pl(labels) == pytest.approx(sum(v for b, v in d1.items() if b & a), abs=1e-14)
        assert m1.q(labels) == pytest.approx(sum(v for b, v in d1.items() if b & a == a), abs=1e-14)
    # pignistic by definition
    bet = np.zeros(n)
    for a, v in d1.items():
        members = [i for i in range(n) if a >> i & 1]
        for i in members:
            bet[i] += v / len(members)
    np.testing.assert_allclose(m1.pignistic(), bet, atol=1e-14)
    assert jousselme_distance(m1, m1) == pytest.approx(0, abs=1e-7)


def test_sparse_batch_and_small_frame_consistency():
    """The same mass functions in focal-set form (frame of 20) and dense form (frame of 4)."""
    rng = np.random.default_rng(0)
    small = Frame(range(4))
    big = Frame(range(20))
    arr = rng.random((3, 2, 16)) ** 3
    arr /= arr.sum(-1, keepdims=True)
    focal = np.arange(16)
    dense = MassFunction.from_array(arr, small)
    sparse = MassFunction.from_focal_sets(focal, arr, big)
    for rule in ["conjunctive", "dempster", "disjunctive", "yager", "average"]:
        a = combine(dense, rule=rule, axis=1).to_array()
        b = combine(sparse, rule=rule, axis=1)
        full = np.zeros((3, 16))
        idx, fm = b._focal_form()
        idx = idx.astype(np.int64)
        if rule == "yager":  # the conflict goes to the (larger) frame: compare it separately
            top = idx == big.full
            np.testing.assert_allclose(fm[:, top].sum(1) + fm[:, idx == 15].sum(1), a[:, 15], atol=1e-12)
            a = a.copy()
            a[:, 15] = 0
            keep = ~top & (idx != 15)
            idx, fm = idx[keep], fm[:, keep]
        assert idx.max() < 16
        full[:, idx] = fm
        np.testing.assert_allclose(full, a, atol=1e-12, err_msg=rule)
    np.testing.assert_allclose(sparse.pignistic()[..., :4], dense.pignistic(), atol=1e-14)
    np.testing.assert_allclose(
        sparse.discount(0.2).normalize().pl({0, 1}), dense.discount(0.2).normalize().pl({0, 1}), atol=1e-14
    )


def test_sparse_errors():
    frame = Frame(range(40))
    a = MassFunction.from_focal_sets([1], [1.0], frame)
    b = MassFunction.from_focal_sets([2], [1.0], frame)
    with pytest.raises(TotalConflictError):
        combine([a, b])
    with pytest.raises(FrameTooLargeError, match="focal-set form"):
        combine([a.discount(0.1), b.discount(0.1)], rule="cautious")
    with pytest.raises(FrameTooLargeError):
        a.to_array("q")


def test_mapping_constructor_uses_focal_form_for_large_frames():
    labels = [f"h{i}" for i in range(30)]
    m = MassFunction({"h0": 0.5, "h1,h2": 0.3, tuple(labels): 0.2}, frame=labels)
    assert not m.is_dense
    assert m.pl("h2") == pytest.approx(0.5)
    assert m.bel(["h0", "h1", "h2"]) == pytest.approx(0.8)
    assert "h1,h2" in repr(m)
