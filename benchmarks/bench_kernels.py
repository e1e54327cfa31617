"""Benchmark of the kernel consolidation: one fast Moebius transform for every caller.

1. The partial states of the dask tree reduction of the disjunctive rule
   (:func:`dstk._kernels.partial_combination.implicability_product`; the
   conjunctive states, once commonality products, are now the chunk's
   combination by the in-memory fold) now use the blocked passes of
   :mod:`dstk._kernels.moebius`; the anchor is the plain n-sweep version they
   replaced (reproduced below, same arithmetic as before), on the same input.
2. :func:`dstk.core._transforms.contextual_discount`, now on the masses one
   label at a time; the anchor is the former implementation through the
   implicabilities (reproduced below).

Both pairs are timed interleaved (A, B, A, B, ...) in one run; the results
report medians and the min-max range of the per-round ratios, and the
machine load.  Results must agree (asserted).

Run from the repository root:  python benchmarks/bench_kernels.py [--rounds 15]
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from numba import njit

from dstk import Frame, MassFunction
from dstk._kernels import partial_combination
from dstk.core import _dense
from dstk.core._transforms import contextual_discount


@njit
def _plain_subset_sum_row(x):
    size = x.shape[0]
    step = 1
    while step < size:
        for base in range(0, size, 2 * step):
            for j in range(base, base + step):
                x[j + step] += x[j]
        step *= 2


@njit
def anchor_implicability_product(m):
    rows, k_sources, size = m.shape
    out = np.empty((rows, size))
    tmp = np.empty(size)
    for r in range(rows):
        for a in range(size):
            out[r, a] = 1.0
        for k in range(k_sources):
            for a in range(size):
                tmp[a] = m[r, k, a]
            _plain_subset_sum_row(tmp)
            for a in range(size):
                out[r, a] *= tmp[a]
    return out


def anchor_contextual_discount(m, rates):
    """The former contextual discounting through the implicabilities."""
    frame = m.frame
    dense = m.to_array()
    b = _dense.m_to(dense, "b")
    size = dense.shape[-1]
    idx = np.arange(size)
    factor = np.ones(np.broadcast_shapes(b.shape[:-1], rates.shape[:-1]) + (size,))
    for k in range(frame.n):
        has = ((idx >> k) & 1).astype(np.float64)
        a = rates[..., k : k + 1]
        factor = factor * (1.0 - a + a * has)
    out = _dense.to_m(b * factor, "b")
    out = np.where(np.abs(out) < 1e-15, 0.0, out)
    return np.maximum(out, 0.0)


def interleaved(new, anchor, rounds):
    new_times, anchor_times = [], []
    for _ in range(rounds):
        for function, times in ((new, new_times), (anchor, anchor_times)):
            start = time.perf_counter()
            function()
            times.append(time.perf_counter() - start)
    new_times, anchor_times = np.array(new_times), np.array(anchor_times)
    ratios = anchor_times / new_times
    return np.median(new_times), np.median(anchor_times), np.median(ratios), ratios.min(), ratios.max()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print(f"load: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    print("| case | dstk (ms) | former (ms) | speed-up, median (min-max) |")
    print("|---|---|---|---|")
    for n, rows, k in [(3, 20_000, 8), (6, 5_000, 8), (10, 200, 8), (14, 10, 8)]:
        m = rng.random((rows, k, 2**n))
        m /= m.sum(axis=-1, keepdims=True)
        for name, new, anchor in [
            (
                "implicability product",
                lambda: partial_combination.implicability_product(m),
                lambda: anchor_implicability_product(m),
            ),
        ]:
            np.testing.assert_allclose(new(), anchor(), rtol=1e-13, atol=0)  # also compiles both
            t_new, t_old, ratio, low, high = interleaved(new, anchor, args.rounds)
            print(
                f"| {name}, n={n}, {rows} rows x {k} sources | {1e3 * t_new:.2f} | {1e3 * t_old:.2f} | {ratio:.2f} ({low:.2f}-{high:.2f}) |"
            )
    for n, batch in [(3, 100_000), (8, 2_000), (12, 50)]:
        values = rng.random((batch, 2**n))
        values /= values.sum(axis=-1, keepdims=True)
        mass = MassFunction.from_array(values, Frame(range(n)))
        rates = rng.random((batch, n))
        new = lambda: contextual_discount(mass, rates).to_array()  # noqa: E731
        old = lambda: anchor_contextual_discount(mass, rates)  # noqa: E731
        np.testing.assert_allclose(new(), old(), rtol=0, atol=1e-13)
        t_new, t_old, ratio, low, high = interleaved(new, old, args.rounds)
        print(
            f"| contextual_discount, n={n}, batch {batch} | {1e3 * t_new:.2f} | {1e3 * t_old:.2f} | {ratio:.2f} ({low:.2f}-{high:.2f}) |"
        )


if __name__ == "__main__":
    main()
