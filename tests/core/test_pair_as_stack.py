"""A three-label pair folded as a stack on a cold start: the bits of the pair kernel, and the definition.

While the pair kernel ``_ternary_pair_rows`` is neither compiled nor cached, ``conjunctive`` copies
the pair to a stack and folds it with the stack kernel (the one the pair kernel calls), within a
budget of values per process.  Both routes must give the same bits (masses, conflicts, total-conflict
flags, status) on every kind of row, and the masses of the definition (brute force over focal-set
pairs).
"""

import numpy as np
import pytest

from dstk._kernels import _jit, combination


def _pairs(rng, rows):
    """Pairs of (rows, 8) sources: plain, conflicting, near-dogmatic, noisy and invalid rows."""
    for mode in ("plain", "conflict", "tiny", "dogmatic", "noise", "invalid"):
        m = np.zeros((rows, 2, 8))
        m[..., 1:] = rng.dirichlet(np.full(7, 0.05 if mode == "tiny" else 1.0), size=(rows, 2))
        if mode == "conflict":  # every third row totally conflicting ({a} against {b})
            m[::3] = 0.0
            m[::3, 0, 1] = 1.0
            m[::3, 1, 2] = 1.0
        if mode == "tiny":  # commonality products near the subnormal range: the careful fold
            m[:, :, 7] *= 1e-300
            m[:, :, 1:7] = np.maximum(m[:, :, 1:7], 1e-170)
            m /= m.sum(-1, keepdims=True)
        if mode == "dogmatic":
            m[::2, :, 7] = 0.0
            m /= m.sum(-1, keepdims=True)
        if mode == "noise":  # rounding noise within the tolerance
            m[::4, 0, 1] -= 1e-13
            m[::4, 0, 2] += 1e-13
            m[1::5, 1, 4] += m[1::5, 1, 3] + 1e-13
            m[1::5, 1, 3] = -1e-13
        if mode == "invalid":
            m[::7, 0, 1] = -0.5
        yield mode, m


def _routes(monkeypatch, pair, normalize, tolerance, parallel):
    """``conjunctive`` of ``pair`` folded as a stack, and by the pair kernel."""
    with monkeypatch.context() as patch:
        patch.setattr(combination, "cold_alternative", lambda kernel, work: True)
        stacked = combination.conjunctive(pair, normalize, tolerance=tolerance, parallel=parallel)
    with monkeypatch.context() as patch:
        patch.setattr(combination, "cold_alternative", lambda kernel, work: False)
        direct = combination.conjunctive(pair, normalize, tolerance=tolerance, parallel=parallel)
    return stacked, direct


def _definition(a, b, normalize):
    """Conjunctive (or Dempster's) combination of two three-label rows by brute force over pairs of focal
    sets: ``(masses, conflict, total)``, ``total`` where no mass is left off the empty set."""
    out = np.zeros((a.shape[0], 8))
    for x in range(8):
        for y in range(8):
            out[:, x & y] += a[:, x] * b[:, y]
    conflict = out[:, 0].copy()
    left = out[:, 1:].sum(axis=1)
    if normalize:
        with np.errstate(divide="ignore", invalid="ignore"):
            out[:, 1:] /= left[:, None]
        out[:, 0] = 0.0
    return out, conflict, normalize & (left == 0.0)


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("tolerance", [None, 1e-9])
def test_a_pair_folded_as_a_stack_has_the_pair_kernels_bits(monkeypatch, parallel, normalize, tolerance):
    rng = np.random.default_rng(7)
    for rows in (1, 63, 64, 65, 1000):
        for mode, m in _pairs(rng, rows):
            stack = np.ascontiguousarray(m)
            contiguous = (np.ascontiguousarray(m[:, 0]), np.ascontiguousarray(m[:, 1]))
            for pair in (contiguous, (stack[:, 0], stack[:, 1])):  # (rows evenly spaced: read in place)
                stacked, direct = _routes(monkeypatch, pair, normalize, tolerance, parallel)
                assert stacked[3] == direct[3], (rows, mode)
                if stacked[3] & combination.INVALID:
                    continue  # the outputs of an invalid batch are meaningless by contract
                for got, expected in zip(stacked[:3], direct[:3]):
                    assert got.tobytes() == expected.tobytes(), (rows, mode)


def test_a_pair_folded_as_a_stack_matches_the_definition(monkeypatch):
    rng = np.random.default_rng(8)
    for mode, m in _pairs(rng, 500):
        if mode in ("invalid", "tiny"):  # (an error; products below float64's range by brute force)
            continue
        for normalize in (True, False):
            stacked, _ = _routes(monkeypatch, (m[:, 0], m[:, 1]), normalize, 1e-9, False)
            out, conflict, total = _definition(m[:, 0], m[:, 1], normalize)
            assert not stacked[3] & combination.INVALID, mode
            assert np.array_equal(stacked[2], total), mode
            np.testing.assert_allclose(stacked[0][~total], out[~total], rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(stacked[1], conflict, rtol=1e-12, atol=1e-14)
            assert not stacked[0][total].any()


def test_the_stack_route_is_taken_within_its_budget_only(monkeypatch):
    serial, threaded = combination._ternary_pair_rows, combination._ternary_pair_parallel
    monkeypatch.setattr(_jit, "_interpreted_work", {})
    monkeypatch.setattr(_jit, "_compiled_or_cached", lambda kernel: False)
    budget = _jit.INTERPRETED_BUDGET * serial.cold_alternative_work
    assert budget == 50 * 2**22
    assert _jit.cold_alternative(serial, budget - 10)
    assert _jit.cold_alternative(threaded, 10)  # the threaded kernel charges the serial one's budget
    assert not _jit.cold_alternative(serial, 1)
    assert not _jit.cold_alternative(threaded, 1)
    monkeypatch.setattr(_jit, "_interpreted_work", {})
    monkeypatch.setattr(_jit, "_compiled_or_cached", lambda kernel: True)
    assert not _jit.cold_alternative(serial, 1)
    # the interpretation budget of the same kernel is a separate account
    assert _jit._charge(serial, serial.interpreted_max_work, serial.interpreted_max_work, False)
