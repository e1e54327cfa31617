"""Fitted calibrators applied to dask arrays of scores, chunk by chunk, on a LocalCluster.

Reference: the same calibrator's in-memory predict_mass / predict_interval /
predict_proba on the whole array (same floats expected: every chunk runs the
same code on independent samples).
"""

import pickle

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

import dstk  # noqa: E402
from dstk import MassFunction  # noqa: E402
from dstk.dask import DaskMassFunction, combine, map_samples, predict_interval, predict_mass, predict_proba  # noqa: E402

binning = pytest.importorskip("dstk.calibration._binning")
isotonic = pytest.importorskip("dstk.calibration._isotonic")


@pytest.fixture(scope="module")
def calibration_data():
    rng = np.random.default_rng(0)
    scores = rng.random(2000)
    labels = (rng.random(2000) < scores**2).astype(int)
    test_scores = np.concatenate([rng.random(997), [0.0, 1.0, 0.5]])
    return scores, labels, test_scores


@pytest.fixture(scope="module", params=["binning", "isotonic"])
def calibrator(request, calibration_data):
    scores, labels, _ = calibration_data
    if request.param == "binning":
        return binning.BinningCalibrator(bins=8).fit(scores, labels)
    return isotonic.IsotonicCalibrator().fit(scores, labels)


def test_predictions_equal_in_memory(client, calibrator, calibration_data):
    _, _, test_scores = calibration_data
    lazy_scores = da.from_array(test_scores, chunks=137)
    masses = predict_mass(calibrator, lazy_scores)
    assert isinstance(masses, DaskMassFunction)
    assert masses.frame == dstk.Frame((0, 1)) and masses.array.shape == (1000, 4)
    assert masses.chunks == lazy_scores.chunks
    bel, pl = predict_interval(calibrator, lazy_scores)
    proba = predict_proba(calibrator, lazy_scores)
    got_m, got_bel, got_pl, got_proba = client.compute([masses.array, bel, pl, proba], sync=True)
    np.testing.assert_array_equal(got_m, calibrator.predict_mass(test_scores).to_array())
    want_bel, want_pl = calibrator.predict_interval(test_scores)
    np.testing.assert_array_equal(got_bel, want_bel)
    np.testing.assert_array_equal(got_pl, want_pl)
    np.testing.assert_array_equal(got_proba, calibrator.predict_proba(test_scores))
    # a column vector of scores is accepted as in memory
    column = predict_proba(calibrator, da.from_array(test_scores[:, None], chunks=(300, 1)))
    np.testing.assert_array_equal(column.compute(), calibrator.predict_proba(test_scores))


def test_mass_function_chunks_come_back(client, calibrator, calibration_data):
    _, _, test_scores = calibration_data
    masses = predict_mass(calibrator, da.from_array(test_scores, chunks=400))
    parts = client.compute(list(masses.to_delayed()), sync=True)
    assert [p.batch_shape for p in parts] == [(400,), (400,), (200,)]
    assert all(isinstance(p, MassFunction) and p.frame == masses.frame for p in parts)
    want = calibrator.predict_mass(test_scores).to_array()
    np.testing.assert_array_equal(np.concatenate([p.to_array() for p in parts]), want)
    # the lazy queries of DaskMassFunction agree with MassFunction's
    got_pl, got_pig = client.compute([masses.pl({1}), masses.pignistic()], sync=True)
    whole = calibrator.predict_mass(test_scores)
    np.testing.assert_array_equal(got_pl, whole.pl({1}))
    np.testing.assert_array_equal(got_pig, whole.pignistic())


def test_fusing_two_calibrated_classifiers(client, calibration_data):
    """Two calibrators of two classifiers' scores, fused per sample by Dempster's rule on the cluster."""
    scores, labels, test_scores = calibration_data
    first = binning.BinningCalibrator(bins=6).fit(scores, labels)
    second = isotonic.IsotonicCalibrator().fit(1 - scores**2, labels)
    lazy = da.from_array(test_scores, chunks=250)
    fused = combine([predict_mass(first, lazy), predict_mass(second, 1 - lazy**2)], rule="dempster")
    want = dstk.combine(
        [first.predict_mass(test_scores), second.predict_mass(1 - test_scores**2)], rule="dempster"
    )
    np.testing.assert_array_equal(fused.array.compute(), want.to_array())


def test_fitted_calibrators_pickle(calibrator, calibration_data):
    _, _, test_scores = calibration_data
    back = pickle.loads(pickle.dumps(calibrator))
    np.testing.assert_array_equal(
        back.predict_mass(test_scores).to_array(), calibrator.predict_mass(test_scores).to_array()
    )
    assert back.get_params() == calibrator.get_params()


def test_bad_input(calibrator):
    split = da.from_array(np.random.default_rng(1).random((10, 2)), chunks=(5, 1))
    with pytest.raises(ValueError, match=r"only the first .*sample.* axis may be split"):
        predict_mass(calibrator, split)
    with pytest.raises(ValueError, match="scalar"):
        predict_proba(calibrator, np.float64(0.3))
    with pytest.raises(TypeError, match="not a MassFunction"):
        predict_mass(_NotAMass(), da.ones(4, chunks=2))
    # errors of the estimator itself surface when the chunk is computed (or at the probe)
    bad = da.from_array(np.array([0.1, 0.2, np.nan, 0.4]), chunks=2)
    with pytest.raises(ValueError):
        predict_mass(calibrator, bad).array.compute(scheduler="synchronous")


def test_map_samples_handles_empty_chunks(calibrator):
    scores = da.from_array(np.linspace(0, 1, 10), chunks=5)
    filtered = scores[scores > 0.6]  # unknown chunk sizes, one chunk empty
    got = map_samples(calibrator, "predict_proba", filtered.compute_chunk_sizes()).compute(
        scheduler="synchronous"
    )
    np.testing.assert_array_equal(got, calibrator.predict_proba(np.linspace(0, 1, 10)[6:]))


class _NotAMass:
    def predict_mass(self, X):
        return np.zeros((len(X), 4))
