"""Reproduce the protocol of Busch, Kulessa, Loza Mencia & Blockeel (2021) with dstk.

Protocol (research note ``calib-ensemble-anchors.md`` section 1.5): for each
data set, 5 random half splits ``train_test_split(test_size=0.5,
random_state=i)``, i = 0..4 (train on the first half, test on the second);
100 random decision trees (seed 10 i) for leaf sizes 1, 2, 3, 4, 8, 32 with
``min_samples_split = 2 * leaf`` and the "siblings" empty-leaf policy; the nine
combiners of the paper; AUC and accuracy; a random forest
(``RandomForestClassifier(100, min_samples_leaf, min_samples_split, random_state=i)``)
and a single decision tree as references; average ranks over data sets and
leaf sizes as in the paper's Figure 3.

The combiners use the authors' numerical conventions: the 1e-5 floor for
Dempster and cautious, counts rescaled above 537 for the plausibility model
and ``prior="reference"`` for EVA (which only moves EVA's threshold, i.e. its
accuracy; AUC is the same for both priors).

Usage::

    python experiments/busch2021_reproduce.py [DATA_FOLDER] [--datasets breast_cancer,sonar]
        [--leaves 1,2,3,4,8,32] [--splits 5] [--output experiments/results]

``DATA_FOLDER`` defaults to ``../shared/datasets`` relative to the repository
(it needs ``load.py`` and ``<name>.csv.gz`` files).  Default data set:
breast_cancer, whose AUC per method and leaf size is compared with the values
the authors' code produces (research note section 1.9).  The markdown tables
are written to ``experiments/results/busch2021_<datasets>.md``.
"""

import argparse
import importlib.util
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, REPO)

from dstk.ensemble import RandomDecisionTreesClassifier, combine_leaves, decision_threshold  # noqa: E402

METHODS = [
    # (label, method, aggregate, options)
    ("Average probability", "probability", "average", {}),
    ("Voting", "probability", "vote", {}),
    ("Laplace", "laplace", "average", {}),
    ("Confidence bounds", "confidence_bounds", "average", {}),
    ("Plausibility (avg)", "plausibility", "average", {"rescale_above": 537}),
    ("Dempster", "dempster", None, {"floor": 1e-5, "rescale_above": 537}),
    ("Cautious", "cautious", None, {"floor": 1e-5, "rescale_above": 537}),
    ("Pooling", "pooling", None, {}),
    ("EVA", "eva", None, {"prior": "reference"}),
]
REFERENCES = ["Random forest", "Single tree"]

# Section 1.9 of the research note: the authors' code on breast-cancer (mean over 5 splits).
TARGET_AUC = {
    "Average probability": [0.9912, 0.9913, 0.9910, 0.9901, 0.9900, 0.9857],
    "Voting": [0.9912, 0.9911, 0.9907, 0.9896, 0.9891, 0.9835],
    "Laplace": [0.9913, 0.9912, 0.9909, 0.9901, 0.9900, 0.9857],
    "Confidence bounds": [0.9912, 0.9912, 0.9910, 0.9905, 0.9900, 0.9860],
    "Plausibility (avg)": [0.9912, 0.9913, 0.9909, 0.9901, 0.9899, 0.9855],
    "Dempster": [0.9912, 0.9904, 0.9911, 0.9902, 0.9889, 0.9877],
    "Cautious": [0.5886, 0.9370, 0.9718, 0.9759, 0.9834, 0.9876],
    "Pooling": [0.9912, 0.9912, 0.9909, 0.9902, 0.9899, 0.9851],
    "EVA": [0.9913, 0.9912, 0.9910, 0.9904, 0.9901, 0.9869],
}
TARGET_ACCURACY = {
    "Average probability": [0.9530, 0.9481, 0.9481, 0.9467, 0.9425, 0.9354],
    "Voting": [0.9530, 0.9481, 0.9495, 0.9453, 0.9439, 0.9291],
    "Laplace": [0.9523, 0.9467, 0.9481, 0.9474, 0.9432, 0.9347],
    "Confidence bounds": [0.9530, 0.9509, 0.9460, 0.9460, 0.9425, 0.9347],
    "Plausibility (avg)": [0.9530, 0.9474, 0.9481, 0.9474, 0.9439, 0.9326],
    "Dempster": [0.9537, 0.9502, 0.9460, 0.9474, 0.9432, 0.9382],
    "Cautious": [0.6611, 0.8449, 0.8940, 0.9088, 0.9326, 0.9333],
    "Pooling": [0.9530, 0.9488, 0.9467, 0.9467, 0.9439, 0.9340],
    "EVA": [0.9530, 0.9516, 0.9495, 0.9509, 0.9432, 0.9382],
}
TARGET_LEAVES = [1, 2, 3, 4, 8, 32]

# The shared files code breast-cancer's malignant class as 1; the authors load
# scikit-learn's load_breast_cancer, where benign is 1.  The orientation does not
# change any AUC, but it decides which class wins a tie (accuracy of voting and
# of the cautious rule at small leaves).
PAPER_FLIPS = {"breast_cancer"}


def load_dataset(folder, name):
    spec = importlib.util.spec_from_file_location("shared_datasets_load", os.path.join(folder, "load.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    X, y = module.load(name)
    y = np.asarray(y)
    if name in PAPER_FLIPS:
        y = 1 - y
    return np.asarray(X, dtype=np.float64), y


def run_dataset(X, y, leaves, n_splits, seed_offset=0, with_references=True):
    """Return {leaf: {label: (auc array, accuracy array)}} and timings per leaf size.

    Timings: ``(total seconds, seconds spent in dstk: fit + leaf_counts + combine_leaves)``.
    """
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.metrics import accuracy_score, roc_auc_score
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    results = {}
    seconds = {}
    dstk_seconds = {}
    for leaf in leaves:
        dstk_time = 0.0
        table = {label: ([], []) for label, *_ in METHODS}
        if with_references:
            table.update({label: ([], []) for label in REFERENCES})
        start = time.perf_counter()
        for i in range(n_splits):
            X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=i)
            tick = time.perf_counter()
            model = RandomDecisionTreesClassifier(
                n_estimators=100,
                min_samples_leaf=leaf,
                min_samples_split=2 * leaf,
                random_state=10 * i + seed_offset,
            ).fit(X_train, y_train)
            counts = model.leaf_counts(X_test)
            dstk_time += time.perf_counter() - tick
            positive = model.classes_[1]
            y01 = (y_test == positive).astype(int)
            for label, method, aggregate, options in METHODS:
                if method == "eva":
                    options = dict(options, class_prior=model.class_prior_)
                tick = time.perf_counter()
                score = combine_leaves(counts, method, aggregate, **options)
                dstk_time += time.perf_counter() - tick
                predicted = (score >= decision_threshold(method, aggregate)).astype(int)
                table[label][0].append(roc_auc_score(y01, score))
                table[label][1].append(accuracy_score(y01, predicted))
        seconds[leaf] = time.perf_counter() - start
        dstk_seconds[leaf] = dstk_time
        if with_references:
            for i in range(n_splits):
                X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=i)
                y01 = (y_test == np.unique(y)[1]).astype(int)
                for label, estimator in (
                    (
                        "Random forest",
                        RandomForestClassifier(
                            n_estimators=100,
                            min_samples_leaf=leaf,
                            min_samples_split=2 * leaf,
                            random_state=i,
                        ),
                    ),
                    (
                        "Single tree",
                        DecisionTreeClassifier(
                            min_samples_leaf=leaf, min_samples_split=2 * leaf, random_state=i
                        ),
                    ),
                ):
                    estimator.fit(X_train, y_train)
                    proba = estimator.predict_proba(X_test)[:, 1]
                    table[label][0].append(roc_auc_score(y01, proba))
                    table[label][1].append(accuracy_score(y01, (proba >= 0.5).astype(int)))
        results[leaf] = {label: (np.array(a), np.array(b)) for label, (a, b) in table.items()}
    return results, (seconds, dstk_seconds)


def average_ranks(all_results, metric):
    """Average rank (1 = best) of each (method, leaf) over data sets, as in the paper's Figure 3.

    Within a data set, all methods x leaf sizes are ranked together (ties get
    the mean rank), so the worst possible rank is n_methods * n_leaves.
    """
    from scipy.stats import rankdata

    keys = None
    rank_sum = None
    for results in all_results.values():
        entries = [
            (label, leaf, results[leaf][label][metric].mean()) for leaf in results for label in results[leaf]
        ]
        if keys is None:
            keys = [(label, leaf) for label, leaf, _ in entries]
            rank_sum = np.zeros(len(keys))
        values = np.array([v for *_, v in entries])
        rank_sum += rankdata(-values)
    return dict(zip(keys, rank_sum / len(all_results)))


def markdown_table(rows, header):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", nargs="?", default=os.path.join(REPO, "..", "shared", "datasets"))
    parser.add_argument("--datasets", default="breast_cancer")
    parser.add_argument("--leaves", default="1,2,3,4,8,32")
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="extra runs with other tree seeds (10 i + 1000 r) to show the seed spread",
    )
    parser.add_argument("--output", default=os.path.join(HERE, "results"))
    args = parser.parse_args(argv)

    leaves = [int(v) for v in args.leaves.split(",")]
    names = [v.strip() for v in args.datasets.split(",") if v.strip()]
    all_results = {}
    report = [
        f"# Busch et al. (2021) protocol with dstk: {', '.join(names)}",
        "",
        f"{args.splits} random half splits, 100 trees, min_samples_split = 2 x leaf, "
        "empty leaves: siblings; Dempster/cautious with the 1e-5 floor, EVA prior='reference'.",
        "",
    ]
    for name in names:
        X, y = load_dataset(args.data, name)
        print(f"== {name}: {X.shape[0]} samples, {X.shape[1]} features")
        results, (seconds, dstk_seconds) = run_dataset(X, y, leaves, args.splits)
        all_results[name] = results
        for metric, metric_name, targets in ((0, "AUC", TARGET_AUC), (1, "accuracy", TARGET_ACCURACY)):
            compare = name == "breast_cancer" and args.splits == 5
            header = ["method"] + [f"leaf {leaf}" for leaf in leaves]
            rows = []
            worst = 0.0
            for label in results[leaves[0]]:
                row = [label]
                for leaf in leaves:
                    ours = results[leaf][label][metric].mean()
                    cell = f"{ours:.4f}"
                    if compare and label in targets and leaf in TARGET_LEAVES:
                        theirs = targets[label][TARGET_LEAVES.index(leaf)]
                        cell += f" ({theirs:.4f})"
                        if metric == 0:
                            worst = max(worst, abs(ours - theirs))
                    row.append(cell)
                rows.append(row)
            title = f"## {name}: {metric_name} (mean over {args.splits} splits)"
            if compare:
                title += "; in brackets: the authors' code (research note 1.9)"
            table = markdown_table(rows, header)
            print(title)
            print(table)
            report += [title, "", table, ""]
            if compare and metric == 0:
                line = f"Largest |ours - theirs| AUC difference: {worst:.4f}"
                print(line)
                report += [line, ""]
        timing = ", ".join(
            f"leaf {leaf}: {seconds[leaf]:.2f} s (dstk {dstk_seconds[leaf]:.2f} s)" for leaf in leaves
        )
        line = (
            f"Time for {args.splits} splits x 100 trees x 9 methods with metrics (in brackets: fit + "
            f"leaf_counts + combine_leaves only): {timing}; the authors' code: about 35 s per leaf size "
            "on breast-cancer."
        )
        print(line)
        report += [line, ""]
        if args.repeats > 1:
            spread = {}
            for r in range(1, args.repeats):
                extra, _ = run_dataset(X, y, leaves, args.splits, seed_offset=1000 * r, with_references=False)
                for leaf in leaves:
                    for label in extra[leaf]:
                        spread.setdefault((label, leaf), []).append(extra[leaf][label][0].mean())
            for leaf in leaves:
                for label in results[leaf]:
                    if (label, leaf) in spread:
                        spread[(label, leaf)].append(results[leaf][label][0].mean())
            rows = []
            for label, *_ in METHODS:
                row = [label]
                for leaf in leaves:
                    values = np.array(spread[(label, leaf)])
                    row.append(f"{values.mean():.4f} ± {values.std(ddof=1):.4f}")
                rows.append(row)
            title = f"## {name}: AUC over {args.repeats} tree-seed sets (mean ± s.d. of the 5-split means)"
            table = markdown_table(rows, ["method"] + [f"leaf {leaf}" for leaf in leaves])
            print(title)
            print(table)
            report += [title, "", table, ""]

    for metric, metric_name in ((0, "AUC"), (1, "accuracy")):
        ranks = average_ranks(all_results, metric)
        labels = list(dict.fromkeys(label for label, _ in ranks))
        rows = [[label] + [f"{ranks[(label, leaf)]:.1f}" for leaf in leaves] for label in labels]
        title = (
            f"## Average {metric_name} rank over {len(all_results)} data set(s) "
            f"(methods x leaf sizes ranked together, 1 = best, worst = {len(labels) * len(leaves)})"
        )
        table = markdown_table(rows, ["method"] + [f"leaf {leaf}" for leaf in leaves])
        print(title)
        print(table)
        report += [title, "", table, ""]

    report += [
        "## Notes",
        "",
        "* The trees use dstk's own random streams (splitmix64 per tree), not the authors' `RandomState` order, so "
        "individual trees differ; tree statistics agree (leaves per tree 284 / 57 / 7 and mean maximal depth "
        "17.0 / 10.8 / 3.9 at leaf 1 / 4 / 32 against 284 / 57 / 6.5 and 17.1 / 10.9 / 3.9 in the research note).",
        "* The cautious rule at leaf sizes 1-2 produces exact ties for about 40 % of the test samples (with one- or "
        "two-sample leaves the result only records the most committed leaf for each class, so many samples get "
        "m({1}) - m({0}) = 0 exactly). Its AUC then depends on how floating-point rounding in the balanced pairwise "
        "reduction breaks these ties (differences of order 1e-17): on split 0 at leaf 2, exact arithmetic "
        "(`floor=None`, closed form) gives 0.905 and our reduction with the 1e-5 floor 0.936; the mean over the 5 "
        "splits is 0.923 for ours and 0.937 for the authors' code. This is why cautious at leaf 2 (and, within the seed spread, "
        "leaf 1) is the one place further than 0.005 from the authors' numbers; no other method has such ties.",
        "* Paper findings on this data set: averaging is hard to beat (every score-based method is within 0.001 of "
        "average probability); EVA is within 0.0002 of the best AUC at every leaf size here and the best at "
        "leaf sizes 8 and 32 (its advantage grows with the leaf size); cautious is poor at small leaves and only competitive at leaf 32. Breast-cancer is "
        "too easy to separate the methods; treat it as a regression target.",
        "",
    ]
    os.makedirs(args.output, exist_ok=True)
    path = os.path.join(args.output, f"busch2021_{'_'.join(names)}.md")
    with open(path, "w") as handle:
        handle.write("\n".join(report))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
