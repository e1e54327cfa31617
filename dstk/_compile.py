"""``python -m dstk compile``: write numba's on-disk cache of the main entry points ahead of their use.

dstk's kernels are compiled by numba on their first call and cached on disk
(``cache=True``); a process that finds them in the cache loads them in
milliseconds.  Without a cache the first calls at realistic sizes spend most
of their time compiling (e.g. the random trees' first fit on 10^5 rows: about
35 s of CPU, against about 1 s over the warm call with the cache written).
:func:`compile_kernels` runs the main entry points on small synthetic inputs
with every kernel compiled (none run interpreted, see
:func:`dstk._kernels._jit.every_kernel_compiled`), so that later processes
find every specialisation those entry points call in the cache: a step for a
Docker image or a CI job, after installing dstk.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from dstk.exceptions import DataTypeError

__all__ = ["compile_kernels", "PARTS", "main"]

ROWS = 5_000
"""Rows of the synthetic inputs: more than the sizes below which some checks run in numpy."""


def _masses(rng: np.random.Generator, rows: int, sources: int, labels: int) -> np.ndarray:
    """(rows, sources, 2**labels) random mass rows, m(empty) = 0."""
    data = np.zeros((rows, sources, 2**labels))
    data[..., 1:] = rng.dirichlet(np.ones(2**labels - 1), size=(rows, sources))
    return data


def _combination() -> None:
    """``combine`` with its main rules on binary, three-label and larger frames; ``from_counts``."""
    from dstk import Frame, MassFunction, combine, combine_with_conflict
    from dstk.evidence import from_counts

    rng = np.random.default_rng(0)
    for labels in (2, 3, 4, 5):
        frame = Frame(tuple(range(labels)))
        data = _masses(rng, ROWS, 2, labels)
        stack = MassFunction.from_array(data, frame)
        first, second = (MassFunction.from_array(np.ascontiguousarray(data[:, i]), frame) for i in range(2))
        for rule in ("dempster", "conjunctive", "disjunctive", "cautious", "yager"):
            combine(stack, axis=1, rule=rule)
            combine([first, second], rule=rule)
        combine_with_conflict([first, second])
        # sources that conflict totally on some rows: the careful fold of those rows
        dogmatic = np.zeros((ROWS, 2**labels))
        dogmatic[:, 1] = 1.0
        other = np.zeros((ROWS, 2**labels))
        other[: ROWS // 2, 2] = 1.0
        other[ROWS // 2 :, 1:] = 1.0 / (2**labels - 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                combine([MassFunction.from_array(dogmatic, frame), MassFunction.from_array(other, frame)])
            except ValueError:  # the totally conflicting rows refused by Dempster's rule
                pass
            combine(
                [MassFunction.from_array(dogmatic, frame), MassFunction.from_array(other, frame)],
                rule="conjunctive",
            )
    n = rng.integers(1, 30, ROWS)
    k = rng.binomial(n, 0.3)
    counts = np.column_stack([n - k, k])
    for model in ("likelihood", "plausibility", "confidence_interval", "inverse_pignistic", "dempster"):
        from_counts(counts, model=model)
    from_counts(counts.astype(np.float64), allow_fractional=True)
    from_counts(rng.integers(0, 20, size=(ROWS, 3)), model="dempster")


def _decisions() -> None:
    """Belief, plausibility, the pignistic and plausibility transforms and ``decide``."""
    from dstk import Frame, MassFunction, decide, pignistic, plausibility_transform

    rng = np.random.default_rng(1)
    for labels in (2, 3, 4, 5, 6):
        frame = Frame(tuple(range(labels)))
        m = MassFunction.from_array(_masses(rng, ROWS, 1, labels)[:, 0], frame)
        for kind in ("bel", "pl", "q"):
            m.to_array(kind)
        pignistic(m)
        plausibility_transform(m)
        m.pignistic()
        decide(m)
        utility = rng.random((labels, labels))
        for criterion in ("pignistic", "belief", "plausibility"):
            decide(m, criterion=criterion, utility=utility)
        decide(m, criterion="hurwicz", utility=utility, optimism=0.3)


def _calibration() -> None:
    """The binary calibrators (every model of :class:`LogisticCalibrator`): fit, ``predict_proba``,
    ``predict_mass``; the fusion's discount rates."""
    import dstk.calibration as calibration

    rng = np.random.default_rng(2)
    scores = rng.normal(size=ROWS)
    y = (rng.random(ROWS) < 1 / (1 + np.exp(-2 * scores))).astype(int)
    test = rng.normal(size=ROWS)
    calibrators: list[Any] = [
        calibration.LogisticCalibrator(model=model)
        for model in ("likelihood", "bayes", "inverse_pignistic", "confidence_interval")
    ]
    calibrators += [
        calibration.IsotonicCalibrator(),
        calibration.BinningCalibrator(),
        calibration.VennAbersCalibrator(),
    ]
    for calibrator in calibrators:
        calibrator.fit(scores, y)
        calibrator.predict_proba(test)
        calibrator.predict_mass(test)
        calibrator.predict_mass(test[:10])
    _fusion_rates(rng)


def _fusion_rates(rng: np.random.Generator) -> None:
    """The contextual discount rates of :class:`~dstk.calibration.EvidentialFusionClassifier` (the
    criterion under the failure model, its Hessian products) and contextual discounting."""
    from dstk import Frame, MassFunction
    from dstk.calibration._fusion import _MIN_LEARNED_RATE, _failure_points
    from dstk.evidence._contextual import log_loss_contextual_rates

    for n_sources, n_classes in ((3, 2), (3, 3)):
        contours = rng.dirichlet(np.ones(n_classes), size=(n_sources, 300))
        labels = rng.integers(0, n_classes, 300)
        weights = np.ones(300)
        rates = log_loss_contextual_rates(
            contours,
            labels,
            weights=weights,
            min_rate=_MIN_LEARNED_RATE,
            failure_points=_failure_points(contours, weights),
            contamination=0.1,
        )
        singletons = [1 << k for k in range(n_classes)]
        frame = Frame(tuple(range(n_classes)))
        MassFunction.from_focal_sets(singletons, contours[0], frame).contextual_discount(rates[0])


def _trees() -> None:
    """:class:`RandomDecisionTreesClassifier` fit, ``predict_proba`` and ``predict_mass`` with every combiner."""
    from dstk.ensemble import COMBINERS, RandomDecisionTreesClassifier

    rng = np.random.default_rng(3)
    X = rng.normal(size=(ROWS, 6))
    X[:, 4] = rng.integers(0, 2, ROWS)  # a binary feature
    X[:, 5] = rng.integers(0, 4, ROWS)  # a feature read as nominal below
    y = (X[:, 0] + X[:, 1] + 0.5 * rng.normal(size=ROWS) > 0).astype(int) + (X[:, 2] > 0.5)
    binary_y = (y > 0).astype(int)
    forests = [
        RandomDecisionTreesClassifier(8, random_state=0).fit(X, y),
        RandomDecisionTreesClassifier(8, random_state=0, nominal_features=[5]).fit(X, y),
        RandomDecisionTreesClassifier(8, random_state=0, stop_at_pure_nodes=False, min_samples_leaf=5).fit(
            X, binary_y
        ),
        RandomDecisionTreesClassifier(8, random_state=0, compatibility="busch2021").fit(X, y),
    ]
    for forest in forests:
        forest.predict_proba(X)
        forest.predict(X)
    for combiner in COMBINERS:  # fit too: some combiners fit a calibration of their scores in fit
        for labels in (y, binary_y):  # three classes, two classes
            forest = RandomDecisionTreesClassifier(8, random_state=0, combiner=combiner)
            try:
                forest.fit(X, labels)
                forest.predict_proba(X)
                forest.predict_mass(X)
            except ValueError:  # a combiner of two classes only (e.g. "plausibility")
                continue


PARTS: dict[str, Callable[[], None]] = {
    "combination": _combination,
    "decisions": _decisions,
    "calibration": _calibration,
    "trees": _trees,
}
"""The parts :func:`compile_kernels` can compile, each a run of entry points."""


def compile_kernels(
    *, parts: Iterable[str] | str | None = None, verbose: bool = False
) -> dict[str, dict[str, float]]:
    """Compile dstk's numba kernels into numba's on-disk cache, ahead of their first use.

    Runs the main entry points on synthetic inputs with every kernel
    compiled (none interpreted, whatever the size of the call), so that the
    later processes that use the same cache load each kernel specialisation
    those entry points call instead of compiling it:

    * ``"combination"``: :func:`dstk.combine` with Dempster's, the
      conjunctive, disjunctive, cautious and Yager's rules, on binary,
      three-label and larger frames, stacked sources and lists of sources,
      :func:`dstk.combine_with_conflict` and :func:`dstk.from_counts`;
    * ``"decisions"``: belief and plausibility functions, the pignistic and
      plausibility transforms and :func:`dstk.decide`;
    * ``"calibration"``: :class:`dstk.LogisticCalibrator` (every model),
      :class:`dstk.IsotonicCalibrator`, :class:`dstk.BinningCalibrator` and
      :class:`dstk.VennAbersCalibrator`: ``fit``, ``predict_proba``,
      ``predict_mass``;
    * ``"trees"``: :class:`dstk.RandomDecisionTreesClassifier` ``fit``
      (numeric, binary and nominal features, both random streams),
      ``predict_proba`` and ``predict_mass`` with every combiner.

    The cache is numba's: next to the installed sources when that directory
    is writable, else in the user's cache directory, or in
    ``NUMBA_CACHE_DIR`` when it is set (set it to the same directory when
    building and when running, e.g. in a Docker image).  numba reads a cache
    directory only if the user running the code can write to it, and keys
    cached code on the source files' modification times and on the processor
    it was compiled for: compile as (or make the cache writable by) the
    user who runs the code, after the last install, on the machine type
    that will run it.  Kernels already in the cache are loaded, not
    compiled again: a second run takes seconds.

    Parameters
    ----------
    parts : str or iterable of str, optional
        Names in :data:`PARTS` (``"combination"``, ``"decisions"``,
        ``"calibration"``, ``"trees"``); all of them by default.
    verbose : bool, default False
        Print one line per part (functions compiled, CPU and wall time).

    Returns
    -------
    dict
        Per part: ``"compiled"``, the number of functions numba compiled
        (0 when the cache held them all), ``"cpu_seconds"`` and
        ``"wall_seconds"``.

    Raises
    ------
    ValueError
        If ``parts`` names a part not in :data:`PARTS` (or none).
    DataTypeError
        If ``parts`` is neither a string nor an iterable.

    Examples
    --------
    In a Dockerfile or a CI job, after installing dstk: ``RUN python -m dstk
    compile`` (all parts; ``python -m dstk compile trees`` for one).  From
    Python:

    >>> import dstk
    >>> report = dstk.compile_kernels(parts="decisions")
    >>> sorted(report["decisions"])
    ['compiled', 'cpu_seconds', 'wall_seconds']
    """
    names = _parts(parts)
    from numba.core import event

    from dstk._kernels._jit import every_kernel_compiled

    report: dict[str, dict[str, float]] = {}
    for name in names:
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        with event.install_recorder("numba:compile") as recorder, every_kernel_compiled():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the synthetic inputs' warnings are not the user's
                PARTS[name]()
        compiled = sum(1 for _, e in recorder.buffer if e.is_start)
        report[name] = {
            "compiled": compiled,
            "cpu_seconds": time.process_time() - start_cpu,
            "wall_seconds": time.perf_counter() - start_wall,
        }
        if verbose:
            print(
                f"{name:<12} {compiled:4d} functions compiled  "
                f"{report[name]['cpu_seconds']:7.1f} s CPU  {report[name]['wall_seconds']:7.1f} s wall",
                flush=True,
            )
    return report


def _parts(parts: Iterable[str] | str | None) -> list[str]:
    """The part names of ``parts``, checked, in the order of :data:`PARTS`."""
    if parts is None:
        return list(PARTS)
    if isinstance(parts, str):
        parts = [parts]
    try:
        names = list(parts)
    except TypeError:
        raise DataTypeError(
            f"`parts` must be a part name or an iterable of them ({', '.join(PARTS)}); got {parts!r}."
        ) from None
    unknown = [name for name in names if not isinstance(name, str) or name not in PARTS]
    if unknown or not names:
        raise ValueError(f"`parts` must name parts among {', '.join(map(repr, PARTS))}; got {names!r}.")
    return [name for name in PARTS if name in names]


USAGE = """usage: python -m dstk compile [part ...]

Compile dstk's numba kernels into numba's on-disk cache (NUMBA_CACHE_DIR if set), so that later
processes load them instead of compiling on their first calls. Parts (default: all): {parts}.
"""


def main(argv: list[str] | None = None) -> int:
    """``python -m dstk compile [part ...]``: compile the parts and print what was compiled."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if any(arg in ("-h", "--help") for arg in argv):
        print(USAGE.format(parts=", ".join(PARTS)))
        return 0
    try:
        names = _parts(argv or None)
    except ValueError as exc:
        print(f"{exc}\n\n{USAGE.format(parts=', '.join(PARTS))}", file=sys.stderr)
        return 2
    where = os.environ.get("NUMBA_CACHE_DIR") or "numba's default (next to the sources or the user's cache)"
    print(f"compiling dstk's kernels ({', '.join(names)}) into the cache at {where}", flush=True)
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    report = compile_kernels(parts=names, verbose=True)
    total = sum(int(part["compiled"]) for part in report.values())
    print(
        f"done: {total} functions compiled in {time.process_time() - start_cpu:.1f} s CPU, "
        f"{time.perf_counter() - start_wall:.1f} s wall",
        flush=True,
    )
    return 0
