"""Dirichlet calibration and MulticlassCalibrator against written-out references."""

import itertools

import numpy as np
import pytest
from scipy import stats

from dstk.calibration.probabilistic import AssignmentValueCalibrator, PlattCalibrator
from dstk.metrics import dirichlet_selection_criterion
from dstk.multiclass import (
    CodeMatrixClassifier,
    DirichletCalibrator,
    MulticlassCalibrator,
    all_pairs_code,
    combine_task_probabilities,
    couple_probabilities,
    one_vs_rest_code,
)
from dstk.multiclass._calibrator import embed_task_masses


def reduction_scores(seed, n_per_class=40, K=3, code=None, noise=0.9):
    rng = np.random.RandomState(seed)
    y = np.repeat(np.arange(K), n_per_class)
    code = one_vs_rest_code(K) if code is None else code
    scores = code[y].astype(float) + rng.normal(0, noise, (y.size, code.shape[1]))
    return scores, y


# ---------------------------------------------------------------- combiners
def test_combiners_against_loops():
    rng = np.random.RandomState(0)
    code = all_pairs_code(4)
    p = rng.uniform(0.05, 0.95, (6, code.shape[1]))
    for comb in ("product", "geometric_mean", "trimmed_geometric_mean"):
        r = combine_task_probabilities(p, code, pool=comb, trim=0.2)
        for i, k in itertools.product(range(6), range(4)):
            factors = [
                p[i, b] if code[k, b] == 1 else 1 - p[i, b] for b in range(code.shape[1]) if code[k, b] != 0
            ]
            if comb == "product":
                ref = np.prod(factors)
            elif comb == "geometric_mean":
                ref = np.prod(factors) ** (1 / len(factors))
            else:
                f = sorted(factors)
                cut = int(np.floor(0.2 * len(f)))
                f = f[cut : len(f) - cut]
                ref = np.prod(f) ** (1 / len(f))
            assert r[i, k] == pytest.approx(ref, rel=1e-12)


def test_trim_ten_percent_is_geometric_mean_below_ten_factors():
    # research notes A.4.3: with R's floor(0.1 n) rule nothing is trimmed for n <= 9 factors
    rng = np.random.RandomState(1)
    code = one_vs_rest_code(9)
    p = rng.uniform(0.05, 0.95, (5, 9))
    np.testing.assert_allclose(
        combine_task_probabilities(p, code, pool="trimmed_geometric_mean"),
        combine_task_probabilities(p, code, pool="geometric_mean"),
    )


def test_product_does_not_underflow():
    code = one_vs_rest_code(3)
    p = np.full((1, 3), 1e-200)
    # log space: no overflow or NaN
    assert np.all(np.isfinite(combine_task_probabilities(p, code, pool="geometric_mean")))


# ---------------------------------------------------------------- Dirichlet calibration
def dirichlet_reference(train_scores, y, test_scores, combiner, rho=1.05, df="2h"):
    """Gebel 2009, Sec. 5.4.2, written out with scipy.stats (beta, chi2) and a brute-force search for m."""
    K = np.unique(y).size
    code = one_vs_rest_code(K)
    M = np.abs(train_scores).max(axis=0)

    def combined(s):
        p = (s + rho * M) / (2 * rho * M)
        return combine_task_probabilities(np.clip(p, 1e-12, 1 - 1e-12), code, pool=combiner)

    r = combined(train_scores)
    mean, var = r.mean(axis=0), r.var(axis=0, ddof=1)
    N = mean * (1 - mean) / var - 1
    a, b = mean * N, (1 - mean) * N
    prior = np.bincount(y) / y.size

    def probs(rr, m):
        u = np.clip(stats.beta.cdf(rr, a, b), 1e-12, 1 - 1e-12)
        h = m * prior
        x = stats.chi2.ppf(u, 2 * h if df == "2h" else h)
        return x / x.sum(axis=1, keepdims=True)

    best = max(range(1, 2 * y.size + 1), key=lambda m: (dirichlet_selection_criterion(y, probs(r, m)), -m))
    return probs(combined(test_scores), best), best


@pytest.mark.parametrize("combiner", ["geometric_mean", "product"])
@pytest.mark.parametrize("df", ["2h", "h"])
def test_dirichlet_against_written_out_algorithm(combiner, df):
    train, y = reduction_scores(2, n_per_class=20)
    test, _ = reduction_scores(3, n_per_class=5)
    cal = DirichletCalibrator(pool=combiner, degrees_of_freedom=df, max_grid=1000).fit(train, y)
    ref, m = dirichlet_reference(train, y, test, combiner, df=df)
    assert cal.dispersion_ == m
    np.testing.assert_allclose(cal.predict_proba(test), ref, rtol=1e-6, atol=1e-9)


def test_dirichlet_marginal_mean_is_prior_for_large_m():
    # E(p_k) = h_k / sum h = pi_k (eq. 5.8): for uniform u the normalised chi-square vector is Dirichlet(m pi)
    train, y = reduction_scores(4, n_per_class=30)
    y = y.copy()
    cal = DirichletCalibrator().fit(train, y)
    rng = np.random.RandomState(0)
    u = rng.uniform(size=(40000, 3))
    P = cal._probabilities(u, 7.0)
    np.testing.assert_allclose(P.mean(axis=0), cal.class_prior_, atol=0.01)
    ref = stats.dirichlet.mean(7.0 * cal.class_prior_)
    np.testing.assert_allclose(P.mean(axis=0), ref, atol=0.01)


def test_dirichlet_direct_and_all_pairs_run():
    rng = np.random.RandomState(5)
    y = np.repeat([0, 1, 2], 30)
    P = rng.dirichlet(np.ones(3), size=90) * 0.5 + 0.5 * np.eye(3)[y]
    cal = DirichletCalibrator(pool="direct").fit(P, y)
    np.testing.assert_allclose(cal.predict_proba(P).sum(axis=1), 1.0)
    scores, y = reduction_scores(6, code=all_pairs_code(3))
    cal = DirichletCalibrator(code="all_pairs", pool="trimmed_geometric_mean").fit(scores, y)
    assert (cal.predict(scores) == y).mean() > 0.7


@pytest.mark.parametrize(
    "kwargs, scores, y, match",
    [
        ({"pool": "mean"}, None, None, "pool"),
        ({"degrees_of_freedom": "3h"}, None, None, "degrees_of_freedom"),
        ({}, np.ones((6, 3)), [0, 0, 1, 1, 2, 2], "zero variance"),
        ({}, np.zeros((6, 3)), [0, 0, 1, 1, 2, 2], "all 0"),
        ({}, np.ones((6, 2)), [0, 0, 1, 1, 2, 2], "columns"),
        ({"pool": "direct"}, np.full((4, 2), 2.0), [0, 0, 1, 1], r"\[0, 1\]"),
    ],
)
def test_dirichlet_errors(kwargs, scores, y, match):
    if scores is None:
        scores, y = reduction_scores(0, n_per_class=5)
    with pytest.raises(ValueError, match=match):
        DirichletCalibrator(**kwargs).fit(scores, y)


# ---------------------------------------------------------------- MulticlassCalibrator
@pytest.mark.parametrize("code_name", ["one_vs_rest", "all_pairs"])
def test_multiclass_calibrator_equals_manual_pipeline(code_name):
    code = one_vs_rest_code(3) if code_name == "one_vs_rest" else all_pairs_code(3)
    scores, y = reduction_scores(7, code=code)
    cal = MulticlassCalibrator(PlattCalibrator(), code=code_name).fit(scores, y)
    r = np.empty_like(scores)
    sizes = []
    for b in range(code.shape[1]):
        rows = code[y, b] != 0
        target = (code[y[rows], b] == 1).astype(int)
        r[:, b] = PlattCalibrator().fit(scores[rows, b], target).predict_proba(scores[:, b])[:, 1]
        sizes.append(rows.sum())
    ref = couple_probabilities(r, code, task_weights=np.array(sizes, float)).probabilities
    np.testing.assert_allclose(cal.predict_proba(scores), ref, atol=1e-10)
    assert cal.predict_coupling(scores).all_converged


def test_embed_task_masses_brute_force():
    code = all_pairs_code(3)
    rng = np.random.RandomState(8)
    m = rng.dirichlet(np.ones(4), size=(2, 3))
    out = embed_task_masses(m, code)
    for i, b in itertools.product(range(2), range(3)):
        pos = {k for k in range(3) if code[k, b] >= 0}  # K_b+ and the left-out classes
        neg = {k for k in range(3) if code[k, b] <= 0}
        ref = np.zeros(8)
        ref[0] += m[i, b, 0]
        ref[sum(1 << k for k in neg)] += m[i, b, 1]
        ref[sum(1 << k for k in pos)] += m[i, b, 2]
        ref[7] += m[i, b, 3]
        np.testing.assert_allclose(out[i, b], ref)


def test_multiclass_predict_mass_with_interval_calibrator():
    scores, y = reduction_scores(9, n_per_class=50)
    cal = MulticlassCalibrator(AssignmentValueCalibrator(input_kind="score")).fit(scores, y)
    mass = cal.predict_mass(scores[:10])
    arr = mass.to_array("m")
    assert arr.shape == (10, 8)
    np.testing.assert_allclose(arr.sum(axis=1), 1.0)
    assert np.all(arr >= -1e-12)
    # Dempster's rule by hand for sample 0: conjunctive product of the three embedded masses, normalised
    task = np.stack([c.predict_mass(scores[:1, b]).to_array("m")[0] for b, c in enumerate(cal.calibrators_)])
    emb = embed_task_masses(task[None], cal.code_)[0]
    conj = np.zeros(8)
    for a, b, c in itertools.product(range(8), repeat=3):
        conj[a & b & c] += emb[0, a] * emb[1, b] * emb[2, c]
    np.testing.assert_allclose(arr[0], np.r_[0.0, conj[1:] / (1 - conj[0])], atol=1e-10)


def test_multiclass_errors():
    scores, y = reduction_scores(10)
    with pytest.raises(AttributeError, match="predict_mass"):
        MulticlassCalibrator(PlattCalibrator()).fit(scores, y).predict_mass(scores)
    with pytest.raises(ValueError, match="columns"):
        MulticlassCalibrator(PlattCalibrator(), code="all_pairs").fit(scores[:, :2], y)
    with pytest.raises(ValueError, match="fit"):
        MulticlassCalibrator(object()).fit(scores, y)
    with pytest.raises(ValueError, match="task_weights"):
        MulticlassCalibrator(PlattCalibrator(), task_weights="n").fit(scores, y)
    cal = MulticlassCalibrator(PlattCalibrator()).fit(scores, y)
    with pytest.raises(ValueError, match="columns"):
        cal.predict_proba(scores[:, :2])


def test_code_matrix_classifier_trains_on_task_rows():
    lm = pytest.importorskip("sklearn.linear_model")
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.load_iris(return_X_y=True)
    model = CodeMatrixClassifier(lm.LogisticRegression(max_iter=1000), code="all_pairs").fit(X, y)
    assert model.task_sizes_.tolist() == [100.0, 100.0, 100.0]
    ref = lm.LogisticRegression(max_iter=1000).fit(X[y != 2], (y[y != 2] == 0).astype(int))
    np.testing.assert_allclose(model.decision_function(X)[:, 0], ref.decision_function(X), rtol=1e-6)
    S = model.decision_function(X)
    cal = MulticlassCalibrator(PlattCalibrator(), code="all_pairs").fit(S, y)
    assert (cal.predict(S) == y).mean() > 0.9
    with pytest.raises(ValueError, match="rows"):
        CodeMatrixClassifier(lm.LogisticRegression()).fit(X[:10], y[::5])
    with pytest.raises(ValueError, match="output"):
        CodeMatrixClassifier(lm.LogisticRegression(), output="scores").fit(X, y)


def test_multiclass_calibrator_with_evidential_binary_calibrator():
    logistic = pytest.importorskip("dstk.calibration._logistic")
    scores, y = reduction_scores(11, n_per_class=40)
    cal = MulticlassCalibrator(logistic.LogisticCalibrator(model="likelihood")).fit(scores, y)
    P = cal.predict_proba(scores[:5])
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    arr = cal.predict_mass(scores[:5]).to_array("m")
    for i in range(5):
        task = np.stack(
            [c.predict_mass(scores[i : i + 1, b]).to_array("m")[0] for b, c in enumerate(cal.calibrators_)]
        )
        emb = embed_task_masses(task[None], cal.code_)[0]
        conj = np.zeros(8)
        for a, b, c in itertools.product(range(8), repeat=3):
            conj[a & b & c] += emb[0, a] * emb[1, b] * emb[2, c]
        np.testing.assert_allclose(arr[i], np.r_[0.0, conj[1:] / (1 - conj[0])], atol=1e-10)


@pytest.mark.parametrize("pool", ["product", "geometric_mean", "trimmed_geometric_mean"])
@pytest.mark.parametrize("trim", [0.9, -0.1, 0.5, float("nan")])
def test_trim_outside_its_range_raises_for_every_pool(pool, trim):
    # trim is checked even where the pool does not use it: a bad option is never silently ignored
    p = np.full((2, 3), 0.5)
    with pytest.raises(ValueError, match="`trim`"):
        combine_task_probabilities(p, one_vs_rest_code(3), pool=pool, trim=trim)


def test_embed_task_masses_rejects_nan_and_wrong_shapes():
    code = all_pairs_code(3)
    good = np.tile([0.0, 0.2, 0.5, 0.3], (2, 3, 1))
    bad = good.copy()
    bad[0, 1, 2] = np.nan
    with pytest.raises(ValueError, match=r"`task_masses` contains NaN .*index \(0, 1, 2\)"):
        embed_task_masses(bad, code)
    with pytest.raises(ValueError, match=r"`task_masses` must have shape \(n_samples, 3, 4\)"):
        embed_task_masses(good[:, :2], code)
    assert embed_task_masses(good, code).shape == (2, 3, 8)


@pytest.mark.parametrize("code", ["one_vs_rest", "all_pairs"])
def test_calibrator_sample_weights_equal_repeated_rows_in_the_coupling_too(code):
    from dstk.calibration import PlattCalibrator
    from dstk.multiclass import MulticlassCalibrator

    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 30)
    scores = rng.normal(0, 1, (90, 3)) + np.array([[1, 1, 0], [-1, 0, 1], [0, -1, -1]])[y]
    weights = np.where(y == 0, 5, 1)
    weighted = MulticlassCalibrator(PlattCalibrator(), code=code).fit(scores, y, sample_weight=weights)
    repeated = MulticlassCalibrator(PlattCalibrator(), code=code).fit(
        np.repeat(scores, weights, 0), np.repeat(y, weights)
    )
    np.testing.assert_allclose(weighted.task_sizes_, repeated.task_sizes_)
    test = rng.normal(0, 1.5, (20, 3))
    np.testing.assert_allclose(weighted.predict_proba(test), repeated.predict_proba(test), atol=1e-7)
