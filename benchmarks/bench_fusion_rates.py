"""Where the fusion's losses come from: rate-learning variants on saved calibrated outputs.

Reads the per-split outputs that ``bench_fusion_choices.py --dump`` saves (each classifier's temperature-
scaled out-of-fold outputs on the training part, the labels, its outputs on the test part, corrupted or
not) and the anchors of the same run (``--out``), re-learns the contextual discount rates in several ways
and scores each variant on the same test part, paired with the anchors:

- ``c=<value>``: the rates ``fit`` learns with ``contamination=<value>`` (the landed criterion);
- ``no discounting``: every rate 0, the product of the calibrated outputs (Bayes' rule with independent
  classifiers): what the rates add;
- ``oracle``: rates learned on the test part itself, with its labels (contamination 0): the least
  log-loss any fixed rates reach on that test part, so a miss that remains under it is not the rates'
  (nor the contamination's) but the calibrated outputs';
- ``nested``: the contamination of ``--grid`` whose rates, learned on four fifths of the out-of-fold
  outputs, give the least log-loss on the other fifth (the cross-fitted likelihood of the contamination);
- ``toward reliability``: the landed criterion (contamination 0.1) plus ``lambda * mean((alpha_sk -
  r_sk)^2)``, ``r_sk`` the mean probability classifier ``s`` gives the wrong classes on the out-of-fold
  samples of class ``k`` (its out-of-fold unreliability when the truth is ``k``).

With ``--test-time`` the variants are instead test-time (per-sample or per-batch) discountings on top of
the landed rates (contamination 0.1), driven by the disagreement of one classifier with the others:

- ``failure posterior c=<value>``: each classifier discounted (classically, on top of its rates) on each
  sample by the posterior probability that it failed there, under the failure model of ``contamination``
  read at test time: prior ``c / S`` per classifier, likelihood ratio ``1 / A_s`` of "failed" against
  "working", ``A_s`` the agreement of :func:`dstk.evidence._dissent.log_agreement`;
- ``dissent``: rate the distance of Jousselme, Grenier & Bosse (2001) between the classifier's
  plausibility transform and that of the combination of the others (both Bayesian, where the distance is
  ``sqrt(||p - q||^2 / 2)``), the dissent criterion of Klein & Colot (2010) used as the discount rate;
- ``credibility``: Deng et al. (2004): similarity ``1 - d_J`` between classifiers, support the sum of a
  classifier's similarities to the others, credibility the normalised support; rate one minus the
  credibility over the largest credibility of the sample;
- ``batch test <level>``: ``failure_test_level`` of the estimator (a rank test, on the whole test part,
  of each classifier's agreement against its out-of-fold agreement; the flagged classifier is left out
  and the others combined with the rates learned without it).

The dump is checked against the run it was saved with, in two steps whose tolerances are stated in
:data:`EXACT` and :data:`OPTIMISER_DRIFT`:

- *identity* (dumps that carry the run's own rates, ``rates c=<c>``, saved by ``bench_fusion_choices.py``
  since the rates' optimiser changed): the run's rates on the saved test outputs must give the run's
  log-loss of ``c=0.1`` on every split to ``EXACT`` (float rounding).  No optimiser is involved, so a
  dump of other data, seeds or splits fails whatever the optimiser does;
- *re-learning*: the rates re-learned here (the baseline of every paired cell) are compared with the
  run's, split by split; each split that moved by more than ``EXACT`` is printed with its difference and,
  when the run's rates are saved, with the training criterion of both (the optimiser may find another,
  lower, local minimum: the criterion is not convex).  Dumps saved without their rates (before the rates'
  optimiser became Newton's after 20 L-BFGS-B steps) have no identity check, so there the median
  absolute difference over the splits must stay within ``OPTIMISER_DRIFT``: a new optimiser moves the
  splits where the old L-BFGS-B stopped early or fell into another basin (corrupted breast cancer of the
  headline seeds: 7 splits within 2e-5, split 1 +0.0137 with a training criterion 0.080886 against
  0.081043; 2 splits to 1e-14), while a dump of other data moves every split.

Usage::

    python benchmarks/bench_fusion_rates.py --dump /tmp/unequal_dump.npz --anchors /tmp/unequal.npz
    python benchmarks/bench_fusion_rates.py --dump /tmp/corrupted_dump.npz --anchors /tmp/corrupted.npz \
        --test-time
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
from scipy import optimize

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

sys.path.insert(0, HERE)

from bench_fusion_choices import singleton_belief_and_conflict  # noqa: E402

import dstk.evidence._contextual as contextual  # noqa: E402
from dstk.calibration._fusion import _MIN_LEARNED_RATE, _with_failures  # noqa: E402
from dstk.evidence._dissent import failing_source, log_agreement  # noqa: E402

GRID = (0.0, 0.02, 0.05, 0.1, 0.2)
#: the run's own rates on the saved outputs give the run's log-loss to this (float rounding only)
EXACT = 1e-9
#: dumps without the run's rates: largest median, over the splits, of |re-learned minus run| log-loss
#: (a change of optimiser moves a few splits; other data move them all)
OPTIMISER_DRIFT = 1e-4


def rates_at(contours, labels, contamination, weights=None):
    """The rates ``fit`` learns with ``contamination`` on these out-of-fold outputs."""
    w = np.ones(labels.size) if weights is None else weights
    if contamination > 0:
        contours, labels, w = _with_failures(contours, labels, w, contamination)
    return contextual.log_loss_contextual_rates(contours, labels, weights=w, min_rate=_MIN_LEARNED_RATE)


def log_loss(contours, rates, y_index):
    p, _ = contextual.plausibility_transform_of_product(contours, rates)
    p = np.clip(p[np.arange(y_index.size), y_index], 1e-15, 1.0)
    return float(-np.log(p).mean())


def selective_error(contours, rates, y_index, coverage=0.8):
    """Error on the kept samples, abstaining on the smallest Bel of the decided class (the documented score)."""
    p, _ = contextual.plausibility_transform_of_product(contours, rates)
    decided = p.argmax(axis=1)
    bel, _ = singleton_belief_and_conflict(contours, rates, decided)
    errors = decided != y_index
    order = np.argsort(-bel, kind="stable")
    return float(errors[order[: max(1, round(coverage * errors.size))]].mean())


def nested_contamination(contours, labels, grid=GRID, n_folds=5, seed=0):
    """The contamination of ``grid`` of least held-out log-loss over ``n_folds`` folds of the outputs."""
    rng = np.random.default_rng(seed)
    fold = np.empty(labels.size, dtype=int)
    for k in np.unique(labels):  # stratified
        members = rng.permutation(np.flatnonzero(labels == k))
        fold[members] = np.arange(members.size) % n_folds
    losses = []
    for c in grid:
        total = 0.0
        for f in range(n_folds):
            train, test = fold != f, fold == f
            rates = rates_at(contours[:, train], labels[train], c)
            total += log_loss(contours[:, test], rates, labels[test]) * test.sum()
        losses.append(total / labels.size)
    return grid[int(np.argmin(losses))]


def toward_reliability(contours, labels, contamination=0.1, strength=1.0):
    """Landed criterion plus ``strength * mean((alpha - r)^2)``, r the out-of-fold unreliability."""
    n_sources, _, n_classes = contours.shape
    r = np.empty((n_sources, n_classes))
    for k in range(n_classes):
        r[:, k] = 1.0 - contours[:, labels == k, k].mean(axis=1)
    r = np.clip(r, _MIN_LEARNED_RATE, 1.0)
    c, lab, w = _with_failures(contours, labels, np.ones(labels.size), contamination)
    start = rates_at(contours, labels, contamination)
    total = w.sum()

    def objective(flat):
        rates = flat.reshape(n_sources, n_classes)
        p, _ = contextual.plausibility_transform_of_product(c, rates)
        loss = -(w * np.log(np.clip(p[np.arange(lab.size), lab], 1e-300, 1.0))).sum() / total
        return loss + strength * np.mean((rates - r) ** 2)

    result = optimize.minimize(
        objective, start.ravel(), method="L-BFGS-B", bounds=[(_MIN_LEARNED_RATE, 1.0)] * start.size
    )
    return result.x.reshape(n_sources, n_classes)


def training_criterion(contours, labels, rates, contamination=0.1):
    """The criterion the rates minimise (``fit``'s, contamination included) at ``rates``."""
    c, lab, w = _with_failures(contours, labels, np.ones(labels.size), contamination)
    p, _ = contextual.plausibility_transform_of_product(c, rates)
    return float(-(w * np.log(np.maximum(p[np.arange(lab.size), lab], 1e-300))).sum() / w.sum())


def check_against_run(name, dump, n_splits, landed, relearned):
    """Check that the dump is the run's (see the module's docstring); prints the splits that moved."""
    saved_key = "rates c=0.1"
    moved = np.flatnonzero(np.abs(relearned - landed) > EXACT)
    if f"{name}|0|{saved_key}" in dump.files:
        splits = [
            {k: dump[f"{name}|{i}|{k}"] for k in ("train", "labels", "test", "y_index", saved_key)}
            for i in range(n_splits)
        ]
        scored = np.array([log_loss(s["test"], s[saved_key], s["y_index"]) for s in splits])
        worst = np.abs(scored - landed).max()
        assert worst <= EXACT, (
            f"{name}: the run's rates on the dump's outputs give log-loss {scored.round(6)}, the run "
            f"{landed.round(6)} (largest difference {worst:.2e}): the dump is not this run's"
        )
        for i in moved:
            s = splits[i]
            mine = rates_at(s["train"], s["labels"], 0.1)
            print(
                f"- {name} split {i}: re-learned rates move the log-loss by {relearned[i] - landed[i]:+.2e} "
                f"(training criterion {training_criterion(s['train'], s['labels'], mine):.6f}, the run's "
                f"{training_criterion(s['train'], s['labels'], s[saved_key]):.6f})"
            )
        return
    drift = np.abs(relearned - landed)
    for i in moved:
        print(f"- {name} split {i}: re-learned rates move the log-loss by {relearned[i] - landed[i]:+.2e}")
    assert np.median(drift) <= OPTIMISER_DRIFT, (
        f"{name}: re-learned log-loss differs from the run's by {(relearned - landed).round(6)} (median "
        f"{np.median(drift):.2e} > {OPTIMISER_DRIFT:g}); the dump carries no rates of its own to tell "
        "a change of optimiser from a dump of other data: re-dump with bench_fusion_choices.py --dump"
    )


def score_rates(contours, rates, y_index, coverage=0.8):
    """Log-loss and selective error (abstaining on the smallest Bel) of per-sample rates (S, n, K)."""
    discounted = contours + rates * (1.0 - contours)
    with np.errstate(divide="ignore"):
        log_contour = np.log(discounted).sum(axis=0)
    p = np.exp(log_contour - log_contour.max(axis=1, keepdims=True))
    p = p / p.sum(axis=1, keepdims=True)
    loss = float(-np.log(np.clip(p[np.arange(y_index.size), y_index], 1e-15, 1.0)).mean())
    decided = p.argmax(axis=1)
    bel, _ = singleton_belief_and_conflict(contours, np.ascontiguousarray(rates), decided)
    errors = decided != y_index
    order = np.argsort(-bel, kind="stable")
    return loss, float(errors[order[: max(1, round(coverage * errors.size))]].mean())


def _on_top(rates, extra):
    """Classical discounting at per-sample rates ``extra`` (S, n) after contextual rates (S, K)."""
    return 1.0 - (1.0 - rates[:, None, :]) * (1.0 - extra[:, :, None])


def _bayesian_distance(p, q):
    """Jousselme distance between two Bayesian mass functions: sqrt(||p - q||^2 / 2)."""
    return np.sqrt(0.5 * ((p - q) ** 2).sum(axis=-1))


def test_time_variants(split, contaminations=(0.05, 0.1, 0.2), levels=(0.01, 0.001)):
    train, labels, test, y_index = split["train"], split["labels"], split["test"], split["y_index"]
    rates = rates_at(train, labels, 0.1)
    n_sources = test.shape[0]
    discounted = test + rates[:, None, :] * (1.0 - test)
    fixed = np.broadcast_to(rates[:, None, :], test.shape)
    out = {"c=0.1": score_rates(test, fixed, y_index)}
    agreement = np.exp(log_agreement(discounted))
    for c in contaminations:
        odds = (c / n_sources) / ((1.0 - c) * agreement)
        out[f"failure posterior c={c:g}"] = score_rates(
            test, _on_top(rates, odds / (1.0 + odds.sum(axis=0))), y_index
        )
    p = discounted / discounted.sum(axis=2, keepdims=True)
    log_contour = np.log(np.maximum(discounted, 1e-300))
    others = log_contour.sum(axis=0, keepdims=True) - log_contour
    combined_others = np.exp(others - others.max(axis=2, keepdims=True))
    combined_others /= combined_others.sum(axis=2, keepdims=True)
    out["dissent"] = score_rates(test, _on_top(rates, _bayesian_distance(p, combined_others)), y_index)
    similarity = np.stack(
        [[1.0 - _bayesian_distance(p[i], p[j]) for j in range(n_sources)] for i in range(n_sources)]
    )
    support = similarity.sum(axis=1) - 1.0
    credibility = support / support.sum(axis=0, keepdims=True)
    out["credibility"] = score_rates(
        test, _on_top(rates, 1.0 - credibility / credibility.max(axis=0, keepdims=True)), y_index
    )
    reference_discounted = train + rates[:, None, :] * (1.0 - train)
    flagged = {}
    for level in levels:
        _, failing = failing_source(
            log_agreement(reference_discounted), reference_discounted, discounted, level
        )
        flagged[level] = failing
        if failing < 0:
            out[f"batch test {level:g}"] = out["c=0.1"]
            continue
        keep = np.delete(np.arange(n_sources), failing)
        kept_rates = rates_at(train[keep], labels, 0.1)
        out[f"batch test {level:g}"] = score_rates(
            test[keep], np.broadcast_to(kept_rates[:, None, :], test[keep].shape), y_index
        )
    return out, flagged


def variants(split, strengths):
    train, labels, test, y_index = split["train"], split["labels"], split["test"], split["y_index"]
    out = {}
    for c in (0.0, 0.1):
        out[f"c={c}"] = rates_at(train, labels, c)
    out["no discounting"] = np.zeros_like(out["c=0.0"])
    out["oracle"] = rates_at(test, y_index, 0.0)
    chosen = nested_contamination(train, labels)
    out["nested"] = rates_at(train, labels, chosen)
    for strength in strengths:
        out[f"toward reliability {strength:g}"] = toward_reliability(train, labels, 0.1, strength)
    return {
        name: (log_loss(test, r, y_index), selective_error(test, r, y_index)) for name, r in out.items()
    }, chosen


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", required=True)
    parser.add_argument("--anchors", required=True)
    parser.add_argument("--strengths", default="0.1,1")
    parser.add_argument("--sets", default=None, help="comma-separated names (default: all in the dump)")
    parser.add_argument("--test-time", action="store_true", help="the test-time discountings instead")
    args = parser.parse_args(argv)
    dump, anchors = np.load(args.dump), np.load(args.anchors)
    strengths = [float(s) for s in args.strengths.split(",") if s]
    sets = list(dict.fromkeys(k.split("|")[0] for k in dump.files))
    if args.sets:
        sets = [name for name in sets if name in args.sets.split(",")]
    anchor_names = [
        m for m in dict.fromkeys(k.split("|")[1] for k in anchors.files) if not m.startswith("fusion")
    ]
    for name in sets:
        n_splits = len({k.split("|")[1] for k in dump.files if k.startswith(name + "|")})
        rows, chosen = [], []
        for i in range(n_splits):
            split = {key: dump[f"{name}|{i}|{key}"] for key in ("train", "labels", "test", "y_index")}
            if args.test_time:
                scores, c = test_time_variants(split)
                c = {level: (int(dump[f"{name}|{i}|corrupted"]), f) for level, f in c.items()}
            else:
                scores, c = variants(split, strengths)
            rows.append(scores)
            chosen.append(c)
        base = np.array([r["c=0.1"][0] for r in rows])
        what = "(corrupted, flagged) per split and level" if args.test_time else "nested contamination chosen"
        print(f"\n### {name}: log-loss of c=0.1 {base.mean():.4f}; {what} {chosen}")
        print("| variant | log-loss minus c=0.1 | sel. error 80 % | minus c=0.1 |")
        print("|---|---|---|---|")
        base_sel = np.array([r["c=0.1"][1] for r in rows])
        for variant in rows[0]:
            values = np.array([r[variant][0] for r in rows])
            sel = np.array([r[variant][1] for r in rows])
            d, e = values - base, sel - base_sel
            print(
                f"| {variant} | {d.mean():+.4f} ± {d.std(ddof=1) / np.sqrt(d.size):.4f} | {sel.mean():.4f} | "
                f"{e.mean():+.4f} ± {e.std(ddof=1) / np.sqrt(e.size):.4f} |"
            )
        for anchor in anchor_names:
            key = f"{name}|{anchor}"
            if key in anchors.files:
                values = anchors[key][:n_splits]
                d = values[:, 1] - base
                print(
                    f"| {anchor} | {d.mean():+.4f} ± {d.std(ddof=1) / np.sqrt(d.size):.4f} | "
                    f"{values[:, 3].mean():.4f} | |"
                )
        check_against_run(name, dump, n_splits, anchors[f"{name}|fusion c=0.1"][:n_splits, 1], base)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
