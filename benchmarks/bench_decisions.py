"""Benchmark of dstk.admissible_actions: exact E-admissibility and maximality.

Usage: python benchmarks/bench_decisions.py [--rounds 5] [--masses 100000]

Rows
  e_admissibility  40-label frame, 50 random focal sets, 10 acts (random utilities), one mass function
                   per call: dstk's linear programmes (HiGHS, one per undecided act over the
                   allocations of each focal set's mass to its elements).  The anchor of the issue
                   tracker, vertex enumeration of the credal set, has 40! vertices here and is not run.
  maximality       10^5 mass functions on 5 labels (dense, random) with 5 acts, one batched call; the
                   anchor is the definition by brute force, the minimum of E_p(u_b - u_a) over the 5! = 120
                   extreme points of each credal set (the marginal vectors of the orderings), vectorised in
                   numpy over the whole batch.
  torchbelief      where torchbelief (0.3.0, PyTorch; installed outside the project) imports: its
                   ``maximal_acts`` on the same maximality batch (masks compared), its expected-utility
                   bounds, interval dominance and pignistic / Hurwicz acts on that batch, and its
                   ``e_admissible_acts`` (Bayes-optimal acts at the n! extreme points of the credal set)
                   against dstk's linear programmes on 8 labels (40,320 extreme points) and 10 labels
                   (3,628,800), interleaved on each problem: CPU and wall time, ratios with their spread,
                   and the acts that the extreme points miss.  Torch runs on one thread.
Both sides run interleaved, BLAS pinned to one thread; CPU time is the figure to quote on a loaded machine.
"""

import argparse
import itertools
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _harness import environment, interleaved, pinned_threads, ratio, seconds

from dstk import Frame, MassFunction, admissible_actions, decide
from dstk.core import lower_upper_expectations


def e_admissibility_problems(rng, count, n_labels=40, n_focal=50, n_acts=10):
    frame = Frame([f"c{i}" for i in range(n_labels)])
    problems = []
    for _ in range(count):
        sets = []
        while len(sets) < n_focal:
            size = int(rng.integers(1, n_labels + 1))
            subset = frozenset(rng.choice(n_labels, size=size, replace=False).tolist())
            if subset not in sets:
                sets.append(subset)
        masses = rng.dirichlet(np.ones(n_focal))
        mapping = {frozenset(f"c{i}" for i in s): float(v) for s, v in zip(sets, masses)}
        problems.append((MassFunction(mapping, frame=frame), rng.random((n_acts, n_labels))))
    return problems


def maximality_by_extreme_points(masses, u):
    """Maximal acts by the definition: min over the credal set's extreme points of E_p(u_b - u_a) <= 0."""
    n = u.shape[1]
    subsets = np.arange(2**n)
    # Bel(A) = sum of m(B) over B subset of A
    inside = (subsets[None, :] & ~subsets[:, None]) == 0  # [A, B]: B subset of A
    bel = masses @ inside.T
    points = []
    for order in itertools.permutations(range(n)):
        p = np.zeros((masses.shape[0], n))
        seen = 0
        for label in order:
            p[:, label] = bel[:, seen | (1 << label)] - bel[:, seen]
            seen |= 1 << label
        points.append(p)
    points = np.stack(points, axis=1)  # (N, n!, n)
    expected = points @ u.T  # (N, n!, acts)
    gain = expected[:, :, :, None] - expected[:, :, None, :]  # [b, a]
    lowest = gain.min(axis=1)
    acts = u.shape[0]
    lowest[:, np.arange(acts), np.arange(acts)] = -np.inf
    return lowest.max(axis=1) <= 1e-9


def torchbelief_rows(batch, masses, u, rng, rounds):
    """Side by side with torchbelief where it imports (rows of the results file)."""
    try:
        import torch
        import torchbelief
        from torchbelief.capacity import Capacity
        from torchbelief.choice import maximal_acts
    except ImportError as exc:
        return ["## torchbelief", "", f"Not run: torchbelief does not import here ({exc}).", ""]
    torch.set_num_threads(1)
    n = u.shape[1]
    capacity = Capacity.from_mass(torch.tensor(masses), torchbelief.Frame(n))
    utility = torch.tensor(u)
    ours = admissible_actions(batch, criterion="maximality", utility=u)
    agree = bool(np.array_equal(ours, maximal_acts(capacity, utility).numpy()))
    times = interleaved(
        {
            "dstk": lambda: admissible_actions(batch, criterion="maximality", utility=u),
            "torchbelief": lambda: maximal_acts(capacity, utility),
        },
        rounds=rounds,
    )
    _, cpu_text = ratio(times["torchbelief"]["cpu"], times["dstk"]["cpu"])
    _, wall_text = ratio(times["torchbelief"]["wall"], times["dstk"]["wall"])
    lines = [
        f"## torchbelief {torchbelief.__version__} side by side (torch {torch.__version__}, one thread)",
        "",
        f"Maximality on the batch above: masks identical to torchbelief's `maximal_acts`: {agree}; "
        f"CPU per call dstk {seconds(float(np.median(times['dstk']['cpu'])))}, torchbelief "
        f"{seconds(float(np.median(times['torchbelief']['cpu'])))}; wall per call dstk "
        f"{seconds(float(np.median(times['dstk']['wall'])))}, torchbelief "
        f"{seconds(float(np.median(times['torchbelief']['wall'])))}; {rounds} interleaved rounds.",
        "",
        f"Ratio torchbelief / dstk: CPU {cpu_text}; wall {wall_text}.",
        "",
        *_batch_rows(batch, masses, u, capacity, rounds),
    ]
    for n_labels, count, rounds_each in ((8, 20, 3), (10, 2, 1)):
        lines += _e_admissibility_side_by_side(rng, n_labels, count, rounds_each)
    return lines


def _batch_rows(batch, masses, u, capacity, rounds):
    """The other criteria both libraries batch, on the same 10^5 masses: agreement, then timings."""
    import torch
    import torchbelief
    from torchbelief.choice import interval_dominance_acts
    from torchbelief.decision import decide as tb_decide
    from torchbelief.decision import expected_utility_bounds

    tensor, utility = torch.tensor(masses), torch.tensor(u)
    frame = torchbelief.Frame(u.shape[1])
    lower, upper = lower_upper_expectations(batch, u)
    tb_lower, tb_upper = expected_utility_bounds(tensor, utility, frame)
    cases = [
        (
            "lower/upper expected utilities",
            "`lower_upper_expectations` / `expected_utility_bounds`",
            bool(
                np.allclose(lower, tb_lower.numpy(), atol=1e-12)
                and np.allclose(upper, tb_upper.numpy(), atol=1e-12)
            ),
            lambda: lower_upper_expectations(batch, u),
            lambda: expected_utility_bounds(tensor, utility, frame),
        ),
        (
            "interval dominance",
            '`admissible_actions(criterion="interval_dominance")` / `interval_dominance_acts`',
            bool(
                np.array_equal(
                    admissible_actions(batch, criterion="interval_dominance", utility=u),
                    interval_dominance_acts(capacity, utility).numpy(),
                )
            ),
            lambda: admissible_actions(batch, criterion="interval_dominance", utility=u),
            lambda: interval_dominance_acts(capacity, utility),
        ),
        (
            "pignistic act",
            '`decide(criterion="pignistic")` / `decide(..., "pignistic")`',
            bool(
                np.array_equal(
                    decide(batch, criterion="pignistic", utility=u, return_indices=True),
                    tb_decide(tensor, utility, frame, "pignistic").numpy(),
                )
            ),
            lambda: decide(batch, criterion="pignistic", utility=u, return_indices=True),
            lambda: tb_decide(tensor, utility, frame, "pignistic"),
        ),
        (
            "Hurwicz act, optimism 0.3",
            '`decide(criterion="hurwicz", optimism=0.3)` / `decide(..., "hurwicz", hurwicz=0.3)`',
            bool(
                np.array_equal(
                    decide(batch, criterion="hurwicz", utility=u, optimism=0.3, return_indices=True),
                    tb_decide(tensor, utility, frame, "hurwicz", hurwicz=0.3).numpy(),
                )
            ),
            lambda: decide(batch, criterion="hurwicz", utility=u, optimism=0.3, return_indices=True),
            lambda: tb_decide(tensor, utility, frame, "hurwicz", hurwicz=0.3),
        ),
    ]
    lines = [
        f"Other criteria on the same batch, one batched call per side, {rounds} interleaved rounds (results compared "
        "before timing):",
        "",
        "| criterion | dstk / torchbelief | same result | dstk CPU | torchbelief CPU "
        "| ratio torchbelief / dstk, CPU | ratio, wall |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, functions, same, ours, theirs in cases:
        times = interleaved({"dstk": ours, "torchbelief": theirs}, rounds=rounds)
        _, cpu_text = ratio(times["torchbelief"]["cpu"], times["dstk"]["cpu"])
        _, wall_text = ratio(times["torchbelief"]["wall"], times["dstk"]["wall"])
        lines.append(
            f"| {name} | {functions} | {same} | {seconds(float(np.median(times['dstk']['cpu'])))} | "
            f"{seconds(float(np.median(times['torchbelief']['cpu'])))} | {cpu_text} | {wall_text} |"
        )
    return [*lines, ""]


def _e_admissibility_side_by_side(rng, n_labels, count, rounds):
    """dstk's linear programmes against torchbelief's extreme points, interleaved on each problem."""
    import torch
    import torchbelief
    from torchbelief.capacity import Capacity
    from torchbelief.choice import e_admissible_acts

    frame = Frame([f"c{i}" for i in range(n_labels)])
    tb_frame = torchbelief.Frame(n_labels)
    cpu = {"dstk": [], "torchbelief": []}
    wall = {"dstk": [], "torchbelief": []}
    missed = total = 0
    for _ in range(count):
        values = np.zeros(2**n_labels)
        focal = rng.choice(np.arange(1, 2**n_labels), size=12, replace=False)
        values[focal] = rng.dirichlet(np.ones(focal.size))
        acts = np.vstack([rng.random((9, n_labels)), np.full((1, n_labels), 0.55)])  # one hedge act
        m = MassFunction.from_array(values, frame)
        tensor, utility = torch.tensor(values), torch.tensor(acts)

        def ours(m=m, acts=acts):
            return admissible_actions(m, criterion="e_admissibility", utility=acts)

        def theirs(tensor=tensor, utility=utility):
            return e_admissible_acts(Capacity.from_mass(tensor, tb_frame), utility).numpy()

        mask, their_mask = ours(), theirs()
        assert np.all(mask[their_mask]), "an act optimal at an extreme point must be E-admissible"
        missed += int((mask & ~their_mask).sum())
        total += int(mask.sum())
        times = interleaved({"dstk": ours, "torchbelief": theirs}, rounds=rounds)
        for name in cpu:
            cpu[name].extend(times[name]["cpu"])
            wall[name].extend(times[name]["wall"])
    _, cpu_text = ratio(np.array(cpu["torchbelief"]), np.array(cpu["dstk"]))
    _, wall_text = ratio(np.array(wall["torchbelief"]), np.array(wall["dstk"]))
    vertices = f"{n_labels}! = {math.factorial(n_labels):,}"
    return [
        f"### E-admissibility, {n_labels} labels ({vertices} extreme points for torchbelief)",
        "",
        f"{count} random mass functions (12 focal sets, Dirichlet(1) masses), 10 acts of which one constant "
        f"hedge at 0.55; both sides interleaved on each problem, {rounds} timed round(s) per problem after "
        "untimed warm-up calls (masks compared on the first).",
        "",
        "| per mass function | dstk CPU | dstk wall | torchbelief CPU | torchbelief wall |",
        "|---|---|---|---|---|",
        f"| median | {seconds(float(np.median(cpu['dstk'])))} | {seconds(float(np.median(wall['dstk'])))} | "
        f"{seconds(float(np.median(cpu['torchbelief'])))} | {seconds(float(np.median(wall['torchbelief'])))} |",
        "",
        f"Ratio torchbelief / dstk: CPU {cpu_text}; wall {wall_text}.  E-admissible acts found by dstk: "
        f"{total}, of which torchbelief misses {missed} (acts optimal only at a mixture of extreme points, as "
        "the hedge (0.6, 0.6) under the vacuous mass on two states, which torchbelief rejects).",
        "",
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--masses", type=int, default=100_000)
    parser.add_argument("--problems", type=int, default=20)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    lines = ["# Decisions: exact E-admissibility and maximality", "", *environment(), ""]

    with pinned_threads(1):
        problems = e_admissibility_problems(rng, args.problems)
        cpu, wall, sizes = [], [], []
        for m, u in problems:
            admissible_actions(m, criterion="e_admissibility", utility=u)  # warm
            c0, w0 = time.process_time(), time.perf_counter()
            mask = admissible_actions(m, criterion="e_admissibility", utility=u)
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
            sizes.append(int(mask.sum()))
        cpu, wall = np.array(cpu), np.array(wall)
        lines += [
            "## E-admissibility, 40 labels, 50 focal sets, 10 acts (one mass function per call)",
            "",
            f"{args.problems} random problems (focal-set sizes uniform in 1..40, Dirichlet(1) masses, utilities "
            "uniform in [0, 1]); E-admissible acts per problem: "
            f"median {int(np.median(sizes))}, range {min(sizes)}-{max(sizes)}.",
            "",
            "| per mass function | median | max | target |",
            "|---|---|---|---|",
            f"| CPU time | {seconds(float(np.median(cpu)))} | {seconds(float(cpu.max()))} | 1 s |",
            f"| wall time | {seconds(float(np.median(wall)))} | {seconds(float(wall.max()))} | 1 s |",
            "",
            "Vertex enumeration of the credal set (40! extreme points) is not run.",
            "",
        ]

        n, acts = 5, 5
        masses = rng.dirichlet(np.full(2**n - 1, 0.3), size=args.masses)
        masses = np.column_stack([np.zeros(args.masses), masses])
        u = rng.random((acts, n))
        batch = MassFunction.from_array(masses, frame=Frame(list("abcde")))
        ours = admissible_actions(batch, criterion="maximality", utility=u)
        theirs = maximality_by_extreme_points(masses, u)
        agree = bool(np.array_equal(ours, theirs))
        times = interleaved(
            {
                "dstk": lambda: admissible_actions(batch, criterion="maximality", utility=u),
                "extreme points": lambda: maximality_by_extreme_points(masses, u),
            },
            rounds=args.rounds,
        )
        _, cpu_text = ratio(times["extreme points"]["cpu"], times["dstk"]["cpu"])
        _, wall_text = ratio(times["extreme points"]["wall"], times["dstk"]["wall"])
        lines += [
            f"## Maximality, {args.masses:,} mass functions on 5 labels, 5 acts (one batched call)",
            "",
            f"Random dense masses (Dirichlet(0.3) on the 31 non-empty subsets); masks identical to the "
            f"definition by extreme points: {agree}; {args.rounds} interleaved rounds.",
            "",
            "| | dstk CPU | dstk wall | extreme points CPU | extreme points wall | target |",
            "|---|---|---|---|---|---|",
            f"| per call | {seconds(float(np.median(times['dstk']['cpu'])))} | "
            f"{seconds(float(np.median(times['dstk']['wall'])))} | "
            f"{seconds(float(np.median(times['extreme points']['cpu'])))} | "
            f"{seconds(float(np.median(times['extreme points']['wall'])))} | 1 s (dstk) |",
            "",
            f"Ratio extreme points / dstk: CPU {cpu_text}; wall {wall_text}.",
            "",
        ]
        lines += torchbelief_rows(batch, masses, u, rng, args.rounds)
    lines.append(f"- load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    text = "\n".join(lines) + "\n"
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "decisions.md")
    with open(out, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(text)


if __name__ == "__main__":
    main()
