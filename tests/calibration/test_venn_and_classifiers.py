"""Venn-ABERS, Venn machine, one-vs-rest, the meta-estimator and the combination path."""

import numpy as np
import pytest

from dstk.calibration import (
    EvidentialCalibratedClassifier,
    EvidentialCombination,
    VennAbersCalibrator,
    VennMachineCalibrator,
    combine_classifiers,
    one_vs_rest_masses,
    refine_one_vs_rest,
)

from .reference import brute_force_dempster


def _brute_force_ivap(cal_scores, cal_y, s):
    from sklearn.isotonic import IsotonicRegression

    out = []
    for label in (0, 1):
        x = np.append(cal_scores, s)
        t = np.append(cal_y, label).astype(float)
        out.append(IsotonicRegression().fit(x, t).predict([s])[0])
    return out


def test_ivap_matches_brute_force_isotonic_regression():
    rng = np.random.default_rng(0)
    cal_scores = np.round(rng.normal(size=60), 1)  # ties included
    cal_y = (rng.random(60) < 1 / (1 + np.exp(-2 * cal_scores))).astype(int)
    cal = VennAbersCalibrator().fit(cal_scores, cal_y)
    test = np.concatenate([np.round(rng.normal(size=30), 2), cal_scores[:10], [-9.0, 9.0]])
    bel, pl = cal.predict_interval(test)
    for s, b, p in zip(test, bel, pl):
        np.testing.assert_allclose([b, p], _brute_force_ivap(cal_scores, cal_y, s), atol=1e-12)
    masses = cal.predict_mass(test).to_array()
    np.testing.assert_allclose(masses[:, 2], bel)
    np.testing.assert_allclose(masses[:, 1], 1 - pl)
    assert np.all(bel <= pl)
    np.testing.assert_allclose(cal.predict_vovk_probability(test), pl / (1 - bel + pl))


@pytest.mark.parametrize("seed", range(6))
def test_ivap_table_matches_brute_force_on_heavily_tied_sets(seed):
    """The O(K + merges) table against one isotonic regression per gap and tie (the definition)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    cal_scores = rng.integers(0, int(rng.integers(1, 12)), n).astype(float)
    cal_y = rng.integers(0, 2, n)
    cal_y[:2] = [0, 1]
    cal = VennAbersCalibrator().fit(cal_scores, cal_y)
    test = np.concatenate([np.unique(cal_scores), np.unique(cal_scores) + 0.5, [-1.0]])
    bel, pl = cal.predict_interval(test)
    expected = np.array([_brute_force_ivap(cal_scores, cal_y, s) for s in test])
    np.testing.assert_allclose(np.column_stack([bel, pl]), expected, atol=1e-12)


def test_ivap_matches_the_venn_abers_package():
    venn_abers = pytest.importorskip("venn_abers")
    rng = np.random.default_rng(1)
    cal_p = rng.random(200)
    cal_y = (rng.random(200) < cal_p).astype(int)
    test_p = rng.random(100)
    va = venn_abers.VennAbers()
    va.fit(np.column_stack([1 - cal_p, cal_p]), cal_y)
    _, p0_p1 = va.predict_proba(np.column_stack([1 - test_p, test_p]))
    bel, pl = VennAbersCalibrator().fit(cal_p, cal_y).predict_interval(test_p)
    np.testing.assert_allclose(np.column_stack([bel, pl]), p0_p1, atol=1e-12)


def test_venn_machine_frequencies_by_definition():
    rng = np.random.default_rng(2)
    scores = rng.normal(scale=1.5, size=80)
    y = (rng.random(80) < 1 / (1 + np.exp(-2 * scores))).astype(int)
    venn = VennMachineCalibrator(edges=8).fit(scores, y)
    edges = np.array([-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5])
    for s in [-3.0, -1.5, -0.2, 0.0, 0.7, 2.0]:

        def cat(v):
            return np.searchsorted(edges, v, side="left")

        same = cat(scores) == cat(s)
        # try each label for the test example; frequency of class 1 in its category (Zhou et al., Eq. 5)
        freqs = [(y[same].sum() + label) / (same.sum() + 1) for label in (0, 1)]
        bel, pl = venn.predict_interval([s])
        np.testing.assert_allclose([bel[0], pl[0]], [min(freqs), max(freqs)], atol=1e-12)
        label, low, _high = venn.predict_venn([s])
        quality_one, quality_zero = min(freqs), min(1 - f for f in freqs)
        assert label[0] == (1 if quality_one >= quality_zero else 0)
        assert low[0] == pytest.approx(max(quality_one, quality_zero))


def test_one_vs_rest_dempster_matches_brute_force():
    rng = np.random.default_rng(3)
    binary = rng.dirichlet([1, 1, 1], size=(5, 3))
    binary = np.concatenate([np.zeros((5, 3, 1)), binary], axis=2)
    combined = one_vs_rest_masses(binary).to_array()
    frame = frozenset(range(3))
    for i in range(5):
        sources = [
            {frozenset([c]): binary[i, c, 2], frame - {c}: binary[i, c, 1], frame: binary[i, c, 3]}
            for c in range(3)
        ]
        expected = brute_force_dempster(sources)
        for subset, value in expected.items():
            mask = sum(1 << c for c in subset)
            assert combined[i, mask] == pytest.approx(value, abs=1e-12)
    refined = refine_one_vs_rest(binary)
    np.testing.assert_allclose(refined.sum(axis=-1), 1.0)


def test_classifier_binary_prefit_and_cv():
    from sklearn.datasets import load_breast_cancer
    from sklearn.frozen import FrozenEstimator
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    base = make_pipeline(StandardScaler(), LogisticRegression()).fit(X[:200], y[:200])
    clf = EvidentialCalibratedClassifier(FrozenEstimator(base), method="isotonic", model="dempster")
    clf.fit(X[200:400], y[200:400])
    assert len(clf.calibrated_classifiers_) == 1
    # prefit: the calibrator sees exactly the decision_function values of the frozen model
    from dstk.calibration import IsotonicCalibrator

    direct = IsotonicCalibrator(model="dempster").fit(base.decision_function(X[200:400]), y[200:400])
    np.testing.assert_allclose(
        clf.predict_mass(X[400:]).to_array(), direct.predict_mass(base.decision_function(X[400:])).to_array()
    )
    bel, pl = clf.predict_interval(X[400:])
    assert bel.shape == (169,) and np.all(bel <= pl)
    assert np.mean(clf.predict(X[400:]) == y[400:]) > 0.9
    ensemble = EvidentialCalibratedClassifier(
        make_pipeline(StandardScaler(), LogisticRegression()), method="logistic", cv=3
    ).fit(X[:300], y[:300])
    assert len(ensemble.calibrated_classifiers_) == 3
    single = EvidentialCalibratedClassifier(
        make_pipeline(StandardScaler(), LogisticRegression()), method="venn_abers", cv=3, ensemble=False
    ).fit(X[:300], y[:300])
    assert len(single.calibrated_classifiers_) == 1
    proba = single.predict_proba(X[300:])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_classifier_uses_predict_proba_without_decision_function():
    from sklearn.datasets import load_breast_cancer
    from sklearn.naive_bayes import GaussianNB

    X, y = load_breast_cancer(return_X_y=True)
    clf = EvidentialCalibratedClassifier(GaussianNB(), method="binning", model="likelihood", cv=2).fit(X, y)
    assert clf._score_method == "predict_proba"
    assert clf.predict_mass(X[:5]).batch_shape == (5,)


def test_classifier_multiclass_one_vs_rest():
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    clf = EvidentialCalibratedClassifier(LogisticRegression(max_iter=500), method="logistic", cv=3).fit(
        X, names
    )
    mass = clf.predict_mass(X[::10])
    assert mass.frame.labels == ("setosa", "versicolor", "virginica")
    bel, pl = clf.predict_interval(X[::10])
    assert bel.shape == (15, 3) and np.all(bel <= pl + 1e-12)
    assert np.mean(clf.predict(X) == names) > 0.85


def test_sklearn_clone_and_params():
    from sklearn.base import clone

    clf = EvidentialCalibratedClassifier(method="isotonic", model="dempster", cv=4)
    copy = clone(clf)
    assert copy.get_params()["cv"] == 4 and copy.method == "isotonic"


def test_combination_of_classifiers_brute_force_and_cautious():
    from dstk.calibration import BinningCalibrator

    scores = np.array([-2.0, -1.0, 1.0, 2.0, -1.5, 1.5])
    y = np.array([0, 0, 1, 1, 0, 1])
    a = BinningCalibrator(bins=[-3, 0, 3], model="dempster").fit(scores, y)
    b = BinningCalibrator(bins=[-3, 0, 3], model="likelihood").fit(scores[:4], y[:4])
    from dstk import combine_with_conflict

    combined = combine_classifiers([a, b], None, inputs=[[1.0, -1.0], [0.5, 0.5]])
    _, kappa = combine_with_conflict([a.predict_mass([1.0, -1.0]), b.predict_mass([0.5, 0.5])])
    ma, mb = a.predict_mass([1.0, -1.0]).to_array(), b.predict_mass([0.5, 0.5]).to_array()
    for i in range(2):

        def to_dict(m):
            return {frozenset([0]): m[1], frozenset([1]): m[2], frozenset([0, 1]): m[3]}

        expected = brute_force_dempster([to_dict(ma[i]), to_dict(mb[i])])
        got = combined.to_array()[i]
        assert got[2] == pytest.approx(expected.get(frozenset([1]), 0.0), abs=1e-12)
        assert got[1] == pytest.approx(expected.get(frozenset([0]), 0.0), abs=1e-12)
    assert kappa[0] == pytest.approx(ma[0, 2] * mb[0, 1] + ma[0, 1] * mb[0, 2])
    cautious = EvidentialCombination([a, a], rule="cautious")
    np.testing.assert_allclose(
        cautious.predict_mass([1.0]).to_array(), a.predict_mass([1.0]).to_array(), atol=1e-12
    )
    with pytest.raises(TypeError, match="no predict_mass"):
        combine_classifiers([object()], [1.0])


def test_combination_normalized_cautious_rule():
    """normalize=True divides the cautious combination by 1 - m(empty) (Denoeux 2008, Section 4.3)."""
    from dstk.calibration import BinningCalibrator

    scores = np.array([-2.0, -1.0, 1.0, 2.0, -1.5, 1.5])
    y = np.array([0, 0, 1, 1, 0, 1])
    a = BinningCalibrator(bins=[-3, 0, 3], model="dempster").fit(scores, y)
    b = BinningCalibrator(bins=[-3, 0, 3], model="dempster").fit(scores[:2], np.array([0, 1]))
    inputs = [[1.0], [-1.0]]
    raw = combine_classifiers([a, b], None, inputs=inputs, rule="cautious").to_array()[0]
    normalized = combine_classifiers([a, b], None, inputs=inputs, rule="cautious", normalize=True).to_array()[
        0
    ]
    assert raw[0] > 0.1  # a says {1} with 3/4, b says {0} with 1/3: conflicting
    expected = np.concatenate([[0.0], raw[1:] / (1.0 - raw[0])])
    np.testing.assert_allclose(normalized, expected, atol=1e-12)
    ensemble = EvidentialCombination([a, b], rule="cautious", normalize=True)
    np.testing.assert_allclose(ensemble.predict_mass([1.0]).to_array()[0][0], 0.0, atol=1e-15)


def test_options_are_checked_with_a_single_classifier():
    # one classifier skips the combination; its options must still be checked, not silently ignored
    from dstk.calibration import BinningCalibrator

    scores = np.array([-2.0, -1.0, 1.0, 2.0, -1.5, 1.5])
    y = np.array([0, 0, 1, 1, 0, 1])
    a = BinningCalibrator(bins=[-3, 0, 3], model="dempster").fit(scores, y)
    with pytest.raises(ValueError, match="`normalize=True` is used by rule='cautious' only"):
        combine_classifiers([a], None, inputs=[[1.0]], normalize=True)
    with pytest.raises(ValueError, match="`rule` must be one of"):
        EvidentialCombination([a], rule="zz").predict_conflict([1.0])
    with pytest.raises(ValueError, match="`normalize=True`"):
        EvidentialCombination([a], normalize=True).predict_conflict([1.0])
    assert combine_classifiers([a], None, inputs=[[1.0]], rule="cautious", normalize=True).batch_shape == (1,)
