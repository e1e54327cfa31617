"""dstk.dask against the same work in memory: CPU seconds per unit of work, and 1 vs 2 workers.

Usage:
    python benchmarks/bench_dask.py                          # ~2-3 min on 2 free cores
    python benchmarks/bench_dask.py --samples 200000 --scores 2000000 --repeats 2   # quick check

Three workloads, each built from chunks generated inside the tasks from
(seed, position), so that the data never travel and both sides do exactly
the same work (the in-memory loop may use other chunk sizes,
``--memory-row-chunk`` and ``--memory-score-chunk``: the numbers drawn do not
depend on the chunking):

fusion blockwise  ``--samples`` x ``--sources`` binary mass functions, all
                  sources of a row in one chunk, combined by Dempster's rule
                  (``dstk.dask.combine_with_conflict``, reduction="blockwise").
fusion tree       the same masses with the source axis in chunks of
                  ``--source-chunk`` (reduction="tree", ``split_every=4``).
calibration       ``--scores`` scores turned into mass functions by a fitted
                  BinningCalibrator (``dstk.dask.predict_mass``).

Each workload ends in three scalars (sum of BetP({1}), sum of the conflict or
of m(empty), number of rows deciding {1}), checked equal on both sides; the
dask side computes them per chunk with one blockwise map (as a user's
``map_blocks`` would, so ``compute`` fuses it with the tasks that make the
chunk) and adds the per-chunk rows on the client, as the anchor does.

The anchor ("in memory") runs the same chunk generator and the same in-memory
dstk call (``dstk.combine_with_conflict`` on one row chunk with all its
sources, ``calibrator.predict_mass``) in a loop in a spawned process of its
own (this one also runs the clusters' schedulers and clients), with numba's
default threads or ``--memory-threads``; its CPU time (all threads) is the
in-memory cost.  The dask
side runs on a LocalCluster of 1 and of 2 worker processes (1 thread each,
the worker's sampling profiler off), with distributed's default malloc
settings ("dask"), the same followed by ``dstk.dask.tune_worker_malloc(client)``
("helper"), and workers started with tuned malloc environment variables
("tuned") (``--malloc``, see ``MALLOC``); its cost is the
CPU time of the workers during the computation; after each compute the
benchmark waits until the workers have freed its data.  The ratio in-memory
CPU / worker CPU is the per-worker-CPU-second throughput relative to memory
(1 = no overhead).  Each repeat times the in-memory loop, each cluster in a
rotated order, the plain processes (``--plain``: the same loop split over 1
and 2 processes, each holding its own chunks) and the in-memory loop again;
the mean of the two in-memory runs is that repeat's reference.  The table
gives medians and the min-max of the ratios.
"""

import argparse
import concurrent.futures
import functools
import gc
import multiprocessing
import os
import platform
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dask
import dask.array as da
import distributed
from _harness import environment

import dstk
from dstk.dask import DaskMassFunction, combine_with_conflict, predict_mass, tune_worker_malloc


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def usage():
    """(CPU seconds, system CPU seconds, minor page faults) of this process so far."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return np.array([ru.ru_utime + ru.ru_stime, ru.ru_stime, ru.ru_minflt])


# -- generated inputs (the same numbers whatever the chunking of the sources) ---------
#: The data are drawn in units of these many rows (masses) and scores, one random stream per unit
#: (and source): the same numbers whatever the chunking, as long as the chunks are whole units.
ROW_UNIT = 25_000
SCORE_UNIT = 500_000


def masses_rows(seed, r0, rows, s0, s1):
    """Binary masses m({0}) = 0.5 u, m({1}) = 0.4 (1 - u), m(frame) = rest, u ~ U(0, 1), rows r0:r0+rows, sources s0:s1.

    One random stream per (unit of ``ROW_UNIT`` rows, source): the same numbers whatever the chunking
    of the rows (in whole units) and of the sources.
    """
    u = np.empty((s1 - s0, rows))
    for i, source in enumerate(range(s0, s1)):
        for a in range(0, rows, ROW_UNIT):
            unit = (r0 + a) // ROW_UNIT
            np.random.default_rng([seed, unit, source]).random(out=u[i, a : min(a + ROW_UNIT, rows)])
    u = u.T
    out = np.empty(u.shape + (4,))
    out[..., 0] = 0.0
    np.multiply(u, 0.5, out=out[..., 1])
    np.multiply(1.0 - u, 0.4, out=out[..., 2])
    np.subtract(1.0 - out[..., 1], out[..., 2], out=out[..., 3])
    return out


def masses_block(seed, block_info=None):
    info = block_info[None]
    (r0, r1), (s0, s1), _ = info["array-location"]
    return masses_rows(seed, r0, r1 - r0, s0, s1)


def scores_rows(seed, start, rows):
    """Standard normal scores start:start+rows, one random stream per unit of ``SCORE_UNIT`` scores."""
    out = np.empty(rows)
    for a in range(0, rows, SCORE_UNIT):
        unit = (start + a) // SCORE_UNIT
        np.random.default_rng([seed, unit]).standard_normal(out=out[a : min(a + SCORE_UNIT, rows)])
    return out


def scores_block(seed, block_info=None):
    info = block_info[None]
    ((r0, r1),) = info["array-location"]
    return scores_rows(seed, r0, r1 - r0)


#: Rows per slice of :func:`summaries`: its temporaries (64 KiB) stay below glibc's mmap threshold in
#: every environment (128 KiB in distributed's workers), so that the summaries cost both sides alike.
SUMMARY_ROWS = 8192


def summaries(values, conflict):
    """sum BetP({1}), sum of the conflict, number of rows with BetP({1}) > 0.5 (binary masses).

    In slices of :data:`SUMMARY_ROWS` rows: a whole-chunk temporary would be a fresh mapping in a dask
    worker (whose pages fault on every chunk) but reused memory in the in-memory loop's process, a cost
    of the benchmark's own consumer code that is not dstk's.
    """
    totals = np.zeros(3)
    for a in range(0, values.shape[0], SUMMARY_ROWS):
        part = values[a : a + SUMMARY_ROWS]
        p1 = part[:, 2] + 0.5 * part[:, 3]
        totals += (p1.sum(), conflict[a : a + SUMMARY_ROWS].sum(), np.count_nonzero(p1 > 0.5))
    return totals


def _summaries_block(values, conflict=None):
    """:func:`summaries` of one chunk as a (1, 3) block; the conflict defaults to m(empty)."""
    return summaries(values, values[:, 0] if conflict is None else conflict)[None]


def dask_summaries(values, conflict=None):
    """:func:`summaries` of every chunk: a lazy (number of chunks, 3) dask array, added on the client.

    One blockwise map that keeps the indices of ``values`` (the last axis becomes the 3 summaries), as
    a user's ``map_blocks`` would: ``compute`` fuses it with the blockwise steps that make the chunk.
    """
    inputs = [values, "ik"] + ([] if conflict is None else [conflict, "i"])
    return da.blockwise(
        _summaries_block,
        "ik",
        *inputs,
        adjust_chunks={"i": 1, "k": 3},
        dtype=np.float64,
        meta=np.empty((0, 0)),
    )


# -- the two sides ------------------------------------------------------------------
def fusion_in_memory(n, k, row_chunk, seed=0, part=(0, 1), blocks=None):
    """The in-memory loop over the row chunks (only those ``chunk % part[1] == part[0]``).

    ``blocks``: the row chunks generated beforehand (``--inputs persisted``), else each is generated in the loop.
    """
    totals = np.zeros(3)
    for chunk, r0 in enumerate(range(0, n, row_chunk)):
        if chunk % part[1] != part[0]:
            continue
        block = masses_rows(seed, r0, min(row_chunk, n - r0), 0, k) if blocks is None else blocks[chunk]
        fused, kappa = dstk.combine_with_conflict(dstk.MassFunction.from_array(block, (0, 1)), axis=1)
        totals += summaries(fused.to_array(), kappa)
    return totals


def fusion_dask(n, k, row_chunk, source_chunk, seed=0, client=None):
    """The dask graph; with ``client`` (``--inputs persisted``), the masses are first generated and kept in the workers."""
    chunks = (
        da.core.normalize_chunks(row_chunk, (n,))[0],
        da.core.normalize_chunks(source_chunk, (k,))[0],
        (4,),
    )
    array = da.map_blocks(masses_block, seed, chunks=chunks, dtype=np.float64, meta=np.empty((0, 0, 0)))
    if client is not None:
        array = client.persist(array)
        distributed.wait(array)
    fused, kappa = combine_with_conflict(DaskMassFunction(array, (0, 1)), axis=1, split_every=4)
    return dask_summaries(fused.array, kappa)


def calibration_in_memory(calibrator, n, chunk_size, seed=7, part=(0, 1), chunks=None):
    totals = np.zeros(3)
    for chunk, r0 in enumerate(range(0, n, chunk_size)):
        if chunk % part[1] != part[0]:
            continue
        scores = scores_rows(seed, r0, min(chunk_size, n - r0)) if chunks is None else chunks[chunk]
        masses = calibrator.predict_mass(scores).to_array()
        totals += summaries(masses, masses[:, 0])
    return totals


def calibration_dask(calibrator, n, chunk_size, seed=7, client=None):
    chunks = (da.core.normalize_chunks(chunk_size, (n,))[0],)
    scores = da.map_blocks(scores_block, seed, chunks=chunks, dtype=np.float64, meta=np.empty((0,)))
    if client is not None:
        scores = client.persist(scores)
        distributed.wait(scores)
    return dask_summaries(predict_mass(calibrator, scores).array)


def fit_calibrator():
    from dstk.calibration import BinningCalibrator

    rng = np.random.default_rng(1)
    scores = rng.normal(size=5000)
    labels = (rng.random(5000) < 1 / (1 + np.exp(-2 * scores))).astype(int)
    return BinningCalibrator(bins=10, model="likelihood").fit(scores, labels)


def warm_up():
    """Load the numba kernels from the cache (in each worker and here) before any timing."""
    block = masses_rows(0, 0, 8, 0, 8)
    dstk.combine_with_conflict(dstk.MassFunction.from_array(block, (0, 1)), axis=1)
    from dstk.dask._combination import _chunk_state, _finish_state, _merge_states

    state = _chunk_state(block[:, :4], (1,), True, "dempster", dstk.Frame((0, 1)))
    _finish_state(
        _merge_states(np.concatenate([state, state], axis=1), (1,), False, "dempster"),
        "dempster",
        False,
        True,
    )


def timed_dask(client, build):
    with (
        client.as_current()
    ):  # the probe of predict_mass computes on this client (persisted inputs live there)
        outputs = build(client)
    before = sum(client.run(usage).values())
    start = time.perf_counter()
    with distributed.get_task_stream(client) as stream:
        values = np.sum(client.compute(outputs, sync=True), axis=0)
    seconds = time.perf_counter() - start
    cpu, system, faults = sum(client.run(usage).values()) - before
    # the workers' time inside the tasks (wall time of their compute steps, one thread per worker)
    in_tasks = sum(
        step["stop"] - step["start"]
        for task in stream.data
        for step in task["startstops"]
        if step["action"] == "compute"
    )
    del outputs
    settle(client)
    return np.asarray(values, dtype=float), (cpu, seconds, system, faults, in_tasks)


def _held_keys(dask_worker):
    return len(dask_worker.data)


def settle(client, timeout=30.0, keep=0):
    """Wait until the workers have freed the persisted inputs and every result (freeing gigabytes takes
    the workers' CPU for a while after a compute), so that the next side is timed on a quiet machine.

    ``keep``: the number of keys the workers go on holding (inputs persisted for further computes)."""
    gc.collect()  # the graphs that hold the persisted inputs' futures
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if sum(client.run(_held_keys).values()) <= keep:
            break
        time.sleep(0.02)
    else:
        print(f"warning: the workers still hold data {timeout:.0f} s after a compute", flush=True)
    time.sleep(0.2)


# -- the machine's own speed-up: the same in-memory loop in 1 and in 2 plain processes ----------
def _plain_process_init(threads=1):
    """Set numba's threads (``None``: its default) and load the kernels; 1 for the plain processes, as in a dask
    task (serial kernels): their parallelism is the processes'.  BLAS / OpenMP run on one thread, as in the
    workers (distributed starts them with OMP_NUM_THREADS = MKL_NUM_THREADS = OPENBLAS_NUM_THREADS = 1)."""
    import numba
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
    if threads is not None:
        numba.set_num_threads(threads)
    warm_up()


def _trim_setting():
    return os.environ.get("MALLOC_TRIM_THRESHOLD_")


def _timed_part(function):
    before = usage()
    values = function()
    return values, usage() - before


#: A plain process's own inputs under ``--inputs persisted``: its chunks, drawn once before any timing.
_PLAIN_INPUTS: dict = {}


def _draw_plain_inputs(n, k, row_chunk, scores, score_chunk, part):
    """Draw the chunks of ``part`` = (i, p) (chunk c where c % p == i) into this process's :data:`_PLAIN_INPUTS`."""
    i, p = part
    _PLAIN_INPUTS["blocks"] = [
        masses_rows(0, r0, min(row_chunk, n - r0), 0, k) if chunk % p == i else None
        for chunk, r0 in enumerate(range(0, n, row_chunk))
    ]
    _PLAIN_INPUTS["scores"] = [
        scores_rows(7, r0, min(score_chunk, scores - r0)) if chunk % p == i else None
        for chunk, r0 in enumerate(range(0, scores, score_chunk))
    ]


def _fusion_plain(n, k, row_chunk, part):
    """:func:`fusion_in_memory` of ``part`` in a plain process, on its drawn chunks if any."""
    return fusion_in_memory(n, k, row_chunk, part=part, blocks=_PLAIN_INPUTS.get("blocks"))


def _calibration_plain(calibrator, n, chunk_size, part):
    """:func:`calibration_in_memory` of ``part`` in a plain process, on its drawn chunks if any."""
    return calibration_in_memory(calibrator, n, chunk_size, part=part, chunks=_PLAIN_INPUTS.get("scores"))


def timed_plain_processes(processes, make_part):
    """The in-memory loop split over the plain ``processes`` (one single-process executor each; chunk c to
    process c % len(processes), always the same process, which holds those chunks under ``--inputs persisted``).

    What the machine gives to that many processes at that moment, without dask: the reference for
    the 1 -> 2 worker wall speed-up, and for the worker CPU on as many busy cores.
    """
    start = time.perf_counter()
    count = len(processes)
    futures = [process.submit(_timed_part, make_part(i, count)) for i, process in enumerate(processes)]
    done = [future.result() for future in futures]
    seconds = time.perf_counter() - start
    values = np.sum([values for values, _ in done], axis=0)
    cpu, system, faults = np.sum([used for _, used in done], axis=0)
    return np.asarray(values, dtype=float), (cpu, seconds, system, faults)


def local_cluster(workers, memory_limit="auto"):
    """A LocalCluster of ``workers`` processes of one thread each on loopback (no worker dashboards)."""
    return distributed.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=":0",
        worker_dashboard_address=None,
        memory_limit=memory_limit,
    )


def compute_latency(client, repeats=7):
    """Median wall seconds of a compute of one tiny task: the fixed cost of a round trip (client, scheduler)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        client.compute(da.ones(1, chunks=1).sum(), sync=True)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def idle_rate(client, seconds=3.0):
    """CPU seconds per wall second that the cluster's workers spend with no task (heartbeats, monitors)."""
    before = sum(client.run(cpu_seconds).values())
    start = time.perf_counter()
    time.sleep(seconds)
    return (sum(client.run(cpu_seconds).values()) - before) / (time.perf_counter() - start)


#: glibc malloc settings of the worker processes.  "dask": distributed's default (MALLOC_TRIM_THRESHOLD_ =
#: 64 KiB, which also pins the mmap threshold at 128 KiB: every array above 128 KiB is a fresh mapping whose
#: pages fault on first touch).  "tuned": freed arrays up to 32 MiB are reused from the heap, as in a plain
#: Python process (the in-memory side), up to 256 MiB of free heap is kept before trimming, and the top pad
#: keeps the worker thread's heaps (see dstk.dask.tune_worker_malloc, which sets the same values).
MALLOC = {
    "dask": {},
    "helper": {},  # distributed's default environment, then dstk.dask.tune_worker_malloc(client)
    "tuned": {
        "MALLOC_TRIM_THRESHOLD_": 256 * 2**20,
        "MALLOC_MMAP_THRESHOLD_": 32 * 2**20,
        "MALLOC_TOP_PAD_": 32 * 2**20,
    },
}


def side_name(side):
    malloc, workers = side
    if malloc == "plain":
        return f"{workers} plain process{'es' if workers > 1 else ''} (no dask)"
    if malloc == "plain-dask":
        return f"{workers} plain process{'es' if workers > 1 else ''} (no dask), dask malloc"
    return f"{workers} worker{'s' if workers > 1 else ''}, {malloc} malloc"


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--samples", type=int, default=300_000)
    parser.add_argument("--sources", type=int, default=100)
    parser.add_argument("--row-chunk", type=int, default=25_000)
    parser.add_argument("--source-chunk", type=int, default=25)
    parser.add_argument("--scores", type=int, default=6_000_000)
    parser.add_argument("--score-chunk", type=int, default=500_000)
    parser.add_argument(
        "--memory-row-chunk",
        type=int,
        default=None,
        help="rows per chunk of the in-memory loop (default: --row-chunk); whole units of ROW_UNIT",
    )
    parser.add_argument(
        "--memory-score-chunk",
        type=int,
        default=None,
        help="scores per chunk of the in-memory loop (default: --score-chunk); whole units of SCORE_UNIT",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--malloc", nargs="+", choices=sorted(MALLOC), default=["dask", "helper", "tuned"])
    parser.add_argument(
        "--plain",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also run the in-memory loops split over 1 and 2 plain processes (the machine's own speed-up)",
    )
    parser.add_argument("--worker-memory", default="4GiB", help="memory limit of each dask worker")
    parser.add_argument(
        "--memory-threads",
        type=int,
        default=None,
        help="numba threads of the in-memory loop (default: numba's default); 1 times the work without "
        "the cost of keeping a second thread busy",
    )
    parser.add_argument(
        "--inputs",
        choices=["generated", "persisted"],
        default="generated",
        help="generated: each chunk is drawn inside the timed work, on both sides; persisted: the inputs are "
        "drawn before the timing and kept in memory (in the workers: client.persist), so that only dstk's "
        "work and the summaries are timed (each plain process draws and keeps its own chunks)",
    )
    parser.add_argument(
        "--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "dask.md")
    )
    args = parser.parse_args()
    n, k = args.samples, args.sources
    if args.memory_row_chunk is None:
        args.memory_row_chunk = args.row_chunk
    if args.memory_score_chunk is None:
        args.memory_score_chunk = args.score_chunk
    for name, unit in (
        ("row_chunk", ROW_UNIT),
        ("memory_row_chunk", ROW_UNIT),
        ("score_chunk", SCORE_UNIT),
        ("memory_score_chunk", SCORE_UNIT),
    ):
        if getattr(args, name) % unit:
            parser.error(
                f"--{name.replace('_', '-')} must be a multiple of {unit} (the data are drawn in such units)"
            )
    persisted = args.inputs == "persisted"
    calibrator = fit_calibrator()

    def on(client):
        return client if persisted else None

    # the in-memory loops as picklable parts (i, p): chunk c where c % p == i, run in their own processes
    plain_parts = {
        "fusion blockwise": lambda i, p: functools.partial(
            _fusion_plain, n, k, args.memory_row_chunk, part=(i, p)
        ),
        "calibration": lambda i, p: functools.partial(
            _calibration_plain, calibrator, args.scores, args.memory_score_chunk, part=(i, p)
        ),
    }
    plain_parts["fusion tree"] = plain_parts["fusion blockwise"]
    workloads = {
        "fusion blockwise": (
            lambda client: fusion_dask(n, k, args.row_chunk, k, client=on(client)),
            n * k,
            "source masses",
        ),
        "fusion tree": (
            lambda client: fusion_dask(n, k, args.row_chunk, args.source_chunk, client=on(client)),
            n * k,
            "source masses",
        ),
        "calibration": (
            lambda client: calibration_dask(calibrator, args.scores, args.score_chunk, client=on(client)),
            args.scores,
            "scores",
        ),
    }
    sides = [(malloc, w) for malloc in args.malloc for w in args.workers]
    plain = [("plain", w) for w in args.workers] if args.plain else []
    if args.plain and "dask" in args.malloc and not persisted:
        # the same plain processes started with distributed's worker malloc setting: what that
        # environment costs any in-memory numpy work, without dask (not with persisted inputs: a
        # third and fourth copy of the inputs would not fit in memory at the dask-sized protocol)
        plain += [("plain-dask", w) for w in args.workers]
    results = {(name, side): [] for name in workloads for side in ["memory"] + sides + plain}
    context = multiprocessing.get_context("spawn")  # no fork of a process with threads
    pools = {}
    # start and warm the processes: the in-memory loop's own (a clean process: this one also runs the
    # schedulers and clients of the clusters, about 0.1 CPU-s per s) and the plain ones
    for side in ["memory"] + plain:
        count, threads = (1, args.memory_threads) if side == "memory" else (side[1], 1)
        saved = os.environ.get("MALLOC_TRIM_THRESHOLD_")
        if side[0] == "plain-dask":
            os.environ["MALLOC_TRIM_THRESHOLD_"] = "65536"  # what distributed's nanny gives its workers
        else:
            os.environ.pop("MALLOC_TRIM_THRESHOLD_", None)
        try:
            processes = pools[side] = [
                concurrent.futures.ProcessPoolExecutor(
                    1, mp_context=context, initializer=_plain_process_init, initargs=(threads,)
                )
                for _ in range(count)
            ]
            for name in (
                "calibration",
                "fusion blockwise",
            ):  # one chunk per process: kernels compiled or loaded
                parts = [
                    process.submit(_timed_part, plain_parts[name](i, count * 12))
                    for i, process in enumerate(processes)
                ]
                for future in parts:
                    future.result()
            if persisted:  # each process draws and keeps its own chunks, before any timing
                drawn = [
                    process.submit(
                        _draw_plain_inputs,
                        n,
                        k,
                        args.memory_row_chunk,
                        args.scores,
                        args.memory_score_chunk,
                        (i, count),
                    )
                    for i, process in enumerate(processes)
                ]
                for future in drawn:
                    future.result()
            trims = {process.submit(_trim_setting).result() for process in processes}
            assert trims == {os.environ.get("MALLOC_TRIM_THRESHOLD_")}
        finally:
            if saved is None:
                os.environ.pop("MALLOC_TRIM_THRESHOLD_", None)
            else:
                os.environ["MALLOC_TRIM_THRESHOLD_"] = saved
    load_before = os.getloadavg()[0]
    loads = []
    clusters = {}
    for malloc, w in sides:
        environ = {
            f"distributed.nanny.pre-spawn-environ.{key}": value for key, value in MALLOC[malloc].items()
        }
        with dask.config.set({"distributed.worker.profile.enabled": False, **environ}):
            clusters[(malloc, w)] = local_cluster(w, memory_limit=args.worker_memory)
    clients = {side: distributed.Client(cluster) for side, cluster in clusters.items()}
    try:
        for (malloc, _), client in clients.items():
            if malloc == "helper":
                assert all(tune_worker_malloc(client).values())
            client.run(warm_up)
        # one untimed pass of one chunk per workload on every side: numba's compiled kernels for these
        # sizes are loaded before any timing (in memory, the combination of a whole row chunk takes
        # paths that the small warm-up above does not)
        small = [
            lambda client: fusion_dask(
                args.row_chunk, k, args.row_chunk, args.source_chunk, client=on(client)
            ),
            lambda client: calibration_dask(
                calibrator, args.score_chunk, args.score_chunk, client=on(client)
            ),
        ]
        for build in small:
            for client in clients.values():
                timed_dask(client, build)
        for name in workloads:  # and one untimed pass of each in-memory loop, over the drawn inputs
            for side in ["memory"] + plain:
                timed_plain_processes(pools[side], plain_parts[name])
        idle = {side: idle_rate(client) for side, client in clients.items()}
        print("idle worker CPU-s per wall second:", idle, flush=True)
        latency = {side: compute_latency(client) for side, client in clients.items()}
        print("latency of a one-task compute, s:", latency, flush=True)
        for repeat in range(args.repeats):
            loads.append(os.getloadavg()[0])
            for name, (build, _, _) in workloads.items():
                # the in-memory loop before and after the other sides (their mean is the reference: the
                # machine's speed drifts within a repeat), the sides in a rotated order each repeat, so
                # no side always runs first or last
                reference, first = timed_plain_processes(pools["memory"], plain_parts[name])
                order = list(clients)[repeat % len(clients) :] + list(clients)[: repeat % len(clients)]
                measured = {}
                for side in order + plain:
                    if side in pools:
                        values, measured[side] = timed_plain_processes(pools[side], plain_parts[name])
                    else:
                        values, measured[side] = timed_dask(clients[side], build)
                    np.testing.assert_allclose(values, reference, rtol=1e-9)
                values, last = timed_plain_processes(pools["memory"], plain_parts[name])
                np.testing.assert_allclose(values, reference, rtol=1e-9)
                memory = tuple((a + b) / 2 for a, b in zip(first, last))
                results[(name, "memory")].append(memory)
                cpu = memory[0]
                line = f"[{repeat}] load {loads[-1]:.1f} {name:17s} memory {first[0]:5.2f} / {last[0]:5.2f} CPU-s"
                for side, side_measured in measured.items():
                    results[(name, side)].append(side_measured)
                    cpu_w, wall_w = side_measured[:2]
                    line += f" | {side_name(side)} {cpu_w:5.2f} CPU-s {wall_w:5.2f} s ratio {cpu / cpu_w:.2f}"
                print(line, flush=True)
    finally:
        for processes in pools.values():
            for process in processes:
                process.shutdown()
        for client in clients.values():
            client.close()
        for cluster in clusters.values():
            cluster.close()
    write_markdown(
        args, workloads, sides + plain, results, idle, latency, load_before, os.getloadavg()[0], loads
    )


TITLE = "# dstk.dask against the same work in memory"


def write_markdown(args, workloads, sides, results, idle, latency, load_before, load_after, loads):
    """Write this run as a new dated section at the top of ``args.out``; earlier sections are kept below."""
    malloc_help = {
        "dask": "distributed's default worker environment (the nanny sets MALLOC_TRIM_THRESHOLD_=65536)",
        "helper": "the same default environment, then `dstk.dask.tune_worker_malloc(client)` (defaults: mmap "
        "threshold 32 MiB, trim threshold 256 MiB, top pad 32 MiB, set by mallopt in every worker)",
        "tuned": "workers started with "
        + ", ".join(f"{key}={value}" for key, value in MALLOC["tuned"].items())
        + " (distributed.nanny.pre-spawn-environ)",
    }
    lines = [
        f"## Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        "",
        *environment(),
        "- CPU time: the worker processes' user + system CPU (all their threads; one task thread each, "
        "BLAS / OpenMP on one thread), the in-memory process's likewise (numba's threads: "
        f"{'its default' if args.memory_threads is None else args.memory_threads}, BLAS / OpenMP on one); "
        "wall time beside it",
        "",
        "Options in full: "
        f"`python benchmarks/bench_dask.py --samples {args.samples} --sources {args.sources} "
        f"--row-chunk {args.row_chunk} --source-chunk {args.source_chunk} --scores {args.scores} "
        f"--score-chunk {args.score_chunk} --memory-row-chunk {args.memory_row_chunk} "
        f"--memory-score-chunk {args.memory_score_chunk} --inputs {args.inputs}"
        f"{'' if args.memory_threads is None else f' --memory-threads {args.memory_threads}'}"
        f" --worker-memory {args.worker_memory} --repeats {args.repeats} --workers {' '.join(map(str, args.workers))} "
        f"--malloc {' '.join(args.malloc)}{'' if args.plain else ' --no-plain'}`",
        "",
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}, dask {dask.__version__}, "
        f"distributed {distributed.__version__}, numpy {np.__version__}. Load average (1 min) "
        f"{load_before:.1f} at the start, {load_after:.1f} at the end, "
        f"{' / '.join(f'{x:.1f}' for x in loads)} at the start of each repeat: other jobs share these cores, "
        "so wall times measure contention; CPU seconds are the stable figure.",
        "",
        f"Chunks: dask {args.row_chunk:,} rows x {args.source_chunk} sources (tree) or all sources (blockwise), "
        f"{args.score_chunk:,} scores; the in-memory loop (and the plain processes) {args.memory_row_chunk:,} "
        f"rows, {args.memory_score_chunk:,} scores. "
        + (
            "Inputs persisted: every chunk is drawn before the timing and kept in memory (in the workers by "
            "`client.persist`), so that only dstk's work and the summaries are timed. "
            if args.inputs == "persisted"
            else "Inputs generated: every chunk is drawn inside the timed work, on both sides. "
        )
        + "Both sides draw the same numbers (one random stream per unit of "
        f"{ROW_UNIT:,} rows and source, or {SCORE_UNIT:,} scores, whatever the chunking) "
        "and end in the same three summaries (checked equal, rtol 1e-9), computed in slices of "
        f"{SUMMARY_ROWS:,} rows so that their temporaries are reused memory on both sides. "
        "'ratio' = in-memory CPU / dask worker CPU for the same work (per repeat, the in-memory CPU being the "
        "mean of its runs before and after the other sides; median over the repeats, min-max in "
        "brackets); >= 1 means no per-worker overhead. 'in tasks s' = the workers' time inside the tasks "
        "(their compute steps in distributed's task stream, one thread per worker; the rest of the worker CPU "
        "is distributed's own: messages, transfers, bookkeeping). 'net' subtracts what idle workers burn in the same "
        "wall time (heartbeats, monitors; measured before the runs: "
        + ", ".join(f"{side_name(side)} {rate:.3f} CPU-s per s" for side, rate in idle.items())
        + "). 'system s' and 'faults' = system CPU and minor page faults of the process(es) during the run "
        "(medians). Wall time of a compute of one tiny task (the fixed round trip through client and scheduler, "
        "included in every wall time below; median of 7): "
        + ", ".join(f"{side_name(side)} {seconds * 1e3:.0f} ms" for side, seconds in latency.items())
        + ". 'busy' = worker CPU / (wall x workers), the share of the wall time the workers computed "
        "(below 1: waiting for tasks, transfers or the client, or for cores taken by other jobs). Wall speed-up = wall with 1 worker / wall with 2, per repeat (median, min-max). "
        + "; ".join(f"'{malloc} malloc': {malloc_help[malloc]}" for malloc in args.malloc)
        + ". The sides run in a rotated order each repeat."
        + (
            " 'plain process(es)': the in-memory loop with numba on "
            "one thread, split over 1 and 2 spawned Python processes (chunk i to process i mod 2"
            + (", which draws and keeps its chunks before any timing" if args.inputs == "persisted" else "")
            + "), timed right after "
            "the dask sides in each repeat: what the machine gives to 1 and 2 processes at that moment, the "
            "reference for the 1 -> 2 worker wall speed-up ('dask speed-up / plain processes' speed-up', per repeat) "
            "and for the worker CPU on as many busy cores ('ratio on as many cores' = CPU of as many plain processes "
            "as workers / dask worker CPU, per repeat: two processes that run at once share the memory bandwidth "
            "and caches of this machine, which the in-memory loop on one thread has to itself). "
            "'plain process(es) (no dask), dask malloc': the same processes started with MALLOC_TRIM_THRESHOLD_=65536, "
            "as distributed's nanny starts its workers: what that environment costs the same in-memory work without "
            "dask."
            if args.plain
            else ""
        )
        + (
            f" In-memory loop on {args.memory_threads} numba thread(s), in a spawned process of its own."
            if args.memory_threads is not None
            else " In-memory loop on numba's default threads (its CPU time counts them all), in a spawned process "
            "of its own."
        ),
        "",
        "| workload | work | in memory: CPU s (system s, faults) | workers | dask worker CPU s | system s | faults "
        "| ratio | net ratio | ratio on as many cores | in tasks s | wall s | busy | per worker CPU-second |",
        "| --- | ---: | ---: | --- | ---: | ---: | ---: | --- | --- | --- | ---: | ---: | ---: | --- |",
    ]
    for name, (_, work, unit) in workloads.items():
        memory = np.array(results[(name, "memory")])
        for side in sides:
            runs = np.array(results[(name, side)])
            ratios = memory[:, 0] / runs[:, 0]
            net = memory[:, 0] / np.maximum(runs[:, 0] - idle.get(side, 0.0) * runs[:, 1], 1e-9)
            same_cores = ""
            if side[0] not in ("plain", "plain-dask") and ("plain", side[1]) in sides:
                plain = np.array(results[(name, ("plain", side[1]))])[:, 0] / runs[:, 0]
                same_cores = f"{np.median(plain):.2f} [{plain.min():.2f}-{plain.max():.2f}]"
            lines.append(
                f"| {name} | {work:.3g} {unit} | {np.median(memory[:, 0]):.2f} ({np.median(memory[:, 2]):.2f}, "
                f"{np.median(memory[:, 3]):.0f}) | {side_name(side)} | {np.median(runs[:, 0]):.2f} | "
                f"{np.median(runs[:, 2]):.2f} | {np.median(runs[:, 3]):.0f} | "
                f"{np.median(ratios):.2f} [{ratios.min():.2f}-{ratios.max():.2f}] | "
                f"{np.median(net):.2f} [{net.min():.2f}-{net.max():.2f}] | {same_cores} | "
                f"{f'{np.median(runs[:, 4]):.2f}' if runs.shape[1] > 4 else ''} | {np.median(runs[:, 1]):.2f} | "
                f"{np.median(runs[:, 0] / (runs[:, 1] * side[1])):.2f} | "
                f"{work / np.median(runs[:, 0]) / 1e6:.1f} M {unit} (memory {work / np.median(memory[:, 0]) / 1e6:.1f} M) |"
            )
        if len(args.workers) == 2:
            speedups = {}
            for malloc in sorted(
                {malloc for malloc, _ in sides if malloc != "plain-dask"}, key=lambda m: m == "plain"
            ):
                w1, w2 = (np.array(results[(name, (malloc, w))])[:, 1] for w in args.workers)
                speedups[malloc] = w1 / w2
                what = "plain processes (no dask)" if malloc == "plain" else f"workers, {malloc} malloc"
                lines.append(
                    f"| {name} | | | wall speed-up {args.workers[0]} -> {args.workers[1]} {what} | | | | "
                    f"{np.median(speedups[malloc]):.2f} [{speedups[malloc].min():.2f}-{speedups[malloc].max():.2f}] "
                    "| | | | | | |"
                )
            if "plain" in speedups:
                for malloc in [m for m in speedups if m != "plain"]:
                    relative = speedups[malloc] / speedups["plain"]
                    lines.append(
                        f"| {name} | | | dask speed-up / plain processes' speed-up, {malloc} malloc | | | | "
                        f"{np.median(relative):.2f} [{relative.min():.2f}-{relative.max():.2f}] | | | | | | |"
                    )
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    previous = ""
    if os.path.exists(args.out):
        with open(args.out) as f:
            previous = f.read()
        if previous.startswith(TITLE):
            previous = previous[len(TITLE) :].lstrip("\n")
    with open(args.out, "w") as f:
        f.write(TITLE + "\n\n" + "\n".join(lines) + "\n\n" + previous)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
