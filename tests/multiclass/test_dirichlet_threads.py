"""Row-threaded special functions give the same floats as one call."""

import numpy as np
from scipy.special import betainc, gammaincinv

from dstk.multiclass import _dirichlet as dirichlet


def test_row_threaded_is_bit_identical():
    rng = np.random.default_rng(0)
    u = rng.random((50_000, 7))
    shape = rng.uniform(0.3, 30, 7)
    assert np.array_equal(dirichlet._row_threaded(gammaincinv, shape, u), gammaincinv(shape, u))
    a, b = rng.uniform(0.5, 5, 7), rng.uniform(0.5, 5, 7)
    got = dirichlet._row_threaded(lambda ab, x: betainc(ab[0], ab[1], x), (a, b), u)
    assert np.array_equal(got, betainc(a, b, u))


def test_predict_proba_same_with_and_without_threads(monkeypatch):
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], 200)
    scores = -np.ones((600, 3)) + 2 * np.eye(3)[y] + rng.normal(0, 0.8, (600, 3))
    cal = dirichlet.DirichletCalibrator().fit(scores, y)
    big = np.repeat(scores, 50, axis=0)
    threaded = cal.predict_proba(big)
    monkeypatch.setattr(dirichlet, "_THREADED_ROWS", 10**9)
    assert np.array_equal(threaded, cal.predict_proba(big))
