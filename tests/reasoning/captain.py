"""The Captain's problem (Almond 1989, pp. 210-214), as coded in the vignette ``Captain_Example.Rmd`` of R's dst.

Loading follows the vignette's code (m(true) = 0.3, m(false) = 0.5, m(frame) = 0.2), not its text.
"""

from __future__ import annotations

import itertools

from dstk.reasoning import Valuation, Variable

A = Variable("Arrival", range(7))
D = Variable("Departure", range(4))
S = Variable("Sailing", range(4))
L = Variable("Loading", ["true", "false"])
F = Variable("Forecast", ["foul", "fair"])
M = Variable("Maintenance", ["true", "false"])
W = Variable("Weather", ["foul", "fair"])
R = Variable("Repairs", ["true", "false"])


def captain_valuations() -> list[Valuation]:
    """R1..R6 and the evidence on Loading, Forecast and Maintenance."""
    ads = [(a, d, s) for d, s in itertools.product(range(4), range(4)) if (a := d + s) <= 6]
    dlfm = [
        ((l == "true") + (f == "foul") + (m == "true"), l, f, m)
        for l, f, m in itertools.product(L.labels, F.labels, M.labels)
    ]
    swr = [((w == "foul") + (r == "true"), w, r) for w, r in itertools.product(W.labels, R.labels)]
    mr = list(itertools.product(M.labels, R.labels))
    full_mr = frozenset(mr)

    def not_(cfg):
        return full_mr - {cfg}

    return [
        Valuation.relation([A, D, S], ads),
        Valuation.relation([D, L, F, M], dlfm),
        Valuation.relation([S, W, R], swr, mass=0.9),
        Valuation.relation([F, W], [("foul", "foul"), ("fair", "fair")], mass=0.8),
        # R5: M = true -> R = true (0.1), M = true -> R = false (0.7)
        Valuation([M, R], [not_(("true", "false")), not_(("true", "true")), full_mr], [0.1, 0.7, 0.2]),
        # R6: M = false -> R = true (0.2), M = false -> R = false (0.2)
        Valuation([M, R], [not_(("false", "false")), not_(("false", "true")), full_mr], [0.2, 0.2, 0.6]),
        Valuation([L], [{("true",)}, {("false",)}, {("true",), ("false",)}], [0.3, 0.5, 0.2]),
        Valuation([F], [{("foul",)}, {("fair",)}, {("foul",), ("fair",)}], [0.2, 0.6, 0.2]),
        Valuation([M], [{("false",)}], [1.0]),
    ]


#: The vignette's elimination order (Repairs, Loading, Weather, Departure, Maintenance, Forecast, Sailing).
VIGNETTE_ORDER = [R, L, W, D, M, F, S]
