"""Frames of more than 64 labels: the wide focal-set form against pyds, EkNN with 100 classes against k-NN.

Combination
    Two random mass functions of ``F`` focal sets each on a frame of ``n`` labels (every focal set a
    uniformly random subset: each label in with probability 1/2; random masses), combined by the
    unnormalised conjunctive rule, Dempster's rule and the disjunctive rule: dstk's wide focal-set form
    (``MassFunction.combine`` on ``Frame(range(n))`` when the frame takes more than 64 labels, else the
    arrays of ``dstk.core._wide``) against pyds (py-dempster-shafer, Python frozensets), timed interleaved
    (``_harness``), process CPU time next to wall time, threads pinned to one.  pyds's results are
    checked against dstk's to 1e-12 before timing, keyed by the bytes of each bitset (the disjunctive
    rule at 1,000 focal sets gives about a million focal sets: as frozensets, gigabytes).

Classifier
    ``EvidentialKNNClassifier.predict_proba`` on 100 classes against ``KNeighborsClassifier.predict_proba``
    (same neighbour search, same ``k``), ``--n-test`` queries, interleaved; the evidential rule's masses
    live on the singletons and the frame (a vector per sample).

Usage::

    python benchmarks/bench_wide.py [--rounds 3] [--quick] [--md benchmarks/results/wide.md]
        [--only combination,classifier] [--rules conjunctive,dempster,disjunctive] [--sizes 200x1000,1000x300]

``--quick``: 300 focal sets, 2,000 queries (a smoke run).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from _harness import environment, interleaved, pinned_threads, ratio, seconds  # noqa: E402

from dstk.core import _wide  # noqa: E402

RULES = ("conjunctive", "dempster", "disjunctive")


def random_mass(rng, n, n_focal):
    """``{frozenset of label indices: mass}`` with ``n_focal`` distinct uniformly random subsets."""
    sets: set[frozenset] = set()
    while len(sets) < n_focal:
        member = rng.random((n_focal, n)) < 0.5
        sets.update(frozenset(np.flatnonzero(row).tolist()) for row in member)
    chosen = sorted(sets, key=sorted)[:n_focal]
    weights = rng.random(n_focal)
    return dict(zip(chosen, weights / weights.sum()))


def dstk_side(m, n):
    """A callable-ready dstk operand: a MassFunction when the frame takes n labels, else wide arrays."""
    from dstk import Frame, MassFunction

    try:
        frame = Frame(list(range(n)))
    except Exception:  # a dstk without frames above 64 labels: the wide arrays themselves
        focal = _wide.pack(list(m), n)
        return ("arrays", (focal, np.array(list(m.values()))))
    masks = [sum(1 << i for i in s) for s in m]
    return ("MassFunction", MassFunction.from_focal_sets(masks, np.array(list(m.values())), frame))


def combine_dstk(a, b, rule):
    kind, x = a
    _, y = b
    if kind == "arrays":
        return lambda: _wide.combine(*x, *y, rule)
    return lambda: x.combine(y, rule=rule)


def keyed(focal, masses):
    """``{bytes of the bitset: mass}``: compact keys (a million frozensets take gigabytes)."""
    focal = np.ascontiguousarray(focal, dtype="<u8")
    return {row.tobytes(): float(v) for row, v in zip(focal, np.asarray(masses))}


def as_keyed(result, kind, n):
    if kind == "arrays":
        return keyed(*result)
    storage = result._storage
    return keyed(storage.focal, storage.masses)


def pyds_keyed(result, n):
    """pyds's result as ``keyed``, built set by set (the frozensets are not copied)."""
    out = {}
    row = np.zeros(_wide.n_words(n) * 64, dtype=bool)
    for key, value in result.items():
        row[:] = False
        row[list(key)] = True
        out[np.packbits(row, bitorder="little").tobytes()] = float(value)
    return out


def combination_rows(rng, sizes, rounds, rules=RULES):
    import pyds

    lines = [
        "",
        "## Combination of two random mass functions: dstk (wide focal-set form) against pyds",
        "",
        "| labels | focal sets | rule | dstk path | pyds CPU | dstk CPU | pyds / dstk CPU | pyds / dstk wall |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for n, n_focal in sizes:
        m1, m2 = random_mass(rng, n, n_focal), random_mass(rng, n, n_focal)
        p1, p2 = pyds.MassFunction(dict(m1)), pyds.MassFunction(dict(m2))
        a, b = dstk_side(m1, n), dstk_side(m2, n)
        anchors = {
            "conjunctive": lambda: p1.combine_conjunctive(p2, normalization=False),
            "dempster": lambda: p1.combine_conjunctive(p2, normalization=True),
            "disjunctive": lambda: p1.combine_disjunctive(p2),
        }
        for rule in rules:
            ours = combine_dstk(a, b, rule)
            want = pyds_keyed(anchors[rule](), n)
            got = as_keyed(ours(), a[0], n)
            worst = max(abs(got.get(k, 0.0) - want.get(k, 0.0)) for k in set(got) | set(want))
            del want, got
            assert worst <= 1e-12, (n, n_focal, rule, worst)
            times = interleaved({"pyds": anchors[rule], "dstk": ours}, rounds)
            _, cpu_text = ratio(times["pyds"]["cpu"], times["dstk"]["cpu"])
            _, wall_text = ratio(times["pyds"]["wall"], times["dstk"]["wall"])
            row = (
                f"| {n:,} | {n_focal:,} | {rule} | {a[0]} | {seconds(float(np.median(times['pyds']['cpu'])))} | "
                f"{seconds(float(np.median(times['dstk']['cpu'])))} | {cpu_text} | {wall_text} |"
            )
            print(row, flush=True)
            lines.append(row)
    return lines


def classifier_rows(n_classes, n_train, n_test, n_features, k, rounds):
    from sklearn.neighbors import KNeighborsClassifier

    from dstk.classifiers import EvidentialKNNClassifier

    rng = np.random.default_rng(0)
    centres = rng.normal(size=(n_classes, n_features)) * 2.0
    y = rng.integers(0, n_classes, n_train)
    X = centres[y] + rng.normal(size=(n_train, n_features))
    Xt = centres[rng.integers(0, n_classes, n_test)] + rng.normal(size=(n_test, n_features))
    knn = KNeighborsClassifier(n_neighbors=k).fit(X, y)
    lines = [
        "",
        f"## EvidentialKNNClassifier.predict_proba, {n_classes} classes: {n_train:,} x {n_features} training "
        f"points, {n_test:,} queries, k = {k}",
        "",
    ]
    try:
        eknn = EvidentialKNNClassifier(n_neighbors=k, gamma=0.5).fit(X, y)
        eknn.predict_proba(Xt[:10])
    except Exception as error:  # a dstk whose EkNN refuses frames above 64 labels
        lines.append(f"not measured: EvidentialKNNClassifier refuses {n_classes} classes ({error!r:.200})")
        print(lines[-1])
        return lines
    times = interleaved(
        {
            "KNeighborsClassifier": lambda: knn.predict_proba(Xt),
            "EvidentialKNN": lambda: eknn.predict_proba(Xt),
        },
        rounds,
    )
    _, cpu_text = ratio(times["EvidentialKNN"]["cpu"], times["KNeighborsClassifier"]["cpu"])
    _, wall_text = ratio(times["EvidentialKNN"]["wall"], times["KNeighborsClassifier"]["wall"])
    lines += [
        "| estimator | CPU (median) | wall (median) |",
        "|---|---|---|",
    ]
    for name, values in times.items():
        lines.append(
            f"| {name}.predict_proba | {seconds(float(np.median(values['cpu'])))} | "
            f"{seconds(float(np.median(values['wall'])))} |"
        )
    lines += [
        "",
        f"EvidentialKNN / KNeighborsClassifier: CPU {cpu_text}; wall {wall_text}",
        f"(neighbour search '{knn._fit_method}'; same predictions on "
        f"{np.mean(eknn.predict(Xt[:2000]) == knn.predict(Xt[:2000])):.1%} of the first 2,000 queries)",
    ]
    print("\n".join(lines[-6:]), flush=True)
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default="combination,classifier")
    parser.add_argument("--md", default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rules", default=",".join(RULES), help="combination rules, comma-separated")
    parser.add_argument(
        "--sizes", default=None, help="labels x focal sets, comma-separated (e.g. 200x1000,1000x300)"
    )
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    n_focal = 300 if args.quick else 1000
    sizes = [(200, n_focal), (1000, 300)]
    if args.sizes:
        sizes = [tuple(int(v) for v in item.split("x")) for item in args.sizes.split(",")]
    rules = tuple(rule for rule in args.rules.split(",") if rule)
    n_test = 2_000 if args.quick else 10_000
    lines = ["# Frames of more than 64 labels: speed", "", *environment(argv)]
    start = time.time()
    with pinned_threads(1):
        if "combination" in args.only:
            lines += combination_rows(rng, sizes, args.rounds, rules)
        if "classifier" in args.only:
            lines += classifier_rows(100, 10_000, n_test, 20, 10, args.rounds)
    lines.append(
        f"\n(run time {time.time() - start:.0f} s; load average at the end {os.getloadavg()[0]:.2f})"
    )
    if args.md:
        with open(args.md, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
