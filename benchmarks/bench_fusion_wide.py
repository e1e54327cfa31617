"""``EvidentialFusionClassifier.fit`` on many classes: two checkouts side by side, CPU time.

Usage: ``python benchmarks/bench_fusion_wide.py OLD_ROOT NEW_ROOT [--classes 100,1000] [--samples 3000]
[--rounds 1]``.  The data and classifiers of ``tests/calibration/test_fusion_many_classes.py``
(``make_classification`` with 12 features, GaussianNB and linear discriminant analysis, ``cv=2``,
no temperature, the default ``training="log_loss"`` and ``contamination=0.1``): ``2 * samples`` samples
drawn, a stratified half to fit on, the other half to measure the log-loss on.  Each round fits once per
checkout in a fresh single-threaded process (old and new alternating, order swapped every round) and
records the process CPU time of the whole ``fit`` and of the rates' optimisation inside it, the number of
evaluations of the rates' criterion (with its Hessian's diagonal blocks: ``+ n``) and of Hessian-vector
products, the criterion at the rates found, the test log-loss, and the largest difference of the
fitted rates between the checkouts.  Writes to ``benchmarks/results/fusion_wide.md`` (newest run first).
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
from sklearn.model_selection import train_test_split
import dstk._kernels.contextual as kernels
import dstk.evidence._contextual as contextual
from dstk.calibration import EvidentialFusionClassifier
X, y = make_classification(n_samples=2 * {samples}, n_features=12, n_informative=10, n_redundant=0,
                           n_classes={classes}, n_clusters_per_class=1, random_state=0)
X, X_test, y, y_test = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
learner = contextual.log_loss_contextual_rates
spent = {{"evaluations": 0, "second_order": 0, "products": 0}}
criterion = kernels.failure_log_loss
def counted_criterion(*args):
    spent["evaluations"] += 1
    spent["second_order"] += len(args) > 9 and args[9].shape[0] > 0
    return criterion(*args)
kernels.failure_log_loss = counted_criterion
if hasattr(kernels, "failure_hessian_product"):
    product = kernels.failure_hessian_product
    def counted_product(*args):
        spent["products"] += 1
        return product(*args)
    kernels.failure_hessian_product = counted_product
def written_out(contours, labels, weights=None, failure_points=None, contamination=0.0, **_):
    # the criterion at the rates found, written out: the failure model's expected weighted log-loss
    from scipy.special import logsumexp
    share = weights / weights.sum()
    def log_loss(log_discounted):
        total = log_discounted.sum(axis=0)
        return -share @ (total[np.arange(labels.size), labels] - logsumexp(total, axis=1))
    def value(rates):
        log_discounted = np.log(contours + rates[:, None, :] * (1.0 - contours))
        if failure_points is None or contamination == 0.0:
            return log_loss(log_discounted)
        n_sources, n_points = failure_points.shape[:2]
        result = (1.0 - contamination) * log_loss(log_discounted)
        for s in range(n_sources):
            kept = log_discounted[s].copy()
            for point in failure_points[s]:
                log_discounted[s] = np.log(point + rates[s] * (1.0 - point))
                result += contamination / (n_sources * n_points) * log_loss(log_discounted)
            log_discounted[s] = kept
        return float(result)
    return value
def timed(*args, **options):
    start = time.process_time()
    rates = learner(*args, **options)
    spent["rates"] = time.process_time() - start
    spent["criterion"] = written_out(*args, **options)(rates)
    return rates
contextual.log_loss_contextual_rates = timed
warnings.simplefilter("ignore")
model = EvidentialFusionClassifier([("nb", GaussianNB()), ("lda", LinearDiscriminantAnalysis())], cv=2, method=None)
start = time.process_time()
model.fit(X, y)
fit = time.process_time() - start
probabilities = model.predict_proba(X_test)
column = np.searchsorted(model.classes_, y_test)
test = float(-np.mean(np.log(np.clip(probabilities[np.arange(y_test.size), column], 1e-15, 1.0))))
print(json.dumps({{"fit": fit, **spent, "test": test, "fitted": model.rates_.tolist()}}))
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
        "| classes | old fit | new fit | old rates | new rates | rates: old / new | old evaluations | "
        "new evaluations | old criterion | new criterion | old test log-loss | new test log-loss | "
        "largest rate difference |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
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
        first = {side: runs[side][0] for side in runs}
        count = {
            side: f"{run['evaluations']}"
            + (f" (+{run['second_order']}) + {run['products']} Hv" if run["products"] else "")
            for side, run in first.items()
        }
        lines.append(
            f"| {k} | {fit['old']:.1f} s | {fit['new']:.1f} s | {rates['old']:.1f} s | {rates['new']:.1f} s | "
            f"{rates['old'] / rates['new']:.1f}× | {count['old']} | {count['new']} | "
            f"{first['old']['criterion']:.9f} | {first['new']['criterion']:.9f} | "
            f"{first['old']['test']:.6f} | {first['new']['test']:.6f} | {difference:.1e} |"
        )
    finish(lines, str(Path(__file__).parent / "results" / "fusion_wide.md"))


if __name__ == "__main__":
    main()
