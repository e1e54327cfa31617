"""EvidentialFusionClassifier on classifiers that only score the classes, against StackingClassifier.

Three classifiers without ``predict_proba`` or with scores only used (scaled ``LinearSVC(C=0.1)``, scaled
RBF ``SVC()``, ``GaussianNB``), scikit-learn's breast cancer, wine and digits, repeated stratified 70/30
splits (``random_state=0``); per split both models are fitted on the training part and scored on the
test part.  Prints log-loss and accuracy, and the paired difference "stacking minus fusion" of the
log-loss with its standard error (positive: the fusion is better).  BLAS pinned to one thread.

Usage::

    python benchmarks/bench_fusion_scores.py [--splits 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sources():
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC, LinearSVC

    return [
        ("svm", make_pipeline(StandardScaler(), LinearSVC(C=0.1))),
        ("rbf", make_pipeline(StandardScaler(), SVC())),
        ("nb", GaussianNB()),
    ]


def main(argv=None) -> int:
    from sklearn.datasets import load_breast_cancer, load_digits, load_wine
    from sklearn.ensemble import StackingClassifier
    from sklearn.metrics import accuracy_score, log_loss
    from sklearn.model_selection import StratifiedShuffleSplit
    from threadpoolctl import threadpool_limits

    from dstk.calibration import EvidentialFusionClassifier

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=5)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    with threadpool_limits(1):
        for name, loader in [
            ("breast_cancer", load_breast_cancer),
            ("wine", load_wine),
            ("digits", load_digits),
        ]:
            X, y = loader(return_X_y=True)
            rows = []
            splitter = StratifiedShuffleSplit(args.splits, test_size=0.3, random_state=0)
            for train, test in splitter.split(X, y):
                fusion = EvidentialFusionClassifier(sources()).fit(X[train], y[train])
                stacking = StackingClassifier(sources()).fit(X[train], y[train])
                rows.append(
                    [
                        log_loss(y[test], fusion.predict_proba(X[test]), labels=fusion.classes_),
                        log_loss(y[test], stacking.predict_proba(X[test]), labels=stacking.classes_),
                        accuracy_score(y[test], fusion.predict(X[test])),
                        accuracy_score(y[test], stacking.predict(X[test])),
                    ]
                )
            cells = np.array(rows)
            difference = cells[:, 1] - cells[:, 0]
            error = difference.std(ddof=1) / np.sqrt(difference.size)
            print(
                f"{name}: log-loss fusion {cells[:, 0].mean():.4f}, stacking {cells[:, 1].mean():.4f} "
                f"(stacking minus fusion {difference.mean():+.4f} ± {error:.4f}); accuracy "
                f"{cells[:, 2].mean():.4f} / {cells[:, 3].mean():.4f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
