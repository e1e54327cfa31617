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

Two configurations:

* **authors' trees and numerics** (the main run, used for the comparison with
  the authors' numbers and for the ranks): ``compatibility="busch2021"`` of
  the classifier grows the trees of the authors' code from the same seeds, and
  the same switch of the combiners uses their numerical conventions (the 1e-5
  floor and pairwise reduction of Dempster and cautious, bisection-based
  plausibility leaves with counts rescaled above 537 in their order of
  operations, EVA's (T - 1) P(y) prior term, means summed in tree order).
* **dstk defaults** (``--defaults``, breast-cancer only by default): dstk's
  trees (independent per-node streams), leaves solved to machine precision,
  Dempster and cautious exact (no floor), EVA with the log prior; repeated
  with other tree seeds to show the seed spread.

Usage::

    python experiments/busch2021_reproduce.py [DATA_FOLDER] [--datasets breast_cancer,sonar|all]
        [--leaves 1,2,3,4,8,32] [--splits 5] [--defaults breast_cancer] [--repeats 5]
        [--output experiments/results]

``DATA_FOLDER`` defaults to ``../shared/datasets`` relative to the repository
(it needs ``load.py`` and ``<name>.csv.gz`` files).  ``--datasets all`` runs the
data sets of the paper found there.  The markdown report is written to
``experiments/results/busch2021_<datasets>.md``.
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

from dstk.ensemble import RandomDecisionTreesClassifier, combine_leaves  # noqa: E402
from dstk.ensemble._combiners import decision_threshold  # noqa: E402

_REFERENCE = {"compatibility": "busch2021"}
METHODS = [
    # (label, method, aggregate, options): the authors' numerical conventions
    ("Average probability", "probability", "average", _REFERENCE),
    ("Voting", "probability", "vote", _REFERENCE),
    ("Laplace", "laplace", "average", _REFERENCE),
    ("Confidence bounds", "confidence_bounds", "average", _REFERENCE),
    ("Plausibility (avg)", "plausibility", "average", _REFERENCE),
    ("Dempster", "dempster", None, _REFERENCE),
    ("Cautious", "cautious", None, _REFERENCE),
    ("Pooling", "pooling", None, _REFERENCE),
    ("EVA", "eva", None, _REFERENCE),
]
DEFAULT_METHODS = [
    # dstk's defaults: leaves to machine precision, exact rules, the Bayes-consistent EVA prior
    ("Average probability", "probability", "average", {}),
    ("Voting", "probability", "vote", {}),
    ("Laplace", "laplace", "average", {}),
    ("Confidence bounds", "confidence_bounds", "average", {}),
    ("Plausibility (avg)", "plausibility", "average", {}),
    ("Dempster", "dempster", None, {}),
    ("Cautious", "cautious", None, {}),
    ("Pooling", "pooling", None, {}),
    ("EVA", "eva", None, {}),
]
# the data sets of the paper that are in the shared folder (w8a stands in for webdata)
PAPER_DATASETS = [
    "breast_cancer",
    "pima",
    "ionosphere",
    "sonar",
    "spambase",
    "banknote",
    "scene",
    "w8a",
    "voting",
    "tic_tac_toe",
    "mushroom",
]
# all features nominal (the authors read these from ARFF files with nominal attributes)
NOMINAL_DATASETS = {"voting", "tic_tac_toe", "mushroom"}
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


def run_dataset(
    X,
    y,
    leaves,
    n_splits,
    seed_offset=0,
    with_references=True,
    methods=METHODS,
    compatibility="busch2021",
    nominal_features=None,
):
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
        table = {label: ([], []) for label, *_ in methods}
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
                compatibility=compatibility,
                stop_at_pure_nodes=False,  # the authors' trees split pure nodes too
                nominal_features=nominal_features,
                n_jobs=-1,
            ).fit(X_train, y_train)
            counts = model.leaf_counts(X_test)
            dstk_time += time.perf_counter() - tick
            positive = model.classes_[1]
            y01 = (y_test == positive).astype(int)
            for label, method, aggregate, options in methods:
                if method == "eva":
                    options = dict(options, class_prior=model.class_prior_)
                tick = time.perf_counter()
                score = combine_leaves(
                    counts, combiner=method if aggregate is None else f"{method}:{aggregate}", **options
                )
                dstk_time += time.perf_counter() - tick
                predicted = (score >= decision_threshold(method, aggregate)).astype(int)
                table[label][0].append(roc_auc_score(y01, score))
                table[label][1].append(accuracy_score(y01, predicted))
        seconds[leaf] = time.perf_counter() - start
        dstk_seconds[leaf] = dstk_time
        if with_references:
            X_ref = X
            if nominal_features is not None:  # the authors one-hot encode nominal columns for these
                from sklearn.preprocessing import OneHotEncoder

                X_ref = OneHotEncoder(sparse_output=False).fit_transform(X)
            for i in range(n_splits):
                X_train, X_test, y_train, y_test = train_test_split(X_ref, y, test_size=0.5, random_state=i)
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


def comparison_tables(results, leaves, name, n_splits):
    """Markdown lines: AUC and accuracy tables (with the authors' numbers for breast-cancer)."""
    lines = []
    worst = {}
    for metric, metric_name, targets in ((0, "AUC", TARGET_AUC), (1, "accuracy", TARGET_ACCURACY)):
        compare = name == "breast_cancer" and n_splits == 5
        rows = []
        worst[metric_name] = 0.0
        for label in results[leaves[0]]:
            row = [label]
            for leaf in leaves:
                ours = results[leaf][label][metric].mean()
                cell = f"{ours:.4f}"
                if compare and label in targets and leaf in TARGET_LEAVES:
                    theirs = targets[label][TARGET_LEAVES.index(leaf)]
                    cell += f" ({theirs:.4f})"
                    worst[metric_name] = max(worst[metric_name], abs(round(ours, 4) - theirs))
                row.append(cell)
            rows.append(row)
        title = f"### {name}: {metric_name} (mean over {n_splits} splits)"
        if compare:
            title += "; in brackets: the authors' code (research note 1.9)"
        lines += [title, "", markdown_table(rows, ["method"] + [f"leaf {leaf}" for leaf in leaves]), ""]
        if compare:
            lines += [f"Largest difference (rounded to 4 decimals): {worst[metric_name]:.4f}", ""]
    return lines


def spread_table(X, y, leaves, n_splits, repeats, first):
    """AUC mean ± s.d. over ``repeats`` tree-seed sets of dstk's defaults (``first`` is the run with offset 0)."""
    spread = {(label, leaf): [first[leaf][label][0].mean()] for leaf in leaves for label in first[leaf]}
    for r in range(1, repeats):
        extra, _ = run_dataset(
            X,
            y,
            leaves,
            n_splits,
            seed_offset=1000 * r,
            with_references=False,
            methods=DEFAULT_METHODS,
            compatibility=None,
        )
        for leaf in leaves:
            for label in extra[leaf]:
                spread[(label, leaf)].append(extra[leaf][label][0].mean())
    rows = []
    for label, *_ in DEFAULT_METHODS:
        values = [np.array(spread[(label, leaf)]) for leaf in leaves]
        rows.append([label] + [f"{v.mean():.4f} ± {v.std(ddof=1):.4f}" for v in values])
    return markdown_table(rows, ["method"] + [f"leaf {leaf}" for leaf in leaves])


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", nargs="?", default=os.path.join(REPO, "..", "shared", "datasets"))
    parser.add_argument("--datasets", default="breast_cancer", help="comma-separated names, or 'all'")
    parser.add_argument("--leaves", default="1,2,3,4,8,32")
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument(
        "--defaults",
        default="breast_cancer",
        help="data sets also run with dstk's defaults (comma-separated; empty for none)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=5,
        help="tree-seed sets (10 i + 1000 r) of the dstk-defaults run, to show the seed spread",
    )
    parser.add_argument("--output", default=os.path.join(HERE, "results"))
    args = parser.parse_args(argv)

    leaves = [int(v) for v in args.leaves.split(",")]
    if args.datasets.strip() == "all":
        names = [n for n in PAPER_DATASETS if os.path.exists(os.path.join(args.data, f"{n}.csv.gz"))]
    else:
        names = [v.strip() for v in args.datasets.split(",") if v.strip()]
    default_names = [v.strip() for v in args.defaults.split(",") if v.strip() in names]
    all_results = {}
    tag = "all" if args.datasets.strip() == "all" else "_".join(names)
    report = [
        f"# Busch et al. (2021) protocol with dstk: {', '.join(names)}",
        "",
        f"{args.splits} random half splits, 100 trees, min_samples_split = 2 x leaf, empty leaves: siblings.",
        "",
        "## The authors' trees and numerics",
        "",
        "`compatibility='busch2021'` for the trees (those of the authors' code for the same seeds) and for "
        "every combiner (the 1e-5 floor and pairwise reduction of Dempster and cautious, the authors' "
        "bisection-based plausibility leaves, EVA's (T - 1) P(y) prior term, means summed in tree order).",
        "",
    ]
    timings = []
    for name in names:
        X, y = load_dataset(args.data, name)
        nominal = np.arange(X.shape[1]) if name in NOMINAL_DATASETS else None
        print(f"== {name}: {X.shape[0]} samples, {X.shape[1]} features", flush=True)
        results, (seconds, dstk_seconds) = run_dataset(X, y, leaves, args.splits, nominal_features=nominal)
        all_results[name] = results
        lines = comparison_tables(results, leaves, name, args.splits)
        print("\n".join(lines), flush=True)
        report += lines
        timings.append(
            f"* {name}: "
            + ", ".join(
                f"leaf {leaf} {seconds[leaf]:.2f} s (dstk {dstk_seconds[leaf]:.2f} s)" for leaf in leaves
            )
        )

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

    for name in default_names:
        X, y = load_dataset(args.data, name)
        nominal = np.arange(X.shape[1]) if name in NOMINAL_DATASETS else None
        results, _ = run_dataset(
            X,
            y,
            leaves,
            args.splits,
            with_references=False,
            methods=DEFAULT_METHODS,
            compatibility=None,
            nominal_features=nominal,
        )
        title = (
            f"## dstk's defaults on {name}: dstk's trees (independent per-node streams), leaves to machine "
            "precision, exact Dempster and cautious (no floor), EVA with the log prior"
        )
        lines = [title, ""] + comparison_tables(results, leaves, name, args.splits)
        if args.repeats > 1:
            lines += [
                f"### {name}: AUC over {args.repeats} tree-seed sets (mean ± s.d. of the {args.splits}-split means)",
                "",
                spread_table(X, y, leaves, args.splits, args.repeats, results),
                "",
            ]
        print("\n".join(lines), flush=True)
        report += lines

    report += [
        "## Time",
        "",
        f"{args.splits} splits x 100 trees x 9 methods with metrics and the two reference classifiers (in brackets: "
        "dstk's fit + leaf_counts + combine_leaves only); the authors' code takes about 35 s per leaf size on "
        "breast-cancer:",
        "",
        *timings,
        "",
    ]
    os.makedirs(args.output, exist_ok=True)
    path = os.path.join(args.output, f"busch2021_{tag}.md")
    with open(path, "w") as handle:
        handle.write("\n".join(report))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
