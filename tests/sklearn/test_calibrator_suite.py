"""The estimator invariants of scikit-learn's checks, for calibrators (1-D scores or task-score matrices in).

scikit-learn's ``check_estimator`` feeds arbitrary feature matrices, which
calibrators do not take (one score per sample, or one column per task of the
classes seen in fit); this suite checks the same invariants on their inputs:
cloning and parameters, the not-fitted error, ``fit`` returning self without
touching parameters, ``predict*`` never changing state, invariance to sample
order and to batching, rejected bad input (complex, NaN, wrong shape),
sample weights equal to repetition, ``score``, and pickle / skops round trips.
"""

import pickle

import joblib
import numpy as np
import pytest

pytest.importorskip("sklearn")

import sklearn.exceptions
from sklearn.base import clone

from ._estimators import binary_calibrators, matrix_calibrators

PREDICT_METHODS = ("predict", "predict_proba", "predict_mass_array", "predict_interval", "predict_mass")


def _binary_data(n=120, seed=0):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 2, n)
    scores = 1.5 * (2 * y - 1) + rng.normal(0, 1.2, n)
    return scores, np.where(y == 1, "yes", "no")


def _matrix_data(n=150, seed=0):
    rng = np.random.RandomState(seed)
    y = np.repeat([0, 1, 2], n // 3)
    scores = -1 + 2 * np.eye(3)[y] + rng.normal(0, 0.8, (n, 3))
    return scores, y


def _outputs(estimator, X):
    out = {}
    for name in PREDICT_METHODS:
        if hasattr(estimator, name):
            try:
                value = getattr(estimator, name)(X)
            except AttributeError:  # e.g. predict_mass of a calibrator without masses
                continue
            if hasattr(value, "to_array"):
                value = value.to_array()
            out[name] = value
    return out


def _assert_same(a, b, **tol):
    assert a.keys() == b.keys()
    for name in a:
        left, right = a[name], b[name]
        if isinstance(left, tuple):
            for x, z in zip(left, right):
                np.testing.assert_allclose(x, z, **tol, err_msg=name)
        elif np.asarray(left).dtype.kind in "fc":
            np.testing.assert_allclose(left, right, **tol, err_msg=name)
        else:
            np.testing.assert_array_equal(left, right, err_msg=name)


CASES = [(c, _binary_data) for c in binary_calibrators()] + [(c, _matrix_data) for c in matrix_calibrators()]
IDS = [repr(c) for c, _ in CASES]


@pytest.fixture(params=range(len(CASES)), ids=IDS)
def case(request):
    calibrator, data = CASES[request.param]
    return clone(calibrator), data()


def test_clone_and_parameters(case):
    calibrator, _ = case
    params = calibrator.get_params(deep=False)
    twin = clone(calibrator)
    assert twin.get_params(deep=False).keys() == params.keys()
    assert calibrator.set_params(**params) is calibrator
    assert repr(calibrator).startswith(type(calibrator).__name__)


def test_not_fitted_error_is_scikit_learns(case):
    calibrator, (X, _) = case
    for name in ("predict", "predict_proba"):
        with pytest.raises(sklearn.exceptions.NotFittedError):
            getattr(calibrator, name)(X)


def test_fit_returns_self_and_keeps_parameters(case):
    calibrator, (X, y) = case
    before = joblib.hash(calibrator.get_params(deep=False))
    assert calibrator.fit(X, y) is calibrator
    assert joblib.hash(calibrator.get_params(deep=False)) == before
    assert list(calibrator.classes_) == sorted(set(y.tolist()))


def test_predict_never_changes_state(case):
    calibrator, (X, y) = case
    calibrator.fit(X, y)
    before = joblib.hash(vars(calibrator))
    _outputs(calibrator, X)
    assert joblib.hash(vars(calibrator)) == before


def test_sample_order_and_batch_invariance(case):
    calibrator, (X, y) = case
    calibrator.fit(X, y)
    full = _outputs(calibrator, X)
    order = np.random.RandomState(1).permutation(len(y))
    permuted = _outputs(calibrator, X[order])
    _assert_same(
        {k: (tuple(x[order] for x in v) if isinstance(v, tuple) else v[order]) for k, v in full.items()},
        permuted,
        rtol=1e-12,
        atol=1e-12,
    )
    parts = [_outputs(calibrator, X[i : i + 7]) for i in range(0, len(y), 7)]
    glued = {
        k: (
            tuple(np.concatenate([p[k][j] for p in parts]) for j in range(2))
            if isinstance(full[k], tuple)
            else np.concatenate([p[k] for p in parts])
        )
        for k in full
    }
    _assert_same(full, glued, rtol=1e-12, atol=1e-12)


def test_refit_is_idempotent(case):
    calibrator, (X, y) = case
    first = _outputs(clone(calibrator).fit(X, y), X)
    subset = np.random.RandomState(3).permutation(len(y))[:60]
    calibrator.fit(X[subset], y[subset])
    second = _outputs(calibrator.fit(X, y), X)
    _assert_same(first, second, rtol=1e-12, atol=1e-12)


def test_bad_input_is_rejected(case):
    calibrator, (X, y) = case
    with pytest.raises(ValueError, match=r"[Cc]omplex"):
        clone(calibrator).fit(X + 1j, y)
    bad = X.copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match=r"NaN|non-finite"):
        clone(calibrator).fit(bad, y)
    calibrator.fit(X, y)
    with pytest.raises(ValueError, match=r"[Cc]omplex"):
        calibrator.predict_proba(X + 1j)
    with pytest.raises(ValueError, match=r"NaN|non-finite"):
        calibrator.predict_proba(bad)
    wrong = np.column_stack([X, X]) if X.ndim == 1 else X[:, :2]
    with pytest.raises(ValueError):
        calibrator.predict_proba(wrong)
    with pytest.raises(ValueError):
        calibrator.predict_proba(X[:0])


def test_sample_weight_is_repetition(case):
    calibrator, (X, y) = case
    weights = np.random.RandomState(2).randint(0, 4, len(y))
    weights[:6] = [1, 2, 1, 2, 1, 2]  # both classes keep some weight
    if type(calibrator).__name__ == "DirichletCalibrator":
        with pytest.raises(ValueError, match="sample_weight"):
            clone(calibrator).fit(X, y, sample_weight=weights)
        return
    weighted = clone(calibrator).fit(X, y, sample_weight=weights)
    repeated = clone(calibrator).fit(np.repeat(X, weights, axis=0), np.repeat(y, weights))
    _assert_same(_outputs(weighted, X), _outputs(repeated, X), rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="sample_weight"):
        clone(calibrator).fit(X, y, sample_weight=np.full(len(y), 0.5))
    with pytest.raises(ValueError, match="sample_weight"):
        clone(calibrator).fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="sample_weight"):
        clone(calibrator).fit(X, y, sample_weight=np.ones(len(y) - 1))


def test_score_is_accuracy(case):
    calibrator, (X, y) = case
    calibrator.fit(X, y)
    assert calibrator.score(X, y) == pytest.approx(np.mean(calibrator.predict(X) == y))


def test_column_vector_scores(case):
    calibrator, (X, y) = case
    if X.ndim != 1:
        pytest.skip("matrix calibrators")
    calibrator.fit(X, y)
    _assert_same(_outputs(calibrator, X), _outputs(calibrator, X[:, None]), rtol=0, atol=0)


def test_intervals_are_ordered(case):
    calibrator, (X, y) = case
    calibrator.fit(X, y)
    if not hasattr(calibrator, "predict_interval"):
        pytest.skip("no intervals")
    grid = np.linspace(X.min() - 3, X.max() + 3, 301) if X.ndim == 1 else X
    bel, pl = calibrator.predict_interval(grid)
    assert np.all(bel <= pl)


def test_pickle_and_skops_round_trips(case):
    skops_io = pytest.importorskip("skops.io")
    calibrator, (X, y) = case
    calibrator.fit(X, y)
    expected = _outputs(calibrator, X)
    _assert_same(expected, _outputs(pickle.loads(pickle.dumps(calibrator)), X), rtol=0, atol=0)
    data = skops_io.dumps(calibrator)
    untrusted = skops_io.get_untrusted_types(data=data)
    assert untrusted and all(name.startswith("dstk.") for name in untrusted), untrusted
    loaded = skops_io.loads(data, trusted=untrusted)
    _assert_same(expected, _outputs(loaded, X), rtol=0, atol=0)


def test_matrix_calibrators_check_columns():
    pd = pytest.importorskip("pandas")
    X, y = _matrix_data()
    frame = pd.DataFrame(X, columns=["task_a", "task_b", "task_c"])
    for calibrator in matrix_calibrators():
        calibrator.fit(frame, y)
        assert list(calibrator.feature_names_in_) == ["task_a", "task_b", "task_c"]
        assert calibrator.n_features_in_ == 3
        np.testing.assert_allclose(calibrator.predict_proba(frame), calibrator.predict_proba(X))
        with pytest.raises(ValueError, match="same order"):
            calibrator.predict_proba(frame[["task_b", "task_a", "task_c"]])
        with pytest.raises(ValueError, match="expecting 3 features"):
            calibrator.predict_proba(X[:, :2])


def test_multiclass_calibrator_coupling_result_without_state():
    from dstk.calibration import PlattCalibrator
    from dstk.multiclass import MulticlassCalibrator

    X, y = _matrix_data()
    calibrator = MulticlassCalibrator(PlattCalibrator()).fit(X, y)
    result = calibrator.predict_coupling(X)
    np.testing.assert_array_equal(result.probabilities, calibrator.predict_proba(X))
    assert result.all_converged
    assert not hasattr(calibrator, "coupling_result_")
