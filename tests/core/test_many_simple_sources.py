"""Many simple support functions in focal-set form: combined, not refused by the worst-case estimate.

Hundreds of simple support functions (one singleton and the frame each, the
evidence of a k-NN neighbour or a classifier) keep few focal sets however many
they are, although the worst case of a fold by pairs multiplies the focal sets
at every step.  The fold runs on the best case and refuses only when its
focal sets do multiply.  References: the closed forms of the conjunctive and
disjunctive combinations of simple support functions on singletons.
"""

import math

import numpy as np
import pytest

import dstk
from dstk import Frame, MassFunction
from dstk.core import _sparse
from dstk.exceptions import FrameTooLargeError


def _simple_sources(n_labels, n_sources, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(n_labels, size=n_sources)
    weights = rng.uniform(0.01, 0.2, size=n_sources)
    frame = Frame(range(n_labels))  # label i is bit i
    full = (1 << n_labels) - 1
    sources = [
        MassFunction.from_focal_sets([1 << int(label), full], [w, 1.0 - w], frame)
        for label, w in zip(labels, weights)
    ]
    return frame, labels, weights, sources


def _as_dict(mass_function):
    return {
        sum(1 << label for label in focal): float(m)
        for focal, m in mass_function.focal_sets().items()
        if m > 0
    }


@pytest.mark.parametrize("n_labels", [18, 40])
@pytest.mark.parametrize("n_sources", [150, 800])
@pytest.mark.parametrize("rule", ["conjunctive", "dempster"])
def test_conjunctive_rules_match_the_closed_form(n_labels, n_sources, rule):
    _, labels, weights, sources = _simple_sources(n_labels, n_sources, seed=n_labels + n_sources)
    # per label, the simple supports combine to one of weight 1 - prod(1 - w)
    keep = np.ones(n_labels)
    for label, w in zip(labels, weights):
        keep[label] *= 1.0 - w
    support = 1.0 - keep
    expected = {(1 << n_labels) - 1: float(np.prod(keep))}
    for label in range(n_labels):
        if support[label] > 0:
            others = np.prod(np.delete(keep, label))
            expected[1 << label] = float(support[label] * others)
    nonempty = sum(expected.values())  # far below 1 with 800 sources: normalise by it, not by 1 - conflict
    if rule == "dempster":
        expected = {f: m / nonempty for f, m in expected.items()}
    else:
        expected[0] = 1.0 - nonempty
    got = _as_dict(dstk.combine(sources, rule=rule))
    assert set(got) == {f for f, m in expected.items() if m > 0}
    for focal, mass in expected.items():
        assert got[focal] == pytest.approx(mass, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("n_labels", [18, 40])
def test_disjunctive_rule_matches_the_closed_form(n_labels):
    _, labels, weights, sources = _simple_sources(n_labels, 400, seed=7)
    union = 0
    for label in labels:
        union |= 1 << int(label)
    full = (1 << n_labels) - 1
    every_singleton = math.prod(weights.tolist())  # underflows to 0: then all the mass is on the frame
    got = _as_dict(dstk.combine(sources, rule="disjunctive"))
    expected = {full: 1.0 - every_singleton}
    if every_singleton > 0 and union != full:
        expected[union] = every_singleton
    assert set(got) == set(expected)
    for focal, mass in expected.items():
        assert got[focal] == pytest.approx(mass, rel=1e-12)


def test_a_fold_whose_focal_sets_multiply_is_refused_with_what_it_holds():
    n_labels, frame = 40, Frame(range(40))
    full = (1 << n_labels) - 1
    # source j: the frame without label j, or the frame: the fold holds 2**j focal sets after j sources
    sources = [MassFunction.from_focal_sets([full ^ (1 << j), full], [0.5, 0.5], frame) for j in range(40)]
    # the best case is under the limit, the worst case far above: the fold starts, then refuses
    sizes = [2] * len(sources)
    assert (
        _sparse.pairs_seconds(sizes, 1, n_labels, "conjunctive", growing=False)
        <= _sparse.MAX_PAIRWISE_SECONDS
    )
    assert _sparse.pairs_seconds(sizes, 1, n_labels, "conjunctive") > _sparse.MAX_PAIRWISE_SECONDS
    with pytest.raises(
        FrameTooLargeError, match=r"after [\d,]+ of them the combination holds [\d,]+ focal sets"
    ):
        dstk.combine(sources, rule="conjunctive")


def test_the_fold_budget_never_refuses_what_the_worst_case_accepts():
    # the rest is estimated with the focal sets held, at most the worst case's count at each step
    rng = np.random.default_rng(11)
    for _ in range(200):
        sizes = rng.integers(1, 6, size=int(rng.integers(2, 8))).tolist()
        labels, rows = int(rng.integers(1, 30)), int(rng.integers(1, 50))
        worst = _sparse.pairs_seconds(sizes, rows, labels, "dempster")
        if worst > _sparse.MAX_PAIRWISE_SECONDS:
            continue
        held, spent, bound = sizes[0], 0.0, 2.0**labels
        remaining = np.append(np.cumsum(sizes[::-1])[::-1], 0)
        for done in range(1, len(sizes)):
            spent += _sparse.check_fold_budget(spent, held, remaining, rows, labels, "dempster", done)
            held = min(bound, held * sizes[done])
        assert spent == pytest.approx(worst, rel=1e-12)


def _wide_sources(n_labels, focal_rows, weights):
    frame = Frame(range(n_labels))
    return [MassFunction.from_focal_sets(member, w, frame) for member, w in zip(focal_rows, weights)]


def test_wide_frames_combine_many_simple_sources_as_the_closed_form():
    rng = np.random.default_rng(5)
    n_labels, n_sources = 100, 600
    labels = rng.integers(n_labels, size=n_sources)
    weights = rng.uniform(0.01, 0.2, size=n_sources)
    rows = []
    for label in labels:
        member = np.ones((2, n_labels), dtype=bool)
        member[0] = False
        member[0, label] = True
        rows.append(member)
    sources = _wide_sources(n_labels, rows, [[w, 1.0 - w] for w in weights])
    keep = np.ones(n_labels)
    for label, w in zip(labels, weights):
        keep[label] *= 1.0 - w
    expected = {frozenset(range(n_labels)): float(np.prod(keep))}
    for label in np.unique(labels):
        expected[frozenset([int(label)])] = float((1.0 - keep[label]) * np.prod(np.delete(keep, label)))
    nonempty = sum(expected.values())
    got = dstk.combine(sources, rule="dempster").focal_sets()
    assert set(got) == set(expected)
    for focal, mass in expected.items():
        assert got[focal] == pytest.approx(mass / nonempty, rel=1e-9, abs=1e-300)


def test_a_wide_fold_whose_focal_sets_multiply_is_refused_with_what_it_holds():
    n_labels = 100
    rows = []
    for j in range(40):  # the frame without label j, or the frame: 2**j focal sets after j sources
        member = np.ones((2, n_labels), dtype=bool)
        member[0, j] = False
        rows.append(member)
    sources = _wide_sources(n_labels, rows, [[0.5, 0.5]] * 40)
    with pytest.raises(
        FrameTooLargeError, match=r"after [\d,]+ of them the combination holds [\d,]+ focal sets"
    ):
        dstk.combine(sources, rule="conjunctive")
