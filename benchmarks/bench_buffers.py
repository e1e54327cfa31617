"""dstk.dask's reused buffers: one task's own cost with fresh pages and with reused ones.

Runs the work of three dask tasks in a child process, as a worker would run
them (inside ``serial_kernels``, the output freed once consumed), with the
pool of reused buffers on (the default limits) and off (a pool that keeps
nothing, as ``dstk.dask.reuse_buffers(max_idle_bytes=0)``), alternately, with BLAS / OpenMP / numba
pinned to one thread (``_harness.pinned_threads``), and prints the median process CPU time, wall time and
page faults per call, the CPU ratio fresh / reused per round (median, IQR, range) and the wall ratio:

tree state   the Dempster state of one chunk: 150,000 rows x 25 binary
             sources, checked in the fold's pass (120 MB read, 4.8 MB out).
tree merge   the merge and finish of 4 such states.
calibration  ``predict_mass`` of a binning calibrator on 4,000,000 scores
             (128 MB of masses).

The child runs in distributed's worker environment
(``MALLOC_TRIM_THRESHOLD_=65536``, which freezes glibc's mmap threshold at
128 KiB) unless ``--plain-malloc`` is given.

    python benchmarks/bench_buffers.py [--repeats 15] [--plain-malloc] [--md benchmarks/results/dask.md]

The run's date, command and load head the table (``--md`` prepends it to a results file).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _harness import environment, finish, pinned_threads, ratio, seconds  # noqa: E402

CHILD = "--child"


def _usage():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return time.process_time(), time.perf_counter(), ru.ru_minflt


def _child(repeats: int) -> dict:
    import dstk
    from dstk._kernels import _buffers
    from dstk.calibration import BinningCalibrator
    from dstk.dask._blocks import serial_kernels
    from dstk.dask._combination import _chunk_state, _merge_and_finish_serial

    frame = dstk.Frame((0, 1))
    rng = np.random.default_rng(0)
    u = rng.random((150_000, 100))
    masses = np.zeros((150_000, 100, 4))
    masses[..., 1] = 0.5 * u
    masses[..., 2] = 0.4 * (1.0 - u)
    masses[..., 3] = 1.0 - masses[..., 1] - masses[..., 2]
    blocks = [np.ascontiguousarray(masses[:, s : s + 25]) for s in range(0, 100, 25)]
    del masses, u
    scores = rng.normal(size=4_000_000)
    fit_scores = rng.normal(size=5000)
    labels = (rng.random(5000) < 1 / (1 + np.exp(-2 * fit_scores))).astype(int)
    calibrator = BinningCalibrator(bins=10, model="likelihood").fit(fit_scores, labels)

    def tree_state():
        with serial_kernels():
            state = _chunk_state(blocks[0], (1,), True, "dempster", frame, check="masses")
        return float(state[0, 0, 1])

    states_holder = []

    def tree_merge():  # the tree's last task: merge the four states and finish the masses
        packed = _merge_and_finish_serial(states_holder[0], (1,), False, "dempster", True, True)
        return float(packed[0, 1])

    def calibration():
        with serial_kernels():
            values = calibrator.predict_mass(scores)._dense_m()
        return float(values[0, 1])

    with serial_kernels():
        states_holder.append([_chunk_state(b, (1,), True, "dempster", frame, check="masses") for b in blocks])
    work = {"tree state": tree_state, "tree merge": tree_merge, "calibration": calibration}
    results = {name: {"reused": [], "fresh": []} for name in work}
    # the tasks take the process's pool (POOL): one with the default limits, one that keeps nothing
    pools = {"reused": _buffers.BufferPool(), "fresh": _buffers.BufferPool(max_idle_bytes=0)}
    with pinned_threads(1):
        for name, function in work.items():
            for setting in ("reused", "fresh"):  # warm both (compilation, first pages)
                _buffers.POOL = pools[setting]
                function()
                function()
            for _ in range(repeats):
                for setting in ("reused", "fresh"):
                    _buffers.POOL = pools[setting]
                    cpu0, wall0, faults0 = _usage()
                    function()
                    cpu1, wall1, faults1 = _usage()
                    results[name][setting].append((cpu1 - cpu0, wall1 - wall0, faults1 - faults0))
    return results


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--plain-malloc", action="store_true", help="no MALLOC_TRIM_THRESHOLD_ in the child")
    parser.add_argument("--md", default=None, help="prepend the run to this Markdown file")
    parser.add_argument(CHILD, action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.repeats)))
        return
    child_environment = dict(os.environ)
    child_environment.pop("MALLOC_TRIM_THRESHOLD_", None)
    if not args.plain_malloc:
        child_environment["MALLOC_TRIM_THRESHOLD_"] = "65536"
    lines = [
        f"## Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} (bench_buffers.py): reused buffers",
        "",
        *environment(),
    ]
    output = subprocess.run(
        [sys.executable, __file__, CHILD, "--repeats", str(args.repeats)],
        env=child_environment,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    results = json.loads(output.strip().splitlines()[-1])
    lines += [
        "- child process "
        + (
            "with `MALLOC_TRIM_THRESHOLD_=65536` (distributed's worker environment)"
            if not args.plain_malloc
            else "with glibc's default malloc settings"
        )
        + f"; medians of {args.repeats} calls per setting, the two settings alternating",
        "",
        "| task | fresh pages: CPU (wall; faults) | reused buffers: CPU (wall; faults) | fresh / reused, CPU "
        "| wall ratio |",
        "| --- | ---: | ---: | --- | --- |",
    ]
    for name, settings in results.items():
        fresh = np.array(settings["fresh"])
        reused = np.array(settings["reused"])
        _, cpu_text = ratio(fresh[:, 0], reused[:, 0])
        wall, _ = ratio(fresh[:, 1], reused[:, 1])
        lines.append(
            f"| {name} | {seconds(float(np.median(fresh[:, 0])))} ({seconds(float(np.median(fresh[:, 1])))}; "
            f"{np.median(fresh[:, 2]):.0f}) | {seconds(float(np.median(reused[:, 0])))} "
            f"({seconds(float(np.median(reused[:, 1])))}; {np.median(reused[:, 2]):.0f}) | {cpu_text} | {wall:.2f}× |"
        )
    finish(lines, args.md)


if __name__ == "__main__":
    main()
