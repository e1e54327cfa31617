"""``EvidentialFusionClassifier.fit`` on many classes: two checkouts side by side, CPU time.

Usage: ``python benchmarks/bench_fusion_wide.py OLD_ROOT NEW_ROOT [--classes 100,1000] [--samples 3000]
[--rounds 1]``.  The data and classifiers of ``tests/calibration/test_fusion_many_classes.py``
(``make_classification`` with 12 features, GaussianNB and linear discriminant analysis, ``cv=2``,
no temperature, the default ``training="log_loss"`` and ``contamination=0.1``).  Each round fits once per
checkout in a fresh single-threaded process (old and new alternating, order swapped every round) and
records the process CPU time of the whole ``fit`` and of the rates' optimisation inside it, and the
largest difference of the fitted rates between the checkouts.  Writes to
``benchmarks/results/fusion_wide.md`` (newest run first).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from _harness import environment, finish, run_in_checkout

CHILD = r"""
import json, time, warnings
import numpy as np
from threadpoolctl import threadpool_limits
threadpool_limits(1)
from sklearn.datasets import make_classification
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.naive_bayes import GaussianNB
import dstk.evidence._contextual as contextual
from dstk.calibration import EvidentialFusionClassifier
X, y = make_classification(n_samples={samples}, n_features=12, n_informative=10, n_redundant=0,
                           n_classes={classes}, n_clusters_per_class=1, random_state=0)
learner = contextual.log_loss_contextual_rates
spent = {{}}
def timed(*args, **options):
    start = time.process_time()
    rates = learner(*args, **options)
    spent["rates"] = time.process_time() - start
    return rates
contextual.log_loss_contextual_rates = timed
warnings.simplefilter("ignore")
model = EvidentialFusionClassifier([("nb", GaussianNB()), ("lda", LinearDiscriminantAnalysis())], cv=2, method=None)
start = time.process_time()
model.fit(X, y)
print(json.dumps({{"fit": time.process_time() - start, "rates": spent["rates"], "fitted": model.rates_.tolist()}}))
"""


def main():
    old, new = Path(sys.argv[1]), Path(sys.argv[2])
    option = {a: sys.argv[i + 1] for i, a in enumerate(sys.argv) if a.startswith("--")}
    classes = [int(k) for k in option.get("--classes", "100,1000").split(",")]
    samples = int(option.get("--samples", 3000))
    rounds = int(option.get("--rounds", 1))
    lines = ["## EvidentialFusionClassifier.fit on many classes, two checkouts", "", *environment()]
    lines += [
        f"- old = `{old}`, new = `{new}`; {samples} samples, {rounds} round(s), process CPU time",
        "",
        "| classes | old fit | new fit | old rates | new rates | rates: old / new | largest rate difference |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for k in classes:
        runs = {"old": [], "new": []}
        for r in range(rounds):
            order = [("old", old), ("new", new)] if r % 2 == 0 else [("new", new), ("old", old)]
            for side, root in order:
                runs[side].append(run_in_checkout(root, CHILD.format(samples=samples, classes=k)))
        fit = {side: np.median([run["fit"] for run in runs[side]]) for side in runs}
        rates = {side: np.median([run["rates"] for run in runs[side]]) for side in runs}
        difference = np.abs(np.array(runs["old"][0]["fitted"]) - np.array(runs["new"][0]["fitted"])).max()
        lines.append(
            f"| {k} | {fit['old']:.1f} s | {fit['new']:.1f} s | {rates['old']:.1f} s | {rates['new']:.1f} s | "
            f"{rates['old'] / rates['new']:.1f}× | {difference:.1e} |"
        )
    finish(lines, str(Path(__file__).parent / "results" / "fusion_wide.md"))


if __name__ == "__main__":
    main()
