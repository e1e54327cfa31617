"""Property tests of valuations against exact rational brute force from the definitions.

The reference works on frozensets of configuration tuples with
``fractions.Fraction`` masses (Shafer 1976, ch. 3 and 8; Smets & Kennes
1994, eq. 3.1 for BetP): projection, cylindrical extension, the
conjunctive, disjunctive, Yager and averaging rules, Dempster's
conditioning, Bel, Pl and BetP of configuration sets, and the combination
axiom of valuation algebras (Kohlas & Shenoy 2000, axiom A5): for
``d(phi) ⊆ x ⊆ d(phi) ∪ d(psi)``, ``(phi ⊗ psi)↓x = phi ⊗ psi↓(x ∩ d(psi))``.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk.reasoning import Valuation, ValuationNetwork, Variable

POOL = [Variable(f"v{i}", [f"{i}{j}" for j in range(n)]) for i, n in enumerate([2, 3, 1, 2, 2])]


def configurations(variables):
    return list(itertools.product(*(v.labels for v in variables)))


@st.composite
def exact_valuations(draw, pool=POOL, max_vars=3, allow_empty=False):
    """A valuation and its exact reference ``{frozenset: Fraction}`` on the same variables."""
    k = draw(st.integers(1, max_vars))
    variables = draw(st.permutations(pool))[:k]
    configs = configurations(variables)
    n_focal = draw(st.integers(1, 4))
    min_size = 0 if allow_empty else 1
    sets = [
        frozenset(
            draw(st.lists(st.sampled_from(configs), min_size=min_size, max_size=len(configs), unique=True))
        )
        for _ in range(n_focal)
    ]
    weights = [Fraction(draw(st.integers(1, 9))) for _ in sets]
    total = sum(weights)
    exact: dict = {}
    for s, w in zip(sets, weights, strict=True):
        exact[s] = exact.get(s, Fraction(0)) + w / total
    val = Valuation(variables, list(exact), [float(x) for x in exact.values()])
    return val, exact


def cylinder(exact, variables, union):
    pos = [[u.name for u in union].index(v.name) for v in variables]
    out: dict = {}
    for s, m in exact.items():
        c = frozenset(c for c in configurations(union) if tuple(c[p] for p in pos) in s)
        out[c] = out.get(c, 0) + m
    return out


def project(exact, variables, onto):
    pos = [[v.name for v in variables].index(u.name) for u in onto]
    out: dict = {}
    for s, m in exact.items():
        p = frozenset(tuple(c[i] for i in pos) for c in s)
        out[p] = out.get(p, 0) + m
    return out


def pairwise(e1, e2, op):
    out: dict = {}
    for a, x in e1.items():
        for b, y in e2.items():
            out[op(a, b)] = out.get(op(a, b), 0) + x * y
    return out


def normalized(exact):
    k = exact.get(frozenset(), 0)
    return {s: m / (1 - k) for s, m in exact.items() if s}


def assert_equal(val, exact, onto=None):
    got: dict = {}
    for s, m in (val if onto is None else val.marginalize(onto)).focal_sets():
        got[s] = got.get(s, 0.0) + m
    for s in set(got) | set(exact):
        assert got.get(s, 0.0) == pytest.approx(float(exact.get(s, 0)), abs=1e-12), s


@settings(max_examples=60, deadline=None)
@given(exact_valuations(allow_empty=True), exact_valuations(), st.data())
def test_rules_equal_the_exact_definitions_on_the_union(first, second, data):
    (v1, e1), (v2, e2) = first, second
    union = list(v1.combine(v2, rule="conjunctive").variables)
    c1, c2 = cylinder(e1, v1.variables, union), cylinder(e2, v2.variables, union)
    conjunctive = pairwise(c1, c2, frozenset.intersection)
    assert_equal(v1.combine(v2, rule="conjunctive"), conjunctive)
    if conjunctive.get(frozenset(), 0) < 1:
        assert_equal(v1.combine(v2), normalized(conjunctive))
    assert_equal(v1.combine(v2, rule="disjunctive"), pairwise(c1, c2, frozenset.union))
    yager = {s: m for s, m in conjunctive.items() if s}
    full = frozenset(configurations(union))
    yager[full] = yager.get(full, 0) + conjunctive.get(frozenset(), 0)
    assert_equal(v1.combine(v2, rule="yager"), yager)
    average: dict = {}
    for c in (c1, c2):
        for s, m in c.items():
            average[s] = average.get(s, 0) + m / 2
    assert_equal(v1.combine(v2, rule="average"), average)
    # the order of the extension does not matter
    order = data.draw(st.permutations(union))
    assert_equal(v1.extend(order), cylinder(e1, v1.variables, order))


@settings(max_examples=60, deadline=None)
@given(exact_valuations(), st.data())
def test_bel_pl_pignistic_and_conditioning_equal_the_exact_definitions(first, data):
    val, exact = first
    configs = configurations(val.variables)
    event = frozenset(data.draw(st.lists(st.sampled_from(configs), max_size=len(configs), unique=True)))
    bel = sum((m for s, m in exact.items() if s and s <= event), Fraction(0))
    pl = sum((m for s, m in exact.items() if s & event), Fraction(0))
    betp = sum((m * Fraction(len(s & event), len(s)) for s, m in exact.items()), Fraction(0))
    assert val.bel(event) == pytest.approx(float(bel), abs=1e-12)
    assert val.pl(event) == pytest.approx(float(pl), abs=1e-12)
    assert val.pignistic(event) == pytest.approx(float(betp), abs=1e-12)
    conditioned: dict = {}
    for s, m in exact.items():
        conditioned[s & event] = conditioned.get(s & event, 0) + m
    assert_equal(val.condition(event, normalize=False), conditioned)
    if pl > 0:
        assert_equal(val.condition(event), normalized(conditioned))


@settings(max_examples=50, deadline=None)
@given(exact_valuations(), exact_valuations(), st.data())
def test_combination_axiom_local_computation(first, second, data):
    (phi, _), (psi, _) = first, second
    names = {v.name for v in phi.variables}
    extra = [v for v in psi.variables if v.name not in names]
    x = (
        list(phi.variables) + data.draw(st.lists(st.sampled_from(extra), unique=True))
        if extra
        else list(phi.variables)
    )
    x = data.draw(st.permutations(x))
    kept = [v for v in psi.variables if v in x]
    # psi without an empty focal set projects onto no variable as the vacuous valuation
    psi_down = psi.marginalize(kept) if kept else Valuation.vacuous([phi.variables[0]])
    lhs = phi.combine(psi, rule="conjunctive").marginalize(x)
    rhs = phi.combine(psi_down, rule="conjunctive").extend(x)
    assert_equal(lhs, dict(rhs.focal_sets()))


@settings(max_examples=25, deadline=None)
@given(st.lists(exact_valuations(max_vars=2), min_size=2, max_size=4), st.integers(0, 2**32 - 1))
def test_batched_network_equals_row_by_row(members, seed):
    rng = np.random.default_rng(seed)
    batched = []
    for val, _ in members:
        masses = rng.dirichlet(np.ones(val.n_focal), size=3)
        batched.append(Valuation(val.variables, val._focal, masses))
    net = ValuationNetwork(batched)
    query = [net.variables[0]]
    together = net.marginal(query, on_conflict="nan")
    all_marginals = net.marginals(on_conflict="nan")
    for i in range(3):
        rows = ValuationNetwork([Valuation(v.variables, v._focal, v._mass[i]) for v in batched])
        alone = rows.marginal(query, on_conflict="nan")
        got = {s: m[i] for s, m in together.focal_sets()}
        for s, m in alone.focal_sets():
            assert got.pop(s, 0.0) == pytest.approx(m, abs=1e-12, nan_ok=True)
        assert all(m == pytest.approx(0.0, abs=1e-12) for m in got.values())
        for name, marginal in rows.marginals(on_conflict="nan").items():
            want = dict(marginal.focal_sets())
            for s, m in all_marginals[name].focal_sets():
                assert m[i] == pytest.approx(want.get(s, 0.0), abs=1e-12, nan_ok=True)
