"""Combine the class counts of the leaves reached by a sample in a tree ensemble.

The one entry point is :func:`combine_leaves` on an array of leaf counts of
shape ``(n_samples, n_trees, n_classes)`` (from
:meth:`RandomDecisionTreesClassifier.leaf_counts`, from
:func:`dstk.ensemble.sklearn_leaf_counts`, or from anywhere else).
:func:`combine_leaves_proba` turns the result into class probabilities and
:func:`combine_leaves_to_mass` returns the combined mass functions of the
evidential methods.

Methods (Busch, Kulessa, Loza Mencia & Blockeel 2021)
-----------------------------------------------------
Scored per leaf, then ``aggregate="average"`` (default) or ``"vote"``:

``"probability"``   class frequencies of the leaf (section 3.1.1)
``"laplace"``       (c_k + 1) / (N + K) (section 3.1.1)
``"plausibility"``  pi+ - pi-, Shaker & Huellermeier (section 3.1.2; binary only)
``"confidence_bounds"``  beta-binomial intersection height (section 3.1.3; binary only)

Integrated (no ``aggregate``):

``"pooling"``   summed counts, then frequencies (section 4.0.1)
``"dempster"``  unnormalised Dempster (conjunctive) rule on leaf masses (section 4.0.2)
``"cautious"``  Denoeux's cautious rule on leaf masses (section 4.0.3)
``"eva"``       evidence accumulation (section 4.0.4)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from dstk._kernels import leaf_combination as _kernels
from dstk._kernels import leaf_tables as _tables
from dstk._validation import check_counts
from dstk.core._frame import Frame
from dstk.core._mass import MassFunction
from dstk.ensemble._leaf_scores import (
    leaf_confidence_bound,
    leaf_plausibility_mass,
    leaf_plausibility_score,
)
from dstk.ensemble._reference import reference_plausibility_mass_rows
from dstk.exceptions import DogmaticError, FrameTooLargeError, TotalConflictError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "SCORE_METHODS",
    "INTEGRATED_METHODS",
    "COMBINERS",
    "combine_leaves",
    "combine_leaves_proba",
    "combine_leaves_to_mass",
    "decision_threshold",
    "parse_combiner",
]

AGGREGATES = ("average", "vote")


@dataclass(frozen=True)
class Combiner:
    """A combiner of leaf counts: what it is, the options it takes, and the function that computes it.

    ``method``: the combination method; ``aggregate``: ``"average"`` or
    ``"vote"`` for the per-leaf scoring methods, None for the integrated
    ones; ``options``: the keyword options of :func:`combine_leaves` it
    takes (the others are refused); ``binary_only``: defined for two classes
    only; ``threshold``: the neutral point of its binary score (see
    :func:`decision_threshold`); ``implementation(leaves, combiner,
    arithmetic, want_mass, options)``: returns the dict of :func:`_combine`.
    """

    method: str
    aggregate: str | None
    options: tuple[str, ...]
    binary_only: bool
    threshold: float
    implementation: Callable[..., dict] = field(repr=False, compare=False)

    def aggregated(self, aggregate: str) -> Combiner:
        """The same per-leaf scoring method with another aggregate (a vote is neutral at 1/2)."""
        return replace(self, aggregate=aggregate, threshold=0.5 if aggregate == "vote" else self.threshold)


_MAX_DENSE_CLASSES = 16


def parse_combiner(combiner: str) -> tuple[str, str | None]:
    """Return ``(method, aggregate)`` for a combiner name.

    Parameters
    ----------
    combiner : str
        A key of :data:`COMBINERS`, a method name, or ``"<method>:<aggregate>"``
        (e.g. ``"laplace:vote"``).

    Returns
    -------
    method : str
        One of :data:`SCORE_METHODS` or :data:`INTEGRATED_METHODS`.
    aggregate : str or None
        ``"average"`` or ``"vote"`` for the per-leaf scoring methods, None for
        the integrated methods.

    Raises
    ------
    ValueError
        Unknown name, or an aggregate given to an integrated method.

    Notes
    -----
    The per-leaf scoring methods (Busch et al. 2021, Section 3.1) are
    aggregated by the mean h_avg or the 0-1 vote h_vote (Section 3.2); the
    integrated methods (Section 4: pooling, Dempster, cautious, EVA) combine
    the leaf counts directly and take no aggregate.

    References
    ----------
    Busch, J., Kulessa, M., Loza Mencia, E. and Blockeel, H. (2021).
    Combining predictions under uncertainty: the case of random decision
    trees. Discovery Science 2021.

    Examples
    --------
    >>> parse_combiner("vote")
    ('probability', 'vote')
    >>> parse_combiner("laplace:vote")
    ('laplace', 'vote')
    """
    record = _combiner(combiner)
    return record.method, record.aggregate


def _combiner(combiner):
    """The :class:`Combiner` record of a combiner name (see :func:`parse_combiner`)."""
    if not isinstance(combiner, str):
        raise ValueError(f"`combiner` must be a string such as 'average' or 'eva'; got {combiner!r}.")
    if combiner in COMBINERS:
        return COMBINERS[combiner]
    method, _, suffix = combiner.partition(":")
    return _method_record(method, suffix or None)


def _method_record(method, aggregate):
    """The record of ``method`` with ``aggregate`` checked (None: ``"average"`` for the scoring methods)."""
    if method not in _METHODS:
        raise ValueError(
            f"Unknown combination method {method!r}. Choose one of {list(_METHODS)} "
            f"(or a classifier shortcut {sorted(COMBINERS)})."
        )
    record = _METHODS[method]
    if method in SCORE_METHODS:
        if aggregate is None:
            return record
        if aggregate not in AGGREGATES:
            raise ValueError(
                f"`aggregate` must be 'average' or 'vote' for method {method!r}; got {aggregate!r}."
            )
        return record.aggregated(aggregate)
    if aggregate is not None:
        raise ValueError(
            f"Combiner {method!r} combines the leaves directly; an aggregate (':average', ':vote') applies only to "
            f"{list(SCORE_METHODS)}. Leave it as None (got {aggregate!r})."
        )
    return record


def decision_threshold(method: str, aggregate: str | None = None) -> float:
    """Threshold of the binary score of a method (positive class iff score >= threshold).

    Parameters
    ----------
    method : str
        A combination method (see :func:`combine_leaves`).
    aggregate : {"average", "vote"} or None, default None
        The aggregate of a per-leaf scoring method; None means ``"average"``
        for those and is required for the integrated methods.

    Returns
    -------
    float
        0.5 for scores in [0, 1] (probability, Laplace, confidence bounds,
        pooling, every vote); 0.0 for signed scores (plausibility averaging,
        Dempster, cautious, EVA).

    Raises
    ------
    ValueError
        Unknown method or aggregate.

    Notes
    -----
    Busch et al. (2021) design every leaf score so that its sign gives the
    predicted class (Section 3.1); h_vote is the mean of 0-1 votes (Section
    3.2), so its neutral point, like that of probabilities, is 1/2, while the
    signed scores (plausibility pi+ - pi-, m({1}) - m({0}) of Dempster and
    cautious, the EVA log-odds) are neutral at 0.

    References
    ----------
    Busch, J., Kulessa, M., Loza Mencia, E. and Blockeel, H. (2021).
    Combining predictions under uncertainty: the case of random decision
    trees. Discovery Science 2021.

    Examples
    --------
    >>> decision_threshold("eva"), decision_threshold("probability", "average")
    (0.0, 0.5)
    """
    return _method_record(method, aggregate).threshold


def _check_counts(counts):
    if isinstance(counts, _LeafRows):
        return counts
    arr = check_counts(counts, name="counts", keep_integers=True)
    if arr.ndim != 3:
        raise ValueError(
            f"`counts` must have shape (n_samples, n_trees, n_classes); got shape {arr.shape}. "
            "For one sample use counts[None]."
        )
    n_samples, n_trees, n_classes = arr.shape
    if n_samples == 0:
        raise ValueError("`counts` has no samples (axis 0 is empty).")
    if n_trees == 0:
        raise ValueError("`counts` has no trees (axis 1 is empty).")
    if n_classes < 2:
        raise ValueError(f"`counts` must have at least two classes on its last axis; got {n_classes}.")
    if arr.dtype.kind in "iu" and arr.max() > _LARGE_COUNT:
        # beyond the exact integer range of the count tables: counts as floats, leaf by leaf
        if arr.max() > 2**53:
            raise ValueError(
                f"`counts` contains a value ({arr.max()}) above 2**53, which float64 cannot hold exactly; "
                "rescale the counts (the combiners only use their ratios and sizes)."
            )
        arr = arr.astype(np.float64)
    return arr


def _check_class_prior(class_prior, n_classes):
    if class_prior is None:
        return np.full(n_classes, 1.0 / n_classes)
    p = np.asarray(class_prior, dtype=np.float64)
    if p.shape != (n_classes,):
        raise ValueError(f"`class_prior` must have one entry per class ({n_classes}); got shape {p.shape}.")
    if not np.all(np.isfinite(p)) or np.any(p <= 0) or np.any(p >= 1):
        raise ValueError(
            f"`class_prior` entries must lie in (0, 1) (a class absent from training has no prior); got {p.tolist()}."
        )
    if abs(p.sum() - 1.0) > 1e-6:
        raise ValueError(f"`class_prior` must sum to 1; got sum {p.sum()!r}.")
    return p


_LARGE_COUNT = 1 << 31

#: Values of ``compatibility``: None (dstk's arithmetic) or the code whose arithmetic is reproduced.
COMPATIBILITY = (None, "busch2021")

#: The singleton clamp of Busch et al.'s code (their ``1e-5``).
_BUSCH2021_FLOOR = 1e-5


@dataclass(frozen=True)
class _Arithmetic:
    """The rounding conventions of a combination; the public switch is ``compatibility``.

    ``floor``: the authors' singleton clamp, with their balanced pairwise
    reduction (Dempster, cautious; two classes).  ``reference_leaves``: the
    plausibility leaves with the authors' bisection and order of operations
    (two classes).  ``eva_prior``: ``"log"`` subtracts (T - 1) log P(y) (the
    Bayes-consistent accumulation), ``"reference"`` (T - 1) P(y) as the
    authors' code.  ``rescale_above``: scale plausibility-leaf counts whose
    larger member exceeds it down to it first (the authors' 537 comes with
    ``reference_leaves``).  ``tree_order``: means summed in tree order rather
    than in fixed point.
    """

    floor: float | None = None
    reference_leaves: bool = False
    eva_prior: str = "log"
    rescale_above: float | None = None
    tree_order: bool = False

    @property
    def exact_mean(self):
        """Whether means over trees are accumulated in fixed point (equal evidence, bit-equal means)."""
        return not (
            self.tree_order
            or self.reference_leaves
            or self.eva_prior == "reference"
            or self.floor is not None
        )


def _arithmetic(compatibility, method, n_classes):
    """The :class:`_Arithmetic` of ``compatibility`` for a combination method and number of classes."""
    if compatibility not in COMPATIBILITY:
        raise ValueError(
            f"`compatibility` must be None (dstk's arithmetic) or 'busch2021' (the arithmetic of Busch et "
            f"al.'s code); got {compatibility!r}."
        )
    if compatibility is None:
        return _Arithmetic()
    # the numerical conventions of the authors' code (github.com/olfub/RDT-Uncertainty,
    # prediction/prediction_methods.py and prediction/aggregation.py)
    binary = n_classes == 2
    return _Arithmetic(
        floor=_BUSCH2021_FLOOR if binary and method in ("dempster", "cautious") else None,
        reference_leaves=binary and method in ("plausibility", "dempster", "cautious"),
        eva_prior="reference" if method == "eva" else "log",
        tree_order=True,
    )


def _check_arithmetic(arithmetic, method, n_classes, model):
    """Reject conventions that the reproduced code never combines (private callers and tests)."""
    binary = n_classes == 2
    if arithmetic.floor is not None:
        if method not in ("dempster", "cautious") or not binary:
            raise ValueError("The singleton floor applies only to Dempster and cautious with two classes.")
        if not 0.0 < arithmetic.floor < 0.5:
            raise ValueError(f"The singleton floor must lie in (0, 0.5); got {arithmetic.floor!r}.")
    if arithmetic.reference_leaves:
        if method not in ("plausibility", "dempster", "cautious") or not binary:
            raise ValueError(
                "The reference plausibility leaves apply only to the plausibility leaf model of two classes "
                "(combiners 'plausibility', 'dempster' and 'cautious')."
            )
        if method != "plausibility" and (arithmetic.floor is None or model not in (None, "plausibility")):
            raise ValueError(
                "compatibility='busch2021' reproduces the authors' clamped pairwise reduction of plausibility "
                f"leaf masses; their code has no other leaf model (got model={model!r})."
            )
    if arithmetic.eva_prior not in ("log", "reference") or (
        arithmetic.eva_prior != "log" and method != "eva"
    ):
        raise ValueError(f"The EVA prior term applies only to 'eva'; got {arithmetic.eva_prior!r}.")
    if arithmetic.rescale_above is not None and method not in ("plausibility", "dempster", "cautious"):
        raise ValueError("`rescale_above` applies only to the plausibility leaf model.")


class _LeafRows:
    """The leaves reached by a batch of samples as keys into distinct leaf-count rows.

    ``keys`` (n_samples, n_trees) numbers the leaves; ``rows`` (n_rows, K)
    holds the class counts of each number, so that any per-leaf quantity is
    evaluated once per row and looked up through the keys
    (:func:`_leaf_table`).  Built from a count array by hashing its count
    vectors (:func:`_count_rows`, linear in samples x trees whatever the
    counts) or, by :class:`RandomDecisionTreesClassifier`, from the nodes of
    its trees without forming the counts of every leaf.
    """

    def __init__(self, keys, rows, shape, cache=None):
        self.keys = keys
        self.rows = rows
        self.shape = shape
        self.dtype = np.dtype(np.float64)
        # per-leaf tables already evaluated, shared by the batches of one prediction
        self.cache = {} if cache is None else cache
        self.n_cached_rows = 0

    def counts_of(self, i, t):
        return self.rows[self.keys[i, t]]


def _count_rows(counts):
    """``_LeafRows`` of a validated count array (n_samples, n_trees, K)."""
    n_samples, n_trees, n_classes = counts.shape
    flat = np.ascontiguousarray(counts.reshape(-1, n_classes))
    if flat.dtype.kind == "f":
        # the bit patterns of the float counts (+0.0 for -0.0, so that equal counts share a row)
        bits = (flat.astype(np.float64) + 0.0).view(np.int64)
    else:
        bits = flat.astype(np.int64, copy=False)
    keys, first = _tables.distinct_row_keys(np.ascontiguousarray(bits))
    return _LeafRows(keys.reshape(n_samples, n_trees), flat[first].astype(np.float64), counts.shape)


def _leaf_table(leaves, function, name=None):
    """Return ``(keys, table)`` with ``table[keys[i, t]] = function(counts of leaf (i, t))``.

    ``function`` maps float count rows (m, K) to rows (m, width); it is
    evaluated once per distinct count vector.  ``name`` (hashable) identifies
    the function so that batches of one prediction share the evaluated rows.
    """
    if name is not None and name in leaves.cache:
        table = leaves.cache[name]
        missing = leaves.rows.shape[0] - table.shape[0]
        if missing > 0:  # rows appended for this batch only
            extra = np.asarray(function(leaves.rows[table.shape[0] :]), dtype=np.float64)
            table = np.concatenate([table, extra.reshape(missing, -1)])
        return leaves.keys, table
    n_base = leaves.n_cached_rows or leaves.rows.shape[0]
    table = np.asarray(function(leaves.rows), dtype=np.float64).reshape(leaves.rows.shape[0], -1)
    if name is not None:
        leaves.cache[name] = table[:n_base]
    return leaves.keys, table


def _mean_over_trees(keys, table, exact):
    """Mean over trees of the leaf rows; ``exact``: accumulated in fixed point (order-free, see mean_rows_exact)."""
    if not exact:
        return _tables.mean_rows(keys, table)
    finite = table[np.isfinite(table)]
    largest = float(np.abs(finite).max()) if finite.size else 0.0
    # largest |sum| below 2**62: scale = 2**(62 - ceil(log2(n_trees * largest + 1)))
    bound = keys.shape[1] * largest + 1.0
    scale = 2.0 ** (62 - int(np.ceil(np.log2(bound))))
    return _tables.exact_mean_rows(keys, table, scale)


def _distribution_rows(c, method):
    total = c.sum(axis=1, keepdims=True)
    n_classes = c.shape[1]
    if method == "laplace":
        return (c + 1.0) / (total + n_classes)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, c / np.where(total > 0, total, 1.0), 1.0 / n_classes)


def _binary_score_rows(c, method, rescale_above):
    """Per-leaf class-1 score and its neutral point, for rows c = [n-, n+]."""
    positives, negatives = c[:, 1], c[:, 0]
    if method in ("probability", "laplace"):
        return _distribution_rows(c, method)[:, 1], 0.5
    if method == "confidence_bounds":
        return leaf_confidence_bound(positives, negatives), 0.5
    return leaf_plausibility_score(positives, negatives, rescale_above=rescale_above), 0.0


def _vote_rows(scores):
    """Vote shares of per-leaf class scores (m, K): the argmax, ties split evenly."""
    best = scores.max(axis=1, keepdims=True)
    winners = scores == best
    return winners / winners.sum(axis=1, keepdims=True)


def _plausibility_mass_rows(c, rescale_above, reference_leaves=False):
    if reference_leaves:
        return reference_plausibility_mass_rows(c, rescale_above)
    return leaf_plausibility_mass(c[:, 1], c[:, 0], rescale_above=rescale_above)


_SMALLEST_FRAME_MASS = 2.0**-1000


def _representable_plausibility_rows(c):
    """Plausibility leaf masses ``[m({0}), m({1}), m(frame)]`` with m(frame) representable.

    m(frame) of the plausibility model falls like 2**-n for a pure leaf of n
    samples and is 0 in float64 beyond about 1,075 samples, which would make
    the leaf dogmatic (the cautious rule then has no weights, and two such
    leaves of opposite classes are in total conflict).  For a leaf whose
    m(frame) is below 2**-1000, the counts are divided by the smallest power
    of two that brings it above (the class proportions are kept exactly;
    fractional counts are a valid input of the model).  Every other leaf is
    evaluated on its own counts.
    """
    masses = leaf_plausibility_mass(c[:, 1], c[:, 0])[:, 1:]
    small = np.flatnonzero(masses[:, -1] < _SMALLEST_FRAME_MASS)
    divisor = 1.0
    while small.size:
        divisor *= 2.0
        retry = leaf_plausibility_mass(c[small, 1] / divisor, c[small, 0] / divisor)[:, 1:]
        fixed = retry[:, -1] >= _SMALLEST_FRAME_MASS
        masses[small[fixed]] = retry[fixed]
        small = small[~fixed]
    return masses


def _idm_rows(c, strength):
    denominator = c.sum(axis=1, keepdims=True) + strength
    return np.concatenate([c / denominator, strength / denominator], axis=1)


def _log_commonality_rows(table):
    """[log q({0}), ..., log q({K-1}), log m(frame)] of mass rows [m({0}), ..., m({K-1}), m(frame)]."""
    commonality = table.copy()
    commonality[:, :-1] += table[:, -1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(commonality)


def _conjunctive_weight_rows(table):
    """[w({0}), ..., w({K-1}), w(empty)] of non-dogmatic mass rows (Denoeux 2008, see cautious_closed_form)."""
    n_classes = table.shape[1] - 1
    vacuous = table[:, -1:]
    commonality = table[:, :-1] + vacuous
    with np.errstate(divide="ignore", invalid="ignore"):
        weights = vacuous / commonality
        log_empty = np.log(commonality).sum(axis=1) - (n_classes - 1) * np.log(vacuous[:, 0])
    return np.concatenate([weights, np.exp(log_empty)[:, None]], axis=1)


def _check_leaf_model(model, n_classes, prior_strength):
    if model is None:
        model = "plausibility" if n_classes == 2 else "imprecise_dirichlet"
    if model not in ("plausibility", "imprecise_dirichlet"):
        raise ValueError(f"`model` must be 'plausibility' or 'imprecise_dirichlet'; got {model!r}.")
    if model == "plausibility" and n_classes != 2:
        raise ValueError(
            f"The plausibility leaf model (Shaker & Huellermeier) is defined for two classes; got {n_classes}. "
            "Use model='imprecise_dirichlet' for multi-class counts."
        )
    if model == "plausibility" and prior_strength is not None:
        raise ValueError(
            "`prior_strength` applies only to the imprecise Dirichlet leaf model (model='imprecise_dirichlet'); "
            "the plausibility leaf model has no prior strength."
        )
    try:
        strength = 1.0 if prior_strength is None else float(prior_strength)
    except (TypeError, ValueError):
        raise ValueError(f"`prior_strength` must be a positive number; got {prior_strength!r}.") from None
    if not (strength > 0 and np.isfinite(strength)):
        raise ValueError(
            f"`prior_strength` (s of the imprecise Dirichlet model) must be > 0; got {prior_strength!r}."
        )
    return model, strength


def _combine(
    counts,
    combiner,
    *,
    class_prior=None,
    smoothing=None,
    model=None,
    prior_strength=None,
    compatibility=None,
    arithmetic=None,
    want_mass=False,
):
    """The one option-handling path of the combiners.

    Returns a dict with 'score' and, where defined, 'proba', 'mass'
    (compact), 'normalized', 'average_mass', 'conflict_rows'.
    ``arithmetic`` (an :class:`_Arithmetic`, private) overrides the
    conventions that ``compatibility`` selects.
    """
    record = _combiner(combiner)
    counts = _check_counts(counts)
    n_classes = counts.shape[2]
    leaves = counts if isinstance(counts, _LeafRows) else _count_rows(counts)
    if arithmetic is None:
        arithmetic = _arithmetic(compatibility, record.method, n_classes)
    if record.binary_only and n_classes != 2:
        raise ValueError(
            f"Combiner {record.method!r} is defined for two classes only (it scores a leaf by positive versus "
            f"negative counts); got {n_classes} classes. Use "
            f"{', '.join(repr(name) for name, r in COMBINERS.items() if not r.binary_only)}, or a one-vs-rest "
            "reduction."
        )
    given = {
        "model": model,
        "class_prior": class_prior,
        "smoothing": smoothing,
        "prior_strength": prior_strength,
    }
    for option, value in given.items():
        if value is not None and option not in record.options:
            takers = [m for m, r in _METHODS.items() if option in r.options]
            raise ValueError(
                f"`{option}` applies only to "
                + ("the imprecise Dirichlet leaf model of " if option == "prior_strength" else "")
                + f"the {' and '.join(repr(m) for m in takers)} combiner{'s' if len(takers) > 1 else ''}."
            )
    _check_arithmetic(arithmetic, record.method, n_classes, model)
    options = {option: given[option] for option in record.options}
    return record.implementation(leaves, record, arithmetic, want_mass, options)


def _scored_leaves(leaves, record, arithmetic, want_mass, options):
    """Per-leaf scores averaged or voted over the trees (Busch et al. 2021, sections 3.1-3.2)."""
    method, aggregate = record.method, record.aggregate
    rescale_above, reference_leaves = arithmetic.rescale_above, arithmetic.reference_leaves
    # equal evidence gives bit-equal means (the authors' arithmetic sums in tree order)
    exact = arithmetic.exact_mean
    result = {}
    if leaves.shape[2] != 2:
        if aggregate == "vote":
            keys, table = _leaf_table(
                leaves, lambda c: _vote_rows(_distribution_rows(c, method)), ("vote", method)
            )
        else:
            keys, table = _leaf_table(
                leaves, lambda c: _distribution_rows(c, method), ("distribution", method)
            )
        score = _mean_over_trees(keys, table, exact)
        result["score"] = score
        result["proba"] = score
        return result

    def rows(c):
        if reference_leaves:  # the authors' tree score s+ - s-
            masses = reference_plausibility_mass_rows(c, rescale_above)
            score, neutral = masses[:, 2] - masses[:, 1], 0.0
        else:
            score, neutral = _binary_score_rows(c, method, rescale_above)
        if aggregate == "vote":
            return 0.5 + 0.5 * np.sign(score - neutral)
        return score

    keys, table = _leaf_table(
        leaves, rows, ("binary score", method, aggregate, rescale_above, reference_leaves)
    )
    score = _mean_over_trees(keys, table, exact)[:, 0]
    neutral = 0.0 if method == "plausibility" else 0.5
    proba1 = score if (aggregate == "vote" or neutral == 0.5) else 0.5 * (1.0 + score)
    result["score"] = score
    result["proba"] = np.stack([1.0 - proba1, proba1], axis=1)
    if method == "plausibility" and aggregate == "average" and want_mass:
        keys, table = _leaf_table(
            leaves,
            lambda c: _plausibility_mass_rows(c, rescale_above, reference_leaves),
            ("plausibility mass", rescale_above, reference_leaves),
        )
        result["average_mass"] = _mean_over_trees(keys, table, exact)
    return result


def _pooled_leaves(leaves, record, arithmetic, want_mass, options):
    """Counts summed over the trees, then class frequencies (Busch et al. 2021, section 4.0.1)."""
    n_classes = leaves.shape[2]
    keys, table = _leaf_table(leaves, lambda c: c, "counts")
    pooled = _tables.sum_rows(keys, table)
    total = pooled.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        proba = np.where(total > 0, pooled / np.where(total > 0, total, 1.0), 1.0 / n_classes)
    return {"proba": proba, "score": proba[:, 1] if n_classes == 2 else proba}


def _evidence_accumulation(leaves, record, arithmetic, want_mass, options):
    """Sum over the trees of log (c_k + s) / (N + K s), less (T - 1) log P(y) (Busch et al. 2021, 4.0.4)."""
    _n_samples, n_trees, n_classes = leaves.shape
    prior_values = _check_class_prior(options["class_prior"], n_classes)
    smoothing = options["smoothing"]
    try:
        s = 0.1 if smoothing is None else float(smoothing)
    except (TypeError, ValueError):
        raise ValueError(f"`smoothing` must be a positive number; got {smoothing!r}.") from None
    if not (s > 0 and np.isfinite(s)):
        raise ValueError(f"`smoothing` must be > 0 (the authors use 0.1); got {smoothing!r}.")
    prior_term = np.log(prior_values) if arithmetic.eva_prior == "log" else prior_values
    keys, table = _leaf_table(
        leaves,
        lambda c: np.log(c + s) - np.log(c.sum(axis=1, keepdims=True) + n_classes * s),
        ("eva", s),
    )
    scores = _mean_over_trees(keys, table, arithmetic.exact_mean) * n_trees - (n_trees - 1) * prior_term
    shifted = scores - scores.max(axis=1, keepdims=True)
    proba = np.exp(shifted)
    proba /= proba.sum(axis=1, keepdims=True)
    return {"proba": proba, "score": scores[:, 1] - scores[:, 0] if n_classes == 2 else scores}


def _leaf_mass_table(leaves, arithmetic, model, strength):
    """``(keys, table)`` of the leaf masses [m({0}), ..., m({K-1}), m(frame)] of the leaf model."""
    rescale_above, reference_leaves = arithmetic.rescale_above, arithmetic.reference_leaves
    if model != "plausibility":
        return _leaf_table(leaves, lambda c: _idm_rows(c, strength), ("imprecise_dirichlet", strength))
    if reference_leaves or rescale_above is not None:
        return _leaf_table(
            leaves,
            lambda c: _plausibility_mass_rows(c, rescale_above, reference_leaves)[:, 1:],
            ("plausibility leaf mass", rescale_above, reference_leaves),
        )
    return _leaf_table(leaves, _representable_plausibility_rows, "plausibility mass, representable")


def _combined_leaf_masses(leaves, record, arithmetic, want_mass, options):
    """Dempster's (unnormalised) or the cautious combination of the leaf masses (Busch et al. 2021, 4.0.2-3)."""
    method = record.method
    n_classes = leaves.shape[2]
    model, strength = _check_leaf_model(options["model"], n_classes, options["prior_strength"])
    keys, table = _leaf_mass_table(leaves, arithmetic, model, strength)
    floor = arithmetic.floor
    if floor is None:
        if method == "cautious":
            bad_rows = np.flatnonzero(table[:, -1] <= 0.0)
            if bad_rows.size:
                i, t = np.argwhere(np.isin(keys, bad_rows))[0]
                raise DogmaticError(
                    f"The cautious rule needs non-dogmatic leaf masses (m(frame) > 0), but the leaf of sample {i} "
                    f"in tree {t} (counts {leaves.counts_of(i, t).tolist()}) has m(frame) = 0 in floating point. Use "
                    "model='imprecise_dirichlet', whose leaf masses keep m(frame) > 0."
                )
            mass, normalized = _kernels.cautious_closed_form(keys, _conjunctive_weight_rows(table))
        else:
            mass, normalized = _kernels.dempster_closed_form(keys, _log_commonality_rows(table))
    else:
        table4 = np.concatenate([np.zeros((table.shape[0], 1)), table], axis=1)
        if method == "cautious":
            mass = _kernels.cautious_pairwise_floor(keys, table4, floor)
        else:
            mass = _kernels.dempster_pairwise_floor(keys, table4, floor)
        nonempty = mass[:, 1:]
        total = nonempty.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            normalized = np.where(total > 0, nonempty / np.where(total > 0, total, 1.0), np.nan)
    result = {"mass": mass, "normalized": normalized}
    result["score"] = mass[:, 2] - mass[:, 1] if n_classes == 2 else mass[:, 1:-1]
    if np.isnan(normalized).any():
        result["conflict_rows"] = np.flatnonzero(np.isnan(normalized).any(axis=1))
    return result


_LEAF_MASS_OPTIONS = ("model", "prior_strength")

#: The combination methods (Busch et al. 2021): the per-leaf scoring methods (section 3.1, aggregated by
#: the mean or the vote of section 3.2), then the integrated methods (section 4).
_METHODS = {
    "probability": Combiner("probability", "average", (), False, 0.5, _scored_leaves),
    "laplace": Combiner("laplace", "average", (), False, 0.5, _scored_leaves),
    "plausibility": Combiner("plausibility", "average", (), True, 0.0, _scored_leaves),
    "confidence_bounds": Combiner("confidence_bounds", "average", (), True, 0.5, _scored_leaves),
    "pooling": Combiner("pooling", None, (), False, 0.5, _pooled_leaves),
    "dempster": Combiner("dempster", None, _LEAF_MASS_OPTIONS, False, 0.0, _combined_leaf_masses),
    "cautious": Combiner("cautious", None, _LEAF_MASS_OPTIONS, False, 0.0, _combined_leaf_masses),
    "eva": Combiner("eva", None, ("class_prior", "smoothing"), False, 0.0, _evidence_accumulation),
}
SCORE_METHODS = tuple(method for method, record in _METHODS.items() if record.aggregate is not None)
INTEGRATED_METHODS = tuple(method for method, record in _METHODS.items() if record.aggregate is None)

#: The combiner names accepted by the classifier, as :class:`Combiner` records (``method``, ``aggregate``,
#: the options it takes, its implementation).
COMBINERS = {
    "average": _METHODS["probability"],
    "vote": _METHODS["probability"].aggregated("vote"),
    "voting": _METHODS["probability"].aggregated("vote"),
    "laplace": _METHODS["laplace"],
    "plausibility": _METHODS["plausibility"],
    "confidence_bounds": _METHODS["confidence_bounds"],
    "pooling": _METHODS["pooling"],
    "dempster": _METHODS["dempster"],
    "cautious": _METHODS["cautious"],
    "eva": _METHODS["eva"],
}


_OPTIONS_DOC = """
    class_prior : array_like (n_classes,), optional
        EVA only: the class prior P(y) (the classifier passes its training
        class frequencies).  Default: uniform.
    smoothing : float, optional
        EVA only: pseudo-count added to every class count of a leaf
        (default 0.1, the authors' value).
    model : {"plausibility", "imprecise_dirichlet"} or None
        Dempster / cautious: the leaf mass function.  Default "plausibility"
        for two classes (Busch et al.), "imprecise_dirichlet" otherwise:
        m({k}) = c_k / (N + s), m(frame) = s / (N + s).
    prior_strength : float, optional
        The s of the imprecise Dirichlet leaf model (default 1.0); only
        with that model.
    compatibility : {None, "busch2021"}, default None
        None: dstk's arithmetic: the rules exactly (closed forms), leaf
        models to machine precision, means over the trees accumulated in
        fixed point so that equal evidence gives bit-equal scores, and EVA
        with the Bayes-consistent prior term (T - 1) log P(y).
        ``"busch2021"``: the arithmetic of Busch et al.'s code, so that their
        scores are reproduced bit for bit (see Notes of
        :func:`combine_leaves`).
"""

_COMPATIBILITY_NOTES = """
    With ``compatibility="busch2021"`` the combiners repeat the
    floating-point operations of Busch et al.'s code: means summed in tree
    order; for two classes the plausibility leaves found by bisection with
    scipy's default tolerances on the authors' brackets (accurate to about
    1e-12), counts whose larger member exceeds 537 scaled down to 537 first,
    and s+, s- and u formed in their order of operations (plausibility,
    Dempster, cautious); Dempster and cautious combined by a balanced
    pairwise reduction in which, before each level and on the result, any
    singleton mass above 1 - 1e-5 is set to 1 - 1e-5 with m(frame) = 1e-5,
    each cautious pair being rebuilt by the same clamped reduction of its
    three simple mass functions; EVA subtracting (T - 1) P(y) instead of
    (T - 1) log P(y) (the same ranking for two classes, another threshold).
    The results differ from dstk's in the last digits, which only shows
    where scores tie in exact arithmetic: the cautious rule on small leaves,
    whose many exact ties the authors' rounding breaks.
"""


def combine_leaves(
    counts: ArrayLike,
    *,
    combiner: str = "average",
    class_prior: ArrayLike | None = None,
    smoothing: float | None = None,
    model: str | None = None,
    prior_strength: float | None = None,
    compatibility: str | None = None,
) -> np.ndarray:
    """Combine the leaf counts of a tree ensemble into one score per sample.

    Parameters
    ----------
    counts : array_like, shape (n_samples, n_trees, n_classes)
        Class counts of the leaf reached by each sample in each tree
        (non-negative; integer or weighted).
    combiner : str, default "average"
        A name in :data:`COMBINERS` (``"average"``, ``"vote"``, ``"laplace"``,
        ``"plausibility"``, ``"confidence_bounds"``, ``"pooling"``,
        ``"dempster"``, ``"cautious"``, ``"eva"``), or ``"<method>:<aggregate>"``
        for a per-leaf method with an explicit aggregate (e.g. ``"laplace:vote"``,
        ``"plausibility:vote"``).  The per-leaf methods are ``"probability"``,
        ``"laplace"``, ``"plausibility"`` and ``"confidence_bounds"``, aggregated
        by ``"average"`` (the default) or ``"vote"``; the integrated combiners
        ``"pooling"``, ``"dempster"``, ``"cautious"`` and ``"eva"`` take no
        aggregate.
    %(options)s

    Returns
    -------
    ndarray of float64
        Two classes: shape (n_samples,), a score of class 1 whose ordering is
        the combiner's ranking; class 1 is predicted iff the score is at or
        above the combiner's neutral point (0.5 for probabilities and votes, 0
        for plausibility, Dempster, cautious and EVA):

        * probability / Laplace / confidence-bounds average, pooling: P(class 1)
          in [0, 1];
        * plausibility average: mean of pi+ - pi- in [-1, 1];
        * any vote: 0.5 + (#trees for class 1 - #trees for class 0) / (2 T),
          trees whose score sits exactly at the neutral point count for neither;
        * Dempster, cautious: m({1}) - m({0}) of the unnormalised combination;
        * EVA: sum_t log p_t(1) - sum_t log p_t(0) - (T - 1)(log P(1) - log P(0)).

        More classes: shape (n_samples, n_classes), one score per class
        (larger is better): mean leaf distribution, vote fractions (ties split),
        pooled frequencies, unnormalised m({k}) (Dempster, cautious) or the EVA
        log-posterior up to a constant.

    Raises
    ------
    ValueError
        Bad counts (wrong shape, negative, NaN), unknown combiner or aggregate,
        options given to a combiner that does not use them, or a binary-only
        combiner on multi-class counts.

    Notes
    -----
    Busch et al. (2021): probability and Laplace (section 3.1.1), plausibility
    (3.1.2), confidence bounds (3.1.3), average and vote h_avg, h_vote (3.2),
    pooling g_pool (4.0.1), Dempster g_dempster (4.0.2), cautious (4.0.3), EVA
    g_eva (4.0.4).  EVA with +smoothing per count:
    p_t(k) = (c_tk + s) / (N_t + K s) and
    score_k = sum_t log p_t(k) - (T - 1) log P(k), the log of
    P(k) prod_t P(k | leaf_t) / P(k) under class-conditional independence.
    Dempster and cautious have closed forms because the leaf masses only
    have singletons and the frame as focal sets: the conjunctive rule
    multiplies commonalities, and the cautious rule takes the minimum of
    the conjunctive weights w({k}) = m(frame) / q({k}) and
    w(empty) = prod_k q({k}) / m(frame)^(K-1) (Denoeux 2008).  The
    plausibility leaf mass m(frame) falls like 2**-n for a pure leaf of n
    samples; a leaf whose m(frame) would be below 2**-1000 is evaluated on
    its counts divided by the smallest power of two that keeps it
    representable (the class proportions exactly), so that no leaf is
    dogmatic.  The cautious rule is idempotent: it treats the trees, grown
    on one training sample, as one body of evidence, so a sample's combined
    mass is set by its most confident leaf of each class and the other
    trees' leaves do not add up; Dempster's rule and EVA accumulate every
    tree and rank unseen samples better.

    %(compatibility)s
    References
    ----------
    Busch, J., Kulessa, M., Loza Mencia, E. and Blockeel, H. (2021).
    Combining predictions under uncertainty: the case of random decision
    trees. Discovery Science 2021.
    Denoeux, T. (2008). Conjunctive and disjunctive combination of belief
    functions induced by nondistinct bodies of evidence. Artificial
    Intelligence 172, 234-264.

    Examples
    --------
    >>> counts = [[[0, 1], [0, 1], [1, 0]]]          # one sample, three leaves [n-, n+]
    >>> combine_leaves(counts, combiner="average").round(6)
    array([0.666667])
    >>> combine_leaves(counts, combiner="dempster").round(6)
    array([0.222222])
    >>> combine_leaves(counts, combiner="eva", class_prior=[0.7, 0.3]).round(6)
    array([4.092491])
    """
    return _combine(
        counts,
        combiner,
        class_prior=class_prior,
        smoothing=smoothing,
        model=model,
        prior_strength=prior_strength,
        compatibility=compatibility,
    )["score"]


def combine_leaves_proba(
    counts: ArrayLike,
    *,
    combiner: str = "average",
    class_prior: ArrayLike | None = None,
    smoothing: float | None = None,
    model: str | None = None,
    prior_strength: float | None = None,
    compatibility: str | None = None,
) -> np.ndarray:
    """Class probabilities from the combined leaves.

    Parameters
    ----------
    counts : array_like, shape (n_samples, n_trees, n_classes)
        Class counts of the leaf reached by each sample in each tree.
    combiner : str, default "average"
        A combiner, as for :func:`combine_leaves`.
    %(options)s

    Returns
    -------
    ndarray of float64, shape (n_samples, n_classes)
        Rows sum to one.  Probability / Laplace / confidence-bounds averages,
        votes and pooling: the combined score itself.  Plausibility average:
        the pignistic probability of the average leaf mass, (1 + score) / 2.
        Dempster and cautious: the pignistic probability of the normalised
        combined mass, (m({k}) + m(frame) / K) / (1 - m(empty)).  EVA: softmax
        of the per-class scores.

    Raises
    ------
    ValueError
        As :func:`combine_leaves`.
    TotalConflictError
        Dempster / cautious where all combined mass is on the empty set.

    Notes
    -----
    See :func:`combine_leaves`; the pignistic transform is Smets' BetP.

    References
    ----------
    Busch et al. (2021), see :func:`combine_leaves`.

    Examples
    --------
    >>> combine_leaves_proba([[[1, 1], [0, 3]]], combiner="pooling")
    array([[0.2, 0.8]])
    """
    result = _combine(
        counts,
        combiner,
        class_prior=class_prior,
        smoothing=smoothing,
        model=model,
        prior_strength=prior_strength,
        compatibility=compatibility,
    )
    if "normalized" in result:
        _raise_on_total_conflict(result, "no probability can be formed; use combine_leaves for the scores")
        normalized = result["normalized"]
        n_classes = normalized.shape[1] - 1
        return normalized[:, :-1] + normalized[:, -1:] / n_classes
    return result["proba"]


def _raise_on_total_conflict(result, advice):
    if "conflict_rows" in result:
        row = int(result["conflict_rows"][0])
        raise TotalConflictError(
            f"The leaves of sample {row} are in total conflict (all combined mass on the empty set): {advice}."
        )


def _combine_leaves_to_mass_array(counts, *, combiner="dempster", normalize=True, **options):
    """Dense ``(n_samples, 2**n_classes)`` masses of :func:`combine_leaves_to_mass` (the array fast path).

    ``options``: the keyword options of :func:`_combine`.
    """
    if not (
        isinstance(normalize, (bool, np.bool_))
        or (isinstance(normalize, (int, np.integer)) and normalize in (0, 1))
    ):
        raise ValueError(f"`normalize` must be True or False; got {normalize!r}.")
    method, aggregate = parse_combiner(combiner)
    if method not in ("dempster", "cautious", "plausibility"):
        # the name the user wrote (a key of COMBINERS), not the internal (method, aggregate) pair
        name = next(
            (
                key
                for key, record in COMBINERS.items()
                if (record.method, record.aggregate) == (method, aggregate)
            ),
            method,
        )
        raise ValueError(
            f"Combiner {name!r} has no mass function (it scores the leaves); predict_mass and "
            "combine_leaves_to_mass need combiner='dempster', 'cautious' or 'plausibility' (averaged leaf "
            "masses). Use predict_proba for the other combiners."
        )
    if method == "plausibility" and aggregate not in (None, "average"):
        raise ValueError(
            "Only the average of plausibility leaf masses is a mass function (aggregate='average')."
        )
    result = _combine(counts, combiner, want_mass=True, **options)
    if method == "plausibility":
        compact = result["average_mass"]
        nonempty = compact[:, 1:]
    else:
        compact = result["mass"]
        nonempty = result["normalized"]
        if normalize:
            _raise_on_total_conflict(result, "use normalize=False to keep the mass of the empty set")
    n_classes = compact.shape[1] - 2
    if n_classes > _MAX_DENSE_CLASSES:
        raise FrameTooLargeError(
            f"A dense mass array over {n_classes} classes needs 2**{n_classes} entries per sample; use "
            "combine_leaves for per-class scores instead."
        )
    dense = np.zeros((compact.shape[0], 2**n_classes))
    if normalize:
        for k in range(n_classes):
            dense[:, 2**k] = nonempty[:, k]
        dense[:, -1] = nonempty[:, -1]
    else:
        dense[:, 0] = compact[:, 0]
        for k in range(n_classes):
            dense[:, 2**k] = compact[:, k + 1]
        dense[:, -1] = compact[:, -1]
    return dense


def combine_leaves_to_mass(
    counts: ArrayLike,
    *,
    combiner: str = "dempster",
    normalize: bool = True,
    classes: Sequence[Any] | None = None,
    model: str | None = None,
    prior_strength: float | None = None,
    compatibility: str | None = None,
) -> MassFunction:
    """Mass functions of the evidential combiners, one per sample.

    Parameters
    ----------
    counts : array_like, shape (n_samples, n_trees, n_classes)
        Class counts of the leaf reached by each sample in each tree.
    combiner : {"dempster", "cautious", "plausibility"}, default "dempster"
        ``"plausibility"`` (two classes) is the average of the leaf masses.
    normalize : bool, default True
        Divide by 1 - m(empty) and set m(empty) = 0 (Dempster's
        normalisation); False keeps the unnormalised result.
    classes : sequence, optional
        Labels of the classes in the order of the last axis of ``counts``;
        default ``range(n_classes)``.
    model, prior_strength, compatibility
        As for :func:`combine_leaves`.

    Returns
    -------
    MassFunction
        Batch shape ``(n_samples,)`` on ``Frame(classes)``; ``.to_array()`` is
        the dense ``(n_samples, 2**n_classes)`` array (index 0 the empty set,
        ``2**k`` the singleton {k}, the last index the frame).

    Raises
    ------
    ValueError
        A combiner without mass functions, ``classes`` of the wrong length, or
        bad input.
    FrameTooLargeError
        More than 16 classes.
    TotalConflictError
        ``normalize=True`` where all mass is on the empty set.

    Notes
    -----
    See :func:`combine_leaves`: the unnormalised conjunctive (Dempster) and
    cautious combinations of the leaf mass functions (Busch et al. 2021,
    sections 4.0.2 and 4.0.3; Denoeux 2008).

    References
    ----------
    Busch et al. (2021), see :func:`combine_leaves`.

    Examples
    --------
    >>> # by hand: m({1}) = 1 * 1 * 1/3 - 1/27 = 8/27, m({0}) = 1/9 - 1/27 = 2/27, m(frame) = 1/27
    >>> m = combine_leaves_to_mass([[[0, 1], [0, 1], [1, 0]]], combiner="dempster", normalize=False)
    >>> m.to_array().round(6)
    array([[0.592593, 0.074074, 0.296296, 0.037037]])
    """
    array = _combine_leaves_to_mass_array(
        counts,
        combiner=combiner,
        normalize=normalize,
        model=model,
        prior_strength=prior_strength,
        compatibility=compatibility,
    )
    n_classes = array.shape[-1].bit_length() - 1
    frame = Frame(tuple(range(n_classes)) if classes is None else tuple(classes))
    if len(frame) != n_classes:
        raise ValueError(
            f"`classes` has {len(frame)} labels but `counts` has {n_classes} classes on its last axis."
        )
    return MassFunction.from_array(array, frame, validate=False)


for _function in (combine_leaves, combine_leaves_proba):
    _function.__doc__ = (
        (_function.__doc__ or "")
        .replace("    %(options)s\n", _OPTIONS_DOC.lstrip("\n"))
        .replace("    %(compatibility)s\n", _COMPATIBILITY_NOTES.lstrip("\n") + "\n")
    )
