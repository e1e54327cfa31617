"""Randomised comparisons of the core with brute force from the definitions, on the less audited paths.

Frames of 1-3 and 17-20 labels (focal-set form), m(empty) > 0, batches that broadcast, frames in
another label order; references enumerate focal-set tuples in exact rationals (Shafer 1976, ch. 3;
Smets & Kennes 1994, Eq. 3.1 for BetP; Dubois & Prade 1988, Eq. 3; Martin & Osswald 2006 for PCR6;
Mercier, Quost & Denoeux 2008, Prop. 8 for contextual discounting).
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import dstk.core as C
from dstk import MassFunction, combine, combine_with_conflict


def _combine_pairs(ms, n, op):
    out = {}
    for combo in itertools.product(*[list(m.items()) for m in ms]):
        target, value = op([s for s, _ in combo], n), math.prod(x for _, x in combo)
        if isinstance(target, dict):  # PCR6 redistribution
            for s, share in target.items():
                out[s] = out.get(s, 0) + value * share(combo)
        else:
            out[target] = out.get(target, 0) + value
    return out


def _meet(sets, n):
    out = (1 << n) - 1
    for s in sets:
        out &= s
    return out


def _join(sets, n):
    out = 0
    for s in sets:
        out |= s
    return out


def _dubois_prade(ms, n):
    acc = ms[0]
    for m in ms[1:]:
        acc = _combine_pairs([acc, m], n, lambda s, n: _meet(s, n) or _join(s, n))
    return acc


def _pcr6(ms, n):
    out = {}
    for combo in itertools.product(*[list(m.items()) for m in ms]):
        meet, value = _meet([s for s, _ in combo], n), math.prod(x for _, x in combo)
        if meet:
            out[meet] = out.get(meet, 0) + value
        else:
            total = sum(x for _, x in combo)
            for s, x in combo:
                out[s] = out.get(s, 0) + value * x / total
    return out


def _random_mass(rng, n, k, *, empty):
    out = {}
    for _ in range(k):
        s = int(rng.integers(0 if empty else 1, 1 << n))
        out[s] = out.get(s, 0) + Fraction(int(rng.integers(1, 20)))
    total = sum(out.values())
    return {s: v / total for s, v in out.items()}


def _mf(m, labels):
    return MassFunction.from_focal_sets(list(m), np.array([float(v) for v in m.values()]), labels)


def _assert_masses(got, ref, atol=1e-12):
    for s, v in ref.items():
        assert got.mass(s) == pytest.approx(float(v), abs=atol), s
    assert sum(got.focal_sets().values()) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("n", [1, 3, 17, 20])
def test_rules_and_transforms_match_brute_force(n):
    rng = np.random.default_rng(n)
    labels = [f"w{i}" for i in range(n)]
    full = (1 << n) - 1
    for _ in range(8):
        m1 = _random_mass(rng, n, 4, empty=rng.random() < 0.4)
        m2 = _random_mass(rng, n, 3, empty=rng.random() < 0.4)
        m2[full] = m2.get(full, 0)  # keep the frame a focal set now and then
        a, b = _mf(m1, labels), _mf(m2, labels)
        conj = _combine_pairs([m1, m2], n, _meet)
        _assert_masses(combine([a, b], rule="conjunctive"), conj)
        _assert_masses(combine([a, b], rule="disjunctive"), _combine_pairs([m1, m2], n, _join))
        _assert_masses(combine([a, b], rule="dubois_prade"), _dubois_prade([m1, m2], n))
        kappa = conj.get(0, 0)
        assert C.conflict(a, b) == pytest.approx(float(kappa), abs=1e-12)
        if kappa < 1:
            dempster, k = combine_with_conflict([a, b], rule="dempster")
            assert k == pytest.approx(float(kappa), abs=1e-12)
            _assert_masses(dempster, {s: v / (1 - kappa) for s, v in conj.items() if s})
        if 0 not in m1 and 0 not in m2:
            _assert_masses(combine([a, b], rule="pcr6"), _pcr6([m1, m2], n))
        if m1.get(0, 0) < 1:
            betp = [
                sum(v / s.bit_count() for s, v in m1.items() if s >> i & 1) / (1 - m1.get(0, 0))
                for i in range(n)
            ]
            np.testing.assert_allclose(C.pignistic(a), [float(x) for x in betp], atol=1e-12)
        rates = [Fraction(int(rng.integers(0, 11)), 10) if i < 3 else Fraction(0) for i in range(n)]
        context = [{0: 1 - r, 1 << i: r} for i, r in enumerate(rates) if r]
        expected = _combine_pairs([m1, *context], n, _join) if context else m1
        _assert_masses(C.contextual_discount(a, [float(r) for r in rates]), expected)


def test_batches_broadcast_like_row_by_row_combinations_in_focal_set_form():
    rng = np.random.default_rng(7)
    labels = [f"x{i}" for i in range(18)]
    full = (1 << 18) - 1

    def batch(shape, k):
        sets = sorted({int(s) for s in rng.integers(1, full, size=k)} | {full})
        masses = rng.random(shape + (len(sets),))
        return sets, masses / masses.sum(-1, keepdims=True)

    (s1, x1), (s2, x2) = batch((3, 1), 4), batch((1, 2), 3)
    a, b = MassFunction.from_focal_sets(s1, x1, labels), MassFunction.from_focal_sets(s2, x2, labels)
    for rule in ("conjunctive", "dempster", "disjunctive", "yager", "dubois_prade", "pcr6", "cautious"):
        together, kappa = combine_with_conflict([a, b], rule=rule)
        assert together.batch_shape == (3, 2)
        for i, j in np.ndindex(3, 2):
            alone, k = combine_with_conflict(
                [
                    MassFunction.from_focal_sets(s1, x1[i, 0], labels),
                    MassFunction.from_focal_sets(s2, x2[0, j], labels),
                ],
                rule=rule,
            )
            assert kappa[i, j] == pytest.approx(k, abs=1e-12)
            got, ref = together.batch[i, j].focal_sets(1e-15), alone.focal_sets(1e-15)
            assert got.keys() == ref.keys()
            np.testing.assert_allclose([got[s] for s in ref], list(ref.values()), atol=1e-12)


@pytest.mark.parametrize("rule", sorted(C.RULES))
def test_rules_do_not_depend_on_the_order_of_the_frame_labels(rule):
    rng = np.random.default_rng(3)
    n = 3
    perm = [2, 0, 1]  # position j of the new frame holds label perm[j]
    arrays = []
    for _ in range(2):
        x = rng.random(1 << n)
        x[0] = 0.1 if rule == "bold" else 0.0
        x[-1] += 0.2
        arrays.append(x / x.sum())

    def reorder(x):
        out = np.zeros_like(x)
        for mask in range(1 << n):
            out[sum(1 << perm.index(i) for i in range(n) if mask >> i & 1)] = x[mask]
        return out

    base = combine([MassFunction.from_array(x, frame=range(n)) for x in arrays], rule=rule).to_array()
    moved = combine([MassFunction.from_array(reorder(x), frame=perm) for x in arrays], rule=rule).to_array()
    np.testing.assert_allclose(moved, reorder(base), atol=1e-13)
