"""Construction invariants, routing, empty-leaf policies and bad input of the random decision trees."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import roc_auc_score

from dstk.ensemble import RandomDecisionTreesClassifier, _random_trees, combine_leaves, combine_leaves_proba
from dstk.exceptions import NotFittedError


@pytest.fixture(scope="module")
def breast_cancer():
    return load_breast_cancer(return_X_y=True)


def _training_leaf_sizes(model, X):
    """Sizes of non-empty leaves from the stored counts, per tree."""
    forest = model._node_arrays()
    out = []
    for t in range(model.n_estimators):
        a, b = forest["offsets"][t], forest["offsets"][t + 1]
        leaf = forest["feature"][a:b] < 0
        out.append(forest["counts"][a:b][leaf].sum(axis=1))
    return out


@pytest.mark.parametrize("leaf", [1, 3, 8])
def test_leaf_sizes_and_totals(breast_cancer, leaf):
    X, y = breast_cancer
    model = RandomDecisionTreesClassifier(
        20, min_samples_leaf=leaf, min_samples_split=2 * leaf, random_state=0
    ).fit(X, y)
    for sizes in _training_leaf_sizes(model, X):
        assert sizes.sum() == X.shape[0]  # every training sample in exactly one leaf
        assert sizes.min() >= leaf  # numeric splits respect min_samples_leaf
    # the training counts routed back: leaf counts of the training data sum per leaf
    counts = model.leaf_counts(X)
    assert counts.dtype == np.int64 and counts.shape == (X.shape[0], 20, 2)
    assert (counts.sum(axis=2) >= leaf).all()
    # the leaf a training sample reaches contains that sample's class
    assert np.all(counts[np.arange(X.shape[0]), :, y] >= 1)
    # routing the training data reproduces the stored leaf sizes
    ids = model.apply(X)
    for t in range(20):
        _, per_leaf = np.unique(ids[:, t], return_counts=True)
        assert np.array_equal(np.sort(per_leaf), np.sort(_training_leaf_sizes(model, X)[t]))


def test_no_purity_stop_and_leaf_one_memorises(breast_cancer):
    X, y = breast_cancer
    model = RandomDecisionTreesClassifier(5, stop_at_pure_nodes=False, random_state=1).fit(X, y)
    sizes = _training_leaf_sizes(model, X)
    # breast cancer rows are distinct, so with leaf size 1 every leaf holds one sample
    assert all((s == 1).all() for s in sizes)
    assert (model.predict(X) == y).all()


def test_min_samples_split_and_max_depth(breast_cancer):
    X, y = breast_cancer
    model = RandomDecisionTreesClassifier(5, max_depth=3, random_state=0).fit(X, y)
    assert model.max_depth_.max() <= 3
    model = RandomDecisionTreesClassifier(5, min_samples_split=600, combiner="average", random_state=0).fit(
        X, y
    )
    assert (model.n_leaves_ == 1).all()
    assert np.allclose(model.predict_proba(X[:3]), model.class_prior_)
    # the default (calibrated EVA) on root-only trees: expit(a logit P(1)), a fitted on leave-one-out priors
    default = RandomDecisionTreesClassifier(5, min_samples_split=600, random_state=0).fit(X, y)
    assert np.allclose(default.predict_proba(X[:3]), model.class_prior_, atol=0.02)


def test_determinism_and_n_jobs(breast_cancer, monkeypatch):
    X, y = breast_cancer
    monkeypatch.setattr(_random_trees, "_PARALLEL_MIN_SAMPLE_TREES", 0)  # threads even for this small set
    a = RandomDecisionTreesClassifier(12, min_samples_leaf=2, random_state=7).fit(X, y)
    b = RandomDecisionTreesClassifier(12, min_samples_leaf=2, random_state=7, n_jobs=2).fit(X, y)
    c = RandomDecisionTreesClassifier(12, min_samples_leaf=2, random_state=8).fit(X, y)
    ca, cb = a.leaf_counts(X), b.leaf_counts(X)
    assert np.array_equal(ca, cb)
    assert not np.array_equal(ca, c.leaf_counts(X))
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))


def test_quality_breast_cancer(breast_cancer):
    X, y = breast_cancer
    rng = np.random.default_rng(0)
    order = rng.permutation(y.size)
    train, test = order[:300], order[300:]
    model = RandomDecisionTreesClassifier(
        50, min_samples_leaf=4, min_samples_split=8, stop_at_pure_nodes=False, random_state=0
    ).fit(X[train], y[train])
    assert roc_auc_score(y[test], model.predict_proba(X[test])[:, 1]) > 0.97
    # around 1/5 of the training size in leaves at leaf size 4 (pure nodes keep splitting)
    assert 40 < model.n_leaves_.mean() < 75


def _nominal_data():
    # feature 0 nominal with 4 codes (code 30 never co-occurs with class 1), feature 1 numeric
    rng = np.random.default_rng(0)
    codes = rng.choice([10, 20, 30, 40], size=200)
    numeric = rng.normal(size=200)
    y = ((codes == 10) | (numeric > 1)).astype(int)
    return np.column_stack([codes, numeric]), y


def test_nominal_splits_once_per_path_and_multiway():
    X, y = _nominal_data()
    model = RandomDecisionTreesClassifier(10, nominal_features=[0], random_state=0).fit(X, y)
    forest = model._node_arrays()
    assert np.array_equal(model.categories_[0], [10, 20, 30, 40])
    for t in range(10):
        a, b = forest["offsets"][t], forest["offsets"][t + 1]
        feature = forest["feature"][a:b]
        child_start = forest["child_start"][a:b]
        n_children = forest["n_children"][a:b]
        parent = np.full(b - a, -1)
        for node in np.flatnonzero(feature >= 0):
            parent[child_start[node] : child_start[node] + n_children[node]] = node
            if feature[node] == 0:
                assert n_children[node] == 4
        for node in range(b - a):
            used = []
            v = parent[node]
            while v >= 0:
                used.append(feature[v])
                v = parent[v]
            assert used.count(0) <= 1


def _tree_with_empty_child():
    """Data where a nominal split must leave an empty child: code 3 appears only with feature 1 = 5."""
    X = np.array([[0, 1], [0, 2], [1, 3], [1, 4], [2, 5], [2, 6], [3, 5]] * 2, dtype=float)
    y = np.array([0, 1, 0, 1, 1, 1, 0] * 2)
    return X, y


@pytest.mark.parametrize("policy", ["siblings", "parent", "zero"])
def test_unseen_nominal_value_policies(policy):
    X, y = _nominal_data()
    model = RandomDecisionTreesClassifier(
        30, nominal_features=[0], min_samples_leaf=5, min_samples_split=10, empty_leaf=policy, random_state=0
    ).fit(X, y)
    unseen = np.array([[99.0, 0.0]])
    counts = model.leaf_counts(unseen)[0]
    seen = model.leaf_counts(np.array([[10.0, 0.0]]))[0]
    ids = model.apply(unseen)[0]
    routed_away = ids == -1
    # trees that never split on the nominal feature route the sample normally
    assert np.array_equal(counts[~routed_away] > -1, np.ones_like(counts[~routed_away], bool))
    forest = model._node_arrays()
    for t in np.flatnonzero(routed_away):
        # walk to the nominal node where the sample got stuck, by brute force on the flat arrays
        a = forest["offsets"][t]
        node = 0
        while True:
            if forest["nominal"][a + node]:
                stuck = node
                break
            x = 0.0
            go_first = (
                x < forest["threshold"][a + node]
                if forest["operator"][a + node] == 0
                else x <= forest["threshold"][a + node]
            )
            node = forest["child_start"][a + node] + (0 if go_first else 1)
        node_counts = forest["counts"][a + stuck]
        if policy == "parent":
            assert np.array_equal(counts[t], node_counts)
        elif policy == "zero":
            assert counts[t].sum() == 0
        else:
            # siblings: the sum over every non-empty child of leaves reached; with the numeric value
            # fixed this is at most the node's counts and at least one sample
            assert 0 < counts[t].sum() <= node_counts.sum()
    assert routed_away.any()
    assert seen.sum(axis=1).min() > 0


def test_siblings_sums_leaves_of_all_children():
    # a single nominal feature: the root splits into 3 children, each a leaf (min split large)
    X = np.array([[0], [0], [1], [1], [1], [2]], dtype=float)
    y = np.array([0, 1, 1, 1, 0, 0])
    model = RandomDecisionTreesClassifier(1, nominal_features=[0], min_samples_split=7, random_state=0)
    model.set_params(min_samples_split=2, min_samples_leaf=1).fit(X, y)
    # the nominal feature is used once, so the tree is one multiway split with leaves 2, 3 and 1 samples
    counts = model.leaf_counts(np.array([[5.0]]))[0, 0]
    assert np.array_equal(counts, [3, 3])  # siblings: sum of every child = the root counts here
    assert np.array_equal(model.leaf_counts(np.array([[1.0]]))[0, 0], [1, 2])
    model.set_params(empty_leaf="zero").fit(X, y)
    assert np.array_equal(model.leaf_counts(np.array([[5.0]]))[0, 0], [0, 0])


def test_multiclass(breast_cancer):
    X, y = breast_cancer
    y3 = y + (X[:, 0] > 17).astype(int)  # three classes
    model = RandomDecisionTreesClassifier(20, min_samples_leaf=2, random_state=0).fit(X, y3)
    proba = model.predict_proba(X)
    assert proba.shape == (X.shape[0], 3) and np.allclose(proba.sum(axis=1), 1)
    for combiner in ("vote", "laplace", "pooling", "dempster", "cautious", "eva"):
        model.set_params(combiner=combiner)
        p = model.predict_proba(X[:50])
        assert np.allclose(p.sum(axis=1), 1)
        assert (
            model.predict(X[:50]) == model.classes_[np.argmax(model.decision_function(X[:50]), axis=1)]
        ).all()
    model.set_params(combiner="plausibility")
    with pytest.raises(ValueError, match="two classes"):
        model.predict_proba(X[:5])


def test_string_labels_and_predict_mass(breast_cancer):
    X, y = breast_cancer
    labels = np.array(["benign", "malignant"])[1 - y]
    model = RandomDecisionTreesClassifier(10, min_samples_leaf=3, combiner="dempster", random_state=0).fit(
        X, labels
    )
    assert set(model.predict(X[:20])) <= {"benign", "malignant"}
    mass = model.predict_mass(X[:5])
    array = mass.to_array("m")
    assert array.shape == (5, 4) and np.allclose(array.sum(axis=1), 1)
    betp = array[:, 2] + array[:, 3] / 2
    assert np.allclose(combine_leaves_proba(model.leaf_counts(X[:5]), combiner="dempster")[:, 1], betp)
    model.set_params(combiner="eva")
    with pytest.warns(UserWarning, match="Call fit again"):
        uncalibrated = model.predict_proba(X[:5])
    assert np.array_equal(
        uncalibrated,
        combine_leaves_proba(model.leaf_counts(X[:5]), combiner="eva", class_prior=model.class_prior_),
    )
    # combiners without a mass function: the Bayesian mass function of predict_proba
    for combiner in ("eva", "average", "vote", "laplace", "confidence_bounds", "pooling"):
        model.set_params(combiner=combiner)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # eva's calibration was fitted for dempster
            proba = model.predict_proba(X[:5])
            mass = model.predict_mass(X[:5])
            bel, pl = model.predict_interval(X[:5])
        assert mass.frame.labels == ("benign", "malignant")
        expected = np.zeros((5, 4))
        expected[:, 1], expected[:, 2] = proba[:, 0], proba[:, 1]
        assert np.array_equal(mass.to_array("m"), expected), combiner
        assert np.array_equal(bel, proba[:, 1]) and np.array_equal(pl, proba[:, 1])
    model.set_params(combiner="dempster")
    bel, pl = model.predict_interval(X[:5])
    mass = model.predict_mass(X[:5]).to_array("m")
    assert np.allclose(bel, mass[:, 2]) and np.allclose(pl, mass[:, 2] + mass[:, 3])
    assert np.all(bel <= pl)
    model.set_params(combiner="eva")
    score = model.decision_function(X[:5])
    assert np.allclose(
        score, combine_leaves(model.leaf_counts(X[:5]), combiner="eva", class_prior=model.class_prior_)
    )


def test_all_combiners_binary(breast_cancer):
    X, y = breast_cancer
    model = RandomDecisionTreesClassifier(10, min_samples_leaf=2, random_state=0).fit(X[:400], y[:400])
    for combiner in (
        "average",
        "vote",
        "laplace",
        "plausibility",
        "confidence_bounds",
        "pooling",
        "dempster",
        "cautious",
        "eva",
        "laplace:vote",
    ):
        model.set_params(combiner=combiner).fit(X[:400], y[:400])
        proba = model.predict_proba(X[400:])
        assert np.allclose(proba.sum(axis=1), 1) and (proba >= 0).all()
        assert (model.predict(X[400:]) == y[400:]).mean() > 0.8


def test_get_params_and_clone(breast_cancer):
    from sklearn.base import clone

    model = RandomDecisionTreesClassifier(n_estimators=3, combiner="eva")
    copy = clone(model)
    assert copy.get_params() == model.get_params()
    assert "combiner='eva'" in repr(model)


# ------------------------------------------------------------------ bad input
def test_nan_in_X():
    X = np.array([[0.0, 1.0], [np.nan, 2.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="NaN"):
        RandomDecisionTreesClassifier(2).fit(X, [0, 1, 0])
    model = RandomDecisionTreesClassifier(2, random_state=0).fit(np.nan_to_num(X), [0, 1, 0])
    with pytest.raises(ValueError, match="NaN"):
        model.predict(X)


def test_sparse_complex_and_continuous_input():
    from scipy import sparse

    X = np.random.default_rng(0).random((12, 2))
    y = [0, 1] * 6
    with pytest.raises(ValueError, match="sparse"):
        RandomDecisionTreesClassifier(2).fit(sparse.csr_matrix(X), y)
    with pytest.raises(ValueError, match="real"):
        RandomDecisionTreesClassifier(2).fit(X + 1j, y)
    with pytest.raises(ValueError, match="continuous"):
        RandomDecisionTreesClassifier(2).fit(X, X[:, 0])
    # float labels that are whole numbers are class labels
    model = RandomDecisionTreesClassifier(2, random_state=0).fit(X, np.array(y, dtype=float))
    assert model.classes_.tolist() == [0.0, 1.0]


def test_combiner_options_reach_the_combiner(breast_cancer):
    X, y = breast_cancer
    params = {"n_estimators": 10, "min_samples_leaf": 2, "min_samples_split": 4, "random_state": 0}
    counts = RandomDecisionTreesClassifier(**params).fit(X, y).leaf_counts(X[:50])
    idm = {"model": "imprecise_dirichlet", "prior_strength": 2.0}
    cautious = RandomDecisionTreesClassifier(combiner="cautious", combiner_options=idm, **params)
    cautious.fit(X, y)
    assert np.array_equal(
        cautious.decision_function(X[:50]), combine_leaves(counts, combiner="cautious", **idm)
    )
    mass = cautious.predict_mass(X[:50], normalize=False).to_array("m")
    assert np.allclose(mass[:, 2] - mass[:, 1], combine_leaves(counts, combiner="cautious", **idm))
    eva = RandomDecisionTreesClassifier(combiner="eva", combiner_options={"smoothing": 0.5}, **params)
    eva.fit(X, y)
    expected = combine_leaves(counts, combiner="eva", class_prior=eva.class_prior_, smoothing=0.5)
    assert np.array_equal(eva.decision_function(X[:50]), expected)
    # an explicit class prior wins over the training frequencies
    uniform = RandomDecisionTreesClassifier(
        combiner="eva", combiner_options={"class_prior": [0.5, 0.5]}, **params
    )
    expected = combine_leaves(counts, combiner="eva", class_prior=[0.5, 0.5])
    assert np.array_equal(uniform.fit(X, y).decision_function(X[:50]), expected)


def test_single_class():
    with pytest.raises(ValueError, match="single class"):
        RandomDecisionTreesClassifier(2).fit(np.ones((4, 2)), [1, 1, 1, 1])


@pytest.mark.parametrize(
    "params, message",
    [
        ({"min_samples_leaf": 0}, "min_samples_leaf"),
        ({"min_samples_split": 1}, "min_samples_split"),
        ({"n_estimators": 0}, "n_estimators"),
        ({"max_depth": -1}, "max_depth"),
        ({"empty_leaf": "drop"}, "empty_leaf"),
        ({"combiner": "median"}, "combination method"),
        ({"nominal_features": [5]}, "nominal_features"),
        ({"n_jobs": 0}, "n_jobs"),
        ({"combiner_options": 3}, "combiner_options"),
        ({"combiner": "eva", "combiner_options": {"priorr": "log"}}, "does not take"),
        ({"combiner": "eva", "combiner_options": {"smoothing": -1}}, "smoothing"),
        ({"combiner": "cautious", "combiner_options": {"floor": 1e-5}}, "compatibility='busch2021'"),
        ({"compatibility": "busch"}, "compatibility"),
    ],
)
def test_bad_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        RandomDecisionTreesClassifier(**params).fit(np.random.default_rng(0).random((6, 2)), [0, 1] * 3)


def test_feature_mismatch_and_not_fitted():
    with pytest.raises(NotFittedError):
        RandomDecisionTreesClassifier().predict(np.ones((2, 2)))
    model = RandomDecisionTreesClassifier(2, random_state=0).fit(
        np.random.default_rng(0).random((6, 2)), [0, 1] * 3
    )
    with pytest.raises(ValueError, match="3 features"):
        model.predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match="2-D"):
        model.predict(np.ones(2))
    with pytest.raises(ValueError, match="inconsistent"):
        RandomDecisionTreesClassifier(2).fit(np.random.default_rng(0).random((6, 2)), [0, 1] * 4)
    with pytest.raises(ValueError, match="numeric"):
        RandomDecisionTreesClassifier(2).fit(np.array([["a", "b"]] * 4), [0, 1] * 2)


# ------------------------------------------------------------------ concatenate


def test_concatenate_equals_the_parts(breast_cancer):
    X, y = breast_cancer
    X_small, y_small = X[:200], y[:200]
    parts = [
        RandomDecisionTreesClassifier(
            n_estimators=n, min_samples_leaf=3, random_state=seed, combiner="dempster"
        ).fit(X_small, y_small)
        for n, seed in ((3, 1), (1, 2), (4, 3))
    ]
    merged = RandomDecisionTreesClassifier.concatenate(parts)
    assert merged.n_estimators == 8
    assert merged.get_params()["combiner"] == "dempster"
    # the leaves reached are those of the parts, side by side on the tree axis
    expected = np.concatenate([p.leaf_counts(X[200:260]) for p in parts], axis=1)
    np.testing.assert_array_equal(merged.leaf_counts(X[200:260]), expected)
    expected_leaves = np.concatenate([p.apply(X[200:260]) for p in parts], axis=1)
    np.testing.assert_array_equal(merged.apply(X[200:260]), expected_leaves)
    np.testing.assert_array_equal(merged.node_count_, np.concatenate([p.node_count_ for p in parts]))
    np.testing.assert_array_equal(merged.n_leaves_, np.concatenate([p.n_leaves_ for p in parts]))
    # same training data: the prior is the training class frequency (bincount, independent of the trees)
    np.testing.assert_allclose(merged.class_prior_, np.bincount(y_small) / y_small.size)
    # a combiner on the merged ensemble is the combiner on the concatenated counts
    np.testing.assert_allclose(
        merged.decision_function(X[200:260]), combine_leaves(expected, combiner="dempster")
    )
    # the parts are left untouched
    assert parts[0].n_estimators == 3


def test_concatenate_parts_fitted_on_different_data_pools_their_priors():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 2))
    y = (X[:, 0] > 0).astype(int)
    first, second = slice(0, 30), slice(30, 100)
    parts = [
        RandomDecisionTreesClassifier(n_estimators=2, random_state=0).fit(X[first], y[first]),
        RandomDecisionTreesClassifier(n_estimators=2, random_state=1).fit(X[second], y[second]),
    ]
    merged = RandomDecisionTreesClassifier.concatenate(parts)
    # every tree's root holds its whole training set: the prior weights each part by (trees x samples)
    counts = 2 * np.bincount(y[first], minlength=2) + 2 * np.bincount(y[second], minlength=2)
    np.testing.assert_allclose(merged.class_prior_, counts / counts.sum())


def test_concatenate_bad_input():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    y = np.array([0, 1] * 10)
    fitted = RandomDecisionTreesClassifier(n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="at least one"):
        RandomDecisionTreesClassifier.concatenate([])
    with pytest.raises(NotFittedError):
        RandomDecisionTreesClassifier.concatenate([fitted, RandomDecisionTreesClassifier()])
    with pytest.raises(ValueError, match="RandomDecisionTreesClassifier objects"):
        RandomDecisionTreesClassifier.concatenate([fitted, "a forest"])
    with pytest.raises(ValueError, match="classes"):
        other = RandomDecisionTreesClassifier(n_estimators=2).fit(X, np.array([0, 2] * 10))
        RandomDecisionTreesClassifier.concatenate([fitted, other])
    with pytest.raises(ValueError, match="3 features"):
        other = RandomDecisionTreesClassifier(n_estimators=2).fit(rng.normal(size=(20, 3)), y)
        RandomDecisionTreesClassifier.concatenate([fitted, other])
    with pytest.raises(ValueError, match="category"):
        X_nominal = np.column_stack([X[:, 0], np.arange(20) % 3])
        a = RandomDecisionTreesClassifier(n_estimators=2, nominal_features=[1]).fit(X_nominal, y)
        X_other = np.column_stack([X[:, 0], np.arange(20) % 4])
        b = RandomDecisionTreesClassifier(n_estimators=2, nominal_features=[1]).fit(X_other, y)
        RandomDecisionTreesClassifier.concatenate([a, b])


@pytest.mark.parametrize(
    "combiner", ["average", "vote", "plausibility", "confidence_bounds", "pooling", "eva"]
)
def test_binary_decision_function_is_centred_like_scikit_learn(breast_cancer, combiner):
    from dstk.ensemble._combiners import decision_threshold, parse_combiner

    X, y = breast_cancer
    model = RandomDecisionTreesClassifier(10, min_samples_leaf=2, combiner=combiner, random_state=0).fit(X, y)
    method, aggregate = parse_combiner(combiner)
    counts = model.leaf_counts(X[:80])
    raw = combine_leaves(
        counts,
        combiner=method if aggregate is None else f"{method}:{aggregate}",
        **model._options(),
    )
    decision = model.decision_function(X[:80])
    assert np.array_equal(decision, raw - decision_threshold(method, aggregate))
    assert np.array_equal(model.predict(X[:80]), model.classes_[(decision > 0).astype(int)])


def test_scikit_learn_estimator_checks():
    """scikit-learn's own checks pass, except the one listed in tests/sklearn/_estimators.py.

    (Sample-weight equivalence on shuffled rows: the trees' random thresholds follow the row order.)
    """
    import warnings

    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(RandomDecisionTreesClassifier(n_estimators=5, random_state=0), on_fail=None)
    failed = {r["check_name"] for r in results if r["status"] == "failed"}
    assert failed <= {"check_sample_weight_equivalence_on_dense_data"}, failed


def _log_odds_reference(model, counts, combiner):
    """The calibrated combiners' log-odds from the public functions: EVA's score, ln BetP(1) - ln BetP(0) of the
    normalised combined mass."""
    from dstk.ensemble import combine_leaves_to_mass

    if combiner == "eva":
        return combine_leaves(counts, combiner="eva", class_prior=model.class_prior_)
    mass = combine_leaves_to_mass(counts, combiner=combiner).to_array()
    tiny = np.finfo(np.float64).tiny
    betp = mass[:, [1, 2]] + mass[:, [3]] / 2  # Smets' BetP of the two singletons
    return np.log(np.maximum(betp[:, 1], tiny)) - np.log(np.maximum(betp[:, 0], tiny))


def _inverse_temperature_by_grid(log_odds, y):
    """Brute force: the a >= 0 maximising the smoothed-target likelihood of expit(a z), on a fine grid."""
    n_positive, n_negative = y.sum(), y.size - y.sum()
    targets = np.where(y == 1, (n_positive + 1) / (n_positive + 2), 1 / (n_negative + 2))
    scale = np.abs(log_odds).max()
    grid = np.linspace(0.0, 50.0, 200_001) / scale
    eta = grid[:, None] * log_odds[None, :]
    values = -(targets * np.logaddexp(0.0, -eta) + (1 - targets) * np.logaddexp(0.0, eta)).sum(axis=1)
    return grid[np.argmax(values)], grid[1] - grid[0]


@pytest.mark.parametrize("combiner", ["eva", "dempster", "cautious"])
def test_calibrated_predict_proba_of_evidential_combiners(breast_cancer, combiner):
    from scipy.special import expit
    from sklearn.metrics import log_loss, roc_auc_score

    X, y = breast_cancer
    order = np.random.default_rng(0).permutation(y.size)
    train, test = order[:300], order[300:]
    model = RandomDecisionTreesClassifier(
        50, min_samples_leaf=2, min_samples_split=4, combiner=combiner, random_state=0
    ).fit(X[train], y[train])
    proba = model.predict_proba(X[test])
    log_odds = _log_odds_reference(model, model.leaf_counts(X[test]), combiner)
    a = model.score_calibration_
    assert a > 0
    assert np.allclose(proba[:, 1], expit(a * log_odds), rtol=1e-12, atol=1e-15)
    assert np.allclose(proba.sum(axis=1), 1)
    # the log-odds change sign with the combiner's score: the same decisions
    score = model.decision_function(X[test])
    assert np.array_equal(np.sign(log_odds), np.sign(score))
    assert np.array_equal(model.predict(X[test]), model.classes_[(score > 0).astype(int)])
    assert roc_auc_score(y[test], proba[:, 1]) == pytest.approx(roc_auc_score(y[test], log_odds), abs=1e-12)
    raw = combine_leaves_proba(
        model.leaf_counts(X[test]),
        combiner=combiner,
        **({"class_prior": model.class_prior_} if combiner == "eva" else {}),
    )
    assert log_loss(y[test], proba[:, 1]) < log_loss(y[test], np.clip(raw[:, 1], 1e-15, 1 - 1e-15))
    # leave-one-out log-odds (the leaves of trees grown without each sample): a is their likelihood's maximiser
    counts = _loo_counts_by_walking(model, X[train], y[train], min_samples_split=4, stop_at_pure_nodes=True)
    best, step = _inverse_temperature_by_grid(_log_odds_reference(model, counts, combiner), y[train])
    assert abs(a - best) <= step


def _loo_counts_by_walking(model, X, y, *, min_samples_split=2, stop_at_pure_nodes=False):
    """Leave-one-out leaf counts of the training samples, from the node arrays by a Python walk.

    From the definition: in the tree grown without the sample, the first node of its path (from the
    root) that would stop growing without it (fewer than ``min_samples_split`` samples left, or, with
    ``stop_at_pure_nodes``, one class left) is its leaf; a leaf left empty is replaced by its parent.
    """
    nodes = model._node_arrays()
    offsets = nodes["offsets"]
    out = np.empty((X.shape[0], offsets.size - 1, model.n_classes_), dtype=np.int64)
    for t in range(offsets.size - 1):
        base = offsets[t]
        for i, x in enumerate(X):
            path = [0]
            while nodes["n_children"][base + path[-1]] > 0:
                k = base + path[-1]
                value = x[nodes["feature"][k]]
                if nodes["nominal"][k]:
                    path.append(nodes["child_start"][k] + int(value))
                else:
                    below = (
                        value < nodes["threshold"][k]
                        if nodes["operator"][k] == 0
                        else value <= nodes["threshold"][k]
                    )
                    path.append(nodes["child_start"][k] + (0 if below else 1))
            without = [
                nodes["counts"][base + g].astype(np.int64) - np.eye(model.n_classes_, dtype=int)[y[i]]
                for g in path
            ]
            stops = [
                c.sum() < min_samples_split or (stop_at_pure_nodes and (c > 0).sum() <= 1) for c in without
            ]
            level = stops.index(True) if any(stops) else len(path) - 1
            if not without[level].any() and level > 0:
                level -= 1
            out[i, t] = without[level]
    return out


@pytest.mark.parametrize("combiner", ["eva", "dempster", "cautious"])
@pytest.mark.parametrize("nominal", [False, True])
def test_calibration_of_fully_grown_trees_uses_the_parent_of_a_sample_alone_in_its_leaf(
    breast_cancer, combiner, nominal
):
    """With the default min_samples_leaf=1 every training sample is alone in its leaf; its leave-one-out
    score then takes the parent's counts without it (an empty leaf would give every sample the same score)."""
    from sklearn.metrics import roc_auc_score

    X, y = breast_cancer
    X = X[:, :8].copy()
    if nominal:
        X[:, 7] = np.digitize(X[:, 7], np.quantile(X[:, 7], [0.25, 0.5, 0.75]))
    order = np.random.default_rng(1).permutation(y.size)
    train, test = order[:200], order[200:]
    model = RandomDecisionTreesClassifier(
        12,
        combiner=combiner,
        stop_at_pure_nodes=False,
        random_state=0,
        nominal_features=[7] if nominal else None,
    ).fit(X[train], y[train])
    assert (model.leaf_counts(X[train]).sum(axis=-1) == 1).mean() > 0.9  # nearly every sample alone
    counts = _loo_counts_by_walking(model, X[train], y[train])
    best, step = _inverse_temperature_by_grid(_log_odds_reference(model, counts, combiner), y[train])
    assert abs(model.score_calibration_ - best) <= step
    assert model.score_calibration_ > 0  # the probabilities rank the samples as the score does
    proba = model.predict_proba(X[test])[:, 1]
    log_odds = _log_odds_reference(model, model.leaf_counts(X[test]), combiner)
    assert roc_auc_score(y[test], proba) == pytest.approx(roc_auc_score(y[test], log_odds), abs=1e-12)
    base_rate = np.mean(y[train])
    assert np.mean((proba - y[test]) ** 2) < np.mean((base_rate - y[test]) ** 2)


@pytest.mark.parametrize("combiner", ["eva", "dempster", "cautious"])
@pytest.mark.parametrize("nominal", [False, True])
def test_calibration_of_trees_stopped_at_pure_nodes_climbs_to_the_node_that_would_stop(
    breast_cancer, combiner, nominal
):
    """With ``stop_at_pure_nodes=True`` the trees depend on the labels: a sample of one class among the
    other class's samples is split off into a small leaf, where, without it, the node would have stopped
    as one pure leaf.  Its leave-one-out counts are those of the first node of its path that is pure
    without it (checked against a Python walk of the node arrays)."""
    X, y = breast_cancer
    X = X[:, :8].copy()
    if nominal:
        X[:, 7] = np.digitize(X[:, 7], np.quantile(X[:, 7], [0.25, 0.5, 0.75]))
    order = np.random.default_rng(2).permutation(y.size)
    train = order[:250]
    model = RandomDecisionTreesClassifier(
        10,
        combiner=combiner,
        stop_at_pure_nodes=True,
        random_state=0,
        nominal_features=[7] if nominal else None,
    ).fit(X[train], y[train])
    counts = _loo_counts_by_walking(model, X[train], y[train], stop_at_pure_nodes=True)
    # the walk climbs above the leaf's parent for some samples: the rule is exercised
    parents = _loo_counts_by_walking(model, X[train], y[train])
    assert (counts.sum(axis=-1) > parents.sum(axis=-1)).any()
    best, step = _inverse_temperature_by_grid(_log_odds_reference(model, counts, combiner), y[train])
    assert abs(model.score_calibration_ - best) <= step


def test_calibration_of_pure_stopped_trees_matches_the_best_temperature_on_unseen_data():
    """The leave-one-out temperature is that of unseen data: on 4,000 held-out samples the inverse
    temperature maximising their likelihood is within 25 % of the fitted one (the leaf's own counts
    without the sample gave 3-5x too large a on pure-stopped trees: overconfident probabilities)."""
    from scipy.optimize import minimize_scalar
    from scipy.special import expit

    rng = np.random.default_rng(5)
    X = rng.normal(size=(4600, 6))
    y = (X[:, 0] + 0.7 * X[:, 1] + rng.normal(size=4600) > 0.4).astype(int)
    model = RandomDecisionTreesClassifier(
        40, combiner="cautious", stop_at_pure_nodes=True, random_state=0
    ).fit(X[:600], y[:600])
    z = model.predict_proba(X[600:])[:, 1]
    log_odds = np.log(z) - np.log1p(-z)  # a z of the fitted a
    test = y[600:]

    def loss(scale):
        p = expit(scale * log_odds)
        return -np.mean(test * np.log(p) + (1 - test) * np.log1p(-p))

    best = minimize_scalar(loss, bounds=(0.05, 20.0), method="bounded").x
    assert abs(np.log(best)) < np.log(1.25)


def test_concatenate_keeps_and_checks_feature_names():
    pandas = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = pandas.DataFrame(rng.normal(size=(80, 3)), columns=["a", "b", "c"])
    y = (X["a"] > 0).astype(int)
    parts = [RandomDecisionTreesClassifier(n_estimators=3, random_state=s).fit(X, y) for s in (1, 2)]
    merged = RandomDecisionTreesClassifier.concatenate(parts)
    assert list(merged.feature_names_in_) == ["a", "b", "c"]
    with pytest.raises(ValueError, match="feature names"):
        merged.predict(X[["c", "b", "a"]])
    other = RandomDecisionTreesClassifier(n_estimators=3, random_state=3).fit(X.rename(columns={"a": "z"}), y)
    with pytest.raises(ValueError, match="other feature names"):
        RandomDecisionTreesClassifier.concatenate([parts[0], other])


def test_threads_only_for_work_that_pays_for_them(breast_cancer, monkeypatch):
    """Below _PARALLEL_MIN_SAMPLE_TREES (sample, tree) pairs fit and predict stay on one thread."""
    X, y = breast_cancer
    pools = []

    class CountingPool(_random_trees.ThreadPoolExecutor):
        def __init__(self, *args, **kwargs):
            pools.append(kwargs.get("max_workers"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(_random_trees, "ThreadPoolExecutor", CountingPool)
    small = RandomDecisionTreesClassifier(5, random_state=0, n_jobs=2).fit(X, y)
    proba, counts = small.predict_proba(X), small.leaf_counts(X)
    assert pools == []
    monkeypatch.setattr(_random_trees, "_PARALLEL_MIN_SAMPLE_TREES", 5 * X.shape[0])
    threaded = RandomDecisionTreesClassifier(5, random_state=0, n_jobs=2).fit(X, y)
    assert pools == [2]
    np.testing.assert_array_equal(threaded.predict_proba(X), proba)
    assert pools == [2, 2]
    np.testing.assert_array_equal(threaded.leaf_counts(X), counts)
    assert pools == [2, 2, 2]


@pytest.mark.parametrize(
    "options",
    [
        {"combiner": "plausibility"},
        {"combiner": "confidence_bounds"},
        {"combiner": "dempster", "combiner_options": {"model": "plausibility"}},
    ],
)
def test_two_class_combiners_are_refused_at_fit_for_more_classes(options):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.arange(60) % 3
    with pytest.raises(ValueError, match="two classes"):
        RandomDecisionTreesClassifier(4, random_state=0, **options).fit(X, y)
    RandomDecisionTreesClassifier(4, random_state=0, **options).fit(X, y % 2)  # two classes: fine


def test_verbose_counts_every_tree_from_the_first(caplog, capsys):
    """The bar starts before the first tree (which may compile the kernels), counts n_estimators and stays."""
    import logging

    from sklearn.datasets import load_breast_cancer

    from dstk.ensemble import RandomDecisionTreesClassifier

    X, y = load_breast_cancer(return_X_y=True)
    for n_jobs in (1, 2):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="dstk"):
            RandomDecisionTreesClassifier(n_estimators=12, verbose=1, n_jobs=n_jobs, random_state=0).fit(X, y)
        messages = [record.getMessage() for record in caplog.records if record.name == "dstk"]
        assert messages[0].startswith("trees grown: 0/12"), messages[0]
        assert [m.split(" (")[0] for m in messages[1:]] == [f"trees grown {i}/12 done" for i in range(1, 13)]
        err = capsys.readouterr().err
        assert "12/12" in err  # the tqdm bar is left on screen at the end


def _argmax_sets_hold(model, X):
    """predict is numpy's argmax of predict_proba: the first class of largest probability on ties."""
    proba = model.predict_proba(X)
    return bool(np.array_equal(model.predict(X), model.classes_[np.argmax(proba, axis=1)]))


@pytest.mark.parametrize(
    "combiner",
    ["average", "vote", "laplace", "laplace:vote", "plausibility", "confidence_bounds", "pooling"]
    + ["dempster", "cautious", "eva"],
)
@pytest.mark.parametrize("data", ["breast_cancer", "three_classes", "integers"])
def test_predict_is_an_argmax_of_predict_proba(breast_cancer, combiner, data):
    rng = np.random.default_rng(3)
    if data == "breast_cancer":
        X, y = breast_cancer
        X, y = X[::2], y[::2]
    elif data == "three_classes":
        X = rng.normal(size=(240, 4))
        y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.7, size=240), [-0.6, 0.6])
    else:
        X = rng.integers(0, 3, size=(200, 5)).astype(float)
        y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, size=200) > 2).astype(int)
    if np.unique(y).size > 2 and combiner.split(":")[0] in ("plausibility", "confidence_bounds"):
        pytest.skip("binary-only combiner")
    model = RandomDecisionTreesClassifier(20, combiner=combiner, random_state=0).fit(X[::2], y[::2])
    assert _argmax_sets_hold(model, X[1::2])
    # an even number of trees with one-sample leaves: the votes and averages tie at 1/2 on some samples
    tied = RandomDecisionTreesClassifier(4, combiner=combiner, min_samples_leaf=1, random_state=1)
    tied.fit(X[::2], y[::2])
    assert _argmax_sets_hold(tied, X[1::2])
    if combiner in ("average", "vote") and data == "breast_cancer":
        assert np.any(tied.predict_proba(X[1::2])[:, 1] == 0.5)
    # a calibration fitted for another combiner: predict_proba warns and is uncalibrated; predict follows it
    model.set_params(combiner="dempster" if combiner != "dempster" else "eva")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert _argmax_sets_hold(model, X[1::2])


@pytest.mark.parametrize("combiner", ["eva", "dempster"])
def test_calibrated_probabilities_keep_the_accuracy_of_the_decision_on_held_out_samples(combiner):
    """On a fixed synthetic set the accuracy of predict_proba's argmax equals that of the decision threshold
    (with the former Platt map of m({1}) - m({0}) the Dempster one fell to the majority rate)."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(1200, 6))
    y = (X[:, 0] - X[:, 1] + 0.5 * X[:, 2] + rng.normal(scale=0.8, size=1200) > 0.4).astype(int)
    model = RandomDecisionTreesClassifier(60, combiner=combiner, random_state=0).fit(X[:600], y[:600])
    proba = model.predict_proba(X[600:])
    by_proba = np.mean((proba[:, 1] >= 0.5) == y[600:])
    by_decision = np.mean((model.decision_function(X[600:]) >= 0) == y[600:])
    assert by_decision > 0.75
    assert abs(by_proba - by_decision) <= 0.01


def _log_scores_reference(model, counts, combiner):
    """Per-class log-scores of the calibrated combiners for three or more classes, from the public functions:
    EVA's per-class scores, or ln BetP(k) of the normalised combined mass (subsets indexed by bit masks)."""
    from dstk.ensemble import combine_leaves_to_mass

    if combiner == "eva":
        return combine_leaves(counts, combiner="eva", class_prior=model.class_prior_)
    mass = combine_leaves_to_mass(counts, combiner=combiner, normalize=False).to_array()
    n_classes = counts.shape[-1]
    frame = (1 << n_classes) - 1
    singletons = mass[:, [1 << k for k in range(n_classes)]]
    betp = (singletons + mass[:, [frame]] / n_classes) / (1.0 - mass[:, [0]])
    return np.log(np.maximum(betp, np.finfo(np.float64).tiny))


def _smoothed_targets_reference(y, n_classes):
    """Platt's targets for K classes from the definition, sample by sample: (n_k + 1) / (n_k + 2) on the
    sample's class k (n_k samples of class k), 1 / (n_k + 2) shared equally by the other classes."""
    targets = np.empty((y.size, n_classes))
    for i, k in enumerate(y):
        n_k = int(np.sum(y == k))
        targets[i] = 1.0 / (n_k + 2) / (n_classes - 1)
        targets[i, k] = (n_k + 1) / (n_k + 2)
    return targets


def _cross_entropy(a, scores, targets):
    p = np.exp(a * scores - np.max(a * scores, axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return -np.sum(targets * np.log(p))


def _multinomial_inverse_temperature_by_grid(scores, y):
    """Brute force: the a >= 0 of least cross-entropy of softmax(a s) against the smoothed targets, on a grid."""
    targets = _smoothed_targets_reference(y, scores.shape[1])
    spread = np.max(scores.max(axis=1) - scores.min(axis=1))
    coarse = np.linspace(0.0, 60.0, 601) / spread
    centre = coarse[int(np.argmin([_cross_entropy(a, scores, targets) for a in coarse]))]
    fine = np.linspace(max(centre - coarse[1], 0.0), centre + coarse[1], 2001)
    return fine[int(np.argmin([_cross_entropy(a, scores, targets) for a in fine]))], fine[1] - fine[0]


def _temperature_by_scikit_learn(scores, y):
    """scikit-learn's temperature scaling (the map of CalibratedClassifierCV(method="temperature")) on the
    smoothed targets: each sample repeated once per class, weighted by its target for that class."""
    from sklearn.calibration import _TemperatureScaling

    n, n_classes = scores.shape
    targets = _smoothed_targets_reference(y, n_classes)
    return (
        _TemperatureScaling()
        .fit(
            np.repeat(scores, n_classes, axis=0),
            np.tile(np.arange(n_classes), n),
            sample_weight=targets.ravel(),
        )
        .beta_
    )


@pytest.fixture(scope="module")
def three_gaussian_classes():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(500, 5))
    y = np.digitize(X[:, 0] + 0.8 * X[:, 1] + rng.normal(scale=0.8, size=500), [-0.7, 0.7])
    return X, y


@pytest.mark.parametrize("combiner", ["eva", "dempster", "cautious"])
def test_multiclass_temperature_is_the_leave_one_out_maximum_likelihood(three_gaussian_classes, combiner):
    """Three classes: predict_proba is softmax(a s) of the per-class log-scores s, with a the maximum-likelihood
    inverse temperature of the training samples' leave-one-out log-scores under Platt's smoothed targets,
    checked against a grid minimisation of the cross-entropy and scikit-learn's own temperature scaling."""
    from scipy.special import softmax

    X, y = three_gaussian_classes
    train, test = slice(0, 200), slice(200, None)
    model = RandomDecisionTreesClassifier(15, combiner=combiner, random_state=0).fit(X[train], y[train])
    a = model.score_calibration_
    assert a > 0
    counts = _loo_counts_by_walking(model, X[train], y[train], stop_at_pure_nodes=True)
    loo_scores = _log_scores_reference(model, counts, combiner)
    best, step = _multinomial_inverse_temperature_by_grid(loo_scores, y[train])
    assert abs(a - best) <= step
    assert a == pytest.approx(_temperature_by_scikit_learn(loo_scores, y[train]), rel=1e-4)
    scores = _log_scores_reference(model, model.leaf_counts(X[test]), combiner)
    proba = model.predict_proba(X[test])
    np.testing.assert_allclose(proba, softmax(a * scores, axis=1), rtol=1e-9, atol=1e-15)
    assert np.array_equal(model.predict(X[test]), model.classes_[np.argmax(proba, axis=1)])


def test_multiclass_temperature_improves_log_loss_on_held_out_samples(three_gaussian_classes):
    """The uncalibrated EVA softmax is near 0 or 1 (a sum over the trees); the fitted temperature brings its
    held-out log-loss far below that and to within 0.02 of probability averaging on the same trees (on this
    noisy set both are near 0.89, against ln 3 = 1.10 for the base rate)."""
    from sklearn.metrics import log_loss

    X, y = three_gaussian_classes
    model = RandomDecisionTreesClassifier(40, combiner="eva", random_state=0).fit(X[:250], y[:250])
    calibrated = log_loss(y[250:], model.predict_proba(X[250:]))
    raw = log_loss(
        y[250:],
        combine_leaves_proba(model.leaf_counts(X[250:]), combiner="eva", class_prior=model.class_prior_),
    )
    model.set_params(combiner="average")
    average = log_loss(y[250:], model.predict_proba(X[250:]))
    assert calibrated < min(raw - 0.5, average + 0.02)


def test_multiclass_temperature_stays_finite_where_the_training_scores_separate_the_classes():
    """Leave-one-out scores that rank every sample's class first: the hard-label likelihood grows without
    bound in a, the smoothed targets give the finite maximiser of the grid."""
    rng = np.random.default_rng(4)
    y = np.repeat(np.arange(3), 30)
    scores = rng.normal(size=(90, 3))
    scores[np.arange(90), y] += 3.0 + np.abs(scores).max()
    a = _random_trees._fit_inverse_temperature(scores, y)
    best, step = _multinomial_inverse_temperature_by_grid(scores, y)
    assert np.isfinite(a) and abs(a - best) <= step
    assert a == pytest.approx(_temperature_by_scikit_learn(scores, y), rel=1e-4)


def test_two_class_smoothed_targets_are_platts():
    """The K-class smoothed targets of two classes are Platt's, so one rule covers every number of classes."""
    y = np.array([0, 1, 1, 0, 1, 1, 1])
    targets = _random_trees._smoothed_targets(y, 2)
    n_positive, n_negative = 5, 2
    platt = np.where(y == 1, (n_positive + 1) / (n_positive + 2), 1 / (n_negative + 2))
    np.testing.assert_allclose(targets[:, 1], platt, rtol=1e-15)
    np.testing.assert_allclose(targets, _smoothed_targets_reference(y, 2), rtol=1e-15)


def test_default_combiner_is_eva_and_busch2021_keeps_average(three_gaussian_classes):
    """combiner=None resolves to "eva" (calibrated) and, with compatibility="busch2021", to "average": the
    outputs equal those of the explicit combiner on the same trees."""
    X, y = three_gaussian_classes
    for compatibility, explicit in ((None, "eva"), ("busch2021", "average")):
        default = RandomDecisionTreesClassifier(10, compatibility=compatibility, random_state=0).fit(
            X[:200], y[:200]
        )
        named = RandomDecisionTreesClassifier(
            10, combiner=explicit, compatibility=compatibility, random_state=0
        ).fit(X[:200], y[:200])
        assert default.combiner is None
        assert (default.score_calibration_ is None) == (explicit == "average")
        np.testing.assert_array_equal(default.predict_proba(X[200:]), named.predict_proba(X[200:]))
        np.testing.assert_array_equal(default.predict(X[200:]), named.predict(X[200:]))
        np.testing.assert_array_equal(default.decision_function(X[200:]), named.decision_function(X[200:]))


def test_concatenated_default_forests_average_their_leaves(three_gaussian_classes):
    """EVA's temperature needs the training samples: parts with the default combiner merge into a forest
    with combiner="average", whose probabilities are the average over all the trees' leaves (no warning)."""
    X, y = three_gaussian_classes
    parts = [RandomDecisionTreesClassifier(4, random_state=seed).fit(X[:200], y[:200]) for seed in (1, 2)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        merged = RandomDecisionTreesClassifier.concatenate(parts)
        proba = merged.predict_proba(X[200:])
    assert merged.combiner == "average"
    counts = np.concatenate([part.leaf_counts(X[200:]) for part in parts], axis=1).astype(float)
    expected = (counts / counts.sum(axis=-1, keepdims=True)).mean(axis=1)
    np.testing.assert_allclose(proba, expected, rtol=1e-12)


@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_inverse_temperature_is_the_likelihood_maximiser_to_machine_precision(n_classes):
    """The fitted a is where the derivative of the smoothed-target log-likelihood changes sign, to a few
    units in the last place: the derivative, evaluated in 50-digit arithmetic (mpmath), is positive just
    below a and negative just above it (so the probabilities do not depend on the machine's rounding)."""
    import mpmath

    rng = np.random.default_rng(n_classes)
    y = rng.integers(0, n_classes, 200)
    if n_classes == 2:
        scores = 1.5 * (2 * y - 1) + rng.normal(0, 2, 200)
        n_positive, n_negative = int(np.sum(y == 1)), int(np.sum(y == 0))
        targets = [
            mpmath.mpf(n_positive + 1) / (n_positive + 2) if label else mpmath.mpf(1) / (n_negative + 2)
            for label in y
        ]

        def slope(a):
            return sum(
                (t - 1 / (1 + mpmath.exp(-a * mpmath.mpf(s)))) * mpmath.mpf(s)
                for t, s in zip(targets, scores)
            )

    else:
        scores = rng.normal(0, 2, (200, n_classes))
        scores[np.arange(200), y] += 2.0
        targets = _random_trees._smoothed_targets(y, n_classes)

        def slope(a):
            total = mpmath.mpf(0)
            for row, target in zip(scores, targets):
                weights = [mpmath.exp(a * mpmath.mpf(s)) for s in row]
                norm = sum(weights)
                total += sum(
                    (mpmath.mpf(t) - w / norm) * mpmath.mpf(s) for t, w, s in zip(target, weights, row)
                )
            return total

    a = _random_trees._fit_inverse_temperature(scores, y)
    with mpmath.workdps(50):
        assert (
            slope(mpmath.mpf(a) * (1 - mpmath.mpf(1e-13)))
            > 0
            > slope(mpmath.mpf(a) * (1 + mpmath.mpf(1e-13)))
        )


def test_inverse_temperature_is_zero_for_scores_ranked_the_wrong_way():
    """Scores anti-correlated with the labels: the likelihood decreases from a = 0, whose probabilities are 1/2."""
    y = np.array([0, 0, 0, 1, 1, 1])
    scores = np.array([3.0, 2.0, 1.0, -1.0, -2.0, -3.0])
    assert _random_trees._fit_inverse_temperature(scores, y) == 0.0
