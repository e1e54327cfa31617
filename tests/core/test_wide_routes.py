"""Focal-set combinations on 17-64 labels: the cheaper route by estimate, or a refusal before any work.

No clock is read: a combination that must be refused is refused with the
kernels and the dense conversion replaced by functions that fail when
called, and the chosen route is read from :func:`dstk.core._sparse.choose_route`.
The results of both routes are checked against the definitions (Smets and
Kennes 1994, eq. 5; Shafer 1976, eq. 3.1) summed over Python ints.
"""

import numpy as np
import pytest

from dstk import Frame, MassFunction, combine
from dstk.core import _sparse
from dstk.exceptions import FrameTooLargeError


def random_sources(rng, n, count, rows=1, *, full=False, empty=False):
    out = []
    for _ in range(2):
        focal = np.unique(rng.integers(1, 2**n, size=count, dtype=np.uint64))
        while focal.size < count:
            more = rng.integers(1, 2**n, size=count - focal.size, dtype=np.uint64)
            focal = np.unique(np.concatenate([focal, more]))
        if full:
            focal[-1] = 2**n - 1
        if empty:
            focal[0] = 0
        masses = rng.dirichlet(np.ones(count), size=None if rows == 1 else rows)
        out.append(MassFunction.from_focal_sets(focal, masses, Frame(range(n))))
    return out


def forbid_work(monkeypatch):
    """Make every route fail if it starts: the pairs' kernel and the dense conversion."""

    def fail(*args, **kwargs):
        raise AssertionError("the combination started instead of being refused")

    monkeypatch.setattr(_sparse, "pairwise", fail)
    monkeypatch.setattr(_sparse, "to_dense", fail)


@pytest.mark.parametrize("rule", ["dempster", "disjunctive", "conjunctive", "yager"])
def test_both_routes_too_slow_is_refused_before_any_work(monkeypatch, rule):
    # 25 labels, 16,384 x 16,384 focal sets: 2.7e8 pairs, and 2**25 subsets densely (seconds either way)
    a, b = random_sources(np.random.default_rng(0), 25, 16_384)
    forbid_work(monkeypatch)
    with pytest.raises(FrameTooLargeError) as error:
        combine([a, b], rule=rule)
    message = str(error.value)
    pairs = _sparse.pairs_seconds([16_384, 16_384], 1, 25, rule)
    assert f"by pairs of 16,384 x 16,384 focal sets about {pairs:,.0f} s of CPU" in message
    assert "densely (2**25 subsets) about 5 s of CPU" in message
    assert "dstk.core._sparse.MAX_PAIRWISE_SECONDS" in message
    assert "Prune focal sets" in message


def test_a_batch_is_refused_by_its_estimate(monkeypatch):
    # 22 labels, 4,096 focal sets, 10 rows: 1.7e7 pairs x 10 rows, or ten 2**22 dense transforms
    a, b = random_sources(np.random.default_rng(1), 22, 4_096, rows=10)
    forbid_work(monkeypatch)
    with pytest.raises(
        FrameTooLargeError, match=r"for each of 10 combination\(s\).*densely \(2\*\*22 subsets\)"
    ):
        combine([a, b], rule="disjunctive")


def test_rule_without_pairs_route_is_refused_by_its_dense_estimate(monkeypatch):
    a, b = random_sources(np.random.default_rng(2), 24, 16, full=True)
    forbid_work(monkeypatch)
    with pytest.raises(
        FrameTooLargeError, match=r"no route by pairs of focal sets; densely .2..24 subsets. about"
    ):
        combine([a, b], rule="cautious")


def test_past_the_dense_label_limit_only_pairs_are_estimated(monkeypatch):
    a, b = random_sources(np.random.default_rng(3), 27, 16_384)
    forbid_work(monkeypatch)
    with pytest.raises(FrameTooLargeError, match=r"densely \(2\*\*27 subsets\) not possible"):
        combine([a, b], rule="dempster")


def test_raising_the_limit_lets_the_cheaper_route_run(monkeypatch):
    a, b = random_sources(np.random.default_rng(4), 17, 64)
    monkeypatch.setattr(_sparse, "MAX_PAIRWISE_SECONDS", 1e-9)
    with pytest.raises(FrameTooLargeError, match=r"The limit is 1e-09 s"):
        combine([a, b], rule="dempster")
    monkeypatch.setattr(_sparse, "MAX_PAIRWISE_SECONDS", 2.0)
    combine([a, b], rule="dempster")


@pytest.mark.parametrize(
    "n, sizes, rows, rule",
    [
        (20, [256, 256], 1, "dempster"),
        (20, [1024, 1024], 1, "dempster"),
        (22, [1024, 1024], 1, "disjunctive"),
        (22, [4096, 4096], 1, "disjunctive"),
        (20, [1024, 1024], 10, "conjunctive"),
        (23, [3000, 16384], 1, "dempster"),
        (18, [64, 64, 64], 4, "yager"),
    ],
)
def test_the_route_is_the_cheaper_estimate(n, sizes, rows, rule):
    dense = _sparse.dense_seconds(n, len(sizes), rows, rule)
    pairs = _sparse.pairs_seconds(sizes, rows, n, rule)
    assert min(dense, pairs) <= _sparse.MAX_PAIRWISE_SECONDS
    expected = "dense" if dense < pairs else "pairs"
    assert _sparse.choose_route(n, sizes, rows, rule) == expected


def test_estimates_follow_their_formulas():
    assert _sparse.dense_seconds(20, 2, 10, "dempster") == pytest.approx(
        10 * 3 * 20 * 2**20 * _sparse.DENSE_SECONDS
    )
    cautious = _sparse.dense_seconds(20, 2, 1, "cautious")
    assert cautious == pytest.approx(
        _sparse.DENSE_RULE_FACTORS["cautious"] * _sparse.dense_seconds(20, 2, 1, "dempster")
    )
    per_pair = _sparse.PAIR_SECONDS + 3 * _sparse.PAIR_ROW_SECONDS
    assert _sparse.pairs_seconds([100, 300], 3) == pytest.approx(100 * 300 * per_pair)
    # each rule's pairs cost their own factor times the disjunctive rule's
    for rule, factor in _sparse.PAIR_RULE_FACTORS.items():
        assert _sparse.pairs_seconds([100, 300], 3, 20, rule) == pytest.approx(100 * 300 * per_pair * factor)
    costliest = max(_sparse.PAIR_RULE_FACTORS.values())
    assert _sparse.pairs_seconds([100, 300], 3, 20, "a rule of the caller") == pytest.approx(
        100 * 300 * per_pair * costliest
    )
    # the accumulated focal sets count as the product of the counts so far, bounded by the 2**n subsets
    assert _sparse.pairs_seconds([100, 300, 50], 3, 20) == pytest.approx((100 * 300 + 30_000 * 50) * per_pair)
    assert _sparse.pairs_seconds([100, 300, 50, 7], 3, 10) == pytest.approx(
        (100 * 300 + 1024 * 50 + 1024 * 7) * per_pair
    )
    # wide frames: more distinct results, each pair costs more
    narrow = _sparse.pairs_seconds([100, 300], 3, 20)
    assert _sparse.pairs_seconds([100, 300], 3, _sparse.PAIR_COST_LABELS) == narrow
    assert _sparse.pairs_seconds([100, 300], 3, 64) == pytest.approx(48 / 26 * narrow, rel=1e-15)


def test_the_rule_sets_the_cost_of_a_pair():
    # the constructed cases rely on the rules' order of cost
    factors = _sparse.PAIR_RULE_FACTORS
    assert factors["disjunctive"] <= factors["conjunctive"] < factors["dempster"] < factors["yager"]
    # 27 labels (no dense route), one row: the cheapest rule's pairs fit in the limit, the costliest's do not
    n, rows = 27, 1
    count = int((_sparse.MAX_PAIRWISE_SECONDS / _sparse.pairs_seconds([1, 1], rows, n, "disjunctive")) ** 0.5)
    sizes = [count, count]
    assert _sparse.choose_route(n, sizes, rows, "disjunctive") == "pairs"
    with pytest.raises(FrameTooLargeError, match=f"by pairs of {count:,} x {count:,} focal sets"):
        _sparse.choose_route(n, sizes, rows, "yager")
    # 22 labels: the same focal sets go by pairs by the disjunctive rule and densely by Yager's
    n, sizes = 22, [2_000, 2_000]
    dense = _sparse.dense_seconds(n, 2, 1, "dempster")
    assert (
        _sparse.pairs_seconds(sizes, 1, n, "disjunctive")
        < dense
        < _sparse.pairs_seconds(sizes, 1, n, "yager")
    )
    assert _sparse.choose_route(n, sizes, 1, "disjunctive") == "pairs"
    assert _sparse.choose_route(n, sizes, 1, "yager") == "dense"


def test_disjunctive_rule_is_not_refused_by_dempsters_estimate(monkeypatch):
    # 27 labels, 4,096 x 4,096 focal sets, one row: under the limit by the disjunctive rule, above by Dempster's
    n, sizes = 27, [4_096, 4_096]
    assert _sparse.pairs_seconds(sizes, 1, n, "disjunctive") <= _sparse.MAX_PAIRWISE_SECONDS
    assert _sparse.choose_route(n, sizes, 1, "disjunctive") == "pairs"
    a, b = random_sources(np.random.default_rng(8), n, 4_096)
    forbid_work(monkeypatch)
    with pytest.raises(FrameTooLargeError, match=r"by the dempster rule"):
        combine([a, b], rule="dempster")


def test_three_sources_are_estimated_at_every_step(monkeypatch):
    # 30 labels, three sources of 1,024 focal sets: the first step pairs 1e6 focal sets (well under the
    # limit), the second up to 1e6 accumulated focal sets with 1,024 (1e9 pairs): refused before any work,
    # the first step's focal sets counted without their masses (its best case, no growth, is under the limit)
    rng = np.random.default_rng(9)
    a, b = random_sources(rng, 30, 1_024)
    c, _ = random_sources(rng, 30, 1_024)
    assert _sparse.pairs_seconds([1_024, 1_024], 1, 30, "dempster") < 0.5
    forbid_work(monkeypatch)
    with pytest.raises(FrameTooLargeError, match=r"these 3 focal-set mass functions.*after 2 of them"):
        combine([a, b, c], rule="dempster")


def test_the_combination_asks_for_the_route_with_each_sources_focal_sets(monkeypatch):
    rng = np.random.default_rng(5)
    a, b = random_sources(rng, 20, 300, rows=3)
    calls = []
    original = _sparse.choose_route

    def spy(n, sizes, rows, rule, *, pairs=True):
        calls.append((n, sizes, rows, rule, pairs))
        return original(n, sizes, rows, rule, pairs=pairs)

    monkeypatch.setattr(_sparse, "choose_route", spy)
    combine([a, b], rule="dempster")
    combine([a, b], rule="average")  # one pass over the focal sets: no estimate, never dense
    assert calls == [(20, [300, 300], 3, "dempster", True)]


def brute_force(a, b, rule):
    """``{mask: mass}`` of the combination of two unbatched focal-set mass functions, from the definition."""
    fa, ma = a._storage.focal_form()
    fb, mb = b._storage.focal_form()
    out = {}
    for x, p in zip(fa.tolist(), ma.tolist()):
        for y, q in zip(fb.tolist(), mb.tolist()):
            key = x | y if rule == "disjunctive" else x & y
            out[key] = out.get(key, 0.0) + p * q
    if rule == "dempster":
        empty = out.pop(0, 0.0)
        out = {key: value / (1.0 - empty) for key, value in out.items()}
    return out


@pytest.mark.parametrize("route", ["dense", "pairs"])
@pytest.mark.parametrize("rule", ["conjunctive", "dempster", "disjunctive"])
@pytest.mark.parametrize("n", [17, 20])
def test_each_route_matches_the_definition(monkeypatch, route, rule, n):
    a, b = random_sources(np.random.default_rng(n), n, 150)
    monkeypatch.setattr(_sparse, "choose_route", lambda *args, **kwargs: route)
    got = combine([a, b], rule=rule)
    focal, masses = got._storage.focal_form()
    got_dict = dict(zip(focal.tolist(), masses.tolist()))
    expected = brute_force(a, b, rule)
    assert (
        max(abs(got_dict.get(key, 0.0) - expected.get(key, 0.0)) for key in {*got_dict, *expected}) <= 1e-12
    )


@pytest.mark.parametrize("rule", ["dempster", "disjunctive", "yager"])
def test_the_routes_agree_on_a_batch(monkeypatch, rule):
    a, b = random_sources(np.random.default_rng(7), 18, 400, rows=4)
    results = {}
    for route in ("dense", "pairs"):
        monkeypatch.setattr(_sparse, "choose_route", lambda *args, route=route, **kwargs: route)
        results[route] = combine([a, b], rule=rule)
    assert results["dense"].allclose(results["pairs"], atol=1e-12)
