"""Xu et al. (2016), Section 5.1: three SVMs on disjoint training sets, the third of growing size.

For each data set of Table 1: a random test set, three disjoint training parts
of sizes (#1, #2, #3) with #3 varied; each part is split in half (SVM training /
calibration); scores are calibrated by binning (bins (-3,-2], ..., (2,3]),
isotonic and logistic regression with every model of Figures 8-10, the three
mass functions are combined by Dempster's rule, and the error rate is averaged
over rounds.  The paper reports these results only as curves (Figs. 8-11).

    python experiments/xu2016_section51.py [--data ../shared/datasets] [--rounds 100] [--datasets australian,...]
"""

import argparse
import os
import time

import numpy as np
from xu2016_common import DEFAULT_DATA, MODELS, combined_predictions, load_dataset, train_part

# name: (train #1, train #2, range of #3, test) from Table 1
TABLE1 = {
    "australian": (30, 70, (10, 190), 400),
    "diabetes": (30, 70, (10, 200), 468),
    "heart": (20, 40, (10, 140), 70),
    "ionosphere": (20, 40, (10, 190), 101),
    "liver-disorders": (20, 40, (10, 190), 95),
    "sonar": (20, 40, (10, 90), 58),
}


def run(data, names, rounds, n_sizes, seed):
    wanted = [(m, k) for m, models in MODELS.items() for k in models]
    results = {}
    for name in names:
        X, y = load_dataset(data, name)
        first, second, (low, high), n_test = TABLE1[name]
        sizes = np.unique(np.linspace(low, high, n_sizes).round().astype(int))
        rng = np.random.default_rng(seed)
        errors = {size: {key: [] for key in wanted} for size in sizes}
        for _ in range(rounds):
            for size in sizes:
                order = rng.permutation(len(y))
                test = order[:n_test]
                parts = [
                    order[n_test : n_test + first],
                    order[n_test + first : n_test + first + second],
                    order[n_test + first + second : n_test + first + second + size],
                ]
                per_part = [train_part(X, y, part, X[test], rng, wanted) for part in parts]
                for key in wanted:
                    predictions, _ = combined_predictions([p[key] for p in per_part])
                    errors[size][key].append(np.mean(predictions != y[test]))
        results[name] = (
            sizes,
            {size: {k: float(np.mean(v)) for k, v in d.items()} for size, d in errors.items()},
        )
    return results


def summarise(results, rounds):
    lines = [
        f"## Section 5.1 (three SVMs), {rounds} rounds: mean test error (%) of the Dempster combination",
        "",
    ]
    for name, (sizes, table) in results.items():
        lines.append(f"### {name} (third training set size in columns)")
        lines.append("")
        lines.append("| calibration / model | " + " | ".join(str(s) for s in sizes) + " |")
        lines.append("|---|" + "---|" * len(sizes))
        keys = list(next(iter(table.values())).keys())
        for key in keys:
            cells = " | ".join(f"{100 * table[s][key]:.2f}" for s in sizes)
            lines.append(f"| {key[0]} / {key[1]} | {cells} |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--sizes", type=int, default=5, help="number of sizes of the third training set")
    parser.add_argument("--datasets", default=",".join(TABLE1))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--output",
        default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "xu2016_section51.md"),
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    results = run(args.data, args.datasets.split(","), args.rounds, args.sizes, args.seed)
    text = summarise(results, args.rounds)
    text += (
        f"\n(command: python experiments/xu2016_section51.py --rounds {args.rounds} --sizes {args.sizes}; "
        f"{time.perf_counter() - start:.0f} s)\n"
    )
    print(text)
    with open(args.output, "w") as handle:
        handle.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
