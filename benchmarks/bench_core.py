"""Speed of dstk's core (combination rules, pignistic transform, focal-set form, JIT warm-up).

Times dstk against torchbelief and pyds (py-dempster-shafer) when they are
installed (each is skipped with a message otherwise) and against plain numpy
references written here, in one run, single-threaded, and prints ratios
(competitor time / dstk time: above 1 means dstk is faster).

Usage
-----
    python benchmarks/bench_core.py [--quick] [--only a,b,c,d,s,w,f,x,k] [--md results.md]

Workloads (from issue 2 and section 5 of the research note on belief-function libraries):
  a  Dempster's rule, two random masses with all 2**n - 1 focal sets, n = 3..15
  b  100 mass functions on a binary frame for 10,000 samples, Dempster in one call
  c  pignistic transform of a random mass with all focal sets, n = 3..15
  d  cautious rule (unnormalised), two random non-dogmatic masses, n = 3..15
  s  Dempster's rule in focal-set form on large frames (n = 30, 60; 32 or 256 focal sets)
  w  JIT warm-up: `import dstk` and the first calls in fresh processes, with a cold
     and a warm numba cache
  f  the public fold (100 binary masses x 10,000 samples, validated) against np.sum of the
     same array, interleaved, with 1 and 2 numba threads; cost per row of two sources,
     ten binary and ten ternary sources
  x  the dense / focal-set switch: two mass functions with F = 16 .. 16k focal sets on
     frames of 10 .. 64 labels
  k  cold start: first calls in fresh processes with an empty NUMBA_CACHE_DIR, and the
     demo cold and warm (--demo)

Workloads a, b, c, d and s time dstk, its kernels, the numpy reference and torchbelief in
turn (A, B, C, A, B, C, ...; ``_harness.interleaved``: rounds of calls batched to >= 2 ms,
after warm-up calls that are not counted and also compile), with BLAS / OpenMP, numba and
torch pinned to one thread; each time is the median process CPU time per call, with the
median wall time beside it, and every ratio is a CPU-time ratio.  pyds (pure Python, slow)
is timed after them on its own (median of batches lasting >= 10 ms, CPU and wall).
Each result is checked against an independent reference (max abs difference).

The benchmark environment (outside the repository) used for the recorded numbers:

    python3 -m venv /work/benchvenv
    /work/benchvenv/bin/pip install numpy scipy numba scikit-learn py-dempster-shafer
    /work/benchvenv/bin/pip install torch==2.13.0 torchbelief
    /work/benchvenv/bin/pip install -e .
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /work/benchvenv/bin/python benchmarks/bench_core.py
"""

import os

# single-threaded BLAS / torch; must be set before numpy / numba / torch are imported.  numba
# keeps its threads: main() sets one thread, and workload f compares one and two threads.
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _harness import interleaved as harness_interleaved  # noqa: E402
from _harness import pinned_threads  # noqa: E402

import dstk  # noqa: E402
from dstk import Frame, MassFunction, combine  # noqa: E402
from dstk._kernels import combination as kernels  # noqa: E402
from dstk._kernels import transforms as transform_kernels  # noqa: E402

perf = time.perf_counter

#: Targets of issue 2 (speed-up of dstk's public call over the competitor).
TARGETS = {
    ("a", "torchbelief"): 5.0,
    ("b", "torchbelief"): 19.0,
    ("b", "pyds"): 400.0,
    ("c", "torchbelief"): 3.0,
    ("d", "torchbelief"): 3.0,
    ("s", "torchbelief"): 1.0,
}
IMPORT_TARGET_S = 0.5


# ====================================================================== optional competitors
def _extend_path(path, first):
    """Make the modules of ``path`` importable (first, or after the environment's own packages)."""
    if path:
        path = os.path.abspath(path)
        if not os.path.isdir(path):
            raise SystemExit(f"not a directory: {path}")
        if path not in sys.path:
            if first:
                sys.path.insert(0, path)
            else:
                sys.path.append(path)


def load_torchbelief(path=None):
    """torch and torchbelief, from ``path`` when given (searched after the environment's packages)."""
    _extend_path(path, first=False)
    try:
        import torch
        import torchbelief
    except Exception as exc:  # pragma: no cover - depends on the environment
        print(
            f"[skip] torchbelief not importable ({type(exc).__name__}: {exc}); "
            "pip install torch==2.13.0 torchbelief (or --torchbelief-path DIR) to compare with it."
        )
        return None
    torch.set_num_threads(1)
    return torch, torchbelief


def load_pyds(path=None):
    """pyds (Reineking's py-dempster-shafer): from ``path`` when given, a checkout of github.com/reineking/pyds."""
    _extend_path(path, first=True)
    try:
        import pyds
    except Exception as exc:  # pragma: no cover
        print(
            f"[skip] pyds not importable ({type(exc).__name__}: {exc}); "
            "pip install py-dempster-shafer, or pass --pyds-path DIR (a checkout of "
            "github.com/reineking/pyds), to compare with it."
        )
        return None
    return pyds


# ====================================================================== timing
class Timing(float):
    """Median process CPU seconds per call (the figure ratios use); ``wall``: the median wall seconds."""

    def __new__(cls, cpu, wall):
        value = super().__new__(cls, cpu)
        value.wall = float(wall)
        return value


def measure(fn, repeats, cap=5.0, min_batch_time=0.01):
    """Median seconds per call of ``fn`` (warm-up call excluded), as a :class:`Timing`, and its last output.

    Fast calls are grouped in batches lasting at least ``min_batch_time``;
    slow calls stop repeating once ``cap`` seconds are spent (at least 3 runs).
    """
    out = fn()  # warm-up (JIT compilation, caches), not counted
    c0, t0 = time.process_time(), perf()
    out = fn()
    first, first_cpu = perf() - t0, time.process_time() - c0
    number = max(1, int(min_batch_time / max(first, 1e-7)))
    times, cpus = ([first], [first_cpu]) if number == 1 else ([], [])
    spent = first
    while len(times) < repeats and (spent < cap or len(times) < 3):
        c0, t0 = time.process_time(), perf()
        for _ in range(number):
            out = fn()
        dt = perf() - t0
        spent += dt
        times.append(dt / number)
        cpus.append((time.process_time() - c0) / number)
    return Timing(statistics.median(cpus), statistics.median(times)), out


def measure_together(fns, repeats):
    """``{name: (Timing, output)}``: the callables timed in turn (A, B, C, A, B, C, ...) by ``_harness``.

    One call each first gives the output that is checked (and compiles); the medians are over the rounds.
    """
    outs = {name: fn() for name, fn in fns.items()}
    times = harness_interleaved(fns, repeats)
    return {
        name: (Timing(np.median(t["cpu"]), np.median(t["wall"])), outs[name]) for name, t in times.items()
    }


def fmt_time(t):
    if t is None:
        return "-"
    if isinstance(t, Timing):
        return f"{fmt_time(float(t))} (wall {fmt_time(t.wall)})"
    if t < 1e-3:
        return f"{t * 1e6:.1f} µs"
    if t < 1:
        return f"{t * 1e3:.2f} ms"
    return f"{t:.2f} s"


def fmt_ratio(r):
    if r is None:
        return "-"
    return f"{r:,.0f}x" if r >= 100 else f"{r:.1f}x"


# ====================================================================== numpy references (independent of dstk)
def np_superset_sum(x, n, sign=1.0):
    """Superset sums (sign=+1) or their inverse (sign=-1) over the last axis, numpy views."""
    y = np.array(x, dtype=np.float64, copy=True)
    view = y.reshape(y.shape[:-1] + (2,) * n)  # bit i <-> axis -(i + 1)
    for i in range(n):
        ax = view.ndim - 1 - i
        lo = [slice(None)] * view.ndim
        hi = [slice(None)] * view.ndim
        lo[ax], hi[ax] = 0, 1
        view[tuple(lo)] += sign * view[tuple(hi)]
    return y


def np_dempster(m1, m2, n):
    q = np_superset_sum(m1, n) * np_superset_sum(m2, n)
    m = np_superset_sum(q, n, -1.0)
    m[..., 0] = 0.0
    return m / m.sum(axis=-1, keepdims=True)


def brute_dempster(m1, m2):
    """Definition: pairwise enumeration of focal sets (pure Python; small n only)."""
    size = len(m1)
    out = np.zeros(size)
    for a in range(size):
        if m1[a]:
            for b in range(size):
                if m2[b]:
                    out[a & b] += m1[a] * m2[b]
    out[0] = 0.0
    return out / out.sum()


_PIGNISTIC_TABLES = {}


def np_pignistic(m, n):
    """BetP = (m / |A|) @ membership, with the table cached per n (BLAS matrix product)."""
    if n not in _PIGNISTIC_TABLES:
        subsets = np.arange(1 << n)
        member = ((subsets[:, None] >> np.arange(n)[None, :]) & 1).astype(np.float64)
        card = member.sum(axis=1)
        inv = np.zeros(1 << n)
        inv[1:] = 1.0 / card[1:]
        _PIGNISTIC_TABLES[n] = member * inv[:, None]
    return (m @ _PIGNISTIC_TABLES[n]) / (1.0 - m[..., 0])


def np_cautious(m1, m2, n):
    """Denoeux (2008): min of the conjunctive log-weights, back to masses (unnormalised)."""
    full = (1 << n) - 1

    def log_weights(m):
        lw = -np_superset_sum(np.log(np_superset_sum(m, n)), n, -1.0)
        lw[full] = 0.0
        return lw

    lw = np.minimum(log_weights(m1), log_weights(m2))
    log_q = lw.sum() - np_superset_sum(lw, n)
    return np_superset_sum(np.exp(log_q), n, -1.0)


def np_forest_dempster(M):
    """K binary masses per row by Dempster, in the log domain: m({0}) ∝ Q1 - Q3 etc."""
    log_q1 = np.log(M[..., 1] + M[..., 3]).sum(axis=1)
    log_q2 = np.log(M[..., 2] + M[..., 3]).sum(axis=1)
    log_q3 = np.log(M[..., 3]).sum(axis=1)
    top = np.maximum(log_q1, log_q2)
    q1, q2, q3 = np.exp(log_q1 - top), np.exp(log_q2 - top), np.exp(log_q3 - top)
    out = np.stack([np.zeros_like(q1), q1 - q3, q2 - q3, q3], axis=-1)
    return out / out.sum(axis=-1, keepdims=True)


def np_sparse_dempster(f1, w1, f2, w2):
    """Focal-set Dempster: outer AND of bitmasks, merge by unique + bincount."""
    sets = np.bitwise_and.outer(f1, f2).ravel()
    prod = np.multiply.outer(w1, w2).ravel()
    keep = sets != 0
    uniq, inv = np.unique(sets[keep], return_inverse=True)
    masses = np.bincount(inv, weights=prod[keep], minlength=uniq.size)
    return uniq, masses / masses.sum()


# ====================================================================== data
def random_full_mass(rng, n, with_empty=False):
    size = 1 << n
    m = np.zeros(size)
    if with_empty:
        m[:] = rng.dirichlet(np.ones(size))
    else:
        m[1:] = rng.dirichlet(np.ones(size - 1))
    return m


def make_forest(rng, n_samples, n_trees):
    """m({0}) = (1-e) p, m({1}) = (1-e)(1-p), m(frame) = e per sample and tree (research note 5b)."""
    truth = rng.beta(2, 2, size=(n_samples, 1))
    p = np.clip(rng.normal(truth, 0.25, size=(n_samples, n_trees)), 0.01, 0.99)
    e = rng.uniform(0.05, 0.5, size=(n_samples, n_trees))
    M = np.zeros((n_samples, n_trees, 4))
    M[..., 1] = (1 - e) * p
    M[..., 2] = (1 - e) * (1 - p)
    M[..., 3] = e
    return M


def random_focal_sets(rng, n, n_focal):
    """n_focal distinct non-empty bitmasks on n labels (the frame included) and Dirichlet masses."""
    full = (1 << n) - 1
    sets = {full}
    while len(sets) < n_focal:
        x = int(rng.integers(1, 1 << min(n, 62), dtype=np.int64))
        if n > 62:
            x |= int(rng.integers(0, 1 << (n - 62))) << 62
        sets.add(x & full)
    sets.discard(0)
    focal = np.array(sorted(sets), dtype=np.uint64)
    return focal, rng.dirichlet(np.ones(focal.size))


LETTERS = [chr(ord("a") + i) for i in range(26)]


def pyds_mass(pyds, m, n):
    return pyds.MassFunction(
        {
            frozenset(LETTERS[i] for i in range(n) if a >> i & 1): float(m[a])
            for a in range(len(m))
            if m[a] != 0.0
        }
    )


def pyds_to_dense(obj, n):
    out = np.zeros(1 << n)
    for subset, v in obj.items():
        out[sum(1 << LETTERS.index(x) for x in subset)] += v
    return out


# ====================================================================== workloads
class Report:
    def __init__(self):
        self.sections = []
        self.checks = []

    def table(self, key, title, header, rows, note=""):
        self.sections.append((key, title, header, rows, note))
        widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(header)]
        print(f"\n## ({key}) {title}")
        print("  ".join(str(h).ljust(w) for h, w in zip(header, widths)))
        for r in rows:
            print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
        if note:
            print(note)

    def target(self, key, competitor, ratio, what):
        need = TARGETS.get((key, competitor))
        if need is None:
            return
        ok = ratio is not None and ratio >= need
        self.checks.append((key, f"{what} vs {competitor}", f">= {need:g}x", fmt_ratio(ratio), ok))


def sized_workload(report, key, op, sizes, repeats, tb, pyds, rng, pyds_max_n):
    """Workloads a (dempster), c (pignistic), d (cautious) over frame sizes."""
    results = {}
    for n in sizes:
        frame = Frame(LETTERS[:n])
        with_empty = op == "cautious"  # non-dogmatic: all 2**n subsets have mass
        m1, m2 = random_full_mass(rng, n, with_empty), random_full_mass(rng, n, with_empty)
        A, B = MassFunction.from_array(m1, frame), MassFunction.from_array(m2, frame)
        stack = np.ascontiguousarray(np.stack([m1, m2])[None])
        row = {}
        extra = None
        if op == "dempster":
            ref = np_dempster(m1, m2, n)
            if n <= 6:  # the numpy reference itself against the definition
                report_ref = float(np.abs(ref - brute_dempster(m1, m2)).max())
                assert report_ref < 1e-12, report_ref
            public = lambda: combine([A, B], rule="dempster")  # noqa: E731
            kernel = lambda: kernels.conjunctive(stack, True)[0]  # noqa: E731
            rows1, rows2 = m1[None], m2[None]
            extra = ("dstk pair kernel", lambda: kernels.conjunctive((rows1, rows2), True)[0])
            reference = lambda: np_dempster(m1, m2, n)  # noqa: E731
            unpack = lambda out: out.to_array()  # noqa: E731
        elif op == "pignistic":
            ref = np_pignistic(m1, n)
            inv = transform_kernels.inverse_cardinalities(1 << n)
            rows_ = m1[None]
            public = lambda: A.pignistic()  # noqa: E731
            kernel = lambda: transform_kernels.pignistic(rows_, n, inv)[0]  # noqa: E731
            reference = lambda: np_pignistic(m1, n)  # noqa: E731
            unpack = lambda out: out  # noqa: E731
        else:
            ref = np_cautious(m1, m2, n)
            public = lambda: combine([A, B], rule="cautious")  # noqa: E731

            def kernel(stack=stack):
                out = np.empty((stack.shape[0], stack.shape[2]))
                kernels.cautious(stack, out, np.empty(stack.shape[2]))
                return out[0]

            reference = lambda: np_cautious(m1, m2, n)  # noqa: E731
            unpack = lambda out: out.to_array()  # noqa: E731
        fns = {"dstk": public, "dstk kernel": kernel, "numpy ref": reference}
        if extra is not None:
            fns[extra[0]] = extra[1]
        if tb is not None:
            torch, tbl = tb
            tframe = tbl.Frame(n, LETTERS[:n])
            ta, tb_ = torch.tensor(m1), torch.tensor(m2)
            if op == "dempster":
                fns["torchbelief"] = lambda: tbl.dempster(ta, tb_, tframe)[0]
            elif op == "pignistic":
                fns["torchbelief"] = lambda: tbl.pignistic(ta, tframe)
            else:
                fns["torchbelief"] = lambda: tbl.cautious(ta, tb_, tframe, normalise=False)[0]
        timed = measure_together(fns, repeats)  # interleaved, CPU and wall
        row["dstk"] = (timed["dstk"][0], float(np.abs(unpack(timed["dstk"][1]) - ref).max()))
        row["dstk kernel"] = (timed["dstk kernel"][0], float(np.abs(timed["dstk kernel"][1] - ref).max()))
        if extra is not None:
            row[extra[0]] = (timed[extra[0]][0], float(np.abs(timed[extra[0]][1] - ref).max()))
        row["numpy ref"] = (timed["numpy ref"][0], 0.0)
        if "torchbelief" in timed:
            t, out = timed["torchbelief"]
            row["torchbelief"] = (t, float(np.abs(out.numpy() - ref).max()))
        if pyds is not None and op != "cautious" and n <= pyds_max_n:
            pa, pb = pyds_mass(pyds, m1, n), pyds_mass(pyds, m2, n)
            if op == "dempster":
                t, out = measure(lambda: pa.combine_conjunctive(pb), 3, cap=3.0)
                row["pyds"] = (t, float(np.abs(pyds_to_dense(out, n) - ref).max()))
            else:
                t, out = measure(lambda: pa.pignistic(), 3, cap=3.0)
                vec = np.array([out[frozenset((LETTERS[i],))] for i in range(n)])
                row["pyds"] = (t, float(np.abs(vec - ref).max()))
        results[n] = row
    libs = ["dstk", "dstk kernel", "dstk pair kernel", "numpy ref", "torchbelief", "pyds"]
    header = ["library"] + [f"n={n}" for n in sizes] + ["max abs diff"]
    rows = []
    for lib in libs:
        if not any(lib in results[n] for n in sizes):
            continue
        cells = [lib]
        worst = 0.0
        for n in sizes:
            if lib not in results[n]:
                cells.append("skip")
                continue
            t, d = results[n][lib]
            worst = max(worst, d)
            base = results[n]["dstk"][0]
            cells.append(fmt_time(t) if lib == "dstk" else f"{fmt_time(t)} ({fmt_ratio(t / base)})")
        cells.append(f"{worst:.1e}")
        rows.append(cells)
    what = {
        "dempster": "Dempster's rule, two masses with all focal sets",
        "pignistic": "Pignistic transform, a mass with all focal sets",
        "cautious": "Cautious rule (unnormalised), two non-dogmatic masses with all focal sets",
    }[op]
    report.table(
        key,
        what,
        header,
        rows,
        "time = median process CPU time (wall beside it), interleaved; (ratio) = that library's CPU time / dstk's public call's; max abs diff vs the numpy reference.",
    )
    n_top = max(sizes)
    if "torchbelief" in results[n_top]:
        report.target(
            key,
            "torchbelief",
            results[n_top]["torchbelief"][0] / results[n_top]["dstk"][0],
            f"{what.split(',')[0]}, n={n_top}",
        )
    return results


def forest_workload(report, n_samples, n_trees, repeats, tb, pyds, rng, pyds_cap):
    M = make_forest(rng, n_samples, n_trees)
    frame = Frame((0, 1))
    ref = np_forest_dempster(M)
    rows = []
    times = {}

    def add(name, t, out, how):
        times[name] = t
        rows.append([name, fmt_time(t), None, f"{float(np.abs(np.asarray(out) - ref).max()):.1e}", how])

    fns = {
        "dstk": lambda: combine(MassFunction.from_array(M, frame), rule="dempster", axis=1),
        "dstk (validate=False)": lambda: combine(
            MassFunction.from_array(M, frame, validate=False), rule="dempster", axis=1
        ),
        "dstk kernel": lambda: kernels.conjunctive(M, True)[0],
        "numpy ref": lambda: np_forest_dempster(M),
    }
    if tb is not None:
        torch, tbl = tb
        tframe = tbl.Frame(2, ["a", "b"])
        fns["torchbelief"] = lambda: tbl.combine(torch.from_numpy(M), tframe, rule="dempster")[0]
    timed = measure_together(fns, repeats)  # interleaved, CPU and wall
    t, out = timed["dstk"]
    add("dstk", t, out.to_array(), "combine(MassFunction.from_array(M, frame), axis=1) (validates)")
    t, out = timed["dstk (validate=False)"]
    add("dstk (validate=False)", t, out.to_array(), "same, from_array(..., validate=False)")
    t, out = timed["dstk kernel"]
    add("dstk kernel", t, out, "dstk._kernels.combination.conjunctive(M, True)")
    t, out = timed["numpy ref"]
    add("numpy ref", t, out, "log-domain product of commonalities, vectorised")
    if tb is not None:
        t, out = timed["torchbelief"]
        add("torchbelief", t, out.numpy(), "combine(tensor (N, K, 4), rule='dempster')")
    if pyds is not None:
        done, spent, spent_cpu, worst = 0, 0.0, 0.0, 0.0
        while done < n_samples and spent < pyds_cap:
            objs = [pyds_mass(pyds, M[done, k], 2) for k in range(n_trees)]
            c0, t0 = time.process_time(), perf()
            out = objs[0].combine_conjunctive(objs[1:])
            spent += perf() - t0
            spent_cpu += time.process_time() - c0
            worst = max(worst, float(np.abs(pyds_to_dense(out, 2) - ref[done]).max()))
            done += 1
        t = Timing(spent_cpu / done * n_samples, spent / done * n_samples)
        times["pyds"] = t
        how = "per-sample m0.combine_conjunctive(others)"
        if done < n_samples:
            how += f", {done} of {n_samples} samples timed, extrapolated (object construction excluded)"
        rows.append(["pyds", fmt_time(t), None, f"{worst:.1e}", how])
    base = times["dstk"]
    for r in rows:
        r[2] = fmt_ratio(times[r[0]] / base)
    report.table(
        "b",
        f"Dempster's rule, K = {n_trees} binary masses for N = {n_samples:,} samples, one call",
        ["library", "time for all N", "x dstk", "max abs diff", "how"],
        rows,
        "time = median process CPU time (wall beside it), interleaved (pyds: alone); x dstk = CPU time / dstk's public call's, with validation.",
    )
    for comp in ("torchbelief", "pyds"):
        if comp in times:
            report.target("b", comp, times[comp] / base, "forest workload (public call, validated)")
    return times


def sparse_workload(report, cases, repeats, tb, pyds, rng):
    rows = []
    ratios = {}
    for n, n_focal in cases:
        frame = Frame([f"v{i}" for i in range(n)])
        f1, w1 = random_focal_sets(rng, n, n_focal)
        f2, w2 = random_focal_sets(rng, n, n_focal)
        A = MassFunction.from_focal_sets(f1, w1, frame)
        B = MassFunction.from_focal_sets(f2, w2, frame)
        ref_f, ref_m = np_sparse_dempster(f1, w1, f2, w2)
        ref = dict(zip(ref_f.tolist(), ref_m.tolist()))

        def diff(got):
            keys = set(got) | set(ref)
            return max(abs(got.get(k, 0.0) - ref.get(k, 0.0)) for k in keys)

        def dstk_dict(mf):
            focal, masses = mf._focal_form()
            return {int(f): float(v) for f, v in zip(focal, masses) if v != 0.0}

        def kernel_path():
            unique, inverse = kernels.focal_set_pairs(f1, f2, True)
            masses = kernels.pair_products(w1[None], w2[None], inverse, unique.size)[0][0]
            keep = (unique != 0) & (masses != 0)
            return unique[keep], masses[keep] / masses[keep].sum()

        fns = {
            "dstk": lambda: combine([A, B], rule="dempster"),
            "dstk kernels": kernel_path,
            "numpy ref": lambda: np_sparse_dempster(f1, w1, f2, w2),
        }
        if tb is not None:
            torch, tbl = tb
            sa = tbl.SparseMass(torch.tensor(f1.astype(np.int64)), torch.tensor(w1), n)
            sb = tbl.SparseMass(torch.tensor(f2.astype(np.int64)), torch.tensor(w2), n)
            fns["torchbelief SparseMass"] = lambda sa=sa, sb=sb: sa.dempster(sb)[0]
        timed = measure_together(fns, repeats)  # interleaved, CPU and wall
        t, out = timed["dstk"]
        row = {"dstk": (t, diff(dstk_dict(out)))}
        t, out = timed["dstk kernels"]
        row["dstk kernels"] = (t, diff(dict(zip(out[0].tolist(), out[1].tolist()))))
        row["numpy ref"] = (timed["numpy ref"][0], 0.0)
        if tb is not None:
            t, out = timed["torchbelief SparseMass"]
            got = {int(k): float(v) for k, v in zip(out.focal.tolist(), out.weight.tolist())}
            row["torchbelief SparseMass"] = (t, diff(got))
        if pyds is not None:
            names = [f"v{i}" for i in range(n)]

            def to_pyds(f, w):
                return pyds.MassFunction(
                    {frozenset(names[i] for i in range(n) if int(a) >> i & 1): float(v) for a, v in zip(f, w)}
                )

            pa, pb = to_pyds(f1, w1), to_pyds(f2, w2)
            t, out = measure(lambda: pa.combine_conjunctive(pb), 3, cap=3.0)
            got = {sum(1 << names.index(x) for x in s): v for s, v in out.items()}
            row["pyds"] = (t, diff(got))
        for lib, (t, d) in row.items():
            rows.append([f"n={n}, F={n_focal}", lib, fmt_time(t), fmt_ratio(t / row["dstk"][0]), f"{d:.1e}"])
        if "torchbelief SparseMass" in row:
            ratios[(n, n_focal)] = row["torchbelief SparseMass"][0] / row["dstk"][0]
    report.table(
        "s",
        "Dempster's rule in focal-set form (two masses, F focal sets each)",
        ["case", "library", "time", "x dstk", "max abs diff"],
        rows,
    )
    if (60, 256) in ratios:
        report.target("s", "torchbelief", ratios[(60, 256)], "focal-set form n=60, F=256")


def readme_workload(report, repeats, tb, rng):
    """Workload r: the README's comparison rows, dstk and torchbelief timed alternately (ratio per round)."""
    if tb is None:
        print("[skip] workload r needs torchbelief")
        return
    torch, tbl = tb
    cases = {}
    n = 15
    frame = Frame(range(n))
    tframe = tbl.Frame(n, LETTERS[:n])
    m1, m2 = random_full_mass(rng, n), random_full_mass(rng, n)
    c1, c2 = random_full_mass(rng, n, True), random_full_mass(rng, n, True)
    A, B = MassFunction.from_array(m1, frame), MassFunction.from_array(m2, frame)
    C, D = MassFunction.from_array(c1, frame), MassFunction.from_array(c2, frame)
    ta, tb_, tc, td = (torch.tensor(x) for x in (m1, m2, c1, c2))
    cases["Dempster, two masses with all focal sets, n = 15"] = (
        lambda: combine([A, B], rule="dempster"),
        lambda: tbl.dempster(ta, tb_, tframe)[0],
    )
    cases["pignistic, n = 15"] = (lambda: A.pignistic(), lambda: tbl.pignistic(ta, tframe))
    cases["cautious rule (unnormalised), n = 15"] = (
        lambda: combine([C, D], rule="cautious"),
        lambda: tbl.cautious(tc, td, tframe, normalise=False)[0],
    )
    M = make_forest(rng, 10_000, 100)
    tM = torch.from_numpy(M)
    two = Frame((0, 1))
    cases["100 binary masses x 10,000 samples, Dempster, validated"] = (
        lambda: combine(MassFunction.from_array(M, two), rule="dempster", axis=1),
        lambda: tbl.combine(tM, tbl.Frame(2, ["a", "b"]), rule="dempster")[0],
    )
    names = [f"v{i}" for i in range(60)]
    (f1, w1), (f2, w2) = random_focal_sets(rng, 60, 256), random_focal_sets(rng, 60, 256)
    frame60 = Frame(names)
    S1 = MassFunction.from_focal_sets(f1, w1, frame60)
    S2 = MassFunction.from_focal_sets(f2, w2, frame60)
    sa = tbl.SparseMass(torch.tensor(f1.astype(np.int64)), torch.tensor(w1), 60)
    sb = tbl.SparseMass(torch.tensor(f2.astype(np.int64)), torch.tensor(w2), 60)
    cases["focal-set form, n = 60, 256 focal sets each"] = (
        lambda: combine([S1, S2], rule="dempster"),
        lambda: sa.dempster(sb)[0],
    )
    rows = []
    with pinned_threads(1):
        for what, (ours, theirs) in cases.items():
            cpu = {}
            times = interleaved({"dstk": ours, "torchbelief": theirs}, repeats, cpu=cpu)
            _, text = ratio_summary(cpu["torchbelief"], cpu["dstk"])
            wall, _ = ratio_summary(times["torchbelief"], times["dstk"])
            rows.append(
                [
                    what,
                    fmt_time(Timing(statistics.median(cpu["dstk"]), statistics.median(times["dstk"]))),
                    fmt_time(
                        Timing(statistics.median(cpu["torchbelief"]), statistics.median(times["torchbelief"]))
                    ),
                    text,
                    f"{wall:.2f}x",
                ]
            )
    report.table(
        "r",
        "README rows: dstk's public call and torchbelief timed alternately",
        ["workload", "dstk, CPU (wall)", "torchbelief, CPU (wall)", "torchbelief / dstk, CPU", "wall ratio"],
        rows,
        "Interleaved rounds (dstk, torchbelief, dstk, ...), median process CPU time of each (wall beside it) "
        "and the median (IQR, range) of the per-round CPU ratio; the wall ratio is the median per-round "
        "ratio of the wall times; BLAS / OpenMP, numba and torch pinned to one thread.",
    )


WARMUP_FIRST_CALLS = r"""
import time
t0, c0 = time.perf_counter(), time.process_time()
import dstk
t1, c1 = time.perf_counter(), time.process_time()
from dstk import Frame, MassFunction, combine  # imports numpy, numba and the core
t2, c2 = time.perf_counter(), time.process_time()
f = Frame("abc")
a = MassFunction.from_array([0.0, 0.2, 0.1, 0.1, 0.2, 0.1, 0.1, 0.2], f)
b = MassFunction.from_array([0.0, 0.1, 0.3, 0.1, 0.1, 0.1, 0.1, 0.2], f)
combine([a, b], rule="dempster")
a.pignistic()
combine([a, b], rule="cautious")
t3, c3 = time.perf_counter(), time.process_time()
combine([a, b], rule="dempster")
a.pignistic()
combine([a, b], rule="cautious")
t4, c4 = time.perf_counter(), time.process_time()
from numba.core.registry import CPUDispatcher
from dstk._kernels import combination, transforms
hits = misses = 0
for module in (combination, transforms):
    for obj in vars(module).values():
        if isinstance(obj, CPUDispatcher):
            hits += sum(obj.stats.cache_hits.values())
            misses += sum(obj.stats.cache_misses.values())
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3, c1 - c0, c2 - c1, c3 - c2, c4 - c3, hits, misses)
"""


def run_fresh(code, env_extra=None):
    env = dict(os.environ)
    env.update(env_extra or {})
    env["PYTHONPATH"] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..") + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return [float(x) for x in res.stdout.split()]


def warmup_workload(report, runs):
    """Workload w: fresh processes; each time is the process CPU time (wall beside it)."""
    with tempfile.TemporaryDirectory() as cache_dir:
        env = {"NUMBA_CACHE_DIR": cache_dir}
        cold = run_fresh(WARMUP_FIRST_CALLS, env)  # empty cache: compiles and writes the cache
        warm = [run_fresh(WARMUP_FIRST_CALLS, env) for _ in range(runs)]

    def timing(values, i):  # i: the step; walls at 0-3, CPU times at 4-7
        return Timing(values[4 + i], values[i])

    def med(i):
        return Timing(statistics.median(w[4 + i] for w in warm), statistics.median(w[i] for w in warm))

    rows = [
        [
            "cold cache (empty NUMBA_CACHE_DIR)",
            *(fmt_time(timing(cold, i)) for i in range(4)),
            f"{cold[8]:.0f} / {cold[9]:.0f}",
        ],
        [
            f"warm cache (later processes, median of {runs})",
            *(fmt_time(med(i)) for i in range(4)),
            f"{max(w[8] for w in warm):.0f} / {max(w[9] for w in warm):.0f}",
        ],
    ]
    report.table(
        "w",
        "JIT warm-up in fresh processes (Dempster + pignistic + cautious on a 3-label frame)",
        [
            "case",
            "import dstk",
            "+ core (numpy, numba)",
            "first calls",
            "same calls again",
            "kernel cache hits / compiles",
        ],
        rows,
        "Process CPU time (wall beside it). 'import dstk' is lazy; the core names import numba. With a warm "
        "cache the first calls compile nothing (0 compiles): their time is numba's one-off start-up in a "
        "process (loading its registries, which imports scipy.linalg) plus loading the cached machine code.",
    )
    imp = Timing(float(med(0)) + float(med(1)), med(0).wall + med(1).wall)
    report.checks.append(
        (
            "w",
            "import dstk + core names (CPU)",
            f"< {IMPORT_TARGET_S} s",
            fmt_time(imp),
            imp < IMPORT_TARGET_S,
        )
    )
    misses = max(w[9] for w in warm)
    report.checks.append(
        (
            "w",
            "warm cache: second process compiles nothing",
            "0 compiles",
            f"{misses:.0f} compiles, first calls {fmt_time(med(2))} (cold {fmt_time(timing(cold, 2))})",
            misses == 0,
        )
    )


# ====================================================================== public path, form switch, cold start
def interleaved(fns, repeats, cpu=None):
    """Time the callables of ``fns`` in turn (A, B, C, A, B, C, ...); seconds per call, per round.

    One warm-up call each first (not counted).  Each round times one call of
    each callable (calls shorter than 2 ms are repeated within the round).
    When ``cpu`` is a dict, it receives the process CPU time per call and
    round as well (on a loaded machine, less disturbed by other jobs than the
    wall time for single-threaded code; for threaded code it includes the
    threads' waiting).
    """
    numbers = {}
    for name, fn in fns.items():
        fn()
        t0 = perf()
        fn()
        numbers[name] = max(1, int(0.002 / max(perf() - t0, 1e-7)))
    times = {name: [] for name in fns}
    if cpu is not None:
        cpu.update({name: [] for name in fns})
    for _ in range(repeats):
        for name, fn in fns.items():
            number = numbers[name]
            c0 = time.process_time()
            t0 = perf()
            for _ in range(number):
                fn()
            times[name].append((perf() - t0) / number)
            if cpu is not None:
                cpu[name].append((time.process_time() - c0) / number)
    return times


def ratio_summary(num, den):
    """Median ratio num/den over the rounds and its range (min-max), as text and number."""
    r = [a / b for a, b in zip(num, den)]
    q1, med, q3 = np.percentile(r, [25, 50, 75])
    return med, f"{med:.2f}x (IQR {q1:.2f}-{q3:.2f}, range {min(r):.2f}-{max(r):.2f})"


def with_threads(n):
    import numba

    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))


def _binary_masses(rng, n_rows, k):
    """(n_rows, k, 4) C-contiguous binary masses, m(empty) = 0, the rest Dirichlet(1, 1, 1)."""
    m = rng.dirichlet(np.ones(3), size=(n_rows, k))
    return np.ascontiguousarray(np.concatenate([np.zeros((n_rows, k, 1)), m], axis=-1))


def fold_workload(report, n_samples, repeats, rng):
    """Workload f: the public fold against one read of its input (np.sum), 1 and 2 threads."""
    import numba

    frame2, frame3 = Frame("ab"), Frame("abc")

    def masses(k, size):
        m = rng.dirichlet(np.ones(size - 1), size=(n_samples, k))
        return np.ascontiguousarray(np.concatenate([np.zeros((n_samples, k, 1)), m], axis=-1))

    M = masses(100, 4)
    rows = []
    summary = {}
    for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
        with_threads(threads)
        cpu = {}
        times = interleaved(
            {
                "np.sum": lambda: M.sum(),
                "validated": lambda: combine(MassFunction.from_array(M, frame2), axis=1),
                "validate=False": lambda: combine(MassFunction.from_array(M, frame2, validate=False), axis=1),
                "kernel": lambda: kernels.conjunctive(M, True),
            },
            repeats,
            cpu,
        )
        for name in ("validated", "validate=False", "kernel"):
            med, text = ratio_summary(times[name], times["np.sum"])
            cpu_med, cpu_text = ratio_summary(cpu[name], cpu["np.sum"])
            summary[(threads, name)] = (med, cpu_med)
            rows.append(
                [
                    f"{threads}",
                    name,
                    fmt_time(statistics.median(times[name])),
                    fmt_time(statistics.median(times["np.sum"])),
                    text,
                    cpu_text,
                ]
            )
    with_threads(1)
    report.table(
        "f",
        f"Public fold: Dempster's rule of K = 100 binary masses x N = {n_samples:,} samples against np.sum of the same 32 MB",
        [
            "threads",
            "dstk call",
            "time",
            "np.sum (same rounds)",
            "ratio to np.sum (wall)",
            "ratio to np.sum (CPU)",
        ],
        rows,
        "validated = combine(MassFunction.from_array(M, frame), axis=1): the check runs inside the fold kernel "
        "(the array is read once, not copied); kernel = dstk._kernels.combination.conjunctive(M, True). "
        "Interleaved rounds; ratio = dstk / np.sum per round, median (IQR, range); CPU = process CPU time, "
        "less disturbed by the other jobs of a loaded machine than the wall time (with 2 threads it includes "
        "the OpenMP threads' spinning).",
    )
    cpu_ratio = summary[(1, "validated")][1]  # CPU, not the lower of wall and CPU (the luckier one)
    report.checks.append(
        (
            "f",
            "validated public fold / np.sum of its input (1 thread, CPU)",
            "<= 2x",
            f"{cpu_ratio:.2f}x",
            cpu_ratio <= 2.0,
        )
    )

    # one thread against two, over input sizes (the default threshold of the threaded kernel)
    rows = []
    for n_rows in (n_samples // 4, n_samples, 4 * n_samples):
        big = M if n_rows == n_samples else _binary_masses(rng, n_rows, 100)
        with_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        times = interleaved(
            {
                "1 thread": lambda: kernels.conjunctive(big, True, parallel=False),
                "2 threads": lambda: kernels.conjunctive(big, True, parallel=True),
            },
            repeats,
        )
        _, text = ratio_summary(times["2 threads"], times["1 thread"])
        rows.append(
            [
                f"{big.size:,}",
                fmt_time(statistics.median(times["1 thread"])),
                fmt_time(statistics.median(times["2 threads"])),
                text,
            ]
        )
    with_threads(1)
    report.table(
        "f3",
        "Threaded fold kernel: Dempster's rule of K = 100 binary masses, one thread against two (wall time)",
        ["values", "1 thread", "2 threads", "2 threads / 1 thread"],
        rows,
        f"Interleaved rounds, median (IQR, range). The default spreads rows over threads from "
        f"{kernels.PARALLEL_MIN_VALUES:,} values (dstk._kernels.combination.PARALLEL_MIN_VALUES).",
    )

    # two sources vs ten; ternary vs binary (per row and source)
    with_threads(1)
    M2, M10, M3 = masses(2, 4), masses(10, 4), masses(10, 8)
    a2 = MassFunction.from_array(M2[:, 0], frame2)
    b2 = MassFunction.from_array(M2[:, 1], frame2)
    m10 = MassFunction.from_array(M10, frame2)
    m3 = MassFunction.from_array(M3, frame3)
    cpu = {}
    times = interleaved(
        {
            "two binary sources (list of 2)": lambda: combine([a2, b2]),
            "ten binary sources (axis=1)": lambda: combine(m10, axis=1),
            "ten ternary sources (axis=1)": lambda: combine(m3, axis=1),
        },
        repeats,
        cpu,
    )
    per = {
        "two binary sources (list of 2)": 2,
        "ten binary sources (axis=1)": 10,
        "ten ternary sources (axis=1)": 10,
    }
    base = times["ten binary sources (axis=1)"]
    cpu_base = cpu["ten binary sources (axis=1)"]
    rows = []
    for name, t in times.items():
        _, text = ratio_summary(t, base)
        _, cpu_text = ratio_summary(cpu[name], cpu_base)
        per_row = statistics.median(t) / n_samples * 1e9
        per_source = statistics.median(cpu[name]) / n_samples / per[name] * 1e9
        rows.append(
            [
                name,
                fmt_time(statistics.median(t)),
                f"{per_row:.1f} ns",
                f"{per_source:.1f} ns",
                text,
                cpu_text,
            ]
        )
    report.table(
        "f2",
        f"Cost per row, N = {n_samples:,} rows, Dempster's rule, validated inputs, 1 thread",
        [
            "call",
            "time",
            "per row (wall)",
            "per row and source (CPU)",
            "x ten binary sources, per row (wall)",
            "x ten binary sources, per row (CPU)",
        ],
        rows,
        "Inputs built (and checked) beforehand; the call is the public combine. Interleaved rounds, "
        "median (IQR, range).",
    )


def random_focal(rng, n, count):
    count = min(count, (1 << n) - 1)
    if n <= 20:
        masks = rng.choice(np.arange(1, 1 << n, dtype=np.int64), size=count, replace=False)
    else:
        masks = np.unique(rng.integers(1, 1 << min(n, 62), size=2 * count, dtype=np.int64))[:count]
        if n == 64:
            masks = masks | (1 << 62)
    return masks.astype(np.uint64)


def switch_workload(report, labels, counts, rng, budget, max_pairs=1 << 26):
    """Workload x: Dempster's rule of two mass functions with F focal sets, frames of n labels."""
    rows = []
    for n in labels:
        frame = Frame(range(n))
        row = [str(n)]
        for count in counts:
            if count > (1 << n) - 1:
                row.append("-")
                continue
            if n > 26 and count * count > max_pairs:
                row.append("skipped")
                continue
            f1, f2 = random_focal(rng, n, count), random_focal(rng, n, count)
            m1 = MassFunction.from_focal_sets(f1, rng.dirichlet(np.ones(f1.size)), frame)
            m2 = MassFunction.from_focal_sets(f2, rng.dirichlet(np.ones(f2.size)), frame)
            try:
                t0 = perf()
                combine([m1, m2], rule="conjunctive")  # warm-up (compiles)
                t0 = perf()
                combine([m1, m2], rule="conjunctive")
                t = perf() - t0
                if t < budget / 10:
                    t, _ = measure(lambda: combine([m1, m2], rule="conjunctive"), 3, cap=budget)
                row.append(fmt_time(t))
            except Exception as error:  # memory guard
                row.append(type(error).__name__)
        rows.append(row)
        print("  ", row)
    report.table(
        "x",
        "Conjunctive rule of two mass functions with F random focal sets each (public call), frames of n labels",
        ["n labels"] + [f"F={c:,}" for c in counts],
        rows,
        "Frames of up to 16 labels are stored densely; larger ones in focal-set form, combined densely "
        "when that is cheaper (up to 26 labels, within the memory limit) and otherwise by pairs of focal "
        "sets (hash table of the distinct results when they are few, radix sort of the pairs otherwise). "
        "'-': more focal sets than subsets; FrameTooLargeError: the memory guard refused before allocating. "
        "One call when it takes more than a tenth of the budget, else the median of 3. 'skipped': more "
        "than 2**26 pairs on a frame too large for the dense form (minutes on the loaded machine).",
    )


COLD_CALL = r"""
import sys, time
t0 = time.perf_counter(); c0 = time.process_time()
import numpy as np
from dstk import Frame, MassFunction, combine
what = sys.argv[1]
if what == "from_counts":
    from dstk.evidence import from_counts
elif what.endswith("Calibrator"):
    import dstk.calibration
elif what == "RandomDecisionTreesClassifier":
    from dstk.ensemble import RandomDecisionTreesClassifier
t1 = time.perf_counter(); c1 = time.process_time()
if what == "combine":
    a = MassFunction({"a": 0.6, "a,b": 0.4})
    b = MassFunction({"b": 0.7, "a,b": 0.3})
    combine([a, b])
elif what == "combine_ternary_batch":
    m = MassFunction.from_array(np.full((100, 5, 8), 1 / 8), Frame("abc"))
    combine(m, axis=1)
elif what == "from_counts":
    from_counts(np.array([[4, 3], [0, 1]]))  # two binary count rows [n_negative, n_positive]
elif what.endswith("Calibrator"):
    rng = np.random.default_rng(0)
    scores = rng.normal(size=400)
    y = (rng.random(400) < 1 / (1 + np.exp(-2 * scores))).astype(int)
    options = {"LogisticCalibrator": {"model": "likelihood"}}.get(what, {})
    calibrator = getattr(dstk.calibration, what)(**options).fit(scores, y)
    calibrator.predict_proba(scores[:50])
    if hasattr(calibrator, "predict_mass"):
        calibrator.predict_mass(scores[:50])
elif what == "RandomDecisionTreesClassifier":
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    RandomDecisionTreesClassifier(n_estimators=10, random_state=0).fit(X, y).predict_proba(X[:50])
t2 = time.perf_counter(); c2 = time.process_time()
# imports wall, the call's wall, process CPU (imports included), the call's CPU
print(t1 - t0, t2 - t1, c2 - c0, c2 - c1)
"""


def run_script(args, env_extra):
    env = dict(os.environ)
    env.update(env_extra)
    env["PYTHONPATH"] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..") + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""
    )
    t0 = perf()
    res = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env)
    if res.returncode:
        raise RuntimeError(res.stderr[-2000:])
    return perf() - t0, res.stdout


#: First calls timed by workload k (``--cold-calls all`` adds the calibrators and the trees).
COLD_CALLS = ("combine", "combine_ternary_batch", "from_counts")
COLD_CALLS_ALL = COLD_CALLS + (
    "LogisticCalibrator",
    "IsotonicCalibrator",
    "BinningCalibrator",
    "VennAbersCalibrator",
    "IsotonicRegressionCalibrator",
    "PlattCalibrator",
    "RandomDecisionTreesClassifier",
)


def cold_workload(report, runs, demo, calls=COLD_CALLS):
    """Workload k: first calls in fresh processes with an empty numba cache, then warm."""
    rows = []
    for what in calls:
        colds, warms = [], []
        for _ in range(runs):
            with tempfile.TemporaryDirectory() as cache_dir:
                env = {"NUMBA_CACHE_DIR": cache_dir}
                _, out = run_script(["-c", COLD_CALL, what], env)
                colds.append([float(x) for x in out.split()])
                _, out = run_script(["-c", COLD_CALL, what], env)
                warms.append([float(x) for x in out.split()])
        cold = [statistics.median(c[i] for c in colds) for i in range(3)]
        warm = [statistics.median(w[i] for w in warms) for i in range(3)]
        rows.append(
            [
                what,
                fmt_time(cold[0]),
                fmt_time(cold[1]),
                f"{cold[2]:.2f} s",
                fmt_time(warm[1]),
                f"{min(c[1] for c in colds):.2f}-{max(c[1] for c in colds):.2f} s",
            ]
        )
        report.checks.append(("k", f"cold first call of {what}", "<= 2 s", fmt_time(cold[1]), cold[1] <= 2.0))
    report.table(
        "k",
        f"Cold start: fresh process, empty NUMBA_CACHE_DIR, then the same with the cache written (median of {runs})",
        [
            "first call",
            "imports",
            "first call (cold)",
            "process CPU (cold)",
            "first call (warm cache)",
            "cold range",
        ],
        rows,
    )
    if demo:
        with tempfile.TemporaryDirectory() as cache_dir:
            env = {"NUMBA_CACHE_DIR": cache_dir}
            cold, _ = run_script(["-m", "dstk", "demo"], env)
            warm, _ = run_script(["-m", "dstk", "demo"], env)
        report.table(
            "k2",
            "python -m dstk demo: cold (empty NUMBA_CACHE_DIR) and warm, wall time",
            ["cold", "warm", "cold / warm"],
            [[fmt_time(cold), fmt_time(warm), f"{cold / warm:.2f}x"]],
        )
        report.checks.append(
            ("k", "cold demo / warm demo", "<= 1.5x", f"{cold / warm:.2f}x", cold / warm <= 1.5)
        )


# ====================================================================== machine and output
def machine_description():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import numba

    parts = [
        f"CPU: {cpu}, {os.cpu_count()} logical cores (single-threaded unless a table says otherwise)",
        f"Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
        f"dstk {getattr(dstk, '__version__', '?')}",
    ]
    try:
        import torch
        import torchbelief

        parts.append(f"torch {torch.__version__}, torchbelief {torchbelief.__version__}")
    except Exception:
        pass
    try:
        from importlib.metadata import version

        parts.append(f"py-dempster-shafer {version('py-dempster-shafer')}")
    except Exception:
        pass
    try:
        from threadpoolctl import threadpool_info

        blas = [
            f"{i.get('internal_api')} {i.get('version')} ({i.get('architecture')})" for i in threadpool_info()
        ]
        parts.append("BLAS: " + ", ".join(blas))
    except Exception:
        pass
    parts.append("OPENBLAS_CORETYPE=" + os.environ.get("OPENBLAS_CORETYPE", "(unset)"))
    return parts


def write_markdown(report, path, machine, argv):
    lines = ["# dstk core benchmark results", "", f"Command: `python benchmarks/{' '.join(argv)}`", ""]
    lines += [f"- {m}" for m in machine]
    lines += ["", "## Targets (issue 2)", "", "| workload | target | measured | met |", "|---|---|---|---|"]
    for key, what, need, got, ok in report.checks:
        lines.append(f"| ({key}) {what} | {need} | {got} | {'yes' if ok else '**no**'} |")
    for key, title, header, rows, note in report.sections:
        lines += ["", f"## ({key}) {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
        if note:
            lines += ["", note]
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes and repeats, N = 2,000 (smoke run)")
    parser.add_argument(
        "--only", default="a,b,c,d,s,w,f,x,k", help="comma-separated workloads among a,b,c,d,s,w,f,x,k,r"
    )
    parser.add_argument("--demo", action="store_true", help="workload k also times `python -m dstk demo`")
    parser.add_argument(
        "--cold-calls",
        choices=("core", "all"),
        default="core",
        help="workload k: the core first calls, or all (each calibrator's fit/predict and the trees too)",
    )
    parser.add_argument("--cold-runs", type=int, default=None, help="workload k: fresh processes per call")
    parser.add_argument(
        "--repeats", type=int, default=None, help="timed repeats per case (default 7, quick 3)"
    )
    parser.add_argument("--md", default=None, help="also write the tables as markdown to this file")
    parser.add_argument("--json", default=None, help="also write raw results as JSON to this file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--pyds-path",
        default=None,
        help="directory holding pyds.py (a checkout of github.com/reineking/pyds)",
    )
    parser.add_argument(
        "--torchbelief-path",
        default=None,
        help="directory holding torch and torchbelief (e.g. pip install --target DIR torch==2.13.0 torchbelief)",
    )
    args = parser.parse_args(argv)
    only = set(args.only.split(","))
    repeats = args.repeats or (3 if args.quick else 7)
    sizes = [3, 8, 15] if args.quick else [3, 5, 8, 10, 12, 15]
    rng = np.random.default_rng(args.seed)

    with_threads(1)
    machine = machine_description()
    machine.append(
        f"load average at start: {os.getloadavg()[0]:.2f}, {os.getloadavg()[1]:.2f}, {os.getloadavg()[2]:.2f}"
    )
    machine.append(f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("\n".join(machine))
    tb = load_torchbelief(args.torchbelief_path)
    pyds = load_pyds(args.pyds_path)
    if pyds is not None and args.pyds_path:
        machine.append(f"pyds imported from a checkout: {pyds.__file__}")
    if tb is not None:
        machine.append(f"torch {tb[0].__version__}, torchbelief {getattr(tb[1], '__version__', '?')}")
    report = Report()
    raw = {}
    t_start = perf()
    with pinned_threads(1):  # BLAS / OpenMP, numba and torch on one thread for every library compared
        if "a" in only:
            raw["a"] = sized_workload(report, "a", "dempster", sizes, repeats, tb, pyds, rng, pyds_max_n=10)
        if "b" in only:
            raw["b"] = forest_workload(
                report,
                2000 if args.quick else 10000,
                100,
                repeats,
                tb,
                pyds,
                rng,
                pyds_cap=1.0 if args.quick else 5.0,
            )
        if "c" in only:
            raw["c"] = sized_workload(report, "c", "pignistic", sizes, repeats, tb, pyds, rng, pyds_max_n=12)
        if "d" in only:
            raw["d"] = sized_workload(report, "d", "cautious", sizes, repeats, tb, pyds, rng, pyds_max_n=0)
            print(
                "(pyds is not timed on the cautious rule: it raises ValueError (negative mass) on "
                "non-separable inputs already at n = 3, see the research note section 5d.)"
            )
        if "s" in only:
            cases = [(30, 32), (60, 256)] if args.quick else [(30, 32), (30, 256), (60, 256)]
            sparse_workload(report, cases, repeats, tb, pyds, rng)
    if "w" in only:
        warmup_workload(report, 3 if args.quick else 5)
    if "r" in only:
        readme_workload(report, 5 if args.quick else 15, tb, rng)
    if "f" in only:
        fold_workload(report, 2000 if args.quick else 10000, 5 if args.quick else 15, rng)
    if "x" in only:
        labels = [10, 16, 17, 24, 64] if args.quick else [10, 14, 16, 17, 18, 20, 22, 24, 26, 28, 32, 48, 64]
        counts = [16, 256, 4096] if args.quick else [16, 64, 256, 1024, 4096, 16384]
        switch_workload(report, labels, counts, rng, 2.0 if args.quick else 5.0)
    if "k" in only:
        cold_workload(
            report,
            args.cold_runs or (1 if args.quick else 3),
            args.demo,
            COLD_CALLS_ALL if args.cold_calls == "all" else COLD_CALLS,
        )
    machine.append(
        f"load average at end: {os.getloadavg()[0]:.2f}, {os.getloadavg()[1]:.2f}, {os.getloadavg()[2]:.2f}"
    )
    print(f"\n## Targets (issue 2)   [total benchmark time {perf() - t_start:.0f} s]")
    for key, what, need, got, ok in report.checks:
        print(f"  ({key}) {what}: {got}  (target {need})  {'MET' if ok else 'MISSED'}")
    if args.md:
        write_markdown(report, args.md, machine, ["bench_core.py"] + (argv or sys.argv[1:]))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"checks": report.checks, "sections": report.sections}, fh, indent=1, default=str)


if __name__ == "__main__":
    main()
