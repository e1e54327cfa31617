"""dstk.dask: every public callable x every kind of bad input -> a documented error naming the argument.

The same table as ``tests/meta/test_bad_inputs.py`` for the layers without
dask: each recipe gives valid arguments, each bad-input kind replaces one of
them.  A lazy result is computed (synchronous scheduler, small arrays), so an
error may come from the call or from ``compute``; either way it must be a
ValueError or TypeError (the dstk types derive from them) whose message names
the argument, and nothing may be silently accepted.
"""

from __future__ import annotations

import inspect
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

import dstk.dask  # noqa: E402
from dstk.calibration import BinningCalibrator  # noqa: E402
from dstk.ensemble import RandomDecisionTreesClassifier  # noqa: E402
from dstk.exceptions import DataTypeError, FrameError, NotFittedError  # noqa: E402

RNG = np.random.default_rng(0)
SCORES = RNG.normal(size=24)
LABELS = np.tile([0, 1], 12)
X3 = RNG.normal(size=(24, 3))
MASSES = np.tile([0.0, 0.5, 0.2, 0.3], (6, 3, 1))  # 6 samples x 3 sources, binary frame
COUNTS = np.tile(np.array([[3, 1], [0, 4], [2, 2]])[None], (4, 1, 1))  # 4 samples x 3 trees x 2 classes

ARRAY_KINDS = [
    "nan",
    "inf",
    "empty",
    "wrong_shape",
    "complex",
    "strings",
    "none",
    "ragged",
    "sparse",
    "scalar",
]
# the same values given as dask arrays: dtype errors are raised at once, value errors by compute
DASK_KINDS = ["dask_nan", "dask_complex", "dask_strings"]


def corrupt(value, kind):
    arr = np.asarray(value, dtype=float)
    if kind.startswith("dask_"):
        return da.from_array(corrupt(value, kind[5:]), chunks=(2,) + arr.shape[1:])
    if kind in ("nan", "inf"):
        out = arr.copy()
        out.flat[0] = np.nan if kind == "nan" else np.inf
        return out
    return {
        "empty": lambda: np.empty((0,) + arr.shape[1:]),
        "wrong_shape": lambda: np.zeros((2, 3, 4, 5)),
        "complex": lambda: arr + 1j,
        "strings": lambda: np.full(arr.shape, "a"),
        "none": lambda: None,
        "ragged": lambda: [[1.0], [1.0, 2.0]],
        "sparse": lambda: sp.csr_matrix(arr.reshape(arr.shape[0], -1)),
        "scalar": lambda: 3.0,
    }[kind]()


def _calibrator():
    return BinningCalibrator(bins=3).fit(SCORES, LABELS)


def _trees():
    return RandomDecisionTreesClassifier(n_estimators=3, random_state=0).fit(X3, LABELS)


class _FakeClient:
    """Stands for a distributed.Client whose one worker applies the malloc settings (no cluster needed)."""

    def register_plugin(self, plugin, name=None):
        return {"tcp://worker": {"status": "OK"}}

    def run(self, function):
        return {"tcp://worker": (True, "glibc: set")}


def _recipes():
    calibrator, trees = _calibrator(), _trees()
    mass_kinds = ARRAY_KINDS + DASK_KINDS
    sample_kinds = ARRAY_KINDS + DASK_KINDS
    return {
        "DaskMassFunction": (
            dstk.dask.DaskMassFunction,
            {"array": MASSES, "frame": (0, 1)},
            {"array": mass_kinds},
        ),
        "as_dask_mass": (dstk.dask.as_dask_mass, {"masses": MASSES, "frame": (0, 1)}, {"masses": mass_kinds}),
        "combine": (
            dstk.dask.combine,
            {"masses": MASSES, "frame": (0, 1), "axis": 1},
            {"masses": mass_kinds},
        ),
        "combine_with_conflict": (
            dstk.dask.combine_with_conflict,
            {"masses": MASSES, "frame": (0, 1), "axis": 1},
            {"masses": mass_kinds},
        ),
        "map_samples": (
            dstk.dask.map_samples,
            {"estimator": calibrator, "method": "predict_proba", "X": SCORES},
            {"X": sample_kinds},
        ),
        "predict_mass": (dstk.dask.predict_mass, {"estimator": calibrator, "X": SCORES}, {"X": sample_kinds}),
        "predict_interval": (
            dstk.dask.predict_interval,
            {"estimator": calibrator, "X": SCORES},
            {"X": sample_kinds},
        ),
        "predict_proba": (
            dstk.dask.predict_proba,
            {"estimator": calibrator, "X": SCORES},
            {"X": sample_kinds},
        ),
        "predict_proba_trees": (dstk.dask.predict_proba, {"estimator": trees, "X": X3}, {"X": sample_kinds}),
        "leaf_counts": (dstk.dask.leaf_counts, {"estimator": trees, "X": X3}, {"X": sample_kinds}),
        "fit_random_trees": (
            dstk.dask.fit_random_trees,
            {"estimator": RandomDecisionTreesClassifier(n_estimators=2), "X": X3, "y": LABELS, "n_tasks": 2},
            {
                "X": ARRAY_KINDS + ["dask_nan", "dask_complex"],
                "y": ["none", "ragged", "sparse", "scalar", "empty"],
            },
        ),
        "combine_leaves": (dstk.dask.combine_leaves, {"counts": COUNTS}, {"counts": sample_kinds}),
        "combine_leaves_proba": (
            dstk.dask.combine_leaves_proba,
            {"counts": COUNTS},
            {"counts": sample_kinds},
        ),
        "combine_leaves_to_mass": (
            dstk.dask.combine_leaves_to_mass,
            {"counts": COUNTS},
            {"counts": sample_kinds},
        ),
        "tune_worker_malloc": (  # a `client` that is not a client: tests/dask/test_workers.py
            dstk.dask.tune_worker_malloc,
            {"client": _FakeClient(), "mmap_threshold": 2**20},
            {"mmap_threshold": ["none", "scalar", "nan", "strings"]},
        ),
        "reuse_buffers": (  # in this process; the defaults, so that the other tests keep them
            dstk.dask.reuse_buffers,
            {"max_idle_bytes": 256 * 2**20, "max_idle_seconds": 10.0},
            {
                "max_idle_bytes": ["none", "scalar", "nan", "strings"],
                "max_idle_seconds": ["none", "nan", "inf", "strings"],
            },
        ),
    }


RECIPES = _recipes()

# (recipe, argument, kind) that do not apply, with the reason.
SKIP = {
    ("DaskMassFunction", "array", "empty"): "zero mass functions is a valid (empty) batch, as in memory",
    ("as_dask_mass", "masses", "empty"): "zero mass functions is a valid (empty) batch, as in memory",
    ("combine", "masses", "empty"): "zero samples combine to an empty batch, as dstk.combine does",
    ("combine_with_conflict", "masses", "empty"): "zero samples combine to an empty batch, as in memory",
}


def _names_argument(message, name):
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message) is not None


def _compute(result):
    if isinstance(result, dstk.dask.DaskMassFunction):
        return result.compute(scheduler="synchronous")
    if isinstance(result, tuple):
        return dask.compute(*result, scheduler="synchronous")
    if isinstance(result, da.Array):
        return result.compute(scheduler="synchronous")
    return result


def _call(func, valid, arg, bad):
    kwargs = dict(valid)
    kwargs[arg] = bad
    params = inspect.signature(func).parameters
    positional = [
        kwargs.pop(n)
        for n, p in list(params.items())
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and n in kwargs
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ComplexWarning or RuntimeWarning is not an answer
        return _compute(func(*positional, **kwargs))


def _cases():
    for key, (_func, _valid, kinds) in RECIPES.items():
        for arg, arg_kinds in kinds.items():
            for kind in arg_kinds:
                marks = [pytest.mark.skip(reason=SKIP[(key, arg, kind)])] if (key, arg, kind) in SKIP else []
                yield pytest.param(key, arg, kind, id=f"{key}-{arg}-{kind}", marks=marks)


def _expect_clear_error(call, arg, names=None):
    with pytest.raises((ValueError, TypeError)) as info:
        result = call()
        pytest.fail(f"bad `{arg}` silently accepted; returned {type(result).__name__}")
    assert not isinstance(info.value, (AttributeError, KeyError, IndexError)) or isinstance(
        info.value, NotFittedError
    ), f"unclear {type(info.value).__name__}: {info.value}"
    message = str(info.value)
    assert any(_names_argument(message, n) for n in (names or [arg])), (
        f"message does not name `{arg}`: {message}"
    )
    return info.value


@pytest.mark.parametrize("key, arg, kind", list(_cases()))
def test_rejects_bad_array(key, arg, kind):
    func, valid, _ = RECIPES[key]
    _call(func, valid, arg, valid[arg])  # the recipe itself is valid
    # estimators hand X to their own checks, which name it after their own parameter (scores)
    names = [arg, "scores"] if arg == "X" else [arg]
    _expect_clear_error(lambda: _call(func, valid, arg, corrupt(valid[arg], kind)), arg, names)


def test_every_public_callable_has_a_recipe():
    public = [name for name in dstk.dask.__all__ if callable(getattr(dstk.dask, name))]
    missing = [name for name in public if name not in RECIPES]
    assert not missing, f"public callables of dstk.dask without a bad-input recipe: {missing}"


# -- the wrong kind of estimator, an unknown method, predict before fit -------------------------
@pytest.mark.parametrize(
    "function",
    [dstk.dask.predict_proba, dstk.dask.predict_mass, dstk.dask.predict_interval, dstk.dask.leaf_counts],
)
@pytest.mark.parametrize("estimator", [3, None, "zz", np.zeros(3)])
def test_something_that_is_not_an_estimator(function, estimator):
    error = _expect_clear_error(lambda: function(estimator, SCORES), "estimator")
    assert isinstance(error, TypeError)


def test_map_samples_with_an_unknown_method():
    calibrator = _calibrator()
    with pytest.raises(TypeError, match="`zz` method"):
        dstk.dask.map_samples(calibrator, "zz", SCORES)
    with pytest.raises(TypeError, match="`method` must be the name of a method"):
        dstk.dask.map_samples(calibrator, 3, SCORES)


def test_fit_random_trees_needs_random_decision_trees():
    with pytest.raises(TypeError, match="RandomDecisionTreesClassifier"):
        dstk.dask.fit_random_trees(BinningCalibrator(), X3, LABELS)


@pytest.mark.parametrize(
    "function, X",
    [
        (dstk.dask.predict_proba, SCORES),
        (dstk.dask.predict_mass, SCORES),
        (dstk.dask.predict_interval, SCORES),
        (dstk.dask.leaf_counts, X3),
    ],
)
def test_predict_before_fit(function, X):
    estimator = RandomDecisionTreesClassifier() if function is dstk.dask.leaf_counts else BinningCalibrator()
    with pytest.raises(NotFittedError):
        function(estimator, X)


# -- mismatched lengths, labels outside the frame, options ---------------------------------------
def test_fit_random_trees_with_mismatched_lengths():
    estimator = RandomDecisionTreesClassifier(n_estimators=2)
    for X, y in [(X3, LABELS[:-1]), (da.from_array(X3, chunks=8), LABELS[:-1])]:
        _expect_clear_error(lambda X=X, y=y: dstk.dask.fit_random_trees(estimator, X, y, n_tasks=2), "y")


def test_combine_sources_with_mismatched_batch_shapes():
    one = dstk.dask.DaskMassFunction(MASSES[:, 0], frame=(0, 1))
    other = dstk.dask.DaskMassFunction(MASSES[:5, 0], frame=(0, 1))
    with pytest.raises(ValueError, match="batch shape"):
        dstk.dask.combine([one, other])


def test_combine_sources_on_different_frames():
    from dstk.exceptions import FrameMismatchError

    one = dstk.dask.DaskMassFunction(MASSES[:, 0], frame=(0, 1))
    other = dstk.dask.DaskMassFunction(MASSES[:, 0], frame=("a", "b"))
    with pytest.raises(FrameMismatchError):
        dstk.dask.combine([one, other])


@pytest.mark.parametrize("method", ["bel", "pl"])
def test_labels_outside_the_frame_raise_at_once(method):
    masses = dstk.dask.DaskMassFunction(MASSES[:, 0], frame=(0, 1))
    with pytest.raises(FrameError, match="`subset`"):
        getattr(masses, method)({"z"})  # no compute: raised when the graph is built
    np.testing.assert_allclose(
        getattr(masses, method)({1}).compute(scheduler="synchronous"), 0.2 if method == "bel" else 0.5
    )


def test_bel_of_an_integer_label_is_the_label_not_a_bitmask():
    masses = dstk.dask.DaskMassFunction(MASSES[:, 0], frame=(0, 1))
    in_memory = masses.compute(scheduler="synchronous")
    for label in (0, 1):
        np.testing.assert_allclose(masses.bel(label).compute(scheduler="synchronous"), in_memory.bel(label))
        np.testing.assert_allclose(masses.pl(label).compute(scheduler="synchronous"), in_memory.pl(label))


def test_unknown_kind_raises_at_once():
    masses = dstk.dask.DaskMassFunction(MASSES[:, 0], frame=(0, 1))
    with pytest.raises(ValueError, match="`kind`"):
        masses.to_array("zz")


@pytest.mark.parametrize(
    "options, name",
    [
        ({"rule": "zz"}, "rule"),
        ({"rule": ["dempster"]}, "rule"),
        ({"reduction": "zz"}, "reduction"),
        ({"weights": [1, 2, 3]}, "weights"),  # weights are for the average rule only, as in memory
        ({"normalize": True}, "normalize"),  # normalize is for the cautious rule only
        ({"rule": "average", "weights": [1, 2]}, "weights"),
        ({"rule": "average", "weights": [1, np.nan, 2]}, "weights"),
        ({"axis": 0.5}, "axis"),
        ({"axis": 5}, "axis"),
        ({"split_every": 1}, "split_every"),
        ({"split_every": 2.5}, "split_every"),
        ({"frame": None}, "frame"),
        ({"on_conflict": "zz"}, "on_conflict"),
        ({"on_conflict": "vacuous", "reduction": "tree"}, "on_conflict"),
    ],
)
def test_combine_rejects_bad_options(options, name):
    kwargs = {"frame": (0, 1), "axis": 1, **options}
    _expect_clear_error(lambda: _compute(dstk.dask.combine(MASSES, **kwargs)), name)


@pytest.mark.parametrize(
    "function", [dstk.dask.combine_leaves, dstk.dask.combine_leaves_proba, dstk.dask.combine_leaves_to_mass]
)
def test_unknown_combiner_raises_at_once(function):
    counts = da.from_array(COUNTS, chunks=(2, 3, 2))
    with pytest.raises(ValueError, match="zz"):
        function(counts, combiner="zz")  # no compute


def test_a_string_where_masses_are_expected():
    error = _expect_clear_error(lambda: dstk.dask.combine("zz", frame=(0, 1)), "masses")
    assert isinstance(error, DataTypeError)
    _expect_clear_error(lambda: dstk.dask.as_dask_mass({"a": 1.0}, frame="ab"), "masses")
    _expect_clear_error(lambda: dstk.dask.combine([], frame=(0, 1)), "masses")
