"""Cold start of two source trees side by side: first calls with an empty numba cache.

Each round runs, for each tree in turn (interleaved), a fresh Python process with
an empty ``NUMBA_CACHE_DIR`` and that tree first on ``PYTHONPATH``; it times one
first call of ``benchmarks/bench_core.py``'s ``COLD_CALL`` script (wall time of
the call, process CPU time since the script started, imports included), or for
``demo`` the whole ``python -m dstk demo`` cold and then warm (wall and CPU time
of the child process).  Prints one line per run and a table of medians (range).

Usage::

    python benchmarks/bench_cold_start.py --baseline /path/to/other/checkout \\
        --calls LogisticCalibrator,IsotonicCalibrator,BinningCalibrator,from_counts,demo --runs 3
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
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
    """Run ``python *args``; return (stdout, wall time, CPU time of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode:
        raise RuntimeError(result.stderr[-2000:])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return result.stdout, wall, cpu


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
                        row = (wall, cpu, warm_wall, warm_cpu)
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
    print("| call | tree | first call wall (cold) | process CPU (cold) | demo warm wall | demo warm CPU |")
    print("|---|---|---|---|---|---|")
    for (what, name), rows in results.items():
        cells = [f"{statistics.median(c):.2f} s ({min(c):.2f}-{max(c):.2f})" for c in zip(*rows)]
        print(f"| {what} | {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
