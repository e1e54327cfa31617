"""The wide focal-set form (frames of more than 64 labels) against a brute force on frozensets."""

from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk.core import _wide
from dstk.exceptions import FrameTooLargeError, TotalConflictError


# -- the reference: mass functions as {frozenset of label indices: mass}, from the definitions ----------
def ref_combine(m1, m2, op):
    out = defaultdict(float)
    for b, x in m1.items():
        for c, y in m2.items():
            out[op(b, c)] += x * y
    return dict(out)


def ref_dempster(m1, m2):
    conj = ref_combine(m1, m2, frozenset.__and__)
    k = conj.pop(frozenset(), 0.0)
    return {a: v / (1.0 - k) for a, v in conj.items()}


def ref_bel(m, a):
    return sum(v for b, v in m.items() if b and b <= a)


def ref_pl(m, a):
    return sum(v for b, v in m.items() if b & a)


def ref_q(m, a):
    return sum(v for b, v in m.items() if a <= b)


def ref_betp(m, n):
    k = m.get(frozenset(), 0.0)
    out = np.zeros(n)
    for b, v in m.items():
        for i in b:
            out[i] += v / len(b) / (1.0 - k)
    return out


def random_mass(rng, n, n_focal, p_member=0.5, allow_empty=False):
    sets = set()
    while len(sets) < n_focal:
        s = frozenset(np.flatnonzero(rng.random(n) < rng.uniform(0.02, p_member)).tolist())
        if s or allow_empty:
            sets.add(s)
    w = rng.random(n_focal)
    return dict(zip(sorted(sets, key=sorted), w / w.sum()))


def to_wide(m, n):
    keys = list(m)
    return _wide.pack(keys, n), np.array([m[k] for k in keys])


def from_wide(focal, masses, n):
    return {frozenset(s): float(v) for s, v in zip(_wide.unpack(focal, n), masses)}


def assert_same(got, want, atol=1e-12):
    keys = set(got) | set(want)
    for k in keys:
        assert abs(got.get(k, 0.0) - want.get(k, 0.0)) <= atol, (sorted(k), got.get(k), want.get(k))


NS = [65, 128, 129, 300]


@pytest.fixture(params=["numpy", "kernel"])
def pair_path(request, monkeypatch):
    """Combine through numpy's table of pairs or through the compiled kernel, whatever the size."""
    monkeypatch.setattr(_wide, "KERNEL_MIN_PAIRS", 0 if request.param == "kernel" else 2**62)
    return request.param


@pytest.mark.parametrize("n", NS)
def test_pack_unpack_round_trip(n):
    rng = np.random.default_rng(n)
    m = random_mass(rng, n, 20, allow_empty=True)
    focal, masses = to_wide(m, n)
    assert focal.shape == (20, (n + 63) // 64)
    assert from_wide(focal, masses, n) == m
    assert np.array_equal(_wide.cardinality(focal), [len(k) for k in m])


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("rule", _wide.RULES)
def test_combination_matches_frozensets(n, rule, pair_path):
    rng = np.random.default_rng(1000 + n)
    # small focal sets collide often (the merge of equal results is exercised), large ones overlap
    m1 = random_mass(rng, n, 30, p_member=0.9)
    m2 = random_mass(rng, n, 25, p_member=0.9)
    f, v = _wide.combine(*to_wide(m1, n), *to_wide(m2, n), rule)
    if rule == "conjunctive":
        want = ref_combine(m1, m2, frozenset.__and__)
    elif rule == "disjunctive":
        want = ref_combine(m1, m2, frozenset.__or__)
    else:
        want = ref_dempster(m1, m2)
    assert len({tuple(r) for r in f.tolist()}) == f.shape[0]  # no repeated focal set
    assert_same(from_wide(f, v, n), want)


def test_combination_of_batches_broadcasts(pair_path):
    n = 100
    rng = np.random.default_rng(7)
    m1 = random_mass(rng, n, 8, p_member=0.95)
    m2 = random_mass(rng, n, 6, p_member=0.95)
    f1, v1 = to_wide(m1, n)
    f2, _ = to_wide(m2, n)
    w = rng.random((3, 6))
    w /= w.sum(axis=1, keepdims=True)
    f, batch = _wide.combine(f1, v1, f2, w, "dempster")
    assert batch.shape == (3, f.shape[0])
    for row in range(3):
        m2_row = dict(zip(m2, w[row]))
        assert_same(from_wide(f, batch[row], n), ref_dempster(m1, m2_row))


@pytest.mark.parametrize("n", NS)
def test_bel_pl_q_pignistic_contour(n):
    rng = np.random.default_rng(2000 + n)
    m = random_mass(rng, n, 40, allow_empty=True)
    focal, masses = to_wide(m, n)
    queries = [frozenset(np.flatnonzero(rng.random(n) < p).tolist()) for p in (0.1, 0.5, 0.9, 1.0)]
    queries += list(m)[:3]
    packed = _wide.pack(queries, n)
    assert np.allclose(_wide.belief(focal, masses, packed), [ref_bel(m, a) for a in queries], atol=1e-12)
    assert np.allclose(_wide.plausibility(focal, masses, packed), [ref_pl(m, a) for a in queries], atol=1e-12)
    assert np.allclose(_wide.commonality(focal, masses, packed), [ref_q(m, a) for a in queries], atol=1e-12)
    assert np.allclose(_wide.pignistic(focal, masses, n), ref_betp(m, n), atol=1e-12)
    contour = [ref_pl(m, frozenset([i])) for i in range(n)]
    assert np.allclose(_wide.contour(focal, masses, n), contour, atol=1e-12)


@pytest.mark.parametrize("n", NS)
def test_discount_and_condition(n):
    rng = np.random.default_rng(3000 + n)
    m = random_mass(rng, n, 30)
    focal, masses = to_wide(m, n)
    omega = frozenset(range(n))
    want = defaultdict(float, {a: 0.7 * v for a, v in m.items()})
    want[omega] += 0.3
    assert_same(from_wide(*_wide.discount(focal, masses, 0.3, n), n), dict(want))
    a = frozenset(np.flatnonzero(rng.random(n) < 0.6).tolist())
    assert_same(
        from_wide(*_wide.condition(focal, masses, _wide.pack([a], n)[0]), n), ref_dempster(m, {a: 1.0})
    )


def test_total_conflict_and_memory_cap():
    n = 70
    f1 = _wide.pack([[0]], n)
    f2 = _wide.pack([[69]], n)
    with pytest.raises(TotalConflictError):
        _wide.combine(f1, [1.0], f2, [1.0], "dempster")
    # 2 x 10^5 focal sets each: 4 * 10^10 pairs, refused before any allocation
    big = np.broadcast_to(f1, (200_000, f1.shape[1]))
    with pytest.raises(FrameTooLargeError):
        _wide.combine(big, np.zeros(200_000), big, np.zeros(200_000), "conjunctive")


def test_ten_thousand_labels(pair_path):
    n = 10_000
    rng = np.random.default_rng(5)
    m1 = random_mass(rng, n, 5, p_member=0.3)
    m2 = random_mass(rng, n, 5, p_member=0.3)
    f, v = _wide.combine(*to_wide(m1, n), *to_wide(m2, n), "dempster")
    assert f.shape[1] == 157
    assert_same(from_wide(f, v, n), ref_dempster(m1, m2))


masses_on_wide = st.integers(0, 2**31 - 1).map(np.random.default_rng)


@settings(max_examples=25, deadline=None)
@given(masses_on_wide, st.sampled_from([65, 130]))
def test_conjunctive_laws(rng, n):
    # commutative, associative, the vacuous mass function is neutral (Smets 1990)
    m1, m2, m3 = (random_mass(rng, n, 4, p_member=0.9) for _ in range(3))
    a, b, c = (to_wide(m, n) for m in (m1, m2, m3))
    ab = _wide.combine(*a, *b, "conjunctive")
    ba = _wide.combine(*b, *a, "conjunctive")
    assert_same(from_wide(*ab, n), from_wide(*ba, n))
    left = _wide.combine(*ab, *c, "conjunctive")
    right = _wide.combine(*a, *_wide.combine(*b, *c, "conjunctive"), "conjunctive")
    assert_same(from_wide(*left, n), from_wide(*right, n))
    vacuous = (_wide.pack([range(n)], n), np.ones(1))
    assert_same(from_wide(*_wide.combine(*a, *vacuous, "conjunctive"), n), m1)
    # the disjunctive rule: the dual law with the mass on the empty set as neutral element
    empty = (_wide.pack([[]], n), np.ones(1))
    assert_same(from_wide(*_wide.combine(*a, *empty, "disjunctive"), n), m1)


@pytest.mark.parametrize("n", [200, 1000])
def test_combination_matches_pyds(n, pair_path):
    # pyds (py-dempster-shafer): an established implementation on Python frozensets, side by side
    pyds = pytest.importorskip("pyds")
    rng = np.random.default_rng(4000 + n)
    m1 = random_mass(rng, n, 40, p_member=0.97)
    m2 = random_mass(rng, n, 30, p_member=0.97)
    p1 = pyds.MassFunction(dict(m1))
    p2 = pyds.MassFunction(dict(m2))
    cases = {
        "conjunctive": p1.combine_conjunctive(p2, normalization=False),
        "dempster": p1.combine_conjunctive(p2, normalization=True),
        "disjunctive": p1.combine_disjunctive(p2),
    }
    for rule, want in cases.items():
        got = from_wide(*_wide.combine(*to_wide(m1, n), *to_wide(m2, n), rule), n)
        assert_same(got, {frozenset(k): float(v) for k, v in want.items()}, atol=1e-12)


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def sets_in_words(rng, n, n_focal, words, p_member):
    """Focal sets whose labels lie in the given 64-label words only (ties on the other words)."""
    labels = np.concatenate([np.arange(64 * w, min(64 * w + 64, n)) for w in words])
    sets = {frozenset(labels[rng.random(labels.size) < p_member].tolist()) for _ in range(n_focal)}
    return sorted(sets, key=sorted)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("rule", _wide.RULES)
def test_kernel_gives_the_bits_of_numpy(seed, rule, monkeypatch):
    # the compiled merge and numpy's table of pairs: same focal sets in the same order, same sums
    rng = np.random.default_rng(seed)
    n = int(rng.choice([65, 130, 200, 257]))
    last = _wide.n_words(n) - 1
    words = [[0, 1], [1], [last], list(range(last + 1))][seed % 4]
    p_member = [0.05, 0.3, 0.9][seed % 3]  # sparse sets: many equal results (e.g. empty), long runs
    s1 = sets_in_words(rng, n, int(rng.integers(1, 90)), words, p_member)
    s2 = sets_in_words(rng, n, int(rng.integers(1, 90)), [0, 1] if seed % 2 else words, p_member)
    f1, f2 = _wide.pack(s1, n), _wide.pack(s2, n)
    m1 = rng.dirichlet(np.ones(len(s1)), size=(2, 1))
    m2 = rng.dirichlet(np.ones(len(s2)), size=3)
    if rule == "dempster" and not np.any(_wide.combine(f1, m1[0, 0], f2, m2[0], "conjunctive")[0]):
        return  # total conflict: both paths raise
    monkeypatch.setattr(_wide, "KERNEL_MIN_PAIRS", 2**62)
    want = _wide.combine(f1, m1, f2, m2, rule)
    monkeypatch.setattr(_wide, "KERNEL_MIN_PAIRS", 0)
    got = _wide.combine(f1, m1, f2, m2, rule)
    assert same_bits(got[0], want[0]) and same_bits(got[1], want[1])


@pytest.mark.parametrize("kind", ["uniform", "equal", "few", "low bits", "high bits"])
def test_kernel_sort_of_pair_keys(kind):
    # the sort behind the compiled merge, against np.sort, on long segments (bucketed) and short ones
    from dstk._kernels.wide_pairs import _sort

    rng = np.random.default_rng(len(kind))
    for size in (5, 300, 20_000):
        raw = rng.integers(0, 2**63, size=size, dtype=np.int64).astype(np.uint64) * np.uint64(2)
        keys = {
            "uniform": raw,
            "equal": np.full(size, 7, dtype=np.uint64),
            "few": raw[rng.integers(0, 3, size=size)],
            "low bits": raw >> np.uint64(50),
            "high bits": raw & np.uint64(0xFFF0_0000_0000_0000),
        }[kind]
        sorted_keys = keys.copy()
        order = np.arange(size)
        _sort(sorted_keys, order)
        assert np.array_equal(sorted_keys, np.sort(keys))
        assert np.array_equal(keys[order], sorted_keys)
        assert np.array_equal(np.sort(order), np.arange(size))
