"""Zhou et al. (2011), Table 4, WDBC part: linear SVM (C = 1), leave-one-out, Platt versus Venn machine.

For each of the 569 cases left out in turn:

* raw SVM: sign of the decision value of a linear SVC (C = 1) trained on the other 568;
* Platt's method: LibSVM's probability estimates (``SVC(probability=True)``: a
  sigmoid fitted on 5-fold cross-validated decision values with Platt's
  targets); the "probabilistic output" is the probability of the predicted label;
* Venn machine with the 6-SVM taxonomy (categories (-inf, -1], (-1, -0.5], ...,
  (1, inf) of the decision value), transductive: the SVM is refitted on all
  569 cases with each tried label of the left-out case
  (:func:`dstk.calibration.venn_machine_transductive`); the output is the
  interval [lower, upper] of the probability of the predicted label.

Features are standardised on the training cases (the paper does not say;
LibSVM on raw WDBC features converges badly).  Label +1 = benign as in the paper.

    python experiments/zhou2011_table4.py [--data ../shared/datasets] [--limit N]
"""

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from dstk.calibration import venn_machine_transductive  # noqa: E402

DEFAULT_DATA = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "datasets"))
PAPER = {"SVM": (97.72, None), "Platt": (98.07, 96.20), "Venn": (98.24, (97.22, 98.27))}


def load_wdbc(folder):
    sys.path.insert(0, folder)
    try:
        from load import load
    finally:
        sys.path.pop(0)
    X, y = load("wdbc")
    return np.asarray(X, dtype=np.float64), 1 - np.asarray(y, dtype=np.int64)  # 1 = benign (the paper's +1)


def main(argv=None):
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=0, help="leave out only the first N cases (0 = all 569)")
    parser.add_argument("--output", default=os.path.join(HERE, "results", "zhou2011_table4.md"))
    args = parser.parse_args(argv)
    X, y = load_wdbc(args.data)
    cases = range(len(y)) if args.limit <= 0 else range(args.limit)
    start = time.perf_counter()
    svm_correct, platt_correct, platt_confidence = [], [], []
    venn_correct, venn_lower, venn_upper = [], [], []
    for i in cases:
        keep = np.arange(len(y)) != i
        scaler = StandardScaler().fit(X[keep])
        X_train, x_test = scaler.transform(X[keep]), scaler.transform(X[i : i + 1])
        svm = SVC(kernel="linear", C=1.0).fit(X_train, y[keep])
        svm_correct.append(int(svm.decision_function(x_test)[0] > 0) == y[i])
        platt = SVC(kernel="linear", C=1.0, probability=True, random_state=0).fit(X_train, y[keep])
        p_benign = platt.predict_proba(x_test)[0, 1]
        predicted = int(p_benign > 0.5)
        platt_correct.append(predicted == y[i])
        platt_confidence.append(max(p_benign, 1 - p_benign))
        masses = venn_machine_transductive(SVC(kernel="linear", C=1.0), X_train, y[keep], x_test, edges=6)[0]
        # predicted label: column of highest quality = larger lower probability (Eq. 6)
        label = int(masses[2] >= masses[1])
        lower = masses[2] if label == 1 else masses[1]
        venn_correct.append(label == y[i])
        venn_lower.append(lower)
        venn_upper.append(lower + masses[3])
    n = len(svm_correct)
    rows = [
        ("SVM", 100 * np.mean(svm_correct), ""),
        ("Platt's method", 100 * np.mean(platt_correct), f"{100 * np.mean(platt_confidence):.2f}%"),
        (
            "Venn machine (6-SVM)",
            100 * np.mean(venn_correct),
            f"[{100 * np.mean(venn_lower):.2f}%, {100 * np.mean(venn_upper):.2f}%]",
        ),
    ]
    paper = ["97.72% / -", "98.07% / 96.20%", "98.24% / [97.22%, 98.27%]"]
    lines = [
        f"## Zhou et al. (2011), Table 4, WDBC: leave-one-out over {n} cases "
        f"({time.perf_counter() - start:.0f} s)",
        "",
        "| method | accuracy (ours) | probabilistic output (ours) | paper: accuracy / output |",
        "|---|---|---|---|",
    ]
    for (name, accuracy, output), reference in zip(rows, paper):
        lines.append(f"| {name} | {accuracy:.2f}% | {output} | {reference} |")
    lines.append("")
    lines.append(
        f"(command: python experiments/zhou2011_table4.py{' --limit ' + str(args.limit) if args.limit else ''})"
    )
    text = "\n".join(lines) + "\n"
    print(text)
    with open(args.output, "w") as handle:
        handle.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
