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

Both pairs are timed with ``_harness``: interleaved (A, B, A, B, ...) in one run,
numba and BLAS pinned to one thread on both sides, process CPU time next to
wall time; the table gives the median CPU time of each side, the per-round
CPU ratio former / dstk (median, IQR, range) and the wall ratio, with the
run's date, command and load.  Results must agree (asserted).

Run from the repository root:
python benchmarks/bench_kernels.py [--rounds 15] [--md benchmarks/results/kernels.md]
"""

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from _harness import comparison, environment, finish, interleaved, pinned_threads  # noqa: E402
from numba import njit  # noqa: E402

from dstk import Frame, MassFunction  # noqa: E402
from dstk._kernels import partial_combination  # noqa: E402
from dstk.core import _dense  # noqa: E402
from dstk.core._transforms import contextual_discount  # noqa: E402


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


def row(name, new, anchor, rounds):
    """One table row: dstk and the former implementation interleaved, CPU and wall time."""
    cells = comparison(interleaved({"dstk": new, "former": anchor}, rounds), anchor="former")
    return (
        f"| {name} | {cells['ours_cpu']} | {cells['anchor_cpu']} | {cells['cpu_ratio']} "
        f"| {cells['wall_ratio']} |"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--md", default=None, help="prepend the run to this Markdown file")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    lines = ["## Kernels: dstk against the former implementation", "", *environment(), ""]
    lines += [
        "| case | dstk (CPU) | former (CPU) | former / dstk, CPU | wall ratio |",
        "|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    with pinned_threads(1):
        for n, rows, k in [(3, 20_000, 8), (6, 5_000, 8), (10, 200, 8), (14, 10, 8)]:
            m = rng.random((rows, k, 2**n))
            m /= m.sum(axis=-1, keepdims=True)
            new = lambda m=m: partial_combination.implicability_product(m)  # noqa: E731
            old = lambda m=m: anchor_implicability_product(m)  # noqa: E731
            np.testing.assert_allclose(new(), old(), rtol=1e-13, atol=0)  # also compiles both
            lines.append(
                row(f"implicability product, n={n}, {rows} rows x {k} sources", new, old, args.rounds)
            )
            print(lines[-1], flush=True)
        for n, batch in [(3, 100_000), (8, 2_000), (12, 50)]:
            values = rng.random((batch, 2**n))
            values /= values.sum(axis=-1, keepdims=True)
            mass = MassFunction.from_array(values, Frame(range(n)))
            rates = rng.random((batch, n))
            new = lambda mass=mass, rates=rates: contextual_discount(mass, rates).to_array()  # noqa: E731
            old = lambda mass=mass, rates=rates: anchor_contextual_discount(mass, rates)  # noqa: E731
            np.testing.assert_allclose(new(), old(), rtol=0, atol=1e-13)
            lines.append(row(f"contextual_discount, n={n}, batch {batch}", new, old, args.rounds))
            print(lines[-1], flush=True)
    finish(lines, args.md, printed=len(lines))


if __name__ == "__main__":
    main()
