"""Choices of EvidentialFusionClassifier measured on shared fits: contamination values, abstention scores.

For each set, scenario and split (the splits, base classifiers, anchors and corruption of
``bench_fusion.py``), the fusion is fitted once; its rates are then re-learned on the same out-of-fold
outputs for every contamination of ``--contaminations`` (what ``fit`` would learn with that option: the
classifiers, their cross-fitting and temperatures do not depend on it).  Each variant and the anchors are
scored on the same test part.  Besides the belief of the decided class, two abstention scores are tried:
``learned`` (a logistic model of "the decided class is right" fitted on the out-of-fold outputs, from the
decided class's log-odds under the combination, its Bel, the conflict of the combination and the share of
classifiers that agree with the decision), ``undiscounted`` (the decided class's probability under the
product of the calibrated outputs, before discounting), ``unnormalised`` (the decided class's mass under the
conjunctive combination, ``(1 - conflict) Bel``: a sample whose classifiers conflict is less decided) and
``rival`` (one minus the largest plausibility of another class under Dempster's rule; the same order as
Bel for two classes).  Per-split numbers are written to ``--out``
(a ``.npz``) for the paired analysis.

Usage::

    python benchmarks/bench_fusion_choices.py --data ../shared/datasets --splits 5 --scenario standard \
        --out /tmp/choices_standard.npz
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import bench_fusion as bench  # noqa: E402
from _harness import pinned_threads  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import StratifiedShuffleSplit  # noqa: E402

import dstk.evidence._contextual as contextual  # noqa: E402
from dstk.calibration import EvidentialFusionClassifier  # noqa: E402
from dstk.calibration._fusion import _MIN_LEARNED_RATE, _with_failures  # noqa: E402

SCORES = ("bel", "learned", "undiscounted", "unnormalised", "rival")


def fit_capturing(model, X, y):
    """Fit ``model`` (contamination 0) and return the out-of-fold calibrated outputs its rates saw."""
    captured = {}
    original = contextual.log_loss_contextual_rates

    def spy(contours, labels, **kwargs):
        captured["contours"], captured["labels"] = contours, labels
        return original(contours, labels, **kwargs)

    contextual.log_loss_contextual_rates = spy
    try:
        model.fit(X, y)
    finally:
        contextual.log_loss_contextual_rates = original
    return captured["contours"], captured["labels"]


def variant(model, contours, labels, contamination):
    """The fitted ``model`` with the rates it would learn under ``contamination``."""
    out = copy.copy(model)
    if contamination > 0:
        c, lab, w = _with_failures(contours, labels, np.ones(labels.size), contamination)
    else:
        c, lab, w = contours, labels, np.ones(labels.size)
    out.rates_ = contextual.log_loss_contextual_rates(c, lab, weights=w, min_rate=_MIN_LEARNED_RATE)
    return out


def features(contours, rates):
    """Features of the fused decision per sample: log-odds, log Bel, conflict, agreement; and decision."""
    probabilities, _ = contextual.plausibility_transform_of_product(contours, rates)
    decided = probabilities.argmax(axis=1)
    rows = np.arange(decided.size)
    bel, conflict = singleton_belief_and_conflict(contours, rates, decided)
    p = np.clip(probabilities[rows, decided], 1e-12, 1 - 1e-12)
    agreement = (contours.argmax(axis=2) == decided[None, :]).mean(axis=0)
    plain, _ = contextual.plausibility_transform_of_product(contours, np.zeros_like(rates))
    # Pl({k}) under Dempster's rule: the product of the discounted contours over 1 - conflict
    product = np.prod(contours + rates[:, None, :] * (1.0 - contours), axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        pl = product / (1.0 - conflict)[:, None]
    pl[rows, decided] = -np.inf
    extra = {"unnormalised": bel * (1.0 - conflict), "rival": 1.0 - np.nan_to_num(pl.max(axis=1))}
    X = np.column_stack(
        [
            np.log(p / (1 - p)),
            np.log(np.clip(bel, 1e-12, 1.0)),
            np.log1p(-np.clip(conflict, 0, 1 - 1e-12)),
            agreement,
        ]
    )
    return X, decided, bel, plain[rows, decided], extra


def singleton_belief_and_conflict(contours, rates, decided):
    """Bel({decided}) under Dempster's rule and the conflict m(empty) of the conjunctive combination."""
    from dstk.core._combination import combine
    from dstk.core._frame import Frame
    from dstk.core._mass import MassFunction
    from dstk.core._transforms import contextual_discount

    _, n, k = contours.shape
    frame = Frame(list(range(k)))
    sources = []
    for q, a in zip(contours, rates):
        dense = np.zeros((n, 1 << k))
        dense[:, 1 << np.arange(k)] = q
        sources.append(contextual_discount(MassFunction.from_array(dense, frame, validate=False), a))
    conjunctive = combine(sources, rule="conjunctive")
    m = conjunctive.to_array("m")
    conflict = m[:, 0]
    singletons = m[:, 1 << np.arange(k)][np.arange(n), decided]
    with np.errstate(invalid="ignore", divide="ignore"):
        bel = singletons / (1.0 - conflict)
    return np.nan_to_num(bel), conflict


def selective(errors, score, coverages=(0.5, 0.8)):
    order = np.argsort(-score, kind="stable")
    return [errors[order[: max(1, round(c * errors.size))]].mean() for c in coverages]


def log_loss(y_index, probabilities):
    p = np.clip(probabilities, 1e-15, 1.0)
    p = p / p.sum(axis=1, keepdims=True)
    return float(-np.log(p[np.arange(y_index.size), y_index]).mean())


def run_split(X, y, train, test, seed, scenario, contaminations, with_anchors=True, dump=None):
    X_train, y_train, X_test, y_test = X[train], y[train], X[test], y[test]
    classes = np.unique(y)
    y_index = np.searchsorted(classes, y_test)
    estimators = bench.base_estimators(seed)
    if scenario == "unequal":
        frozen, X_fit, y_fit, anchors, single_index = bench.unequal_parts(estimators, X_train, y_train, seed)
        fusion = EvidentialFusionClassifier(frozen, contamination=0.0)
    else:
        X_fit, y_fit = X_train, y_train
        fusion = EvidentialFusionClassifier(estimators, contamination=0.0)
        anchors = {k: v for k, v in bench.methods(seed).items() if not k.startswith("fusion")}
        if scenario == "corrupted":
            anchors.pop("calibrated voting")
        single_index = -1
        if with_anchors:
            anchors["best single"], single_index = bench.best_single(estimators, X_train, y_train)
    corrupted = noise = None
    if scenario == "corrupted":
        corrupted = seed % len(estimators)
        rng = np.random.default_rng(seed + 1)
        noise = rng.normal(size=X_test.shape) * X_test.std(axis=0) + X_test.mean(axis=0)
    out = {}
    contours, labels = fit_capturing(fusion, X_fit, y_fit)
    restore = (
        bench.corrupt(fusion, "fusion", corrupted, single_index, noise) if corrupted is not None else None
    )
    try:
        test_contours = fusion._calibrated(X_test)
    finally:
        if restore is not None:
            restore()
    if dump is not None:  # the outputs the rates are learned on and scored on, for offline variants
        dump.update(
            train=contours,
            labels=labels,
            test=test_contours,
            y_index=y_index,
            corrupted=-1 if corrupted is None else corrupted,
        )
    for c in contaminations:
        model = variant(fusion, contours, labels, c)
        if dump is not None:  # the run's own rates: bench_fusion_rates checks the dump against the run
            dump[f"rates c={c}"] = model.rates_
        probabilities, _ = contextual.plausibility_transform_of_product(test_contours, model.rates_)
        f_test, decided, bel, undiscounted, extra = features(test_contours, model.rates_)
        errors = decided != y_index
        row = [1 - errors.mean(), log_loss(y_index, probabilities)]
        f_train, d_train, _, _, _ = features(contours, model.rates_)
        right = (d_train == labels).astype(int)
        if right.min() == right.max():
            learned = f_test[:, 0]
        else:
            ranker = LogisticRegression(C=1.0, max_iter=1000).fit(f_train, right)
            learned = ranker.decision_function(f_test)
        for score in (bel, learned, undiscounted, extra["unnormalised"], extra["rival"]):
            row += selective(errors, score)
        out[f"fusion c={c}"] = np.array(row)
    for name, model in anchors.items() if with_anchors else ():
        model.fit(X_fit, y_fit)
        restore = (
            bench.corrupt(model, name, corrupted, single_index, noise) if corrupted is not None else None
        )
        try:
            probabilities = model.predict_proba(X_test)
        finally:
            if restore is not None:
                restore()
        errors = probabilities.argmax(axis=1) != y_index
        top = probabilities.max(axis=1)
        row = [1 - errors.mean(), log_loss(y_index, probabilities)] + selective(errors, top) * len(SCORES)
        out[name] = np.array(row)
    return out


def report(path, default="fusion c=0.1", baseline="fusion c=0.0"):
    """Markdown tables of a run's ``.npz``: log-loss and selective error at 80 % per set, paired."""
    data = np.load(path)
    sets = list(dict.fromkeys(k.split("|")[0] for k in data.files))
    variants = sorted({k.split("|")[1] for k in data.files if k.split("|")[1].startswith("fusion")})
    anchors = [m for m in dict.fromkeys(k.split("|")[1] for k in data.files) if not m.startswith("fusion")]

    def paired(a, b):
        d = a - b
        return f"{d.mean():+.4f} ± {d.std(ddof=1) / np.sqrt(d.size):.4f}"

    lines = [
        f"| set | {default} | "
        + " | ".join(f"{v} minus default" for v in variants if v != default)
        + " | "
        + " | ".join(f"{a} minus default" for a in anchors)
        + " |",
        "|---|---|" + "---|" * (len(variants) - 1 + len(anchors)),
    ]
    for name in sets:
        f = data[f"{name}|{default}"][:, 1]
        cells = [f"{f.mean():.4f}"]
        cells += [paired(data[f"{name}|{v}"][:, 1], f) for v in variants if v != default]
        cells += [paired(data[f"{name}|{a}"][:, 1], f) for a in anchors if f"{name}|{a}" in data.files]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "Selective error at 80 % coverage:", ""]
    labels = [f"{baseline}, by Bel", f"{default}, by Bel", f"{default}, learned", f"{default}, undiscounted"]
    columns = [3, 3, 5, 7]
    if data[f"{sets[0]}|{default}"].shape[1] > 9:  # runs with the scores unnormalised and rival
        labels += [f"{default}, unnormalised", f"{default}, rival"]
        columns += [9, 11]
    lines += [
        "| set | " + " | ".join(labels + anchors) + " |",
        "|---|" + "---|" * (len(labels) + len(anchors)),
    ]
    for name in sets:
        b, f = data[f"{name}|{baseline}"], data[f"{name}|{default}"]
        cells = [f"{b[:, 3].mean():.4f}"] + [f"{f[:, j].mean():.4f}" for j in columns[1:]]
        cells += [f"{data[f'{name}|{a}'][:, 3].mean():.4f}" for a in anchors if f"{name}|{a}" in data.files]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "datasets"))
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--sets", default=None)
    parser.add_argument("--scenario", default="standard")
    parser.add_argument("--contaminations", default="0,0.02,0.05,0.1")
    parser.add_argument("--out", default=None)
    parser.add_argument("--dump", default=None, help="also save each split's calibrated outputs (.npz)")
    parser.add_argument("--report", default=None, help="print the tables of an earlier run's .npz and stop")
    parser.add_argument(
        "--fusion-only", action="store_true", help="skip the anchors (pair with an earlier run's anchors)"
    )
    args = parser.parse_args(argv)
    if args.report:
        print(report(args.report))
        return 0
    if not args.out:
        parser.error("--out is required to run")
    warnings.simplefilter("ignore")
    contaminations = [float(c) for c in args.contaminations.split(",")]
    sets = bench.data_sets(args.data)
    if args.sets:
        sets = {k: v for k, v in sets.items() if k in args.sets.split(",")}
    results, dumped = {}, {}
    start = time.time()
    with pinned_threads(1):
        for name, (X, y) in sets.items():
            if args.scenario != "standard" and np.unique(y).size != 2:
                continue
            X, y = np.asarray(X, dtype=float), np.asarray(y)
            splitter = StratifiedShuffleSplit(n_splits=args.splits, test_size=0.3, random_state=0)
            dumps = [{} for _ in range(args.splits)]
            per_split = [
                run_split(
                    X, y, tr, te, seed, args.scenario, contaminations, not args.fusion_only, dumps[seed]
                )
                for seed, (tr, te) in enumerate(splitter.split(X, y))
            ]
            for seed, saved in enumerate(dumps):
                dumped.update({f"{name}|{seed}|{key}": value for key, value in saved.items()})
            for method in per_split[0]:
                results[f"{name}|{method}"] = np.stack([s[method] for s in per_split])
            np.savez(args.out, **results)
            if args.dump:
                np.savez(args.dump, **dumped)
            print(f"{name} done at {time.time() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
