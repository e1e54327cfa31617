"""Calibration diagnostics against independent references.

* ECE: Kumar, Liang & Ma's own package (``uncertainty-calibration``, imported
  as ``calibration``) when installed, and plain loops over the bins;
* CORP: scikit-learn's IsotonicRegression as the PAV fit and per-sample
  scores; the identity score = MCB - DSC + UNC and MCB, DSC >= 0 as
  hypothesis laws;
* reliability bands: counts per bin by loops, [Bel, Pl] from
  dstk.evidence.from_counts bin by bin, CORP bins = constant pieces of
  scikit-learn's isotonic fit.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression

from dstk.evidence import from_counts
from dstk.metrics import corp_decomposition, expected_calibration_error, reliability_bands


def binary_problem(seed, n=400, distortion=1.5):
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p**distortion).astype(int)
    return y, p


def multiclass_problem(seed, n=500, k=4):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, k)) * 2
    P = np.exp(logits)
    P /= P.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=row**1.3 / (row**1.3).sum()) for row in P])
    return y, P


# ---------------------------------------------------------------------------
# expected calibration error
# ---------------------------------------------------------------------------


def loop_ece(p, y, bins, norm):
    gaps, weights = [], []
    for b in range(bins):
        inside = ((p > b / bins) & (p <= (b + 1) / bins)) | ((b == 0) & (p == 0))
        if inside.any():
            gaps.append(abs(p[inside].mean() - y[inside].mean()))
            weights.append(inside.mean())
    gaps, weights = np.array(gaps), np.array(weights)
    if norm == "l1":
        return weights @ gaps
    if norm == "l2":
        return np.sqrt(weights @ gaps**2)
    return gaps.max()


@pytest.mark.parametrize("norm", ["l1", "l2", "max"])
def test_ece_binary_against_loops(norm):
    y, p = binary_problem(0)
    assert expected_calibration_error(y, p, bins=12, norm=norm) == pytest.approx(loop_ece(p, y, 12, norm))


def test_ece_class_wise_and_top_label_against_loops():
    y, P = multiclass_problem(1)
    per_class = [loop_ece(P[:, k], (y == k).astype(float), 10, "l2") for k in range(4)]
    assert expected_calibration_error(y, P, bins=10, norm="l2", multiclass="class_wise") == pytest.approx(
        np.sqrt(np.mean(np.square(per_class)))
    )
    per_class = [loop_ece(P[:, k], (y == k).astype(float), 10, "max") for k in range(4)]
    assert expected_calibration_error(y, P, bins=10, norm="max", multiclass="class_wise") == pytest.approx(
        max(per_class)
    )
    conf, correct = P.max(axis=1), (P.argmax(axis=1) == y).astype(float)
    assert expected_calibration_error(y, P, bins=10) == pytest.approx(loop_ece(conf, correct, 10, "l1"))


def kumar_utils():
    pytest.importorskip(
        "calibration", reason="Kumar et al.'s package uncertainty-calibration is not installed"
    )
    from calibration import utils

    return utils


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("norm", ["l1", "l2"])
@pytest.mark.parametrize("mode", ["binary", "top_label", "class_wise"])
def test_ece_against_kumar_package(strategy, norm, mode):
    utils = kumar_utils()
    scheme = utils.get_equal_prob_bins if strategy == "uniform" else utils.get_equal_bins
    power = 1 if norm == "l1" else 2
    if mode == "binary":
        y, probabilities = binary_problem(2)
        kumar_mode = "top-label"  # ignored for 1-D input
    else:
        y, probabilities = multiclass_problem(3)
        kumar_mode = "top-label" if mode == "top_label" else "marginal"
    multiclass = "top_label" if mode != "class_wise" else "class_wise"
    for debias in (False, True) if norm == "l2" else (False,):
        expected = utils.lower_bound_scaling_ce(
            probabilities, y, p=power, debias=debias, num_bins=15, binning_scheme=scheme, mode=kumar_mode
        )
        ours = expected_calibration_error(
            y, probabilities, bins=15, strategy=strategy, norm=norm, debias=debias, multiclass=multiclass
        )
        assert ours == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_debiased_l1_against_kumar_monte_carlo():
    """Kumar et al. resample each bin's frequency from a normal 1000 times; we take the expectation exactly."""
    utils = kumar_utils()
    y, p = binary_problem(4, n=3000)
    np.random.seed(0)  # noqa: NPY002 - Kumar et al.'s package draws from the legacy global generator
    runs = [
        utils.lower_bound_scaling_ce(p, y, p=1, debias=True, num_bins=10, binning_scheme=utils.get_equal_bins)
        for _ in range(5)
    ]
    ours = expected_calibration_error(y, p, bins=10, strategy="quantile", norm="l1", debias=True)
    assert ours == pytest.approx(np.mean(runs), abs=4 * np.std(runs) / np.sqrt(5) + 2e-4)


def test_debiasing_removes_bias_on_calibrated_forecasts():
    """For calibrated forecasts the true L2 error is 0; the plug-in is biased up, the debiased one is not."""
    rng = np.random.default_rng(5)
    plugin, debiased = [], []
    for _ in range(40):
        p = rng.uniform(size=600)
        y = (rng.uniform(size=600) < p).astype(int)
        plugin.append(expected_calibration_error(y, p, bins=15, norm="l2") ** 2)
        debiased.append(
            expected_calibration_error(y, p, bins=15, norm="l2", debias=True) ** 2
        )  # clipped at 0
    assert np.mean(debiased) < 0.3 * np.mean(plugin)


# ---------------------------------------------------------------------------
# CORP
# ---------------------------------------------------------------------------


def reference_corp(y, p, score):
    fitted = IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip").fit(p, y).predict(p)

    def mean_score(x):
        if score == "brier":
            return np.mean((x - y) ** 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(y == 1, -np.log(x), -np.log1p(-x))
        return np.mean(terms)

    s_x, s_c, s_r = mean_score(p), mean_score(fitted), mean_score(np.full_like(p, y.mean()))
    return s_x - s_c, s_r - s_c, s_r, s_x


@pytest.mark.parametrize("score", ["brier", "log"])
def test_corp_against_sklearn_isotonic(score):
    y, p = binary_problem(6, n=800)
    p = np.round(p, 2)  # many ties, pooled by both
    p = np.clip(p, 0.01, 0.99)
    ours = corp_decomposition(y, p, score=score)
    np.testing.assert_allclose(ours, reference_corp(y, p, score), rtol=1e-9, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 99), st.booleans()), min_size=2, max_size=60),
    st.sampled_from(["brier", "log"]),
)
def test_corp_identity_and_signs(data, score):
    p = np.array([a for a, _ in data]) / 100.0
    y = np.array([int(b) for _, b in data])
    d = corp_decomposition(y, p, score=score)
    assert d.miscalibration >= 0 and d.discrimination >= 0 and d.uncertainty >= 0
    assert d.score == pytest.approx(d.miscalibration - d.discrimination + d.uncertainty, abs=1e-12)


def test_corp_calibrated_and_constant_forecasts():
    y = np.array([0, 1, 0, 1, 1, 0, 1, 1])
    d = corp_decomposition(y, np.full(8, 0.5))
    assert d.discrimination == 0.0  # a constant forecast does not discriminate
    assert d.uncertainty == pytest.approx(y.mean() * (1 - y.mean()))
    # forecasts equal to their PAV fit: no miscalibration
    p = np.array([0.0, 0.0, 0.5, 0.5, 1.0, 1.0])
    assert corp_decomposition([0, 0, 0, 1, 1, 1], p).miscalibration == pytest.approx(0.0, abs=1e-15)


def test_corp_bad_input():
    with pytest.raises(ValueError, match="infinite"):
        corp_decomposition([1, 0], [0.0, 0.5], score="log")
    with pytest.raises(ValueError, match="score"):
        corp_decomposition([1, 0], [0.2, 0.5], score="crps")
    with pytest.raises(ValueError, match="one-vs-rest"):
        corp_decomposition([0, 1, 2], np.full((3, 3), 1 / 3))


# ---------------------------------------------------------------------------
# reliability bands
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "model", ["likelihood", "dempster", "confidence_interval", "plausibility", "imprecise_dirichlet"]
)
def test_bands_integer_bins_against_from_counts(model):
    y, p = binary_problem(7)
    bands = reliability_bands(y, p, bins=8, model=model)
    occupied = 0
    for b in range(8):
        inside = ((p > b / 8) & (p <= (b + 1) / 8)) | ((b == 0) & (p == 0))
        if not inside.any():
            continue
        k, n = y[inside].sum(), inside.sum()
        assert bands.counts[occupied] == n and bands.positives[occupied] == k
        assert bands.mean_predicted[occupied] == pytest.approx(p[inside].mean())
        m = from_counts([n - k, k], model=model)
        assert bands.belief[occupied] == pytest.approx(m.bel({1}))
        assert bands.plausibility[occupied] == pytest.approx(m.pl({1}))
        occupied += 1
    assert occupied == bands.counts.size


def test_corp_bins_are_constant_pieces_of_isotonic_fit():
    y, p = binary_problem(8, n=300)
    bands = reliability_bands(y, p)
    fitted = IsotonicRegression().fit(p, y).predict(p)
    pieces = np.unique(np.round(fitted, 12))
    assert bands.counts.size == pieces.size
    np.testing.assert_allclose(np.sort(bands.frequency), pieces, atol=1e-12)
    assert bands.counts.sum() == p.size
    assert np.all(np.diff(bands.frequency) > 0)  # CORP frequencies increase strictly
    assert np.all(bands.lower[1:] > bands.upper[:-1])  # bins are disjoint intervals of predictions


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 100), st.booleans()), min_size=1, max_size=50),
    st.sampled_from(["likelihood", "dempster", "confidence_interval"]),
)
def test_band_contains_observed_frequency(data, model):
    p = np.array([a for a, _ in data]) / 100.0
    y = np.array([int(b) for _, b in data])
    bands = reliability_bands(y, p, model=model)
    assert np.all(bands.belief <= bands.frequency + 1e-12)
    assert np.all(bands.frequency <= bands.plausibility + 1e-12)


def test_bands_multiclass():
    y, P = multiclass_problem(9)
    per_class = reliability_bands(y, P, multiclass="class_wise", bins=5)
    assert [b.label for b in per_class] == [0, 1, 2, 3]
    for k, b in enumerate(per_class):
        assert b.counts.sum() == len(y) and b.positives.sum() == np.sum(y == k)
    top = reliability_bands(y, P)
    assert top.label == "top label" and top.positives.sum() == np.sum(P.argmax(axis=1) == y)


def test_bad_input_messages():
    y, p = binary_problem(10, n=20)
    cases = [
        (lambda: expected_calibration_error(y, p, bins=0), "bins"),
        (lambda: expected_calibration_error(y, p, strategy="kmeans"), "strategy"),
        (lambda: expected_calibration_error(y, p, norm="l3"), "norm"),
        (lambda: expected_calibration_error(y, p, norm="max", debias=True), "debias"),
        (lambda: expected_calibration_error(y, np.column_stack([1 - p, p]), multiclass="ovr"), "multiclass"),
        (lambda: expected_calibration_error(y, p + 1), r"\[0, 1\]"),
        (lambda: expected_calibration_error(y[:5], p), "inconsistent"),
        (lambda: reliability_bands(y, p, model="bogus"), "model"),
        (lambda: reliability_bands(y, p, bins="pav"), "corp"),
        (lambda: reliability_bands(y, p, level=1.5), "level"),
    ]
    for call, pattern in cases:
        with pytest.raises(ValueError, match=pattern):
            call()


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 100), st.booleans()), min_size=2, max_size=80),
    st.integers(1, 20),
    st.sampled_from(["uniform", "quantile"]),
)
def test_ece_laws(data, bins, strategy):
    p = np.array([a for a, _ in data]) / 100.0
    y = np.array([int(b) for _, b in data])
    l1 = expected_calibration_error(y, p, bins=bins, strategy=strategy)
    l2 = expected_calibration_error(y, p, bins=bins, strategy=strategy, norm="l2")
    worst = expected_calibration_error(y, p, bins=bins, strategy=strategy, norm="max")
    assert 0 <= l1 <= l2 + 1e-12 <= worst + 2e-12 <= 1 + 2e-12  # power means of the same gaps
    assert (
        expected_calibration_error(y, p, bins=bins, strategy=strategy, norm="l2", debias=True) <= l2 + 1e-12
    )
    # forecasts equal to their bin's frequency are calibrated at any norm
    index = np.searchsorted(np.arange(1, bins) / bins, p)
    frequency = np.bincount(index, weights=y, minlength=bins) / np.maximum(
        np.bincount(index, minlength=bins), 1
    )
    matched = np.clip(frequency[index], 0, 1)
    if np.array_equal(
        np.searchsorted(np.arange(1, bins) / bins, matched), index
    ):  # same bins after the change
        assert expected_calibration_error(y, matched, bins=bins, norm="max") == pytest.approx(0, abs=1e-12)
    # the top-label error of a two-column matrix is the binary error of its confidence
    P = np.column_stack([1 - p, p])
    top, correct = P.max(axis=1), (P.argmax(axis=1) == y).astype(int)
    assert expected_calibration_error(y, P, bins=bins, strategy=strategy) == pytest.approx(
        expected_calibration_error(correct, top, bins=bins, strategy=strategy), abs=1e-12
    )


def test_many_bins_group_as_all_edges_without_allocating_them():
    import tracemalloc

    from dstk.metrics import expected_calibration_error, reliability_bands

    rng = np.random.default_rng(3)
    p = np.concatenate([rng.uniform(size=60), [0.0, 1.0, 0.5, 0.25, 1 / 3, 2 / 3, 0.1, 0.7]])
    y = (rng.uniform(size=p.size) < p).astype(int)

    def brute(bins):  # every edge j / bins, groups from the definition
        edges = np.arange(1, bins) / bins
        index = np.searchsorted(edges, p, side="left")
        total = 0.0
        for b in np.unique(index):
            inside = index == b
            total += inside.sum() / p.size * abs(p[inside].mean() - y[inside].mean())
        return total

    for bins in (7, 69, 70, 1000, 3000, 10**6 + 3):
        assert expected_calibration_error(y, p, bins=bins) == pytest.approx(brute(bins), abs=1e-15)
    tracemalloc.start()
    value = expected_calibration_error(y, p, bins=10**9)
    bands = reliability_bands(y, p, bins=10**9)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 10**6
    assert value == pytest.approx(brute(10**6 + 3), abs=1e-15)  # every sample alone in its bin
    assert bands.counts.sum() == p.size


def test_reliability_bands_checks_strategy_with_corp_bins():
    from dstk.metrics import reliability_bands

    with pytest.raises(ValueError, match="strategy"):
        reliability_bands([0, 1], [0.2, 0.8], strategy="x", bins="corp")
