"""Binary probabilistic calibrators against independent references (scipy optimisers, sklearn, hand values)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats
from scipy.special import betainc, betaincinv
from scipy.special import softmax as scipy_softmax

from dstk.calibration.probabilistic import (
    AssignmentValueCalibrator,
    AsymmetricLaplaceBayesCalibrator,
    GaussianBayesCalibrator,
    IsotonicRegressionCalibrator,
    PiecewiseLogisticCalibrator,
    PlattCalibrator,
    SimpleNormalization,
    SoftmaxCalibrator,
)
from dstk.calibration.probabilistic._assignment_value import beta_moments_fit
from dstk.calibration.probabilistic._base import log_odds
from dstk.calibration.probabilistic._isotonic import isotonic_fit
from dstk.calibration.probabilistic._normalization import simple_normalization, softmax
from dstk.calibration.probabilistic._piecewise_logistic import hat_basis
from dstk.exceptions import NotFittedError


def gaussian_scores(seed, n=150, shift=1.0):
    rng = np.random.RandomState(seed)
    s = np.r_[rng.normal(-shift, 1.0, n), rng.normal(shift, 1.2, n)]
    y = np.r_[np.zeros(n, int), np.ones(n, int)]
    return s, y


# ---------------------------------------------------------------- normalisation and softmax
def test_simple_normalisation_formula():
    s = np.array([-4.0, -1.0, 0.0, 2.0])
    cal = SimpleNormalization(rho=1.05).fit(s, [0, 0, 1, 1])
    M = 4.0
    assert cal.scale_ == M
    np.testing.assert_allclose(cal.predict_proba(s)[:, 1], (s + 1.05 * M) / (2 * 1.05 * M))
    assert cal.predict_proba([100.0])[0, 1] == 1.0  # clipped
    np.testing.assert_allclose(simple_normalization([[1.0, -2.0]], scale=[1.0, 4.0]), [[1.0, 0.25]])


def test_softmax_against_scipy_and_binary_form():
    rng = np.random.RandomState(0)
    S = rng.normal(size=(20, 4))
    np.testing.assert_allclose(softmax(S), scipy_softmax(S, axis=1))
    a = np.array([0.5, 1.0, 2.0, 1.5])
    np.testing.assert_allclose(softmax(S, a), scipy_softmax(S * a, axis=1))
    s = rng.normal(size=10)
    cal = SoftmaxCalibrator().fit(s, rng.randint(0, 2, 10))
    np.testing.assert_allclose(cal.predict_proba(s), scipy_softmax(np.column_stack([-s, s]), axis=1))


def test_softmax_fitted_slope_is_maximum_likelihood():
    s, y = gaussian_scores(1)
    cal = SoftmaxCalibrator(fit_alpha=True).fit(s, y)

    def nll(a):
        z = 2 * a * s
        return np.sum(y * np.logaddexp(0, -z) + (1 - y) * np.logaddexp(0, z))

    ref = optimize.minimize_scalar(nll, bounds=(-10, 10), method="bounded", options={"xatol": 1e-10}).x
    assert cal.alpha_ == pytest.approx(ref, rel=1e-5)


# ---------------------------------------------------------------- Platt
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_platt_smoothed_targets_against_scipy_and_sklearn(seed):
    s, y = gaussian_scores(seed, n=80)
    cal = PlattCalibrator().fit(s, y)
    n_pos, n_neg = y.sum(), (1 - y).sum()
    t = np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))

    def obj(w):
        z = w[0] * s + w[1]
        return np.sum(t * np.logaddexp(0, -z) + (1 - t) * np.logaddexp(0, z))

    ref = optimize.minimize(obj, [1.0, 0.0], method="BFGS", options={"gtol": 1e-10}).x
    assert cal.slope_ == pytest.approx(ref[0], rel=1e-5)
    assert cal.intercept_ == pytest.approx(ref[1], abs=1e-5)
    skcal = pytest.importorskip("sklearn.calibration")
    a, b = skcal._sigmoid_calibration(s, y)  # Platt's sign convention: 1 / (1 + exp(a f + b))
    assert cal.slope_ == pytest.approx(-a, rel=1e-4)
    assert cal.intercept_ == pytest.approx(-b, abs=1e-4)


def test_platt_binary_targets_match_unpenalised_logistic_regression():
    lm = pytest.importorskip("sklearn.linear_model")
    s, y = gaussian_scores(3)
    cal = PlattCalibrator(targets="labels").fit(s, y)
    ref = lm.LogisticRegression(C=np.inf, tol=1e-12, max_iter=10000).fit(s[:, None], y)
    assert cal.slope_ == pytest.approx(ref.coef_[0, 0], rel=1e-4)
    assert cal.intercept_ == pytest.approx(ref.intercept_[0], abs=1e-4)


def test_platt_string_labels_and_predict():
    s, y = gaussian_scores(4)
    labels = np.where(y == 1, "spam", "ham")
    cal = PlattCalibrator().fit(s, labels)
    assert list(cal.classes_) == ["ham", "spam"]
    assert set(cal.predict(s)) <= {"ham", "spam"}
    P = cal.predict_proba(s)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)


# ---------------------------------------------------------------- piecewise logistic
def test_hat_basis_interpolates():
    knots = np.array([0.0, 1.0, 3.0, 4.0])
    w = np.array([1.0, -2.0, 0.5, 3.0])
    m = np.linspace(-1, 5, 31)
    np.testing.assert_allclose(hat_basis(m, knots) @ w, np.interp(m, knots, w), atol=1e-12)


def test_piecewise_logistic_minimises_regularised_objective():
    s, y = gaussian_scores(5, n=60)
    cal = PiecewiseLogisticCalibrator().fit(s, y)
    k = cal.knots_
    assert k[0] == s.min() and k[3] == s.max() and k[0] < k[1] < k[2] < k[3]
    c = 2 * y - 1

    def objective(w, knots):
        g = np.interp(s, knots, w)
        slopes = np.diff(w) / np.diff(knots)
        return np.sum(np.logaddexp(0, -c * g)) + 0.001 * np.sum(np.diff(slopes) ** 2)

    # the chosen pair: weights are the optimum (checked by an independent optimiser)
    ref = optimize.minimize(objective, np.zeros(4), args=(k,), method="BFGS", options={"gtol": 1e-9})
    assert cal.objective_ == pytest.approx(ref.fun, rel=1e-6)
    # no candidate pair of 5%-quantiles does better
    q = np.unique(np.quantile(s, np.arange(1, 20) / 20))
    q = q[(q > s.min()) & (q < s.max())]
    rng = np.random.RandomState(0)
    for a, b in [sorted(rng.choice(q.size, 2, replace=False)) for _ in range(8)]:
        other = optimize.minimize(
            objective,
            np.zeros(4),
            args=(np.array([s.min(), q[a], q[b], s.max()]),),
            method="BFGS",
            options={"gtol": 1e-9},
        ).fun
        assert cal.objective_ <= other + 1e-6


def test_piecewise_logistic_clamps_outside_range():
    s, y = gaussian_scores(6, n=50)
    cal = PiecewiseLogisticCalibrator().fit(s, y)
    assert cal.predict_proba([s.max() + 100])[0, 1] == pytest.approx(cal.predict_proba([s.max()])[0, 1])
    assert cal.predict_proba([s.min() - 100])[0, 1] == pytest.approx(cal.predict_proba([s.min()])[0, 1])


# ---------------------------------------------------------------- isotonic
def test_isotonic_gebel_figure_4_4():
    # Gebel (2009), Fig. 4.4: labels sorted by score 0 1 0 0 1 0 1
    cal = IsotonicRegressionCalibrator().fit(np.arange(7.0), [0, 1, 0, 0, 1, 0, 1])
    np.testing.assert_allclose(cal.predict_proba(np.arange(7.0))[:, 1], [0, 1 / 3, 1 / 3, 1 / 3, 0.5, 0.5, 1])


def test_isotonic_against_sklearn_with_ties():
    iso = pytest.importorskip("sklearn.isotonic")
    rng = np.random.RandomState(7)
    s = np.round(rng.normal(size=200), 1)
    y = (rng.uniform(size=200) < 1 / (1 + np.exp(-2 * s))).astype(int)
    ref = iso.IsotonicRegression(out_of_bounds="clip").fit(s, y)
    cal = IsotonicRegressionCalibrator(interpolation="linear").fit(s, y)
    grid = np.linspace(-4, 4, 81)
    np.testing.assert_allclose(cal.predict_proba(grid)[:, 1], ref.predict(grid), atol=1e-12)
    step = IsotonicRegressionCalibrator().fit(s, y)
    np.testing.assert_allclose(step.predict_proba(s)[:, 1], ref.predict(s), atol=1e-12)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 5), st.integers(0, 1)), min_size=2, max_size=40))
def test_isotonic_fit_is_monotone_and_mean_preserving(pairs):
    s = np.array([p[0] for p in pairs], dtype=float)
    y = np.array([p[1] for p in pairs], dtype=float)
    thresholds, values = isotonic_fit(s, y)
    assert np.all(np.diff(values) >= -1e-12)
    fitted = values[np.searchsorted(thresholds, s)]
    assert fitted.mean() == pytest.approx(y.mean())  # PAV preserves the weighted mean


# ---------------------------------------------------------------- Bayes
def test_gaussian_bayes_against_formula():
    s, y = gaussian_scores(8)
    cal = GaussianBayesCalibrator().fit(s, y)
    neg, pos = s[y == 0], s[y == 1]
    pi = y.mean()
    x = np.linspace(-3, 3, 13)
    fp = stats.norm.pdf(x, pos.mean(), pos.std(ddof=1))
    fn = stats.norm.pdf(x, neg.mean(), neg.std(ddof=1))
    np.testing.assert_allclose(cal.predict_proba(x)[:, 1], pi * fp / (pi * fp + (1 - pi) * fn), rtol=1e-10)


def test_gaussian_bayes_probability_input_uses_log_odds():
    s, y = gaussian_scores(9)
    p = 1 / (1 + np.exp(-s))
    a = GaussianBayesCalibrator(input_kind="probability").fit(p, y)
    b = GaussianBayesCalibrator().fit(s, y)
    np.testing.assert_allclose(a.predict_proba(p), b.predict_proba(s), rtol=1e-8)
    np.testing.assert_allclose(log_odds([0.2, 0.9]), np.log([0.25, 9.0]))


def alap_neg_loglik(params, x):
    theta, log_b, log_g = params
    b, g = np.exp(log_b), np.exp(log_g)
    return -np.sum(np.log(b * g / (b + g)) - np.where(x <= theta, b * (theta - x), g * (x - theta)))


def test_asymmetric_laplace_fit_is_maximum_likelihood():
    rng = np.random.RandomState(10)
    x = np.r_[-rng.exponential(1 / 2.0, 60), rng.exponential(1 / 0.5, 40)] + 0.3
    s = np.r_[x, rng.normal(3, 1, 80)]
    y = np.r_[np.zeros(100, int), np.ones(80, int)]
    cal = AsymmetricLaplaceBayesCalibrator().fit(s, y)
    theta, b, g = cal.modes_[0], cal.left_rates_[0], cal.right_rates_[0]
    ours = alap_neg_loglik([theta, np.log(b), np.log(g)], x)
    # brute force over every observed mode with numerically optimised scales
    best = np.inf
    for cand in x:
        res = optimize.minimize(
            lambda v, cand=cand: alap_neg_loglik([cand, v[0], v[1]], x),
            [0.0, 0.0],
            method="Nelder-Mead",
            options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000},
        )
        best = min(best, res.fun)
    assert ours == pytest.approx(best, abs=1e-6)
    # posterior by Bayes' rule with Laplace-smoothed priors
    pi = (80 + 1) / (180 + 2)

    def dens(v, k):
        t, bb, gg = cal.modes_[k], cal.left_rates_[k], cal.right_rates_[k]
        return bb * gg / (bb + gg) * np.where(v <= t, np.exp(-bb * (t - v)), np.exp(-gg * (v - t)))

    grid = np.linspace(-1, 4, 11)
    expected = pi * dens(grid, 1) / (pi * dens(grid, 1) + (1 - pi) * dens(grid, 0))
    np.testing.assert_allclose(cal.predict_proba(grid)[:, 1], expected, rtol=1e-9)


def test_bayes_mass_interval_contains_point():
    s, y = gaussian_scores(11, n=15)
    for cls in (GaussianBayesCalibrator, AsymmetricLaplaceBayesCalibrator):
        cal = cls().fit(s, y)
        lo, hi = cal.predict_interval(s)
        p = cal.predict_proba(s)[:, 1]
        assert np.all(lo <= p + 1e-12) and np.all(p <= hi + 1e-12)
        m = cal.predict_mass(s).to_array("m")
        np.testing.assert_allclose(m.sum(axis=1), 1.0)
        np.testing.assert_allclose(m[:, 2], lo)
        np.testing.assert_allclose(m[:, 2] + m[:, 3], hi)


# ---------------------------------------------------------------- assignment value
def test_beta_moments_roundtrip():
    # a Beta(p=0.3, N=9) sample's population moments give back (p, N)
    p, N = 0.3, 9.0
    a, b = p * N, (1 - p) * N
    x = stats.beta.ppf((np.arange(20000) + 0.5) / 20000, a, b)
    pm, Nm = beta_moments_fit(x)
    assert pm == pytest.approx(p, abs=1e-4)
    assert Nm == pytest.approx(N, rel=2e-3)


def av_reference(p_train, y, p_test):
    """Gebel 2009, Sec. 4.4.3, written out independently (brute-force search for N)."""
    assigned = (p_train > 0.5).astype(int)
    a = np.where(assigned == 1, p_train, 1 - p_train)
    out = {}
    for k in (0, 1):
        mem = assigned == k
        ak, ck = a[mem], (y[mem] == k).astype(float)
        pa = ak.mean()
        S = ak.var(ddof=1)
        Na = pa * (1 - pa) / S - 1
        pt = ck.mean()
        best = None
        for N in range(int(np.ceil(min(mem.sum(), Na))), int(np.floor(max(mem.sum(), Na))) + 1):
            if N < 1:
                continue
            q = betaincinv(pt * N, (1 - pt) * N, betainc(pa * Na, (1 - pa) * Na, ak))
            correct_after = np.sum((q > 0.5) * ck + (q <= 0.5) * (1 - ck))
            acc = 1 - 2 * np.mean(np.sqrt((ck - q) ** 2 + ((1 - ck) - (1 - q)) ** 2))
            if best is None or correct_after + acc > best[0]:
                best = (correct_after + acc, N)
        out[k] = (pa, Na, pt, best[1])
    assigned_t = (p_test > 0.5).astype(int)
    a_t = np.where(assigned_t == 1, p_test, 1 - p_test)
    res = np.empty_like(p_test)
    for i in range(p_test.size):
        pa, Na, pt, N = out[assigned_t[i]]
        q = betaincinv(pt * N, (1 - pt) * N, betainc(pa * Na, (1 - pa) * Na, a_t[i]))
        res[i] = q if assigned_t[i] == 1 else 1 - q
    return res, out


def test_assignment_value_against_written_out_algorithm():
    rng = np.random.RandomState(12)
    p = rng.beta(2, 2, 300)
    y = (rng.uniform(size=300) < 0.15 + 0.7 * p).astype(int)
    cal = AssignmentValueCalibrator().fit(p, y)
    test = np.linspace(0.01, 0.99, 25)
    ref, params = av_reference(p, y, test)
    np.testing.assert_allclose(cal.predict_proba(test)[:, 1], ref, rtol=1e-9)
    for k in (0, 1):
        assert cal.partitions_[k]["dispersion"] == params[k][3]


def test_assignment_value_monotone_within_partitions_and_mass():
    rng = np.random.RandomState(13)
    s = rng.normal(size=400)
    y = (rng.uniform(size=400) < 1 / (1 + np.exp(-1.5 * s))).astype(int)
    cal = AssignmentValueCalibrator(input_kind="score").fit(s, y)
    grid = np.linspace(-3, 3, 121)
    q = cal.predict_proba(grid)[:, 1]
    assert np.all(np.diff(q[grid < 0]) >= -1e-12) and np.all(np.diff(q[grid > 0]) >= -1e-12)
    lo, hi = cal.predict_interval(grid)
    assert np.all(lo <= q + 1e-9) and np.all(q <= hi + 1e-9)
    m = cal.predict_mass(grid).to_array("m")
    np.testing.assert_allclose(m.sum(axis=1), 1.0)
    assert np.all(m >= -1e-12)


def test_assignment_value_guards_perfect_partition():
    # no errors in either partition: p_T would be 1; the guard keeps outputs finite and inside (0, 1)
    p = np.r_[np.linspace(0.05, 0.45, 20), np.linspace(0.55, 0.95, 20)]
    y = np.r_[np.zeros(20, int), np.ones(20, int)]
    cal = AssignmentValueCalibrator().fit(p, y)
    q = cal.predict_proba(p)[:, 1]
    assert np.all(np.isfinite(q)) and np.all((q > 0) & (q < 1))
    assert cal.partitions_[1]["correctness"] == pytest.approx(20.5 / 21)


def test_assignment_value_huge_dispersion_uses_capped_grid():
    # nearly constant assignment values (a pruned tree's probabilities): N_hat_A is astronomically large
    p = np.r_[np.full(30, 0.2), np.full(30, 0.8)] + np.r_[np.arange(30), np.arange(30)] * 1e-12
    y = np.r_[np.zeros(25, int), np.ones(5, int), np.zeros(5, int), np.ones(25, int)]
    cal = AssignmentValueCalibrator(max_candidates=50).fit(p, y)
    assert cal.partitions_[0]["assignment_dispersion"] > 1e15
    assert cal.partitions_[0]["kind"] == "constant"
    q = cal.predict_proba(p)[:, 1]
    assert np.all(np.isfinite(q))
    np.testing.assert_allclose(q[:30], 1 - 25 / 30)
    # a moderately concentrated partition still uses the capped geometric grid of N
    p2 = np.r_[np.linspace(0.1, 0.3, 40), 0.7 + 1e-5 * np.arange(40)]
    y2 = np.r_[np.zeros(35, int), np.ones(5, int), np.zeros(4, int), np.ones(36, int)]
    cal2 = AssignmentValueCalibrator(max_candidates=50).fit(p2, y2)
    assert cal2.partitions_[1]["kind"] == "beta" and cal2.partitions_[1]["assignment_dispersion"] > 1e5
    assert np.all(np.isfinite(cal2.predict_proba(p2)))


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "make, scores, y, match",
    [
        (PlattCalibrator, [0.1, 0.2, 0.3], [1, 1, 1], "single class"),
        (PlattCalibrator, [0.1, np.nan], [0, 1], "non-finite"),
        (PlattCalibrator, [0.1, 0.2, 0.3], [0, 1], "inconsistent"),
        (lambda: PlattCalibrator(targets="soft"), [0.1, 0.2], [0, 1], "targets"),
        (lambda: SimpleNormalization(rho=0.5), [0.1, 0.2], [0, 1], "rho"),
        (SimpleNormalization, [0.0, 0.0], [0, 1], "M = max"),
        (GaussianBayesCalibrator, [0.1, 0.2, 0.3], [0, 1, 1], "at least two"),
        (GaussianBayesCalibrator, [0.1, 0.1, 0.2, 0.2], [0, 0, 1, 1], "equal"),
        (AsymmetricLaplaceBayesCalibrator, [0.1, 0.2, 0.5, 0.6, 0.7], [0, 0, 1, 1, 1], "distinct"),
        (
            lambda: GaussianBayesCalibrator(input_kind="probability"),
            [0.1, 1.2, 0.3, 0.4],
            [0, 0, 1, 1],
            r"\[0, 1\]",
        ),
        (AssignmentValueCalibrator, [0.2, 1.5], [0, 1], r"\[0, 1\]"),
        (PiecewiseLogisticCalibrator, [1.0, 1.0, 1.0, 1.0], [0, 1, 0, 1], "knots"),
        (lambda: IsotonicRegressionCalibrator(interpolation="cubic"), [0.1, 0.2], [0, 1], "interpolation"),
    ],
)
def test_errors(make, scores, y, match):
    with pytest.raises(ValueError, match=match):
        make().fit(scores, y)


def test_not_fitted():
    with pytest.raises(NotFittedError):
        PlattCalibrator().predict_proba([0.1])
    with pytest.raises(NotFittedError):
        AssignmentValueCalibrator().predict_mass([0.1])
