"""Valuations and valuation networks against brute force on sets of configuration tuples.

The reference implementation here works on frozensets of configuration tuples
with Python dicts, straight from the definitions (Shafer 1976, ch. 3 and 8):
projection maps every configuration to its sub-tuple, extension takes the
cylinder, combination intersects every pair of focal sets.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dstk
from dstk.exceptions import FrameMismatchError, FrameTooLargeError, TotalConflictError
from dstk.reasoning import (
    Valuation,
    ValuationNetwork,
    Variable,
    conditional_embedding,
    generalized_bayes,
)

# --------------------------------------------------------------------- brute force


def bf_extend(focal, variables, union):
    """Cylinder of each focal set over ``union`` (dict frozenset -> mass)."""
    pos = [union.index(v) for v in variables]
    out: dict = {}
    full = list(itertools.product(*(v.labels for v in union)))
    for s, m in focal.items():
        cyl = frozenset(c for c in full if tuple(c[p] for p in pos) in s)
        out[cyl] = out.get(cyl, 0.0) + m
    return out


def bf_project(focal, variables, onto):
    pos = [variables.index(v) for v in onto]
    out: dict = {}
    for s, m in focal.items():
        p = frozenset(tuple(c[i] for i in pos) for c in s)
        out[p] = out.get(p, 0.0) + m
    return out


def bf_conjunctive(f1, f2):
    out: dict = {}
    for a, ma in f1.items():
        for b, mb in f2.items():
            out[a & b] = out.get(a & b, 0.0) + ma * mb
    return out


def bf_normalize(f):
    k = f.get(frozenset(), 0.0)
    return {s: m / (1 - k) for s, m in f.items() if s}


def bf_joint(vals, union):
    """Conjunctive combination of the cylinders of every valuation on ``union``."""
    joint = None
    for v in vals:
        e = bf_extend(as_dict(v), list(v.variables), union)
        joint = e if joint is None else bf_conjunctive(joint, e)
    return joint


def as_dict(val):
    out: dict = {}
    for s, m in val.focal_sets():
        if m != 0:
            out[s] = out.get(s, 0.0) + m
    return out


def assert_same(d1, d2, tol=1e-9):
    keys = set(d1) | set(d2)
    for k in keys:
        assert abs(d1.get(k, 0.0) - d2.get(k, 0.0)) < tol, (k, d1.get(k), d2.get(k))


# --------------------------------------------------------------------- strategies

VARS = [Variable(f"x{i}", list(range(n))) for i, n in enumerate([2, 3, 2, 2, 3, 2])]


@st.composite
def valuations(draw, pool=VARS, max_vars=3):
    k = draw(st.integers(1, max_vars))
    idx = draw(st.lists(st.integers(0, len(pool) - 1), min_size=k, max_size=k, unique=True))
    variables = [pool[i] for i in idx]
    configs = list(itertools.product(*(v.labels for v in variables)))
    n_focal = draw(st.integers(1, 3))
    sets = [
        frozenset(draw(st.lists(st.sampled_from(configs), min_size=1, max_size=len(configs), unique=True)))
        for _ in range(n_focal)
    ]
    w = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=n_focal, max_size=n_focal)))
    return Valuation(variables, sets, w / w.sum())


@settings(max_examples=40, deadline=None)
@given(st.lists(valuations(), min_size=1, max_size=4), st.data())
def test_propagation_equals_brute_force_joint(vals, data):
    net = ValuationNetwork(vals)
    union = list(net.variables)
    joint = bf_joint(vals, union)
    k = data.draw(st.integers(1, len(union)))
    query = data.draw(st.permutations(union))[:k]
    ref = bf_project(joint, union, query)
    if abs(ref.get(frozenset(), 0.0) - 1.0) < 1e-12:
        with pytest.raises(TotalConflictError):
            net.marginal(query)
        return
    ref = bf_normalize(ref)
    got = net.marginal(query)
    assert got.variables == tuple(query)
    assert_same(as_dict(got), ref)
    # independent of the elimination order
    rest = [v for v in union if v not in query]
    order = data.draw(st.permutations(rest))
    assert_same(as_dict(net.marginal(query, elimination_order=order)), ref)
    # unnormalised: equals the projection of the conjunctive joint
    unnorm = bf_project(joint, union, query)
    assert_same(as_dict(net.marginal(query, normalize=False)), unnorm)


@settings(max_examples=40, deadline=None)
@given(valuations(), st.data())
def test_marginal_of_vacuous_extension_is_original(val, data):
    extra = [v for v in VARS if v not in val.variables]
    add = data.draw(st.lists(st.sampled_from(extra), unique=True, max_size=2)) if extra else []
    target = data.draw(st.permutations(list(val.variables) + add))
    ext = val.extend(target)
    assert_same(as_dict(ext), bf_extend(as_dict(val), list(val.variables), list(target)))
    assert_same(as_dict(ext.marginalize(val.variables)), as_dict(val))


@settings(max_examples=30, deadline=None)
@given(valuations(max_vars=2), valuations(max_vars=2), st.sampled_from(sorted(dstk.RULES)))
def test_extension_combination_marginalisation_agrees_with_single_variable_path(a, b, rule):
    if rule == "bold":
        return  # needs subnormal inputs
    union = tuple(dict.fromkeys(a.variables + b.variables))
    if int(np.prod([len(v) for v in union])) > 16:
        return
    mfs = [v.extend(union).to_mass_function() for v in (a, b)]
    try:
        ref = dstk.combine(mfs, rule=rule)
    except (dstk.exceptions.TotalConflictError, dstk.exceptions.DogmaticError) as error:
        with pytest.raises(type(error)):
            a.combine(b, rule=rule)
        return
    got = a.combine(b, rule=rule)
    assert got.variables == union
    back = got.to_mass_function()
    np.testing.assert_allclose(back.to_array("m"), ref.to_array("m"), atol=1e-9)
    # marginal on one variable equals the single-variable mass function's projection (brute force)
    x = union[0]
    assert_same(as_dict(got.marginalize([x])), bf_project(as_dict(got), list(union), [x]))


def test_single_variable_dempster_matches_dstk_combine():
    x = Variable("x", ["a", "b", "c"])
    m1 = dstk.MassFunction({"a": 0.5, "ab": 0.3, "abc": 0.2}, frame="abc")
    m2 = dstk.MassFunction({"b": 0.4, "bc": 0.6}, frame="abc")
    v = Valuation.from_mass_function(m1, x).combine(Valuation.from_mass_function(m2, x))
    ref = dstk.combine([m1, m2])
    for s in ["a", "b", "c", "ab", "bc", "ac", "abc"]:
        assert v.bel({(c,) for c in s}) == pytest.approx(ref.bel(set(s)))
        assert v.pl({(c,) for c in s}) == pytest.approx(ref.pl(set(s)))
    np.testing.assert_allclose([v.pignistic({(c,)}) for c in "abc"], ref.pignistic(), atol=1e-12)


def test_rain_wet_textbook():
    """Rain -> wet with mass 0.9 (the issue's example); evidence rain: bel(wet) = 0.9 exactly."""
    rain, wet = Variable("rain", ["yes", "no"]), Variable("wet", ["yes", "no"])
    rule = Valuation.relation([rain, wet], [("yes", "yes"), ("no", "yes"), ("no", "no")], mass=0.9)
    obs = Valuation.relation([rain], [("yes",)])
    post = ValuationNetwork([rule, obs]).marginal([wet])
    assert post.bel({("yes",)}) == pytest.approx(0.9)
    assert post.pl({("no",)}) == pytest.approx(0.1)
    # extension on the left: X x B as well as A x Y
    ext = Valuation.relation([wet], [("yes",)]).extend([rain, wet])
    assert as_dict(ext) == {frozenset({("yes", "yes"), ("no", "yes")}): 1.0}


def test_batched_valuations():
    a, b = Variable("a", [0, 1]), Variable("b", [0, 1])
    rel = Valuation.relation([a, b], [(0, 0), (1, 1)], mass=[0.2, 0.5, 0.9])
    ev = Valuation.relation([a], [(1,)], mass=0.5)
    out = ValuationNetwork([rel, ev]).marginal([b])
    assert out.batch_shape == (3,)
    for i, m in enumerate([0.2, 0.5, 0.9]):
        single = ValuationNetwork([Valuation.relation([a, b], [(0, 0), (1, 1)], mass=m), ev]).marginal([b])
        assert out.bel({(1,)})[i] == pytest.approx(single.bel({(1,)}))
        assert single.bel({(1,)}) == pytest.approx(0.5 * m)


def test_condition_is_dempster_conditioning():
    x = Variable("x", list("abc"))
    m = dstk.MassFunction({"a": 0.5, "ab": 0.3, "bc": 0.2}, frame="abc")
    v = Valuation.from_mass_function(m, x).condition({("a",), ("b",)})
    ref = m.condition({"a", "b"})
    for s in ["a", "b", "ab"]:
        assert v.bel({(c,) for c in s}) == pytest.approx(ref.bel(set(s)))


def test_round_trip_mass_function():
    a, b = Variable("a", [0, 1]), Variable("b", ["u", "v", "w"])
    v = Valuation([a, b], [{(0, "u")}, {(0, "u"), (1, "w")}], [0.25, 0.75])
    mf = v.to_mass_function()
    assert mf.frame.labels == tuple(itertools.product([0, 1], "uvw"))
    assert mf.mass({(0, "u"), (1, "w")}) == pytest.approx(0.75)
    assert_same(as_dict(Valuation.from_mass_function(mf, [a, b])), as_dict(v))


def test_products_above_64_configurations_round_trip_and_combine():
    """The 7 x 4 x 4 = 112-configuration relation of the Captain's problem on a wide MassFunction."""
    from tests.reasoning.captain import A, D, S, captain_valuations

    ads = captain_valuations()[0]
    early = {(a, d, s) for a in range(7) for d in range(2) for s in range(4)}
    equal = {(a, d, d) for a in range(7) for d in (1, 2)}
    # {(6, 0, 0)} contradicts Arrival = Departure + Sailing: a conflict of 0.2
    evidence = Valuation([A, D, S], [early, {(6, 0, 0)}, equal], [0.5, 0.2, 0.3])
    mf = ads.to_mass_function()
    assert len(mf.frame) == 112
    config_sets = [
        {(a, d, s) for a in range(7) for d in range(4) for s in range(4) if a <= d + s},
        {(3, 1, 2)},
    ]
    for event in config_sets:
        assert mf.bel(event) == pytest.approx(sum(m for f, m in as_dict(ads).items() if f and f <= event))
        assert mf.pl(event) == pytest.approx(sum(m for f, m in as_dict(ads).items() if f & event))
    assert_same(as_dict(Valuation.from_mass_function(mf, [A, D, S])), as_dict(ads))
    batched = Valuation.relation([A, D, S], [(0, 0, 0), (6, 3, 3)], mass=[0.25, 0.5])
    back = Valuation.from_mass_function(batched.to_mass_function(), [A, D, S])
    assert back.batch_shape == (2,)
    expect = dict(batched.focal_sets())
    got_sets = dict(back.focal_sets())
    assert set(got_sets) == set(expect)
    for f, m in expect.items():
        np.testing.assert_allclose(got_sets[f], m, atol=1e-12)
    for rule in ["conjunctive", "dempster", "disjunctive", "yager"]:
        got = ads.combine(evidence, rule=rule)
        ref = dstk.combine([ads.to_mass_function(), evidence.to_mass_function()], rule=rule)
        for event in config_sets:
            assert got.bel(event) == pytest.approx(ref.bel(event), abs=1e-12), rule
            assert got.pl(event) == pytest.approx(ref.pl(event), abs=1e-12), rule
    # the disjunctive rule from the definition: unions of every pair of focal sets
    ref = {}
    for f, m in as_dict(ads).items():
        for g, w in as_dict(evidence).items():
            ref[f | g] = ref.get(f | g, 0.0) + m * w
    assert_same(as_dict(ads.combine(evidence, rule="disjunctive")), ref)
    # Yager's rule from the definition: the conflict goes to the frame
    yager = bf_conjunctive(as_dict(ads), as_dict(evidence))
    full = frozenset(itertools.product(A.labels, D.labels, S.labels))
    yager[full] = yager.get(full, 0.0) + yager.pop(frozenset(), 0.0)
    assert_same(as_dict(ads.combine(evidence, rule="yager")), yager)


def test_mismatched_variables_are_rejected():
    a1, a2 = Variable("a", [0, 1]), Variable("a", [0, 1, 2])
    with pytest.raises(FrameMismatchError, match="'a'"):
        Valuation.vacuous([a1]).combine(Valuation.vacuous([a2]))


# --------------------------------------------------------------------- conditionals


def test_conditional_embedding_conditions_back():
    x, y = Variable("x", ["x1", "x2"]), Variable("y", ["y1", "y2", "y3"])
    cond = dstk.MassFunction({"y1": 0.6, ("y1", "y2"): 0.4}, frame=["y1", "y2", "y3"])
    emb = conditional_embedding(cond, given=x, condition=["x1"], target=y)
    # brute force: B -> ({x1} x B) u ({x2} x Y)
    ref = {}
    for s, m in cond.focal_sets().items():
        f = frozenset({("x1", b) for b in s} | {("x2", b) for b in y.labels})
        ref[f] = m
    assert_same(as_dict(emb), ref)
    back = emb.condition({("x1", b) for b in y.labels}).marginalize([y])
    assert_same(as_dict(back), {frozenset((b,) for b in s): m for s, m in cond.focal_sets().items()})


def test_generalized_bayes_equals_combined_embeddings():
    """GBT (Smets 1993, eq. 4.4) = combine the ballooning extensions with the observation, marginalise."""
    x = Variable("x", ["x1", "x2", "x3"])
    y = Variable("y", ["y1", "y2", "y3"])
    frame = list(y.labels)
    conds = {
        "x1": dstk.MassFunction({("y1",): 0.5, ("y1", "y2"): 0.2, ("y1", "y2", "y3"): 0.3}, frame=frame),
        "x2": dstk.MassFunction({("y2",): 0.7, ("y2", "y3"): 0.3}, frame=frame),
        "x3": dstk.MassFunction({("y3",): 0.4, ("y1", "y3"): 0.6}, frame=frame),
    }
    obs = dstk.MassFunction({("y1",): 0.6, ("y1", "y2"): 0.4}, frame=frame)
    got = generalized_bayes(conds, obs, given=x, target=y)
    vals = [conditional_embedding(c, given=x, condition=[k], target=y) for k, c in conds.items()]
    vals.append(Valuation.from_mass_function(obs, y))
    ref = ValuationNetwork(vals).marginal([x])
    assert_same(as_dict(got), as_dict(ref))
    # closed form for the singleton observation {y1}: pl(y1|x) = 1, 0, 0.6
    single = generalized_bayes(conds, dstk.MassFunction({("y1",): 1.0}, frame=frame), given=x, target=y)
    pl = {"x1": 1.0, "x2": 0.0, "x3": 0.6}
    expect = {}
    for r in range(1, 4):
        for a in itertools.combinations(x.labels, r):
            val = math.prod(pl[u] if u in a else 1 - pl[u] for u in x.labels)
            if val:
                expect[frozenset((u,) for u in a)] = val
    assert_same(as_dict(single), bf_normalize(expect))


def test_frame_too_large_is_raised_before_allocation():
    vs = [Variable(f"v{i}", list(range(10))) for i in range(10)]
    with pytest.raises(FrameTooLargeError, match="GiB"):
        Valuation.vacuous(vs[:2]).extend(vs)


def test_captains_problem_propagation_equals_brute_force_joint():
    """Almond's Captain's problem (R dst vignette Captain_Example.Rmd; Loading as in its code)."""
    from tests.reasoning.captain import VIGNETTE_ORDER, A, captain_valuations

    vals = captain_valuations()
    net = ValuationNetwork(vals)
    union = list(net.variables)
    joint = bf_joint(vals, union)
    ref = bf_normalize(bf_project(joint, union, [A]))
    assert_same(as_dict(net.marginal([A], elimination_order=VIGNETTE_ORDER)), ref)
    assert_same(as_dict(net.marginal([A])), ref)


def test_zadeh_example_as_a_network():
    """R dst vignette Zadeh_Example.Rmd (Boivin 2021): the relation D1 u D2 -> D on D1 x D2 x D.

    The vignette's text: Dempster's rule on the common frame makes the tumour certain; the network gives
    Pl(M) = Pl(C) = 0.99 and a very weak plausibility of T (0.019...), the disjunctive rule's result
    (Smets 1993).
    """
    d1, d2 = Variable("D1", ["M", "T"]), Variable("D2", ["C", "T"])
    d = Variable("D", ["M", "T", "C"])
    frame = ["M", "T", "C"]
    naive = dstk.combine(
        [
            dstk.MassFunction({"M": 0.99, "T": 0.01}, frame=frame),
            dstk.MassFunction({"C": 0.99, "T": 0.01}, frame=frame),
        ]
    )
    assert naive.bel({"T"}) == pytest.approx(1.0)
    r1 = Valuation.relation([d1, d2, d], [(a, b, c) for a in d1.labels for b in d2.labels for c in {a, b}])
    e1 = Valuation([d1], [{("M",)}, {("T",)}], [0.99, 0.01])
    e2 = Valuation([d2], [{("C",)}, {("T",)}], [0.99, 0.01])
    post = ValuationNetwork([r1, e1, e2]).marginal([d], elimination_order=[d1, d2])
    assert round(post.pl({("M",)}), 2) == 0.99
    assert round(post.pl({("C",)}), 2) == 0.99
    assert 0.019 <= post.pl({("T",)}) < 0.02
    disjunctive = dstk.combine(
        [
            dstk.MassFunction({"M": 0.99, "T": 0.01}, frame=frame),
            dstk.MassFunction({"C": 0.99, "T": 0.01}, frame=frame),
        ],
        rule="disjunctive",
    )
    for s in ["M", "T", "C", "MT", "MC", "TC"]:
        assert post.bel({(c,) for c in s}) == pytest.approx(disjunctive.bel(set(s)))


def test_holmes_burglary_vignette():
    """R dst vignette ``Holmes_Burglary.Rmd`` (P. Zhu 2024; Kohlas & Monney 1995, sec. 1.3), step by step.

    Read from RAPLER/dst-1 at commit c895abb (the vignette was removed in 3114786).  Its code: a1 on
    {y, n} with m(y) = 0.95, m(n) = 0.05; a2 with m(y) = 0.01, m(n) = 0.99; the alarm sounds (certain);
    R1 on burglary x a1 x alarm and R3 on burglary x a2 x alarm rule out (burglary y, a y, alarm n);
    R2 on a2 x alarm rules out (a2 y, alarm n); all with mass 1.  Combination is ``dsrwon``
    (unnormalised), elimination ``elim``.  The vignette prints no numbers, so the reference is the
    brute-force joint on frozensets above plus the values derived by hand here: every relation admits
    every configuration with the alarm on, so there is no conflict, DSM1 = m(B x {alarm y}) = 1,
    DSM4 = {B x {alarm y}: 0.01, frame: 0.99} and the posterior on burglary is vacuous
    (Bel(y) = 0, Pl(y) = 1).
    """
    b, a1 = Variable("burglary", ["y", "n"]), Variable("a1", ["y", "n"])
    a2, alarm = Variable("a2", ["y", "n"]), Variable("alarm", ["y", "n"])

    def but(variables, excluded):
        return [c for c in itertools.product(*(v.labels for v in variables)) if c != excluded]

    dsm_a1 = Valuation([a1], [{("y",)}, {("n",)}], [0.95, 0.05])
    dsm_a2 = Valuation([a2], [{("y",)}, {("n",)}], [0.01, 0.99])
    dsm_alarm = Valuation([alarm], [{("y",)}], [1.0])
    r1 = Valuation.relation([b, a1, alarm], but([b, a1, alarm], ("y", "y", "n")))
    r2 = Valuation.relation([a2, alarm], but([a2, alarm], ("y", "n")))
    r3 = Valuation.relation([b, a2, alarm], but([b, a2, alarm], ("y", "y", "n")))
    # brute-force reference: the joint of every piece of evidence, projected on burglary
    vals = [dsm_a1, dsm_a2, dsm_alarm, r1, r2, r3]
    union = list(ValuationNetwork(vals).variables)
    joint = bf_joint(vals, union)
    ref = bf_project(joint, union, [b])
    assert ref == pytest.approx({frozenset({("y",), ("n",)}): 1.0})
    # the vignette's steps
    dsm1 = dsm_a1.combine(r1, dsm_alarm, rule="conjunctive").marginalize([b, alarm])
    b_alarm_on = frozenset({("y", "y"), ("n", "y")})
    assert_same(as_dict(dsm1), {b_alarm_on: 1.0})
    dsm2 = dsm_a2.combine(r2, rule="conjunctive")
    assert_same(as_dict(dsm2), {frozenset({("y", "y")}): 0.01, frozenset({("n", "y"), ("n", "n")}): 0.99})
    dsm4 = dsm2.combine(r3, rule="conjunctive").marginalize([b, alarm])
    full = frozenset(itertools.product(b.labels, alarm.labels))
    assert_same(as_dict(dsm4), {b_alarm_on: 0.01, full: 0.99})
    dsm5 = dsm4.combine(dsm1, rule="conjunctive")
    assert_same(as_dict(dsm5.marginalize([b, alarm])), {b_alarm_on: 1.0})
    posterior = dsm5.marginalize([b])
    assert_same(as_dict(posterior), ref)
    assert (posterior.bel({("y",)}), posterior.pl({("y",)})) == (0.0, 1.0)
    # the network gives the same, in any elimination order
    net = ValuationNetwork(vals)
    assert_same(as_dict(net.marginal([b])), ref)
    assert_same(as_dict(net.marginal([b], elimination_order=[a1, a2, alarm])), ref)
    assert_same(as_dict(net.marginal([b], elimination_order=[alarm, a2, a1])), ref)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 4), st.integers(2, 4), st.booleans(), st.data())
def test_generalized_bayes_matches_pyds_and_smets_theorem_2(n_x, n_y, normalize, data):
    """GBT side by side with pyds' ``MassFunction.gbt`` and the closed forms of Smets (1993), Theorem 2.

    Smets' own worked example (sec. 6, Tables 1-3: medical diagnosis, bel(theta_omega | x3, y2) = 0.27)
    could not be reproduced: its conditional tables were not found in any searched corpus.  The
    references here: pyds (py-dempster-shafer), which takes the conditional plausibilities
    pl(B | x) computed by :meth:`dstk.MassFunction.pl`; and eq. 3.5-3.6, pl(A | B) =
    1 - prod_{x in A} (1 - pl(B | x)), q(A | B) = prod_{x in A} pl(B | x) (unnormalised).
    """
    pyds = pytest.importorskip("pyds")
    x = Variable("x", [f"x{i}" for i in range(n_x)])
    y = Variable("y", [f"y{i}" for i in range(n_y)])
    subsets = [frozenset(s) for r in range(1, n_y + 1) for s in itertools.combinations(y.labels, r)]
    conds = {}
    for lab in x.labels:
        sets = data.draw(st.lists(st.sampled_from(subsets), min_size=1, max_size=3, unique=True))
        w = np.array(data.draw(st.lists(st.floats(0.05, 1.0), min_size=len(sets), max_size=len(sets))))
        conds[lab] = dstk.MassFunction(dict(zip(sets, w / w.sum(), strict=True)), frame=list(y.labels))
    b = data.draw(st.sampled_from(subsets))
    pl = {lab: float(conds[lab].pl(set(b))) for lab in x.labels}
    if normalize and all(p == 0 for p in pl.values()):
        return  # total conflict
    observation = dstk.MassFunction({b: 1.0}, frame=list(y.labels))
    got = generalized_bayes(conds, observation, given=x, target=y, normalize=normalize)
    ref = pyds.MassFunction.gbt(pl, normalization=normalize)
    assert_same(as_dict(got), {frozenset((u,) for u in h): m for h, m in ref.items() if m})
    k = 1.0 - math.prod(1 - p for p in pl.values()) if normalize else 1.0
    for r in range(1, n_x + 1):
        for a in itertools.combinations(x.labels, r):
            cfg = {(u,) for u in a}
            assert got.pl(cfg) == pytest.approx((1 - math.prod(1 - pl[u] for u in a)) / k, abs=1e-12)
            q = sum(m for s, m in got.focal_sets() if cfg <= s)
            assert q == pytest.approx(math.prod(pl[u] for u in a) / k, abs=1e-12)


# --------------------------------------------------------------------- all marginals in one pass


@settings(max_examples=40, deadline=None)
@given(st.lists(valuations(), min_size=1, max_size=5), st.booleans(), st.data())
def test_marginals_in_one_pass_equal_brute_force_and_marginal(vals, normalize, data):
    net = ValuationNetwork(vals)
    union = list(net.variables)
    joint = bf_joint(vals, union)
    total_conflict = abs(joint.get(frozenset(), 0.0) - 1.0) < 1e-12
    order = data.draw(st.permutations(union))
    if normalize and total_conflict:
        with pytest.raises(TotalConflictError):
            net.marginals(elimination_order=order)
        return
    for elimination_order in (None, order):
        got = net.marginals(elimination_order=elimination_order, normalize=normalize)
        assert list(got) == [v.name for v in union]
        for v in union:
            ref = bf_project(joint, union, [v])
            assert_same(as_dict(got[v.name]), bf_normalize(ref) if normalize else ref)
            assert_same(as_dict(got[v.name]), as_dict(net.marginal([v], normalize=normalize)))


def test_marginals_of_disconnected_parts_carry_the_other_parts_conflict():
    """Unnormalised: the conflict of one part reaches the marginals of another (empty separators)."""
    a, b, c = (Variable(n, [0, 1]) for n in "abc")
    vals = [
        Valuation.relation([a], [(0,)], mass=0.6),
        Valuation.relation([a], [(1,)], mass=0.5),  # conflict 0.3 on a
        Valuation.relation([b, c], [(0, 0), (1, 1)], mass=0.8),
        Valuation.relation([c], [(1,)], mass=0.4),
    ]
    net = ValuationNetwork(vals)
    got = net.marginals([c, b], normalize=False)
    assert list(got) == ["c", "b"]
    assert sum(m for s, m in got["b"].focal_sets() if not s) == pytest.approx(0.3)
    assert_same(as_dict(got["b"]), as_dict(net.marginal([b], normalize=False)))
    empty = sum(m for s, m in got["c"].focal_sets() if not s)
    assert empty == pytest.approx(0.3)
    assert net.marginals([b])["b"].bel({(1,)}) == pytest.approx(0.8 * 0.4)


def test_marginals_batched():
    a, b = Variable("a", [0, 1]), Variable("b", [0, 1])
    rel = Valuation.relation([a, b], [(0, 0), (1, 1)], mass=[0.2, 0.5, 0.9])
    ev = Valuation.relation([a], [(1,)], mass=[[0.5], [0.25]])
    net = ValuationNetwork([rel, ev])
    got = net.marginals()
    assert got["b"].batch_shape == (2, 3)
    np.testing.assert_allclose(got["b"].bel({(1,)}), np.outer([0.5, 0.25], [0.2, 0.5, 0.9]))
    np.testing.assert_allclose(got["a"].bel({(1,)}), net.marginal([a]).bel({(1,)}))


def test_marginals_refuse_a_clique_above_the_memory_cap_before_computing():
    vs = [Variable(f"v{i}", list(range(10))) for i in range(10)]
    # a relation on every pair of 10 variables with 10 labels: the first clique of any order holds all
    # ten variables, 10**10 configurations
    vals = [Valuation.relation([u, v], [(0, 0)], mass=0.5) for u, v in itertools.combinations(vs, 2)]
    with pytest.raises(FrameTooLargeError, match="join-tree clique"):
        ValuationNetwork(vals).marginals()


def test_marginals_bad_arguments():
    a, b = Variable("a", [0, 1]), Variable("b", [0, 1])
    net = ValuationNetwork([Valuation.relation([a, b], [(0, 0)], mass=0.5)])
    with pytest.raises(FrameMismatchError, match="variables"):
        net.marginals([Variable("z", [0, 1])])
    with pytest.raises(ValueError, match="elimination_order"):
        net.marginals(elimination_order=[a])
    with pytest.raises(dstk.exceptions.DataTypeError, match="variables"):
        net.marginals(["a"])


def test_relation_without_configurations_is_refused():
    # "none of these configurations is possible" with positive mass is a contradiction: the mass
    # would silently land on the empty set (an exhausted generator gives this by accident).
    from dstk.exceptions import FrameError

    X = Variable("X", ["a", "b"])
    with pytest.raises(FrameError, match="configurations"):
        Valuation.relation([X], [], mass=0.5)
    assert Valuation.relation([X], [], mass=0.0).focal_sets() == [(frozenset({("a",), ("b",)}), 1.0)]
