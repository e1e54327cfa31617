"""Multi-class default of EvidentialCalibratedClassifier against the base classifier and temperature scaling.

For iris, wine and digits (scikit-learn's bundled multi-class sets; the shared
data sets are all binary), repeated stratified half/half splits; base
classifiers: scaled logistic regression, Gaussian naive Bayes, a random forest
(100 trees) and an RBF SVC.  Per split: the base classifier fitted on the
training half; ``CalibratedClassifierCV(method="temperature")`` (the anchor,
scikit-learn >= 1.8); ``EvidentialCalibratedClassifier`` with its defaults
(evidential temperature scaling for more than two classes) and with
``multiclass="one_vs_rest"`` (the former default).  Columns: accuracy and
log-loss on the test half (means), paired differences (dstk default minus
the anchor or the base) with their standard errors over the splits, and CPU
time of fit + predict_proba (``time.process_time``, BLAS / OpenMP / numba pinned
to one thread with ``_harness.pinned_threads``, the four models interleaved
within each split) with the wall time beside it; the run's date, command and
load head the output.

Usage::

    python benchmarks/bench_multiclass_default.py [--splits 5] [--quick] [--output FILE]
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from _harness import environment, load_at_end, pinned_threads  # noqa: E402

from dstk.calibration import EvidentialCalibratedClassifier  # noqa: E402


def bases():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    return {
        "LR": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "GaussianNB": GaussianNB(),
        "RandomForest": RandomForestClassifier(100, random_state=0),
        "SVC": make_pipeline(StandardScaler(), SVC()),
    }


#: ``--quick``: the base classifiers without SVC (its probability=True base fits five inner SVCs)
QUICK_BASES = ("LR", "GaussianNB", "RandomForest")


def models(base, one_vs_rest=True):
    from sklearn.base import clone
    from sklearn.calibration import CalibratedClassifierCV

    return {
        "base": clone(base),
        "temperature": CalibratedClassifierCV(clone(base), method="temperature"),
        "dstk": EvidentialCalibratedClassifier(clone(base)),
        **(
            {"dstk_ovr": EvidentialCalibratedClassifier(clone(base), multiclass="one_vs_rest")}
            if one_vs_rest
            else {}
        ),
    }


def log_loss(y, proba):
    return float(-np.mean(np.log(np.clip(proba[np.arange(y.size), y], 1e-15, 1.0))))


def run(X, y, base, splits, one_vs_rest=True):
    from sklearn.model_selection import StratifiedShuffleSplit

    out = {}
    for train, test in StratifiedShuffleSplit(splits, test_size=0.5, random_state=0).split(X, y):
        for name, model in models(base, one_vs_rest).items():
            if name == "base" and not hasattr(model, "predict_proba"):
                model.set_params(svc__probability=True)
            start, wall = time.process_time(), time.perf_counter()
            model.fit(X[train], y[train])
            proba = model.predict_proba(X[test])
            cpu, wall = time.process_time() - start, time.perf_counter() - wall
            row = out.setdefault(name, {"accuracy": [], "log_loss": [], "cpu": [], "wall": []})
            row["wall"].append(wall)
            row["accuracy"].append(np.mean(model.classes_[proba.argmax(axis=1)] == y[test]))
            row["log_loss"].append(log_loss(y[test], proba))
            row["cpu"].append(cpu)
    return {name: {k: np.array(v) for k, v in row.items()} for name, row in out.items()}


def paired(a, b):
    d = a - b
    return d.mean(), d.std(ddof=1) / np.sqrt(d.size)


def main(argv=None):
    from sklearn.datasets import load_digits, load_iris, load_wine

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--output", default=None)
    parser.add_argument(
        "--quick", action="store_true", help="LR, GaussianNB and RandomForest only, no one-vs-rest column"
    )
    args = parser.parse_args(argv)
    lines = [
        *environment(),
        "",
        "| data | base | acc. base | acc. temperature | acc. dstk | acc. dstk − base (SE) | "
        "log-loss base | log-loss temperature | log-loss dstk | log-loss dstk − temperature (SE) | "
        "acc. / log-loss one-vs-rest | CPU s base / temperature / dstk | wall s base / temperature / dstk |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    warnings.simplefilter("ignore")
    with pinned_threads(1):
        for loader in (load_iris, load_wine, load_digits):
            X, y = loader(return_X_y=True)
            for base_name, base in bases().items():
                if args.quick and base_name not in QUICK_BASES:
                    continue
                r = run(X, y, base, args.splits, one_vs_rest=not args.quick)
                ovr = r.get("dstk_ovr", {"accuracy": np.array([np.nan]), "log_loss": np.array([np.nan])})
                acc_d, acc_se = paired(r["dstk"]["accuracy"], r["base"]["accuracy"])
                ll_d, ll_se = paired(r["dstk"]["log_loss"], r["temperature"]["log_loss"])
                line = (
                    f"| {loader.__name__[5:]} | {base_name} | {r['base']['accuracy'].mean():.3f} | "
                    f"{r['temperature']['accuracy'].mean():.3f} | {r['dstk']['accuracy'].mean():.3f} | "
                    f"{acc_d:+.3f} ({acc_se:.3f}) | {r['base']['log_loss'].mean():.3f} | "
                    f"{r['temperature']['log_loss'].mean():.3f} | {r['dstk']['log_loss'].mean():.3f} | "
                    f"{ll_d:+.4f} ({ll_se:.4f}) | {ovr['accuracy'].mean():.3f} / "
                    f"{ovr['log_loss'].mean():.3f} | {r['base']['cpu'].mean():.2f} / "
                    f"{r['temperature']['cpu'].mean():.2f} / {r['dstk']['cpu'].mean():.2f} | "
                    f"{r['base']['wall'].mean():.2f} / {r['temperature']['wall'].mean():.2f} / "
                    f"{r['dstk']['wall'].mean():.2f} |"
                )
                print(line, flush=True)
                lines.append(line)
    lines.append(load_at_end())
    print(lines[-1])
    if args.output:
        with open(args.output, "w") as handle:
            handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
