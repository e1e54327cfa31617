"""Second review of the Dempster leaf combiner against Dempster's rule from its definition.

Leaves as imprecise Dirichlet mass functions (Walley 1996): m({c}) = n_c / (N + s),
m(frame) = s / (N + s); the trees' masses combined by Dempster's rule
(Shafer 1976, ch. 3): m(A) = sum_{B & C = A} m1(B) m2(C) / (1 - conflict),
in exact rationals.
"""

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk.ensemble import combine_leaves_to_mass


def _leaf_mass(counts, strength):
    total = sum(counts)
    mass = {}
    for c, count in enumerate(counts):
        if count:
            mass[1 << c] = Fraction(count, 1) / (total + strength)
    mass[(1 << len(counts)) - 1] = strength / (total + strength)
    return mass


def _dempster(first, second):
    out = {}
    for a, x in first.items():
        for b, y in second.items():
            out[a & b] = out.get(a & b, Fraction(0)) + x * y
    conflict = out.pop(0, Fraction(0))
    return {subset: value / (1 - conflict) for subset, value in out.items()}


@settings(max_examples=120, deadline=None)
@given(
    n_classes=st.integers(2, 3),
    n_trees=st.integers(1, 5),
    strength=st.integers(1, 3),
    data=st.data(),
)
def test_dempster_leaves_equal_the_rule_in_rationals(n_classes, n_trees, strength, data):
    counts = np.array(
        data.draw(
            st.lists(
                st.lists(st.integers(0, 9), min_size=n_classes, max_size=n_classes),
                min_size=n_trees,
                max_size=n_trees,
            )
        )
    )
    combined = _leaf_mass(counts[0].tolist(), Fraction(strength))
    for leaf in counts[1:]:
        combined = _dempster(combined, _leaf_mass(leaf.tolist(), Fraction(strength)))
    expected = np.zeros(2**n_classes)
    for subset, value in combined.items():
        expected[subset] = float(value)
    got = combine_leaves_to_mass(
        counts[None], combiner="dempster", model="imprecise_dirichlet", prior_strength=float(strength)
    ).to_array()[0]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
