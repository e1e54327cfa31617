"""Combination of focal-set mass functions: dense switch, hash and sort paths, memory guard."""

import numpy as np
import pytest

from dstk import Frame, MassFunction, combine
from dstk.core import _dense
from dstk.exceptions import FrameTooLargeError


def brute_conjunctive(f1, m1, f2, m2):
    out = {}
    for a, x in zip(f1.tolist(), m1.tolist()):
        for b, y in zip(f2.tolist(), m2.tolist()):
            out[a & b] = out.get(a & b, 0.0) + x * y
    return out


def random_masses(rng, n_focal, high_bit, low_bits=None):
    if low_bits is None:
        focal = np.unique(rng.integers(1, 1 << high_bit, size=2 * n_focal, dtype=np.int64))[:n_focal]
    else:  # focal sets inside a small sub-frame: many equal intersections
        focal = rng.choice(np.arange(1, 1 << low_bits), size=n_focal, replace=False)
    return focal.astype(np.uint64), rng.dirichlet(np.ones(len(focal)))


@pytest.mark.parametrize(
    "n_labels, n_focal, low_bits",
    [
        (17, 300, None),  # dense switch (frame small enough, dense cheaper)
        (30, 200, 10),  # few distinct results: hash table
        (60, 200, None),  # mostly distinct results: radix sort of the pairs
        (64, 100, None),
    ],
)
@pytest.mark.parametrize("rule", ["conjunctive", "dempster"])
def test_matches_brute_force(n_labels, n_focal, low_bits, rule):
    rng = np.random.default_rng(n_labels + n_focal)
    frame = Frame(range(n_labels))
    f1, m1 = random_masses(rng, n_focal, min(n_labels, 62), low_bits)
    f2, m2 = random_masses(rng, n_focal, min(n_labels, 62), low_bits)
    expected = brute_conjunctive(f1, m1, f2, m2)
    if rule == "dempster":
        nonempty = sum(v for k, v in expected.items() if k)
        expected = {k: v / nonempty for k, v in expected.items() if k}
    a = MassFunction.from_focal_sets(f1, m1, frame)
    b = MassFunction.from_focal_sets(f2, m2, frame)
    result = combine([a, b], rule=rule)
    assert not result.is_dense
    masks, masses = result._nonzero()
    got = dict(zip((int(x) for x in masks), masses.tolist()))
    for mask, value in expected.items():
        assert abs(got.pop(mask, 0.0) - value) < 1e-14
    assert all(abs(v) < 1e-14 for v in got.values())


def test_batched_focal_sets_match_rows():
    rng = np.random.default_rng(3)
    frame = Frame(range(40))
    f1, _ = random_masses(rng, 50, 40)
    f2, _ = random_masses(rng, 60, 40)
    m1 = rng.dirichlet(np.ones(f1.size), size=5)
    m2 = rng.dirichlet(np.ones(f2.size), size=5)
    batch = combine(
        [MassFunction.from_focal_sets(f1, m1, frame), MassFunction.from_focal_sets(f2, m2, frame)]
    )
    for i in range(5):
        row = combine(
            [MassFunction.from_focal_sets(f1, m1[i], frame), MassFunction.from_focal_sets(f2, m2[i], frame)]
        )
        assert batch.batch[i].allclose(row, atol=1e-15)


def test_memory_guard_raises_before_allocating(monkeypatch):
    rng = np.random.default_rng(0)
    frame = Frame(range(60))
    f1, m1 = random_masses(rng, 1000, 60)
    f2, m2 = random_masses(rng, 1000, 60)
    monkeypatch.setattr(_dense, "MAX_DENSE_BYTES", 1 << 20)
    a = MassFunction.from_focal_sets(f1, m1, frame)
    b = MassFunction.from_focal_sets(f2, m2, frame)
    with pytest.raises(FrameTooLargeError, match="distinct focal sets"):
        combine([a, b], rule="conjunctive")
