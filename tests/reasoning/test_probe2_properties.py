"""Second review: property tests of the reasoning layer against exact brute force.

The reference enumerates the whole product frame of a network with
``fractions.Fraction`` masses: the joint is the conjunctive combination of the
cylindrical extensions of all the valuations, normalised once (Dempster's
rule; Shafer 1976, ch. 3), then projected on the query (Kohlas & Shenoy
2000, sec. 3).  Propagation must equal it for every elimination order,
min-fill or given, by :meth:`ValuationNetwork.marginal` and
:meth:`ValuationNetwork.marginals`, on random networks of 3 to 6 variables
(one to three labels each, connected or not).  The generalised Bayesian
theorem is checked in its disjunctive form (Smets 1993, eq. 4.4 and 4.6):
``pl(A | B) = 1 - prod_{x in A} (1 - pl(B | x))`` before normalisation.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dstk
from dstk.exceptions import TotalConflictError
from dstk.reasoning import Valuation, ValuationNetwork, Variable, generalized_bayes


def configurations(variables):
    return list(itertools.product(*(v.labels for v in variables)))


@st.composite
def networks(draw, max_vars=6, max_cells=216):
    """Variables, valuations and their exact references ``[(variables, {frozenset: Fraction})]``."""
    n = draw(st.integers(3, max_vars))
    sizes = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    while int(np.prod(sizes)) > max_cells:
        sizes[sizes.index(max(sizes))] -= 1
    variables = [Variable(f"v{i}", [f"{i}{j}" for j in range(k)]) for i, k in enumerate(sizes)]
    vals, exact = [], []
    for _ in range(draw(st.integers(2, 5))):
        k = draw(st.integers(1, 3))
        scope = draw(st.permutations(variables))[:k]
        configs = configurations(scope)
        parts: dict = {}
        for _ in range(draw(st.integers(1, 3))):
            s = frozenset(
                draw(st.lists(st.sampled_from(configs), min_size=1, max_size=len(configs), unique=True))
            )
            parts[s] = parts.get(s, 0) + draw(st.integers(1, 9))
        total = sum(parts.values())
        e = {s: Fraction(w, total) for s, w in parts.items()}
        vals.append(Valuation(scope, list(e), [float(m) for m in e.values()]))
        exact.append((tuple(scope), e))
    return variables, vals, exact


def joint(variables, exact):
    """Unnormalised conjunctive combination of the cylindrical extensions, on ``variables``."""
    frame = configurations(variables)
    names = [v.name for v in variables]
    out = {frozenset(frame): Fraction(1)}
    for scope, e in exact:
        pos = [names.index(v.name) for v in scope]
        ext = {}
        for s, m in e.items():
            c = frozenset(c for c in frame if tuple(c[p] for p in pos) in s)
            ext[c] = ext.get(c, 0) + m
        new: dict = {}
        for a, x in out.items():
            for b, y in ext.items():
                new[a & b] = new.get(a & b, 0) + x * y
        out = new
    return out


def project(exact, variables, onto):
    pos = [[v.name for v in variables].index(u.name) for u in onto]
    out: dict = {}
    for s, m in exact.items():
        p = frozenset(tuple(c[i] for i in pos) for c in s)
        out[p] = out.get(p, 0) + m
    return out


def assert_matches(val, exact, normalize):
    k = exact.get(frozenset(), Fraction(0))
    want = {s: (m / (1 - k) if normalize else m) for s, m in exact.items() if s or not normalize}
    got: dict = {}
    for s, m in val.focal_sets():
        got[s] = got.get(s, 0.0) + m
    for s in set(got) | set(want):
        assert got.get(s, 0.0) == pytest.approx(float(want.get(s, 0)), abs=1e-10), s


@settings(max_examples=70, deadline=None)
@given(networks(), st.booleans(), st.data())
def test_propagation_equals_the_brute_force_joint_in_every_order(network, normalize, data):
    _, vals, exact = network
    net = ValuationNetwork(vals)
    present = list(net.variables)
    query = data.draw(st.permutations(present))[: data.draw(st.integers(1, min(3, len(present))))]
    reference = project(joint(present, exact), present, query)
    conflict = reference.get(frozenset(), Fraction(0))
    rest = [v for v in present if v not in query]
    order = data.draw(st.permutations(rest))
    full = data.draw(st.permutations(present))
    if normalize and conflict == 1:
        for call in (
            lambda: net.marginal(query),
            lambda: net.marginal(query, elimination_order=order),
            lambda: net.marginals(query, elimination_order=full),
        ):
            with pytest.raises(TotalConflictError):
                call()
        return
    assert_matches(net.marginal(query, normalize=normalize), reference, normalize)
    assert_matches(net.marginal(query, elimination_order=order, normalize=normalize), reference, normalize)
    singles = net.marginals(query, elimination_order=full, normalize=normalize)
    assert list(singles) == [v.name for v in query]
    for v in query:
        assert_matches(singles[v.name], project(reference, query, [v]), normalize)


@settings(max_examples=50, deadline=None)
@given(networks(max_vars=4, max_cells=36), st.data())
def test_extension_in_any_order_commutes_with_combination(network, data):
    variables, vals, _ = network
    first, second = vals[0], vals[1]
    union = list(dict.fromkeys([*first.variables, *second.variables]))
    target = data.draw(st.permutations(list(dict.fromkeys([*union, *variables]))))
    left = first.combine(second, rule="conjunctive").extend(target)
    right = first.extend(target).combine(second.extend(target), rule="conjunctive")
    assert left.variables == right.variables == tuple(target)
    want = dict(right.focal_sets())
    got = dict(left.focal_sets())
    assert set(got) == set(want)
    for s in got:
        assert got[s] == pytest.approx(want[s], abs=1e-12)
    # the marginal of a vacuous extension is the original, in the original order
    back = left.marginalize(left.variables[: len(left.variables)])
    assert sorted(back.focal_sets(), key=repr) == sorted(left.focal_sets(), key=repr)
    original = first.extend(target).marginalize(first.variables)
    assert dict(original.focal_sets()) == pytest.approx(dict(first.focal_sets()))


@st.composite
def exact_masses(draw, labels, batch=1):
    """``batch`` exact mass functions on ``labels`` as dicts {frozenset: Fraction}."""
    out = []
    for _ in range(batch):
        parts: dict = {}
        for _ in range(draw(st.integers(1, 3))):
            s = frozenset(draw(st.lists(st.sampled_from(labels), min_size=1, unique=True)))
            parts[s] = parts.get(s, 0) + draw(st.integers(1, 9))
        total = sum(parts.values())
        out.append({s: Fraction(w, total) for s, w in parts.items()})
    return out


def dense(exact_rows, labels):
    rows = np.zeros((len(exact_rows), 2 ** len(labels)))
    for r, e in enumerate(exact_rows):
        for s, m in e.items():
            rows[r, sum(1 << labels.index(x) for x in s)] += float(m)
    return dstk.MassFunction.from_array(rows, labels)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(1, 3), st.integers(1, 3), st.booleans(), st.data())
def test_generalized_bayes_equals_the_disjunctive_closed_form(n_x, n_y, batch, normalize, data):
    x = Variable("x", [f"x{i}" for i in range(n_x)])
    ylabels = [f"y{j}" for j in range(n_y)]
    y = Variable("y", ylabels)
    conds = {lab: data.draw(exact_masses(ylabels, batch)) for lab in x.labels}
    obs = data.draw(exact_masses(ylabels, batch))
    mf_conds = {lab: dense(rows, ylabels) for lab, rows in conds.items()}
    subsets = [frozenset(c) for r in range(n_x + 1) for c in itertools.combinations(x.labels, r)]
    references = []
    for row in range(batch):
        # pl_X(A | B) = 1 - prod_{x in A} (1 - pl(B | x)), averaged over the observation's focal sets
        def pl_given(b, lab, row=row):
            return sum((m for s, m in conds[lab][row].items() if s & b), Fraction(0))

        plx = {}
        for a in subsets:
            plx[a] = sum(
                (
                    mb * (1 - np.prod([1 - pl_given(b, lab) for lab in a], dtype=object))
                    for b, mb in obs[row].items()
                ),
                Fraction(0),
            )
        references.append(plx)
    if normalize and any(r[frozenset(x.labels)] == 0 for r in references):
        with pytest.raises(TotalConflictError):
            generalized_bayes(mf_conds, dense(obs, ylabels), given=x, target=y)
        return
    post = generalized_bayes(mf_conds, dense(obs, ylabels), given=x, target=y, normalize=normalize)
    assert post.batch_shape == (batch,)
    for a in subsets[1:]:
        configs = {(lab,) for lab in a}
        got = np.asarray(post.pl(configs))
        for row in range(batch):
            want = references[row][a] / (references[row][frozenset(x.labels)] if normalize else 1)
            assert got[row] == pytest.approx(float(want), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(networks(max_vars=3, max_cells=16), st.sampled_from(sorted(dstk.RULES)), st.data())
def test_batched_combination_with_every_rule_is_row_by_row(network, rule, data):
    _, vals, _ = network
    first, second = vals[0], vals[1]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    w1 = rng.dirichlet(np.ones(first.n_focal), size=3)
    w2 = rng.dirichlet(np.ones(second.n_focal), size=3)
    b1 = Valuation(first.variables, first._focal, w1)
    b2 = Valuation(second.variables, second._focal, w2)
    try:
        batched = b1.combine(b2, rule=rule, on_conflict="nan")
    except (dstk.exceptions.FrameTooLargeError, dstk.exceptions.DogmaticError):
        return  # rules that need the dense frame or non-dogmatic (bold: subnormal) sources
    union = batched.variables
    event = data.draw(st.lists(st.sampled_from(configurations(union)), unique=True))
    for row in range(3):
        alone = Valuation(first.variables, first._focal, w1[row]).combine(
            Valuation(second.variables, second._focal, w2[row]), rule=rule, on_conflict="nan"
        )
        np.testing.assert_allclose(np.asarray(batched.bel(event))[row], alone.bel(event), atol=1e-12)
        np.testing.assert_allclose(np.asarray(batched.pl(event))[row], alone.pl(event), atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(1, 4), st.data())
def test_generalized_bayes_with_a_bayesian_prior_is_bayes_theorem(n_x, n_y, data):
    # Bayesian conditionals, an observed label y and a Bayesian prior p combined by Dempster's rule:
    # m({x}) is proportional to p(x) P(y | x) (Smets 1993, sec. 5)
    x = Variable("x", [f"x{i}" for i in range(n_x)])
    ylabels = [f"y{j}" for j in range(n_y)]
    y = Variable("y", ylabels)
    weights = st.integers(1, 9)
    likelihood = {lab: [data.draw(weights) for _ in ylabels] for lab in x.labels}
    prior = [data.draw(weights) for _ in x.labels]
    observed = data.draw(st.sampled_from(ylabels))
    conds = {
        lab: dstk.MassFunction({(y_,): w / sum(ws) for y_, w in zip(ylabels, ws, strict=True)}, frame=ylabels)
        for lab, ws in likelihood.items()
    }
    post = generalized_bayes(conds, dstk.MassFunction({(observed,): 1.0}, frame=ylabels), given=x, target=y)
    bayes_prior = Valuation([x], [{(lab,)} for lab in x.labels], [w / sum(prior) for w in prior])
    combined = post.combine(bayes_prior)
    j = ylabels.index(observed)
    joint = [Fraction(p) * Fraction(ws[j], sum(ws)) for p, ws in zip(prior, likelihood.values(), strict=True)]
    for lab, value in zip(x.labels, joint, strict=True):
        assert combined.bel({(lab,)}) == pytest.approx(float(value / sum(joint)), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(networks(max_vars=3, max_cells=18), st.data())
def test_conditioning_is_combination_with_a_categorical_relation(network, data):
    _, vals, _ = network
    val = vals[0]
    event = data.draw(st.lists(st.sampled_from(configurations(val.variables)), min_size=1, unique=True))
    categorical = Valuation.relation(val.variables, event, mass=1.0)
    if val.pl(event) == 0:
        with pytest.raises(TotalConflictError):
            val.condition(event)
        return
    got = dict(val.condition(event).focal_sets())
    want = dict(val.combine(categorical).focal_sets())
    assert set(got) == set(want)
    for s in got:
        assert got[s] == pytest.approx(want[s], abs=1e-12)
