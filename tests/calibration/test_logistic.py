"""LogisticCalibrator: Platt fit, GLM interval, profile likelihood (Eqs. 33-40) against scipy references."""

import numpy as np
import pytest
from scipy import special

from dstk.calibration import LogisticCalibrator
from dstk.evidence._likelihood import LogisticLikelihood

from .reference import logistic_log_likelihood, reference_masses, reference_mle, reference_profile


def _data(n=40, seed=0, spread=1.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    return rng.normal((2.0 * y - 1.0) * spread, 1.0), y


@pytest.mark.parametrize("targets", ["smoothed", "labels"])
def test_platt_fit_matches_an_independent_optimiser(targets):
    scores, y = _data(80, seed=1)
    cal = LogisticCalibrator(model="bayes", targets=targets).fit(scores, y)
    n_pos, n_neg = y.sum(), y.size - y.sum()
    t = (
        np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
        if targets == "smoothed"
        else y.astype(float)
    )
    theta, loglik = reference_mle(scores, t)
    np.testing.assert_allclose(cal.theta_, theta, atol=1e-6)
    np.testing.assert_allclose(cal.max_log_likelihood_, loglik, atol=1e-9)
    np.testing.assert_allclose(
        cal.predict_proba([0.3])[0, 1], special.expit(-(theta[0] + 0.3 * theta[1])), atol=1e-7
    )


def test_platt_targets_match_scikit_learn_sigmoid():
    from sklearn.calibration import _sigmoid_calibration

    scores, y = _data(100, seed=2)
    a, b = _sigmoid_calibration(scores, y)  # P = 1 / (1 + exp(a f + b)), Platt's targets
    cal = LogisticCalibrator(model="bayes").fit(scores, y)
    np.testing.assert_allclose(cal.predict_proba(scores)[:, 1], special.expit(-(a * scores + b)), atol=1e-5)


def test_likelihood_masses_match_the_straightforward_reference():
    scores, y = _data(40, seed=0)
    cal = LogisticCalibrator(model="likelihood", targets="labels").fit(scores, y)
    test = np.array([-2.5, -0.7, 0.0, 0.37, 1.2, 3.0])
    ours = cal.predict_mass(test).to_array()
    exact = cal.predict_mass_exact(test)
    for s, row, row_exact in zip(test, ours, exact):
        ref = reference_masses(s, scores, y.astype(float), cal.theta_, cal.max_log_likelihood_)
        np.testing.assert_allclose(row_exact, ref, atol=1e-8)
        np.testing.assert_allclose(row, ref, atol=1e-6)
    # the issue-3 implementation (vectorised Newton + generic quad) agrees too
    other = LogisticLikelihood(scores, y)
    np.testing.assert_allclose(exact[2], other.predictive_mass(0.0).to_array(), atol=1e-8)


def test_likelihood_with_platt_targets_and_interpolation():
    scores, y = _data(150, seed=3)
    cal = LogisticCalibrator().fit(scores, y)
    assert cal.interpolation_degree_ is not None
    test = np.linspace(-6, 6, 13)
    np.testing.assert_allclose(cal.predict_mass(test).to_array(), cal.predict_mass_exact(test), atol=1e-7)
    ref = reference_masses(0.8, scores, cal._logistic._targets, cal.theta_, cal.max_log_likelihood_)
    np.testing.assert_allclose(cal.predict_mass([0.8]).to_array()[0], ref, atol=1e-6)
    exact_only = LogisticCalibrator(interpolation=None).fit(scores, y)
    assert exact_only.interpolation_degree_ is None
    np.testing.assert_allclose(
        exact_only.predict_mass(test).to_array(), cal.predict_mass_exact(test), atol=1e-12
    )


@pytest.mark.parametrize(
    ("n", "seed", "spread", "targets"),
    [
        (60, 10, 0.1, "smoothed"),
        (60, 11, 1.0, "smoothed"),
        (60, 12, 3.0, "smoothed"),
        (300, 13, 1.5, "smoothed"),
        (25, 14, 0.6, "smoothed"),
        (8, 15, 0.0, "labels"),  # a nearly flat sigmoid: tau_hat = 1/2 far from the scores
        (12, 16, 0.0, "labels"),
    ],
)
def test_chebyshev_lobatto_interpolant_is_within_its_tolerance_of_the_exact_masses(n, seed, spread, targets):
    # the interpolant on nested Chebyshev-Lobatto points (end points: the limits at z = +-inf):
    # within the documented 1e-8 of the exact masses everywhere, tails and extreme scores included
    scores, y = _data(n, seed=seed, spread=spread)
    cal = LogisticCalibrator(targets=targets).fit(scores, y)
    assert cal.interpolation_degree_ in (32, 64, 128, 256, 512, 1024)
    centre, scale = scores.mean(), scores.std()
    z = np.concatenate([np.linspace(-8.0, 8.0, 161), np.geomspace(8.0, 1e9, 25), -np.geomspace(8.0, 1e9, 25)])
    test = np.concatenate([centre + scale * z, [1e300, -1e300]])
    interpolated = cal.predict_mass(test).to_array()
    exact = cal.predict_mass_exact(test)
    assert np.max(np.abs(interpolated - exact)) <= 1e-8


@pytest.mark.parametrize(
    ("targets", "seed", "spread"), [("smoothed", 20, 0.3), ("labels", 21, 1.0), ("smoothed", 22, 2.0)]
)
def test_limit_masses_are_the_limits_of_the_exact_masses(targets, seed, spread):
    # the closed form (intercept-only likelihood ratio) against the kernel's masses at large |z|,
    # extrapolated from z and 10 z assuming an O(1/z) approach (Richardson)
    scores, y = _data(60, seed=seed, spread=spread)
    fit = LogisticCalibrator(targets=targets, interpolation=None).fit(scores, y)._logistic
    limits = fit.limit_masses()
    for row, sign in ((0, 1.0), (1, -1.0)):
        near, far = fit.predictive_masses(sign * np.array([1e6, 1e7]))
        np.testing.assert_allclose((10.0 * far - near) / 9.0, limits[row], atol=1e-11)
    np.testing.assert_allclose(limits.sum(axis=1), 1.0, rtol=0, atol=1e-15)


def test_contour_matches_the_brute_force_profile():
    scores, y = _data(40, seed=4)
    cal = LogisticCalibrator(targets="labels").fit(scores, y)
    taus = np.array([0.0, 0.05, 0.3, 0.5, 0.8, 0.99, 1.0])
    got = cal.contour(0.5, taus)
    expected = [
        reference_profile(0.5, t, scores, y.astype(float), cal.theta_, cal.max_log_likelihood_) for t in taus
    ]
    np.testing.assert_allclose(got, expected, atol=1e-9)
    tau_hat = special.expit(-(cal.theta_[0] + 0.5 * cal.theta_[1]))
    assert cal.contour(0.5, tau_hat) == pytest.approx(1.0, abs=1e-12)
    assert got[0] == 0.0 and got[-1] == 0.0  # Eq. 35
    # a 2-D grid search over theta on the line never beats the profile
    line = np.linspace(-10, 10, 20001)
    offset = np.log(1 / 0.3 - 1)
    grid = max(logistic_log_likelihood(offset - t1 * 0.5, t1, scores, y.astype(float)) for t1 in line[::50])
    assert np.exp(grid - cal.max_log_likelihood_) <= got[2] + 1e-12


def test_confidence_interval_model_uses_the_normal_approximation():
    scores, y = _data(60, seed=5)
    cal = LogisticCalibrator(model="confidence_interval", targets="labels", level=0.9).fit(scores, y)

    # observed information by finite differences of the log-likelihood (independent of the fit's formula)
    def f(t):
        return logistic_log_likelihood(t[0], t[1], scores, y.astype(float))

    h = 1e-4
    theta = cal.theta_
    hessian = np.zeros((2, 2))
    for i in range(2):
        for j in range(2):
            e_i, e_j = np.eye(2)[i] * h, np.eye(2)[j] * h
            hessian[i, j] = (
                f(theta + e_i + e_j) - f(theta + e_i - e_j) - f(theta - e_i + e_j) + f(theta - e_i - e_j)
            ) / (4 * h * h)
    covariance = np.linalg.inv(-hessian)
    s = 0.7
    a = np.array([1.0, s])
    eta, sd = a @ theta, np.sqrt(a @ covariance @ a)
    z = 1.6448536269514722
    lower, upper = special.expit(-(eta + z * sd)), special.expit(-(eta - z * sd))
    np.testing.assert_allclose(
        cal.predict_mass([s]).to_array()[0],
        [0, 0.9 * (1 - upper), 0.9 * lower, 1 - 0.9 * (1 - upper) - 0.9 * lower],
        atol=1e-6,
    )


def test_inverse_pignistic_model():
    scores, y = _data(60, seed=6)
    cal = LogisticCalibrator(model="inverse_pignistic").fit(scores, y)
    bayes = LogisticCalibrator(model="bayes").fit(scores, y)
    test = np.linspace(-3, 3, 7)
    np.testing.assert_allclose(cal.predict_proba(test), bayes.predict_proba(test), atol=1e-12)
    masses = cal.predict_mass(test).to_array()
    assert np.all((masses[:, 1] == 0) | (masses[:, 2] == 0))  # consonant on {0, 1}


def test_separable_scores():
    scores = np.array([-3.0, -2.0, -1.5, 1.0, 2.0, 2.5])
    y = np.array([0, 0, 0, 1, 1, 1])
    with pytest.raises(ValueError, match="separate the two classes perfectly"):
        LogisticCalibrator(targets="labels").fit(scores, y)
    cal = LogisticCalibrator(targets="smoothed").fit(scores, y)  # Platt's targets keep the MLE finite
    assert np.all(np.isfinite(cal.theta_)) and cal.theta_[1] < 0
    masses = cal.predict_mass(np.array([-2.0, 0.0, 2.0])).to_array()
    assert np.all(np.isfinite(masses)) and np.all(masses[:, 3] > 0)  # ignorance remains
    ref = reference_masses(
        0.0, scores, cal._logistic._targets, cal.theta_, cal.max_log_likelihood_, cal.covariance_
    )
    np.testing.assert_allclose(masses[1], ref, atol=1e-6)


def test_masses_more_committed_with_more_data():
    wide = LogisticCalibrator().fit(*_data(20, seed=7))
    narrow = LogisticCalibrator().fit(*_data(400, seed=7))
    assert narrow.predict_mass([0.5]).to_array()[0, 3] < wide.predict_mass([0.5]).to_array()[0, 3]


def test_extreme_scores_are_finite_and_continuous():
    scores, y = _data(30, seed=8)
    cal = LogisticCalibrator(interpolation=None).fit(scores, y)
    far = np.array([30.0, 60.0, 120.0, 1e4, 1e300, -1e300])
    masses = cal.predict_mass(far).to_array()
    assert np.all(np.isfinite(masses)) and np.allclose(masses.sum(axis=1), 1.0)
    assert abs(masses[1, 2] - masses[2, 2]) < 0.05  # no jump as the score grows


def test_tiny_separable_calibration_set_with_platt_targets():
    cal = LogisticCalibrator().fit([-40.0, 40.0], [0, 1])
    assert np.all(np.isfinite(cal.covariance_))
    masses = cal.predict_mass([-40.0, 0.0, 40.0]).to_array()
    assert np.all(np.isfinite(masses)) and np.allclose(masses.sum(axis=1), 1.0)
    ci = LogisticCalibrator(model="confidence_interval").fit([-40.0, 40.0], [0, 1])
    assert np.all(np.isfinite(ci.predict_mass([0.0]).to_array()))


@pytest.mark.parametrize("n", [3000, 8000])  # the 12-node rules up to 5,000 points, the 8-node ones above
def test_compressed_data_give_the_uncompressed_masses_and_the_scipy_reference(n):
    """The fast path (Gauss-compressed data + interpolant) against the direct computation on every
    calibration score (the slow path, the same kernel on the raw data) and scipy's Brent + quad."""
    from dstk._kernels.calibration import logistic_profile_masses

    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, n)
    scores = 40.0 + 3.0 * rng.normal(1.2 * y - 0.6, 1.0)
    cal = LogisticCalibrator().fit(scores, y)
    fit = cal._logistic
    assert fit.n_nodes < 400  # compressed from 3,000 or 8,000 points
    test = 40.0 + 3.0 * np.array([-30.0, -4.0, -1.3, 0.0, 0.4, 2.5, 9.0, 50.0])
    z = fit.standardize(test)
    uncompressed = logistic_profile_masses(
        z,
        fit._z,
        fit._targets,
        fit._weight,
        fit.alpha,
        fit.alpha_covariance,
        fit.max_log_likelihood,
        np.zeros((z.size, 4)),
        np.empty(fit._z.size),
    )
    np.testing.assert_allclose(cal.predict_mass_exact(test), uncompressed, atol=1e-11)
    np.testing.assert_allclose(cal.predict_mass(test).to_array(), uncompressed, atol=1e-8)
    for s in test[[2, 4]]:
        reference = reference_masses(
            s, scores, fit._targets, cal.theta_, cal.max_log_likelihood_, cal.covariance_
        )
        np.testing.assert_allclose(cal.predict_mass_exact([s])[0], reference, atol=1e-7)


def test_gauss_compression_keeps_the_log_likelihood():
    from dstk._kernels.calibration import gauss_compress

    rng = np.random.default_rng(5)
    points = np.sort(rng.normal(size=5000))
    weights = rng.integers(1, 4, 5000).astype(float)
    starts = np.flatnonzero(np.concatenate(([True], np.diff(np.floor(points / 0.4)) != 0))).astype(np.int64)
    nodes, node_weights, counts = gauss_compress(points, weights, starts, 8)
    assert nodes.size == counts.sum() <= 8 * starts.size
    # exact for polynomials of degree <= 15 on each bin, hence moments of every bin
    for degree in (0, 1, 5, 15):
        np.testing.assert_allclose(node_weights @ nodes**degree, weights @ points**degree, rtol=1e-11)
    for slope in (-2.5, 0.3, 2.0):  # |slope| * half-width <= 1: the softplus sum to ~1e-13 per point
        exact = weights @ np.logaddexp(0.0, 0.2 + slope * points)
        assert abs(node_weights @ np.logaddexp(0.0, 0.2 + slope * nodes) - exact) < 1e-9


def _profile_on_grid(s, etas, scores, targets, theta, slope):
    """Profile log-likelihood max_theta_1 l(eta - theta_1 s, theta_1) at every eta (numpy, all at once).

    Newton's method over theta_1 on the uncompressed data, run to convergence for the whole grid at
    once (concave in theta_1); the caller checks some points against Brent's method.
    """
    centred = scores[:, None] - s
    for _ in range(100):
        eta = etas[None, :] + slope[None, :] * centred
        p = special.expit(eta)
        gradient = ((1.0 - targets)[:, None] - p) * centred
        curvature = -(p * (1.0 - p) * centred**2).sum(axis=0)
        step = -gradient.sum(axis=0) / curvature
        slope = slope + step
        if np.max(np.abs(step)) < 1e-13:
            break
    eta = etas[None, :] + slope[None, :] * centred
    return -(
        targets[:, None] * np.logaddexp(0.0, eta) + (1.0 - targets)[:, None] * np.logaddexp(0.0, -eta)
    ).sum(axis=0)


@pytest.mark.parametrize(
    ("n", "seed", "targets", "half_widths"),
    [
        (1_000, 32, "smoothed", None),
        (1_500, 30, "smoothed", None),
        (4_000, 31, "labels", None),
        (1_000, 32, "smoothed", (3.0, 11.0)),  # Q > -25 at xi = +-3: the wider interval is taken
    ],
)
def test_profile_grid_masses_match_a_brute_force_profile_on_a_fine_grid(
    n, seed, targets, half_widths, monkeypatch
):
    # the masses from the Chebyshev series of the whitened profile log-likelihood (the fast path of
    # fit) against the definition: the profile contour on a fine grid of eta = ln(1/tau - 1)
    # (uncompressed data; a few points checked against Brent's method), integrated by Simpson's rule
    # (Xu et al. 2016, Eqs. 22-23: m({1}) = tau_hat - int_eta_hat^inf pl w, m({0}) = 1 - tau_hat -
    # int_-inf^eta_hat pl w, w = tau (1 - tau))
    from scipy import integrate

    import dstk.evidence._logistic as logistic_module

    if half_widths is not None:
        monkeypatch.setattr(logistic_module, "_GRID_HALF_WIDTHS", half_widths)
    scores, y = _data(n, seed=seed, spread=0.6)
    cal = LogisticCalibrator(targets=targets).fit(scores, y)
    fit = cal._logistic
    assert fit.profile_grid() is not None  # the fast path is taken
    if half_widths is not None:
        assert fit.profile_grid()[3] == half_widths[1]
    t = fit._targets
    theta = cal.theta_
    for s in (-1.5, 0.2, 1.1):
        eta_hat = theta[0] + theta[1] * s
        a = np.array([1.0, s])
        sigma = float(np.sqrt(a @ cal.covariance_ @ a))
        slope_per_eta = (cal.covariance_ @ a)[1] / sigma**2
        halves = []
        for side in (1.0, -1.0):
            eta = eta_hat + side * sigma * np.linspace(0.0, 11.0, 2_201)
            guess = theta[1] + slope_per_eta * (eta - eta_hat)
            log_pl = np.minimum(
                _profile_on_grid(s, eta, scores, t, theta, guess) - cal.max_log_likelihood_, 0.0
            )
            for i in (0, 200, 700):
                brent = reference_profile(
                    s, special.expit(-eta[i]), scores, t, theta, cal.max_log_likelihood_
                )
                assert np.exp(log_pl[i]) == pytest.approx(brent, abs=1e-10)
            w = special.expit(eta) * special.expit(-eta)
            halves.append(abs(integrate.simpson(np.exp(log_pl) * w, x=eta)))
        tau_hat = special.expit(-eta_hat)
        mass_one = tau_hat - halves[0]
        mass_zero = 1.0 - tau_hat - halves[1]
        expected = np.array([0.0, mass_zero, mass_one, 1.0 - mass_one - mass_zero])
        got = fit.grid_masses(fit.standardize(np.array([s])))[0]
        np.testing.assert_allclose(got, expected, atol=1e-9)
        np.testing.assert_allclose(cal.predict_mass([s]).to_array()[0], expected, atol=1e-8)


@pytest.mark.parametrize("order", [8, 12])
@pytest.mark.parametrize("seed", range(40))
def test_gauss_compression_is_exact_to_degree_2q_minus_1_on_ties_outliers_and_zero_weights(seed, order):
    # the Gauss rule of each run against the run's own Chebyshev moments (numpy's chebval on the raw
    # points): a run of more than 2 q points with d distinct ones of positive weight becomes
    # max(min(d, q), 1) nodes exact for
    # degrees <= 2 min(d, q) - 1 (every degree when d <= q); shorter runs are kept as they are
    from dstk._kernels.calibration import gauss_compress

    rng = np.random.default_rng(seed)
    n = int(rng.integers(17, 3000))
    points = np.round(rng.normal(size=n) * rng.uniform(0.5, 3.0), int(rng.integers(0, 3)))  # ties
    if seed % 3 == 0:  # an isolated point at a run's edge: the Lanczos recurrence's hard case
        points = np.append(points, points.max() + rng.uniform(0.0, 3.0))
    points = np.sort(points)
    weights = rng.random(points.size) + 0.1
    if seed % 4 == 0:
        weights[rng.random(points.size) < 0.5] = 0.0
    width = rng.uniform(0.3, 3.0)
    starts = np.flatnonzero(np.concatenate(([True], np.diff(np.floor(points / width)) != 0))).astype(np.int64)
    nodes, node_weights, counts = gauss_compress(points, weights, starts, order)
    stops = np.append(starts[1:], points.size)
    position = 0
    for first, stop, count_of_run in zip(starts, stops, counts):
        run, run_weights = points[first:stop], weights[first:stop]
        distinct = np.unique(run[run_weights > 0.0]).size  # the support of the run's measure
        count = stop - first if stop - first <= 2 * order else max(min(distinct, order), 1)
        assert count_of_run == count
        rule, rule_weights = nodes[position : position + count], node_weights[position : position + count]
        position += count
        centre, half = 0.5 * (run[0] + run[-1]), max(0.5 * (run[-1] - run[0]), 1e-300)
        exact_degree = 2 * order - 1 if count >= order or stop - first <= 2 * order else 2 * count - 1
        for degree in range(exact_degree + 1):
            basis = [0.0] * degree + [1.0]
            reference = run_weights @ np.polynomial.chebyshev.chebval((run - centre) / half, basis)
            got = rule_weights @ np.polynomial.chebyshev.chebval((rule - centre) / half, basis)
            assert abs(got - reference) <= 1e-12 * max(run_weights.sum(), 1e-300), (degree, count)
    assert position == nodes.size


@pytest.mark.parametrize(("n", "seed", "spread"), [(700, 40, 1.0), (1_000, 41, 0.6), (4_000, 42, 0.6)])
def test_profile_series_matches_brent_at_any_direction_on_the_circle(n, seed, spread):
    # the series of the whitened profile log-likelihood (a trigonometric series in the angle phi of
    # the direction e over the whole circle, Chebyshev in xi) against its definition at random
    # (phi, xi) off the table: Q = max over the line e . u = xi of l(alpha_hat + B u) - l_max on the
    # uncompressed data, maximised by Brent's method; phi in [pi, 2 pi) checks Q(e, xi) = Q(-e, -xi)
    from scipy import optimize

    scores, y = _data(n, seed=seed, spread=spread)
    fit = LogisticCalibrator().fit(scores, y)._logistic
    coefficients, cholesky, frame, half_width = fit.profile_grid()
    rows = coefficients.shape[0]
    frequencies = np.arange(1, rows // 2)

    def log_likelihood(alpha):
        eta = alpha[0] + alpha[1] * fit._z
        terms = fit._targets * np.logaddexp(0.0, eta) + (1.0 - fit._targets) * np.logaddexp(0.0, -eta)
        return -float(fit._weight @ terms)

    rng = np.random.default_rng(seed)
    for phi in rng.uniform(0.0, 2.0 * np.pi, 8):
        basis = np.empty(rows)
        basis[0] = 1.0
        basis[1:-1:2] = np.cos(frequencies * phi)
        basis[2:-1:2] = np.sin(frequencies * phi)
        basis[-1] = np.cos(rows // 2 * phi)
        e = np.cos(phi) * frame[:2] + np.sin(phi) * frame[2:]
        across = np.array([-e[1], e[0]])
        for xi in rng.uniform(-6.5, 6.5, 3):
            result = optimize.minimize_scalar(
                lambda t, xi=xi, e=e, across=across: (
                    -log_likelihood(fit.alpha + cholesky @ (xi * e + t * across))
                ),
                bracket=(-1.0, 1.0),
                tol=1e-12,
            )
            expected = -result.fun - fit.max_log_likelihood
            got = np.polynomial.chebyshev.chebval(xi / half_width, basis @ coefficients)
            assert got == pytest.approx(expected, abs=1e-9)
