"""Leaf combiners against references written from Busch et al. (2021) with exact rationals."""

from fractions import Fraction

import numpy as np
import pytest

from dstk.ensemble import combine_leaves, combine_leaves_proba, combine_leaves_to_mass


def _conjunctive(masses, n_classes):
    """Unnormalised conjunctive rule on masses given as {frozenset: Fraction} (the definition)."""
    out = {frozenset(range(n_classes)): Fraction(1)}
    for mass in masses:
        combined: dict = {}
        for a, value_a in out.items():
            for b, value_b in mass.items():
                combined[a & b] = combined.get(a & b, Fraction(0)) + value_a * value_b
        out = combined
    return out


@pytest.mark.parametrize("seed", range(30))
def test_dempster_combiner_equals_the_conjunctive_rule_on_dirichlet_leaves(seed):
    # section 4.0.2: leaf masses m({k}) = c_k / (N + 1), m(frame) = 1 / (N + 1), combined conjunctively
    rng = np.random.default_rng(seed)
    n_classes, n_trees = int(rng.integers(2, 4)), int(rng.integers(1, 5))
    counts = rng.integers(0, 6, size=(1, n_trees, n_classes))
    leaves = []
    for row in counts[0].tolist():
        mass = {frozenset([k]): Fraction(c, sum(row) + 1) for k, c in enumerate(row)}
        mass[frozenset(range(n_classes))] = Fraction(1, sum(row) + 1)
        leaves.append(mass)
    reference = _conjunctive(leaves, n_classes)
    expected = np.zeros(2**n_classes)
    for focal, value in reference.items():
        expected[sum(2**k for k in focal)] += float(value)
    got = combine_leaves_to_mass(
        counts, combiner="dempster", normalize=False, model="imprecise_dirichlet"
    ).to_array()[0]
    np.testing.assert_allclose(got, expected, atol=1e-13)
    conflict = reference.get(frozenset(), Fraction(0))
    if conflict < 1:
        normalized = combine_leaves_to_mass(
            counts, combiner="dempster", model="imprecise_dirichlet"
        ).to_array()[0]
        expected_normalized = expected / float(1 - conflict)
        expected_normalized[0] = 0.0
        np.testing.assert_allclose(normalized, expected_normalized, atol=1e-13)


@pytest.mark.parametrize("seed", range(30))
def test_score_combiners_equal_exact_rationals(seed):
    # section 3.1.1 (probability, Laplace) with h_avg of section 3.2, and pooling (section 4.0.1);
    # a leaf without counts contributes the uniform distribution
    rng = np.random.default_rng(100 + seed)
    n_classes, n_trees = int(rng.integers(2, 5)), int(rng.integers(1, 6))
    counts = rng.integers(0, 6, size=(3, n_trees, n_classes))
    counts[0, 0] = 0
    for combiner in ("average", "laplace", "pooling"):
        got = combine_leaves_proba(counts, combiner=combiner)
        for sample in range(3):
            rows = counts[sample].tolist()
            if combiner == "average":
                leaf = [
                    [Fraction(c, sum(r)) for c in r] if sum(r) else [Fraction(1, n_classes)] * n_classes
                    for r in rows
                ]
                expected = [sum(p[k] for p in leaf) / n_trees for k in range(n_classes)]
            elif combiner == "laplace":
                leaf = [[Fraction(c + 1, sum(r) + n_classes) for c in r] for r in rows]
                expected = [sum(p[k] for p in leaf) / n_trees for k in range(n_classes)]
            else:
                total = [sum(r[k] for r in rows) for k in range(n_classes)]
                expected = (
                    [Fraction(c, sum(total)) for c in total]
                    if sum(total)
                    else [Fraction(1, n_classes)] * n_classes
                )
            np.testing.assert_allclose(got[sample], [float(e) for e in expected], atol=1e-14)


@pytest.mark.parametrize("seed", range(20))
def test_eva_score_equals_its_formula(seed):
    # section 4.0.4: score_k = sum_t log p_t(k) - (T - 1) log P(k), p_t(k) = (c_tk + s) / (N_t + K s)
    rng = np.random.default_rng(200 + seed)
    n_classes, n_trees = int(rng.integers(2, 5)), int(rng.integers(1, 6))
    counts = rng.integers(0, 8, size=(2, n_trees, n_classes))
    prior = rng.dirichlet(np.ones(n_classes)) * 0.98 + 0.02 / n_classes
    smoothing = 0.5
    scores = combine_leaves(counts, combiner="eva", class_prior=prior, smoothing=smoothing)
    p = (counts + smoothing) / (counts.sum(axis=2, keepdims=True) + n_classes * smoothing)
    expected = np.log(p).sum(axis=1) - (n_trees - 1) * np.log(prior)
    if n_classes == 2:
        expected = expected[:, 1] - expected[:, 0]
        np.testing.assert_allclose(scores, expected, rtol=1e-12, atol=1e-12)
    else:
        # per-class scores up to a constant per sample
        np.testing.assert_allclose(
            scores - scores.mean(axis=1, keepdims=True),
            expected - expected.mean(axis=1, keepdims=True),
            rtol=1e-12,
            atol=1e-12,
        )
