"""Xu et al. (2016), Section 5.2 and Table 2: ten SVMs, scenarios (a), (b), (c), logistic calibration.

The training set (600 for adult, 300 for australian and diabetes) is split
among ten RBF SVMs in three scenarios (Fig. 12): (a) ten equal parts; (b) five
parts share 1/6 of the data and five share the rest; (c) one part has 2/3,
one 1/5 and eight share the rest.  Each part is split in half (training /
calibration); scores get Platt's logistic calibration with the Bayesian,
inverse-pignistic and likelihood-based models; the ten mass functions are
combined by Dempster's rule.  McNemar's test (5%) compares each model with the
best one on the same test set.

    python experiments/xu2016_section52.py [--data ../shared/datasets] [--rounds 1]
"""

import argparse
import os
import time

import numpy as np
from xu2016_common import DEFAULT_DATA, combined_predictions, load_dataset, mcnemar_p_value, train_part

SETUP = {"adult": (600, 16281), "australian": (300, 390), "diabetes": (300, 468)}
PAPER = {  # Table 2, error rates in %
    "adult": {
        "bayes": (16.76, 17.30, 19.10),
        "inverse_pignistic": (16.68, 17.21, 18.98),
        "likelihood": (16.71, 16.97, 18.35),
    },
    "australian": {
        "bayes": (14.87, 14.10, 14.10),
        "inverse_pignistic": (14.87, 14.10, 13.59),
        "likelihood": (14.87, 13.33, 11.54),
    },
    "diabetes": {
        "bayes": (21.58, 22.86, 46.58),
        "inverse_pignistic": (21.37, 22.86, 45.30),
        "likelihood": (20.94, 22.65, 31.84),
    },
}
MODELS = ("bayes", "inverse_pignistic", "likelihood")


def part_sizes(n_train, scenario):
    if scenario == "a":
        sizes = [n_train // 10] * 10
    elif scenario == "b":
        small = n_train // 6
        sizes = [small // 5] * 5 + [(n_train - small) // 5] * 5
    else:
        big, second = 2 * n_train // 3, n_train // 5
        sizes = [big, second] + [(n_train - big - second) // 8] * 8
    return sizes


def run(data, names, rounds, seed):
    results = {}
    for name in names:
        X, y = load_dataset(data, name)
        n_train, n_test = SETUP[name]
        rng = np.random.default_rng(seed)
        results[name] = {}
        for scenario in "abc":
            errors = {m: [] for m in MODELS}
            significant = dict.fromkeys(MODELS, 0)
            for _ in range(rounds):
                order = rng.permutation(len(y))
                test, pool = order[:n_test], order[n_test : n_test + n_train]
                start = 0
                per_part = []
                for size in part_sizes(n_train, scenario):
                    part = pool[start : start + size]
                    start += size
                    per_part.append(train_part(X, y, part, X[test], rng, [("logistic", m) for m in MODELS]))
                correct = {}
                for model in MODELS:
                    predictions, _ = combined_predictions([p[("logistic", model)] for p in per_part])
                    correct[model] = predictions == y[test]
                    errors[model].append(1.0 - correct[model].mean())
                best = max(MODELS, key=lambda m: correct[m].mean())
                for model in MODELS:
                    if model != best and mcnemar_p_value(correct[best], correct[model]) < 0.05:
                        significant[model] += 1
            results[name][scenario] = ({m: 100 * float(np.mean(v)) for m, v in errors.items()}, significant)
    return results


def summarise(results, rounds):
    lines = [
        f"## Section 5.2 (ten SVMs, logistic calibration), {rounds} round(s): error rate (%) ours / paper "
        "(Table 2)",
        "",
        "`*` = significantly worse than the best model of that round by McNemar's test at 5% "
        "(with several rounds: in how many rounds).",
        "",
    ]
    for name, per_scenario in results.items():
        n_train, n_test = SETUP[name]
        lines.append(f"### {name} (#train = {n_train}, #test = {n_test})")
        lines.append("")
        lines.append("| model | (a) ours | (a) paper | (b) ours | (b) paper | (c) ours | (c) paper |")
        lines.append("|---|---|---|---|---|---|---|")
        for model in MODELS:
            cells = []
            for i, scenario in enumerate("abc"):
                errors, significant = per_scenario[scenario]
                mark = f" *{significant[model]}" if significant[model] else ""
                cells += [f"{errors[model]:.2f}{mark}", f"{PAPER[name][model][i]:.2f}"]
            lines.append(f"| {model} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--datasets", default="adult,australian,diabetes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--output",
        default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "xu2016_section52.md"),
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    results = run(args.data, args.datasets.split(","), args.rounds, args.seed)
    text = summarise(results, args.rounds)
    text += (
        f"\n(command: python experiments/xu2016_section52.py --rounds {args.rounds}; "
        f"{time.perf_counter() - start:.0f} s)\n"
    )
    print(text)
    with open(args.output, "w") as handle:
        handle.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
