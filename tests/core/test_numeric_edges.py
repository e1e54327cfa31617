"""Numerical edges of the core: contextual discounting, the dense-size cap, float32 masses."""

import itertools
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk import Frame, MassFunction
from dstk.core._transforms import contextual_discount
from dstk.exceptions import FrameTooLargeError, InvalidMassError


# ---------------------------------------------------------------- contextual discounting
def _contextual_discount_by_definition(m, rates):
    """Disjunctive combination of m with m_k(empty) = 1 - a_k, m_k({w_k}) = a_k (Mercier et al. 2008)."""
    n = len(rates)
    out = np.zeros_like(m)
    for a in range(m.size):
        for chosen in itertools.product([0, 1], repeat=n):
            weight = np.prod([rates[k] if c else 1 - rates[k] for k, c in enumerate(chosen)])
            union = a
            for k, c in enumerate(chosen):
                if c:
                    union |= 1 << k
            out[union] += m[a] * weight
    return out


def test_identity_discount_leaves_every_mass_unchanged_however_small():
    frame = Frame(["a", "b", "c"])
    values = np.array([0.0, 1e-17, 0.3, 1e-300, 0.1, 0.2, 0.0, 0.4 - 1e-17])
    m = MassFunction.from_array(values, frame)
    out = contextual_discount(m, [0.0, 0.0, 0.0]).to_array()
    np.testing.assert_array_equal(out, m.to_array())


def test_full_discount_is_vacuous():
    frame = Frame(["a", "b", "c"])
    m = MassFunction.from_array(np.array([0.0, 0.5, 0.0, 0.0, 0.25, 0.0, 0.0, 0.25]), frame)
    np.testing.assert_array_equal(
        contextual_discount(m, [1.0, 1.0, 1.0]).to_array(), MassFunction.vacuous(frame).to_array()
    )


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 4),
    data=st.data(),
)
def test_contextual_discount_is_the_disjunctive_combination(n, data):
    raw = np.array(data.draw(st.lists(st.floats(0, 1), min_size=2**n, max_size=2**n)))
    if raw.sum() == 0:
        raw[-1] = 1.0
    # tiny masses are kept, not zeroed
    raw[data.draw(st.integers(0, 2**n - 1))] = 1e-18
    values = raw / raw.sum()
    rates = np.array(data.draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    m = MassFunction.from_array(values, Frame(range(n)))
    out = contextual_discount(m, rates).to_array()
    expected = _contextual_discount_by_definition(values, rates)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-300)  # subnormals: absolute
    assert (out >= 0).all()


def test_contextual_discount_broadcasts_rates_over_the_batch():
    frame = Frame(["a", "b"])
    m = MassFunction.from_array(np.array([[0.0, 0.6, 0.4, 0.0], [0.0, 0.0, 0.0, 1.0]]), frame)
    rates = np.array([[0.5, 0.0], [0.2, 0.3], [0.0, 0.0]])[:, None, :]  # (3, 1, 2) against batch (2,)
    out = contextual_discount(m, rates).to_array()
    assert out.shape == (3, 2, 4)
    for i, j in itertools.product(range(3), range(2)):
        np.testing.assert_allclose(
            out[i, j], _contextual_discount_by_definition(m.to_array()[j], rates[i, 0])
        )


# ---------------------------------------------------------------- the 4 GiB cap
def _raises_before_allocating(call):
    tracemalloc.start()
    try:
        with pytest.raises(FrameTooLargeError, match="GiB"):
            call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20, f"allocated {peak / 2**20:.0f} MiB before raising"


HUGE = (700_000,)  # 700,000 mass functions on 10 labels: 5.3 GiB dense


def test_vacuous_of_a_huge_batch_raises_before_allocating():
    _raises_before_allocating(lambda: MassFunction.vacuous(Frame(range(10)), batch_shape=HUGE))


def test_categorical_of_a_huge_batch_raises_before_allocating():
    _raises_before_allocating(lambda: MassFunction.categorical(3, Frame(range(10)), batch_shape=HUGE))


def test_mapping_of_a_huge_batch_raises_before_allocating():
    masses = np.broadcast_to(np.array(0.5), HUGE)  # a view: no memory
    _raises_before_allocating(
        lambda: MassFunction({(0,): masses, tuple(range(10)): masses}, frame=Frame(range(10)))
    )


def test_from_focal_sets_of_a_huge_batch_raises_before_allocating():
    masses = np.broadcast_to(np.array([0.5, 0.5]), HUGE + (2,))
    _raises_before_allocating(lambda: MassFunction.from_focal_sets([1, 1023], masses, Frame(range(10))))


def test_pignistic_of_a_huge_batch_raises_before_allocating_the_result():
    # focal-set form on 64 labels: 80 MB of masses, but BetP would be 10**7 x 64 floats = 4.8 GiB
    m = MassFunction.from_focal_sets([2**64 - 1], np.ones((10**7, 1)), Frame(range(64)), validate=False)
    _raises_before_allocating(m.pignistic)


# ---------------------------------------------------------------- float32 masses
def test_float32_masses_are_accepted_and_stored_as_float64_summing_to_one():
    frame = Frame(["a", "b", "c"])
    values = np.array([0, 0.1, 0.2, 0.05, 0.3, 0.05, 0.1, 0.2], dtype=np.float32)
    assert abs(values.astype(np.float64).sum() - 1) > 1e-9  # fails the float64 tolerance
    for m in (
        MassFunction.from_array(values, frame),
        MassFunction.from_focal_sets(np.arange(8), values, frame),
        MassFunction({a: values[a] for a in range(1, 8)}, frame=frame),
    ):
        out = m.to_array()
        assert out.dtype == np.float64
        assert out.sum() == pytest.approx(1.0, abs=1e-15)
        np.testing.assert_allclose(out, values, rtol=1e-6)


def test_float32_masses_mixed_with_python_floats_in_a_mapping():
    frame = Frame(["a", "b"])
    m = MassFunction({"a": np.float32(0.1), "b": 0.9}, frame=frame)  # sums to 1 + 1.5e-9 in float64
    assert m.to_array().sum() == pytest.approx(1.0, abs=1e-15)


def test_float32_masses_far_from_one_are_rejected_with_a_fix_that_works():
    frame = Frame(["a", "b"])
    values = np.array([0.0, 0.5, 0.6, 0.0], dtype=np.float32)
    with pytest.raises(InvalidMassError, match="float32") as info:
        MassFunction.from_array(values, frame)
    assert "astype(np.float64)" in str(info.value)
    fixed = values.astype(np.float64)
    fixed = fixed / fixed.sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(MassFunction.from_array(fixed, frame).to_array(), [0, 0.5 / 1.1, 0.6 / 1.1, 0])


def test_float64_tolerance_is_unchanged():
    with pytest.raises(InvalidMassError):
        MassFunction.from_array(np.array([0.0, 0.5, 0.5 + 1e-8, 0.0]), Frame(["a", "b"]))
