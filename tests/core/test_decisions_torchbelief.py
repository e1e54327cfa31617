"""Decisions side by side with torchbelief 0.3.0 (skipped where torchbelief is not installed).

torchbelief (PyPI ``torchbelief``, PyTorch) is the one other Python library with imprecise-probability
decision rules.  Its ``expected_utility_bounds``, ``maximal_acts`` (Walley maximality) and
``interval_dominance_acts`` are compared with dstk on random mass functions.  Its ``e_admissible_acts``
keeps the acts that are Bayes-optimal at an extreme point of the credal set (``credal_vertices``, n!
permutations), so it misses the acts optimal only at a mixture of extreme points: the counterexample
below, where dstk's linear programme and a brute-force grid over the credal set agree.
"""

from __future__ import annotations

import numpy as np
import pytest

from dstk import MassFunction
from dstk.core import admissible_actions, decide, lower_upper_expectations

torch = pytest.importorskip("torch")
torchbelief = pytest.importorskip("torchbelief")
from torchbelief.capacity import Capacity  # noqa: E402
from torchbelief.choice import e_admissible_acts, interval_dominance_acts, maximal_acts  # noqa: E402
from torchbelief.decision import expected_utility_bounds  # noqa: E402


def _random_case(rng):
    n = int(rng.integers(2, 6))
    size = 1 << n
    values = np.zeros(size)
    focal = rng.choice(np.arange(1, size), size=int(rng.integers(1, min(6, size - 1) + 1)), replace=False)
    values[focal] = rng.dirichlet(np.ones(focal.size))
    utility = np.round(rng.uniform(0, 1, size=(4, n)), 2)  # rounded: ties occur
    return n, values, utility


def _both(n, values, utility):
    labels = [f"w{i}" for i in range(n)]
    m = MassFunction.from_array(values, labels)
    frame = torchbelief.Frame(n)
    tensor = torch.tensor(values, dtype=torch.float64)
    return m, frame, tensor, torch.tensor(utility, dtype=torch.float64)


@pytest.mark.parametrize("seed", range(3))
def test_expectations_maximality_interval_dominance_agree(seed):
    rng = np.random.default_rng(seed)
    for _ in range(100):
        n, values, utility = _random_case(rng)
        m, frame, tensor, u = _both(n, values, utility)
        lower, upper = lower_upper_expectations(m, utility)
        tb_lower, tb_upper = expected_utility_bounds(tensor, u, frame)
        np.testing.assert_allclose(lower, tb_lower.numpy(), atol=1e-12)
        np.testing.assert_allclose(upper, tb_upper.numpy(), atol=1e-12)
        capacity = Capacity.from_mass(tensor, frame)
        np.testing.assert_array_equal(
            admissible_actions(m, criterion="maximality", utility=utility), maximal_acts(capacity, u).numpy()
        )
        np.testing.assert_array_equal(
            admissible_actions(m, criterion="interval_dominance", utility=utility),
            interval_dominance_acts(capacity, u).numpy(),
        )


@pytest.mark.parametrize("seed", range(2))
def test_torchbelief_e_admissible_acts_are_a_subset(seed):
    """Extreme points of the credal set are in it: their optimal acts are E-admissible (dstk keeps them)."""
    rng = np.random.default_rng(100 + seed)
    for _ in range(100):
        n, values, utility = _random_case(rng)
        m, frame, tensor, u = _both(n, values, utility)
        ours = admissible_actions(m, criterion="e_admissibility", utility=utility)
        theirs = e_admissible_acts(Capacity.from_mass(tensor, frame), u).numpy()
        assert np.all(ours[theirs])


def test_hedge_counterexample():
    """Vacuous mass on two states, acts (1, 0), (0, 1) and the hedge (0.6, 0.6).

    Brute force: at p = (0.5, 0.5) the hedge's expected utility 0.6 beats 0.5, so it is E-admissible
    (and maximal).  torchbelief's vertex enumeration only sees p = (1, 0) and (0, 1) and drops it.
    """
    values = np.array([0.0, 0.0, 0.0, 1.0])
    utility = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.6]])
    grid = np.linspace(0.0, 1.0, 101)
    expected = np.stack([grid, 1.0 - grid], axis=1) @ utility.T  # (p, acts)
    brute = (expected >= expected.max(axis=1, keepdims=True) - 1e-12).any(axis=0)
    assert brute.tolist() == [True, True, True]
    m, frame, tensor, u = _both(2, values, utility)
    assert admissible_actions(m, criterion="e_admissibility", utility=utility).tolist() == brute.tolist()
    assert admissible_actions(m, criterion="maximality", utility=utility).tolist() == [True, True, True]
    capacity = Capacity.from_mass(tensor, frame)
    assert e_admissible_acts(capacity, u).numpy().tolist() == [True, True, False]
    assert maximal_acts(capacity, u).numpy().tolist() == [True, True, True]


def test_single_act_criteria_agree():
    from torchbelief.decision import decide as tb_decide

    rng = np.random.default_rng(7)
    for _ in range(100):
        n, values, utility = _random_case(rng)
        utility = utility + rng.uniform(0, 1e-3, size=utility.shape)  # no ties
        m, frame, tensor, u = _both(n, values, utility)
        for criterion, theirs in (("maximin", "maximin"), ("maximax", "maximax"), ("pignistic", "pignistic")):
            assert int(decide(m, criterion=criterion, utility=utility)) == int(
                tb_decide(tensor, u, frame, theirs)
            )
        ours = decide(m, criterion="hurwicz", utility=utility, optimism=0.3)
        assert int(ours) == int(tb_decide(tensor, u, frame, "hurwicz", hurwicz=0.3))
