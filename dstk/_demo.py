"""``python -m dstk demo``: ten classifiers, one trained on most of the data, combined as evidence.

The protocol is scenario (c) of Xu et al. (2016), Section 5.2, on the
breast-cancer data that scikit-learn ships (Wisconsin diagnostic, 569 cases):
300 training cases are split among ten RBF SVMs, one part holding 2/3 of them,
one 1/5 and eight sharing the rest (5 cases each).  Half of each part trains
its SVM and the other half calibrates its scores with a logistic calibrator,
once probabilistically (``model="bayes"``: a probability) and once
evidentially (``model="likelihood"``: a mass function whose ignorance
m({0, 1}) is large when the calibration data are few).  The ten outputs are
then combined and the combination decides on the 269 test cases.

The report gives, for each method, the mean test error over the rounds with
its standard error, and the paired difference to the evidential combination
with its standard error, so that a reader sees which differences are larger
than the noise.  A second table repeats the comparison with one sensor broken
(the SVM of the largest part sees noise in place of the test cases), and the
report shows the fusion's learned discount rates and selective decisions.
Everything uses dstk's public API.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["main", "run_demo"]

N_TRAIN = 300
METHODS = (
    ("best", "best single classifier (the SVM trained on 100 cases, calibrated on 100)"),
    ("average", "average of the ten calibrated probabilities"),
    ("bayes", "Bayes' rule on the ten calibrated probabilities (model='bayes')"),
    ("evidential", "Dempster's rule on the ten evidential outputs (model='likelihood')"),
    ("fusion", "EvidentialFusionClassifier: discount rates learned on the calibration halves"),
)


def part_sizes(n_train: int = N_TRAIN) -> list[int]:
    """Scenario (c) of Xu et al. (2016), Fig. 12: 2/3, 1/5 and eight equal parts of the rest."""
    big, second = 2 * n_train // 3, n_train // 5
    return [big, second] + [(n_train - big - second) // 8] * 8


def _svm():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    return make_pipeline(StandardScaler(), SVC(kernel="rbf", C=1.0, gamma="scale"))


def _one_part(X, y, part, X_test, rng):
    """Train on half of ``part``, calibrate on the other half: (probabilistic, evidential) masses.

    A part whose training or calibration half holds one class only, or whose SVM
    returns (numerically) constant decision values (frequent for
    the 5-case parts) carries no usable evidence: its evidential output is the
    vacuous mass function and its probability is 1/2 (Xu et al. do not say what
    they did there; this is the neutral choice for both models).
    """
    from dstk import Frame, MassFunction
    from dstk.calibration import LogisticCalibrator

    order = rng.permutation(part)
    half = len(order) // 2
    train, calibration = order[:half], order[half:]
    frame = Frame((0, 1))
    usable = len(np.unique(y[train])) == 2 and len(np.unique(y[calibration])) == 2
    if usable:
        svm = _svm().fit(X[train], y[train])
        calibration_scores = svm.decision_function(X[calibration])
        test_scores = svm.decision_function(X_test)
        # an SVM fitted on two or three points can return (numerically) constant decision values
        spread = float(np.ptp(calibration_scores))
        usable = spread > 1e-9 * (1.0 + float(np.max(np.abs(calibration_scores))))
    if not usable:
        n = len(X_test)
        return (
            MassFunction.from_array(np.tile([0.0, 0.5, 0.5, 0.0], (n, 1)), frame),
            MassFunction.vacuous(frame, batch_shape=(n,)),
            False,
            None,
        )
    from dstk.exceptions import ConvergenceWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        probabilistic = LogisticCalibrator(model="bayes").fit(calibration_scores, y[calibration])
        evidential = LogisticCalibrator(model="likelihood").fit(calibration_scores, y[calibration])
    not_converged = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    source = (svm, evidential, calibration)
    return (
        probabilistic.predict_mass(test_scores),
        evidential.predict_mass(test_scores),
        not_converged,
        source,
    )


def _fusion(sources, X, y, X_test, X_noise):
    """EvidentialFusionClassifier over the calibrated SVMs as trained (frozen), rates learned on the
    union of their calibration halves; returns P(malignant) and [Bel, Pl] of the test cases, P(malignant)
    when the first SVM sees ``X_noise`` in place of the test cases (a broken sensor), and the rates."""
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.frozen import FrozenEstimator

    from dstk.calibration import EvidentialFusionClassifier

    class CalibratedSVM(ClassifierMixin, BaseEstimator):
        """A fitted SVM and its evidential calibrator as one classifier (``predict_proba`` = BetP)."""

        def __init__(self, svm=None, calibrator=None):
            self.svm = svm
            self.calibrator = calibrator
            self.broken_with = None  # rows the SVM sees instead of its inputs (a broken sensor)

        def fit(self, X, y):  # pragma: no cover - used frozen (FrozenEstimator), never refitted
            return self

        @property
        def classes_(self):
            return np.array([0, 1])

        def __sklearn_is_fitted__(self):
            return True  # built from a fitted SVM and a fitted calibrator

        def predict_proba(self, X):
            seen = X if self.broken_with is None else self.broken_with
            return self.calibrator.predict_proba(self.svm.decision_function(seen))

        def predict(self, X):
            return self.classes_[self.predict_proba(X).argmax(axis=1)]

    usable = [source for source in sources if source is not None]
    rows = np.concatenate([rows for _, _, rows in usable])
    named = [
        (f"svm{i}", FrozenEstimator(CalibratedSVM(svm, calibrator)))
        for i, (svm, calibrator, _) in enumerate(usable)
    ]
    fusion = EvidentialFusionClassifier(named, cv=3).fit(X[rows], y[rows])
    bel, pl = fusion.predict_interval(X_test)
    p_clean = fusion.predict_proba(X_test)[:, 1]
    p_broken = p_clean
    if sources[0] is not None:  # the first SVM (the largest part) sees noise
        first = fusion.named_estimators_["svm0"].estimator
        first.broken_with = X_noise
        p_broken = fusion.predict_proba(X_test)[:, 1]
        first.broken_with = None
    rates = {name: fusion.rates_[j] for j, (name, _) in enumerate(named)}
    return p_clean, bel, pl, p_broken, rates


def _combine(masses):
    """Dempster's rule over the ten sources; samples in total conflict get the vacuous mass function."""
    from dstk import combine_with_conflict
    from dstk.exceptions import ConflictWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConflictWarning)  # counted and explained in the report
        combined, conflict = combine_with_conflict(masses, rule="dempster", on_conflict="vacuous")
    return combined, int(np.count_nonzero(np.asarray(conflict) >= 1.0))


def _positive_probability(mass: Any) -> np.ndarray:
    return mass.pignistic()[..., 1]


def _one_round(X, y, rng, noise_rng):
    from sklearn.model_selection import train_test_split

    X_pool, X_test, y_pool, y_test = train_test_split(
        X, y, train_size=N_TRAIN, stratify=y, random_state=int(rng.integers(1 << 31))
    )
    # a broken sensor: noise of the test cases' mean and spread per feature, in place of the test cases
    X_noise = noise_rng.normal(size=X_test.shape) * X_test.std(axis=0) + X_test.mean(axis=0)
    n_test = len(X_test)
    order = rng.permutation(len(y_pool))
    probabilistic: list[Any] = []
    evidential: list[Any] = []
    sources: list[Any] = []
    broken_probabilistic: list[Any] = []
    broken_evidential: list[Any] = []
    start = 0
    not_converged = 0
    both = np.vstack([X_test, X_noise])
    for size in part_sizes():
        p, e, failed, source = _one_part(X_pool, y_pool, order[start : start + size], both, rng)
        not_converged += failed
        # the outputs on the test cases; with the first SVM broken, its outputs on the noise
        seen = slice(n_test, None) if not probabilistic else slice(None, n_test)
        broken_probabilistic.append(p.batch[seen])
        broken_evidential.append(e.batch[seen])
        probabilistic.append(p.batch[:n_test])
        evidential.append(e.batch[:n_test])
        sources.append(source)
        start += size
    p_fusion, fusion_bel, fusion_pl, p_fusion_broken, rates = _fusion(
        sources, X_pool, y_pool, X_test, X_noise
    )
    bayes, bayes_conflicts = _combine(probabilistic)
    dempster, dempster_conflicts = _combine(evidential)
    p_average = np.mean([_positive_probability(p) for p in probabilistic], axis=0)
    predictions = {
        "best": _positive_probability(probabilistic[0]) > 0.5,
        "average": p_average > 0.5,
        "bayes": _positive_probability(bayes) > 0.5,
        "evidential": _positive_probability(dempster) > 0.5,
        "fusion": p_fusion > 0.5,
    }
    errors = {key: float(np.mean(value.astype(int) != y_test)) for key, value in predictions.items()}
    broken = {
        "best": _positive_probability(broken_probabilistic[0]) > 0.5,
        "average": np.mean([_positive_probability(p) for p in broken_probabilistic], axis=0) > 0.5,
        "bayes": _positive_probability(_combine(broken_probabilistic)[0]) > 0.5,
        "evidential": _positive_probability(_combine(broken_evidential)[0]) > 0.5,
        "fusion": p_fusion_broken > 0.5,
    }
    for key, value in broken.items():
        errors[f"{key}, broken"] = float(np.mean(value.astype(int) != y_test))
    # selective decisions: each method keeps the 80 % of test cases on which it is most decided
    decided = {
        "best": np.maximum(
            _positive_probability(probabilistic[0]), 1 - _positive_probability(probabilistic[0])
        ),
        "average": np.maximum(p_average, 1 - p_average),
        "evidential": np.maximum(dempster.bel({1}), 1 - dempster.pl({1})),  # Bel of the class decided
        "fusion": np.maximum(fusion_bel, 1 - fusion_pl),
    }
    kept = round(0.8 * y_test.size)
    selective = {
        key: float(
            np.mean(
                predictions[key][np.argsort(-value, kind="stable")[:kept]].astype(int)
                != y_test[np.argsort(-value, kind="stable")[:kept]]
            )
        )
        for key, value in decided.items()
    }
    details = {
        "y_test": y_test,
        "bayes": bayes,
        "evidential": dempster,
        "best_evidential": evidential[0],
        "fusion": (p_fusion, fusion_bel, fusion_pl),
        "best_probability": _positive_probability(probabilistic[0]),
        "conflicts": (bayes_conflicts, dempster_conflicts),
        "selective": selective,
        "not_converged": not_converged,
        "rates": rates,
    }
    return errors, details


def _mean_and_error(values: Any) -> tuple[float, float]:
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return float(values.mean()), float("nan")
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(values.size))


def _verdict(difference: float, error: float) -> str:
    if not np.isfinite(error):
        return "one round: no standard error"
    if abs(difference) <= 2 * error:
        return "within noise (less than 2 s.e. apart)"
    return "the Dempster row is better" if difference > 0 else "the Dempster row is worse"


def run_demo(
    *,
    rounds: int = 20,
    seed: int = 0,
    show_cases: int = 4,
    out: Callable[[str], Any] = print,
) -> dict[str, np.ndarray]:
    """Run the demo and return the test errors of every method, one per round.

    Parameters
    ----------
    rounds : int, default 20
        Random rounds (train/test splits and partitions).
    seed : int, default 0
        Seed of the rounds; the report is deterministic given it.
    show_cases : int, default 4
        Test cases of the last round printed with their [Bel, Pl] intervals.
    out : callable, default print
        Called with each line of the report (e.g. ``lines.append``).

    Returns
    -------
    dict of str to ndarray of shape (rounds,)
        Test error rates of ``"best"``, ``"average"``, ``"bayes"``,
        ``"evidential"`` and ``"fusion"`` (see the module docstring), and of
        the same methods when the first SVM sees noise (``"best, broken"``, ...).

    Notes
    -----
    Scenario (c) of Xu et al. (2016), Section 5.2: the evidential (likelihood)
    model discounts a classifier calibrated on a handful of scores by its
    ignorance, while Bayes' rule multiplies its probability in with full
    weight.  Decisions take the pignistic probability of the combination
    (Eq. 9).

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. International Journal of Approximate Reasoning
    72, 55-70.

    Examples
    --------
    >>> errors = run_demo(rounds=2, out=lambda line: None)
    >>> sorted(errors)[:4]
    ['average', 'average, broken', 'bayes', 'bayes, broken']
    >>> errors["evidential"].shape
    (2,)
    """
    from sklearn.datasets import load_breast_cancer

    if rounds < 1:
        raise ValueError(f"rounds must be a positive integer, got {rounds!r}")
    started = time.perf_counter()
    data = load_breast_cancer()
    X = data.data
    y = (data.target == 0).astype(int)  # 1 = malignant
    table, selective, details = _run_rounds(X, y, rounds=rounds, seed=seed)
    _report_setting(out, rounds=rounds, seed=seed, n_test=len(y) - N_TRAIN)
    _report_table(out, table, reference="evidential", suffix="")
    _report_where_combining_pays(out, table)
    _report_table(out, table, reference="fusion", suffix=", broken")
    _report_rates(out, table, details["rates"])
    _report_selective_and_conflicts(out, selective, details, rounds=rounds)
    _report_cases(out, details, show_cases=show_cases)
    out(f"(finished in {time.perf_counter() - started:.1f} s)")
    return table


def _run_rounds(
    X: np.ndarray, y: np.ndarray, *, rounds: int, seed: int
) -> tuple[dict[str, np.ndarray], dict[str, list[float]], dict[str, Any]]:
    """Run ``rounds`` rounds: (errors per method, selective errors per method, last round's details).

    The conflict and convergence counts of ``details`` are summed over the rounds.
    """
    rng = np.random.default_rng(seed)
    noise_rng = np.random.default_rng([seed, 1])  # its own stream: the other results do not depend on it
    errors: dict[str, list[float]] = {}
    selective: dict[str, list[float]] = {}
    conflicts = [0, 0]
    details: dict[str, Any] = {}
    not_converged = 0
    for _ in range(rounds):
        round_errors, details = _one_round(X, y, rng, noise_rng)
        for key, value in round_errors.items():
            errors.setdefault(key, []).append(value)
        for key, value in details["selective"].items():
            selective.setdefault(key, []).append(value)
        conflicts[0] += details["conflicts"][0]
        conflicts[1] += details["conflicts"][1]
        not_converged += details["not_converged"]
    details = {**details, "conflicts": conflicts, "not_converged": not_converged}
    table = {key: np.asarray(values) for key, values in errors.items()}
    return table, selective, details


def _report_setting(out: Callable[[str], Any], *, rounds: int, seed: int, n_test: int) -> None:
    """The data, the partition and the protocol, in three lines and a blank one."""
    sizes = part_sizes()
    out("dstk demo: ten SVMs trained on very unequal parts of the data, combined as evidence")
    out(
        f"data: scikit-learn's breast cancer (569 cases, 1 = malignant); {N_TRAIN} training cases "
        f"split {sizes[0]} / {sizes[1]} / 8 x {sizes[2]} (Xu et al. 2016, scenario (c)); "
        f"{n_test} test cases; {rounds} rounds, seed {seed}"
    )
    out("each SVM: half of its part trains it, half calibrates its scores (logistic calibration)")
    out("")


def _report_table(
    out: Callable[[str], Any], table: dict[str, np.ndarray], *, reference: str, suffix: str
) -> None:
    """One row per method: mean error, its s.e., and the paired difference to ``reference``."""
    name = "Dempster" if reference == "evidential" else reference
    header = f"{'method':<76} {'error %':>8} {'s.e.':>6}   {f'error minus the {name} row (s.e.)':>36}"
    out(header)
    out("-" * len(header))
    reference_errors = table[reference + suffix]
    for key, label in METHODS:
        mean, error = _mean_and_error(100 * table[key + suffix])
        if key == reference:
            paired = "(the reference row)"
        else:
            d, d_error = _mean_and_error(100 * (table[key + suffix] - reference_errors))
            verdict = _verdict(d, d_error).replace("the Dempster row", f"the {name} row")
            paired = f"{d:+6.2f} ({d_error:4.2f})  {verdict}"
        out(f"{label:<76} {mean:8.2f} {error:6.2f}   {paired}")
    out("")


def _report_where_combining_pays(out: Callable[[str], Any], table: dict[str, np.ndarray]) -> None:
    """The verdicts of the first table in words, why, and the introduction of the second table."""
    evidential = table["evidential"]
    d_bayes = _mean_and_error(100 * (table["bayes"] - evidential))
    d_best = _mean_and_error(100 * (table["best"] - evidential))
    d_average = _mean_and_error(100 * (table["average"] - evidential))
    out(
        f"Where combining pays, Dempster's rule on the evidential outputs against Bayes' rule: "
        f"{_verdict(*d_bayes)}; against the best single classifier: {_verdict(*d_best)}; against "
        f"averaging: {_verdict(*d_average)}."
    )
    out(
        "Why: eight SVMs see 5 cases each; calibrated evidentially they say 'I do not know' (large "
        "m({0,1})), while their probabilities enter Bayes' rule with full weight.  The fusion estimator "
        "goes further: it learns from the pooled calibration cases how far to trust each SVM, class by "
        "class (contextual discounting), instead of relying on the calibrators alone."
    )
    out("")
    out(
        "One sensor broken: the same classifiers, but the SVM trained on 100 cases sees noise (of the "
        "test cases' mean and spread per feature) in place of each test case:"
    )


def _report_rates(out: Callable[[str], Any], table: dict[str, np.ndarray], rates: dict[str, Any]) -> None:
    """The fusion's learned discount rates of the last round and the broken-sensor verdicts."""
    fusion_broken = table["fusion, broken"]
    small = [value for name, value in rates.items() if name not in ("svm0", "svm1")]
    trusted = ", ".join(
        f"{part} {rates[name][0]:.2f} / {rates[name][1]:.2f}"
        for name, part in (("svm0", "the SVM of 100 cases"), ("svm1", "the SVM of 30 cases"))
        if name in rates
    )
    small_text = (
        f"; the 5-case SVMs {np.mean([r[0] for r in small]):.2f} / "
        f"{np.mean([r[1] for r in small]):.2f} on average ({len(small)} usable)"
        if small
        else ""
    )
    d_best_broken = _mean_and_error(100 * (table["best, broken"] - fusion_broken))
    d_dempster_broken = _mean_and_error(100 * (table["evidential, broken"] - fusion_broken))
    out(
        "The fusion's learned discount rates (last round; 0: fully trusted, 1: ignored; when the tumour "
        f"is benign / malignant): {trusted}{small_text}.  A rate near 0 lets that SVM rule the other "
        "class out nearly on its own: learned on clean calibration cases (contamination=0.1 allows for "
        "a share of failures, not for one source broken on every case), the fusion keeps trusting the "
        "100-case SVM where it was reliable and follows it when it breaks.  With one sensor broken, the "
        "fusion against the best single classifier: "
        + _verdict(*d_best_broken).replace("the Dempster row", "the fusion row")
        + "; against Dempster's rule on the evidential outputs: "
        + _verdict(*d_dempster_broken).replace("the Dempster row", "the fusion row")
        + "."
    )


def _report_selective_and_conflicts(
    out: Callable[[str], Any],
    selective: dict[str, list[float]],
    details: dict[str, Any],
    *,
    rounds: int,
) -> None:
    """Selective errors at 80 % coverage, convergence warnings and total-conflict counts."""
    out(
        "Selective decisions (each method abstains on the 20 % of test cases where it is least decided: "
        "for the evidential rows, the smallest belief in the class chosen), error % on the other 80 %: "
        + "; ".join(
            f"{name} {100 * np.mean(selective[key]):.2f}"
            for key, name in (
                ("best", "best single"),
                ("average", "averaging"),
                ("evidential", "Dempster"),
                ("fusion", "fusion"),
            )
        )
        + "."
    )
    if details["not_converged"]:
        out(
            f"{details['not_converged']} of {10 * rounds} calibrations warned that Platt's fit did not "
            "converge (with 2 or 3 separable calibration scores its maximum-likelihood slope is infinite)."
        )
    conflicts = details["conflicts"]
    out(
        f"Total conflict: {conflicts[0]} test cases (over all rounds) had calibrated probabilities of "
        f"exactly 0 and 1 from two sources, and {conflicts[1]} evidential combinations met total "
        "conflict; dstk.combine(..., on_conflict='vacuous') gives those cases the vacuous mass "
        "function (decided at pignistic 1/2, i.e. class 0) instead of failing the batch."
    )
    out("")


def _report_cases(out: Callable[[str], Any], details: dict[str, Any], *, show_cases: int) -> None:
    """The last round's test cases on which Dempster's combination is least decided."""
    y_test = details["y_test"]
    combined = details["evidential"]
    bel, pl = combined.bel({1}), combined.pl({1})
    p_best = details["best_probability"]
    p_fusion, fusion_bel, fusion_pl = details["fusion"]
    width = pl - bel
    open_cases = np.flatnonzero(width > 1e-3)  # a [0.000, 0.000] interval says nothing worth a row
    picks = open_cases[np.argsort(-width[open_cases], kind="stable")[:show_cases]]
    out(
        f"The {len(picks)} test cases of the last round on which Dempster's combination is least decided "
        "(widest [Bel, Pl] that the tumour is malignant), with the other methods on the same cases:"
    )
    out(
        f"{'case':>5} {'truth':>6} {'best SVM P':>11} {'Dempster [Bel, Pl]':>20} "
        f"{'fusion [Bel, Pl]':>18} {'fusion P':>9}"
    )
    for i in picks:
        out(
            f"{i:>5} {int(y_test[i]):>6} {p_best[i]:>11.3f} {f'[{bel[i]:.3f}, {pl[i]:.3f}]':>20} "
            f"{f'[{fusion_bel[i]:.3f}, {fusion_pl[i]:.3f}]':>18} {p_fusion[i]:>9.3f}"
        )
    out("")


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point of ``python -m dstk demo [--rounds R] [--seed S]``.

    Parameters
    ----------
    argv : list of str or None, default None
        Command-line arguments after ``demo`` (None: ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit status 0 (argument errors exit with status 2 through argparse).

    Examples
    --------
    >>> main(["--rounds", "2", "--seed", "0"])  # doctest: +ELLIPSIS
    dstk demo: ten SVMs trained on very unequal parts of the data, combined as evidence
    ...
    0
    """
    parser = argparse.ArgumentParser(
        prog="python -m dstk demo", description=__doc__.splitlines()[0].replace("``", "")
    )
    parser.add_argument("--rounds", type=int, default=20, help="random rounds (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="random seed >= 0 (default 0)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be >= 1")
    if args.seed < 0:
        parser.error(f"--seed must be >= 0 (a seed of numpy's random generator); got {args.seed}")
    run_demo(rounds=args.rounds, seed=args.seed)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
