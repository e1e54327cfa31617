"""Reproduce Gebel (2009), Tables 6.3-6.6 (two-class calibration, CR / Cal) on the data sets we have.

Data: Heart, Ionosphere, Pima and Sonar from the shared folder (Banknotes,
Breast-Cancer original, Fourclass, German credit and Haberman are not there).
Ionosphere's constant second attribute is dropped (33 attributes; the thesis
used 32).

Full command (10-fold CV, all classifiers, ~10-20 minutes on one core)::

    python experiments/gebel_two_class.py --folds 10

Quick check::

    python experiments/gebel_two_class.py --folds 3 --classifiers svm nb --datasets heart sonar

Writes ``experiments/results/gebel_two_class.md`` (or ``--output``).
See ``gebel_common.py`` for the protocol and its deviations from the thesis.
"""

import argparse
import os
import time

import numpy as np
from gebel_common import (
    DEFAULT_DATA,
    HERE,
    OUTPUT_KIND,
    binary_calibrators,
    choose_params,
    classifier_output,
    fit_predict_calibrator,
    format_cell,
    load_dataset,
    make_classifier,
    standardise,
)

from dstk.metrics import calibration_measure, correctness_rate, desirability, well_calibration_ratio


def euclidean_cal(y, P):
    """Sensitivity variant of Cal: 1 - mean_i ||e_{y_i} - P_i||_2 (no 1/K inside the root) times WCR."""
    E = np.eye(P.shape[1])[y]
    return desirability(1 - np.mean(np.sqrt(((E - P) ** 2).sum(axis=1))), well_calibration_ratio(y, P))


METHODS = ["raw", "av", "bay-alap", "ir", "lr", "plr"]

# Gebel (2009) Tables 6.3-6.6, rows of the data sets we have: (CR, Cal) per method
THESIS = {
    "svm": {
        "heart": [
            (0.829, 0.461),
            (0.829, 0.726),
            (0.811, 0.724),
            (0.811, 0.728),
            (0.814, 0.733),
            (0.807, 0.725),
        ],
        "ionosphere": [
            (0.928, 0.468),
            (0.928, 0.718),
            (0.860, 0.723),
            (0.786, 0.600),
            (0.905, 0.758),
            (0.831, 0.679),
        ],
        "pima": [
            (0.743, 0.489),
            (0.743, 0.631),
            (0.743, 0.659),
            (0.727, 0.647),
            (0.742, 0.659),
            (0.738, 0.659),
        ],
        "sonar": [
            (0.783, 0.452),
            (0.788, 0.633),
            (0.730, 0.570),
            (0.716, 0.576),
            (0.730, 0.564),
            (0.745, 0.582),
        ],
    },
    "ann": {
        "heart": [
            (0.796, 0.661),
            (0.796, 0.676),
            (0.792, 0.659),
            (0.792, 0.681),
            (0.796, 0.684),
            (0.777, 0.675),
        ],
        "ionosphere": [
            (0.900, 0.700),
            (0.900, 0.829),
            (0.871, 0.798),
            (0.903, 0.827),
            (0.900, 0.843),
            (0.857, 0.799),
        ],
        "pima": [
            (0.695, 0.561),
            (0.695, 0.584),
            (0.671, 0.558),
            (0.709, 0.600),
            (0.688, 0.583),
            (0.699, 0.598),
        ],
        "sonar": [
            (0.793, 0.675),
            (0.793, 0.669),
            (0.798, 0.658),
            (0.769, 0.602),
            (0.783, 0.668),
            (0.701, 0.549),
        ],
    },
    "nb": {
        "heart": [
            (0.840, 0.741),
            (0.844, 0.758),
            (0.837, 0.746),
            (0.837, 0.667),
            (0.840, 0.664),
            (0.844, 0.649),
        ],
        "ionosphere": [
            (0.823, 0.685),
            (0.888, 0.798),
            (0.840, 0.730),
            (0.641, 0.537),
            (0.854, 0.641),
            (0.641, 0.573),
        ],
        "pima": [
            (0.761, 0.642),
            (0.765, 0.667),
            (0.714, 0.643),
            (0.763, 0.659),
            (0.755, 0.652),
            (0.759, 0.654),
        ],
        "sonar": [
            (0.677, 0.505),
            (0.663, 0.576),
            (0.701, 0.560),
            (0.533, 0.512),
            (0.692, 0.553),
            (0.543, 0.518),
        ],
    },
    "tree": {
        "heart": [
            (0.707, 0.617),
            (0.714, 0.619),
            (0.692, 0.570),
            (0.685, 0.592),
            (0.659, 0.555),
            (0.688, 0.597),
        ],
        "ionosphere": [
            (0.891, 0.829),
            (0.891, 0.827),
            (0.871, 0.762),
            (0.888, 0.830),
            (0.866, 0.808),
            (0.894, 0.843),
        ],
        "pima": [
            (0.707, 0.592),
            (0.712, 0.595),
            (0.710, 0.570),
            (0.696, 0.583),
            (0.709, 0.577),
            (0.701, 0.590),
        ],
        "sonar": [
            (0.701, 0.553),
            (0.701, 0.551),
            (0.721, 0.556),
            (0.716, 0.590),
            (0.725, 0.580),
            (0.663, 0.554),
        ],
    },
}
TABLE = {
    "svm": "6.3 (L2-SVM scores)",
    "ann": "6.4 (ANN scores)",
    "nb": "6.5 (Naive Bayes probabilities)",
    "tree": "6.6 (tree probabilities)",
}


def run(folder, dataset, clf_name, folds, seed):
    from sklearn.model_selection import StratifiedKFold

    X, y = load_dataset(folder, dataset)
    params = choose_params(clf_name, X, y, seed)
    oof = {m: np.full(len(y), np.nan) for m in METHODS}
    failures = {}
    for tr, te in StratifiedKFold(folds, shuffle=True, random_state=seed).split(X, y):
        Xtr, Xte = standardise(X[tr], X[te])
        model = make_classifier(clf_name, params).fit(Xtr, y[tr])
        m_train = classifier_output(model, clf_name, Xtr)
        m_test = classifier_output(model, clf_name, Xte)
        for method, cal in binary_calibrators(OUTPUT_KIND[clf_name]).items():
            out = fit_predict_calibrator(cal, m_train, y[tr], m_test)
            if isinstance(out, Exception):
                failures.setdefault(method, str(out).split(";")[0])
                # as the thesis's collapsed runs: an unusable calibrator predicts 0.5 for everything
                out = np.full(len(te), 0.5)
            oof[method][te] = out
    results = {}
    for method in METHODS:
        P = np.column_stack([1 - oof[method], oof[method]])
        results[method] = (correctness_rate(y, P), calibration_measure(y, P), euclidean_cal(y, P))
    return params, results, failures


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", nargs="?", default=DEFAULT_DATA)
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--datasets", nargs="+", default=["heart", "ionosphere", "pima", "sonar"])
    parser.add_argument("--classifiers", nargs="+", default=["svm", "ann", "nb", "tree"])
    parser.add_argument("--output", default=os.path.join(HERE, "results", "gebel_two_class.md"))
    args = parser.parse_args(argv)

    lines = [
        "# Gebel (2009), Tables 6.3-6.6: two-class calibration (CR / Cal)",
        "",
        f"Command: `python experiments/gebel_two_class.py --folds {args.folds} --seed {args.seed} "
        f"--datasets {' '.join(args.datasets)} --classifiers {' '.join(args.classifiers)}`",
        "",
        f"{args.folds}-fold stratified CV (seed {args.seed}), pooled out-of-fold predictions; calibrators fitted "
        "on the training fold's own scores; features standardised per fold; hyper-parameters by 3-fold CV on "
        "the whole data over a small grid (see `experiments/gebel_common.py`). Each cell: ours, then the "
        "thesis's value in brackets. A calibrator that cannot be fitted on a fold (e.g. bay-alap without "
        "enough distinct scores) predicts 0.5 there, as the thesis's collapsed runs (CR 0.500) suggest.",
        "",
        "Deviations: the L2-SVM is solved as a hard-margin SVM on K + I/gamma (libsvm, C = 1e8); the ANN is "
        "scikit-learn's MLP with logistic units trained on log-loss (not squared error) and its score is "
        "2p - 1; Naive Bayes is Gaussian NB; the tree is a CART tree with cost-complexity pruning "
        "(the thesis used R `tree`). Ionosphere has 33 attributes here (constant one dropped), 32 in the thesis.",
        "",
    ]
    start = time.time()
    for clf in args.classifiers:
        lines += [
            f"## Table {TABLE[clf]}",
            "",
            "| data set | params | " + " | ".join(METHODS) + " |",
            "|---|---|" + "---|" * len(METHODS),
        ]
        notes = []
        sensitivity = []
        for ds in args.datasets:
            params, res, failures = run(args.data, ds, clf, args.folds, args.seed)
            sensitivity.append(
                f"| {ds} | "
                + " | ".join(
                    f"{res[m][2]:.3f}" + (f" ({THESIS[clf][ds][j][1]:.3f})" if ds in THESIS[clf] else "")
                    for j, m in enumerate(METHODS)
                )
                + " |"
            )
            cells = []
            for j, method in enumerate(METHODS):
                cr, cal, _ = res[method]
                thesis = THESIS[clf].get(ds)
                ref = f" ({format_cell(*thesis[j])})" if thesis else ""
                cells.append(format_cell(cr, cal) + ref)
            lines.append(f"| {ds} | {params} | " + " | ".join(cells) + " |")
            for method, msg in failures.items():
                notes.append(f"- {ds}, {method}: failed on at least one fold ({msg}).")
            print(f"{clf} {ds} done ({time.time() - start:.0f} s)", flush=True)
        lines += [
            "",
            "Sensitivity: Cal with 1 - RMSE computed from the per-sample Euclidean distance "
            "(no 1/K inside the root), thesis Cal in brackets:",
            "",
            "| data set | " + " | ".join(METHODS) + " |",
            "|---|" + "---|" * len(METHODS),
        ] + sensitivity
        lines += [""] + notes + [""]
    lines.append(f"Total run time: {time.time() - start:.0f} s.")
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
