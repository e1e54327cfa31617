"""Benchmark of dstk.dask on a LocalCluster: arrays too big for memory, generated chunk by chunk.

Usage:
    python benchmarks/bench_dask.py                      # full run, ~5-10 min on 2 cores
    python benchmarks/bench_dask.py --samples 1000000 --scores 10000000   # quick check

Two workloads, each run on a LocalCluster of 1 and of 2 worker processes
(1 thread each, loopback):

fusion       ``--samples`` x ``--sources`` binary mass functions (default
             10^7 x 100: 4 * 10^9 floats = 32 GB, more than this machine's
             RAM) combined by Dempster's rule, with all sources of a row in
             one chunk ("blockwise") and with the source axis split into
             chunks of ``--source-chunk`` (tree reduction).
calibration  ``--scores`` classifier scores (default 10^8) turned into mass
             functions by a fitted dstk calibrator (``predict_mass``).

Inputs are generated inside the tasks from (seed, chunk index), never
materialised; only scalar summaries (mean pignistic probability, mean
conflict, number of positive decisions) travel back to the client.  The
client's peak resident memory is sampled every 20 ms during each run; the
workers' peak is their ru_maxrss.  Results are printed and written to
``--out`` (markdown).
"""

import argparse
import os
import platform
import resource
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import dask
import dask.array as da
import distributed

import dstk
from dstk.dask import DaskMassFunction, combine_with_conflict, predict_mass

PAGE = os.sysconf("SC_PAGE_SIZE")


def current_rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


class PeakMemory:
    """Sample the resident memory of this (client) process every 20 ms."""

    def __enter__(self):
        self.peak = self.start = current_rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self):
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, current_rss())

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, current_rss())


def worker_peak_rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: kB


def worker_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# -- generated inputs ------------------------------------------------------------
def masses_block(seed, block_info=None):
    """Binary masses m({0}) = 0.5 u, m({1}) = 0.4 (1 - u), m(frame) = rest, u ~ U(0, 1)."""
    info = block_info[None]
    (r0, r1), (s0, s1), _ = info["array-location"]
    row_chunk = info["chunk-location"][0]
    # one stream per (row chunk, source): the same numbers whatever the chunking of the sources
    u = np.stack([np.random.default_rng([seed, row_chunk, s]).random(r1 - r0) for s in range(s0, s1)], axis=1)
    zero = np.zeros_like(u)
    m0 = 0.5 * u
    m1 = 0.4 * (1.0 - u)
    return np.stack([zero, m0, m1, 1.0 - m0 - m1], axis=-1)


def scores_block(seed, block_info=None):
    info = block_info[None]
    ((r0, r1),) = info["array-location"]
    rng = np.random.default_rng([seed, *info["chunk-location"]])
    return rng.random(r1 - r0)


def generated_masses(n_samples, n_sources, row_chunk, source_chunk, seed=0):
    chunks = (
        da.core.normalize_chunks(row_chunk, (n_samples,))[0],
        da.core.normalize_chunks(source_chunk, (n_sources,))[0],
        (4,),
    )
    array = da.map_blocks(masses_block, seed, chunks=chunks, dtype=np.float64, meta=np.empty((0, 0, 0)))
    return DaskMassFunction(array, frame=(0, 1), validate=False)


def summaries(masses, kappa):
    """Scalars only: mean P({1}) (pignistic), mean conflict, number of rows deciding {1}."""
    values = masses.array
    p1 = values[:, 2] + 0.5 * values[:, 3]
    return [p1.mean(), kappa.mean(), (p1 > 0.5).sum()]


# -- runs ---------------------------------------------------------------------
def run(n_workers, build):
    with (
        distributed.LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",
            worker_dashboard_address=None,
            memory_limit="8GiB",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.run(warm_up)  # numba kernels loaded from the cache in every worker
        outputs = build()
        cpu_before = sum(client.run(worker_cpu_seconds).values())
        with PeakMemory() as memory:
            start = time.perf_counter()
            values = dask.compute(*outputs)
            seconds = time.perf_counter() - start
        memory.cpu = sum(client.run(worker_cpu_seconds).values()) - cpu_before
        workers = client.run(worker_peak_rss)
    return values, seconds, memory, max(workers.values())


def warm_up():
    block = masses_block(0, {None: {"array-location": [(0, 2), (0, 3), (0, 4)], "chunk-location": (0, 0, 0)}})
    mf = dstk.MassFunction.from_array(block, (0, 1), validate=False)
    dstk.combine(mf, axis=1)
    from dstk.dask import _kernels

    _kernels.finish_commonality_product(_kernels.commonality_product(block, True), True)
    _kernels.merge_commonality_products(np.ones((2, 2, 4)), True)


def fit_calibrator():
    """A calibrator fitted on synthetic scores; None when dstk.calibration is not available."""
    try:
        from dstk.calibration._binning import BinningCalibrator
    except ImportError:
        return None
    rng = np.random.default_rng(1)
    scores = rng.beta(2.0, 2.0, size=5000)
    labels = (rng.random(5000) < scores).astype(int)
    return BinningCalibrator(bins=10, model="likelihood").fit(scores, labels)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--samples", type=int, default=10_000_000)
    parser.add_argument("--sources", type=int, default=100)
    parser.add_argument("--row-chunk", type=int, default=20_000)
    parser.add_argument("--source-chunk", type=int, default=25)
    parser.add_argument("--scores", type=int, default=100_000_000)
    parser.add_argument("--score-chunk", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--modes", nargs="+", default=["blockwise", "tree"], choices=["blockwise", "tree"])
    parser.add_argument(
        "--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "dask.md")
    )
    args = parser.parse_args()

    n, k = args.samples, args.sources
    input_gb = n * k * 4 * 8 / 1e9
    rows = []
    print(
        f"fusion: {n:.3g} samples x {k} sources, binary frame ({input_gb:.1f} GB of masses, generated per chunk)"
    )
    for mode, source_chunk in [("blockwise", k), ("tree", args.source_chunk)]:
        if mode not in args.modes:
            continue
        for workers in args.workers:

            def build():
                masses = generated_masses(n, k, args.row_chunk, source_chunk)
                fused, kappa = combine_with_conflict(masses, rule="dempster", axis=1, split_every=4)
                return summaries(fused, kappa)

            (p1, kappa, positives), seconds, memory, worker_peak = run(workers, build)
            rate = n * k / seconds
            rows.append(
                (
                    "fusion",
                    f"{mode} (sources in chunks of {source_chunk})",
                    workers,
                    seconds,
                    memory.cpu,
                    f"{rate / 1e6:.1f} M source masses/s ({input_gb / seconds:.2f} GB/s); "
                    f"{n * k / memory.cpu / 1e6:.1f} M per worker CPU-second",
                    memory.peak / 2**20,
                    (memory.peak - memory.start) / 2**20,
                    worker_peak / 2**20,
                )
            )
            print(
                f"  {mode:9s} workers={workers}: {seconds:7.1f} s (worker CPU {memory.cpu:.1f} s)  "
                f"{rate / 1e6:7.1f} M source masses/s  "
                f"client peak {memory.peak / 2**20:.0f} MiB (+{(memory.peak - memory.start) / 2**20:.0f})  "
                f"worker peak {worker_peak / 2**20:.0f} MiB  [mean P(1)={p1:.6f}, mean K={kappa:.6f}, "
                f"decide 1: {positives}]"
            )

    calibrator = fit_calibrator()
    if calibrator is None:
        print("calibration: skipped (dstk.calibration._binning not available)")
    else:
        print(f"calibration: {args.scores:.3g} scores -> predict_mass ({type(calibrator).__name__})")
        for workers in args.workers:

            def build():
                scores = da.map_blocks(
                    scores_block,
                    7,
                    chunks=(da.core.normalize_chunks(args.score_chunk, (args.scores,))[0],),
                    dtype=np.float64,
                    meta=np.empty((0,)),
                )
                masses = predict_mass(calibrator, scores)
                return summaries(masses, masses.array[:, 0])

            (p1, _, positives), seconds, memory, worker_peak = run(workers, build)
            rate = args.scores / seconds
            rows.append(
                (
                    "calibration",
                    "predict_mass",
                    workers,
                    seconds,
                    memory.cpu,
                    f"{rate / 1e6:.1f} M scores/s; {args.scores / memory.cpu / 1e6:.1f} M per worker CPU-second",
                    memory.peak / 2**20,
                    (memory.peak - memory.start) / 2**20,
                    worker_peak / 2**20,
                )
            )
            print(
                f"  workers={workers}: {seconds:7.1f} s (worker CPU {memory.cpu:.1f} s)  {rate / 1e6:7.1f} M scores/s  client peak "
                f"{memory.peak / 2**20:.0f} MiB  worker peak {worker_peak / 2**20:.0f} MiB  [mean P(1)={p1:.6f}]"
            )

    write_markdown(args, rows)


def write_markdown(args, rows):
    lines = [
        "# dstk.dask benchmark",
        "",
        f"`python benchmarks/bench_dask.py --samples {args.samples} --sources {args.sources} "
        f"--row-chunk {args.row_chunk} --source-chunk {args.source_chunk} --scores {args.scores} "
        f"--score-chunk {args.score_chunk} --workers {' '.join(map(str, args.workers))}`",
        "",
        f"Machine: {os.cpu_count()} cores, {os.sysconf('SC_PHYS_PAGES') * PAGE / 2**30:.0f} GiB RAM, "
        f"Python {platform.python_version()}, dask {dask.__version__}, numpy {np.__version__}. "
        "LocalCluster of worker processes with 1 thread each on loopback; inputs generated inside the tasks.",
        "",
        f"Load average when the run ended (other jobs share these cores): {os.getloadavg()[0]:.1f}.",
        "",
        "| workload | mode | workers | wall s | worker CPU s | throughput | client peak RSS (MiB) | client growth (MiB) | worker peak RSS (MiB) |",
        "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |",
    ]
    for workload, mode, workers, seconds, cpu, rate, peak, growth, worker in rows:
        lines.append(
            f"| {workload} | {mode} | {workers} | {seconds:.1f} | {cpu:.1f} | {rate} | {peak:.0f} | {growth:.0f} | {worker:.0f} |"
        )
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
