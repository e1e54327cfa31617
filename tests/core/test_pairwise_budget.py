"""Focal-set combinations estimate their CPU time first: finish within the budget or refuse at once.

The estimate (pairs x per-pair cost) is checked against a timed run of the
same kernel: it must not undershoot by more than 2x, so a refusal never hides
a combination that would have finished quickly, and one past the budget is
refused in well under a second with the estimate in the message.
"""

import time

import numpy as np
import pytest

from dstk import Frame, MassFunction, combine
from dstk.core import _sparse
from dstk.exceptions import FrameTooLargeError


def _random_focal(rng, n_focal, n_labels, rows=None):
    focal = np.unique(rng.integers(1, 2**n_labels, size=n_focal, dtype=np.uint64))
    shape = (focal.size,) if rows is None else (rows, focal.size)
    masses = rng.random(shape)
    return focal, masses / masses.sum(axis=-1, keepdims=True)


def test_past_the_budget_is_refused_at_once_with_the_estimate():
    """16,384 focal sets each on 30 labels: 2.7e8 pairs, about half a minute; refused within 1 s."""
    rng = np.random.default_rng(0)
    frame = Frame(range(30))
    a = MassFunction.from_focal_sets(*_random_focal(rng, 16_384, 30), frame)
    b = MassFunction.from_focal_sets(*_random_focal(rng, 16_384, 30), frame)
    start = time.process_time()
    with pytest.raises(
        FrameTooLargeError, match=r"16,38\d x 16,38\d focal sets.*about \d+ s of CPU"
    ) as error:
        combine([a, b], rule="dempster")
    assert time.process_time() - start < 1.0
    assert "MAX_PAIRWISE_SECONDS" in str(error.value)


def test_raising_the_budget_runs_it(monkeypatch):
    rng = np.random.default_rng(1)
    frame = Frame(range(40))
    a = MassFunction.from_focal_sets(*_random_focal(rng, 300, 40), frame)
    b = MassFunction.from_focal_sets(*_random_focal(rng, 300, 40), frame)
    expected = combine([a, b], rule="conjunctive")
    monkeypatch.setattr(_sparse, "MAX_PAIRWISE_SECONDS", 1e-4)
    with pytest.raises(FrameTooLargeError, match=r"about 0\.0\d+ s of CPU"):
        combine([a, b], rule="conjunctive")
    monkeypatch.setattr(_sparse, "MAX_PAIRWISE_SECONDS", 10.0)
    assert combine([a, b], rule="conjunctive").allclose(expected, atol=0)


@pytest.mark.parametrize("rows", [None, 8])
def test_the_estimate_does_not_undershoot_a_timed_run(rows):
    rng = np.random.default_rng(2)
    f1, m1 = _random_focal(rng, 1_500, 28, rows)
    f2, m2 = _random_focal(rng, 1_500, 28, rows)
    _sparse.pairwise(f1[:50], m1[..., :50], f2[:50], m2[..., :50], "and")  # compiled before timing
    start = time.process_time()
    _sparse.pairwise(f1, m1, f2, m2, "and")
    spent = time.process_time() - start
    n_rows = 1 if rows is None else rows
    estimate = f1.size * f2.size * (_sparse.PAIR_SECONDS + n_rows * _sparse.PAIR_ROW_SECONDS)
    assert estimate >= 0.5 * spent, (estimate, spent)
