"""Valuation networks: the Captain's problem end to end and a 30-variable network.

Captain's problem (Almond 1989; R dst vignette ``Captain_Example.Rmd``): dstk's variable elimination
(build the nine valuations, min-fill order, marginal on Arrival) against the brute-force joint (all nine
valuations extended to the 8-variable product frame, combined, then marginalised), interleaved, CPU and
wall time, threads pinned.  30 binary variables, 26 local relations over windows of 5 consecutive
variables (random allowed configurations, random masses) plus evidence on every variable: propagation
to one variable's marginal (the brute-force joint over 2**30 configurations is out of reach).  All
marginals: Shafer-Shenoy message passing on the join tree (``ValuationNetwork.marginals``, one pass)
against one variable elimination per variable (``marginal`` called for each), interleaved, on the
Captain's problem (8 variables) and the 30-variable network.

Usage: python benchmarks/bench_reasoning.py [--rounds N] [--output benchmarks/results/reasoning.md]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._harness import environment, interleaved, load_at_end, pinned_threads, ratio
from dstk.reasoning import Valuation, ValuationNetwork, Variable
from tests.reasoning.captain import A, captain_valuations


def captain_propagation():
    return ValuationNetwork(captain_valuations()).marginal([A])


def captain_brute_force():
    vals = captain_valuations()
    first, rest = vals[0], vals[1:]
    return first.combine(*rest, rule="conjunctive").marginalize([A]).normalize()


def chain_network(n_variables=30, window=5, seed=0):
    rng = np.random.default_rng(seed)
    vs = [Variable(f"x{i}", [0, 1]) for i in range(n_variables)]
    vals = []
    for i in range(n_variables - window + 1):
        scope = vs[i : i + window]
        configs = [tuple(int(b) for b in np.binary_repr(k, window)) for k in range(2**window)]
        keep = [c for c in configs if rng.random() < 0.7]
        vals.append(Valuation.relation(scope, keep, mass=float(rng.uniform(0.5, 0.95))))
    for v in vs:
        vals.append(Valuation.relation([v], [(int(rng.integers(2)),)], mass=float(rng.uniform(0.1, 0.6))))
    return vs, vals


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--output", default="benchmarks/results/reasoning.md")
    args = parser.parse_args(argv)
    env = environment()
    vs, vals = chain_network()
    with pinned_threads(1):
        ref = captain_brute_force()
        got = captain_propagation()
        diff = max(abs(got.bel({(a,)}) - ref.bel({(a,)})) for a in range(7))
        captain = interleaved({"dstk": captain_propagation, "brute": captain_brute_force}, args.rounds)
        chain = interleaved(
            {"dstk": lambda: ValuationNetwork(vals).marginal([vs[15]])}, max(3, args.rounds // 3)
        )
        cap_net = ValuationNetwork(captain_valuations())
        chain_net = ValuationNetwork(vals)
        all_diff = max(
            float(np.max(np.abs(np.asarray(m.bel({(1,)})) - np.asarray(chain_net.marginal([v]).bel({(1,)})))))
            for v, m in zip(vs, chain_net.marginals().values(), strict=True)
        )
        all_captain = interleaved(
            {
                "one pass": cap_net.marginals,
                "separate": lambda: [cap_net.marginal([v]) for v in cap_net.variables],
            },
            args.rounds,
        )
        all_chain = interleaved(
            {
                "one pass": chain_net.marginals,
                "separate": lambda: [chain_net.marginal([v]) for v in chain_net.variables],
            },
            max(3, args.rounds // 3),
        )
    cpu_ratio = ratio(captain["brute"]["cpu"], captain["dstk"]["cpu"])[1]
    wall_ratio = ratio(captain["brute"]["wall"], captain["dstk"]["wall"])[1]
    lines = [
        "# Reasoning over several variables: valuation networks",
        "",
        *env,
        "",
        "| problem | dstk CPU (median) | dstk wall (median) | baseline CPU (median) | brute / dstk CPU | brute / dstk wall |",
        "|---|---|---|---|---|---|",
        f"| Captain's problem end to end (8 variables) | {np.median(captain['dstk']['cpu']) * 1e3:.1f} ms "
        f"| {np.median(captain['dstk']['wall']) * 1e3:.1f} ms | {np.median(captain['brute']['cpu']) * 1e3:.1f} ms "
        f"(brute-force joint) | {cpu_ratio} | {wall_ratio} |",
        f"| 30 binary variables, 26 relations of 5 variables + 30 evidence | "
        f"{np.median(chain['dstk']['cpu']) * 1e3:.1f} ms | {np.median(chain['dstk']['wall']) * 1e3:.1f} ms "
        "| joint of 2**30 configurations: not run | – | – |",
        "",
        "All marginals (every variable of the network): Shafer-Shenoy message passing on the join tree",
        "(`marginals`, one pass) against one variable elimination per variable (`marginal` n times).",
        "",
        "| problem | one pass CPU (median) | one pass wall (median) | n eliminations CPU (median) "
        "| separate / one pass CPU | separate / one pass wall |",
        "|---|---|---|---|---|---|",
        *(
            f"| {label} | {np.median(r['one pass']['cpu']) * 1e3:.1f} ms | "
            f"{np.median(r['one pass']['wall']) * 1e3:.1f} ms | {np.median(r['separate']['cpu']) * 1e3:.1f} ms | "
            f"{ratio(r['separate']['cpu'], r['one pass']['cpu'])[1]} | "
            f"{ratio(r['separate']['wall'], r['one pass']['wall'])[1]} |"
            for label, r in [
                ("Captain's problem, 8 marginals", all_captain),
                ("30 binary variables, 30 marginals", all_chain),
            ]
        ),
        "",
        f"Largest |Bel(x=1)| difference, one pass against `marginal`, over the 30 variables: {all_diff:.2e}.",
        f"Largest |Bel(a) − Bel_brute(a)| over the Arrival delays: {diff:.2e}.",
        "Targets: Captain's problem within 50 ms warm; 30 binary variables within 1 s.",
        "R's dst was not available on this machine, so the brute-force joint is the baseline.",
        "",
        load_at_end(),
        "",
    ]
    text = "\n".join(lines)
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
