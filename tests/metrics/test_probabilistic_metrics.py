"""Probabilistic metrics against brute-force definitions and scikit-learn (optional reference)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk.metrics import (
    ability_to_separate,
    brier_score,
    calibration_measure,
    correctness_rate,
    desirability,
    dirichlet_selection_criterion,
    expected_calibration_error,
    garczarek_accuracy,
    isotonic_calibration_score,
    one_minus_rmse,
    reliability_bins,
    roc_auc,
    well_calibration_ratio,
)


def random_problem(seed, n=60, k=3):
    rng = np.random.RandomState(seed)
    P = rng.dirichlet(np.ones(k), size=n)
    y = rng.randint(0, k, size=n)
    return y, P


# ---------------------------------------------------------------- brute-force references
def ref_correctness(y, P):
    hits = 0
    for i in range(len(y)):
        best = 0
        for k in range(P.shape[1]):
            if P[i, k] > P[i, best]:
                best = k
        hits += best == y[i]
    return hits / len(y)


def ref_one_minus_rmse(y, P):
    K = P.shape[1]
    total = 0.0
    for i in range(len(y)):
        s = sum(((1.0 if y[i] == k else 0.0) - P[i, k]) ** 2 for k in range(K))
        total += math.sqrt(s / K)
    return 1 - total / len(y)


def ref_wcr(y, P):
    K = P.shape[1]
    assigned = [int(np.argmax(row)) for row in P]
    total = 0.0
    for k in range(K):
        members = [i for i in range(len(y)) if assigned[i] == k]
        if not members:
            continue
        for j in range(K):
            cf = sum(P[i, j] for i in members) / len(members)
            cr = sum(1.0 for i in members if y[i] == j) / len(members)
            total += abs(cf - cr)
    return 1 - total / K**2


def ref_garczarek(target, P):
    K = P.shape[1]
    total = 0.0
    for i in range(P.shape[0]):
        total += math.sqrt(sum(((1.0 if target[i] == k else 0.0) - P[i, k]) ** 2 for k in range(K)))
    return 1 - K / (K - 1) * total / P.shape[0]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [2, 3, 5])
def test_against_definitions(seed, k):
    y, P = random_problem(seed, k=k)
    assert correctness_rate(y, P) == pytest.approx(ref_correctness(y, P))
    assert one_minus_rmse(y, P) == pytest.approx(ref_one_minus_rmse(y, P))
    assert well_calibration_ratio(y, P) == pytest.approx(ref_wcr(y, P))
    assert calibration_measure(y, P) == pytest.approx(math.sqrt(ref_one_minus_rmse(y, P) * ref_wcr(y, P)))
    assert garczarek_accuracy(y, P) == pytest.approx(ref_garczarek(y, P))
    assert ability_to_separate(P) == pytest.approx(ref_garczarek(np.argmax(P, axis=1), P))
    cr = ref_correctness(y, P)
    assert dirichlet_selection_criterion(y, P) == pytest.approx(
        (cr * ref_one_minus_rmse(y, P) * ref_wcr(y, P)) ** (1 / 3)
    )


def test_one_minus_rmse_is_not_root_of_brier():
    y = np.array([0, 1])
    P = np.array([[1.0, 0.0], [0.0, 1.0 - 1e-9]])
    P[1] = [0.6, 0.4]
    # per-sample roots: 0 and sqrt(0.36) = 0.6, mean 0.3
    assert one_minus_rmse(y, P) == pytest.approx(0.7)
    assert 1 - math.sqrt(brier_score(y, P) / 2) != pytest.approx(0.7)


def test_wcr_two_classes_terms_equal_and_hand_value():
    # partition 0: {(0.9, true 0), (0.7, true 1)}: Cf = (0.8, 0.2), CR = (0.5, 0.5) -> 0.3 + 0.3
    # partition 1: {(0.2, true 1)}: Cf = (0.2, 0.8), CR = (0, 1) -> 0.2 + 0.2
    y = [0, 1, 1]
    P = [[0.9, 0.1], [0.7, 0.3], [0.2, 0.8]]
    assert well_calibration_ratio(y, P) == pytest.approx(1 - 1.0 / 4)


def test_wcr_empty_partition_keeps_normaliser():
    # every sample assigned to class 0; class-1 partition empty -> only 2 of the 4 terms
    y = [0, 1]
    P = [[0.6, 0.4], [0.8, 0.2]]
    # Cf = (0.7, 0.3), CR = (0.5, 0.5) -> 0.2 + 0.2 = 0.4 / 4
    assert well_calibration_ratio(y, P) == pytest.approx(0.9)


def test_brier_matches_sklearn_binary_and_definition_multiclass():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.RandomState(0)
    p = rng.uniform(size=50)
    y = rng.randint(0, 2, size=50)
    assert brier_score(y, p) == pytest.approx(metrics.brier_score_loss(y, p))
    yk, P = random_problem(1, k=4)
    ref = np.mean([sum(((yk[i] == k) - P[i, k]) ** 2 for k in range(4)) for i in range(len(yk))])
    assert brier_score(yk, P) == pytest.approx(ref)


def test_roc_auc_against_pair_counting_and_sklearn():
    rng = np.random.RandomState(3)
    s = np.round(rng.normal(size=80), 1)  # ties on purpose
    y = rng.randint(0, 2, size=80)
    pos, neg = s[y == 1], s[y == 0]
    ref = np.mean([(a > b) + 0.5 * (a == b) for a in pos for b in neg])
    assert roc_auc(y, s) == pytest.approx(ref)
    metrics = pytest.importorskip("sklearn.metrics")
    assert roc_auc(y, s) == pytest.approx(metrics.roc_auc_score(y, s))


def test_reliability_and_ece_against_loops():
    rng = np.random.RandomState(4)
    p = rng.uniform(size=200)
    p[:3] = [0.0, 1.0, 0.1]
    y = (rng.uniform(size=200) < p).astype(int)
    counts, mean_p, frac = reliability_bins(y, p, bins=10)
    ece = 0.0
    for b in range(10):
        # bins closed on the right, (b/10, (b+1)/10], the first one also holding 0
        inside = [i for i in range(200) if (b / 10 < p[i] <= (b + 1) / 10) or (b == 0 and p[i] == 0.0)]
        assert counts[b] == len(inside)
        if inside:
            assert mean_p[b] == pytest.approx(np.mean(p[inside]))
            assert frac[b] == pytest.approx(np.mean(y[inside]))
            ece += len(inside) / 200 * abs(np.mean(p[inside]) - np.mean(y[inside]))
    assert expected_calibration_error(y, p, bins=10) == pytest.approx(ece)


def test_top_label_ece():
    y, P = random_problem(5, n=100, k=3)
    conf = P.max(axis=1)
    correct = np.argmax(P, axis=1) == y
    ece = 0.0
    for b in range(10):
        inside = (conf > b / 10) & (conf <= (b + 1) / 10)
        if inside.any():
            ece += inside.mean() * abs(conf[inside].mean() - correct[inside].mean())
    assert expected_calibration_error(y, P, bins=10) == pytest.approx(ece)


def test_isotonic_calibration_score_against_sklearn():
    iso = pytest.importorskip("sklearn.isotonic")
    rng = np.random.RandomState(5)
    s = np.round(rng.uniform(size=120), 2)
    y = (rng.uniform(size=120) < s).astype(int)
    fitted = iso.IsotonicRegression().fit(s, y).predict(s)
    assert isotonic_calibration_score(y, s) == pytest.approx(np.mean(np.abs(s - fitted)))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=1, max_size=5))
def test_desirability_is_geometric_mean(values):
    assert desirability(*values) == pytest.approx(float(np.prod(values)) ** (1 / len(values)), rel=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_measures_in_unit_interval_and_perfect_scores(seed):
    y, P = random_problem(seed, n=20, k=3)
    for f in (correctness_rate, one_minus_rmse, well_calibration_ratio, calibration_measure):
        assert 0.0 <= f(y, P) <= 1.0
    perfect = np.eye(3)[y]
    assert one_minus_rmse(y, perfect) == 1.0
    assert well_calibration_ratio(y, perfect) == 1.0
    assert garczarek_accuracy(y, perfect) == 1.0


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: correctness_rate([0, 1], [[0.5, 0.5]]), "inconsistent"),
        (lambda: correctness_rate([0, 2], [[0.5, 0.5], [0.5, 0.5]]), "0..2-1"),
        (lambda: correctness_rate([0, 1], [[0.5, 0.6], [0.5, 0.5]]), "sum to 1"),
        (lambda: correctness_rate([0, 1], [[np.nan, 0.5], [0.5, 0.5]]), "NaN"),
        (lambda: correctness_rate(["a", "b"], [[0.5, 0.5], [0.5, 0.5]]), "class indices"),
        (lambda: brier_score([0, 1], [1.5, 0.5]), r"\[0, 1\]"),
        (lambda: roc_auc([1, 1, 1], [0.1, 0.2, 0.3]), "single class"),
        (lambda: roc_auc([0, 1], [0.1, np.inf]), "non-finite"),
        (lambda: reliability_bins([0, 1], [0.1, 0.2], bins=0), "`bins`"),
        (lambda: desirability(), "at least one"),
        (lambda: isotonic_calibration_score([0, 1, 1], [0.1, 0.2]), "inconsistent"),
    ],
)
def test_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize(
    "bad, match", [("0.5", "must be numeric"), (0.5 + 0j, "Complex"), (None, "None"), (np.nan, "NaN")]
)
def test_desirability_refuses_what_is_not_a_real_number(bad, match):
    # a string was parsed and a complex number raised numpy's bare TypeError
    from dstk.metrics import desirability

    with pytest.raises(ValueError, match=match):
        desirability(bad, 1.0)
