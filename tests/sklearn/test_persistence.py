"""Saving models without pickle: skops.io round trips of every estimator, and MassFunction's dict/JSON forms."""

import json

import numpy as np
import pytest

skops_io = pytest.importorskip("skops.io")
pytest.importorskip("sklearn")

from sklearn.base import clone  # noqa: E402
from sklearn.datasets import load_iris  # noqa: E402

from dstk import MassFunction  # noqa: E402

from ._estimators import x_estimators  # noqa: E402


def _round_trip(estimator):
    data = skops_io.dumps(estimator)
    untrusted = skops_io.get_untrusted_types(data=data)
    assert all(name.startswith("dstk.") for name in untrusted), untrusted
    return skops_io.loads(data, trusted=untrusted), untrusted


@pytest.mark.parametrize("estimator", x_estimators(), ids=lambda e: type(e).__name__)
def test_skops_round_trip_of_every_x_estimator(estimator):
    X, y = load_iris(return_X_y=True)
    if type(estimator).__name__ == "ImpliedPosteriorClassifier":
        X, y = X[y < 2], y[y < 2]
    fitted = clone(estimator).fit(X, y)
    loaded, untrusted = _round_trip(fitted)
    assert f"{type(fitted).__module__}.{type(fitted).__name__}" in untrusted
    for method in ("predict_proba", "decision_function", "predict"):
        if hasattr(fitted, method):
            np.testing.assert_array_equal(getattr(loaded, method)(X), getattr(fitted, method)(X))
    if hasattr(fitted, "predict_mass"):
        try:
            expected = fitted.predict_mass(X).to_array()
        except ValueError:  # a combiner without mass functions (e.g. the trees' probability averaging)
            return
        np.testing.assert_array_equal(loaded.predict_mass(X).to_array(), expected)


def test_skops_round_trip_of_mass_functions_and_combination():
    from dstk.calibration import BinningCalibrator, EvidentialCombination

    scores, y = np.array([-2.0, -1.0, 1.0, 2.0]), np.array([0, 0, 1, 1])
    calibrator = BinningCalibrator(bins=[-3, 0, 3], model="dempster").fit(scores, y)
    combination = EvidentialCombination([calibrator, calibrator], rule="cautious")
    loaded, _ = _round_trip(combination)
    np.testing.assert_array_equal(loaded.predict_proba([1.5, -0.5]), combination.predict_proba([1.5, -0.5]))
    labels = [f"c{i}" for i in range(18)]
    sparse = MassFunction.from_focal_sets([1, 6, (1 << 18) - 1], [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], labels)
    dense = MassFunction({"a": 0.3, "a,b": 0.7})
    back, untrusted = _round_trip({"dense": dense, "sparse": sparse})
    assert set(untrusted) == {"dstk.core._frame.Frame", "dstk.core._mass.MassFunction"}
    assert back["dense"].allclose(dense, atol=0) and back["sparse"].allclose(sparse, atol=0)
    assert back["sparse"].frame == sparse.frame and not back["sparse"].is_dense


@pytest.mark.parametrize(
    "mass",
    [
        MassFunction({"a": 0.5, "a,b": 0.5}),
        MassFunction.from_array(np.array([[0.1, 0.2, 0.3, 0.4], [0.0, 0.0, 0.5, 0.5]]), (0, 1)),
        MassFunction.from_array(np.full((2, 3, 8), 1 / 8), ("x", "y", "z")),
        MassFunction({(("p", 1),): 0.25, (("p", 1), ("q", 2)): 0.75}, frame=[("p", 1), ("q", 2)]),
        MassFunction.from_focal_sets([0, 5, (1 << 20) - 1], [[0.1, 0.2, 0.7]], [f"l{i}" for i in range(20)]),
    ],
    ids=["unbatched", "batched-with-empty-set", "2-d-batch", "tuple-labels", "focal-set-form"],
)
def test_mass_function_dict_and_json_round_trip(mass):
    data = mass.to_dict()
    assert data["format"] == "dstk.MassFunction" and data["batch_shape"] == list(mass.batch_shape)
    for back in (MassFunction.from_dict(data), MassFunction.from_json(mass.to_json())):
        assert back.frame == mass.frame and back.batch_shape == mass.batch_shape
        np.testing.assert_array_equal(back.to_array(), mass.to_array())  # floats exactly
    json.loads(mass.to_json())  # plain JSON


def test_mass_function_dict_errors():
    with pytest.raises(ValueError, match=r"format='dstk\.MassFunction'"):
        MassFunction.from_dict({"frame": ["a"]})
    data = MassFunction({"a": 0.5, "b": 0.5}).to_dict()
    data["masses"] = [0.5]
    with pytest.raises(ValueError, match="focal sets"):
        MassFunction.from_dict(data)
    data["masses"] = [0.9, 0.9]
    with pytest.raises(ValueError):
        MassFunction.from_dict(data)


_TAMPERED = {
    "negative": np.array([0.0, -1.0, 2.0, 0.0]),
    "nan": np.array([0.0, np.nan, 0.5, 0.5]),
    "sum 3": np.array([0.0, 1.0, 1.0, 1.0]),
    "wrong length": np.array([0.0, 0.5, 0.5]),
}


def _tampered_skops(values):
    """A .skops file of a dense MassFunction whose stored .npy was replaced by ``values``."""
    import io
    import zipfile

    data = skops_io.dumps(MassFunction({"a": 0.5, "b": 0.5}))
    source, target = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(target, "w") as out:
        for name in source.namelist():
            if name.endswith(".npy"):
                buffer = io.BytesIO()
                np.save(buffer, values)
                out.writestr(name, buffer.getvalue())
            else:
                out.writestr(name, source.read(name))
    return target.getvalue()


@pytest.mark.parametrize("case", list(_TAMPERED))
def test_tampered_skops_file_raises(case):
    from dstk.exceptions import InvalidMassError

    data = _tampered_skops(_TAMPERED[case])
    with pytest.raises(InvalidMassError, match="saved"):
        skops_io.loads(data, trusted=["dstk.core._frame.Frame", "dstk.core._mass.MassFunction"])


@pytest.mark.parametrize("case", list(_TAMPERED))
def test_tampered_pickle_raises(case):
    import pickle

    from dstk.exceptions import InvalidMassError

    m = MassFunction({"a": 0.5, "b": 0.5})
    constructor, arguments = m.__reduce__()
    assert constructor(*arguments) == m
    tampered = (arguments[0], _TAMPERED[case]) + arguments[2:]
    with pytest.raises(InvalidMassError, match="saved"):
        pickle.loads(pickle.dumps(_Reduced(constructor, tampered)))
    labels = [f"c{i}" for i in range(18)]
    sparse = MassFunction.from_focal_sets([1, 6], [0.5, 0.5], labels)
    constructor, (frame, _, focal, fm) = sparse.__reduce__()
    assert constructor(frame, None, focal, fm) == sparse
    for bad_focal, bad_fm in [
        (focal, np.array([-1.0, 2.0])),
        (focal, np.array([0.5, 0.5, 0.0])),
        (focal[::-1].copy(), fm),
        (np.array([1, 1 << 20], dtype=np.uint64), fm),
    ]:
        with pytest.raises(InvalidMassError, match="saved"):
            pickle.loads(pickle.dumps(_Reduced(constructor, (frame, None, bad_focal, bad_fm))))


class _Reduced:
    """Pickles as ``constructor(*arguments)`` (a hand-edited pickle stream)."""

    def __init__(self, constructor, arguments):
        self.constructor, self.arguments = constructor, arguments

    def __reduce__(self):
        return self.constructor, self.arguments
