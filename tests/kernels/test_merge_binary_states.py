"""The one-pass merge of binary fold states (``merge_binary_states``), as the tree reductions of
``dstk.dask`` use it: checked against the conjunctive rule and Dempster's rule in exact rationals, against
merging in turn with the pair kernel, on rows read where they lie, and at float64's edges."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk._kernels import combination
from dstk._kernels.partial_combination import merge_binary_states


def fold_states(rng, rows, n_parts, *, normalize):
    """Binary states as the chunk folds leave them: masses (Dempster: normalised, slot 0 = 1 - K)."""
    states = []
    for _ in range(n_parts):
        values = rng.dirichlet(np.ones(4), size=rows)
        values[rng.random(rows) < 0.1, 3] = 0.0  # some dogmatic states
        values /= values.sum(axis=1, keepdims=True)
        if normalize:
            values[:, 1:] /= values[:, 1:].sum(axis=1, keepdims=True)
            values[:, 0] = rng.uniform(0.05, 1.0, size=rows)  # the chunk's 1 - K
        states.append(values)
    return states


def exact(states, r, normalize):
    """(m(empty) or 0, m({0}), m({1}), m(frame), conflict) of row ``r`` by the definition, in rationals."""
    q1 = q2 = q3 = carried = Fraction(1)
    for state in states:
        s = [Fraction(float(x)) for x in state[r]]
        q1 *= s[1] + s[3]
        q2 *= s[2] + s[3]
        q3 *= s[3]
        carried *= s[0]
    a1, a2 = q1 - q3, q2 - q3
    total = a1 + a2 + q3
    if normalize:
        return [0, a1 / total, a2 / total, q3 / total, 1 - total * carried]
    return [1 - total, a1, a2, q3, 1 - total]


@pytest.mark.parametrize("n_parts", [1, 2, 3, 5, 16])
@pytest.mark.parametrize("rule", ["conjunctive", "dempster", "yager"])
def test_merge_matches_exact_rationals(n_parts, rule):
    normalize = rule == "dempster"
    rng = np.random.default_rng(n_parts)
    states = fold_states(rng, 41, n_parts, normalize=normalize)
    state, total, lost = merge_binary_states(states, normalize)
    packed, total_finished, _ = merge_binary_states(states, normalize, finish=rule, with_conflict=True)
    bare, _, _ = merge_binary_states(states, normalize, finish=rule)
    assert not total.any() and not lost.any() and not total_finished.any()
    for r in range(41):
        want = [float(x) for x in exact(states, r, normalize)]
        empty = want[0]
        if rule == "yager":
            want = [0.0, want[1], want[2], want[3] + empty, empty]
        np.testing.assert_allclose(packed[r], want, rtol=1e-13, atol=1e-16)
        np.testing.assert_array_equal(bare[r], packed[r, :4])
        want_state = [1.0 - want[4] if normalize else empty, *want[1:4]]
        if rule != "yager":
            np.testing.assert_allclose(state[r], want_state, rtol=1e-13, atol=1e-16)
    assert np.all(packed >= 0.0)


@pytest.mark.parametrize("normalize", [False, True])
def test_rows_read_where_they_lie_give_the_bits_of_copies(normalize):
    rng = np.random.default_rng(3)
    stack = np.stack(fold_states(rng, 29, 4, normalize=normalize), axis=1)  # (rows, parts, 4)
    spaced = [stack[:, p] for p in range(4)]
    copies = [np.ascontiguousarray(part) for part in spaced]
    assert not spaced[1].flags.c_contiguous
    for finish in (None, "dempster" if normalize else "conjunctive"):
        got = merge_binary_states(spaced, normalize, finish=finish, with_conflict=True)
        want = merge_binary_states(copies, normalize, finish=finish, with_conflict=True)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_parts=st.integers(2, 6), normalize=st.booleans())
def test_merge_equals_merging_in_turn_with_the_pair_kernel(seed, n_parts, normalize):
    """Associativity and commutativity: one pass, the pair kernel in turn, and any order of the parts agree."""
    rng = np.random.default_rng(seed)
    states = fold_states(rng, 17, n_parts, normalize=normalize)
    merged, total, lost = merge_binary_states(states, normalize)
    assert not total.any() and not lost.any()
    in_turn = states[0]
    for part in states[1:]:
        out, kappa, _, _ = combination.conjunctive((in_turn, part), normalize, parallel=False)
        if normalize:
            out[:, 0] = (1.0 - kappa) * in_turn[:, 0] * part[:, 0]
        in_turn = out
    np.testing.assert_allclose(merged, in_turn, rtol=1e-12, atol=1e-15)
    shuffled, _, _ = merge_binary_states([states[p] for p in rng.permutation(n_parts)], normalize)
    np.testing.assert_allclose(shuffled, merged, rtol=1e-13, atol=1e-16)


def test_products_below_the_normal_range_are_flagged_under_dempsters_rule_only():
    eps = 1e-200  # m(frame) of both states: q(frame) = 1e-400 leaves float64's normal range
    states = [np.array([[1.0, 0.5, 0.5 - eps, eps], [1.0, 0.2, 0.3, 0.5]]) for _ in range(2)]
    out, total, lost = merge_binary_states(states, True, finish="dempster", with_conflict=True)
    np.testing.assert_array_equal(lost, [True, False])
    assert not total.any()
    np.testing.assert_allclose(out[1], [float(x) for x in exact(states, 1, True)], rtol=1e-14)
    _, _, lost = merge_binary_states([s.copy() for s in states], False)
    assert not lost.any()  # the conjunctive rule keeps what float64 holds, as the in-memory fold does


def test_total_conflict_is_flagged():
    a = np.array([[1.0, 1.0, 0.0, 0.0], [1.0, 0.6, 0.0, 0.4]])
    b = np.array([[1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.5, 0.5]])
    out, total, lost = merge_binary_states([a, b], True, finish="dempster", with_conflict=True)
    np.testing.assert_array_equal(total, [True, False])
    assert not lost.any()
    np.testing.assert_allclose(out[1], [float(x) for x in exact([a, b], 1, True)], rtol=1e-14)
    conjunctive, total, _ = merge_binary_states([a, b], False, finish="conjunctive", with_conflict=True)
    assert not total.any()
    np.testing.assert_array_equal(conjunctive[0], [1.0, 0.0, 0.0, 0.0, 1.0])  # all mass on the empty set


def test_interpreted_merge_gives_the_compiled_bits():
    """Small merges run interpreted on a cold start (``interpreted_max_work``): the same operations, the same bits."""
    from dstk._kernels import partial_combination
    from dstk._kernels._jit import interpreted

    rng = np.random.default_rng(11)
    for normalize, finish in ((True, 2), (True, 0), (False, 1), (False, 3), (False, 0)):
        stack = np.stack(fold_states(rng, 300, 5, normalize=normalize), axis=1)
        stack[:3, :, 3] = 1e-80  # products below the normal range (Dempster: lost rows)
        stack[5, :, 3] = 0.0  # a dogmatic row: exact zeros, nothing lost
        stack[7, 0] = [1.0, 1.0, 0.0, 0.0]  # a total conflict
        stack[7, 1] = [1.0, 0.0, 1.0, 0.0]
        views = [combination._spaced_rows(stack[:, p]) for p in range(5)]
        args = (
            np.array([flat.ctypes.data for flat, _ in views]),
            np.array([step for _, step in views]),
            np.array([flat.shape[0] for flat, _ in views]),
            normalize,
            finish,
        )
        results = []
        for kernel in (
            partial_combination._merge_binary_rows,
            interpreted(partial_combination._merge_binary_rows),
        ):
            out = np.zeros((300, 5))
            total = np.zeros(300, dtype=bool)
            lost = np.zeros(300, dtype=bool)
            kernel(*args, out, total, lost)
            results.append((out, total, lost))
        (a, ta, la), (b, tb, lb) = results
        np.testing.assert_array_equal(a.view(np.int64), b.view(np.int64))
        np.testing.assert_array_equal(ta, tb)
        np.testing.assert_array_equal(la, lb)
        assert la[:3].all() == normalize and not la[3:].any()
        assert ta[7] == normalize


def test_the_merge_kernel_carries_its_interpretation_limit():
    from dstk._kernels import partial_combination

    assert partial_combination._merge_binary_rows.interpreted_max_work == 65_536
