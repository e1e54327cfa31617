"""Quality of the random-tree combiners' probabilities on unseen data.

For each data set: repeated stratified splits (half trains, half tests); for
each split one :class:`RandomDecisionTreesClassifier` per combiner (same
seed, so the same trees), with ``stop_at_pure_nodes`` False and True.
Columns: accuracy of the argmax of ``predict_proba``, accuracy of the
combiner's own ``decision_function`` threshold, agreement of ``predict``
with the argmax of ``predict_proba``, log-loss, and the paired log-loss
difference to ``"average"`` (mean and standard error over the splits); CPU
time of fit + predict (``time.process_time``, BLAS threads pinned to one).

Usage::

    python benchmarks/bench_tree_calibration.py [DATA_FOLDER] [--splits 5] [--trees 100]
        [--sets banknote,sonar,...] [--output benchmarks/results/tree_calibration.md] [--ranking]
        [--cautious-candidates]

``--ranking``: instead, the AUC of the scores of "dempster" and "cautious" under several leaf models
(default trees), paired with "average"'s.  ``--cautious-candidates``: instead, constructions of a cautious
combination of the trees (cautious rule within groups of trees and Dempster's across them; the cautious
rule on likelihood-based predictive leaf masses; per training sample, cautious across the trees and
Dempster's across the samples; trees grown on disjoint parts of the training data, cautious within a part
and Dempster's across parts), each checked first against the rules computed from their definitions with
``dstk.combine``: AUC and log-loss paired with "average"'s.
``--forests``: instead, the default trees against scikit-learn's ``ExtraTreesClassifier`` and
``RandomForestClassifier`` (same number of trees; their defaults, and tuned by a 3-fold grid search of
``max_features`` and ``min_samples_leaf`` on log-loss): accuracy, log-loss, Brier, paired differences
with standard errors.

DATA_FOLDER defaults to ``../shared/datasets`` (needs ``load.py``);
``sklearn_<name>`` in ``--sets`` (``sklearn_breast_cancer``, ``sklearn_iris``, ``sklearn_wine``,
``sklearn_digits``) is scikit-learn's bundled copy.  The Brier column is half the multi-class Brier
score (for two classes the usual mean squared error of P(class 1)).
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

from dstk.ensemble import RandomDecisionTreesClassifier  # noqa: E402

_DATA_FOLDER = os.path.join(REPO, "..", "shared", "datasets")
COMBINERS = ("average", "vote", "laplace", "confidence_bounds", "plausibility", "eva", "dempster", "cautious")


def load(folder, name):
    if name.startswith("sklearn_"):
        from sklearn import datasets

        return getattr(datasets, "load_" + name[len("sklearn_") :])(return_X_y=True)
    spec = importlib.util.spec_from_file_location("shared_load", os.path.join(folder, "load.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.load(name)


def log_loss(y, proba):
    p = np.clip(proba[np.arange(y.size), y], 1e-15, 1.0)
    return float(-np.mean(np.log(p)))


def oracle_log_loss(y, proba):
    """Log-loss of expit(s logit p) for the s >= 0 best on these samples (P(class 1) = expit(a z) scaled)."""
    from scipy.optimize import minimize_scalar
    from scipy.special import expit, logit

    z = logit(np.clip(proba[:, 1], 1e-300, 1 - 1e-16))

    def loss(log_scale):
        p = expit(np.exp(log_scale) * z)
        return log_loss(y, np.stack([1 - p, p], axis=1))

    return float(minimize_scalar(loss, bounds=(-8.0, 8.0), method="bounded").fun)


def run(X, y, splits, n_trees, pure):
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedShuffleSplit

    keys = ("acc_proba", "acc_decision", "agree", "log_loss", "oracle", "auc", "cpu")
    rows = {c: {k: [] for k in keys} for c in COMBINERS}
    splitter = StratifiedShuffleSplit(n_splits=splits, test_size=0.5, random_state=0)
    for seed, (train, test) in enumerate(splitter.split(X, y)):
        for combiner in COMBINERS:
            start = time.process_time()
            model = RandomDecisionTreesClassifier(
                n_trees, combiner=combiner, stop_at_pure_nodes=pure, random_state=seed
            ).fit(X[train], y[train])
            proba = model.predict_proba(X[test])
            cpu = time.process_time() - start
            predicted = model.predict(X[test])
            decision = model.decision_function(X[test])
            argmax = proba.argmax(axis=1)
            # ties (p = 1/2) count as an argmax of either class
            chosen = np.searchsorted(model.classes_, predicted)
            agree = proba[np.arange(test.size), chosen] >= proba.max(axis=1)
            row = rows[combiner]
            row["acc_proba"].append(np.mean(np.where(proba[:, 1] == 0.5, chosen, argmax) == y[test]))
            row["acc_decision"].append(np.mean((decision >= 0).astype(int) == y[test]))
            row["agree"].append(np.mean(agree))
            row["log_loss"].append(log_loss(y[test], proba))
            calibrated = combiner in ("eva", "dempster", "cautious")
            row["oracle"].append(oracle_log_loss(y[test], proba) if calibrated else np.nan)
            row["auc"].append(roc_auc_score(y[test], decision))
            row["cpu"].append(cpu)
    return {c: {k: np.array(v) for k, v in r.items()} for c, r in rows.items()}


def table(name, results):
    base = results["average"]["log_loss"]
    lines = [
        f"| {name} | combiner | acc. predict_proba | acc. decision | predict = argmax | log-loss | "
        "log-loss − average (SE) | oracle log-loss | AUC | CPU s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for combiner, r in results.items():
        diff = r["log_loss"] - base
        se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else float("nan")
        oracle = "" if np.isnan(r["oracle"]).all() else f"{np.nanmean(r['oracle']):.3f}"
        lines.append(
            f"| | {combiner} | {r['acc_proba'].mean():.3f} | {r['acc_decision'].mean():.3f} | "
            f"{r['agree'].mean():.3f} | {r['log_loss'].mean():.3f} | {diff.mean():+.3f} ({se:.3f}) | "
            f"{oracle} | {r['auc'].mean():.3f} | {r['cpu'].mean():.2f} |"
        )
    return "\n".join(lines)


def pure_table(name, fully_grown, pure):
    """Paired differences pure stops minus fully grown trees (same splits, same seeds): mean (standard error)."""

    def paired(key, combiner):
        diff = pure[combiner][key] - fully_grown[combiner][key]
        se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else float("nan")
        return f"{diff.mean():+.3f} ({se:.3f})"

    lines = [
        f"| {name}: pure − fully grown | combiner | accuracy (SE) | log-loss (SE) | AUC (SE) | CPU ratio |",
        "|---|---|---|---|---|---|",
    ]
    for combiner in pure:
        ratio = np.median(pure[combiner]["cpu"] / fully_grown[combiner]["cpu"])
        lines.append(
            f"| | {combiner} | {paired('acc_proba', combiner)} | {paired('log_loss', combiner)} | "
            f"{paired('auc', combiner)} | {ratio:.2f} |"
        )
    return "\n".join(lines)


RANKING_VARIANTS = (
    ("dempster", {}),
    ("cautious", {}),
    ("cautious", {"model": "imprecise_dirichlet", "prior_strength": 1.0}),
    ("cautious", {"model": "imprecise_dirichlet", "prior_strength": 4.0}),
    ("cautious", {"model": "imprecise_dirichlet", "prior_strength": 16.0}),
)


def ranking(name, X, y, splits, n_trees):
    """AUC of the combiners' scores under several leaf models, paired with "average"'s (same trees per split).

    The AUC is the ranking of the score, which no calibration map (a monotone function of it) changes.
    """
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedShuffleSplit

    from dstk.ensemble import combine_leaves

    labels = ["average"] + [
        combiner + (f" ({options['model']}, s = {options['prior_strength']:g})" if options else "")
        for combiner, options in RANKING_VARIANTS
    ]
    auc = {label: [] for label in labels}
    ties = []
    splitter = StratifiedShuffleSplit(n_splits=splits, test_size=0.5, random_state=0)
    for seed, (train, test) in enumerate(splitter.split(X, y)):
        model = RandomDecisionTreesClassifier(n_trees, random_state=seed).fit(X[train], y[train])
        counts = model.leaf_counts(X[test])
        scores = [combine_leaves(counts, combiner="average")]
        scores += [combine_leaves(counts, combiner=c, **o) for c, o in RANKING_VARIANTS]
        for label, score in zip(labels, scores):
            auc[label].append(roc_auc_score(y[test], score))
        ties.append(np.mean(scores[2] == 0.0))
    base = np.array(auc["average"])
    lines = [
        f"| {name} (cautious score 0 on {np.mean(ties):.3f} of the test samples) | AUC | AUC − average (SE) |",
        "|---|---|---|",
    ]
    for label in labels:
        diff = np.array(auc[label]) - base
        se = diff.std(ddof=1) / np.sqrt(diff.size)
        lines.append(f"| {label} | {np.mean(auc[label]):.3f} | {diff.mean():+.3f} ({se:.3f}) |")
    return "\n".join(lines)


def _log_odds_of_weights(log_w0, log_w1):
    """ln BetP(1) - ln BetP(0) of the normalised conjunctive combination of two simple mass functions.

    The conjunctive combination of the simple mass functions of weights W0 = w({0}) and W1 = w({1}) is
    m({0}) = (1 - W0) W1, m({1}) = W0 (1 - W1), m(frame) = W0 W1 (and m(empty) = (1 - W0)(1 - W1)), so
    BetP(1) / BetP(0) = W0 (1 - W1 / 2) / (W1 (1 - W0 / 2)), the normalisation cancelling.
    """
    return (log_w0 - log_w1) + np.log1p(-np.exp(log_w1) / 2) - np.log1p(-np.exp(log_w0) / 2)


def _grouped_cautious(counts, group):
    """Cautious rule (minimum weight) within consecutive groups of ``group`` trees, Dempster's across groups."""
    from dstk.ensemble._combiners import _conjunctive_weight_rows, _representable_plausibility_rows

    n, n_trees, n_classes = counts.shape
    rows = counts.reshape(-1, n_classes).astype(np.float64)
    log_w = np.log(_conjunctive_weight_rows(_representable_plausibility_rows(rows))[:, :2]).reshape(
        n, n_trees, 2
    )
    log_w = log_w.reshape(n, n_trees // group, group, 2).min(axis=2).sum(axis=1)
    return _log_odds_of_weights(log_w[:, 0], log_w[:, 1])


def _sample_level_cautious(leaves, sizes, train_leaves, y_train, leave_one_out=False):
    """Training samples as the pieces of evidence: cautious rule across the trees, Dempster's across samples.

    In tree t a training sample j in the leaf of x (N_t samples) supports its class by a simple mass
    function of mass 1 / (N_t + 1) (its share of the leaf's imprecise Dirichlet mass, s = 1; as in
    Denoeux's evidential k-NN rule, 1995); the same sample seen by several trees is one piece of evidence
    (cautious rule: the minimum weight, i.e. the largest mass over the trees), distinct samples are
    distinct (conjunctive rule: the product of weights).  ``leave_one_out``: the pair (i, i) is dropped.
    """
    proximity = np.zeros((leaves.shape[0], train_leaves.shape[0]))
    for t in range(leaves.shape[1]):
        shared = leaves[:, t, None] == train_leaves[None, :, t]
        np.maximum(proximity, shared * (1.0 / (sizes[:, t, None] + 1.0)), out=proximity)
    if leave_one_out:
        np.fill_diagonal(proximity, 0.0)
    log_w = np.log1p(-proximity)
    return _log_odds_of_weights(log_w[:, y_train == 0].sum(axis=1), log_w[:, y_train == 1].sum(axis=1))


def _cautious_on_leaf_model(counts, model):
    """Cautious rule over all trees on the leaf masses of ``dstk.evidence.from_counts(..., model=model)``."""
    from dstk.ensemble._combiners import _conjunctive_weight_rows
    from dstk.evidence import from_counts

    n, n_trees, n_classes = counts.shape
    rows, inverse = np.unique(counts.reshape(-1, n_classes), axis=0, return_inverse=True)
    masses = from_counts(rows.astype(np.int64), model=model).to_array("m")[:, 1:]
    log_w = (
        np.log(_conjunctive_weight_rows(masses)[:, :2])[inverse.ravel()].reshape(n, n_trees, 2).min(axis=1)
    )
    return _log_odds_of_weights(log_w[:, 0], log_w[:, 1])


def _platt_scale(z, y):
    """Inverse temperature a of P(1) = expit(a z) by Platt's smoothed-target likelihood (no intercept)."""
    from scipy.optimize import minimize_scalar

    n1 = float(np.sum(y == 1))
    n0 = y.size - n1
    targets = np.where(y == 1, (n1 + 1) / (n1 + 2), 1 / (n0 + 2))
    scale = float(np.max(np.abs(z)))

    def loss(log_a):
        eta = np.exp(log_a) * z / scale
        return float(np.sum(targets * np.logaddexp(0, -eta) + (1 - targets) * np.logaddexp(0, eta)))

    return float(np.exp(minimize_scalar(loss, bounds=(-15.0, 15.0), method="bounded").x)) / scale


def _check_candidates_against_definition(seed=0):
    """Both candidate scores against the rules computed from their definitions with :func:`dstk.combine`.

    Brute force on a few trees and training samples: every (tree, training sample) mass function built
    on the frame {0, 1}, the cautious rule (Denoeux 2008, Section 4: the minimum of conjunctive weights)
    and Dempster's rule evaluated by dstk's general n-ary rules, then ln BetP(1) - ln BetP(0).
    """
    from dstk import MassFunction, combine
    from dstk.ensemble._combiners import _representable_plausibility_rows

    rng = np.random.default_rng(seed)
    n_trees, n_train = 4, 7
    leaves, train_leaves = rng.integers(0, 3, (3, n_trees)), rng.integers(0, 3, (n_train, n_trees))
    sizes = rng.integers(1, 6, (3, n_trees)).astype(float)
    y_train = np.array([0, 1, 0, 1, 1, 0, 1])
    fast = _sample_level_cautious(leaves, sizes, train_leaves, y_train)
    for i in range(leaves.shape[0]):
        per_sample = []
        for j in range(n_train):
            views = []
            for t in range(n_trees):
                mass = 1.0 / (sizes[i, t] + 1.0) if leaves[i, t] == train_leaves[j, t] else 0.0
                dense = np.zeros(4)  # bitmask order: empty, {0}, {1}, frame
                dense[1 << y_train[j]], dense[3] = mass, 1.0 - mass
                views.append(MassFunction.from_array(dense, (0, 1)))
            per_sample.append(combine(views, rule="cautious"))
        betp = combine(per_sample, rule="dempster").pignistic()
        assert abs(np.log(betp[1] / betp[0]) - fast[i]) < 1e-9 * max(1.0, abs(fast[i])), (i, betp, fast[i])
    counts = rng.integers(0, 6, (3, n_trees, 2)).astype(float)
    masses = _representable_plausibility_rows(counts.reshape(-1, 2)).reshape(3, n_trees, 3)
    from dstk.evidence import from_counts

    fast = _cautious_on_leaf_model(counts.astype(np.int64), "likelihood")
    for i in range(3):
        leaf_masses = from_counts(counts[i].astype(np.int64), model="likelihood")
        betp = combine(leaf_masses, rule="cautious", axis=0, normalize=True).pignistic()
        assert abs(np.log(betp[1] / betp[0]) - fast[i]) < 1e-9 * max(1.0, abs(fast[i])), ("likelihood", i)
    for group in (1, 2, n_trees):
        fast = _grouped_cautious(counts, group)
        for i in range(3):
            groups = []
            for start in range(0, n_trees, group):
                views = [
                    MassFunction.from_array(np.r_[0.0, masses[i, t]], (0, 1))
                    for t in range(start, start + group)
                ]
                groups.append(combine(views, rule="cautious"))
            betp = combine(groups, rule="dempster").pignistic()
            assert abs(np.log(betp[1] / betp[0]) - fast[i]) < 1e-9 * max(1.0, abs(fast[i])), (group, i)


CANDIDATE_GROUPS = (4, 10)


CANDIDATE_PARTS = (2, 4, 10)


def _partitioned_cautious(X_train, y_train, X, n_trees, parts, pure, seed, leave_out=None):
    """Trees grown on ``parts`` disjoint parts of the training data, n_trees / parts on each part.

    The trees of one part share their training data: one source, the cautious rule (minimum weight).
    Different parts hold different samples: distinct sources, Dempster's rule (product of weights).
    Returns the log-odds of every row of ``X`` and, for the temperature, the log-odds of every training
    sample from the parts that did not see it, scaled by parts / (parts - 1) for the missing part.
    """
    from sklearn.model_selection import StratifiedKFold

    folds = list(StratifiedKFold(parts, shuffle=True, random_state=seed).split(X_train, y_train))
    log_w = np.zeros((X.shape[0], 2))
    train_log_w = np.zeros((y_train.size, 2))
    for index, (_rest, part) in enumerate(folds):
        model = RandomDecisionTreesClassifier(
            n_trees // parts, stop_at_pure_nodes=pure, random_state=seed * 100 + index
        ).fit(X_train[part], y_train[part])
        for rows, target, mask in ((X, log_w, None), (X_train, train_log_w, _rest)):
            counts = model.leaf_counts(rows if mask is None else rows[mask])
            z_w = _part_log_weights(counts)
            if mask is None:
                target += z_w
            else:
                target[mask] += z_w
    z = _log_odds_of_weights(log_w[:, 0], log_w[:, 1])
    scale = parts / (parts - 1)
    z_train = _log_odds_of_weights(scale * train_log_w[:, 0], scale * train_log_w[:, 1])
    return z, z_train


def _part_log_weights(counts):
    """Per class the minimum over the trees of the log conjunctive weight of the plausibility leaf masses."""
    from dstk.ensemble._combiners import _conjunctive_weight_rows, _representable_plausibility_rows

    n, n_trees, n_classes = counts.shape
    rows = counts.reshape(-1, n_classes).astype(np.float64)
    log_w = np.log(_conjunctive_weight_rows(_representable_plausibility_rows(rows))[:, :2])
    return log_w.reshape(n, n_trees, 2).min(axis=1)


def cautious_candidates(name, X, y, splits, n_trees, pure):
    """Candidate constructions of a cautious combination of the trees, paired with "average" (same trees).

    AUC of every score; log-loss of the package's "cautious" and of the sample-level construction with its
    inverse temperature fitted on leave-one-out training scores, and the best one on the test samples.
    """
    from scipy.special import expit
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedShuffleSplit

    from dstk.ensemble import combine_leaves

    auc_labels = ["average", "cautious", "dempster"]
    auc_labels += [f"cautious in groups of {g}, Dempster across" for g in CANDIDATE_GROUPS]
    auc_labels += ["cautious on likelihood-based predictive leaf masses"]
    auc_labels += ["per training sample: cautious across trees, Dempster across samples"]
    auc_labels += [f"trees on {k} disjoint parts: cautious within, Dempster across" for k in CANDIDATE_PARTS]
    auc = {label: [] for label in auc_labels}
    loss = {k: [] for k in ("average", "cautious", "sample", "sample oracle")}
    loss.update({f"groups of {g} oracle": [] for g in CANDIDATE_GROUPS})
    loss["likelihood oracle"] = []
    loss.update({f"{k} parts{o}": [] for k in CANDIDATE_PARTS for o in ("", " oracle")})
    accuracy = {k: [] for k in ("average", "sample")}
    splitter = StratifiedShuffleSplit(n_splits=splits, test_size=0.5, random_state=0)
    for seed, (train, test) in enumerate(splitter.split(X, y)):
        model = RandomDecisionTreesClassifier(n_trees, stop_at_pure_nodes=pure, random_state=seed)
        model.fit(X[train], y[train])
        counts, train_counts = model.leaf_counts(X[test]), model.leaf_counts(X[train])
        leaves, train_leaves = model.apply(X[test]), model.apply(X[train])
        average = combine_leaves(counts, combiner="average")
        z = _sample_level_cautious(leaves, counts.sum(axis=2), train_leaves, y[train])
        z_train = _sample_level_cautious(
            train_leaves, train_counts.sum(axis=2) - 1.0, train_leaves, y[train], leave_one_out=True
        )
        scores = [
            average,
            combine_leaves(counts, combiner="cautious"),
            combine_leaves(counts, combiner="dempster"),
        ]
        grouped = [_grouped_cautious(counts, g) for g in CANDIDATE_GROUPS]
        likelihood = _cautious_on_leaf_model(counts, "likelihood")
        p_likelihood = expit(_platt_scale(likelihood, y[test]) * likelihood)
        loss["likelihood oracle"].append(
            log_loss(y[test], np.stack([1 - p_likelihood, p_likelihood], axis=1))
        )
        scores += grouped + [likelihood, z]
        for k in CANDIDATE_PARTS:
            z_part, z_part_train = _partitioned_cautious(X[train], y[train], X[test], n_trees, k, pure, seed)
            scores.append(z_part)
            p_part = expit(_platt_scale(z_part_train, y[train]) * z_part)
            p_part_oracle = expit(_platt_scale(z_part, y[test]) * z_part)
            loss[f"{k} parts"].append(log_loss(y[test], np.stack([1 - p_part, p_part], axis=1)))
            loss[f"{k} parts oracle"].append(
                log_loss(y[test], np.stack([1 - p_part_oracle, p_part_oracle], axis=1))
            )
        for g, score in zip(CANDIDATE_GROUPS, grouped):
            p_group = expit(_platt_scale(score, y[test]) * score)
            loss[f"groups of {g} oracle"].append(log_loss(y[test], np.stack([1 - p_group, p_group], axis=1)))
        for label, score in zip(auc_labels, scores):
            auc[label].append(roc_auc_score(y[test], score))
        cautious = RandomDecisionTreesClassifier(
            n_trees, combiner="cautious", stop_at_pure_nodes=pure, random_state=seed
        ).fit(X[train], y[train])
        p_sample = expit(_platt_scale(z_train, y[train]) * z)
        p_oracle = expit(_platt_scale(z, y[test]) * z)
        loss["average"].append(log_loss(y[test], np.stack([1 - average, average], axis=1)))
        loss["cautious"].append(log_loss(y[test], cautious.predict_proba(X[test])))
        loss["sample"].append(log_loss(y[test], np.stack([1 - p_sample, p_sample], axis=1)))
        loss["sample oracle"].append(log_loss(y[test], np.stack([1 - p_oracle, p_oracle], axis=1)))
        accuracy["average"].append(np.mean((average > 0.5) == y[test]))
        accuracy["sample"].append(np.mean((z > 0) == y[test]))

    def paired(values, base):
        diff = np.array(values) - np.array(base)
        return f"{diff.mean():+.3f} ({diff.std(ddof=1) / np.sqrt(diff.size):.3f})"

    lines = [f"| {name} (stop_at_pure_nodes={pure}) | AUC | AUC − average (SE) |", "|---|---|---|"]
    lines += [f"| {k} | {np.mean(v):.3f} | {paired(v, auc['average'])} |" for k, v in auc.items()]
    lines += [
        f"| log-loss: average | {np.mean(loss['average']):.3f} | |",
        f"| log-loss: cautious (package) | {np.mean(loss['cautious']):.3f} | {paired(loss['cautious'], loss['average'])} |",
        f"| log-loss: per training sample, leave-one-out temperature | {np.mean(loss['sample']):.3f} | "
        f"{paired(loss['sample'], loss['average'])} |",
        f"| log-loss: per training sample, best temperature on the test samples | "
        f"{np.mean(loss['sample oracle']):.3f} | {paired(loss['sample oracle'], loss['average'])} |",
        *(
            f"| log-loss: cautious in groups of {g}, best temperature on the test samples | "
            f"{np.mean(loss[f'groups of {g} oracle']):.3f} | {paired(loss[f'groups of {g} oracle'], loss['average'])} |"
            for g in CANDIDATE_GROUPS
        ),
        f"| log-loss: cautious on likelihood-based leaf masses, best temperature on the test samples | "
        f"{np.mean(loss['likelihood oracle']):.3f} | {paired(loss['likelihood oracle'], loss['average'])} |",
        *(
            f"| log-loss: trees on {k} disjoint parts, temperature from the other parts{o} | "
            f"{np.mean(loss[f'{k} parts{o}']):.3f} | {paired(loss[f'{k} parts{o}'], loss['average'])} |"
            for k in CANDIDATE_PARTS
            for o in ("",)
        ),
        *(
            f"| log-loss: trees on {k} disjoint parts, best temperature on the test samples | "
            f"{np.mean(loss[f'{k} parts oracle']):.3f} | {paired(loss[f'{k} parts oracle'], loss['average'])} |"
            for k in CANDIDATE_PARTS
        ),
        f"| accuracy: average / per training sample | {np.mean(accuracy['average']):.3f} / "
        f"{np.mean(accuracy['sample']):.3f} | {paired(accuracy['sample'], accuracy['average'])} |",
    ]
    return "\n".join(lines)


def brier(y, proba):
    """Half the multi-class Brier score, mean of sum_k (p_k - [y = k])^2 / 2: for two classes mean (p_1 - y)^2."""
    onehot = np.eye(proba.shape[1])[y]
    return float(np.mean(np.sum((proba - onehot) ** 2, axis=1)) / 2)


def _anchors(n_trees, seed, tuned=True):
    """scikit-learn's forests with the same number of trees: defaults, and tuned by 3-fold CV on the training half."""
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
    from sklearn.model_selection import GridSearchCV

    grid = {"max_features": ["sqrt", 0.5, None], "min_samples_leaf": [1, 3]}
    defaults = {
        "ExtraTrees": ExtraTreesClassifier(n_trees, random_state=seed),
        "RandomForest": RandomForestClassifier(n_trees, random_state=seed),
    }
    if not tuned:
        return defaults
    return {
        **defaults,
        "ExtraTrees tuned": GridSearchCV(
            ExtraTreesClassifier(n_trees, random_state=seed), grid, cv=3, scoring="neg_log_loss"
        ),
        "RandomForest tuned": GridSearchCV(
            RandomForestClassifier(n_trees, random_state=seed), grid, cv=3, scoring="neg_log_loss"
        ),
    }


DSTK_VARIANTS = {"dstk average": {"combiner": "average"}, "dstk eva": {"combiner": "eva"}}


def against_forests(name, X, y, splits, n_trees, tuned=True):
    """dstk's trees (``combiner="average"`` and ``"eva"``, other parameters default) against scikit-learn's forests, over the same splits.

    First table: accuracy, log-loss and Brier score of each model (means over the splits) and its CPU time of
    fit + predict_proba.  Second table: paired differences dstk minus the forest (mean and standard error over
    the splits; negative log-loss / Brier differences favour dstk).
    """
    from sklearn.model_selection import StratifiedShuffleSplit

    metrics = {}
    splitter = StratifiedShuffleSplit(n_splits=splits, test_size=0.5, random_state=0)
    for seed, (train, test) in enumerate(splitter.split(X, y)):
        models = {
            label: RandomDecisionTreesClassifier(n_trees, random_state=seed, **options)
            for label, options in DSTK_VARIANTS.items()
        }
        models.update(_anchors(n_trees, seed, tuned))
        for label, model in models.items():
            start = time.process_time()
            proba = model.fit(X[train], y[train]).predict_proba(X[test])
            cpu = time.process_time() - start
            row = metrics.setdefault(label, {"accuracy": [], "log_loss": [], "brier": [], "cpu": []})
            row["accuracy"].append(np.mean(proba.argmax(axis=1) == y[test]))
            row["log_loss"].append(log_loss(y[test], proba))
            row["brier"].append(brier(y[test], proba))
            row["cpu"].append(cpu)
    metrics = {label: {k: np.array(v) for k, v in row.items()} for label, row in metrics.items()}

    def paired(own, label, key):
        diff = metrics[own][key] - metrics[label][key]
        return f"{diff.mean():+.4f} ({diff.std(ddof=1) / np.sqrt(diff.size):.4f})"

    lines = [
        f"| {name} | model | accuracy | log-loss | Brier | CPU s |",
        "|---|---|---|---|---|---|",
    ]
    for label, row in metrics.items():
        lines.append(
            f"| | {label} | {row['accuracy'].mean():.4f} | {row['log_loss'].mean():.4f} | "
            f"{row['brier'].mean():.4f} | {row['cpu'].mean():.2f} |"
        )
    lines += [
        "",
        f"| {name}: paired difference | accuracy (SE) | log-loss (SE) | Brier (SE) |",
        "|---|---|---|---|",
    ]
    for own in DSTK_VARIANTS:
        for label in metrics:
            if label not in DSTK_VARIANTS:
                lines.append(
                    f"| {own} − {label} | {paired(own, label, 'accuracy')} | {paired(own, label, 'log_loss')} | "
                    f"{paired(own, label, 'brier')} |"
                )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", nargs="?", default=_DATA_FOLDER)
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--sets", default="banknote,sonar,ionosphere,pima,spambase")
    parser.add_argument("--pure", choices=["both", "false", "true"], default="false")
    parser.add_argument("--output", default=None)
    parser.add_argument(
        "--ranking",
        action="store_true",
        help="AUC of the default trees' combiner scores under several leaf models",
    )
    parser.add_argument(
        "--forests",
        action="store_true",
        help="the default trees against scikit-learn's ExtraTrees and RandomForest (defaults and tuned)",
    )
    parser.add_argument(
        "--cautious-candidates",
        action="store_true",
        help="AUC and log-loss of candidate constructions of a cautious combination of the trees",
    )
    parser.add_argument("--untuned", action="store_true", help="--forests: scikit-learn's defaults only")
    args = parser.parse_args(argv)
    from threadpoolctl import threadpool_limits

    sys.path.insert(0, HERE)
    from _harness import environment, load_at_end

    out = ["\n".join(environment(["benchmarks/bench_tree_calibration.py", *(argv or sys.argv[1:])]))]
    print(out[0], flush=True)
    with threadpool_limits(1):
        for name in args.sets.split(","):
            X, y = load(args.data, name)
            if args.forests:
                text = against_forests(name, X, y, args.splits, args.trees, not args.untuned)
                print(text + "\n", flush=True)
                out.append(text)
                continue
            if args.cautious_candidates:
                _check_candidates_against_definition()
                for pure in {"both": (False, True), "false": (False,), "true": (True,)}[args.pure]:
                    text = cautious_candidates(name, X, y, args.splits, args.trees, pure)
                    print(text + "\n", flush=True)
                    out.append(text)
                continue
            if args.ranking:
                text = ranking(name, X, y, args.splits, args.trees)
                print(text + "\n", flush=True)
                out.append(text)
                continue
            by_pure = {}
            for pure in {"both": (False, True), "false": (False,), "true": (True,)}[args.pure]:
                results = by_pure[pure] = run(X, y, args.splits, args.trees, pure)
                text = table(f"{name} (stop_at_pure_nodes={pure})", results)
                print(text + "\n", flush=True)
                out.append(text)
            if len(by_pure) == 2:
                text = pure_table(name, by_pure[False], by_pure[True])
                print(text + "\n", flush=True)
                out.append(text)
    out.append(load_at_end())
    print(out[-1])
    if args.output:
        with open(args.output, "a") as handle:
            handle.write("\n\n".join(out) + "\n")


if __name__ == "__main__":
    main()
