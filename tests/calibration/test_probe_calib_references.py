"""Calibrators checked against references written from their definitions (exact rationals, brute force)."""

from fractions import Fraction

import numpy as np
import pytest

from dstk.calibration import IsotonicCalibrator, VennAbersCalibrator, conformal_p_values


def _pav_at(scores, labels, at):
    """Isotonic (PAV) fit at the score ``at``, in exact rationals; tied scores pooled first."""
    blocks = []  # [sum of labels, count, number of distinct scores]
    for value in sorted(set(scores)):
        members = [label for score, label in zip(scores, labels) if score == value]
        blocks.append([Fraction(sum(members)), Fraction(len(members)), [value]])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
            total, count, values = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
            blocks[-1][2] += values
    return next(total / count for total, count, values in blocks if at in values)


@pytest.mark.parametrize("seed", range(40))
def test_venn_abers_matches_vovk_petej_definition(seed):
    # Vovk & Petej (2014), Algorithm 1: p_y is the PAV fit at s with (s, y) added
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 14))
    scores = rng.integers(0, 6, n).astype(float)
    labels = rng.integers(0, 2, n)
    labels[:2] = [0, 1]
    tests = np.unique(np.r_[rng.integers(-1, 7, 4).astype(float), scores[:2], 2.5])
    bel, pl = VennAbersCalibrator().fit(scores, labels).predict_interval(tests)
    for i, s in enumerate(tests):
        p0 = _pav_at([*scores.tolist(), s], [*labels.tolist(), 0], s)
        p1 = _pav_at([*scores.tolist(), s], [*labels.tolist(), 1], s)
        assert bel[i] == pytest.approx(float(p0), abs=1e-12)
        assert pl[i] == pytest.approx(float(p1), abs=1e-12)


@pytest.mark.parametrize("make", [VennAbersCalibrator, IsotonicCalibrator])
def test_weight_two_equals_a_repeated_sample(make):
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(2, 10))
        scores, labels = rng.normal(size=n), rng.integers(0, 2, n)
        labels[:2] = [0, 1]
        weights = rng.integers(0, 3, n)
        weights[:2] = 1
        tests = rng.normal(size=6)
        weighted = make().fit(scores, labels, sample_weight=weights).predict_mass(tests).to_array()
        repeated = make().fit(np.repeat(scores, weights), np.repeat(labels, weights)).predict_mass(tests)
        np.testing.assert_array_equal(weighted, repeated.to_array())


@pytest.mark.parametrize("mondrian", [False, True])
def test_conformal_p_values_match_their_definition(mondrian):
    # Vovk, Gammerman & Shafer (2005), Sec. 4.1 and 4.5
    rng = np.random.default_rng(9)
    for _ in range(60):
        n, k, m = int(rng.integers(1, 15)), int(rng.integers(2, 5)), int(rng.integers(1, 4))
        calibration = rng.integers(0, 5, n + k).astype(float)
        labels = np.r_[rng.integers(0, k, n), np.arange(k)] if mondrian else None
        test = rng.integers(0, 5, (m, k)).astype(float)
        p = conformal_p_values(calibration, test, calibration_labels=labels)
        for i in range(m):
            for c in range(k):
                pool = calibration if labels is None else calibration[labels == c]
                expected = Fraction(1 + int(np.sum(pool >= test[i, c])), 1 + pool.size)
                assert p[i, c] == float(expected)
