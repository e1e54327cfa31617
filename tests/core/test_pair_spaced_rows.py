"""Two binary sources combined where their rows lie: one source of a stack, a reversed or broadcast view.

The pair kernel reads rows evenly spaced in memory without a copy; the result must be the bits of
the same combination of C-contiguous copies, and the definition (brute force over focal-set pairs).
"""

import numpy as np
import pytest

from dstk import Frame, MassFunction, combine, combine_with_conflict

FRAME = Frame((0, 1))


def _brute_force(a, b, normalize):
    out = np.zeros((a.shape[0], 4))
    for x in range(4):
        for y in range(4):
            out[:, x & y] += a[:, x] * b[:, y]
    conflict = out[:, 0].copy()
    if normalize:
        out[:, 1:] /= (1.0 - conflict)[:, None]
        out[:, 0] = 0.0
    return out, conflict


def _views(rng, n):
    stack = np.zeros((n, 3, 4))
    stack[..., 1:] = rng.dirichlet(np.full(3, 0.5), size=(n, 3))
    reversed_rows = np.ascontiguousarray(stack[:, 2])[::-1]  # negative row stride: copied
    one = np.zeros(4)
    one[1:] = rng.dirichlet(np.ones(3))
    broadcast = np.broadcast_to(one, (n, 4))  # row stride 0
    return [stack[:, 0], stack[:, 1], reversed_rows, broadcast]


@pytest.mark.parametrize("rule", ["dempster", "conjunctive", "yager"])
@pytest.mark.parametrize("n", [1, 7, 5000])
def test_spaced_rows_give_the_bits_of_contiguous_copies(rule, n):
    rng = np.random.default_rng(n)
    views = _views(rng, n)
    for first in views:
        for second in views:
            spaced = combine(
                [MassFunction.from_array(first, FRAME), MassFunction.from_array(second, FRAME)], rule=rule
            )
            copies = combine(
                [
                    MassFunction.from_array(np.ascontiguousarray(first), FRAME),
                    MassFunction.from_array(np.ascontiguousarray(second), FRAME),
                ],
                rule=rule,
            )
            assert spaced.to_array().tobytes() == copies.to_array().tobytes()


def test_spaced_rows_match_the_definition():
    rng = np.random.default_rng(3)
    views = _views(rng, 300)
    for first in views:
        for second in views:
            masses, conflict = combine_with_conflict(
                [MassFunction.from_array(first, FRAME), MassFunction.from_array(second, FRAME)]
            )
            expected, expected_conflict = _brute_force(np.asarray(first), np.asarray(second), True)
            np.testing.assert_allclose(masses.to_array(), expected, rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(conflict, expected_conflict, rtol=1e-12, atol=1e-15)


def test_the_inputs_are_not_written():
    rng = np.random.default_rng(4)
    stack = np.zeros((50, 2, 4))
    stack[..., 1:] = rng.dirichlet(np.ones(3), size=(50, 2))
    before = stack.copy()
    combine([MassFunction.from_array(stack[:, 0], FRAME), MassFunction.from_array(stack[:, 1], FRAME)])
    assert np.array_equal(stack, before)


def test_threaded_pair_kernel_gives_the_serial_bits_on_spaced_rows():
    from dstk._kernels import combination

    rng = np.random.default_rng(5)
    stack = np.zeros((3000, 2, 4))
    stack[..., 1:] = rng.dirichlet(np.full(3, 0.5), size=(3000, 2))
    serial = combination.conjunctive((stack[:, 0], stack[:, 1]), True, parallel=False)
    threaded = combination.conjunctive((stack[:, 0], stack[:, 1]), True, parallel=True)
    for one, other in zip(serial[:3], threaded[:3]):
        assert one.tobytes() == other.tobytes()
    assert serial[3] == threaded[3] == 0


def _brute_force_subsets(a, b, normalize):
    """Conjunctive (``normalize``: Dempster) combination of (rows, 2**n) masses by enumeration of pairs."""
    size = a.shape[1]
    out = np.zeros_like(a)
    for x in range(size):
        for y in range(size):
            out[:, x & y] += a[:, x] * b[:, y]
    conflict = out[:, 0].copy()
    if normalize:
        out[:, 1:] /= out[:, 1:].sum(axis=1)[:, None]
        out[:, 0] = 0.0
    return out, conflict


@pytest.mark.parametrize("rule", ["dempster", "conjunctive", "yager"])
@pytest.mark.parametrize("n", [1, 63, 64, 65, 3000])
def test_three_labels_pair_gives_the_bits_of_the_stacked_fold(rule, n):
    """Two three-label sources (contiguous, one source of a stack, broadcast) combined without
    stacking: the bits of the axis fold of their stack, and the definition to 1e-12."""
    rng = np.random.default_rng(n)
    frame = Frame("abc")
    stack = np.zeros((n, 3, 8))
    stack[..., 1:] = rng.dirichlet(np.full(7, 0.4), size=(n, 3))
    for source in (0, 1):  # m(frame) = 1e-300 in both: a product below float64's range (extended)
        near_dogmatic = stack[::7, source]  # a view
        near_dogmatic[:, 7] = 0.0
        near_dogmatic /= near_dogmatic.sum(axis=1, keepdims=True)
        near_dogmatic[:, 7] = 1e-300
    one = np.zeros(8)
    one[1:] = rng.dirichlet(np.ones(7))
    views = [stack[:, 0], stack[:, 1], np.ascontiguousarray(stack[:, 2]), np.broadcast_to(one, (n, 8))]
    for i, j in [(0, 1), (1, 2), (2, 3), (3, 0)]:
        a, b = (MassFunction.from_array(views[k], frame, validate=True) for k in (i, j))
        got, kappa = combine_with_conflict([a, b], rule=rule, on_conflict="nan")
        pair = np.stack([views[i], views[j]], axis=1)
        folded, kappa_folded = combine_with_conflict(
            MassFunction.from_array(pair, frame, validate=True), axis=1, rule=rule, on_conflict="nan"
        )
        assert np.array_equal(got.to_array(), folded.to_array())
        assert np.array_equal(kappa, kappa_folded)
        want, conflict = _brute_force_subsets(views[i], views[j], rule == "dempster")
        if rule == "yager":
            want[:, 7] += want[:, 0]
            want[:, 0] = 0.0
        np.testing.assert_allclose(got.to_array(), want, rtol=0, atol=1e-12)
        np.testing.assert_allclose(kappa, conflict, rtol=0, atol=1e-12)
