"""dstk.dask's reused buffers: one task's own cost with fresh pages and with reused ones.

Runs the work of three dask tasks in a child process, as a worker would run
them (inside ``serial_kernels``, the output freed once consumed), with the
pool of reused buffers on (the default limits) and off (a pool that keeps
nothing, as ``dstk.dask.reuse_buffers(max_idle_bytes=0)``), alternately, and prints the median CPU time and
page faults per call:

tree state   the Dempster state of one chunk: 150,000 rows x 25 binary
             sources, checked in the fold's pass (120 MB read, 4.8 MB out).
tree merge   the merge and finish of 4 such states.
calibration  ``predict_mass`` of a binning calibrator on 4,000,000 scores
             (128 MB of masses).

The child runs in distributed's worker environment
(``MALLOC_TRIM_THRESHOLD_=65536``, which freezes glibc's mmap threshold at
128 KiB) unless ``--plain-malloc`` is given.

    python benchmarks/bench_buffers.py [--repeats 15] [--plain-malloc]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time

import numpy as np

CHILD = "--child"


def _usage():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return time.process_time(), ru.ru_minflt


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
    for name, function in work.items():
        for setting in ("reused", "fresh"):  # warm both (compilation, first pages)
            _buffers.POOL = pools[setting]
            function()
            function()
        for _ in range(repeats):
            for setting in ("reused", "fresh"):
                _buffers.POOL = pools[setting]
                cpu0, faults0 = _usage()
                function()
                cpu1, faults1 = _usage()
                results[name][setting].append((cpu1 - cpu0, faults1 - faults0))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--plain-malloc", action="store_true", help="no MALLOC_TRIM_THRESHOLD_ in the child")
    parser.add_argument(CHILD, action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.repeats)))
        return
    environment = dict(os.environ)
    environment.pop("MALLOC_TRIM_THRESHOLD_", None)
    if not args.plain_malloc:
        environment["MALLOC_TRIM_THRESHOLD_"] = "65536"
    load = os.getloadavg()[0]
    output = subprocess.run(
        [sys.executable, __file__, CHILD, "--repeats", str(args.repeats)],
        env=environment,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    results = json.loads(output.strip().splitlines()[-1])
    print(f"## Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n")
    print(
        f"`python benchmarks/bench_buffers.py --repeats {args.repeats}{' --plain-malloc' if args.plain_malloc else ''}`\n"
    )
    print(
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}; "
        f"load average (1 min) {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end. Child process "
        + (
            "with `MALLOC_TRIM_THRESHOLD_=65536` (distributed's worker environment)."
            if not args.plain_malloc
            else "with glibc's default malloc settings."
        )
        + f" Medians of {args.repeats} calls per setting, the two settings alternating; min-max in brackets.\n"
    )
    print("| task | fresh pages: CPU ms (faults) | reused buffers: CPU ms (faults) | fresh / reused |")
    print("| --- | ---: | ---: | --- |")
    for name, settings in results.items():
        fresh = np.array(settings["fresh"])
        reused = np.array(settings["reused"])
        ratios = fresh[:, 0] / reused[:, 0]
        print(
            f"| {name} | {np.median(fresh[:, 0]) * 1e3:.2f} ({np.median(fresh[:, 1]):.0f}) | "
            f"{np.median(reused[:, 0]) * 1e3:.2f} ({np.median(reused[:, 1]):.0f}) | "
            f"{np.median(ratios):.2f} [{ratios.min():.2f}-{ratios.max():.2f}] |"
        )


if __name__ == "__main__":
    main()
