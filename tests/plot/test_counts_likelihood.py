"""dstk.plot._counts (Xu et al. Fig. 4) and dstk.plot._likelihood (Figs. 3 and 6)."""

import numpy as np
import pytest
from matplotlib.collections import PolyCollection
from scipy import integrate

from dstk.evidence import BinomialLikelihood, LogisticLikelihood
from dstk.plot import plot_count_models, plot_logistic_contour, plot_predictive_contour

from .rendering import check_not_blank


def test_count_models_by_proportion_dempster_lines():
    ax = plot_count_models("proportion", models=["dempster", "bayes"], sample_size=10)
    k = np.arange(11)
    belief, plausibility, bayes = ax.lines[0], ax.lines[1], ax.lines[2]
    assert np.allclose(belief.get_xdata(), k / 10)
    assert np.allclose(belief.get_ydata(), k / 11)  # Xu et al. Eq. 24
    assert np.allclose(plausibility.get_ydata(), (k + 1) / 11)
    assert np.allclose(bayes.get_ydata(), k / 10)  # Bel = Pl: a single line
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "Bayes (k/n) (Bel = Pl)" in texts
    check_not_blank(ax)


def test_count_models_by_sample_size_all_default_models():
    ax = plot_count_models("sample_size", max_sample_size=60)
    assert ax.get_xlabel() == "sample size n"
    n = np.arange(3, 61, 3)
    assert np.allclose(ax.lines[0].get_xdata(), n)
    # the confidence-interval model is the most conservative: lowest belief at every n
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(text.startswith("Clopper-Pearson (95%)") for text in labels)
    assert not any(text.startswith("plausibility") for text in labels)
    check_not_blank(ax)


def test_count_models_errors():
    with pytest.raises(ValueError, match="`by`"):
        plot_count_models("size")
    with pytest.raises(ValueError, match="Unknown count model"):
        plot_count_models(models=["laplace"])
    with pytest.raises(ValueError, match="empty"):
        plot_count_models(models=[])


def polygon_area(polygons):
    total = 0.0
    for path in polygons.get_paths():
        x, y = path.vertices[:, 0], path.vertices[:, 1]
        total += 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))
    return total


def test_predictive_contour_areas_are_the_masses():
    k, n = 7, 10
    ax = plot_predictive_contour(BinomialLikelihood(k, n), grid_size=4001)
    fills = [c for c in ax.collections if isinstance(c, PolyCollection)]
    ignorance, positive, negative = (polygon_area(f) for f in fills)
    # independent reference: quadrature of the binomial relative likelihood (Xu et al. Eqs. 22c, 23c)
    tau_hat = k / n
    contour = lambda t: (t / tau_hat) ** k * ((1 - t) / (1 - tau_hat)) ** (n - k)  # noqa: E731
    left = integrate.quad(contour, 0, tau_hat)[0]
    right = integrate.quad(contour, tau_hat, 1)[0]
    assert ignorance == pytest.approx(left + right, abs=2e-4)
    assert positive == pytest.approx(tau_hat - left, abs=2e-4)
    assert negative == pytest.approx(1 - tau_hat - right, abs=2e-4)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[1].startswith(f"m({{1}}) = {tau_hat - left:.4f}")
    check_not_blank(ax, min_fraction=0.2)


def test_predictive_contour_from_callable_finds_mode():
    ax = plot_predictive_contour(lambda t: np.exp(-40 * (t - 0.25) ** 2) * (t > 0) * (t < 1))
    assert any("0.250" in t.get_text() for t in ax.texts)
    check_not_blank(ax)


def logistic_data(size=50, seed=0):
    rng = np.random.default_rng(seed)
    labels = (rng.random(size) < 0.5).astype(int)
    return rng.normal(2.0 * labels - 1.0, 1.3), labels


def test_predictive_contour_logistic_profile():
    scores, labels = logistic_data()
    likelihood = LogisticLikelihood(scores, labels)
    ax = plot_predictive_contour(likelihood, score=0.5)
    masses = likelihood.predictive_mass(0.5).to_array()
    labels_text = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels_text[1].startswith(f"m({{1}}) = {masses[2]:.4f}")
    curve = ax.lines[0]
    assert np.max(curve.get_ydata()) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="score="):
        plot_predictive_contour(likelihood)
    with pytest.raises(ValueError, match="callable"):
        plot_predictive_contour(3.0)


def test_logistic_contour_line_and_most_plausible_point():
    scores, labels = logistic_data()
    likelihood = LogisticLikelihood(scores, labels)
    score, tau = 0.5, 0.6
    ax = plot_logistic_contour(likelihood, score=score, tau=tau, grid_size=61)
    mle_marker, line, point = ax.lines[0], ax.lines[1], ax.lines[2]
    assert np.allclose([mle_marker.get_xdata()[0], mle_marker.get_ydata()[0]], likelihood.mle_)
    theta_0, theta_1 = line.get_xdata(), line.get_ydata()
    # Eq. 39: every point of the line gives probability tau at the score
    assert np.allclose(1 / (1 + np.exp(theta_0 + theta_1 * score)), tau)
    # the marked point maximises pl along the line: brute force on a fine grid of slopes
    slopes = np.linspace(theta_1.min(), theta_1.max(), 20001)
    intercepts = np.log(1 / tau - 1) - slopes * score
    values = [likelihood.contour(np.array([a, b])) for a, b in zip(intercepts[::20], slopes[::20])]
    assert likelihood.contour(np.array([point.get_xdata()[0], point.get_ydata()[0]])) >= max(values) - 1e-3
    check_not_blank(ax, min_fraction=0.1)


def test_logistic_contour_errors():
    scores, labels = logistic_data()
    likelihood = LogisticLikelihood(scores, labels)
    with pytest.raises(ValueError, match="two-parameter"):
        plot_logistic_contour(BinomialLikelihood(3, 5))
    with pytest.raises(ValueError, match="levels"):
        plot_logistic_contour(likelihood, levels=[0.0, 0.5])
    with pytest.raises(ValueError, match="both"):
        plot_logistic_contour(likelihood, score=0.5)
    with pytest.raises(ValueError, match="strictly between"):
        plot_logistic_contour(likelihood, score=0.5, tau=1.0)
    with pytest.raises(ValueError, match="extent"):
        plot_logistic_contour(likelihood, extent=(1, 0, 0, 1))
