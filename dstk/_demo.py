"""``python -m dstk demo``: combine classifiers trained on very unequal amounts of data, as evidence.

Three classifiers (an RBF SVM, a logistic regression and a Gaussian naive Bayes
model from scikit-learn) are trained on disjoint parts of scikit-learn's
breast-cancer data (Wisconsin diagnostic, 569 cases) of very different sizes,
as in Xu et al. (2016), Section 5: half of each part trains the classifier,
the other half calibrates its scores.  Each classifier's scores are calibrated
probabilistically (``model="bayes"``) and evidentially
(``model="likelihood"``), the calibrated outputs are combined by Dempster's
rule (Bayes' rule for the probabilistic ones) and the combination decides.

The demo prints the test error of every classifier alone and of the
combinations, averaged over random rounds, then a few test cases with their
Bel/Pl intervals.  It needs the ``sklearn`` extra and runs in a few seconds.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["main", "run_demo", "combine_dempster"]

_SIZES = (16, 40, 240)
_NAMES = ("RBF SVM", "logistic regression", "Gaussian naive Bayes")
_SHORT = ("SVM", "LogReg", "NaiveBayes")


def _classifiers():
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    return [
        make_pipeline(StandardScaler(), SVC(kernel="rbf", C=1.0, gamma="scale")),
        make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000)),
        GaussianNB(),
    ]


def _scores(model, X):
    if hasattr(model, "decision_function"):
        return model.decision_function(X)
    probability = np.clip(model.predict_proba(X)[:, 1], 1e-12, 1 - 1e-12)
    return np.log(probability) - np.log1p(-probability)  # log-odds: a score on the real line


def combine_dempster(mass_arrays: Sequence[ArrayLike]) -> tuple[np.ndarray, np.ndarray]:
    """Dempster's rule on binary masses through the public path, total conflict made vacuous.

    Parameters
    ----------
    mass_arrays : sequence of ndarray of shape (n_samples, 4)
        One dense binary mass array ``[0, m({0}), m({1}), m({0, 1})]`` per
        source.

    Returns
    -------
    combined : ndarray of shape (n_samples, 4)
        Dempster's combination of the sources, sample by sample
        (:func:`dstk.combine` with ``on_conflict="vacuous"``): rows in total
        conflict are vacuous (m({0, 1}) = 1).
    total_conflict : ndarray of bool of shape (n_samples,)
        Rows with kappa = 1 (e.g. two calibrated probabilities 0 and 1).

    Notes
    -----
    The unnormalised conjunctive combination m(A) = sum over B ∩ C = A of
    m_1(B) m_2(C) is divided by 1 - kappa, kappa = m(empty set) (Dempster's
    rule, Xu et al. 2016, Eqs. 6-7); with Bayesian masses this is Bayes' rule
    with a uniform prior.

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. IJAR 72, 55-70.

    Examples
    --------
    >>> import numpy as np
    >>> first = np.array([[0.0, 0.2, 0.5, 0.3], [0.0, 1.0, 0.0, 0.0]])
    >>> second = np.array([[0.0, 0.4, 0.4, 0.2], [0.0, 0.0, 1.0, 0.0]])
    >>> combined, total = combine_dempster([first, second])
    >>> combined.round(4)
    array([[0.    , 0.3333, 0.5833, 0.0833],
           [0.    , 0.    , 0.    , 1.    ]])
    >>> total
    array([False,  True])
    """
    import warnings

    from dstk import MassFunction, combine
    from dstk.exceptions import ConflictWarning

    sources = [MassFunction.from_array(np.asarray(m, dtype=np.float64), (0, 1)) for m in mass_arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConflictWarning)  # counted and reported by the demo instead
        combined, kappa = combine(sources, rule="dempster", return_conflict=True, on_conflict="vacuous")
    return combined.to_array("m"), np.asarray(kappa) >= 1.0


def _one_round(X, y, rng, sizes, methods):
    from sklearn.model_selection import train_test_split

    X_pool, X_test, y_pool, y_test = train_test_split(
        X, y, test_size=0.4, stratify=y, random_state=int(rng.integers(1 << 31))
    )
    order = rng.permutation(len(y_pool))
    start = 0
    per_model: dict[
        tuple[str, str], list[np.ndarray]
    ] = {}  # (method, model) -> list of mass arrays per classifier
    for size, classifier in zip(sizes, _classifiers()):
        part = order[start : start + size]
        start += size
        # a stratified half/half split of the part: train / calibrate
        X_part, y_part = X_pool[part], y_pool[part]
        X_train, X_cal, y_train, y_cal = train_test_split(
            X_part, y_part, test_size=0.5, stratify=y_part, random_state=int(rng.integers(1 << 31))
        )
        classifier.fit(X_train, y_train)
        cal_scores, test_scores = _scores(classifier, X_cal), _scores(classifier, X_test)
        for method, calibrator_class in methods.items():
            for model in ("bayes", "likelihood"):
                calibrator = calibrator_class(model=model).fit(cal_scores, y_cal)
                per_model.setdefault((method, model), []).append(calibrator.predict_mass_array(test_scores))
    return per_model, y_test


def _error(mass, y_test):
    positive = mass[:, 2] + 0.5 * mass[:, 3]
    return float(np.mean((positive > 0.5).astype(int) != y_test))


def run_demo(
    rounds: int = 10,
    seed: int = 0,
    sizes: Sequence[int] = _SIZES,
    show_cases: int = 4,
    out: Callable[[str], Any] = print,
) -> dict[tuple[str, str], np.ndarray]:
    """Run the demo and return its table as a dict ``{(method, model): [errors...]}``.

    Parameters
    ----------
    rounds : int, default 10
        Random rounds (splits) averaged.
    seed : int, default 0
        Seed of the splits; the output is deterministic given it.
    sizes : sequence of 3 ints, default (16, 40, 240)
        Data given to each classifier (half trains it, half calibrates it).
    show_cases : int, default 4
        Test cases printed with their Bel/Pl intervals.
    out : callable, default print
        Called with each line of the report (e.g. ``lines.append``).

    Returns
    -------
    dict
        ``(method, model) -> ndarray of shape (4,)``: mean test errors of the
        three classifiers and of their Dempster combination, for ``method`` in
        ``{"logistic", "isotonic"}`` and ``model`` in ``{"bayes", "likelihood"}``.

    Notes
    -----
    The protocol of Xu et al. (2016), Section 5 (there with SVMs on UCI data):
    classifiers trained on disjoint data of unequal sizes, each calibrated on
    held-out scores, combined by Dempster's rule (Eqs. 6-7) and decided by
    the pignistic probability (Eq. 9).  The breast-cancer data are those of
    scikit-learn (Street, Wolberg and Mangasarian 1993).

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. IJAR 72, 55-70.

    Examples
    --------
    >>> table = run_demo(rounds=1, out=lambda line: None)
    >>> sorted(table)[:2]
    [('isotonic', 'bayes'), ('isotonic', 'likelihood')]
    >>> table[("logistic", "likelihood")].shape
    (4,)
    """
    from sklearn.datasets import load_breast_cancer

    from dstk.calibration import IsotonicCalibrator, LogisticCalibrator

    started = time.perf_counter()
    data = load_breast_cancer()
    X = data.data
    y = (data.target == 0).astype(int)  # 1 = malignant
    rng = np.random.default_rng(seed)
    methods = {"logistic": LogisticCalibrator, "isotonic": IsotonicCalibrator}
    errors: dict[tuple[str, str], list[list[float]]] = {}
    conflicts: dict[tuple[str, str], int] = {}
    last = None
    for _ in range(rounds):
        per_model, y_test = _one_round(X, y, rng, sizes, methods)
        for key, masses in per_model.items():
            combined, total = combine_dempster(masses)
            row = [_error(m, y_test) for m in masses] + [_error(combined, y_test)]
            errors.setdefault(key, []).append(row)
            conflicts[key] = conflicts.get(key, 0) + int(total.sum())
        last = (per_model, y_test)
    table = {key: np.mean(rows, axis=0) for key, rows in errors.items()}

    out("dstk demo: evidential calibration and combination of classifiers (Xu et al. 2016, Section 5)")
    out(f"breast-cancer data (569 cases, 1 = malignant), test set 40%, {rounds} random rounds, seed {seed}")
    out(
        "training data per classifier (half trains it, half calibrates its scores): "
        + ", ".join(f"{name} {size}" for name, size in zip(_NAMES, sizes))
    )
    out("")
    header = (
        f"{'calibration':<11} {'model':<11} "
        + " ".join(f"{f'{n} ({k})':>15}" for n, k in zip(_SHORT, sizes))
        + f" {'combined':>10}"
    )
    out("test error rate (mean over rounds); 'combined' = Dempster's rule (Bayes' rule for 'bayes')")
    out(header)
    out("-" * len(header))
    for (method, model), row in sorted(table.items()):
        label = "likelihood" if model == "likelihood" else "bayes"
        cells = " ".join(f"{100 * e:>14.2f}%" for e in row[:3])
        note = (
            f"  ({conflicts[(method, model)]} totally conflicting cases)"
            if conflicts[(method, model)]
            else ""
        )
        out(f"{method:<11} {label:<11} {cells} {100 * row[3]:>9.2f}%{note}")
    out("")
    assert last is not None  # rounds >= 1
    per_model, y_test = last
    masses = per_model[("logistic", "likelihood")]
    combined, _ = combine_dempster(masses)
    probabilities = [m[:, 2] for m in per_model[("logistic", "bayes")]]
    bayes_combined, _ = combine_dempster(per_model[("logistic", "bayes")])
    uncertainty = combined[:, 3]
    picks = list(np.argsort(-uncertainty)[: show_cases // 2]) + list(
        np.argsort(uncertainty)[: show_cases - show_cases // 2]
    )
    out("a few test cases of the last round (logistic calibration): p = P(malignant) from model 'bayes',")
    out("[Bel, Pl] of malignant from model 'likelihood'; 'combined' = Bayes' rule / Dempster's rule")
    out(f"{'case':>5} {'truth':>6} " + " ".join(f"{n:>24}" for n in _SHORT) + f" {'combined':>24}")
    for i in picks:
        case_cells = []
        for m, p in zip(masses, probabilities):
            case_cells.append(f"p={p[i]:.2f} [{m[i, 2]:.2f}, {m[i, 2] + m[i, 3]:.2f}]")
        case_cells.append(
            f"p={bayes_combined[i, 2]:.2f} [{combined[i, 2]:.2f}, {combined[i, 2] + combined[i, 3]:.2f}]"
        )
        out(f"{i:>5} {int(y_test[i]):>6} " + " ".join(f"{c:>24}" for c in case_cells))
    out("")
    out("Reading: a classifier calibrated on a handful of scores gets wide [Bel, Pl] intervals, so its vote")
    out("weighs little in Dempster's rule, while its probabilistic output counts as much as the others.")
    out(f"(finished in {time.perf_counter() - started:.1f} s)")
    return table


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point of ``python -m dstk demo [--rounds R] [--seed S] [--sizes A,B,C]``.

    Parameters
    ----------
    argv : list of str or None, default None
        Command-line arguments after ``demo`` (None: ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit status 0 (argument errors exit with status 2 through argparse).

    Notes
    -----
    Prints the report of :func:`run_demo`, the combination of calibrated
    classifiers of Xu et al. (2016), Section 5.

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. IJAR 72, 55-70.

    Examples
    --------
    >>> main(["--rounds", "1", "--seed", "0"])  # doctest: +ELLIPSIS
    dstk demo: evidential calibration and combination of classifiers (Xu et al. 2016, Section 5)
    ...
    0
    """
    parser = argparse.ArgumentParser(prog="python -m dstk demo", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="random rounds averaged (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--sizes",
        default=",".join(map(str, _SIZES)),
        help="data per classifier, comma-separated (default 16,40,240)",
    )
    args = parser.parse_args(argv)
    sizes = tuple(int(v) for v in args.sizes.split(","))
    if len(sizes) != 3 or min(sizes) < 4:
        parser.error("--sizes needs three integers >= 4 (each part is split in half, stratified)")
    if args.rounds < 1:
        parser.error("--rounds must be >= 1")
    run_demo(rounds=args.rounds, seed=args.seed, sizes=sizes)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
