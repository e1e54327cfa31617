"""Uncertainty measures, distances and transforms against their definitions, by brute force.

Random mass functions in every storage form (dense n <= 16, focal sets 17-64 labels, wide 65+) are
compared with pure-Python sums straight from the papers' formulas; batches against row-by-row results;
relabelling the frame permutes the per-label outputs and leaves the scalar measures unchanged.
"""

import math
from fractions import Fraction

import numpy as np
import pytest

from dstk import Frame, MassFunction
from dstk.core import (
    consonant_from_contour,
    discord,
    inverse_pignistic,
    jirousek_shenoy_entropy,
    jousselme_distance,
    nonspecificity,
    shannon_entropy,
    strife,
    uncertainty_decomposition,
)
from dstk.exceptions import InvalidMassError


def card(a):
    return bin(a).count("1")


def reference(focals, n):
    """The measures of a normalised mass function [(bitmask, mass), ...] from their definitions."""
    contour = [sum(v for a, v in focals if a >> i & 1) for i in range(n)]
    betp = [sum(v / card(a) for a, v in focals if a >> i & 1) for i in range(n)]
    total = sum(contour)
    plausibility = [c / total for c in contour]
    nonspec = sum(v * math.log2(card(a)) for a, v in focals)
    return {
        # Dubois & Prade (1985): N(m) = sum_A m(A) log2 |A|
        "nonspecificity": nonspec,
        # Yager (1983): S(m) = sum_A m(A) / |A|
        "specificity": sum(v / card(a) for a, v in focals),
        # Klir & Ramer (1990): D(m) = -sum_A m(A) log2 (1 - sum_B m(B) |B - A| / |B|)
        "discord": -sum(
            v * math.log2(1 - sum(w * card(b & ~a) / card(b) for b, w in focals)) for a, v in focals
        ),
        # Klir & Parviz (1992): S(m) = -sum_A m(A) log2 (1 - sum_B m(B) |A - B| / |A|)
        "strife": -sum(
            v * math.log2(1 - sum(w * card(a & ~b) / card(a) for b, w in focals)) for a, v in focals
        ),
        # Jirousek & Shenoy (2018), Eq. (8)
        "jirousek_shenoy": -sum(p * math.log2(p) for p in plausibility if p > 0) + nonspec,
        "contour": contour,
        "pignistic": betp,
        "plausibility_transform": plausibility,
    }


def computed(m):
    return {
        "nonspecificity": nonspecificity(m),
        "specificity": m.specificity(),
        "discord": discord(m),
        "strife": strife(m),
        "jirousek_shenoy": jirousek_shenoy_entropy(m),
        "contour": m.contour(),
        "pignistic": m.pignistic(),
        "plausibility_transform": m.plausibility_transform(),
    }


def random_focal_sets(rng, n, count):
    masks = set()
    while len(masks) < count:
        size = int(rng.integers(1, n + 1))
        masks.add(sum(1 << int(i) for i in rng.choice(n, size=size, replace=False)))
    return sorted(masks)


def build(masks, masses, n):
    frame = Frame(range(n))
    if n <= 64:
        return MassFunction.from_focal_sets(np.array(masks, dtype=np.uint64), masses, frame)
    member = np.array([[a >> i & 1 for i in range(n)] for a in masks], dtype=bool)
    return MassFunction.from_focal_sets(member, masses, frame)


@pytest.mark.parametrize(
    "n, count", [(1, 1), (3, 4), (6, 12), (12, 20), (20, 15), (50, 10), (70, 8), (130, 6)]
)
def test_measures_and_transforms_against_their_definitions(n, count):
    rng = np.random.default_rng(1000 + n)
    for _ in range(12):
        masks = random_focal_sets(rng, n, min(count, 2**n - 1))
        masses = rng.dirichlet(np.ones(len(masks)))
        m = build(masks, masses, n)
        expected = reference(list(zip(masks, masses)), n)
        got = computed(m)
        for name, value in expected.items():
            np.testing.assert_allclose(got[name], value, rtol=1e-9, atol=1e-12, err_msg=name)
        # the method and the function give one answer
        assert m.nonspecificity() == pytest.approx(expected["nonspecificity"], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("n", [3, 20, 70])
def test_batch_equals_row_by_row_and_relabelling_permutes(n):
    rng = np.random.default_rng(n)
    masks = random_focal_sets(rng, n, 6)
    masses = rng.dirichlet(np.ones(len(masks)), size=5)
    batch = build(masks, masses, n)
    rows = [build(masks, row, n) for row in masses]
    for name, value in computed(batch).items():
        for i, row in enumerate(rows):
            np.testing.assert_allclose(np.asarray(value)[i], computed(row)[name], rtol=1e-12, atol=1e-15)
    # relabelling: label i of the new frame is label perm[i] of the old one
    perm = rng.permutation(n)
    inverse = np.argsort(perm)
    new_masks = [sum(1 << int(inverse[i]) for i in range(n) if a >> i & 1) for a in masks]
    relabelled = build(new_masks, masses, n)
    old, new = computed(batch), computed(relabelled)
    for name in old:
        if np.ndim(old[name]) == 2:
            np.testing.assert_allclose(new[name], old[name][:, perm], rtol=1e-12, atol=1e-15)
        else:
            np.testing.assert_allclose(new[name], old[name], rtol=1e-12, atol=1e-15)


def test_jousselme_distance_exact_on_rationals():
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 4):
        for _ in range(20):
            size = 1 << n
            a = [Fraction(int(x), 12) for x in rng.multinomial(12, np.ones(size) / size)]
            b = [Fraction(int(x), 12) for x in rng.multinomial(12, np.ones(size) / size)]
            d = [x - y for x, y in zip(a, b)]
            total = sum(
                d[i] * d[j] * (Fraction(card(i & j), card(i | j)) if i | j else 1)
                for i in range(size)
                for j in range(size)
            )
            frame = Frame(range(n))
            got = jousselme_distance(
                MassFunction.from_array(np.array(a, dtype=float), frame),
                MassFunction.from_array(np.array(b, dtype=float), frame),
            )
            assert got == pytest.approx(math.sqrt(float(total / 2)), rel=1e-12, abs=1e-14)


def test_jousselme_distance_worked_value():
    # Jousselme, Grenier & Bosse (2001), Eq. (5) for m1({a}) = 1 against the vacuous m2 on {a, b, c}:
    # d^2 = 0.5 (D({a}, {a}) + D(Omega, Omega) - 2 D({a}, Omega)) = 0.5 (2 - 2/3) = 2/3
    m1 = MassFunction({"a": 1.0}, frame="abc")
    m2 = MassFunction.vacuous("abc")
    assert jousselme_distance(m1, m2) == pytest.approx(math.sqrt(2 / 3), rel=1e-14)


def test_inverse_pignistic_and_consonant_from_contour_definitions():
    rng = np.random.default_rng(3)
    for n in (1, 2, 3, 5, 8, 20, 70):
        p = rng.dirichlet(np.ones(n), size=4)
        p[0, : n // 2] = p[0, 0]  # ties
        p[0] /= p[0].sum()
        m = inverse_pignistic(p)
        np.testing.assert_allclose(m.pignistic(), p, rtol=1e-10, atol=1e-13)
        contour = rng.random((4, n))
        c = consonant_from_contour(contour)
        np.testing.assert_allclose(c.contour(), contour, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(c.conflict, 1 - contour.max(axis=1), rtol=1e-12, atol=1e-13)
        if n <= 8:  # pl(A) = max over A of the contour (Shafer 1976, Theorem 10.1)
            for row in range(4):
                for a in range(1, 2**n):
                    labels = [i for i in range(n) if a >> i & 1]
                    assert c.batch[row].pl(labels) == pytest.approx(contour[row, labels].max(), abs=1e-12)


def test_measures_accept_what_the_other_functions_accept():
    """A dict {focal set: mass} is a mass function for jousselme_distance; the measures read it too."""
    as_dict = {"a": 0.5, "a,b,c,d": 0.5}
    assert nonspecificity(as_dict) == 1.0
    assert discord(as_dict) == discord(MassFunction(as_dict))
    assert strife(as_dict) == strife(MassFunction(as_dict))
    assert jirousek_shenoy_entropy(as_dict) == jirousek_shenoy_entropy(MassFunction(as_dict))
    assert uncertainty_decomposition(as_dict) == uncertainty_decomposition(MassFunction(as_dict))


def test_shannon_entropy_of_an_empty_vector_says_so():
    with pytest.raises(ValueError, match="at least one outcome"):
        shannon_entropy(np.zeros((3, 0)))


def test_nonspecificity_method_and_function_agree_on_subnormal_mass_functions():
    subnormal = MassFunction({(): 0.3, "a": 0.2, "a,b": 0.5})
    with pytest.raises(InvalidMassError):
        nonspecificity(subnormal)
    with pytest.raises(InvalidMassError):
        subnormal.nonspecificity()


def test_jousselme_distance_of_batches_that_do_not_broadcast_names_the_shapes():
    a = MassFunction.vacuous("ab", batch_shape=(3,))
    b = MassFunction.vacuous("ab", batch_shape=(2,))
    with pytest.raises(
        ValueError, match=r"batch shapes of the two mass functions must broadcast; got \(3,\), \(2,\)"
    ):
        jousselme_distance(a, b)
    assert jousselme_distance(a.reshape(3, 1), b).shape == (3, 2)


def test_pignistic_of_a_batch_with_a_totally_conflicting_row_names_the_row():
    from dstk.core import pignistic

    values = np.zeros((2, 3, 4))
    values[..., 3] = 1.0
    values[1, 2] = [1.0, 0, 0, 0]
    m = MassFunction.from_array(values, Frame("ab"))
    with pytest.raises(InvalidMassError, match=r"batch index \(1, 2\).*1 of the 6 mass functions"):
        pignistic(m)
    with pytest.raises(InvalidMassError, match=r"total conflict"):
        pignistic(MassFunction.from_array([1.0, 0, 0, 0], Frame("ab")))
