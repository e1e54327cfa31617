"""Tests of predictive belief functions and likelihood-based belief functions."""

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, optimize, special

from dstk.evidence._counts import _binary_mass_array as counts_to_mass_array
from dstk.evidence._likelihood import (
    BinomialLikelihood,
    LikelihoodBeliefFunction,
    LogisticLikelihood,
    MultinomialLikelihood,
)
from dstk.evidence._predictive import (
    MonteCarloEstimate,
    QuadratureEstimate,
    check_unimodal,
    find_mode,
    predictive_mass,
    predictive_mass_monte_carlo,
    predictive_mass_quadrature,
)


def _binomial_contour(k, n):
    tau_hat = k / n
    log_max = special.xlogy(k, tau_hat) + special.xlog1py(n - k, -tau_hat)

    def contour(t):
        t = np.asarray(t, dtype=float)
        with np.errstate(divide="ignore"):
            return np.exp(special.xlogy(k, t) + special.xlog1py(n - k, -t) - log_max)

    return contour, tau_hat


@pytest.mark.parametrize("k,n", [(0, 1), (1, 2), (3, 4), (7, 10), (70, 100), (10, 10), (2, 50)])
def test_predictive_mass_matches_closed_form_within_stated_error(k, n):
    contour, tau_hat = _binomial_contour(k, n)
    estimate = predictive_mass_quadrature(contour, tau_hat)
    assert isinstance(estimate, QuadratureEstimate)
    masses, error = estimate
    np.testing.assert_array_equal(masses.to_array(), predictive_mass(contour, tau_hat).to_array())
    masses = masses.to_array()
    exact = counts_to_mass_array(k, n, "likelihood")
    assert error < 1e-9
    np.testing.assert_allclose(masses, exact, atol=max(error, 1e-12))


def test_predictive_mass_note_value_and_mode_search():
    contour, _ = _binomial_contour(7, 10)
    masses = predictive_mass(contour).to_array()  # mode found numerically
    assert masses[3] == pytest.approx(0.340703, abs=1e-6)
    assert find_mode(contour) == pytest.approx(0.7, abs=1e-8)


def test_predictive_mass_step_contour_is_confidence_interval_model():
    lower, upper, alpha = 0.35, 0.93, 0.05

    def step(t):
        t = np.asarray(t, dtype=float)
        return np.where((t >= lower) & (t <= upper), 1.0, alpha)

    masses = predictive_mass(step, 0.7, points=[lower, upper], tolerance=1e-12).to_array()
    np.testing.assert_allclose(masses[[2, 1]], [(1 - alpha) * lower, (1 - alpha) * (1 - upper)], atol=1e-10)


def test_monte_carlo_agrees_with_quadrature_and_closed_form():
    contour, tau_hat = _binomial_contour(7, 10)
    estimate = predictive_mass_monte_carlo(contour, tau_hat=tau_hat, n_draws=200_000, random_state=0)
    assert isinstance(estimate, MonteCarloEstimate) and estimate.standard_error.shape == (2,)
    masses, standard_error = estimate
    masses = masses.to_array()
    exact = counts_to_mass_array(7, 10, "likelihood")
    quadrature = predictive_mass(contour, tau_hat).to_array()
    assert np.all(np.abs(masses[1:3] - exact[1:3]) < 5 * standard_error)
    assert np.all(np.abs(masses[1:3] - quadrature[1:3]) < 5 * standard_error)
    again = predictive_mass_monte_carlo(
        contour, tau_hat=tau_hat, n_draws=1000, random_state=3
    ).mass.to_array()
    np.testing.assert_array_equal(
        again,
        predictive_mass_monte_carlo(contour, tau_hat=tau_hat, n_draws=1000, random_state=3).mass.to_array(),
    )


def test_predictive_mass_scalar_only_contour():
    def scalar_contour(t):
        if isinstance(t, np.ndarray):
            raise TypeError("scalars only")
        return math.exp(-30 * (t - 0.4) ** 2)

    masses = predictive_mass(scalar_contour, 0.4).to_array()
    left = integrate.quad(lambda t: math.exp(-30 * (t - 0.4) ** 2), 0, 0.4)[0]
    assert masses[2] == pytest.approx(0.4 - left, abs=1e-10)


def test_predictive_mass_bad_contours():
    with pytest.raises(ValueError, match="not unimodal"):
        predictive_mass(lambda t: np.abs(np.sin(6 * np.asarray(t))) / 1.0 + 0 * np.asarray(t), math.pi / 12)
    with pytest.raises(ValueError, match="equal 1"):
        predictive_mass(lambda t: 0.5 * np.exp(-np.asarray(t)), 0.0)
    with pytest.raises(ValueError, match="tau_hat"):
        predictive_mass(lambda t: np.ones_like(np.asarray(t, float)), 1.5)
    with pytest.raises(ValueError, match="NaN"):
        check_unimodal(lambda t: np.full_like(np.asarray(t, float), np.nan), 0.5)
    with pytest.raises(ValueError, match="n_draws"):
        predictive_mass_monte_carlo(lambda t: np.ones_like(np.asarray(t, float)), tau_hat=0.5, n_draws=0)


def test_predictive_mass_returns_mass_function():
    pytest.importorskip("dstk.core._mass")
    contour, tau_hat = _binomial_contour(3, 4)
    m = predictive_mass(contour, tau_hat)
    np.testing.assert_allclose(m.to_array("m"), counts_to_mass_array(3, 4, "likelihood"), atol=1e-10)


# ---------------------------------------------------------------------------
# likelihood-based belief functions
# ---------------------------------------------------------------------------


def test_generic_gaussian_mean_closed_forms():
    # log L = -n (mu - xbar)^2 / 2 (unit variance): pl(A) and bel(A) have closed forms
    n, xbar = 25, 1.0
    belief = LikelihoodBeliefFunction(lambda mu: -0.5 * n * (mu - xbar) ** 2, initial=0.0, concave=True)
    assert belief.mle_[0] == pytest.approx(xbar, abs=1e-6)
    assert belief.pl(1.2, 3.0) == pytest.approx(math.exp(-0.5 * n * 0.04), abs=1e-8)
    assert belief.bel(0.8, 1.2) == pytest.approx(1 - math.exp(-0.5 * n * 0.04), abs=1e-8)
    assert belief.bel(1.1, 2.0) == 0.0
    lower, upper = belief.focal_set(0.5)
    half_width = math.sqrt(2 * math.log(2) / n)
    assert lower == pytest.approx(xbar - half_width, abs=1e-9)
    assert upper == pytest.approx(xbar + half_width, abs=1e-9)


def test_generic_vector_parameter_box_and_profile():
    # independent Gaussian coordinates: pl of a box is the product of coordinate pls
    precision = np.array([4.0, 9.0])
    center = np.array([0.5, -1.0])
    belief = LikelihoodBeliefFunction(
        lambda t: -0.5 * np.sum(precision * (t - center) ** 2), initial=[0.0, 0.0], concave=True
    )
    np.testing.assert_allclose(belief.mle_, center, atol=1e-5)
    expected = math.exp(-0.5 * 4.0 * 0.25) * math.exp(-0.5 * 9.0 * 0.25)
    assert belief.pl([1.0, -0.5], [2.0, 0.0]) == pytest.approx(expected, abs=1e-7)
    # bel of the box: 1 - max of the four half-space sups
    bel = belief.bel([0.0, -1.5], [1.0, -0.5])
    assert bel == pytest.approx(1 - max(math.exp(-0.5 * 4 * 0.25), math.exp(-0.5 * 9 * 0.25)), abs=1e-7)
    # profile of g(theta) = theta_0 + theta_1 at value v: closed form exp(-(v - sum c)^2 / (2 (1/4 + 1/9)))
    value = 0.3
    profile = belief.profile_contour(lambda v, free: np.array([free, v - free]), value, 0.0)
    variance = 1 / 4 + 1 / 9
    assert profile == pytest.approx(math.exp(-((value - center.sum()) ** 2) / (2 * variance)), abs=1e-7)


def test_binomial_likelihood_sups_and_focal_sets():
    belief = BinomialLikelihood(7, 10)
    contour, _ = _binomial_contour(7, 10)
    assert belief.pl(0.0, 0.5) == pytest.approx(float(contour(0.5)), abs=1e-14)
    assert belief.pl(0.6, 0.8) == 1.0
    assert belief.bel(0.5, 1.0) == pytest.approx(1 - float(contour(0.5)), abs=1e-9)
    grid = np.linspace(0, 1, 200001)
    lower, upper = belief.focal_set(0.3)
    inside = grid[contour(grid) >= 0.3]
    assert lower == pytest.approx(inside.min(), abs=1e-5)
    assert upper == pytest.approx(inside.max(), abs=1e-5)
    np.testing.assert_allclose(belief.predictive_mass().to_array(), counts_to_mass_array(7, 10, "likelihood"))
    with pytest.raises(ValueError, match="n = 0"):
        BinomialLikelihood(0, 0)
    with pytest.raises(ValueError, match="exceeds"):
        BinomialLikelihood(3, 2)
    with pytest.raises(ValueError, match="level"):
        belief.focal_set(0)


def test_multinomial_marginal_contour_is_a_profile():
    counts = np.array([2, 5, 3])
    belief = MultinomialLikelihood(counts)
    value = 0.3

    # brute-force profile: maximise over p_0 with p_1 = value fixed
    def negative(p0):
        p = np.array([p0, value, 1 - value - p0])
        return -np.sum(special.xlogy(counts, p))

    result = optimize.minimize_scalar(
        negative, bounds=(1e-12, 1 - value - 1e-12), method="bounded", options={"xatol": 1e-12}
    )
    brute = math.exp(-result.fun - belief.max_log_likelihood_)
    assert belief.marginal_contour(1, value) == pytest.approx(brute, abs=1e-8)
    # box sup on the simplex agrees with the marginal contour when only class 1 is constrained
    assert belief.pl([0, 0, 0], [1, value, 1]) == pytest.approx(brute, abs=1e-6)
    assert belief.pl([0.9, 0.9, 0], [1, 1, 1]) == 0.0
    with pytest.raises(ValueError, match="zero"):
        MultinomialLikelihood([0, 0])


def _logistic_data(seed=0, size=40):
    rng = np.random.default_rng(seed)
    labels = (rng.random(size) < 0.5).astype(int)
    scores = rng.normal(2.0 * labels - 1.0, 1.2)
    return scores, labels


def test_logistic_mle_matches_scipy_optimizer():
    scores, labels = _logistic_data()
    belief = LogisticLikelihood(scores, labels)

    def negative(theta):
        eta = theta[0] + theta[1] * scores
        return np.sum(labels * np.logaddexp(0, eta) + (1 - labels) * np.logaddexp(0, -eta))

    reference = optimize.minimize(negative, [0.0, 0.0], method="BFGS", options={"gtol": 1e-10}).x
    np.testing.assert_allclose(belief.mle_, reference, atol=1e-5)
    # Xu's convention: theta_1 < 0 when high scores mean class 1
    assert belief.mle_[1] < 0


def test_logistic_profile_contour_against_brute_force_eq40():
    scores, labels = _logistic_data()
    belief = LogisticLikelihood(scores, labels)
    score = 0.5
    for tau in [0.2, 0.5, 0.62, 0.8]:
        offset = math.log(1 / tau - 1)

        def negative(theta_1, offset=offset):
            theta = np.array([offset - theta_1 * score, theta_1])
            return -(belief._logistic_log_likelihood(theta) - belief.max_log_likelihood_)

        result = optimize.minimize_scalar(negative, bracket=(-5, 0), tol=1e-12)
        assert belief.profile_contour_tau(score, tau) == pytest.approx(math.exp(-result.fun), abs=1e-8)
        generic = belief.profile_contour(
            lambda t, free: np.array([math.log(1 / t - 1) - free * score, free]), tau, belief.mle_[1]
        )
        assert generic == pytest.approx(math.exp(-result.fun), abs=1e-6)
    assert belief.profile_contour_tau(score, 0.0) == 0.0
    assert belief.profile_contour_tau(score, float(belief.tau(score))) == pytest.approx(1.0, abs=1e-12)


def test_logistic_predictive_mass_quadrature_vs_monte_carlo():
    scores, labels = _logistic_data(seed=1)
    belief = LogisticLikelihood(scores, labels)
    score = 0.0
    masses = belief.predictive_mass(score).to_array()
    tau_hat = float(belief.tau(score))
    assert masses[2] <= tau_hat <= masses[2] + masses[3]
    simulated, standard_error = predictive_mass_monte_carlo(
        lambda t: belief.profile_contour_tau(score, t),
        tau_hat=tau_hat,
        n_draws=1500,
        random_state=0,
    )
    simulated = simulated.to_array()
    assert np.all(np.abs(simulated[1:3] - masses[1:3]) < 5 * standard_error + 1e-9)


def test_logistic_bad_input():
    with pytest.raises(ValueError, match="separate"):
        LogisticLikelihood([0.0, 1.0, 2.0, 3.0], [0, 0, 1, 1])
    smoothed = LogisticLikelihood([0.0, 1.0, 2.0, 3.0], [0, 0, 1, 1], targets="smoothed")
    assert np.all(np.isfinite(smoothed.mle_))
    with pytest.raises(ValueError, match="single class"):
        LogisticLikelihood([0.0, 1.0], [1, 1])
    with pytest.raises(ValueError, match="0/1"):
        LogisticLikelihood([0.0, 1.0], [1, 2])


# -- logistic predictive masses at extreme scores (tau_hat at or near 0 or 1) ---------------------------------


def _overlapping_logistic_data(size=200, seed=3):
    rng = np.random.default_rng(seed)
    labels = (rng.random(size) < 0.5).astype(int)
    scores = rng.normal(0.5 * (2.0 * labels - 1.0), 1.5)
    return scores, labels


def _brute_force_log_profile(scores, targets, max_log_likelihood, score, eta, center, half_width, zooms=4):
    """log pl(eta; s) by grid search over theta_1: no derivatives, no Newton, no starting point.

    A grid of 101 points over center +- half_width, then ``zooms`` zooms onto the two cells around the best point
    (the line log-likelihood is concave in theta_1, so the maximiser stays inside them); the final spacing is
    about 2e-7 half_width with four zooms, a log-likelihood error below 1e-8 here.
    """

    def line(theta_1):
        linear = eta + theta_1[:, None] * (scores - score)[None, :]
        return -np.sum(targets * np.logaddexp(0, linear) + (1 - targets) * np.logaddexp(0, -linear), axis=1)

    lower, upper = center - half_width, center + half_width
    best_value = -np.inf
    for _ in range(zooms + 1):
        grid = np.linspace(lower, upper, 101)
        values = line(grid)
        best = int(np.argmax(values))
        best_value = max(best_value, float(values[best]))
        lower, upper = grid[max(best - 2, 0)], grid[min(best + 2, 100)]
    return min(best_value - max_log_likelihood, 0.0)


def _brute_force_predictive_masses(belief, score):
    """(m({0}), m({1}), m({0, 1})) by scipy quad of the grid profile, in eta = ln(1/tau - 1).

    With tau = 1 / (1 + e^eta), d tau = -tau (1 - tau) d eta, so Eqs. 22c/23c read
    m({1}) = int_0^tau_hat (1 - pl) d tau = int_eta_hat^inf (1 - pl) w, m({0}) = int_-inf^eta_hat (1 - pl) w,
    m({0, 1}) = int pl w, with w(eta) = tau (1 - tau); integrating in eta keeps full relative accuracy when
    tau_hat rounds to 0 or 1.
    """
    scores, targets = belief.scores, belief.target_values
    theta_0, theta_1 = belief.mle_
    eta_hat = theta_0 + theta_1 * score
    # search theta_1 over +-40 standard errors around its MLE, from a numerical Hessian (independent of the code)
    hessian = optimize.approx_fprime(
        belief.mle_, lambda t: optimize.approx_fprime(t, belief._logistic_log_likelihood, 1e-6), 1e-5
    )
    half_width = 40 * math.sqrt(np.linalg.inv(-0.5 * (hessian + hessian.T))[1, 1])

    def log_profile(eta):
        return _brute_force_log_profile(
            scores, targets, belief.max_log_likelihood_, score, eta, theta_1, half_width
        )

    def weight(eta):
        return special.expit(eta) * special.expit(-eta)

    def integral(function, lower, upper):
        cuts = sorted({lower, upper, *(p for p in (0.0,) if lower < p < upper)})
        total = 0.0
        for a, b in itertools.pairwise(cuts):
            total += integrate.quad(function, a, b, epsabs=1e-15, epsrel=1e-8, limit=200)[0]
        return total

    def absent(eta):
        return -math.expm1(log_profile(eta)) * weight(eta)

    def present(eta):
        return math.exp(log_profile(eta)) * weight(eta)

    mass_one = integral(absent, eta_hat, np.inf)
    mass_zero = integral(absent, -np.inf, eta_hat)
    mass_frame = integral(present, -np.inf, eta_hat) + integral(present, eta_hat, np.inf)
    return np.array([mass_zero, mass_one, mass_frame])


@pytest.mark.parametrize("score", [0.0, 12.0, 30.0, -45.0])
def test_logistic_predictive_mass_extreme_scores_against_brute_force(score):
    scores, labels = _overlapping_logistic_data()
    belief = LogisticLikelihood(scores, labels)
    masses = belief.predictive_mass(score).to_array()
    reference = _brute_force_predictive_masses(belief, score)
    assert masses.sum() == pytest.approx(1.0, abs=1e-15)
    assert np.all(masses >= 0)
    np.testing.assert_allclose(masses[1:], reference, rtol=1e-6, atol=1e-12)
    # Bel({1}) <= tau_hat <= Pl({1}) (Eqs. 22-23 with 0 <= pl <= 1)
    tau_hat = float(belief.tau(score))
    assert masses[2] <= tau_hat * (1 + 1e-12) and tau_hat <= masses[2] + masses[3] + 1e-15


def test_logistic_predictive_mass_where_tau_hat_rounds_to_one():
    """Score 30 on 200 calibration points: tau_hat == 1.0 in float64, and the mass is still valid and not m({1}) = 1."""
    scores, labels = _overlapping_logistic_data()
    belief = LogisticLikelihood(scores, labels)
    score = 30.0 if belief.mle_[1] < 0 else -30.0
    extreme = 1e3 * score
    assert float(belief.tau(extreme)) in (0.0, 1.0)
    masses = belief.predictive_mass(extreme).to_array()
    assert np.all(np.isfinite(masses)) and masses.sum() == pytest.approx(1.0, abs=1e-15)
    assert masses[3] > 1e-4  # the overlap of the classes leaves real ignorance, even far out
    mass_function = belief.predictive_mass(extreme)
    np.testing.assert_array_equal(mass_function.to_array("m"), masses)


@pytest.mark.parametrize("targets", ["labels", "smoothed"])
def test_logistic_predictive_mass_limit_of_extreme_scores(targets):
    """As |s| -> inf, m({0, 1}) -> the relative likelihood of theta_1 = 0 (closed form).

    On the line theta_0 + theta_1 s = eta the slope theta_1 = (eta - theta_0) / s -> 0 for every fixed eta, so
    pl(eta; s) -> sup_theta_0 L(theta_0, 0) / L(theta_hat) for every eta; with theta_1 = 0 the model is a constant
    probability whose MLE is the mean target t_bar: the limit is exp(l(t_bar) - l(theta_hat)), and m({0, 1}) =
    int pl(eta) w(eta) d eta tends to it.  The outcome side follows the sign of theta_1.
    """
    scores, labels = _overlapping_logistic_data()
    belief = LogisticLikelihood(scores, labels, targets=targets)
    targets = belief.target_values
    mean = targets.mean()
    constant = np.sum(special.xlogy(targets, mean) + special.xlog1py(1 - targets, -mean))
    limit = math.exp(constant - belief.max_log_likelihood_)
    assert 1e-4 < limit < 0.5
    for score in (1e7, -1e7):
        masses = belief.predictive_mass(score).to_array()
        assert masses[3] == pytest.approx(limit, rel=1e-4)
        certain = 2 if (belief.mle_[1] < 0) == (score > 0) else 1
        assert masses[certain] == pytest.approx(1 - limit, rel=1e-4)
        assert masses[3 - certain] < 1e-12


@pytest.mark.parametrize("targets", ["labels", "smoothed"])
def test_logistic_predictive_mass_matches_logistic_calibrator(targets):
    """The calibration layer's LogisticCalibrator (Gauss-Legendre panels in numba) computes the same masses."""
    from dstk.calibration import LogisticCalibrator

    scores, labels = _overlapping_logistic_data()
    belief = LogisticLikelihood(scores, labels, targets=targets)
    calibrator = LogisticCalibrator(model="likelihood", interpolation=None, targets=targets).fit(
        scores, labels
    )
    np.testing.assert_allclose(calibrator.theta_, belief.mle_, rtol=1e-7, atol=1e-9)
    test_scores = np.array([-60.0, -12.0, -3.0, 0.0, 0.7, 4.0, 12.0, 30.0, 60.0])
    ours = np.array([belief.predictive_mass(s).to_array() for s in test_scores])
    theirs = calibrator.predict_mass(test_scores).to_array("m")
    np.testing.assert_allclose(ours, theirs, atol=1e-9)


def test_logistic_profile_contour_near_tau_one_against_brute_force():
    scores, labels = _overlapping_logistic_data()
    belief = LogisticLikelihood(scores, labels)
    score = 30.0
    hessian_free_width = 40 * 0.5  # theta_1's standard error is below 0.5 for these 200 points
    eta_hat = belief.mle_[0] + belief.mle_[1] * score
    for eta in eta_hat + np.array([-20.0, -3.0, 0.0, 2.0, 15.0]):
        tau = float(special.expit(-eta))
        reference = _brute_force_log_profile(
            belief.scores,
            belief.target_values,
            belief.max_log_likelihood_,
            score,
            eta,
            belief.mle_[1],
            hessian_free_width,
            zooms=8,
        )
        assert belief._profile_log_contour_eta(score, [eta])[0] == pytest.approx(reference, abs=1e-9)
        if 0.0 < tau < 1.0:  # tau rounds near 1: compare at the eta that the float tau represents
            represented = math.log1p(-tau) - math.log(tau)
            reference = _brute_force_log_profile(
                belief.scores,
                belief.target_values,
                belief.max_log_likelihood_,
                score,
                represented,
                belief.mle_[1],
                hessian_free_width,
                zooms=8,
            )
            assert belief.profile_contour_tau(score, tau) == pytest.approx(
                math.exp(reference), rel=1e-9, abs=1e-15
            )


def test_logistic_predictive_mass_bad_input():
    scores, labels = _overlapping_logistic_data(size=50)
    belief = LogisticLikelihood(scores, labels)
    with pytest.raises(ValueError, match="finite"):
        belief.predictive_mass(np.nan)
    with pytest.raises(ValueError, match="one finite number"):
        belief.predictive_mass([0.0, 1.0])
    with pytest.raises(TypeError):
        belief.predictive_mass(0.0, 1e-10)  # options are keyword-only
