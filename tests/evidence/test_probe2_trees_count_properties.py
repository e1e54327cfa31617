"""Second review of ``from_counts``: exact-rational references and batch shapes.

Dempster's model (Xu et al. 2016, Eq. 24; any number of classes)
m({c}) = n_c / (N + 1), m(frame) = 1 / (N + 1); the imprecise Dirichlet model
(Walley 1996) m({c}) = n_c / (N + s), m(frame) = s / (N + s); Bayes
m({1}) = k / n; inverse pignistic (Dubois, Prade & Smets): m({1}) = 2p - 1,
m(frame) = 2(1 - p) for p = k/n >= 1/2, symmetrically below.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dstk.evidence import COUNT_MODELS, from_counts


def _exact(counts, model, strength=Fraction(1)):
    counts = [Fraction(int(c)) for c in counts]
    n_classes = len(counts)
    total = sum(counts)
    masses = [Fraction(0)] * 2**n_classes
    if model in ("dempster", "imprecise_dirichlet"):
        s = Fraction(1) if model == "dempster" else strength
        for c, count in enumerate(counts):
            masses[2**c] = count / (total + s)
        masses[-1] = s / (total + s)
    elif model == "bayes":
        masses[2] = counts[1] / total
        masses[1] = 1 - masses[2]
    else:  # inverse_pignistic
        p = counts[1] / total if total else Fraction(1, 2)
        if p >= Fraction(1, 2):
            masses[2], masses[3] = 2 * p - 1, 2 * (1 - p)
        else:
            masses[1], masses[3] = 1 - 2 * p, 2 * p
    return masses


@settings(max_examples=150, deadline=None)
@given(counts=st.lists(st.integers(0, 10**6), min_size=2, max_size=5), strength=st.integers(1, 5))
def test_class_count_models_equal_exact_rationals(counts, strength):
    for model in ("dempster", "imprecise_dirichlet"):
        options = {"prior_strength": float(strength)} if model == "imprecise_dirichlet" else {}
        got = from_counts(counts, model=model, **options).to_array()
        expected = _exact(counts, model, Fraction(strength))
        np.testing.assert_allclose(got, [float(value) for value in expected], rtol=2e-16, atol=0)


@settings(max_examples=150, deadline=None)
@given(negative=st.integers(0, 10**9), positive=st.integers(0, 10**9))
def test_bayes_and_inverse_pignistic_equal_exact_rationals(negative, positive):
    for model in ("bayes", "inverse_pignistic"):
        if model == "bayes" and negative + positive == 0:
            continue
        got = from_counts([negative, positive], model=model).to_array()
        expected = [float(value) for value in _exact([negative, positive], model)]
        np.testing.assert_allclose(got, expected, rtol=0, atol=4e-16)


@settings(max_examples=60, deadline=None)
@given(
    counts=hnp.arrays(
        np.int64,
        hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4).map(lambda shape: shape[:-1] + (2,)),
        elements=st.integers(1, 200),
    ),
    model=st.sampled_from(COUNT_MODELS),
)
def test_a_batch_equals_its_rows_and_masses_are_valid(counts, model):
    values = from_counts(counts, model=model).to_array()
    assert values.shape == counts.shape[:-1] + (4,)
    if values.size:
        assert np.isfinite(values).all() and values.min() >= 0.0
        np.testing.assert_allclose(values.sum(axis=-1), 1.0, atol=1e-12)
    for index in np.ndindex(counts.shape[:-1]):
        np.testing.assert_array_equal(values[index], from_counts(counts[index], model=model).to_array())


@pytest.mark.parametrize("model", COUNT_MODELS)
def test_zero_counts_are_vacuous_except_bayes(model):
    if model == "bayes":
        with pytest.raises(ValueError, match="undefined for n = 0"):
            from_counts([0, 0], model=model)
    else:
        assert from_counts([0, 0], model=model).to_array().tolist() == [0.0, 0.0, 0.0, 1.0]
