"""A stack of two binary sources folded by the pair kernel on a cold start: the bits of the stack kernel.

While the stack kernel ``_binary_rows`` is neither compiled nor cached, ``conjunctive`` folds a stack
of exactly two binary sources with the pair kernel ``_binary_pair_rows`` (cheaper to compile), reading
the two sources where they lie in the stack, within a budget of values per process.  Both routes must
give the same bits (masses, conflicts, total-conflict flags, status) on every kind of row, through the
kernels and through :func:`dstk.combine`.
"""

import numpy as np
import pytest

from dstk import Frame, MassFunction, combine
from dstk._kernels import _jit, combination


def _stacks(rng, rows):
    """(rows, 2, 4) stacks: Dirichlet, zeros, total conflict, tiny, near-dogmatic, noisy, invalid rows."""
    for mode in ("plain", "zeros", "conflict", "bayesian", "tiny", "dogmatic", "noise", "invalid"):
        m = np.zeros((rows, 2, 4))
        m[..., 1:] = rng.dirichlet(np.full(3, 0.05 if mode == "tiny" else 1.0), size=(rows, 2))
        if mode == "zeros":  # exact zeros in every position
            m[::2, 0, 3] = 0.0
            m[1::3, 1, 1] = 0.0
            m /= m.sum(-1, keepdims=True)
        if mode == "conflict":  # every third row totally conflicting ({0} against {1})
            m[::3] = 0.0
            m[::3, 0, 1] = 1.0
            m[::3, 1, 2] = 1.0
        if mode == "bayesian":  # no mass on the frame: total conflict where the singletons disagree
            m[..., 3] = 0.0
            m[..., 1] = rng.integers(0, 2, size=(rows, 2))
            m[..., 2] = 1.0 - m[..., 1]
        if mode == "tiny":  # commonality products near the subnormal range: the careful fold
            m[:, :, 3] *= 1e-300
            m[::2, :, 1] *= 1e-300
            m /= m.sum(-1, keepdims=True)
        if mode == "dogmatic":  # near-dogmatic: one singleton nearly 1 in each source
            m[:, 0, 1:] = (1.0 - 1e-200, 1e-200, 0.0)
            m[::2, 1, 1:] = (1e-160, 1.0 - 1e-160, 0.0)
        if mode == "noise":  # rounding noise within the tolerance
            m[::4, 0, 1] -= 1e-13
            m[::4, 0, 2] += 1e-13
            m[1::5, 1, 3] += m[1::5, 1, 2] + 1e-13
            m[1::5, 1, 2] = -1e-13
        if mode == "invalid":
            m[::7, 0, 1] = -0.5
        yield mode, m


def _routes(monkeypatch, stack, normalize, tolerance, parallel):
    """``conjunctive`` of ``stack`` folded by the pair kernel (cold route), and by the stack kernel."""
    with monkeypatch.context() as patch:
        patch.setattr(combination, "_binary_stack_cold", lambda kernel, work: True)
        cold = combination.conjunctive(stack, normalize, tolerance=tolerance, parallel=parallel)
    with monkeypatch.context() as patch:
        patch.setattr(combination, "_binary_stack_cold", lambda kernel, work: False)
        warm = combination.conjunctive(stack, normalize, tolerance=tolerance, parallel=parallel)
    return cold, warm


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("tolerance", [None, 1e-9])
def test_a_stack_of_two_folded_by_the_pair_kernel_has_the_stack_kernels_bits(
    monkeypatch, parallel, normalize, tolerance
):
    rng = np.random.default_rng(11)
    for rows in (0, 1, 3, 4, 5, 17, 1000):
        for mode, m in _stacks(rng, rows):
            cold, warm = _routes(monkeypatch, np.ascontiguousarray(m), normalize, tolerance, parallel)
            assert cold[3] == warm[3], (rows, mode)
            if cold[3] & combination.INVALID:
                continue  # the outputs of an invalid batch are meaningless by contract
            for got, expected in zip(cold[:3], warm[:3]):
                assert got.tobytes() == expected.tobytes(), (rows, mode)


@pytest.mark.filterwarnings("ignore::dstk.exceptions.ConflictWarning")
@pytest.mark.parametrize("rule", ["dempster", "conjunctive", "yager"])
@pytest.mark.parametrize("on_conflict", ["vacuous", "nan", "raise"])
def test_combine_along_an_axis_of_two_has_the_same_bits_on_the_cold_route(monkeypatch, rule, on_conflict):
    rng = np.random.default_rng(12)
    frame = Frame((0, 1))
    for mode, m in _stacks(rng, 300):
        if mode in ("invalid", "noise"):
            continue
        results = []
        for cold in (True, False):
            with monkeypatch.context() as patch:
                patch.setattr(combination, "_binary_stack_cold", lambda kernel, work, cold=cold: cold)
                try:
                    results.append(
                        combine(
                            MassFunction.from_array(m, frame), axis=1, rule=rule, on_conflict=on_conflict
                        ).to_array()
                    )
                except ValueError as error:
                    results.append(str(error))
        cold_result, warm_result = results
        if isinstance(warm_result, str):
            assert cold_result == warm_result, mode
        else:
            assert cold_result.tobytes() == warm_result.tobytes(), (mode, rule, on_conflict)


def test_only_stacks_of_two_binary_sources_take_the_pair_kernel(monkeypatch):
    asked = []
    monkeypatch.setattr(combination, "_binary_stack_cold", lambda kernel, work: asked.append(kernel) or True)
    rng = np.random.default_rng(13)
    for shape in ((10, 3, 4), (10, 1, 4), (10, 2, 8)):
        m = np.zeros(shape)
        m[..., 1:] = rng.dirichlet(np.ones(shape[-1] - 1), size=shape[:-1])
        combination.conjunctive(m, True, parallel=False)
    assert asked == []
    m = np.zeros((10, 2, 4))
    m[..., 1:] = rng.dirichlet(np.ones(3), size=(10, 2))
    combination.conjunctive(m, True, parallel=False)
    combination.conjunctive((m[:, 0], m[:, 1]), True, parallel=False)  # a pair: its own kernel
    assert asked == [combination._binary_rows]


def test_the_pair_route_is_taken_when_the_stack_kernel_is_cold_only(monkeypatch):
    serial = combination._binary_rows
    monkeypatch.setattr(_jit, "_interpreted_work", {})
    monkeypatch.setattr(_jit, "_compiled_or_cached", lambda kernel: False)
    monkeypatch.setattr(serial, "overloads", {}, raising=False)
    assert combination._binary_stack_cold(serial, 10)
    monkeypatch.setattr(serial, "overloads", {"compiled": None}, raising=False)
    assert not combination._binary_stack_cold(serial, 10)


def test_the_pair_route_is_taken_within_its_budget_only(monkeypatch):
    serial, threaded = combination._binary_rows, combination._binary_parallel
    monkeypatch.setattr(_jit, "_interpreted_work", {})
    monkeypatch.setattr(_jit, "_compiled_or_cached", lambda kernel: False)
    budget = _jit.INTERPRETED_BUDGET * serial.cold_alternative_work
    assert budget == 50 * 2**23
    assert _jit.cold_alternative(serial, budget - 10)
    assert _jit.cold_alternative(threaded, 10)  # the threaded kernel charges the serial one's budget
    assert not _jit.cold_alternative(serial, 1)
    assert not _jit.cold_alternative(threaded, 1)
    monkeypatch.setattr(_jit, "_interpreted_work", {})
    monkeypatch.setattr(_jit, "_compiled_or_cached", lambda kernel: True)
    assert not _jit.cold_alternative(serial, 1)
