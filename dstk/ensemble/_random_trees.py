"""Random decision trees (RDT) with class counts in the leaves.

:class:`RandomDecisionTreesClassifier` grows an ensemble of completely random
trees (Fan et al. 2003, in the variant of Busch et al. 2021) in numba, stores
them as flat arrays and exposes the class counts of the leaves reached by each
sample (:meth:`RandomDecisionTreesClassifier.leaf_counts`), which is the one
interface between the trees and the combiners of
:mod:`dstk.ensemble._combiners`.
"""

from __future__ import annotations

import itertools
import os
import warnings
import weakref
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import sparse, special

from dstk._estimator import (
    BaseEstimator,
    ClassifierMixin,
    check_is_fitted,
    check_sample_weight,
    frequency_weights,
    singleton_interval,
    validate_features,
)
from dstk._kernels import leaf_tables as _tables
from dstk._kernels import mersenne_twister as _mersenne
from dstk._kernels import trees as _trees
from dstk._kernels._jit import call_kernel
from dstk._progress import _check_verbose, progress
from dstk._validation import check_consistent_length, check_labels, check_random_state, naming_argument
from dstk.ensemble._combiners import (
    COMPATIBILITY,
    _combine,
    _combine_leaves_to_mass_array,
    _LeafRows,
    combine_leaves,
    combine_leaves_proba,
    decision_threshold,
    parse_combiner,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from dstk.core._mass import MassFunction

__all__ = ["RandomDecisionTreesClassifier"]

# options of earlier versions that only reproduced Busch et al.'s code (now compatibility="busch2021")
_REPRODUCTION_OPTIONS = ("floor", "reference_arithmetic", "prior", "rescale_above")

# combiners whose scores are not probabilities: predict_proba maps their score through a fitted monotone map
_CALIBRATED_METHODS = ("eva", "dempster", "cautious")


def _log_odds(leaves, *, combiner, **options):
    """Log-scores of the calibrated combiners, the argument of their calibrated probabilities.

    Two classes: the log-odds, shape (n_samples,): EVA's score, or
    ln BetP(1) - ln BetP(0) of the normalised Dempster / cautious mass.  Three
    or more: one score per class, shape (n_samples, n_classes): EVA's
    per-class scores, or ln BetP(k).  BetP(k) = m({k}) + m(frame) / K of the
    normalised combined mass (computed in the log domain by the combination
    kernels), floored at the smallest normal float64 so that a product over
    many trees gives a finite score; a sample in total conflict gets 0 for
    every class (no evidence either way).
    """
    method, _aggregate = parse_combiner(combiner)
    if method == "eva":
        return combine_leaves(leaves, combiner=combiner, **options)
    normalized = _combine(leaves, combiner, **options)["normalized"]
    n_classes = normalized.shape[1] - 1
    tiny = np.finfo(np.float64).tiny
    log_betp = np.log(np.maximum(normalized[:, :n_classes] + normalized[:, n_classes:] / n_classes, tiny))
    if n_classes == 2:
        log_odds = log_betp[:, 1] - log_betp[:, 0]
        return np.where(np.isnan(log_odds), 0.0, log_odds)
    return np.where(np.isnan(log_betp).any(axis=1, keepdims=True), 0.0, log_betp)


def _smoothed_targets(y, n_classes):
    """Platt's smoothed targets for K classes: (n_k + 1) / (n_k + 2) on a sample's class k, the rest shared equally."""
    counts = np.bincount(y, minlength=n_classes).astype(np.float64)
    own = (counts[y] + 1) / (counts[y] + 2)
    targets = np.repeat(((1 - own) / (n_classes - 1))[:, None], n_classes, axis=1)
    targets[np.arange(y.size), y] = own
    return targets


def _fit_inverse_temperature(scores, y):
    """Maximum-likelihood inverse temperature a >= 0 of the calibrated probabilities of the log-scores.

    Two classes (``scores`` the log-odds z, shape (n,)): P(y = 1) = expit(a z)
    with Platt's smoothed targets (Platt 1999, Eq. 4).  Three or more
    (``scores`` shape (n, K)): P(y = k) = softmax(a s)_k (temperature
    scaling, Guo et al. 2017, Eq. 9), with the same smoothed targets: a
    sample of class k, one of n_k, has target (n_k + 1) / (n_k + 2) on its
    class and 1 / (n_k + 2) shared equally by the other classes (for two
    classes Platt's targets, softmax(a [s0, s1]) being expit(a (s1 - s0))).
    The smoothing keeps a finite: with hard targets, leave-one-out scores
    that rank every training sample's class first would make the likelihood
    grow without bound in a.  Frequency weights enter through repeated
    samples (``fit`` repeats them).

    The log-likelihood is concave in a, so its maximiser is the root of its
    derivative (a = 0 when the derivative at 0 is not positive), found by
    Brent's method to a few units in the last place: the fitted scale, and
    so every calibrated probability, does not depend on the rounding of the
    sums (e.g. the machine's BLAS or SIMD width) beyond that.
    """
    from scipy import optimize

    if scores.ndim == 1:
        n_positive = float(np.sum(y == 1))
        n_negative = float(y.size - n_positive)
        targets = np.where(y == 1, (n_positive + 1) / (n_positive + 2), 1 / (n_negative + 2))
        scale = float(np.max(np.abs(scores))) if scores.size else 0.0
        if scale == 0.0:
            return 1.0  # every score neutral: every probability is 1/2 whatever a
        scaled = scores / scale

        def slope(a):
            return float(np.sum((targets - special.expit(a * scaled)) * scaled))

    else:
        # the scores relative to each sample's largest (softmax is shift-invariant): all <= 0
        relative = scores - scores.max(axis=1, keepdims=True)
        scale = float(-relative.min()) if relative.size else 0.0
        if scale == 0.0:
            return 1.0  # every score neutral: every probability is 1/K whatever a
        relative /= scale
        target_term = float(np.sum(_smoothed_targets(y, scores.shape[1]) * relative))

        def slope(a):
            return target_term - float(np.sum(special.softmax(a * relative, axis=1) * relative))

    if not slope(0.0) > 0:
        return 0.0  # the likelihood decreases from a = 0: the scores carry no usable ranking
    upper = 1.0
    while slope(upper) > 0:  # the smoothed targets make the slope negative for large a
        upper *= 2.0
    lower = upper / 2.0 if upper > 1.0 else 0.0
    root = optimize.brentq(slope, lower, upper, xtol=1e-15 * upper, rtol=4 * np.finfo(np.float64).eps)
    return float(root) / scale


# fitted ensemble -> its routing arrays (derived from ``_forest``, built at the first prediction)
_ROUTING_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

# (sample, tree) pairs routed per batch of a prediction: the batch's leaf keys take 1 MiB
_BATCH_LEAVES = 1 << 17

_EMPTY_LEAF_POLICIES = {
    "parent": _trees.EMPTY_LEAF_PARENT,
    "zero": _trees.EMPTY_LEAF_ZERO,
    "siblings": _trees.EMPTY_LEAF_SIBLINGS,
}


#: Fits and predictions of fewer (sample, tree) pairs run on one thread whatever ``n_jobs``: a second
#: thread would save a few milliseconds there and cost its own heap and stack.
_PARALLEL_MIN_SAMPLE_TREES = 100_000


def _threads_for(n_jobs, sample_trees):
    """Threads for a fit or prediction of ``sample_trees`` (sample, tree) pairs (see ``_PARALLEL_MIN_SAMPLE_TREES``)."""
    threads = _n_threads(n_jobs)
    return 1 if sample_trees < _PARALLEL_MIN_SAMPLE_TREES else threads


def _n_threads(n_jobs):
    """Number of worker threads for ``n_jobs`` (scikit-learn semantics)."""
    if n_jobs is None:
        return 1
    if not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise ValueError(f"`n_jobs` must be None, a positive integer or a negative integer; got {n_jobs!r}.")
    cpus = os.cpu_count() or 1
    if n_jobs < 0:
        return max(1, cpus + 1 + int(n_jobs))
    return int(n_jobs)


def _as_feature_matrix(X: ArrayLike, name: str = "X") -> np.ndarray:
    """Return ``X`` as a C-contiguous float64 2-D array or raise a clear error."""
    if sparse.issparse(X):
        raise ValueError(
            f"`{name}` is a scipy sparse matrix; random decision trees need a dense array. Pass "
            f"{name}.toarray() (for data too large for that, fit on dense chunks with dstk.dask)."
        )
    with naming_argument(name):
        arr = np.asarray(X)
    if np.iscomplexobj(arr):
        raise ValueError(f"Complex data not supported: `{name}` must be real (got dtype {arr.dtype}).")
    if arr.dtype == object:
        advice = (
            "Encode nominal (string) features as integer codes (e.g. with sklearn's OrdinalEncoder) and list "
            "them in `nominal_features`."
        )
        try:
            arr = _without_missing_markers(arr).astype(np.float64)
        except TypeError as error:  # objects that are neither numbers nor strings
            raise TypeError(
                f"`{name}` must be numeric; an entry of the object array failed: {error}. {advice}"
            ) from None
        except ValueError:
            raise ValueError(f"`{name}` must be numeric; got an object array. {advice}") from None
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise ValueError(
            f"`{name}` must be numeric; got dtype {arr.dtype}. Encode nominal features as numeric codes "
            "and list them in `nominal_features`."
        )
    if arr.ndim == 1:
        raise ValueError(
            f"`{name}` must be 2-D (n_samples, n_features); got a 1-D array of shape {arr.shape}. "
            "Reshape your data: X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for a single sample."
        )
    if arr.ndim != 2:
        raise ValueError(f"`{name}` must be 2-D (n_samples, n_features); got shape {arr.shape}.")
    if arr.shape[0] == 0:
        raise ValueError(f"`{name}` has no samples (shape {arr.shape}); at least one is needed.")
    if arr.shape[1] == 0:
        raise ValueError(f"`{name}` has 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required.")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    # one pass without a temporary array: a NaN or an infinity makes the sum non-finite (a sum that
    # overflows from finite values is checked value by value and passes)
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.add.reduce(arr, axis=None)
    if not np.isfinite(total) and not (finite := np.isfinite(arr)).all():
        rows, cols = np.nonzero(~finite)
        kind = "NaN (missing)" if np.isnan(arr[rows[0], cols[0]]) else "infinite"
        raise ValueError(
            f"`{name}` contains {rows.size} non-finite value(s) ({kind} value at row {rows[0]}, "
            f"column {cols[0]}). Random decision trees have no missing-value policy: impute numeric "
            "features, or give missing nominal values their own category code."
        )
    return arr


def _is_missing_marker(value: object) -> bool:
    """True for pandas' missing-value markers (``pd.NA``, ``pd.NaT``), which float() refuses."""
    return type(value).__name__ in ("NAType", "NaTType")


def _without_missing_markers(arr: np.ndarray) -> np.ndarray:
    """An object array with ``pd.NA`` / ``pd.NaT`` entries replaced by NaN (reported as missing values)."""
    missing = np.asarray(np.frompyfunc(_is_missing_marker, 1, 1)(arr), dtype=bool)
    if not missing.any():
        return arr
    arr = arr.copy()
    arr[missing] = np.nan
    return arr


def _exact_float32(X: np.ndarray) -> np.ndarray | None:
    """``X`` as float32 when every value is a float32 number (the conversion is exact), else None."""
    if X.dtype == np.float32:
        return X
    with np.errstate(over="ignore"):  # beyond float32's range: not exact
        narrow = X.astype(np.float32)
    if np.array_equal(narrow, X):
        return narrow
    return None


def _training_data(
    X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None, estimator_name: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(X, y_encoded, classes)``: the feature matrix and the class indices, samples repeated by their weights."""
    X = _as_feature_matrix(X)
    weights = check_sample_weight(sample_weight, X.shape[0])
    if weights is not None:
        rows = float(np.sum(weights))
        if rows * X.shape[1] * X.itemsize >= 2.0**62:  # the repeated data would not fit any address space
            raise ValueError(_repeated_rows_message(estimator_name, rows, X.shape[1]))
    repeats = frequency_weights(sample_weight, X.shape[0], estimator_name)
    unweighted_y = y
    if repeats is not None:
        y = np.asarray(y)
        check_consistent_length(X, y, names=["X", "y"])
        try:
            X, y = np.repeat(X, repeats, axis=0), np.repeat(y, repeats, axis=0)
        except MemoryError:
            raise MemoryError(
                _repeated_rows_message(estimator_name, float(repeats.sum()), X.shape[1])
            ) from None
    try:
        classes, y_encoded = check_labels(y)
    except ValueError:
        if repeats is None:
            raise
        all_classes, _ = check_labels(unweighted_y)  # y itself has one class: its own message
        kept = np.unique(y)
        dropped = [label for label in all_classes.tolist() if label not in kept.tolist()]
        if not dropped:
            raise
        raise ValueError(
            f"`sample_weight` is zero for every sample of class {dropped[0]!r}"
            + (f" (and of {dropped[1:]!r})" if len(dropped) > 1 else "")
            + f", which leaves {len(kept)} class to fit; at least two need a positive weight."
        ) from None
    check_consistent_length(X, y_encoded, names=["X", "y"])
    return X, y_encoded, classes


def _repeated_rows_message(estimator_name: str, rows: float, n_features: int) -> str:
    return (
        f"`sample_weight` sums to {rows:.4g}: {estimator_name} repeats each sample w times (frequency "
        f"weights: w observations), so the training data would have {rows:.4g} rows of {n_features} "
        f"features ({rows * n_features * 8 / 2**30:.3g} GiB). Pass numbers of observations; scale relative "
        "weights to small whole numbers."
    )


def _feature_major(X: np.ndarray) -> np.ndarray:
    """The training data feature by feature, ``X.T``, without a copy.

    ``X`` is the C-contiguous float64 training matrix, so ``X.T`` is a
    Fortran-ordered view: the trees read one feature of a node's samples
    as a strided gather, which costs a cache line per sample like a gather
    from a feature-major copy once a node's samples are spread over the data,
    and needs no second copy of the data in memory.
    """
    return np.ascontiguousarray(X, dtype=np.float64).T


def _number_rows(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Number the distinct count rows of ``counts`` (n, K) in order of first appearance: ``(keys, first)``."""
    counts = np.ascontiguousarray(counts)
    if counts.dtype == np.int32 and counts.shape[1] % 2 == 0:
        bits = counts.view(np.int64)  # int32 pairs viewed as int64: hashed without a copy
    elif counts.dtype.kind == "f":
        bits = counts.astype(np.int64)
    else:
        bits = counts.astype(np.int64, copy=False)
    return _tables.distinct_row_keys(bits)


class _ForestBuilder:
    """The fitted state of a forest, assembled from its trees in order as they are grown.

    Each tree comes as ``(nodes, counts, max_depth, n_leaves)`` (its packed
    records, :func:`dstk._kernels.trees.pack_tree`, and its node counts); its
    count rows are numbered at once in the forest's table of distinct count
    rows (in order of first appearance over the trees) and its counts freed.
    :meth:`finish` returns ``nodes`` (int64, (n_nodes, 2): the records of
    every node, trees one after the other; also the routing table), ``rows``
    (float64, (n_rows, n_classes): the distinct class-count vectors; the
    records of leaves and nominal splits hold their row's number) and
    ``offsets`` (tree ``t`` owns the nodes ``offsets[t]:offsets[t + 1]``):
    16 bytes per node plus the distinct rows.
    """

    def __init__(self, n_classes: int, n_trees: int) -> None:
        self.table = np.empty((64, n_classes), dtype=np.int64)
        self.slots = np.full(1024, -1, dtype=np.int64)
        self.n_rows = 0
        self.n_trees = n_trees
        # the records of all trees, in one buffer enlarged in place (realloc) as trees come: no second copy
        self.nodes = np.empty((0, 2), dtype=np.int64)
        self.sizes: list[int] = []
        self.n_nodes = 0
        self.max_depth: list[int] = []
        self.n_leaves: list[int] = []

    def add(self, grown: tuple) -> None:
        nodes, counts, max_depth, n_leaves = grown
        size = nodes.shape[0]
        if self.n_nodes + size >= _trees.ROUTE_MAX_NODES:
            raise ValueError(
                f"The forest has more than {_trees.ROUTE_MAX_NODES - 1} nodes, more than its node table holds. "
                "Grow fewer or smaller trees (larger min_samples_leaf), or fit parts and combine their predictions."
            )
        keys, self.table, n_rows, self.slots = call_kernel(
            _trees.number_count_rows,
            counts,
            self.table,
            self.n_rows,
            self.slots,
            work=counts.size,
        )
        self.n_rows = int(n_rows)
        call_kernel(
            _trees.finish_tree,
            nodes,
            self.n_nodes,
            keys,
            counts,
            work=size,
        )
        needed = self.n_nodes + size
        if needed > self.nodes.shape[0]:
            # room for the remaining trees at the mean size so far, plus an eighth
            remaining = self.n_trees - len(self.sizes) - 1
            estimate = needed + (needed // (len(self.sizes) + 1)) * remaining
            self.nodes.resize((max(needed, estimate + estimate // 8), 2), refcheck=False)
        self.nodes[self.n_nodes : needed] = nodes
        self.sizes.append(size)
        self.n_nodes = needed
        self.max_depth.append(max_depth)
        self.n_leaves.append(n_leaves)

    def finish(self) -> dict[str, np.ndarray]:
        offsets = np.zeros(len(self.sizes) + 1, dtype=np.int64)
        np.cumsum(self.sizes, out=offsets[1:])
        nodes = self.nodes
        self.nodes = np.empty((0, 2), dtype=np.int64)
        nodes.resize((self.n_nodes, 2), refcheck=False)  # shrinks in place
        return {
            "nodes": nodes,
            "rows": self.table[: self.n_rows].astype(np.float64),
            "offsets": offsets,
            "max_depth": np.array(self.max_depth, dtype=np.int64),
            "n_leaves": np.array(self.n_leaves, dtype=np.int64),
        }


def _check_concatenable(parts):
    """Raise unless ``parts`` are fitted random-tree ensembles of the same classes, features and categories."""
    if not parts:
        raise ValueError("concatenate needs at least one fitted RandomDecisionTreesClassifier.")
    for part in parts:
        if not isinstance(part, RandomDecisionTreesClassifier):
            raise ValueError(
                f"concatenate takes RandomDecisionTreesClassifier objects; got {type(part).__name__}."
            )
        check_is_fitted(part, "classes_")
    first = parts[0]
    for index, part in enumerate(parts[1:], start=1):
        if not np.array_equal(part.classes_, first.classes_):
            raise ValueError(
                f"Estimator {index} has classes {part.classes_.tolist()}, estimator 0 has "
                f"{first.classes_.tolist()}; only ensembles of the same classes can be concatenated."
            )
        if part.n_features_in_ != first.n_features_in_:
            raise ValueError(
                f"Estimator {index} was fitted with {part.n_features_in_} features, estimator 0 with "
                f"{first.n_features_in_}."
            )
        names, first_names = (
            getattr(part, "feature_names_in_", None),
            getattr(first, "feature_names_in_", None),
        )
        if (names is None) != (first_names is None) or (
            names is not None and not np.array_equal(np.asarray(names), np.asarray(first_names))
        ):
            raise ValueError(
                f"Estimator {index} was fitted on other feature names than estimator 0; fit every part on "
                "data frames with the same columns (or on arrays)."
            )
        same_categories = all(
            (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))
            for a, b in zip(part.categories_, first.categories_)
        )
        if not np.array_equal(part.nominal_mask_, first.nominal_mask_) or not same_categories:
            raise ValueError(
                f"Estimator {index} has other nominal features or other category values than estimator 0, "
                "so their category codes differ; fit the parts on data with the same nominal values."
            )


def _concatenated_forest(parts):
    """The packed forest of the trees of ``parts`` in order: node records, count rows numbered again, offsets."""
    sizes = np.concatenate([part.node_count_ for part in parts])
    offsets = np.zeros(sizes.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    if offsets[-1] >= _trees.ROUTE_MAX_NODES:
        raise ValueError(
            f"The concatenated forest would have {offsets[-1]} nodes; at most "
            f"{_trees.ROUTE_MAX_NODES - 1} fit its node table. Concatenate fewer ensembles."
        )
    # the parts' distinct count rows numbered again over the whole forest (in order of first appearance)
    part_rows = [part._forest["rows"] for part in parts]
    all_rows = np.concatenate(part_rows)
    keys, first_rows = _number_rows(all_rows)
    rows = all_rows[first_rows]
    row_starts = np.cumsum([0] + [r.shape[0] for r in part_rows])
    node_starts = np.cumsum([0] + [part._forest["nodes"].shape[0] for part in parts])
    nodes = np.concatenate(
        [
            _trees.shift_nodes(part._forest["nodes"], node_starts[k], keys[row_starts[k] : row_starts[k + 1]])
            for k, part in enumerate(parts)
        ]
    )
    return {"nodes": nodes, "rows": rows, "offsets": offsets}


class RandomDecisionTreesClassifier(ClassifierMixin, BaseEstimator):
    """Ensemble of random decision trees whose leaves keep class counts.

    The trees are grown without looking at the labels (random feature, random
    threshold); the labels only fill the class counts of the nodes and, by
    default, make a node of one class a leaf (``stop_at_pure_nodes``).  Several
    combiners turn the counts of the leaves reached by a sample into a
    prediction (:func:`dstk.ensemble.combine_leaves`).

    Parameters
    ----------
    n_estimators : int, default 100
        Number of trees.
    min_samples_leaf : int, default 1
        A numeric split is accepted only if both children keep at least this
        many training samples (for a nominal split: the two largest children).
    min_samples_split : int, default 2
        Nodes with fewer samples become leaves.  Busch et al. use
        ``2 * min_samples_leaf``.
    max_depth : int or None, default None
        Depth limit (None: grow until the size rules stop).
    stop_at_pure_nodes : bool or None, default None
        True: a node whose samples all have one class is a leaf, as in
        scikit-learn's trees; on large data with pure regions the trees are
        much smaller and faster to grow, and a pure leaf keeps the count of
        all its samples (one large leaf instead of many small ones of the
        same class), which changes the predictions of the count-based
        combiners.  False (Busch et al.'s trees): such a node is split like
        any other.  None: True, or False with ``compatibility="busch2021"``
        (True is not available there).  On unseen data pure stops gave the
        same accuracy and log-loss for ``"average"`` and ``"vote"``, a better
        log-loss for ``"laplace"``, ``"confidence_bounds"`` and
        ``"plausibility"``, and made ``"cautious"`` usable (with fully grown
        trees its score ties for most samples).
    nominal_features : None, array of int or array of bool, default None
        Indices (or a boolean mask) of nominal features.  Their values can be
        any numbers (codes); a nominal split has one child per value seen in
        training, and a nominal feature is used at most once per path.
    empty_leaf : {"siblings", "parent", "zero"}, default "siblings"
        What a sample gets when it reaches an empty child of a nominal split
        (or carries a nominal value unseen in training): the summed counts of
        the leaves reached through every non-empty sibling, the counts of the
        splitting node, or zero counts.
    combiner : str or None, default None
        How :meth:`predict_proba`, :meth:`predict` and
        :meth:`decision_function` combine the leaves: ``"average"``
        (probability averaging), ``"vote"``, ``"laplace"``,
        ``"plausibility"``, ``"confidence_bounds"``, ``"pooling"``,
        ``"dempster"``, ``"cautious"``, ``"eva"``, or ``"<method>:<aggregate>"``
        such as ``"laplace:vote"``.  See :func:`dstk.ensemble.combine_leaves`.
        None: ``"eva"`` (evidence accumulation, its probabilities calibrated
        by a temperature fitted in ``fit``; see :meth:`predict_proba`), or
        ``"average"`` with ``compatibility="busch2021"``.  On unseen data
        (14 data sets, 100 trees) ``"eva"`` had a log-loss and Brier score
        level with or better than those of scikit-learn's
        ``ExtraTreesClassifier`` of as many trees on 11 and 12 of them,
        ``"average"`` on 4 and 3.
    random_state : None, int or numpy.random.RandomState, default None
        Seeds the trees; the result does not depend on ``n_jobs``.
    n_jobs : int or None, default None
        Number of threads for growing trees and routing samples (None: 1,
        -1: all cores).  Fits and predictions of fewer than 100,000
        (sample, tree) pairs run on one thread: a second thread would save
        a few milliseconds there and cost its own heap.
    combiner_options : dict or None, default None
        Keyword options of the combiner, passed to
        :func:`dstk.ensemble.combine_leaves` (and its ``_proba`` / ``_to_mass``
        variants): e.g. ``{"smoothing": 0.5}`` or ``{"class_prior": [0.5, 0.5]}``
        for EVA, ``{"model": "imprecise_dirichlet", "prior_strength": 2.0}``
        for Dempster or cautious.  EVA's ``class_prior`` defaults to
        ``class_prior_``.
    compatibility : {None, "busch2021"}, default None
        None: dstk's trees and arithmetic.  ``"busch2021"``: reproduce Busch
        et al.'s code: the trees grow one after another from the single
        Mersenne-Twister stream of ``numpy.random.RandomState(random_state)``
        (a ``RandomState`` passed in is advanced), drawn with
        ``RandomState.randint`` in the order of their code (see Notes), so
        that for the same data, order of samples and seed the trees are
        exactly theirs (``n_jobs`` then only parallelises prediction); and
        the combiners use their arithmetic (``compatibility="busch2021"`` of
        :func:`dstk.ensemble.combine_leaves`).
    verbose : int, default 0
        0: silent; 1 or more: progress of the trees grown in ``fit`` on the
        ``"dstk"`` logger (INFO, elapsed time) and as a tqdm bar when tqdm is
        installed.

    Attributes
    ----------
    classes_ : ndarray (n_classes,)
    n_classes_ : int
    n_features_in_ : int
    class_prior_ : ndarray (n_classes,)
        Class frequencies of the training labels (the prior of EVA).
    nominal_mask_ : ndarray of bool (n_features,)
    categories_ : list of ndarray or None
        Sorted training values of each nominal feature (None for numeric ones).
    node_count_ : ndarray of int (n_estimators,)
    n_leaves_ : ndarray of int (n_estimators,)
        Leaves per tree, counting empty nominal children.
    max_depth_ : ndarray of int (n_estimators,)
    score_calibration_ : float or None
        Inverse temperature a of the calibrated probabilities of ``"eva"``,
        ``"dempster"`` and ``"cautious"`` (see :meth:`predict_proba`); None
        for the other combiners.

    Raises
    ------
    ValueError
        Invalid parameters, NaN or infinite values in ``X``, fewer than two
        classes in ``y``, a feature-count mismatch at predict time.
    NotFittedError
        Predicting before ``fit``.

    Notes
    -----
    Construction (Busch et al. 2021, section 2.1.1; details as in the authors'
    code, github.com/olfub/RDT-Uncertainty): no bootstrap, no feature subsampling, and
    there (``stop_at_pure_nodes=False``) no purity stop.  At a node with at least ``min_samples_split`` samples, up to
    ``n_features`` tries pick a random candidate feature; a numeric split uses
    the value ``v`` of a random training sample of the node as threshold and a
    random operator (``x < v`` or ``x <= v`` goes left) and is rejected when a
    child holds fewer than ``min_samples_leaf`` samples; a nominal split is
    multiway; a nominal feature tried at a node (whether its split succeeded
    or failed) is not a candidate in the node's subtree.  If every try fails
    the node is a leaf.  Nodes grow breadth first; each try draws the
    candidate's position (candidates in increasing feature order), then, for
    a numeric feature, the operator and the position of the threshold sample
    among the node's samples (in training order).  Fits are deterministic
    given ``random_state`` whatever ``n_jobs``.  With the default independent
    streams the trees differ from the authors' code but agree in
    distribution; ``compatibility="busch2021"`` reproduces them.

    References
    ----------
    Fan, W., Wang, H., Yu, P. S. and Ma, S. (2003). Is random model better?
    On its accuracy and efficiency. ICDM 2003.
    Busch, J., Kulessa, M., Loza Mencia, E. and Blockeel, H. (2021).
    Combining predictions under uncertainty: the case of random decision
    trees. Discovery Science 2021.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = RandomDecisionTreesClassifier(n_estimators=10, min_samples_leaf=4,
    ...                                       min_samples_split=8, random_state=0).fit(X, y)
    >>> model.leaf_counts(X[:2]).shape
    (2, 10, 2)
    >>> round(float(model.predict_proba(X[:2]).sum(axis=1)[0]), 12)
    1.0
    """

    _estimator_type = "classifier"

    def __init__(
        self,
        n_estimators: int = 100,
        *,
        min_samples_leaf: int = 1,
        min_samples_split: int = 2,
        max_depth: int | None = None,
        stop_at_pure_nodes: bool | None = None,
        nominal_features: ArrayLike | None = None,
        empty_leaf: str = "siblings",
        combiner: str | None = None,
        random_state: int | np.random.RandomState | None = None,
        n_jobs: int | None = None,
        combiner_options: dict | None = None,
        verbose: int = 0,
        compatibility: str | None = None,
    ) -> None:
        self.n_estimators = n_estimators
        self.min_samples_leaf = min_samples_leaf
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.stop_at_pure_nodes = stop_at_pure_nodes
        self.nominal_features = nominal_features
        self.empty_leaf = empty_leaf
        self.combiner = combiner
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.combiner_options = combiner_options
        self.verbose = verbose
        self.compatibility = compatibility

    # ------------------------------------------------------------------ checks
    def _check_params(self, n_features, n_classes):
        def positive_int(value, name, minimum):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
                raise ValueError(f"`{name}` must be an integer >= {minimum}; got {value!r}.")
            return int(value)

        n_estimators = positive_int(self.n_estimators, "n_estimators", 1)
        min_samples_leaf = positive_int(self.min_samples_leaf, "min_samples_leaf", 1)
        min_samples_split = positive_int(self.min_samples_split, "min_samples_split", 2)
        if self.max_depth is None:
            max_depth = -1
        else:
            max_depth = positive_int(self.max_depth, "max_depth", 0)
        if self.empty_leaf not in _EMPTY_LEAF_POLICIES:
            raise ValueError(
                f"`empty_leaf` must be one of {sorted(_EMPTY_LEAF_POLICIES)}; got {self.empty_leaf!r}."
            )
        parse_combiner(self._combiner_name())
        _n_threads(self.n_jobs)
        _check_verbose(self.verbose)
        if self.compatibility not in COMPATIBILITY:
            raise ValueError(
                f"`compatibility` must be None or 'busch2021' (grow the trees of Busch et al.'s code and "
                f"combine with its arithmetic); got {self.compatibility!r}."
            )
        if self.stop_at_pure_nodes is not None and not isinstance(self.stop_at_pure_nodes, (bool, np.bool_)):
            raise ValueError(
                f"`stop_at_pure_nodes` must be True, False or None (True unless compatibility='busch2021'); "
                f"got {self.stop_at_pure_nodes!r}."
            )
        if self.stop_at_pure_nodes and self.compatibility == "busch2021":
            raise ValueError(
                "`stop_at_pure_nodes=True` with compatibility='busch2021': Busch et al.'s code splits pure "
                "nodes too; use stop_at_pure_nodes=True with compatibility=None, or keep "
                "stop_at_pure_nodes=False to reproduce their trees."
            )
        if self.combiner_options is not None:
            if not isinstance(self.combiner_options, dict):
                raise ValueError(
                    f"`combiner_options` must be a dict of combine_leaves options or None; got {self.combiner_options!r}."
                )
        if self.combiner_options is not None or n_classes != 2:
            # unknown option names and values, and combiners or leaf models defined for two classes only,
            # are reported by combine_leaves itself (on a tiny count array with y's number of classes)
            try:
                combine_leaves(
                    np.ones((1, 1, n_classes), dtype=np.int64),
                    combiner=self._combiner_name(),
                    **self._options(fitted=False),
                )
            except TypeError as error:  # an option name combine_leaves does not know
                given = dict(self.combiner_options or {})
                reproduction = sorted(set(given) & set(_REPRODUCTION_OPTIONS))
                advice = (
                    f" {reproduction} only reproduced Busch et al.'s arithmetic: pass compatibility='busch2021'."
                    if reproduction
                    else ""
                )
                raise ValueError(
                    f"`combiner_options` {sorted(given)} has an option that "
                    f"dstk.ensemble.combine_leaves does not take ({error}).{advice}"
                ) from None
        mask = np.zeros(n_features, dtype=bool)
        if self.nominal_features is not None:
            nominal = np.asarray(self.nominal_features)
            if nominal.dtype == bool:
                if nominal.shape != (n_features,):
                    raise ValueError(
                        f"A boolean `nominal_features` mask must have one entry per feature ({n_features}); "
                        f"got shape {nominal.shape}."
                    )
                mask = nominal.copy()
            else:
                nominal = nominal.ravel()
                if nominal.size and not np.issubdtype(nominal.dtype, np.integer):
                    raise ValueError(
                        f"`nominal_features` must be feature indices (integers) or a boolean mask; got {self.nominal_features!r}."
                    )
                if nominal.size and (nominal.min() < -n_features or nominal.max() >= n_features):
                    raise ValueError(
                        f"`nominal_features` contains an index outside [0, {n_features}); got {nominal.tolist()}."
                    )
                mask[nominal] = True
        return n_estimators, min_samples_leaf, min_samples_split, max_depth, mask

    def _combiner_name(self) -> str:
        """``combiner`` with None resolved: ``"eva"``, or ``"average"`` with ``compatibility="busch2021"``."""
        if self.combiner is not None:
            return self.combiner
        return "average" if self.compatibility == "busch2021" else "eva"

    def _stops_at_pure_nodes(self) -> bool:
        """``stop_at_pure_nodes`` with None resolved: True unless ``compatibility="busch2021"``."""
        if self.stop_at_pure_nodes is None:
            return self.compatibility != "busch2021"
        return bool(self.stop_at_pure_nodes)

    def _encode(self, X: np.ndarray) -> np.ndarray:
        """Replace nominal values by their category codes (-1 for unseen values)."""
        if not self.nominal_mask_.any():
            return X
        X = X.copy()
        for f in np.flatnonzero(self.nominal_mask_):
            categories = self.categories_[f]
            assert categories is not None  # nominal features have their categories
            column = X[:, f]
            position = np.searchsorted(categories, column)
            position_clipped = np.minimum(position, categories.size - 1)
            seen = categories[position_clipped] == column
            X[:, f] = np.where(seen, position_clipped, -1).astype(np.float64)
        return X

    def _check_X_predict(self, X: ArrayLike) -> np.ndarray:
        check_is_fitted(self, "classes_")
        original = X
        X = _as_feature_matrix(X)
        validate_features(self, original, reset=False, n_features=X.shape[1])
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input (it was fitted with them). Pass the same columns as in fit."
            )
        return self._encode(X)

    # --------------------------------------------------------------------- fit
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Grow the trees and fill their class counts.

        Parameters
        ----------
        X : array_like (n_samples, n_features)
            Numeric features (nominal features as numeric codes).
        y : array_like (n_samples,)
            Class labels (at least two classes).
        sample_weight : array_like (n_samples,), optional
            Whole-number frequency weights: fitting with weight ``w`` on a
            sample equals fitting on the data with that sample repeated ``w``
            times (leaf counts count observations); 0 drops the sample.

        Returns
        -------
        RandomDecisionTreesClassifier
            ``self``, fitted.

        Raises
        ------
        ValueError
            Invalid parameters, NaN or infinite values in ``X``, fewer than two
            classes in ``y``, or ``X`` and ``y`` of different lengths.
        """
        names_source = X
        X, y_encoded, classes = _training_data(X, y, sample_weight, type(self).__name__)
        validate_features(self, names_source, reset=True, n_features=X.shape[1])
        n_estimators, min_samples_leaf, min_samples_split, max_depth, mask = self._check_params(
            X.shape[1], int(classes.size)
        )
        self._set_training_attributes(X, classes, y_encoded, mask)
        # the data feature by feature, X.T (a view, no copy)
        columns = _feature_major(self._encode(X))
        del X
        y64 = y_encoded.astype(np.int64)
        grow = self._tree_grower(columns, y64, min_samples_leaf, min_samples_split, max_depth)
        builder = self._grow_forest(
            grow, check_random_state(self.random_state), n_estimators, columns.shape[1]
        )
        # the growing state is freed before the forest is assembled
        grow = None  # type: ignore[assignment]
        if parse_combiner(self._combiner_name())[0] not in _CALIBRATED_METHODS:
            columns = None  # type: ignore[assignment]  # no score calibration: the training data is released before the forest is assembled
        self._forest = builder.finish()
        del builder
        self.node_count_ = np.diff(self._forest["offsets"])
        self.n_leaves_ = self._forest.pop("n_leaves")
        self.max_depth_ = self._forest.pop("max_depth")
        self.score_calibration_ = self._fit_score_calibration(
            columns,
            y64,
            min_samples_split=min_samples_split,
            stop_at_pure_nodes=self._stops_at_pure_nodes(),
        )
        self._calibrated_for = self._calibration_key()
        return self

    def _set_training_attributes(self, X, classes, y_encoded, mask):
        """The fitted attributes known before the trees grow: classes, prior, nominal features and categories."""
        n_features = X.shape[1]
        if n_features > _trees.ROUTE_FEATURE_MASK:
            raise ValueError(
                f"`X` has {n_features} features; the node records hold feature indices below "
                f"{_trees.ROUTE_FEATURE_MASK + 1}. Reduce the features (e.g. select or hash them) before fitting."
            )
        self.classes_ = classes
        self.n_classes_ = int(classes.size)
        self.n_features_in_ = n_features
        self.class_prior_ = np.bincount(y_encoded, minlength=self.n_classes_) / y_encoded.size
        self.nominal_mask_ = mask
        self.categories_ = [np.unique(X[:, f]) if mask[f] else None for f in range(n_features)]

    def _tree_grower(self, columns, y64, min_samples_leaf, min_samples_split, max_depth):
        """``grow(seed, stream, mersenne_state)``: one tree of ``columns`` (n_features, n_samples) as packed records.

        The per-feature inputs of :func:`dstk._kernels.trees.build_tree` (range,
        row hashes, sparse rows of the binary features) are computed here once
        for all trees.  ``grow`` returns the tree's packed node records, its
        class counts, its depth and its number of leaves.
        """
        mask = self.nominal_mask_
        n_categories = np.array([c.size if c is not None else 0 for c in self.categories_], dtype=np.int64)
        feature_min = columns.min(axis=1).astype(np.float64)
        feature_max = columns.max(axis=1).astype(np.float64)
        # small data: both kernels run interpreted (same bits), not compiled
        row_hash = call_kernel(
            _trees.row_hashes,
            columns.view(np.uint64),
            np.uint64(0x8000000000000000),
            work=columns.size,
        )
        binary_index, marked_is_low, marked_start, marked_binary = call_kernel(
            _trees.marked_rows,
            columns,
            mask,
            feature_min,
            feature_max,
            work=columns.size,
        )
        unused_mersenne_state = np.zeros(1, dtype=np.uint32)  # the splitmix64 streams do not read it
        n_train = columns.shape[1]
        tree_work = n_train * (columns.shape[0] + n_train.bit_length())
        n_classes = self.n_classes_
        stop_at_pure_nodes = self._stops_at_pure_nodes()

        def grow(seed, stream=_trees.STREAM_SPLITMIX, mersenne_state=unused_mersenne_state):
            feature, operator, nominal, threshold, child_start, n_children, counts, depth = call_kernel(
                _trees.build_tree,
                columns,
                feature_min,
                feature_max,
                row_hash,
                y64,
                n_classes,
                mask,
                n_categories,
                min_samples_leaf,
                min_samples_split,
                max_depth,
                stop_at_pure_nodes,
                np.uint64(seed),
                stream,
                mersenne_state,
                binary_index,
                marked_is_low,
                marked_start,
                marked_binary,
                work=tree_work,
            )
            # the tree is kept as its packed records and counts only (the other arrays are freed here)
            nodes = call_kernel(
                _trees.pack_tree,
                feature,
                operator,
                nominal,
                threshold,
                child_start,
                n_children,
                work=feature.shape[0],
            )
            return nodes, counts, int(depth.max()), int(np.count_nonzero(feature < 0))

        return grow

    def _grow_forest(self, grow, rng, n_estimators, n_train):
        """The ``n_estimators`` trees of ``grow`` (see :meth:`_tree_grower`) added to a forest builder in order.

        ``compatibility="busch2021"``: the trees draw one after another from
        the MT19937 stream of ``rng`` (advanced as by the authors' code);
        otherwise every tree has its own splitmix64 seed, drawn from ``rng``,
        and the trees may grow in ``n_jobs`` threads.
        """
        builder = _ForestBuilder(self.n_classes_, n_estimators)
        if self.compatibility == "busch2021":
            mersenne_state = _mersenne.state_from_random_state(rng)
            for grown in progress(
                (grow(0, _trees.STREAM_MERSENNE, mersenne_state) for _ in range(n_estimators)),
                total=n_estimators,
                verbose=self.verbose,
                description="trees grown",
            ):
                builder.add(grown)
            _mersenne.restore_random_state(rng, mersenne_state)
            return builder
        seeds = rng.randint(0, np.iinfo(np.int32).max, size=(n_estimators, 2)).astype(np.uint64)
        seeds = (seeds[:, 0] << np.uint64(31)) ^ seeds[:, 1]
        threads = min(_threads_for(self.n_jobs, n_train * n_estimators), n_estimators)

        def grown_trees():
            yield grow(seeds[0])  # compiles (once, on a cold cache) in this thread
            if threads > 1 and n_estimators > 1:
                with ThreadPoolExecutor(max_workers=threads) as pool:
                    # the trees are taken in order as they come (each tree's counts are freed once numbered)
                    yield from pool.map(grow, seeds[1:])
            else:
                yield from (grow(s) for s in seeds[1:])

        for grown in progress(
            grown_trees(), total=n_estimators, verbose=self.verbose, description="trees grown"
        ):
            builder.add(grown)
        return builder

    def _calibration_key(self):
        return (self._combiner_name(), repr(sorted((self.combiner_options or {}).items())))

    def _fit_score_calibration(self, columns, y, *, min_samples_split, stop_at_pure_nodes):
        """Inverse temperature of the log-scores, fitted on leave-one-out training log-scores.

        Returns ``a`` with P(classes_[1]) = expit(a z) of the log-odds z
        (two classes) or P(classes_[k]) = softmax(a s)_k of the per-class
        log-scores s (:func:`_log_odds`), or None for the combiners whose
        scores are probabilities already.
        """
        method, _aggregate = parse_combiner(self._combiner_name())
        if method not in _CALIBRATED_METHODS:
            return None
        rows = self._routing()["rows"]
        n_rows, n_classes = rows.shape
        # the row of the leaf's counts without the sample itself: c - e_y for every row and class
        shifted = [rows - np.eye(n_classes)[k] for k in range(n_classes)]
        candidates = np.concatenate([rows] + shifted).astype(np.int64)
        keys, first = _tables.distinct_row_keys(np.maximum(candidates, 0))
        without_self = keys[n_rows:].reshape(n_classes, n_rows)
        all_rows = np.maximum(candidates, 0)[first].astype(np.float64)
        options = self._options()
        n_samples = columns.shape[1]
        n_trees = self.node_count_.size
        batch = max(256, _BATCH_LEAVES // n_trees)
        # a node of more samples than this may stop growing without one of them only by purity
        walk_all = stop_at_pure_nodes or min_samples_split > 2
        scores = np.empty((n_samples,) if n_classes == 2 else (n_samples, n_classes))
        tables: dict[Any, Any] = {}
        for a in range(0, n_samples, batch):
            b = min(a + batch, n_samples)
            X_part = np.ascontiguousarray(columns[:, a:b].T)
            leaves = self._leaf_rows(X_part, tables)
            # a training sample reaches a leaf holding itself in every tree (never an empty child)
            loo_keys = without_self[y[a:b, None], leaves.keys]
            batch_rows = all_rows
            if walk_all:
                pairs = np.indices(loo_keys.shape).reshape(2, -1)
            else:
                # only a sample alone in its leaf reaches another node when the tree grows without it
                pairs = np.argwhere(~all_rows[loo_keys].any(axis=-1)).T
            if pairs.size:
                samples, trees = np.ascontiguousarray(pairs[0]), np.ascontiguousarray(pairs[1])
                loo = self._leave_one_out_counts(
                    X_part, y[a:b], samples, trees, min_samples_split, stop_at_pure_nodes
                )
                extra_keys, first_rows = _tables.distinct_row_keys(loo)
                loo_keys[samples, trees] = all_rows.shape[0] + extra_keys
                batch_rows = np.concatenate([all_rows, loo[first_rows].astype(np.float64)])
            loo_leaves = _LeafRows(loo_keys, batch_rows, leaves.shape, tables)
            loo_leaves.n_cached_rows = all_rows.shape[0]
            scores[a:b] = _log_odds(loo_leaves, combiner=self._combiner_name(), **options)
        return _fit_inverse_temperature(scores, y)

    @classmethod
    def concatenate(
        cls, estimators: Sequence[RandomDecisionTreesClassifier]
    ) -> RandomDecisionTreesClassifier:
        """One fitted ensemble holding the trees of several fitted ensembles, in order.

        Use it to grow the trees of one ensemble in separate jobs (different
        ``random_state``, same training data; see
        :func:`dstk.dask.fit_random_trees`) or to pool ensembles grown on
        different parts of the data.

        Parameters
        ----------
        estimators : sequence of RandomDecisionTreesClassifier
            Fitted ensembles with the same classes, the same number of
            features and the same nominal features (with the same category
            codes, i.e. the same set of values seen in training).

        Returns
        -------
        RandomDecisionTreesClassifier
            A new fitted ensemble; its parameters are those of the first
            estimator with ``n_estimators`` set to the total number of trees
            (and ``combiner="average"`` where the first has the default
            ``combiner=None`` meaning ``"eva"``: the temperature of the
            calibrated combiners is fitted on the training samples, which the
            merged ensemble does not have).
            ``class_prior_`` (the prior of the EVA combiner) is the class
            distribution of all the training samples, summed over the root
            nodes of the trees; it equals each part's prior when the parts
            were grown on the same data.

        Raises
        ------
        NotFittedError
            An estimator that is not fitted.
        ValueError
            No estimator, an estimator of another type, or estimators that
            disagree on ``classes_``, ``n_features_in_``, the nominal features
            or their categories.

        Notes
        -----
        The trees of an ensemble are independent (each grows from its own
        random stream without looking at the other trees; Fan et al. 2003,
        Busch et al. 2021, Section 2.1.1), so the concatenation of ensembles
        is an ensemble: ``leaf_counts`` of the result is the concatenation of
        the parts' ``leaf_counts`` along the tree axis.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(60, 3)); y = (X[:, 0] > 0).astype(int)
        >>> parts = [RandomDecisionTreesClassifier(n_estimators=4, random_state=seed).fit(X, y) for seed in (1, 2)]
        >>> merged = RandomDecisionTreesClassifier.concatenate(parts)
        >>> merged.n_estimators
        8
        >>> bool(np.array_equal(merged.leaf_counts(X), np.concatenate([p.leaf_counts(X) for p in parts], axis=1)))
        True
        """
        parts = list(estimators)
        _check_concatenable(parts)
        first = parts[0]
        params = {**first.get_params(), "n_estimators": int(sum(p.node_count_.size for p in parts))}
        if params["combiner"] is None and first._combiner_name() == "eva":
            # EVA's temperature is fitted on the training data, which the merged forest does not have
            params["combiner"] = "average"
        merged = cls(**params)
        merged.classes_ = first.classes_
        merged.n_classes_ = first.n_classes_
        merged.n_features_in_ = first.n_features_in_
        if hasattr(first, "feature_names_in_"):
            merged.feature_names_in_ = first.feature_names_in_  # type: ignore[attr-defined]
        merged.nominal_mask_ = first.nominal_mask_
        merged.categories_ = first.categories_
        merged._forest = _concatenated_forest(parts)
        nodes, rows = merged._forest["nodes"], merged._forest["rows"]
        leaves = (nodes[:, 0] & _trees.ROUTE_LEAF) != 0
        # every training sample of a tree reaches one of its leaves: the leaves' counts sum to the roots'
        root_counts = rows[_trees.node_rows(nodes)[leaves]].sum(axis=0)
        merged.class_prior_ = root_counts / root_counts.sum()
        merged.node_count_ = np.concatenate([part.node_count_ for part in parts])
        merged.n_leaves_ = np.concatenate([part.n_leaves_ for part in parts])
        merged.max_depth_ = np.concatenate([part.max_depth_ for part in parts])
        # no training samples to fit the calibrated combiners' temperature on
        merged.score_calibration_ = None
        merged._calibrated_for = None
        return merged

    # ---------------------------------------------------------------- predict
    def _run_chunks(self, kernel, X, out):
        n = X.shape[0]
        threads = _threads_for(self.n_jobs, n * (self._forest["offsets"].size - 1))
        if threads <= 1 or n < 2 * threads:
            kernel(X, out)
            return out
        kernel(X[:1], out[:1])  # compile in this thread
        bounds = np.linspace(0, n, threads * 4 + 1).astype(np.int64)
        with ThreadPoolExecutor(max_workers=threads) as pool:
            jobs = [pool.submit(kernel, X[a:b], out[a:b]) for a, b in itertools.pairwise(bounds) if b > a]
            for job in jobs:
                job.result()
        return out

    def leaf_counts(self, X: ArrayLike) -> np.ndarray:
        """Class counts of the leaf reached by every sample in every tree.

        Parameters
        ----------
        X : array_like (n_samples, n_features)
            Samples with the columns used in ``fit``.

        Returns
        -------
        ndarray of int64, shape (n_samples, n_estimators, n_classes)
            ``counts[i, t, c]`` = number of training samples of class
            ``classes_[c]`` in the leaf of tree ``t`` reached by sample ``i``
            (after the ``empty_leaf`` policy).

        Raises
        ------
        NotFittedError
            Called before ``fit``.
        ValueError
            ``X`` not 2-D, with NaN or infinite values, or with another number
            of features than in ``fit``.
        """
        X = self._check_X_predict(X)
        n_trees = self._forest["offsets"].size - 1
        out = np.empty((X.shape[0], n_trees, self.n_classes_), dtype=np.int64)
        rows = self._routing()["rows"].astype(np.int64)

        def kernel(X_part, out_part):
            keys = self._route(X_part)
            missing = np.argwhere(keys < 0)
            np.take(rows, keys, axis=0, out=out_part, mode="clip")
            if missing.size:
                out_part[missing[:, 0], missing[:, 1]] = self._sibling_counts(
                    X_part, missing[:, 0], missing[:, 1]
                )

        return self._run_chunks(kernel, X, out)

    def apply(self, X: ArrayLike) -> np.ndarray:
        """Index (local to each tree) of the leaf reached by every sample.

        Parameters
        ----------
        X : array_like (n_samples, n_features)
            Samples with the columns used in ``fit``.

        Returns
        -------
        ndarray of int64, shape (n_samples, n_estimators)
            -1 where the sample reached an empty or unseen nominal child.
        """
        X = self._check_X_predict(X)
        out = np.empty((X.shape[0], self._forest["offsets"].size - 1), dtype=np.int64)

        def kernel(X_part, out_part):
            out_part[:] = self._route(X_part, leaf_ids=True)

        return self._run_chunks(kernel, X, out)

    def _node_arrays(self) -> dict[str, np.ndarray]:
        """The node arrays of every tree as grown (local child ids), rebuilt exactly from the packed records.

        Keys ``feature``, ``operator``, ``nominal``, ``threshold``,
        ``child_start``, ``n_children``, ``counts``, ``depth`` (one entry per
        node, trees one after the other) and ``offsets``; for inspection and
        tests (the fitted state holds only the packed records).
        """
        check_is_fitted(self, "classes_")
        forest = self._forest
        names = (
            "feature",
            "operator",
            "nominal",
            "threshold",
            "child_start",
            "n_children",
            "counts",
            "depth",
        )
        arrays = _trees.unpack_nodes(forest["nodes"], forest["offsets"], forest["rows"])
        return {**dict(zip(names, arrays)), "offsets": forest["offsets"]}

    def _options(self, *, fitted=True):
        """Options of the combiner: ``combiner_options``, ``compatibility``, EVA's prior defaulting to ``class_prior_``."""
        options = dict(self.combiner_options or {})
        if self.compatibility is not None:
            options.setdefault("compatibility", self.compatibility)
        if fitted and parse_combiner(self._combiner_name())[0] == "eva":
            options.setdefault("class_prior", self.class_prior_)
        return options

    def _combined_by(self, X, combine, **extra):
        """``combine(leaves, combiner=..., **options)`` on the batches of ``X``: the combiner's one call path."""
        check_is_fitted(self, "classes_")
        options = {**self._options(), **extra}
        combiner = self._combiner_name()
        return self._combined(X, lambda leaves: combine(leaves, combiner=combiner, **options))

    # ---------------------------------------------------- combination by node
    def _routing(self):
        """The count rows with a row of zero counts, the roots, and the float32 thresholds once needed (cached)."""
        forest = self._forest
        # kept outside the estimator (predict leaves its __dict__ unchanged; not saved with it)
        cache = _ROUTING_CACHE.get(self)
        if cache is not None and cache["forest"] is forest:
            return cache
        rows = forest["rows"]
        zero = np.flatnonzero(~rows.any(axis=1))
        if zero.size:
            zero_row = int(zero[0])
        else:  # zero counts (the "zero" empty-leaf policy) get a row of their own
            zero_row = rows.shape[0]
            rows = np.concatenate([rows, np.zeros((1, rows.shape[1]))])
        cache = {
            "forest": forest,
            "zero_row": zero_row,
            "rows": rows,
            "roots": np.ascontiguousarray(forest["offsets"][:-1], dtype=np.int64),
        }
        _ROUTING_CACHE[self] = cache
        return cache

    def _thresholds(self, routing, narrow):
        """The ``<=`` thresholds of the nodes (NaN at the leaves) for float64 or float32 samples.

        float64: a view of the node records.  float32 (built once): each
        threshold rounded down to a float32; for a float32 ``x``, ``x <= t``
        exactly when ``x`` is at most the largest float32 not above ``t``.
        """
        thresholds = self._forest["nodes"].view(np.float64)[:, 1]
        if not narrow:
            return thresholds
        if "thresholds_32" not in routing:
            with np.errstate(over="ignore", invalid="ignore"):
                rounded = thresholds.astype(np.float32)
                above = rounded.astype(np.float64) > thresholds
            rounded[above] = np.nextafter(rounded[above], np.float32(-np.inf))
            routing["thresholds_32"] = rounded
        return routing["thresholds_32"]

    def _route(self, X, *, leaf_ids=False):
        """Count row (or local leaf id) of the leaf of every checked sample of ``X`` in every tree.

        (n_samples, n_trees) int64; -1 where the ``siblings`` policy applies
        (or, for leaf ids, where the sample met an empty or unseen child).
        """
        routing = self._routing()
        out = np.empty((X.shape[0], routing["roots"].size), dtype=np.int64)
        # float32 samples (half the memory traffic) when that is exact
        narrow = _exact_float32(X)
        n_trees = routing["roots"].size
        call_kernel(
            _trees.route_rows_kernel,
            narrow if narrow is not None else X,
            routing["roots"],
            self._forest["nodes"],
            self._thresholds(routing, narrow is not None),
            routing["zero_row"],
            _EMPTY_LEAF_POLICIES[self.empty_leaf],
            leaf_ids,
            out,
            work=X.shape[0] * n_trees * (self._forest["nodes"].shape[0] // max(1, n_trees)).bit_length(),
        )
        return out

    def _sibling_counts(self, X, samples, trees):
        """Counts of the ``siblings`` policy for the (sample, tree) pairs where a sample met an empty child."""
        forest = self._forest
        out = np.empty((samples.size, self.n_classes_), dtype=np.int64)
        _trees.sibling_counts_kernel(
            X, self._routing()["roots"], forest["nodes"], forest["rows"], samples, trees, out
        )
        return out

    def _leave_one_out_counts(self, X, y, samples, trees, min_samples_split, stop_at_pure_nodes):
        """Counts of the leaf training sample ``samples[j]`` would reach in tree ``trees[j]`` grown without it."""
        forest = self._forest
        out = np.empty((samples.size, self.n_classes_), dtype=np.int64)
        return call_kernel(
            _trees.leave_one_out_counts_kernel,
            X,
            np.ascontiguousarray(y, dtype=np.int64),
            self._routing()["roots"],
            forest["nodes"],
            forest["rows"],
            samples,
            trees,
            int(min_samples_split),
            bool(stop_at_pure_nodes),
            out,
            work=samples.size * max(1, int(self.max_depth_.max()) if self.max_depth_.size else 1),
        )

    def _leaf_rows(self, X, tables):
        """The leaves of ``X`` (encoded) as keys into the node count rows, for the combiners."""
        routing = self._routing()
        keys = self._route(X)
        rows = routing["rows"]
        n_base = rows.shape[0]
        missing = np.argwhere(keys < 0)
        if missing.size:
            # siblings policy: the summed counts of the leaves below the empty child's parent
            extra = self._sibling_counts(X, missing[:, 0], missing[:, 1])
            extra_keys, first = _tables.distinct_row_keys(np.ascontiguousarray(extra))
            keys[missing[:, 0], missing[:, 1]] = n_base + extra_keys
            rows = np.concatenate([rows, extra[first].astype(np.float64)])
        leaves = _LeafRows(keys, rows, (X.shape[0], keys.shape[1], self.n_classes_), tables)
        leaves.n_cached_rows = n_base
        return leaves

    def _combined(self, X, function):
        """``function(leaves)`` on batches of the samples of ``X``, concatenated (bounded memory)."""
        X = self._check_X_predict(X)
        n = X.shape[0]
        n_trees = self._forest["offsets"].size - 1
        batch = max(256, _BATCH_LEAVES // n_trees)
        tables: dict[Any, Any] = {}  # per-leaf tables evaluated once per call, shared by the batches
        threads = _threads_for(self.n_jobs, n * n_trees)
        # a small first batch compiles and fills the tables alone; the rest is cut into batches of at
        # most `batch` samples, as many as a multiple of the threads (both cores busy to the end)
        first = min(n, 256 if threads > 1 else batch)
        rest = n - first
        n_pieces = -(-rest // batch)
        if threads > 1 and rest > 0:
            n_pieces = -(-max(n_pieces, threads) // threads) * threads
        bounds = [0] + [first + (rest * k) // max(n_pieces, 1) for k in range(n_pieces + 1)]
        bounds = sorted(set(bounds))
        n_pieces = len(bounds) - 1
        # the first batch's result gives the output's shape and type; the other batches write into it
        head = np.asarray(function(self._leaf_rows(X[: bounds[1]], tables)))  # compiles, fills the tables
        out = np.empty((n,) + head.shape[1:], dtype=head.dtype)
        out[: bounds[1]] = head

        def run(j):
            a, b = bounds[j], bounds[j + 1]
            out[a:b] = function(self._leaf_rows(X[a:b], tables))

        threads = min(threads, n_pieces - 1)
        if threads > 1:
            with ThreadPoolExecutor(max_workers=threads) as pool:
                list(pool.map(run, range(1, n_pieces)))
        else:
            for j in range(1, n_pieces):
                run(j)
        return out

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """The combiner's score (see :func:`dstk.ensemble.combine_leaves`), centred at its threshold.

        Parameters
        ----------
        X : array_like (n_samples, n_features)
            Samples with the columns used in ``fit``.

        Returns
        -------
        ndarray of float64
            Two classes: shape (n_samples,), the score of the positive class
            ``classes_[1]`` minus the combiner's decision threshold
            (0.5 for scores in
            [0, 1], 0 for signed ones), so that, as in scikit-learn, positive
            values predict ``classes_[1]`` (a score exactly at the threshold
            too, as in Busch et al.).  More classes: shape
            (n_samples, n_classes), the per-class scores.
        """
        scores = self._combined_by(X, combine_leaves)
        if scores.ndim == 1:
            scores = scores - decision_threshold(*parse_combiner(self._combiner_name()))
        return scores

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities from the combiner.

        Parameters
        ----------
        X : array_like (n_samples, n_features)
            Samples with the columns used in ``fit``.

        Returns
        -------
        ndarray of float64, shape (n_samples, n_classes)
            Rows sum to one.  For ``"average"``, ``"laplace"``,
            ``"confidence_bounds"``, ``"pooling"`` and the votes these are the
            combined scores themselves; for ``"plausibility"`` the pignistic
            probability of the average leaf mass.  For ``"eva"``, ``"dempster"``
            and ``"cautious"`` with two classes: P(classes_[1]) = expit(a z)
            of the log-odds z (EVA's score; ln BetP(1) - ln BetP(0) of the
            normalised Dempster or cautious mass); with more classes:
            P(classes_[k]) = softmax(a s)_k of the per-class log-scores s
            (EVA's per-class scores; ln BetP(k)).  The inverse temperature
            ``score_calibration_ = a >= 0`` is fitted in ``fit`` on
            leave-one-out log-scores of the training samples (see Notes).

        Notes
        -----
        The pignistic probability of the combined Dempster or cautious mass
        and the softmax of the EVA scores are 0 or 1 to machine precision for
        most samples (a product over 100 trees), while the scores still rank
        the samples well (Busch et al. 2021 compare them by AUC).  Their
        calibrated probability scales the log-odds by one fitted factor (a
        temperature, as in Guo et al. 2017, Eq. 9, on the two-class
        log-odds): it ranks the samples as the log-odds do and crosses 1/2
        where they change sign, so :meth:`predict` is its argmax.  The
        pignistic log-odds, not the difference m({1}) - m({0}), are the scale of the
        fit: that difference is a difference of products over the trees,
        whose magnitude spans hundreds of orders, and a logistic map of it
        (Platt's, fitted even on the test samples themselves) loses up to
        a fifth of the accuracy of its own sign.  The factor is fitted by
        maximum likelihood with Platt's smoothed targets (Platt 1999, Eq. 4;
        with K > 2 classes a sample of class k, one of n_k, has target
        (n_k + 1) / (n_k + 2) on k and 1 / (n_k + 2) shared by the others),
        on the log-scores each training sample gets from the leaves it
        would reach in trees grown without it (a leave-one-out estimate:
        the log-scores of a sample the leaves have not seen).  The splits do
        not depend on the labels, but where the trees stop does: without
        the sample, the first node of its path that would stop growing
        (fewer than ``min_samples_split`` samples left or, with
        ``stop_at_pure_nodes``, one class left) is its leaf, and a leaf
        left empty is replaced by its parent; its counts without the sample
        are the leave-one-out counts.  With ``stop_at_pure_nodes`` this
        matters: a sample among samples of the other class is split off
        into a small leaf of its own, where an unseen sample meets the
        large pure leaf that the node would have been (the leaf's own
        counts gave 3-5 times too large an inverse temperature there).  The
        uncalibrated
        probabilities remain available as
        ``combine_leaves_proba(model.leaf_counts(X), ...)``.

        References
        ----------
        Guo, C., Pleiss, G., Sun, Y. and Weinberger, K. Q. (2017). On
        calibration of modern neural networks. ICML 2017.
        """
        check_is_fitted(self, "classes_")
        return self._probabilities(X, warn=True)

    def _probabilities(self, X: ArrayLike, *, warn: bool) -> np.ndarray:
        """:meth:`predict_proba`; ``warn``: say so when the calibration was fitted for another combiner."""
        method, _aggregate = parse_combiner(self._combiner_name())
        calibration = getattr(self, "score_calibration_", None)
        if method in _CALIBRATED_METHODS:
            if getattr(self, "_calibrated_for", None) != self._calibration_key():
                fitted_with = getattr(self, "_calibrated_for", None)
                if not warn:
                    pass
                elif fitted_with is None:
                    warnings.warn(
                        f"predict_proba of combiner {self._combiner_name()!r} maps its score through a calibration "
                        "fitted in fit, but this ensemble was concatenated from fitted parts "
                        "(RandomDecisionTreesClassifier.concatenate, dstk.dask.fit_random_trees) and has no "
                        "training samples to fit it on; returning the uncalibrated probabilities (mostly 0 or 1). "
                        "Use combiner='average' (or another uncalibrated combiner) for the merged ensemble, or fit "
                        "one ensemble on the data.",
                        UserWarning,
                        stacklevel=3,
                    )
                else:
                    warnings.warn(
                        f"predict_proba of combiner {self._combiner_name()!r} maps its score through a calibration "
                        f"fitted in fit, but this ensemble was fitted with combiner {fitted_with[0]!r} and "
                        f"combiner_options {fitted_with[1]}; returning the uncalibrated probabilities (mostly 0 or "
                        "1). Call fit again after changing `combiner` or `combiner_options` for the calibrated ones.",
                        UserWarning,
                        stacklevel=3,
                    )
                calibration = None
        else:
            calibration = None
        if calibration is not None:
            linear = float(calibration) * self._combined_by(X, _log_odds)
            if linear.ndim == 2:
                return special.softmax(linear, axis=1)
            # each column from its own expit: the smaller probability keeps its relative precision
            return np.stack([special.expit(-linear), special.expit(linear)], axis=1)
        return self._combined_by(X, combine_leaves_proba)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Predicted class labels.

        The class of largest :meth:`predict_proba` (the first in ``classes_``
        on ties, as scikit-learn's classifiers do).  For two classes this is
        the positive class ``classes_[1]`` where the combiner's score passes
        its threshold (0.5 for scores in [0, 1], 0 for signed scores and for
        the log-odds of ``"eva"``, ``"dempster"`` and ``"cautious"``, which
        :meth:`predict_proba` scales); Busch et al.'s code also gives the
        positive class on a tie, ``decision_function(X) >= 0``.  When the
        fitted inverse temperature ``score_calibration_`` is 0 (every
        calibrated probability is 1/K), the class of largest log-score, the
        class that ``softmax(a s)`` ranks first for every a > 0.

        Parameters
        ----------
        X : array_like (n_samples, n_features)
            Samples with the columns used in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        check_is_fitted(self, "classes_")
        if self._calibration_is_flat():
            # a = 0: every calibrated probability is 1/K, and argmax would give classes_[0] to every
            # sample; the order of softmax(a s) for any a > 0 is that of the log-scores s
            scores = self._combined_by(X, _log_odds)
            index = (scores > 0).astype(np.intp) if scores.ndim == 1 else np.argmax(scores, axis=1)
            return self.classes_[index]
        return self.classes_[np.argmax(self._probabilities(X, warn=False), axis=1)]

    def _calibration_is_flat(self) -> bool:
        """True when :meth:`predict_proba` is calibrated with inverse temperature 0 (all classes tie)."""
        method, _aggregate = parse_combiner(self._combiner_name())
        return (
            method in _CALIBRATED_METHODS
            and getattr(self, "_calibrated_for", None) == self._calibration_key()
            and getattr(self, "score_calibration_", None) == 0.0
        )

    def predict_mass(self, X: ArrayLike, *, normalize: bool = True) -> MassFunction:
        """Combined mass functions, one per sample, on ``Frame(classes_)``.

        The evidential combiners (``"plausibility"`` averaging, ``"dempster"``
        and ``"cautious"``) combine one mass function per leaf.  The other
        combiners score the leaves without a mass function of their own; for
        them the result is the Bayesian mass function of :meth:`predict_proba`
        (all mass on singletons, so belief equals plausibility and the
        interval of :meth:`predict_interval` has width zero).

        Parameters
        ----------
        X : array_like (n_samples, n_features)
            Samples with the columns used in ``fit``.
        normalize : bool, default True
            Divide by ``1 - m(empty)`` (Dempster's normalisation); False keeps
            the unnormalised result with its mass on the empty set.  Ignored by
            the combiners without a mass function (their result has no
            conflict).

        Returns
        -------
        MassFunction
            Batch shape (n_samples,) on ``Frame(classes_)`` (the labels seen
            in ``fit``).
        """
        from dstk.core._frame import Frame
        from dstk.core._mass import MassFunction

        frame = Frame(tuple(self.classes_.tolist()))
        method, _ = parse_combiner(self._combiner_name())
        if method not in ("dempster", "cautious", "plausibility"):
            probabilities = np.asarray(self.predict_proba(X), dtype=np.float64)
            singletons = [1 << k for k in range(self.classes_.size)]
            return MassFunction.from_focal_sets(singletons, probabilities, frame, validate=False)
        array = self._combined_by(X, _combine_leaves_to_mass_array, normalize=normalize)
        return MassFunction.from_array(array, frame, validate=False)

    def predict_interval(self, X: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Belief and plausibility of the classes, from :meth:`predict_mass`.

        Parameters
        ----------
        X : array_like (n_samples, n_features)
            Samples with the columns used in ``fit``.

        Returns
        -------
        bel, pl : ndarray
            For two classes, of shape (n_samples,) for class ``classes_[1]``;
            otherwise of shape (n_samples, n_classes): ``Bel({c}) = m({c})``
            and ``Pl({c})`` the total mass of the focal sets containing ``c``
            (Shafer 1976, ch. 2), with ``Bel({c}) <= Pl({c}) <= 1``.  Equal
            bounds for the combiners without a mass function of their own
            (see :meth:`predict_mass`).
        """
        return singleton_interval(self.predict_mass(X))
