"""Every public callable x every kind of bad input -> a documented error whose message names the argument.

The callables are enumerated from the public subpackages' ``__all__``, so a new
public name without a recipe here fails ``test_every_public_callable_has_a_recipe``.
Each recipe gives valid arguments; each bad-input kind replaces one argument.
"""

from __future__ import annotations

import importlib
import inspect
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import dstk
from dstk.exceptions import NotFittedError

SUBPACKAGES = [
    "dstk.core",
    "dstk.evidence",
    "dstk.reasoning",
    "dstk.calibration",
    "dstk.calibration.probabilistic",
    "dstk.multiclass",
    "dstk.ensemble",
    "dstk.classifiers",
    "dstk.metrics",
    "dstk.plot",
]

RNG = np.random.default_rng(0)
SCORES = RNG.normal(size=24)
LABELS = np.tile([0, 1], 12)
PROBA = np.tile([[0.7, 0.3], [0.2, 0.8]], (12, 1))
X3 = RNG.normal(size=(30, 3))
Y3 = np.repeat([0, 1, 2], 10)
SCORE_MATRIX = np.abs(RNG.normal(size=(30, 3)))
SETS = np.tile([[1, 0], [1, 1]], (12, 1)).astype(bool)
COUNTS = np.array([[3, 1], [0, 4], [2, 2]])
MASS = dstk.MassFunction({"a": 0.5, "ab": 0.5}, frame="ab")
BINARY_MASSES = np.array([[[0, 0.2, 0.5, 0.3], [0, 0.5, 0.2, 0.3], [0, 0.3, 0.3, 0.4]]] * 2)

# ----------------------------------------------------------------------------- kinds of bad input
ARRAY_KINDS = ["nan", "inf", "empty", "wrong_shape", "complex", "strings", "none", "ragged", "sparse"]


def corrupt(value, kind):
    arr = np.asarray(value, dtype=float)
    if kind == "nan":
        out = arr.copy()
        out.flat[0] = np.nan
        return out
    if kind == "inf":
        out = arr.copy()
        out.flat[0] = np.inf
        return out
    if kind == "empty":
        return np.empty((0,) + arr.shape[1:])
    if kind == "wrong_shape":
        return np.zeros((2, 3, 4, 5))
    if kind == "complex":
        return arr + 1j
    if kind == "strings":
        return np.full(arr.shape, "a")
    if kind == "none":
        return None
    if kind == "ragged":
        return [[1.0], [1.0, 2.0]]
    if kind == "sparse":
        return sp.csr_matrix(np.atleast_2d(arr))
    raise AssertionError(kind)


MASS_KINDS = ["none", "array", "string", "list"]


def corrupt_mass(kind):
    # an array of masses has no frame: converting it would guess the labels, so it is refused too
    return {"none": None, "array": np.array([0, 0.5, 0.5, 0]), "string": "zz", "list": [0, 0.5, 0.5, 0]}[kind]


def test_a_dict_is_converted_to_a_mass_function():
    from dstk.core import pignistic

    np.testing.assert_allclose(pignistic({"a": 0.5, "a,b": 0.5}), [0.75, 0.25])


# ----------------------------------------------------------------------------- recipes for functions
def _core():
    c = importlib.import_module("dstk.core")
    m = MASS
    r = {
        "combine": (c.combine, {"masses": [m, m]}, {}),
        "combine_with_conflict": (c.combine_with_conflict, {"masses": [m, m]}, {}),
        "discount": (c.discount, {"m": m, "rate": 0.1}, {"rate": ["nan", "complex", "strings", "none"]}),
        "contextual_discount": (c.contextual_discount, {"m": m, "rates": [0.1, 0.2]}, {"rates": ARRAY_KINDS}),
        "condition": (c.condition, {"m": m, "subset": {"a"}}, {}),
        "inverse_pignistic": (c.inverse_pignistic, {"p": [0.5, 0.5]}, {"p": ARRAY_KINDS}),
        "consonant_from_contour": (
            c.consonant_from_contour,
            {"contour": [1.0, 0.5]},
            {"contour": ARRAY_KINDS},
        ),
        "decide": (
            c.decide,
            {"m": m, "utility": [[1.0, 0.0], [0.5, 0.5]]},
            {"utility": ["nan", "inf", "empty", "wrong_shape", "complex", "strings", "ragged", "sparse"]},
        ),
        "admissible_actions": (
            c.admissible_actions,
            {"m": m, "criterion": "e_admissibility", "utility": [[1.0, 0.0], [0.5, 0.5]]},
            {"utility": ["nan", "inf", "empty", "wrong_shape", "complex", "strings", "ragged", "sparse"]},
        ),
        "owa_weights": (
            c.owa_weights,
            {"cardinality": 3, "orness": 0.3},
            {"orness": ["nan", "strings", "none"]},
        ),
        "lower_upper_expectations": (
            c.lower_upper_expectations,
            {"m": m, "utility": [[1.0, 0.0]]},
            {"utility": ["nan", "complex", "strings", "none", "ragged"]},
        ),
        "jousselme_distance": (c.jousselme_distance, {"m1": m, "m2": m}, {}),
        "conflict": (c.conflict, {"m1": m, "m2": m}, {}),
        "weight_of_conflict": (c.weight_of_conflict, {"masses": [m, m]}, {}),
        "shannon_entropy": (c.shannon_entropy, {"p": [0.5, 0.5]}, {"p": ARRAY_KINDS}),
        "uncertainty_decomposition": (c.uncertainty_decomposition, {"m": m}, {}),
        "fuse_opinions": (
            c.fuse_opinions,
            {"opinions": [c.Opinion.from_evidence([1.0, 2.0]), c.Opinion.from_evidence([0.0, 3.0])]},
            {},
        ),
        "trust_discount": (
            c.trust_discount,
            {"opinion": c.Opinion.from_evidence([1.0, 2.0]), "trust": 0.5},
            {"trust": ["nan", "inf", "complex", "strings", "none"]},
        ),
        "Opinion.from_evidence": (
            c.Opinion.from_evidence,
            {"evidence": [1.0, 2.0]},
            {"evidence": ARRAY_KINDS},
        ),
        "Opinion.from_dirichlet": (c.Opinion.from_dirichlet, {"alpha": [1.0, 2.0]}, {"alpha": ARRAY_KINDS}),
    }
    for name in [
        "pignistic",
        "plausibility_transform",
        "contour",
        "normalize",
        "nonspecificity",
        "aggregate_uncertainty",
        "maximum_entropy_probability",
        "jirousek_shenoy_entropy",
        "discord",
        "strife",
    ]:
        r[name] = (getattr(c, name), {"m": m}, {})
    return r


def _evidence():
    e = importlib.import_module("dstk.evidence")
    return {
        "clopper_pearson_interval": (e.clopper_pearson_interval, {"counts": COUNTS}, {"counts": ARRAY_KINDS}),
        "from_counts": (e.from_counts, {"counts": COUNTS}, {"counts": ARRAY_KINDS}),
        "plausibility_degrees": (e.plausibility_degrees, {"counts": COUNTS}, {"counts": ARRAY_KINDS}),
    }


def _reasoning():
    r = importlib.import_module("dstk.reasoning")
    number = r.GaussianRandomFuzzyNumber(0.0, 1.0, 1.0)
    x, y = r.Variable("x", ["u", "v"]), r.Variable("y", ["a", "b"])
    return {
        # numbers are objects, not arrays: tests/reasoning/test_grfn.py checks what is not a number
        "combine_grfn": (r.combine_grfn, {"numbers": [number, number]}, {}),
        "conditional_embedding": (
            r.conditional_embedding,
            {"conditional": MASS, "given": x, "condition": ["u"], "target": y},
            {},
        ),
        "generalized_bayes": (
            r.generalized_bayes,
            {"conditionals": {"u": MASS, "v": MASS}, "observation": MASS, "given": x, "target": y},
            {},
        ),
    }


def _calibration():
    c = importlib.import_module("dstk.calibration")
    return {
        "conformal_p_values": (
            c.conformal_p_values,
            {"calibration_scores": SCORES, "test_scores": PROBA[:5]},
            {"calibration_scores": ARRAY_KINDS, "test_scores": ARRAY_KINDS},
        ),
        "implied_weights": (
            c.implied_weights,
            {"levels": [0.2, 0.5, 0.8], "n_positive": 10, "n_negative": 12},
            {"levels": ARRAY_KINDS},
        ),
        "one_vs_rest_masses": (
            c.one_vs_rest_masses,
            {"binary_masses": BINARY_MASSES},
            {"binary_masses": ARRAY_KINDS},
        ),
        "refine_one_vs_rest": (
            c.refine_one_vs_rest,
            {"binary_masses": BINARY_MASSES[0]},
            {"binary_masses": ARRAY_KINDS},
        ),
        "vote_fraction": (
            c.vote_fraction,
            {"votes": np.array([[1, 0, 0.5], [1, 1, 0]])},
            {"votes": ARRAY_KINDS},
        ),
    }


def _multiclass():
    mc = importlib.import_module("dstk.multiclass")
    code = mc.one_vs_rest_code(3)
    tasks = np.full((4, 3), 0.4)
    return {
        "binary_tasks": (mc.binary_tasks, {"y_indices": Y3, "code": code}, {"code": ARRAY_KINDS}),
        "check_code_matrix": (mc.check_code_matrix, {"code": code}, {"code": ARRAY_KINDS}),
        "combine_task_probabilities": (
            mc.combine_task_probabilities,
            {"task_probabilities": tasks, "code": code},
            {"task_probabilities": ARRAY_KINDS, "code": ARRAY_KINDS},
        ),
        "couple_probabilities": (
            mc.couple_probabilities,
            {"task_probabilities": tasks, "code": code},
            {"task_probabilities": ARRAY_KINDS, "code": ARRAY_KINDS},
        ),
    }


def _ensemble():
    en = importlib.import_module("dstk.ensemble")
    counts = np.tile(COUNTS[None], (2, 1, 1))
    return {
        name: (getattr(en, name), {"counts": counts}, {"counts": ARRAY_KINDS})
        for name in ["combine_leaves", "combine_leaves_proba", "combine_leaves_to_mass"]
    }


def _metrics():
    mt = importlib.import_module("dstk.metrics")
    r = {}
    for name in [
        "brier_score",
        "corp_decomposition",
        "reliability_bands",
        "calibration_measure",
        "correctness_rate",
        "dirichlet_selection_criterion",
        "expected_calibration_error",
        "garczarek_accuracy",
        "one_minus_rmse",
        "well_calibration_ratio",
    ]:
        r[name] = (
            getattr(mt, name),
            {"y_true": LABELS, "probabilities": PROBA},
            {"probabilities": ARRAY_KINDS, "y_true": ["none", "complex", "mismatched"]},
        )
    r["reliability_bins"] = (
        mt.reliability_bins,
        {"y_true": LABELS, "probabilities": PROBA[:, 1]},
        {"probabilities": ARRAY_KINDS, "y_true": ["none", "complex", "mismatched"]},
    )
    for name in ["isotonic_calibration_score", "roc_auc"]:
        r[name] = (
            getattr(mt, name),
            {"y_true": LABELS, "scores": SCORES},
            {"scores": ARRAY_KINDS, "y_true": ["none", "complex", "mismatched"]},
        )
    for name in ["discounted_accuracy", "u65_score", "u80_score", "utility_discounted_accuracy"]:
        r[name] = (
            getattr(mt, name),
            {"y_true": LABELS, "prediction_sets": SETS},
            {"prediction_sets": ARRAY_KINDS, "y_true": ["none", "complex", "mismatched"]},
        )
    r["ability_to_separate"] = (
        mt.ability_to_separate,
        {"probabilities": PROBA},
        {"probabilities": ARRAY_KINDS},
    )
    lo, hi = np.zeros(5), np.ones(5)
    r["interval_width"] = (
        mt.interval_width,
        {"lower": lo, "upper": hi},
        {"lower": ARRAY_KINDS, "upper": ARRAY_KINDS},
    )
    r["interval_coverage"] = (
        mt.interval_coverage,
        {"lower": lo, "upper": hi, "reference": lo + 0.5},
        {"lower": ARRAY_KINDS, "reference": ARRAY_KINDS},
    )
    r["interval_score"] = (
        mt.interval_score,
        {"lower": lo, "upper": hi, "observed": lo + 0.5},
        {"lower": ARRAY_KINDS, "observed": ARRAY_KINDS},
    )
    return r


def _plot():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    pl = importlib.import_module("dstk.plot")
    batch = dstk.MassFunction.from_array(np.tile([0.0, 0.3, 0.2, 0.5], (4, 1)), (0, 1))
    return {
        "plot_mass": (pl.plot_mass, {"m": MASS}, {}),
        "plot_intervals": (pl.plot_intervals, {"m": MASS}, {}),
        "plot_intervals_x": (pl.plot_intervals, {"m": batch, "x": [0.1, 0.2, 0.3, 0.4]}, {"x": ARRAY_KINDS}),
        "plot_ternary": (
            pl.plot_ternary,
            {"values": np.tile([0.2, 0.3, 0.5], (4, 1))},
            {"values": ARRAY_KINDS},
        ),
    }


def function_recipes():
    recipes = {}
    for module, build in [
        ("dstk.core", _core),
        ("dstk.evidence", _evidence),
        ("dstk.reasoning", _reasoning),
        ("dstk.calibration", _calibration),
        ("dstk.multiclass", _multiclass),
        ("dstk.ensemble", _ensemble),
        ("dstk.metrics", _metrics),
        ("dstk.plot", _plot),
    ]:
        for name, recipe in build().items():
            recipes[f"{module}.{name}"] = recipe
    return recipes


FUNCTIONS = function_recipes()

# Public callables that take no array or mass-function data (integer sizes, options, callables), or result
# types; their arguments are checked by their own unit tests.
NOT_DATA_FUNCTIONS = {
    "desirability": "takes scalars (*values), tested in tests/metrics",
    "figure4_data": "reproduces a paper figure from integer parameters",
    "predictive_mass": "takes a contour callable, not an array",
    "predictive_mass_quadrature": "takes a contour callable, not an array",
    "predictive_mass_monte_carlo": "takes a contour callable, not an array",
    "svm_taxonomy_edges": "takes an integer",
    "all_pairs_code": "takes an integer",
    "complete_code": "takes an integer",
    "complete_code_size": "takes an integer",
    "make_code": "takes a code name and an integer",
    "one_vs_rest_code": "takes an integer",
    "sparse_code_size": "takes an integer",
    "sparse_code_success_probability": "takes integers",
    "sparse_column_validity_probability": "takes an integer",
    "sparse_random_code": "takes integers",
    "pairwise_masses": "internal layout of pairwise tasks, tested in tests/calibration",
    "venn_machine_transductive": "wraps VennMachineCalibrator (covered as an estimator)",
    "combine_classifiers": "takes fitted classifiers; covered by tests/calibration/test_combination.py",
    "sklearn_leaf_counts": "takes a fitted scikit-learn forest; its X goes to scikit-learn's own checks",
    "logistic_evidence": "takes a fitted scikit-learn linear model; its X goes to scikit-learn's own checks",
    "plot_count_models": "takes option values only (which panel, sizes); tested in tests/plot",
    "plot_cumulative_belief": "takes a BinomialLikelihood; its bel/pl checks are tested in tests/evidence",
    "plot_grfn_contour": "takes a GaussianRandomFuzzyNumber; its checks are tested in tests/plot/test_grfn.py",
    "plot_grfn_intervals": "takes a GaussianRandomFuzzyNumber; its checks are tested in tests/plot/test_grfn.py",
    "plot_grfn_cumulative": "takes a GaussianRandomFuzzyNumber; its checks are tested in tests/plot/test_grfn.py",
    "plot_logistic_contour": "takes a LogisticLikelihood object, tested in tests/plot",
    "plot_predictive_contour": "takes a contour callable or likelihood object, tested in tests/plot",
    "plot_calibration_curves": "takes fitted calibrators, tested in tests/plot",
    "reliability_diagram": "takes reliability_bands results, whose inputs are in this table (metrics)",
    "plot_leaf_score_evolution": "takes simulation parameters, tested in tests/plot",
    "plot_combiner_score_evolution": "takes simulation parameters, tested in tests/plot",
}

# (callable, argument, kind) that do not apply, with the reason.
SKIP = {
    ("dstk.ensemble.combine_leaves", "counts", "wrong_shape"): "4-D counts are a valid batch",
    ("dstk.ensemble.combine_leaves_proba", "counts", "wrong_shape"): "4-D counts are a valid batch",
    ("dstk.ensemble.combine_leaves_to_mass", "counts", "wrong_shape"): "4-D counts are a valid batch",
    ("dstk.evidence.from_counts", "counts", "wrong_shape"): "counts may have any batch shape",
    ("dstk.core.Opinion.from_evidence", "evidence", "wrong_shape"): "evidence may have any batch shape",
    ("dstk.core.Opinion.from_dirichlet", "alpha", "wrong_shape"): "alpha may have any batch shape",
    ("dstk.evidence.clopper_pearson_interval", "counts", "wrong_shape"): "counts may have any batch shape",
    ("dstk.evidence.plausibility_degrees", "counts", "wrong_shape"): "counts may have any batch shape",
    ("dstk.evidence.from_counts", "counts", "empty"): "zero samples is a valid (empty) batch",
    ("dstk.evidence.clopper_pearson_interval", "counts", "empty"): "zero samples is a valid (empty) batch",
    ("dstk.evidence.plausibility_degrees", "counts", "empty"): "zero samples is a valid (empty) batch",
    (
        "dstk.calibration.refine_one_vs_rest",
        "binary_masses",
        "empty",
    ): "zero samples is a valid (empty) batch",
    ("dstk.calibration.vote_fraction", "votes", "empty"): "zero samples is a valid (empty) batch",
    (
        "dstk.multiclass.combine_task_probabilities",
        "task_probabilities",
        "empty",
    ): "zero samples is a valid batch",
    (
        "dstk.calibration.one_vs_rest_masses",
        "binary_masses",
        "sparse",
    ): "a 2-D sparse matrix is not 3-D input",
    (
        "dstk.calibration.one_vs_rest_masses",
        "binary_masses",
        "empty",
    ): "zero samples is a valid (empty) batch",
    ("dstk.core.shannon_entropy", "p", "wrong_shape"): "p may have any batch shape",
    ("dstk.core.inverse_pignistic", "p", "wrong_shape"): "p may have any batch shape",
    ("dstk.core.consonant_from_contour", "contour", "wrong_shape"): "contours may have any batch shape",
    ("dstk.core.contextual_discount", "rates", "wrong_shape"): "rates broadcast against the batch",
    ("dstk.plot.plot_intervals_x", "x", "wrong_shape"): "x is flattened (any shape with one value per row)",
    ("dstk.plot.plot_intervals_x", "x", "sparse"): "a 1-D input has no sparse form",
    ("dstk.plot.plot_intervals_x", "x", "none"): "x=None is the documented default (sample index)",
}


def _public_functions():
    out = {}
    for module_name in SUBPACKAGES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                out.setdefault(name, f"{module_name}.{name}")
    return out


def test_every_public_callable_has_a_recipe():
    recipe_names = {key.rsplit(".", 1)[1] for key in FUNCTIONS}
    missing = [
        qualified
        for name, qualified in _public_functions().items()
        if name not in recipe_names and name not in NOT_DATA_FUNCTIONS
    ]
    assert not missing, f"public functions without a bad-input recipe: {missing}"
    missing_classes = [
        name for name in _public_estimators() if name not in ESTIMATORS and name not in NOT_ESTIMATORS
    ]
    assert not missing_classes, f"public estimators without a bad-input recipe: {missing_classes}"


def _names_argument(message, name):
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message) is not None


def _mass_argument_cases():
    for key, (_func, valid, _) in FUNCTIONS.items():
        for arg, value in valid.items():
            if value is MASS or (isinstance(value, list) and value and value[0] is MASS):
                for kind in MASS_KINDS:
                    yield pytest.param(key, arg, kind, id=f"{key}-{arg}-{kind}")


def _array_argument_cases():
    for key, (_func, valid, kinds) in FUNCTIONS.items():
        for arg, arg_kinds in kinds.items():
            for kind in arg_kinds:
                if kind == "sparse" and np.ndim(valid[arg]) > 2:
                    continue  # scipy sparse matrices are 2-D only
                marks = [pytest.mark.skip(reason=SKIP[(key, arg, kind)])] if (key, arg, kind) in SKIP else []
                yield pytest.param(key, arg, kind, id=f"{key}-{arg}-{kind}", marks=marks)


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
        return func(*positional, **kwargs)


def _expect_clear_error(func, valid, arg, bad, kind):
    with pytest.raises((ValueError, TypeError)) as info:
        result = _call(func, valid, arg, bad)
        pytest.fail(f"{kind} in `{arg}` silently accepted; returned {type(result).__name__}")
    assert not isinstance(info.value, (AttributeError, KeyError, IndexError)) or isinstance(
        info.value, NotFittedError
    ), f"unclear {type(info.value).__name__}: {info.value}"
    assert _names_argument(str(info.value), arg), f"message does not name `{arg}`: {info.value}"


@pytest.mark.parametrize("key, arg, kind", list(_array_argument_cases()))
def test_function_rejects_bad_array(key, arg, kind):
    func, valid, _ = FUNCTIONS[key]
    _call(func, valid, arg, valid[arg])  # the recipe itself is valid
    if kind == "mismatched":
        bad = np.asarray(valid[arg])[:-1]
    elif arg == "y_true" and kind == "complex":
        bad = np.asarray(valid[arg]) + 1j
    else:
        bad = corrupt(valid[arg], kind)
    _expect_clear_error(func, valid, arg, bad, kind)


@pytest.mark.parametrize("key, arg, kind", list(_mass_argument_cases()))
def test_function_rejects_what_is_not_a_mass_function(key, arg, kind):
    func, valid, _ = FUNCTIONS[key]
    bad = corrupt_mass(kind)
    if isinstance(valid[arg], list):
        bad = [valid[arg][0], bad]
    with pytest.raises((ValueError, TypeError)) as info:
        _call(func, valid, arg, bad)
    assert not isinstance(info.value, AttributeError), f"bare AttributeError: {info.value}"
    message = str(info.value)
    assert _names_argument(message, arg) or "MassFunction" in message, message


# ----------------------------------------------------------------------------- estimators
def _lr():
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression()


def _binary(cls, **kwargs):
    return ("scores", lambda: cls(**kwargs), SCORES, LABELS)


def _features(factory):
    return ("features", factory, X3, Y3)


def _estimators():
    c = importlib.import_module("dstk.calibration")
    mc = importlib.import_module("dstk.multiclass")
    cl = importlib.import_module("dstk.classifiers")
    en = importlib.import_module("dstk.ensemble")
    return {
        "AssignmentValueCalibrator": (
            "scores",
            lambda: c.AssignmentValueCalibrator(),
            1 / (1 + np.exp(-SCORES)),
            LABELS,
        ),
        "AsymmetricLaplaceBayesCalibrator": _binary(c.AsymmetricLaplaceBayesCalibrator),
        "BinningCalibrator": _binary(c.BinningCalibrator, bins=3),
        "GaussianBayesCalibrator": _binary(c.GaussianBayesCalibrator),
        "IsotonicCalibrator": _binary(c.IsotonicCalibrator),
        "IsotonicRegressionCalibrator": _binary(c.IsotonicRegressionCalibrator),
        "LogisticCalibrator": _binary(c.LogisticCalibrator),
        "PiecewiseLogisticCalibrator": _binary(c.PiecewiseLogisticCalibrator),
        "PlattCalibrator": _binary(c.PlattCalibrator),
        "VennAbersCalibrator": _binary(c.VennAbersCalibrator),
        "VennMachineCalibrator": _binary(c.VennMachineCalibrator, edges=3),
        "EvidentialCalibratedClassifier": _features(lambda: c.EvidentialCalibratedClassifier(_lr(), cv=2)),
        "EvidentialFusionClassifier": _features(
            lambda: c.EvidentialFusionClassifier([("lr", _lr()), ("lr2", _lr())], cv=2)
        ),
        "ImpliedPosteriorClassifier": (
            "features",
            lambda: c.ImpliedPosteriorClassifier(_lr(), n_models=3),
            X3,
            Y3 % 2,
        ),
        "ConformalBeliefClassifier": _features(lambda: c.ConformalBeliefClassifier(_lr(), random_state=0)),
        "VennMulticlassClassifier": _features(lambda: c.VennMulticlassClassifier(_lr(), random_state=0)),
        "CodeMatrixClassifier": _features(lambda: mc.CodeMatrixClassifier(_lr())),
        "DirichletCalibrator": ("score_matrix", lambda: mc.DirichletCalibrator(), SCORE_MATRIX, Y3),
        "MulticlassCalibrator": (
            "score_matrix",
            lambda: mc.MulticlassCalibrator(c.LogisticCalibrator()),
            SCORE_MATRIX,
            Y3,
        ),
        "SoftmaxCalibrator": _binary(c.SoftmaxCalibrator),
        "SimpleNormalization": _binary(c.SimpleNormalization),
        "EvidentialKNNClassifier": _features(lambda: cl.EvidentialKNNClassifier(n_neighbors=3)),
        "EvidentialNeuralNetworkClassifier": _features(
            lambda: cl.EvidentialNeuralNetworkClassifier(n_prototypes=2, max_iter=5)
        ),
        "RandomDecisionTreesClassifier": _features(
            lambda: en.RandomDecisionTreesClassifier(n_estimators=3, random_state=0)
        ),
        "EvidentialRegressor": (
            "features",
            lambda: cl.EvidentialRegressor(n_prototypes=2, max_iter=20, random_state=0),
            X3,
            Y3.astype(float),
        ),
    }


ESTIMATORS = _estimators()

NOT_ESTIMATORS = {
    "EvidentialCombination": "combines fitted calibrators; covered by tests/calibration/test_combination.py",
    "ContextualDiscountingCombiner": "takes a list of estimators; covered by tests/classifiers",
}

# Input that an estimator legitimately accepts.
ESTIMATOR_SKIP = {
    ("RandomDecisionTreesClassifier", "X", "nan"): "trees route missing values",
    ("RandomDecisionTreesClassifier", "X", "sparse"): "sparse X is supported",
    ("EvidentialCalibratedClassifier", "X", "sparse"): "sparse X is supported (passed to the base estimator)",
    ("ImpliedPosteriorClassifier", "X", "sparse"): "sparse X is supported (passed to the base estimator)",
    ("ConformalBeliefClassifier", "X", "sparse"): "sparse X is supported (passed to the base estimator)",
    ("VennMulticlassClassifier", "X", "sparse"): "sparse X is supported (passed to the base estimator)",
    ("CodeMatrixClassifier", "X", "sparse"): "sparse X is supported (passed to the base estimator)",
    ("EvidentialFusionClassifier", "X", "sparse"): "sparse X is supported (passed to the classifiers)",
    ("EvidentialRegressor", "y", "one_class"): "a constant target is a valid regression (its GRFN is fitted)",
}


# Meta-estimators hand X unchanged to their base estimator, which may take any input (a pipeline with
# encoders takes strings; scikit-learn's own checks reject None, NaN or ragged X with its messages).
META_ESTIMATORS = {
    "EvidentialCalibratedClassifier",
    "EvidentialFusionClassifier",
    "ImpliedPosteriorClassifier",
    "ConformalBeliefClassifier",
    "VennMulticlassClassifier",
    "CodeMatrixClassifier",
}
for _name in META_ESTIMATORS:
    for _kind in [
        "nan",
        "inf",
        "complex",
        "strings",
        "none",
        "ragged",
        "wrong_columns",
        "wrong_shape",
        "empty",
    ]:
        ESTIMATOR_SKIP[(_name, "X", _kind)] = "X goes unchanged to the base estimator, whose checks apply"


def _public_estimators():
    out = []
    for module_name in SUBPACKAGES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and hasattr(obj, "fit") and name not in out:
                out.append(name)
    return out


def _x_name(kind_of_input):
    return {"scores": "scores", "score_matrix": "scores", "features": "X"}[kind_of_input]


def _estimator_cases():
    for name, (inputs, _, _, _) in ESTIMATORS.items():
        for kind in ARRAY_KINDS:
            if inputs == "scores" and kind == "sparse":
                continue  # sparse 1-D does not exist
            marks = (
                [pytest.mark.skip(reason=ESTIMATOR_SKIP[(name, "X", kind)])]
                if (name, "X", kind) in ESTIMATOR_SKIP
                else []
            )
            yield pytest.param(name, "fit", "X", kind, id=f"{name}-fit-X-{kind}", marks=marks)
        for kind in ["none", "complex", "mismatched", "one_class"]:
            marks = (
                [pytest.mark.skip(reason=ESTIMATOR_SKIP[(name, "y", kind)])]
                if (name, "y", kind) in ESTIMATOR_SKIP
                else []
            )
            yield pytest.param(name, "fit", "y", kind, id=f"{name}-fit-y-{kind}", marks=marks)
        for kind in ["nan", "strings", "none", "wrong_columns"]:
            if inputs == "scores" and kind == "wrong_columns":
                continue
            marks = (
                [pytest.mark.skip(reason=ESTIMATOR_SKIP[(name, "X", kind)])]
                if (name, "X", kind) in ESTIMATOR_SKIP
                else []
            )
            yield pytest.param(name, "predict", "X", kind, id=f"{name}-predict-X-{kind}", marks=marks)
        yield pytest.param(name, "predict", "X", "before_fit", id=f"{name}-predict-before-fit")


_FITTED = {}


def _predict(estimator):
    for method in ("predict", "predict_proba", "decision_function"):
        if hasattr(estimator, method):
            return getattr(estimator, method)
    raise AssertionError(type(estimator).__name__)


def _fitted(name):
    if name not in _FITTED:
        _, factory, X, y = ESTIMATORS[name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _FITTED[name] = factory().fit(X, y)
    return _FITTED[name]


@pytest.mark.parametrize("name, method, arg, kind", list(_estimator_cases()))
def test_estimator_rejects_bad_input(name, method, arg, kind):
    inputs, factory, X, y = ESTIMATORS[name]
    x_name = _x_name(inputs)
    if method == "predict" and kind == "before_fit":
        with pytest.raises(NotFittedError):
            _predict(factory())(X)
        return
    if method == "fit":
        estimator = factory()
        if arg == "X":
            bad_X, bad_y = corrupt(X, kind), y
        else:
            bad_X = X
            bad_y = {
                "none": None,
                "complex": np.asarray(y) + 1j,
                "mismatched": np.asarray(y)[:-1],
                "one_class": np.zeros_like(y),
            }[kind]
        call = lambda: estimator.fit(bad_X, bad_y)  # noqa: E731
    else:
        estimator = _fitted(name)
        bad_X = np.zeros((4, X.shape[1] + 2)) if kind == "wrong_columns" else corrupt(X[:4], kind)
        call = lambda: _predict(estimator)(bad_X)  # noqa: E731
    with pytest.raises((ValueError, TypeError)) as info:
        with warnings.catch_warnings():
            warnings.simplefilter(
                "error", np.exceptions.ComplexWarning if hasattr(np, "exceptions") else Warning
            )
            call()
        pytest.fail(f"{kind} in `{arg}` of {name}.{method} silently accepted")
    message = str(info.value)
    names = (x_name, "X", "scores") if arg == "X" else ("y", "class", "classes")
    assert any(_names_argument(message, n) for n in names), f"message does not name `{arg}`: {message}"


@pytest.mark.parametrize("name", sorted(META_ESTIMATORS))
def test_meta_estimators_take_sparse_X_where_the_base_estimator_does(name):
    _, factory, X, y = ESTIMATORS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dense = factory().fit(X, y)
        fitted = factory().fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(_predict(fitted)(sp.csr_matrix(X)), _predict(dense)(X))


# ----------------------------------------------------------------------------- top-level functions
# Functions of the top-level package that take options only: (function, valid options, {argument: bad values}).
# Bad options must be refused before any work (compile_kernels compiles for minutes when called validly).
OPTION_FUNCTIONS = {
    "dstk.compile_kernels": (
        lambda **options: dstk.compile_kernels(**options),
        {"parts": "trees"},
        {"parts": ["nope", (), ("trees", 3), 3, [None]]},
    ),
}


@pytest.mark.parametrize(
    "key, arg, bad",
    [
        pytest.param(key, arg, bad, id=f"{key}-{arg}-{bad!r}")
        for key, (_f, _valid, bads) in OPTION_FUNCTIONS.items()
        for arg, values in bads.items()
        for bad in values
    ],
)
def test_option_function_rejects_bad_option(key, arg, bad):
    func, valid, _ = OPTION_FUNCTIONS[key]
    with pytest.raises((ValueError, TypeError)) as info:
        func(**{**valid, arg: bad})
    assert _names_argument(str(info.value), arg), f"message does not name `{arg}`: {info.value}"


def test_every_top_level_function_has_a_recipe():
    functions = [name for name in dstk.__all__ if inspect.isfunction(getattr(dstk, name))]
    in_subpackages = tuple(package + "." for package in SUBPACKAGES)
    own = [name for name in functions if not getattr(dstk, name).__module__.startswith(in_subpackages)]
    missing = [name for name in own if f"dstk.{name}" not in OPTION_FUNCTIONS]
    assert own and not missing, f"top-level functions without a bad-input recipe: {missing}"
