"""Probes of subjective-logic opinions: evidence from extreme logits."""

import numpy as np
import pytest

from dstk import Opinion


@pytest.mark.parametrize(
    ("logits", "expected"),
    [
        # b_k = exp(z_k) / (sum_j exp(z_j) + W), u = W / (...): written out with the largest logit factored
        ([800.0, 700.0], [1 / (1 + np.exp(-100.0)), np.exp(-100.0) / (1 + np.exp(-100.0))]),
        ([710.0, 710.0, 0.0], [0.5, 0.5, 0.0]),
        ([1000.0, 0.0], [1.0, 0.0]),
    ],
)
def test_exp_evidence_of_large_logits_keeps_their_ratios(logits, expected):
    opinion = Opinion.from_evidence(logits, activation="exp")
    np.testing.assert_allclose(opinion.belief, expected, rtol=1e-12, atol=1e-300)
    assert 0.0 <= float(opinion.uncertainty) < 1e-300


def test_exp_evidence_of_many_large_logits_does_not_overflow():
    opinion = Opinion.from_evidence(np.full((2, 500), 709.0), activation="exp")
    np.testing.assert_allclose(opinion.belief, 1 / 500, rtol=1e-12)
    assert np.all(np.isfinite(opinion.uncertainty))


def test_exp_evidence_of_an_infinite_logit_is_its_limit():
    opinion = Opinion.from_evidence([np.inf, 3.0, -np.inf], activation="exp")
    np.testing.assert_array_equal(opinion.belief, [1.0, 0.0, 0.0])
    assert float(opinion.uncertainty) == 0.0


@pytest.mark.parametrize("activation", ["identity", "relu", "softplus"])
def test_huge_evidence_does_not_overflow_its_total(activation):
    opinion = Opinion.from_evidence([1e308, 1e308, 0.0], activation=activation)
    np.testing.assert_allclose(opinion.belief, [0.5, 0.5, 0.0], rtol=1e-12, atol=1e-300)
    assert float(opinion.uncertainty) < 1e-300
