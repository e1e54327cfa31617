"""Coupling checked against a direct minimisation of its criterion (Gebel 2009, Eq. 5.6)."""

import warnings

import numpy as np
import pytest
from scipy import optimize

from dstk.multiclass import all_pairs_code, couple_probabilities, make_code, one_vs_rest_code


def _criterion(p, r, code, w):
    total = 0.0
    for b in range(code.shape[1]):
        positive, negative = p[code[:, b] == 1].sum(), p[code[:, b] == -1].sum()
        mu = positive / (positive + negative)
        total += w[b] * (r[b] * np.log(r[b] / mu) + (1 - r[b]) * np.log((1 - r[b]) / (1 - mu)))
    return total


@pytest.mark.parametrize("kind", ["one_vs_rest", "all_pairs", "complete"])
def test_coupling_is_no_worse_than_a_direct_minimisation(kind):
    rng = np.random.default_rng(5)
    for _ in range(12):
        k = int(rng.integers(3, 6))
        code = {"one_vs_rest": one_vs_rest_code, "all_pairs": all_pairs_code}.get(
            kind, lambda n: make_code("complete", n)
        )(k)
        r = rng.uniform(0.05, 0.95, size=code.shape[1])
        w = rng.integers(1, 5, code.shape[1]).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = couple_probabilities(r[None], code, task_weights=w).probabilities[0]

        def softmax_criterion(z, r=r, code=code, w=w):
            q = np.exp(z - z.max())
            return _criterion(q / q.sum(), r, code, w)

        best = min(
            optimize.minimize(softmax_criterion, rng.normal(size=k) * 0.1, method="BFGS").fun
            for _ in range(2)
        )
        assert p.sum() == pytest.approx(1.0)
        assert _criterion(p, r, code, w) <= best + 1e-8
