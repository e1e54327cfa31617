"""Metrics checked against scikit-learn and brute-force definitions on random cases."""

import numpy as np
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import brier_score_loss, roc_auc_score

from dstk.metrics import (
    brier_score,
    corp_decomposition,
    expected_calibration_error,
    isotonic_calibration_score,
    roc_auc,
)


def test_binary_metrics_match_scikit_learn_and_their_definitions():
    rng = np.random.default_rng(2)
    for _ in range(100):
        n = int(rng.integers(2, 40))
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        p = np.round(rng.random(n), int(rng.integers(1, 4)))  # ties
        assert np.isclose(brier_score(y, p), brier_score_loss(y, p), rtol=1e-12, atol=0)
        assert np.isclose(roc_auc(y, p), roc_auc_score(y, p), rtol=1e-12)
        assert np.isclose(roc_auc(y, p * 1e300 - 5e299), roc_auc_score(y, p), rtol=1e-12)
        fit = IsotonicRegression(y_min=0, y_max=1).fit(p, y).predict(p)
        assert np.isclose(isotonic_calibration_score(y, p), np.mean(np.abs(p - fit)), rtol=1e-10, atol=1e-14)
        # Dimitriadis, Gneiting & Jordan (2021), Eq. (5): BS = MCB - DSC + UNC with the PAV recalibration
        corp = corp_decomposition(y, p)
        score, recalibrated, base = np.mean((p - y) ** 2), np.mean((fit - y) ** 2), y.mean() * (1 - y.mean())
        np.testing.assert_allclose(
            [corp.score, corp.miscalibration, corp.discrimination, corp.uncertainty],
            [score, score - recalibrated, base - recalibrated, base],
            atol=1e-12,
        )


def test_multiclass_brier_and_top_label_ece_match_their_definitions():
    rng = np.random.default_rng(3)
    for _ in range(100):
        n, k, bins = int(rng.integers(2, 40)), int(rng.integers(2, 5)), int(rng.integers(1, 12))
        probabilities = rng.dirichlet(np.ones(k), n)
        y = rng.integers(0, k, n)
        indicator = np.eye(k)[y]
        assert np.isclose(brier_score(y, probabilities), np.mean(((indicator - probabilities) ** 2).sum(1)))
        confidence = probabilities.max(1)
        correct = (probabilities.argmax(1) == y).astype(float)
        edges = np.linspace(0, 1, bins + 1)
        index = np.clip(np.searchsorted(edges, confidence, side="left") - 1, 0, bins - 1)
        expected = (
            sum(
                abs(confidence[index == b].mean() - correct[index == b].mean()) * np.sum(index == b)
                for b in range(bins)
                if np.any(index == b)
            )
            / n
        )
        assert np.isclose(
            expected_calibration_error(y, probabilities, bins=bins), expected, rtol=1e-10, atol=1e-14
        )
