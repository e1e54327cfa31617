"""A floor for the per-worker ratio of dstk.dask's tree reduction: the parts of its cost that dstk cannot remove.

Usage:
    python benchmarks/bench_dask_floor.py                               # ~3 min, 8 GB of memory
    python benchmarks/bench_dask_floor.py --row-chunks 2 --repeats 3    # quick check

``bench_dask.py`` measures the ratio in-memory CPU / dask worker CPU of the
"fusion tree" workload: ``--row-chunks`` x ``--rows`` binary mass functions
from ``--sources`` sources, the sources in chunks of ``--source-chunk``,
combined by Dempster's rule (``dstk.dask.combine_with_conflict``,
reduction="tree", ``split_every=4``) and summarised per chunk.  This script
measures, side by side with the in-memory loop, the three parts of that worker
CPU which no change inside dstk's task functions removes:

compute          The whole graph (the tree's task functions: one partial
                 state per chunk, then one merge per row chunk that finishes
                 the masses, and the summaries) run by dask's synchronous
                 scheduler in this process, on the same contiguous chunks, with
                 numba on one thread (as in a worker).  Interleaved with the
                 in-memory loop of ``bench_dask.py`` (``dstk.combine_with_conflict``
                 on slices of ``--memory-row-chunk`` rows with all the sources,
                 then the same summaries) and with the blockwise graph (all the
                 sources of a row chunk in one task), on the same numbers.
graph            distributed's own cost for a graph of the tree's shape (one task
                 per chunk, one merge per row chunk, one summary per row chunk)
                 whose tasks do nothing and return one-row arrays: the worker CPU
                 of a compute on a LocalCluster of 1 and of 2 workers (one thread
                 each, profiler off, as in ``bench_dask.py``), idle burn included.
transfers        The same no-op graph on 2 workers, with chunk tasks returning a
                 state of the real size ((rows, 4) floats; the same array each
                 time, so nothing is allocated): its worker CPU above the one-row
                 graph is what moving the states between the workers costs, and
                 distributed counts the bytes moved.

The floor of the ratio is in-memory CPU / (compute + graph [+ transfers]): what
the tree would reach with nothing else in the workers (no page faults, no
allocation, no memory manager).  With "compute" replaced by the in-memory
loop's own CPU, it is what the tree would reach if dstk's task functions ran
at the in-memory rate: the part of the gap that lies outside dstk.  Each figure is a median over the repeats,
with its min-max.  CPU time is the measure (on a loaded machine the wall time measures the load): the
compute sides' thread CPU time in this process (numba and BLAS / OpenMP pinned to one thread with
``_harness.pinned_threads``; the synchronous scheduler runs every task in this thread), and the workers'
process CPU time (user + system, all their threads; distributed starts them with one BLAS / OpenMP
thread) for the graphs; the wall time of each is given beside it.  The run's date, command and load head
the results.
"""

import argparse
import os
import platform
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dask
import dask.array as da
import distributed
import numba
import numpy as np
from _harness import environment, pinned_threads
from bench_dask import (
    cpu_seconds,
    dask_summaries,
    fusion_in_memory,
    idle_rate,
    local_cluster,
    masses_rows,
    settle,
    warm_up,
)

from dstk.dask import DaskMassFunction, combine_with_conflict


def _chunked(blocks, name):
    """A dask array whose chunks are the given contiguous arrays ``blocks[i][j]`` (rows i, sources j)."""
    graph = {(name, i, j, 0): block for i, row in enumerate(blocks) for j, block in enumerate(row)}
    chunks = (
        tuple(row[0].shape[0] for row in blocks),
        tuple(block.shape[1] for block in blocks[0]),
        (4,),
    )
    return da.Array(graph, name, chunks, dtype=np.float64)


def tree_graph(array):
    fused, kappa = combine_with_conflict(DaskMassFunction(array, (0, 1)), axis=1, split_every=4)
    return dask_summaries(fused.array, kappa)


def thread_cpu(function):
    """``function()``, the thread CPU seconds and the wall seconds it took."""
    start, wall = time.thread_time(), time.perf_counter()
    value = function()
    return value, time.thread_time() - start, time.perf_counter() - wall


# -- the no-op graph of the tree's shape -------------------------------------------
def _noop_state(block, axis=None, keepdims=None, rows=1):
    """A state of ``rows`` rows, allocated once per worker (kept on the worker object: this module's globals
    travel with its functions, by value)."""
    worker = distributed.get_worker()
    states = worker.__dict__.setdefault("_floor_states", {})
    if rows not in states:
        states[rows] = np.full((rows, 1, 4), 0.25)
    return states[rows] if keepdims else states[rows][:, 0]


def _noop_merge(parts, axis=None, keepdims=None):
    return np.full((1, 5), 0.25)


def noop_graph(array, rows):
    import functools

    reduced = da.reduction(
        array,
        functools.partial(_noop_state, rows=rows),
        _noop_merge,
        axis=1,
        keepdims=False,
        dtype=np.float64,
        split_every=4,
        concatenate=False,
        meta=np.empty((0, 0)),
        name="noop-state",
    )
    packed = da.Array(reduced.dask, reduced.name, chunks=(reduced.chunks[0], (5,)), meta=np.empty((0, 0)))
    return dask_summaries(packed[:, :4], packed[:, 4])


def _sent_bytes(dask_worker):
    return dask_worker.transfer_outgoing_bytes_total


def timed_graph(client, array, rows):
    outputs = noop_graph(array, rows)
    before = sum(client.run(cpu_seconds).values())
    sent = sum(client.run(_sent_bytes).values())
    start = time.perf_counter()
    client.compute(outputs, sync=True)
    wall = time.perf_counter() - start
    cpu = sum(client.run(cpu_seconds).values()) - before
    moved = sum(client.run(_sent_bytes).values()) - sent
    del outputs
    settle(client, keep=array.npartitions)
    return cpu, wall, moved


def spread(values):
    values = np.asarray(values, dtype=float)
    return f"{np.median(values):.4g} [{values.min():.4g}-{values.max():.4g}]"


def main():
    with pinned_threads(1):
        _main()


def _main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=150_000, help="rows per chunk (bench_dask's --row-chunk)")
    parser.add_argument("--row-chunks", type=int, default=8)
    parser.add_argument("--sources", type=int, default=100)
    parser.add_argument("--source-chunk", type=int, default=25)
    parser.add_argument("--memory-row-chunk", type=int, default=25_000)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results", "dask.md"))
    args = parser.parse_args()
    if args.rows % args.memory_row_chunk or args.sources % args.source_chunk:
        parser.error("--rows must be a multiple of --memory-row-chunk and --sources of --source-chunk")
    run_environment = environment()
    load_before = os.getloadavg()[0]
    numba.set_num_threads(1)
    warm_up()
    rows, k, width = args.rows, args.sources, args.source_chunk
    n = rows * args.row_chunks

    # the same numbers in the three layouts: whole row chunks (blockwise, and the in-memory loop's
    # slices of them, contiguous), and chunks of `width` sources (tree)
    whole = [masses_rows(0, i * rows, rows, 0, k) for i in range(args.row_chunks)]
    parts = [[np.ascontiguousarray(block[:, s : s + width]) for s in range(0, k, width)] for block in whole]
    slices = [
        block[a : a + args.memory_row_chunk] for block in whole for a in range(0, rows, args.memory_row_chunk)
    ]
    tree = tree_graph(_chunked(parts, "tree-input"))
    blockwise = tree_graph(_chunked([[block] for block in whole], "blockwise-input"))
    sides = {
        "in memory": lambda: fusion_in_memory(n, k, args.memory_row_chunk, blocks=slices),
        "tree graph, synchronous": lambda: np.sum(dask.compute(tree, scheduler="synchronous")[0], axis=0),
        "blockwise graph, synchronous": lambda: np.sum(
            dask.compute(blockwise, scheduler="synchronous")[0], axis=0
        ),
    }
    for function in sides.values():  # untimed pass: caches, pools
        function()
    compute = {name: [] for name in sides}
    compute_wall = {name: [] for name in sides}
    reference = None
    for repeat in range(args.repeats):
        order = list(sides)[repeat % 3 :] + list(sides)[: repeat % 3]
        for name in order:
            values, seconds, wall = thread_cpu(sides[name])
            if reference is None:
                reference = values
            np.testing.assert_allclose(values, reference, rtol=1e-9)
            compute[name].append(seconds)
            compute_wall[name].append(wall)
    memory = np.asarray(compute["in memory"])
    print({name: spread(v) for name, v in compute.items()}, flush=True)
    whole = parts = slices = tree = blockwise = sides = None  # free the inputs before the clusters start

    state_rows = rows
    graph = {}
    with dask.config.set({"distributed.worker.profile.enabled": False}):
        for workers in (1, 2):
            with (
                local_cluster(workers) as cluster,
                distributed.Client(cluster) as client,
            ):
                tiny = da.map_blocks(
                    lambda block_info=None: np.zeros((1, block_info[None]["chunk-shape"][1], 4)),
                    chunks=((1,) * args.row_chunks, (width,) * (k // width), (4,)),
                    dtype=np.float64,
                    meta=np.empty((0, 0, 0)),
                )
                tiny = client.persist(tiny)
                distributed.wait(tiny)
                sizes = (1, state_rows) if workers == 2 else (1,)
                for size in sizes:  # untimed passes: the workers' first tasks, imports
                    for _ in range(3):
                        timed_graph(client, tiny, size)
                time.sleep(1.0)
                idle = idle_rate(client)  # measured once the workers are warm
                for size in sizes:
                    graph[(workers, size)] = [timed_graph(client, tiny, size) for _ in range(args.repeats)]
                graph[(workers, "idle")] = idle
                del tiny
    load_after = os.getloadavg()[0]

    # per repeat pairing: the i-th in-memory run with the i-th graph measurement
    tree_cpu = np.asarray(compute["tree graph, synchronous"])
    one = np.asarray([cpu for cpu, _, _ in graph[(1, 1)]])
    two = np.asarray([cpu for cpu, _, _ in graph[(2, 1)]])
    two_states = np.asarray([cpu for cpu, _, _ in graph[(2, state_rows)]])
    moved = np.asarray([m for _, _, m in graph[(2, state_rows)]])
    walls = {
        "in-memory loop (the reference)": compute_wall["in memory"],
        "blockwise graph, synchronous": compute_wall["blockwise graph, synchronous"],
        "tree graph, synchronous (compute)": compute_wall["tree graph, synchronous"],
        "no-op graph of the tree's shape, 1 worker (graph)": [w for _, w, _ in graph[(1, 1)]],
        "no-op graph of the tree's shape, 2 workers (graph)": [w for _, w, _ in graph[(2, 1)]],
    }
    transfers = two_states - two
    rows_out = [
        ("in-memory loop (the reference)", memory, None),
        ("blockwise graph, synchronous", np.asarray(compute["blockwise graph, synchronous"]), None),
        ("tree graph, synchronous (compute)", tree_cpu, None),
        ("no-op graph of the tree's shape, 1 worker (graph)", one, None),
        ("no-op graph of the tree's shape, 2 workers (graph)", two, None),
        (
            f"the same with states of {state_rows:,} rows, 2 workers (graph + transfers; "
            f"{np.median(moved) / 1e6:.0f} MB moved)",
            two_states,
            None,
        ),
        ("floor, 1 worker: compute + graph", tree_cpu + one, memory / (tree_cpu + one)),
        (
            "floor, 2 workers: compute + graph + transfers",
            tree_cpu + two + transfers,
            memory / (tree_cpu + two + transfers),
        ),
        (
            "floor with dstk's tasks at the in-memory rate, 1 worker: in-memory + graph",
            memory + one,
            memory / (memory + one),
        ),
        (
            "floor with dstk's tasks at the in-memory rate, 2 workers: in-memory + graph + transfers",
            memory + two + transfers,
            memory / (memory + two + transfers),
        ),
        (
            "blockwise, for comparison: compute only",
            None,
            memory / np.asarray(compute["blockwise graph, synchronous"]),
        ),
    ]
    tasks = args.row_chunks * (k // width) + 2 * args.row_chunks
    lines = [
        f"## Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} (bench_dask_floor.py)",
        "",
        *run_environment,
        "",
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}, dask {dask.__version__}, "
        f"distributed {distributed.__version__}, numpy {np.__version__}, numba {numba.__version__}. "
        f"Load average (1 min) {load_before:.1f} at the start, {load_after:.1f} at the end. "
        f"Work: {n:,} rows x {k} binary sources (Dempster's rule), chunks of {rows:,} rows x {width} sources "
        f"(tree: {tasks} tasks per compute) or all sources (blockwise); in-memory slices of "
        f"{args.memory_row_chunk:,} rows. CPU seconds per compute, medians of {args.repeats} (min-max); "
        f"compute sides interleaved in this process on 1 numba thread, all ending in the same summaries "
        f"(checked equal, rtol 1e-9). Idle workers burn {graph[(1, 'idle')]:.3f} (1 worker) and "
        f"{graph[(2, 'idle')]:.3f} (2 workers) CPU-s per s; the graph figures include it. "
        f"Peak memory of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.1f} GB.",
        "",
        "| part | CPU s | wall s | ratio in-memory / this, CPU |",
        "| --- | ---: | ---: | ---: |",
    ]
    for label, cpu, ratio in rows_out:
        wall = walls.get(label)
        lines.append(
            f"| {label} | {'' if cpu is None else spread(cpu)} | {'' if wall is None else spread(wall)} "
            f"| {'' if ratio is None else spread(ratio)} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out != "-":
        previous = open(args.out).read() if os.path.exists(args.out) else ""
        head, _, rest = previous.partition("\n")
        with open(args.out, "w") as handle:
            handle.write(
                head + "\n\n" + text + "\n" + rest.lstrip("\n") if head.startswith("# ") else text + previous
            )


if __name__ == "__main__":
    main()
