"""The two storage forms behind MassFunction: every operation gives the same result in both.

A random mass function is built densely and, on the same frame, in the
focal-set form (``MassFunction._sparse``, which small frames otherwise never
use); each operation of the API runs on both and the results are compared
(to rounding: the forms sum in different orders).  A structural test checks
that MassFunction itself never branches on the form outside construction.
"""

import ast
import inspect
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk import Frame, MassFunction
from dstk.core import (
    _mass,
    _storage,
    admissible_actions,
    combine_with_conflict,
    decide,
    jousselme_distance,
    lower_upper_expectations,
    nonspecificity,
)
from dstk.exceptions import ConflictWarning, InvalidMassError

ATOL = 1e-12


def _both_forms(values, frame):
    dense = MassFunction.from_array(values, frame)
    focal, masses = dense._focal_form()
    sparse = MassFunction._sparse(focal, masses, frame)
    assert dense.is_dense and not sparse.is_dense
    return dense, sparse


def _random_masses(rng, n, batch_shape, zero_fraction, empty):
    values = rng.random(batch_shape + (1 << n,))
    values[rng.random(values.shape) < zero_fraction] = 0.0
    values[..., -1] += 0.05  # non-dogmatic: weights and the cautious rule are defined
    if not empty:
        values[..., 0] = 0.0
    return values / values.sum(axis=-1, keepdims=True)


def _outcome(function):
    """The result of ``function()`` as plain data, or the type of the exception it raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConflictWarning)
        try:
            result = function()
        except Exception as error:  # the same error in both forms is part of the contract
            return ("error", type(error))
    return _plain(result)


def _plain(result):
    if isinstance(result, MassFunction):
        return ("mass", result.batch_shape, result.to_array())
    if isinstance(result, tuple):
        return tuple(_plain(x) for x in result)
    if isinstance(result, dict):
        return {k: _plain(v) for k, v in result.items()}
    if isinstance(result, (list, np.ndarray, float, int, np.floating, np.integer, bool, np.bool_)):
        return np.asarray(result)
    return result


def _assert_same(a, b, where):
    if isinstance(a, tuple) and a and isinstance(a[0], str) and a[0] == "error":
        assert a == b, where
    elif isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), where
        for x, y in zip(a, b):
            _assert_same(x, y, where)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            _assert_same(a[key], b[key], where)
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.shape == b.shape, where
        if a.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=0, atol=ATOL, err_msg=str(where))
        else:
            np.testing.assert_array_equal(a, b, err_msg=str(where))
    else:
        assert a == b, where


def _nan_rows(result):
    """(masses, conflict) with every mass of a row NaN when one is.

    ``on_conflict="nan"`` sets the stored masses of a row to NaN: all ``2**n``
    in the dense form, the focal sets' in the focal-set form (the other
    subsets read as 0 in ``to_array``).
    """
    combined, kappa = result
    values = combined.to_array()
    values[np.any(np.isnan(values), axis=-1)] = np.nan
    return values, kappa


def _operations(m):
    """Every operation of the API on ``m`` (name -> thunk)."""
    frame = m.frame
    n = frame.n
    subsets = [frame.labels[0], frame.labels[:2], frame.labels, [], frame.labels[1:]]
    utility = np.arange(2 * n, dtype=float).reshape(2, n) % 3
    other = m.discount(0.25)
    ops = {
        "to_array m": lambda: m.to_array("m"),
        "to_array bel": lambda: m.to_array("bel"),
        "to_array pl": lambda: m.to_array("pl"),
        "to_array q": lambda: m.to_array("q"),
        "to_array b": lambda: m.to_array("b"),
        "conjunctive weights": lambda: m.conjunctive_weights(),
        "mass": lambda: [m[s] for s in subsets],
        "bel": lambda: [m.bel(s) for s in subsets],
        "pl": lambda: [m.pl(s) for s in subsets],
        "q": lambda: [m.q(s) for s in subsets],
        "b": lambda: [m.b(s) for s in subsets],
        "conflict": lambda: m.conflict,
        "specificity": lambda: m.specificity(),
        "nonspecificity": lambda: m.nonspecificity(),
        "pignistic": lambda: m.pignistic(),
        "pignistic by label": lambda: m.pignistic_by_label(),
        "contour": lambda: m.contour(),
        "plausibility transform": lambda: m.plausibility_transform(),
        "discount": lambda: m.discount(0.3),
        "discount per sample": lambda: m.discount(np.full(m.batch_shape, 0.2)),
        "contextual discount": lambda: m.contextual_discount(np.linspace(0.0, 1.0, n)),
        "normalize": lambda: m.normalize(),
        "condition": lambda: m.condition(frame.labels[:2]),
        "condition unnormalised": lambda: m.condition(frame.labels[1:], normalize=False),
        "extend": lambda: m.extend([*frame.labels, "new"]),
        "extend impossible": lambda: m.extend([*frame.labels, "new"], new_labels="impossible"),
        "extend product": lambda: m.extend_product(["x", "y"]),
        "reshape": lambda: m.reshape(-1),
        "broadcast": lambda: m.broadcast_to((2,) + m.batch_shape),
        "stack": lambda: MassFunction.stack([m, other]),
        "stack last": lambda: MassFunction.stack([m, other], axis=-1),
        "equal": lambda: (m == other, m == m),
        "allclose": lambda: (m.allclose(other), m.allclose(m, atol=0.0)),
        "to_dict": lambda: MassFunction.from_dict(m.to_dict()),
        "json": lambda: MassFunction.from_json(m.to_json()),
        "pickle": lambda: pickle.loads(pickle.dumps(m)),
        "copy": lambda: MassFunction(m),
        "decide pignistic": lambda: decide(m),
        "decide belief": lambda: decide(m, "belief"),
        "decide plausibility": lambda: decide(m, "plausibility"),
        "decide maximin": lambda: decide(m, "maximin", utility=utility),
        "interval dominance": lambda: admissible_actions(m, criterion="interval_dominance", utility=utility),
        "expectations": lambda: lower_upper_expectations(m, utility),
        "jousselme": lambda: jousselme_distance(m, other),
        "uncertainty": lambda: nonspecificity(m.normalize()),
    }
    for rule in ("dempster", "conjunctive", "disjunctive", "yager", "average", "cautious", "dubois_prade"):
        ops[f"combine {rule}"] = lambda rule=rule: combine_with_conflict([m, other], rule=rule)
        ops[f"combine three {rule}"] = lambda rule=rule: combine_with_conflict(
            [m, other, other.discount(0.5)], rule=rule
        )
        if m.batch_shape:
            ops[f"fold {rule}"] = lambda rule=rule: combine_with_conflict(other, rule=rule, axis=0)
    categorical = MassFunction.categorical(frame.labels[0], frame, batch_shape=m.batch_shape)
    for policy in ("vacuous", "nan", "raise"):
        ops[f"total conflict {policy}"] = lambda policy=policy: _nan_rows(
            combine_with_conflict(
                [m.condition(frame.labels[1:]), categorical], rule="dempster", on_conflict=policy
            )
        )
    if not m.batch_shape:
        ops["focal sets"] = lambda: {tuple(sorted(k)): v for k, v in m.focal_sets().items()}
        ops["focal sets above"] = lambda: {tuple(sorted(k)): v for k, v in m.focal_sets(0.1).items()}
        ops["core"] = lambda: sorted(m.core())
        ops["repr"] = lambda: repr(m)
    else:
        ops["first"] = lambda: m.batch[0]
        ops["slice"] = lambda: m.batch[1:]
        ops["rows"] = lambda: tuple(m)
    return ops


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(1, 5),
    batch_shape=st.sampled_from([(), (1,), (3,), (2, 3)]),
    zero_fraction=st.sampled_from([0.0, 0.5, 0.9]),
    empty=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_operation_agrees_in_both_forms(n, batch_shape, zero_fraction, empty, seed):
    rng = np.random.default_rng(seed)
    values = _random_masses(rng, n, batch_shape, zero_fraction, empty)
    dense, sparse = _both_forms(values, Frame([f"l{i}" for i in range(n)]))
    dense_ops, sparse_ops = _operations(dense), _operations(sparse)
    for name in dense_ops:
        a, b = _outcome(dense_ops[name]), _outcome(sparse_ops[name])
        if name == "decide pignistic" and not isinstance(a, tuple) and not isinstance(b, tuple):
            a, b = np.asarray(a), _ties_resolved_as(np.asarray(a), np.asarray(b), dense)
        _assert_same(a, b, name)


def _ties_resolved_as(a, b, m):
    """``b`` with ``a``'s label wherever the two pignistic decisions differ only within rounding.

    Labels whose BetP are equal in exact arithmetic can differ by an ulp in one form (the two forms
    sum in different orders), and argmax then picks either; elsewhere ``b`` is kept, to be compared.
    """
    betp = np.asarray(m.pignistic())
    index = {label: i for i, label in enumerate(m.frame.labels)}
    ia = np.vectorize(index.__getitem__, otypes=[int])(a)
    ib = np.vectorize(index.__getitem__, otypes=[int])(b)
    gap = np.abs(
        np.take_along_axis(betp, ia[..., None], axis=-1) - np.take_along_axis(betp, ib[..., None], axis=-1)
    )[..., 0]
    return np.where((a != b) & (gap <= ATOL), a, b)


@pytest.mark.parametrize("batch_shape", [(), (4,)])
def test_operations_keep_the_form(batch_shape):
    rng = np.random.default_rng(1)
    dense, sparse = _both_forms(_random_masses(rng, 3, batch_shape, 0.5, True), Frame("abc"))
    for m in (dense, sparse):
        results = [m.discount(0.2), m.normalize(), m.condition("ab", normalize=False), m.reshape(-1)]
        results += [m.broadcast_to((2,) + batch_shape), pickle.loads(pickle.dumps(m)), MassFunction(m)]
        if batch_shape:
            results += [m.batch[1:], m.batch[0]]
        assert all(r.is_dense == m.is_dense for r in results)


def test_nbytes_counts_the_stored_arrays():
    frame = Frame(range(3))
    dense, sparse = _both_forms(np.tile([0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5], (4, 1)), frame)
    assert dense.nbytes == 4 * 8 * 8
    assert sparse.nbytes == 4 * 2 * 8 + 2 * 8  # masses of two focal sets, and their bitmasks
    big = MassFunction.from_focal_sets([1, 2, 3], np.full((5, 3), 1 / 3), Frame(range(40)))
    assert big.nbytes == 5 * 3 * 8 + 3 * 8


def test_storage_classes_share_one_interface():
    def interface(cls):
        return {
            name
            for klass in cls.__mro__
            if klass is not object
            for name in vars(klass)
            if not name.startswith("_")
        } | {name for name in cls.__slots__ if not name.startswith("_")}

    dense = interface(_storage.DenseStorage)
    focal = interface(_storage.FocalSetStorage)
    assert dense - {"masses"} == focal - {"focal", "masses"}
    for name in sorted(dense & focal):
        if name in _storage.Storage.__dict__ and isinstance(_storage.Storage.__dict__[name], property):
            continue
        dense_attr = getattr(_storage.DenseStorage, name)
        focal_attr = getattr(_storage.FocalSetStorage, name)
        if callable(dense_attr):
            assert list(inspect.signature(dense_attr).parameters) == list(
                inspect.signature(focal_attr).parameters
            ), name


def test_mass_function_never_branches_on_the_form():
    """Outside construction, MassFunction delegates to its storage instead of testing the form."""
    tree = ast.parse(inspect.getsource(_mass))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "MassFunction")
    construction = {"__init__", "from_focal_sets"}
    form_names = {"is_dense", "_m", "_fm", "_focal", "DenseStorage", "FocalSetStorage", "DENSE_MAX_LABELS"}
    offenders = []
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef) or method.name in construction:
            continue
        for node in ast.walk(method):
            if isinstance(node, (ast.If, ast.IfExp)):
                names = {getattr(x, "attr", getattr(x, "id", None)) for x in ast.walk(node.test)}
                if names & form_names:
                    offenders.append(f"{method.name}:{node.lineno}")
    assert not offenders, offenders


def test_old_pickles_still_load():
    """Pickles made before the storage classes name MassFunction._dense / _sparse: both still exist."""
    frame = Frame("abc")
    values = np.array([0.0, 0.2, 0.0, 0.3, 0.0, 0.0, 0.0, 0.5])
    dense = MassFunction._dense(values, frame)
    sparse = MassFunction._sparse(np.array([1, 3, 7], dtype=np.uint64), np.array([0.2, 0.3, 0.5]), frame)
    assert dense == sparse
    state = {
        "frame": frame,
        "m": None,
        "focal": np.array([1, 7], dtype=np.uint64),
        "fm": np.array([0.4, 0.6]),
    }
    restored = MassFunction.__new__(MassFunction)
    restored.__setstate__(state)  # the attribute dictionary skops stores
    assert not restored.is_dense and restored[{"a"}] == 0.4
    assert restored.__getstate__().keys() == state.keys()


def test_core_of_a_batch_is_a_clear_error():
    m = MassFunction.from_array(np.full((2, 4), 0.25), Frame("ab"))
    for form in _both_forms(m.to_array(), m.frame):
        with pytest.raises(ValueError, match=r"core\(\) needs a single mass function.*m\.batch\[i\]"):
            form.core()
        assert form.batch[1].core() == frozenset("ab")


def test_deferred_dense_storage_checks_at_first_use():
    good = np.full((3, 4), 0.25)
    storage = _storage.DeferredDenseStorage(good)
    assert storage.pending() is good and storage.is_dense
    assert storage.masses is good  # the check ran: no copy of valid float64 masses
    assert storage.pending() is None
    marked = _storage.DeferredDenseStorage(good)
    marked.mark_checked()  # what a fold that checked every row calls
    assert marked.pending() is None and marked.masses is good
    bad = MassFunction._from_storage(_storage.DeferredDenseStorage(np.full((3, 4), 0.5)), Frame("ab"))
    with pytest.raises(InvalidMassError, match="sum to 2"):
        bad.pignistic()


def test_an_empty_batch_survives_the_dictionary_and_json_forms():
    from dstk import Frame, MassFunction

    for empty in (
        MassFunction.from_array(np.zeros((0, 4)), "ab"),
        MassFunction.from_array(np.zeros((2, 0, 8)), "abc"),
        MassFunction.from_focal_sets([Frame(range(18)).full], np.zeros((0, 1)), Frame(range(18))),
    ):
        back = MassFunction.from_json(empty.to_json())
        assert back.batch_shape == empty.batch_shape and back.frame == empty.frame
        assert MassFunction.from_dict(empty.to_dict()).batch_shape == empty.batch_shape
