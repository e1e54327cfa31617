"""Timing that holds on a shared machine: interleaved rounds, CPU time next to wall time, threads pinned.

Every comparison script of ``benchmarks/`` can use the three pieces here:

* :func:`pinned_threads` limits BLAS / OpenMP (threadpoolctl), numba and torch to one thread on both
  sides, unless a row is about threads;
* :func:`interleaved` times the callables in turn (A, B, A, B, ...) and records, per round, the process
  CPU time and the wall time of one call (calls shorter than 2 ms are repeated within the round);
* :func:`ratio` summarises the per-round ratio anchor / dstk as a median with its IQR and range, for the
  CPU time (the figure to quote: under load the wall time measures the load) and the wall time;
* :func:`environment` gives the lines that a results file records: date, command, machine, load at the
  start and the end, versions and the BLAS in use;
* :func:`comparison` turns the times of two sides into the cells of a results row, :func:`spread` one
  side's times alone, :func:`load_at_end` the closing line and :func:`prepend` writes a run above the
  earlier ones of a results file.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone

import numpy as np


@contextlib.contextmanager
def pinned_threads(n_threads: int = 1):
    """Limit BLAS / OpenMP, numba and torch (when imported) to ``n_threads`` inside the block."""
    from threadpoolctl import threadpool_limits

    previous_numba = None
    try:
        import numba

        previous_numba = numba.get_num_threads()
        numba.set_num_threads(min(n_threads, numba.config.NUMBA_NUM_THREADS))
    except ImportError:  # pragma: no cover
        numba = None
    torch = sys.modules.get("torch")
    previous_torch = torch.get_num_threads() if torch is not None else None
    if torch is not None:
        torch.set_num_threads(n_threads)
    try:
        with threadpool_limits(limits=n_threads):
            yield
    finally:
        if numba is not None and previous_numba is not None:
            numba.set_num_threads(previous_numba)
        if torch is not None and previous_torch is not None:
            torch.set_num_threads(previous_torch)


def interleaved(functions: dict[str, Callable[[], object]], rounds: int) -> dict[str, dict[str, np.ndarray]]:
    """``{name: {"cpu": seconds per call, "wall": seconds per call}}``, one value per round.

    One untimed call of each callable first (compiles, fills caches); then each round times every
    callable once, in the order given (a call shorter than 2 ms is repeated to fill 2 ms).
    """
    repeats = {}
    for name, function in functions.items():
        function()
        start = time.perf_counter()
        function()
        repeats[name] = max(1, int(0.002 / max(time.perf_counter() - start, 1e-7)))
    out = {name: {"cpu": [], "wall": []} for name in functions}
    for _ in range(rounds):
        for name, function in functions.items():
            number = repeats[name]
            cpu0, wall0 = time.process_time(), time.perf_counter()
            for _ in range(number):
                function()
            out[name]["cpu"].append((time.process_time() - cpu0) / number)
            out[name]["wall"].append((time.perf_counter() - wall0) / number)
    return {name: {kind: np.array(values) for kind, values in times.items()} for name, times in out.items()}


def ratio(numerator: np.ndarray, denominator: np.ndarray) -> tuple[float, str]:
    """Median of the per-round ratio with its IQR and range, as a number and as text."""
    values = np.asarray(numerator) / np.asarray(denominator)
    q1, median, q3 = np.percentile(values, [25, 50, 75])
    return float(
        median
    ), f"{median:.2f}× (IQR {q1:.2f}–{q3:.2f}, range {values.min():.2f}–{values.max():.2f})"


def spread(values: np.ndarray) -> str:
    """Median of per-round times with their IQR, as text with a unit."""
    q1, median, q3 = np.percentile(np.asarray(values), [25, 50, 75])
    return f"{seconds(float(median))} (IQR {seconds(float(q1))}–{seconds(float(q3))})"


def comparison(
    times: dict[str, dict[str, np.ndarray]], ours: str = "dstk", anchor: str = "anchor"
) -> dict[str, str]:
    """The cells of one results row from :func:`interleaved`'s times of ``ours`` and ``anchor``.

    ``ours_cpu``, ``anchor_cpu``, ``ours_wall``, ``anchor_wall``: medians; ``cpu_ratio``: anchor / ours
    of the CPU time per round, median with IQR and range; ``wall_ratio``: the same of the wall time,
    median only.
    """
    _, cpu_text = ratio(times[anchor]["cpu"], times[ours]["cpu"])
    wall, _ = ratio(times[anchor]["wall"], times[ours]["wall"])
    return {
        "ours_cpu": seconds(float(np.median(times[ours]["cpu"]))),
        "anchor_cpu": seconds(float(np.median(times[anchor]["cpu"]))),
        "ours_wall": seconds(float(np.median(times[ours]["wall"]))),
        "anchor_wall": seconds(float(np.median(times[anchor]["wall"]))),
        "cpu_ratio": cpu_text,
        "wall_ratio": f"{wall:.2f}×",
    }


def load_at_end() -> str:
    """The closing line of a run: the load average when it ended."""
    return f"- load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}"


def prepend(path: str, text: str) -> None:
    """Write ``text`` at the top of the results file ``path``, its earlier runs below (newest first).

    A title line (``# ...``) that opens the file stays first; ``text`` then goes right below it.
    """
    previous = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    title = ""
    if previous.startswith("# "):
        title, _, previous = previous.partition("\n")
        title += "\n\n"
        previous = previous.lstrip("\n")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(title + text.rstrip("\n") + "\n" + ("\n" + previous if previous else ""))


def finish(lines: list[str], path: str | None, *, printed: int = 0) -> None:
    """Close a run: append :func:`load_at_end`, print the lines from ``printed`` on, prepend to ``path``.

    ``printed`` is the number of lines the run already printed as it went.
    """
    lines.append(load_at_end())
    print("\n".join(lines[printed:]))
    if path:
        prepend(path, "\n".join(lines))


def seconds(value: float) -> str:
    """A duration with a unit that keeps three significant digits."""
    if value < 1e-3:
        return f"{value * 1e6:.3g} µs"
    if value < 1.0:
        return f"{value * 1e3:.3g} ms"
    return f"{value:.3g} s"


def environment(argv: list[str] | None = None) -> list[str]:
    """Lines describing the run: date, command, machine, load average, versions, BLAS."""
    lines = [
        f"- date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- command: `python {' '.join(argv if argv is not None else sys.argv)}`",
        f"- machine: {_cpu_model()}, {os.cpu_count()} logical cores",
        f"- load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
        f"- Python {platform.python_version()}, numpy {np.__version__}",
    ]
    for module in ("scipy", "numba", "sklearn", "torch", "torchbelief"):
        if module in sys.modules:
            lines[-1] += f", {module} {getattr(sys.modules[module], '__version__', '?')}"
    try:
        from threadpoolctl import threadpool_info

        blas = [f"{info['internal_api']} {info.get('version')}" for info in threadpool_info()]
        lines.append(f"- thread pools: {', '.join(blas) or 'none'}; pinned to 1 thread unless a row says")
    except ImportError:  # pragma: no cover
        pass
    return lines


def _cpu_model() -> str:
    """The processor's model name (``/proc/cpuinfo`` on Linux: the VM's host can change between runs)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return f"{line.split(':', 1)[1].strip()} ({platform.machine()})"
    except OSError:
        pass
    return platform.processor() or platform.machine()


def run_in_checkout(root, code: str) -> dict:
    """Run ``code`` in a fresh single-threaded Python that imports dstk from the checkout ``root``.

    The child prints one JSON object on its last line, which is returned.  It runs in the temporary
    directory: ``python -c`` puts the working directory first on ``sys.path``, so a run from a checkout
    would time that checkout instead of ``root``.
    """
    env = dict(os.environ, PYTHONPATH=str(root), OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    result = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def renamed_copy(root, name: str, destination) -> str:
    """Copy the package ``dstk`` of the checkout ``root`` to ``destination/name``, importable as ``name``.

    Every word ``dstk`` in its Python files becomes ``name`` and the kernels' pinned source hashes are
    renewed (so numba's on-disk cache serves the copy), so that two checkouts can be imported into one
    process and timed side by side, call by call.  Returns the directory to put on ``sys.path``.
    """
    import re
    import shutil
    from pathlib import Path

    target = Path(destination) / name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(Path(root) / "dstk", target, ignore=shutil.ignore_patterns("__pycache__"))
    word = re.compile(r"\bdstk\b")
    for path in target.rglob("*.py"):
        path.write_text(word.sub(name, path.read_text(encoding="utf-8")), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(destination))
    subprocess.run(
        [sys.executable, "-m", f"{name}._kernels._jit"],
        env=env,
        check=True,
        capture_output=True,
        cwd=destination,
    )
    return str(destination)
