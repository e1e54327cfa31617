"""Binning and isotonic calibrators against brute-force definitions and scikit-learn."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from dstk.calibration import BinningCalibrator, IsotonicCalibrator
from dstk.calibration._isotonic import isotonic_blocks
from dstk.core._mass import MassFunction


def _data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return rng.normal(1.5 * y - 0.75, 1.0), y


def _likelihood_masses_by_quad(k, n):
    """Eqs. 29-32 by direct numerical integration of the binomial relative likelihood."""
    tau_hat = k / n

    def contour(t):
        if 0 < tau_hat < 1:
            return (t / tau_hat) ** k * ((1 - t) / (1 - tau_hat)) ** (n - k)
        return t**n if k == n else (1 - t) ** n

    left = integrate.quad(contour, 0, tau_hat, epsabs=1e-13)[0] if tau_hat > 0 else 0.0
    right = integrate.quad(contour, tau_hat, 1, epsabs=1e-13)[0] if tau_hat < 1 else 0.0
    return np.array([0.0, 1 - tau_hat - right, tau_hat - left, left + right])


def test_binning_counts_match_brute_force_with_right_closed_bins():
    scores = np.array([-3.5, -2.0, -1.99, 0.0, 0.5, 2.0, 2.0, 7.0])
    y = np.array([0, 0, 1, 0, 1, 1, 0, 1])
    edges = np.array([-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0])
    cal = BinningCalibrator(bins=edges, model="bayes").fit(scores, y)
    # brute force: bin j = (e_j, e_{j+1}], scores below/above the range go to the end bins
    expected = np.zeros((6, 2))
    for s, label in zip(scores, y):
        j = (
            0
            if s <= edges[1]
            else 5
            if s > edges[5]
            else next(i for i in range(6) if edges[i] < s <= edges[i + 1])
        )
        expected[j] += [label, 1]
    np.testing.assert_array_equal(cal.bin_counts_, expected)
    np.testing.assert_array_equal(
        cal.bin_index([-100.0, -2.0, -1.999, 2.0, 2.0001, 100.0]), [0, 0, 1, 4, 5, 5]
    )


@pytest.mark.parametrize(
    "model", ["dempster", "likelihood", "confidence_interval", "bayes", "inverse_pignistic"]
)
def test_binning_masses_follow_the_count_models(model):
    scores, y = _data()
    cal = BinningCalibrator(bins=5, model=model).fit(scores, y)
    masses = cal.predict_mass(scores).to_array()
    index = cal.bin_index(scores)
    for j in np.unique(index):
        k, n = cal.bin_counts_[j]
        got = masses[index == j][0]
        if model == "dempster":  # Eq. 24
            expected = [0, (n - k) / (n + 1), k / (n + 1), 1 / (n + 1)]
        elif model == "bayes":
            expected = [0, 1 - k / n, k / n, 0]
        elif model == "inverse_pignistic":
            p = k / n
            expected = [0, max(1 - 2 * p, 0), max(2 * p - 1, 0), 1 - abs(2 * p - 1)]
        elif model == "likelihood":
            expected = _likelihood_masses_by_quad(k, n)
        else:  # Eqs. 26c-27c with scipy's beta quantiles (Eq. 28)
            from scipy.stats import beta

            lower = beta.ppf(0.025, k, n - k + 1) if k > 0 else 0.0
            upper = beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
            expected = [0, 0.95 * (1 - upper), 0.95 * lower, 1 - 0.95 * (1 - upper) - 0.95 * lower]
        np.testing.assert_allclose(got, expected, atol=1e-9)


def test_binning_strategies():
    scores, y = _data(300, seed=1)
    uniform = BinningCalibrator(bins=4, strategy="uniform").fit(scores, y)
    np.testing.assert_allclose(uniform.edges_, np.linspace(scores.min(), scores.max(), 5))
    quantile = BinningCalibrator(bins=4, strategy="quantile").fit(scores, y)
    counts = quantile.bin_counts_[:, 1]
    assert counts.sum() == 300 and counts.max() - counts.min() <= 2


def test_empty_bins_policy():
    scores = np.array([-2.5, -2.2, 2.2, 2.5])
    y = np.array([0, 1, 0, 1])
    edges = [-3, -1, 1, 3]
    vacuous = BinningCalibrator(bins=edges, model="likelihood").fit(scores, y)
    np.testing.assert_array_equal(vacuous.predict_mass([0.0]).to_array(), [[0, 0, 0, 1]])
    bayes = BinningCalibrator(bins=edges, model="bayes").fit(scores, y)
    np.testing.assert_array_equal(bayes.predict_proba([0.0]), [[0.5, 0.5]])
    with pytest.raises(ValueError, match=r"bin\(s\) \[1\] contain no calibration score"):
        BinningCalibrator(bins=edges, empty_bins="raise").fit(scores, y)


def test_outputs_are_consistent():
    scores, y = _data()
    cal = BinningCalibrator(bins=6, model="dempster").fit(scores, y)
    masses = cal.predict_mass(scores[:20])
    assert isinstance(masses, MassFunction) and masses.batch_shape == (20,)
    array = masses.to_array()
    bel, pl = cal.predict_interval(scores[:20])
    np.testing.assert_allclose(bel, array[:, 2])
    np.testing.assert_allclose(pl, 1 - array[:, 1])
    np.testing.assert_allclose(cal.predict_proba(scores[:20])[:, 1], masses.pignistic()[:, 1])
    np.testing.assert_array_equal(
        cal.predict(scores[:20]), (cal.predict_proba(scores[:20])[:, 1] > 0.5).astype(int)
    )


def test_labels_other_than_zero_one():
    scores, y = _data()
    labels = np.where(y == 1, "spam", "ham")
    cal = BinningCalibrator(bins=5).fit(scores, labels)
    assert list(cal.classes_) == ["ham", "spam"]
    assert set(cal.predict(scores)) <= {"ham", "spam"}


def test_pav_matches_scikit_learn():
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(3)
    scores = np.round(rng.normal(size=300), 1)  # many ties
    y = (rng.random(300) < 1 / (1 + np.exp(-2 * scores))).astype(float)
    lower, upper, positives, totals = isotonic_blocks(scores, y)
    fitted = IsotonicRegression().fit(scores, y).predict(scores)
    for lo, hi, k, n in zip(lower, upper, positives, totals):
        inside = (scores >= lo) & (scores <= hi)
        assert inside.sum() == n and y[inside].sum() == k
        np.testing.assert_allclose(fitted[inside], k / n, atol=1e-12)
    means = positives / totals
    assert np.all(np.diff(means) > 0)  # maximal constant pieces: strictly increasing


def test_isotonic_bayes_equals_the_isotonic_fit_on_calibration_points():
    from sklearn.isotonic import IsotonicRegression

    scores, y = _data(150, seed=4)
    cal = IsotonicCalibrator(model="bayes").fit(scores, y)
    np.testing.assert_allclose(
        cal.predict_proba(scores)[:, 1], IsotonicRegression().fit(scores, y).predict(scores), atol=1e-12
    )


def test_isotonic_envelope_definition_and_monotonicity():
    scores, y = _data(60, seed=5)
    raw = IsotonicCalibrator(model="likelihood", envelope=False).fit(scores, y)
    env = IsotonicCalibrator(model="likelihood", envelope=True).fit(scores, y)
    bel = raw.mass_table_[:, 2]
    pl = raw.mass_table_[:, 2] + raw.mass_table_[:, 3]
    expected_upper = [max(pl[: j + 1]) for j in range(len(pl))]
    expected_lower = [min(bel[j:]) for j in range(len(bel))]
    np.testing.assert_allclose(env.mass_table_[:, 2], expected_lower)
    np.testing.assert_allclose(1 - env.mass_table_[:, 1], expected_upper)
    grid = np.linspace(scores.min() - 1, scores.max() + 1, 500)
    low, high = env.predict_interval(grid)
    assert np.all(np.diff(low) >= 0) and np.all(np.diff(high) >= 0) and np.all(low <= high)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.floats(-5, 5, allow_nan=False), st.integers(0, 1)), min_size=4, max_size=40),
    st.sampled_from(["dempster", "likelihood", "confidence_interval", "plausibility"]),
)
def test_isotonic_envelope_is_monotone_and_valid(pairs, model):
    scores = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    if y.min() == y.max():
        y[0] = 1 - y[0]
    cal = IsotonicCalibrator(model=model).fit(scores, y)
    table = cal.mass_table_
    assert np.all(table >= -1e-15) and np.allclose(table.sum(axis=1), 1.0)
    assert np.all(np.diff(table[:, 2]) >= -1e-15) and np.all(np.diff(1 - table[:, 1]) >= -1e-15)


def test_isotonic_block_assignment_between_blocks():
    scores = np.array([0.0, 1.0, 2.0, 3.0])
    y = np.array([0, 0, 1, 1])
    cal = IsotonicCalibrator(model="dempster").fit(scores, y)
    np.testing.assert_allclose(cal.thresholds_, [1.5])
    np.testing.assert_allclose(
        cal.predict_mass([1.5, 1.51]).to_array(), [[0, 2 / 3, 0, 1 / 3], [0, 0, 2 / 3, 1 / 3]]
    )


def test_scores_near_the_largest_float_calibrate_as_the_same_scores_scaled_down():
    """A score range wider than the largest float: the uniform bin edges and the isotonic thresholds stay finite
    and place the scores as the same scores divided by 1e300 do (no overflow to inf or NaN)."""
    import warnings

    from dstk.calibration import BinningCalibrator, IsotonicCalibrator

    cases = [
        (BinningCalibrator(bins=2, model="dempster"), [-1e308, -5e307, 1.0e308, 1.5e308], [0, 0, 1, 1]),
        (IsotonicCalibrator(model="dempster"), [-1e308, 0.0, 1.2e308, 1.6e308, 1.7e308], [0, 1, 0, 1, 1]),
    ]
    for calibrator, scores, y in cases:
        scores, y = np.array(scores), np.array(y)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            big = calibrator.fit(scores, y).predict_mass(scores).to_array()
            edges = getattr(calibrator, "edges_", None)
            edges = calibrator.thresholds_ if edges is None else edges
            assert np.all(np.isfinite(edges))
            small = calibrator.fit(scores / 1e300, y).predict_mass(scores / 1e300).to_array()
        np.testing.assert_allclose(big, small, rtol=1e-12)
