"""Cold start of two source trees side by side: first calls with an empty numba cache.

Each round runs, for each tree in turn (interleaved), a fresh Python process with
an empty ``NUMBA_CACHE_DIR`` and that tree first on ``PYTHONPATH``; it times one
first call of ``benchmarks/bench_core.py``'s ``COLD_CALL`` script (wall time of
the call, process CPU time since the script started, imports included), or for
``demo`` the whole ``python -m dstk demo`` cold and then warm (wall and CPU time
of the child process, from ``os.wait4``) and their ratios per run.  Prints one
line per run and a table of medians (range).

Usage::

    python benchmarks/bench_cold_start.py --baseline /path/to/other/checkout \\
        --calls LogisticCalibrator,IsotonicCalibrator,BinningCalibrator,from_counts,demo --runs 3
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def cold_call_script() -> str:
    spec = importlib.util.spec_from_file_location("bench_core", HERE / "bench_core.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.COLD_CALL


def child(args: list[str], env: dict[str, str]) -> tuple[str, float, float]:
    """Run ``python *args``; return (stdout, wall time, CPU time of the child).

    The CPU time is the child's own resource usage (``os.wait4``), user plus system.
    """
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        # run from an empty directory: ``python -m`` and ``-c`` put the working directory
        # first on sys.path, which would import the dstk of the directory the benchmark
        # was started from instead of the tree on PYTHONPATH
        process = subprocess.Popen(
            [sys.executable, *args], env=env, stdout=out, stderr=err, cwd=env["NUMBA_CACHE_DIR"]
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if process.returncode:
        raise RuntimeError(stderr[-2000:])
    return stdout, wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--baseline", required=True, help="root of the other source tree (e.g. a main checkout)"
    )
    parser.add_argument("--calls", default="LogisticCalibrator,IsotonicCalibrator,BinningCalibrator,demo")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    script = cold_call_script()
    trees = {"baseline": str(Path(args.baseline).resolve()), "this tree": str(HERE.parent)}
    results: dict[tuple[str, str], list[tuple[float, ...]]] = {}
    print("load average at start", os.getloadavg())
    for what in args.calls.split(","):
        for _ in range(args.runs):
            for name, root in trees.items():
                with tempfile.TemporaryDirectory() as cache:
                    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=root)
                    if what == "demo":
                        _, wall, cpu = child(["-m", "dstk", "demo"], env)
                        _, warm_wall, warm_cpu = child(["-m", "dstk", "demo"], env)
                        row = (wall, cpu, warm_wall, warm_cpu, wall / warm_wall, cpu / warm_cpu)
                    else:
                        out, _, _ = child(["-c", script, what], env)
                        _imports, first_call, process_cpu = (float(v) for v in out.split())
                        row = (first_call, process_cpu)
                results.setdefault((what, name), []).append(row)
                print(
                    what,
                    name,
                    " ".join(f"{v:.2f}" for v in row),
                    f"load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
    print("load average at end", os.getloadavg())
    print(
        "| call | tree | first call wall (cold) | process CPU (cold) | demo warm wall | demo warm CPU "
        "| demo cold / warm, wall | demo cold / warm, CPU |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for (what, name), rows in results.items():
        units = ["s", "s", "s", "s", "x", "x"]
        cells = [
            f"{statistics.median(c):.2f} {unit} ({min(c):.2f}-{max(c):.2f})"
            for c, unit in zip(zip(*rows), units)
        ]
        print(f"| {what} | {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
