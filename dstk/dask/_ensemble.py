"""Tree ensembles on Dask: parallel fit of random decision trees, leaf counts and their combination."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import dask
import dask.array as da
import numpy as np

from .._validation import as_array, check_consistent_length, check_numeric_dtype, check_random_state
from ..core._frame import Frame
from ._blocks import blockwise_whole
from ._estimators import check_sample_chunks, map_samples
from ._mass import DaskMassFunction

if TYPE_CHECKING:
    from dstk.ensemble._random_trees import RandomDecisionTreesClassifier

__all__ = [
    "fit_random_trees",
    "leaf_counts",
    "combine_leaves",
    "combine_leaves_proba",
    "combine_leaves_to_mass",
]


def _as_numpy(values):
    if hasattr(values, "tocsr") and hasattr(values, "nnz"):
        return values  # the trees take sparse X as it is
    return np.asarray(values)


def _check_training_data(X, y):
    """Structural checks of ``X`` and ``y`` on the client (values are checked by ``fit`` in the tasks)."""
    if not isinstance(X, da.Array):
        X = as_array(X, "X", allow_sparse=True)
    if not isinstance(y, da.Array):
        y = as_array(y, "y")
    for values, name in ((X, "X"), (y, "y")):
        if values.ndim == 0:
            raise ValueError(f"`{name}` must be an array with one row per sample; got a scalar.")
    lengths = [values.shape[0] for values in (X, y)]
    if not any(np.isnan(length) for length in lengths):  # dask arrays of unknown length: fit checks them
        check_consistent_length(X, y, names=["X", "y"])
    return X, y


def _fit_part(X, y, params, n_estimators, random_state, estimator_type):
    part = estimator_type(**{**params, "n_estimators": n_estimators, "random_state": random_state})
    return part.fit(X, y)


def task_seeds(random_state: int | np.random.RandomState | None, n_tasks: int) -> np.ndarray:
    """The ``random_state`` of each fitting task: ``RandomState(random_state).randint(2**31 - 1, size=n_tasks)``."""
    return check_random_state(random_state).randint(0, np.iinfo(np.int32).max, size=n_tasks)


def fit_random_trees(
    estimator: RandomDecisionTreesClassifier, X: Any, y: Any, *, n_tasks: int | None = None
) -> RandomDecisionTreesClassifier:
    """Fit the trees of a :class:`~dstk.ensemble.RandomDecisionTreesClassifier` in parallel with Dask.

    The ``n_estimators`` trees are split into ``n_tasks`` groups; each group
    is fitted by one ``dask.delayed`` task (a copy of ``estimator`` with
    ``n_estimators`` set to the group size and its own ``random_state``) on
    whatever scheduler is active: a ``dask.distributed.Client`` spreads the
    tasks over the cluster's workers.  The groups are then concatenated into
    one fitted estimator.

    Parameters
    ----------
    estimator : RandomDecisionTreesClassifier
        Unfitted (it is not modified); its parameters are kept.
    X : array_like or dask.array.Array, shape (n_samples, n_features)
        Training features.  Every task needs all of them (random trees split
        on random training samples), so a dask array is gathered once into
        one task and shared by the others.
    y : array_like or dask.array.Array, shape (n_samples,)
    n_tasks : int, optional
        Number of fitting tasks (default: ``min(n_estimators, 2 * n_workers)``
        with a distributed client, else ``min(n_estimators, 4)``).

    Returns
    -------
    RandomDecisionTreesClassifier
        Fitted, with ``n_estimators`` trees; it pickles, predicts in memory
        and can be applied to dask arrays with :func:`leaf_counts`,
        :func:`dstk.dask.predict_proba` or :func:`dstk.dask.predict_mass`.

    Raises
    ------
    TypeError
        ``estimator`` is not a RandomDecisionTreesClassifier.
    DataTypeError
        ``X`` or ``y`` is None, or ``y`` a scipy sparse matrix.
    ValueError
        ``X`` or ``y`` ragged or a scalar, of different lengths;
        ``n_estimators`` not an integer >= 1, or ``n_tasks`` not an integer in
        [1, n_estimators]; plus the errors of
        :meth:`~dstk.ensemble.RandomDecisionTreesClassifier.fit` (raised by
        the tasks).

    Notes
    -----
    Deterministic given ``estimator.random_state`` and ``n_tasks``: task
    ``t`` uses ``random_state = task_seeds(random_state, n_tasks)[t]``.  The
    trees differ from an in-memory ``estimator.fit(X, y)`` (other seeds) but
    are drawn from the same distribution (Fan et al. 2003; Busch et al.
    2021).  The estimator grows trees with threads rather than joblib, so
    ``joblib``'s Dask backend does not apply; ``dask.delayed`` does.

    Examples
    --------
    >>> import numpy as np
    >>> from dstk.ensemble import RandomDecisionTreesClassifier
    >>> from dstk.dask import fit_random_trees
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = (X[:, 0] > 0).astype(int)
    >>> import dask
    >>> with dask.config.set(scheduler="synchronous"):
    ...     model = fit_random_trees(RandomDecisionTreesClassifier(n_estimators=10, random_state=0), X, y,
    ...                              n_tasks=3)
    >>> model.n_estimators, model.leaf_counts(X[:4]).shape
    (10, (4, 10, 2))
    """
    from ..ensemble._random_trees import RandomDecisionTreesClassifier

    if not isinstance(estimator, RandomDecisionTreesClassifier):
        raise TypeError(
            "`estimator` must be an (unfitted) dstk.ensemble.RandomDecisionTreesClassifier; got "
            f"{type(estimator).__name__}. Fit other estimators with their own `fit`."
        )
    n_estimators = estimator.n_estimators
    if isinstance(n_estimators, bool) or not isinstance(n_estimators, (int, np.integer)) or n_estimators < 1:
        raise ValueError(f"`n_estimators` must be an integer >= 1; got {n_estimators!r}.")
    if n_tasks is None:
        n_tasks = min(n_estimators, _default_tasks())
    if (
        isinstance(n_tasks, bool)
        or not isinstance(n_tasks, (int, np.integer))
        or not 1 <= n_tasks <= n_estimators
    ):
        raise ValueError(
            f"`n_tasks` must be an integer in [1, n_estimators = {n_estimators}]; got {n_tasks!r}."
        )
    X, y = _check_training_data(X, y)
    sizes = [len(group) for group in np.array_split(np.arange(n_estimators), n_tasks)]
    seeds = task_seeds(estimator.random_state, n_tasks)
    params = estimator.get_params()
    shared_X = dask.delayed(_as_numpy, pure=True)(X)
    shared_y = dask.delayed(_as_numpy, pure=True)(y)
    fit_part = dask.delayed(_fit_part, pure=True)
    tasks = [
        fit_part(shared_X, shared_y, params, size, int(seed), type(estimator))
        for size, seed in zip(sizes, seeds)
    ]
    parts = dask.compute(*tasks)
    merged = type(estimator).concatenate(parts)
    merged.set_params(random_state=estimator.random_state)
    return merged


def _default_tasks():
    try:
        from distributed import get_client

        return 2 * max(1, len(get_client().scheduler_info()["workers"]))
    except (ImportError, ValueError):
        return 4


def leaf_counts(estimator: RandomDecisionTreesClassifier, X: Any, *, rechunk: bool = False) -> da.Array:
    """``estimator.leaf_counts`` on a dask array of samples, chunk by chunk.

    Parameters
    ----------
    estimator : RandomDecisionTreesClassifier
        Fitted.
    X : dask.array.Array or array_like, shape (n_samples, n_features)
        Samples; only the sample axis may be chunked.
    rechunk : bool, default=False
        Merge a split feature axis instead of raising.

    Returns
    -------
    dask.array.Array of int64, shape (n_samples, n_estimators, n_classes)
        Same values as in memory, chunked like ``X`` on the sample axis.

    Notes
    -----
    ``counts[i, t, c]`` is the number of training samples of class c in the
    leaf of tree t reached by sample i: the leaf statistics w = (w+, w-) of
    Busch et al. (2021), Section 2.1.1, that the combiners turn into a
    prediction.

    References
    ----------
    Busch, J., Kulessa, M., Loza Mencia, E. and Blockeel, H. (2021).
    Combining predictions under uncertainty: the case of random decision
    trees. Discovery Science 2021.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from dstk.ensemble import RandomDecisionTreesClassifier
    >>> from dstk.dask import leaf_counts
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2)); y = (X[:, 0] > 0).astype(int)
    >>> model = RandomDecisionTreesClassifier(n_estimators=5, random_state=0).fit(X, y)
    >>> counts = leaf_counts(model, da.from_array(X, chunks=(10, 2)))
    >>> counts.shape, counts.chunks[0]
    ((40, 5, 2), (10, 10, 10, 10))
    >>> bool((counts.compute(scheduler="synchronous") == model.leaf_counts(X)).all())
    True
    """
    return map_samples(estimator, "leaf_counts", X, rechunk=rechunk)


def _check_counts(counts, rechunk):
    counts = check_sample_chunks(counts, name="counts", rechunk=rechunk)
    check_numeric_dtype(counts, "counts")
    if counts.ndim != 3:
        raise ValueError(
            f"`counts` must have shape (n_samples, n_trees, n_classes); got shape {counts.shape}."
        )
    return counts


def _call_combiner(block, function_name, options, tail):
    from .. import ensemble

    if block.shape[0] == 0:
        return np.empty((0,) + tail)
    result = getattr(ensemble, function_name)(block, **options)
    if function_name == "combine_leaves_to_mass":
        result = result._dense_m()  # the masses themselves: no copy (to_array copies)
    return np.asarray(result, dtype=np.float64)


def _map_combiner(counts, function_name, tail, options):
    # the options are checked now, on one made-up sample, rather than when the first chunk is computed
    _call_combiner(np.ones((1,) + counts.shape[1:]), function_name, options, tail)
    return blockwise_whole(
        _call_combiner,
        (0,) + tuple(range(3, 3 + len(tail))),
        counts,
        (0, 1, 2),
        function_name,
        options,
        tail,
        dtype=np.float64,
        new_axes={3 + i: t for i, t in enumerate(tail)},
    )


def combine_leaves(
    counts: Any,
    *,
    combiner: str = "average",
    rechunk: bool = False,
    **options: Any,
) -> da.Array:
    """:func:`dstk.ensemble.combine_leaves` on a chunked dask array of leaf counts.

    Parameters
    ----------
    counts : dask.array.Array, shape (n_samples, n_trees, n_classes)
        Chunked along the samples only (all trees of a sample in one chunk).
    combiner : str, default "average"
        A combiner of :func:`dstk.ensemble.combine_leaves` (a name in
        :data:`dstk.ensemble.COMBINERS` or ``"<method>:<aggregate>"``).
    rechunk : bool, default=False
        Merge a split tree or class axis instead of raising.
    **options
        The keyword options of :func:`dstk.ensemble.combine_leaves`
        (``class_prior``, ``smoothing``, ``model``, ``compatibility``, ...).

    Returns
    -------
    dask.array.Array
        ``(n_samples,)`` for two classes, else ``(n_samples, n_classes)``;
        the same floats as in memory.

    Raises
    ------
    DataTypeError
        ``counts`` None or a scipy sparse matrix.
    ValueError
        ``counts`` ragged, without samples, not of shape (n_samples, n_trees,
        n_classes), or split along the tree or class axis while ``rechunk``
        is False; an unknown ``combiner`` or invalid options (raised at once);
        invalid counts (NaN, negative, complex, strings) raise when the chunks
        are computed.

    Notes
    -----
    The combiners of Busch et al. (2021), Sections 3-4, treat every sample
    on its own, so each chunk of samples is one task running the in-memory
    :func:`dstk.ensemble.combine_leaves`.

    References
    ----------
    Busch, J., Kulessa, M., Loza Mencia, E. and Blockeel, H. (2021).
    Combining predictions under uncertainty: the case of random decision
    trees. Discovery Science 2021.

    Examples
    --------
    >>> import dask.array as da
    >>> from dstk.dask import combine_leaves
    >>> counts = da.from_array([[[0, 1], [0, 1], [1, 0]], [[3, 1], [2, 2], [4, 0]]], chunks=(1, 3, 2))
    >>> combine_leaves(counts, combiner="average").compute(scheduler="synchronous").round(4)
    array([0.6667, 0.25  ])
    """
    counts = _check_counts(counts, rechunk)
    n_classes = counts.shape[2]
    tail = () if n_classes == 2 else (n_classes,)
    return _map_combiner(counts, "combine_leaves", tail, {"combiner": combiner, **options})


def combine_leaves_proba(
    counts: Any,
    *,
    combiner: str = "average",
    rechunk: bool = False,
    **options: Any,
) -> da.Array:
    """:func:`dstk.ensemble.combine_leaves_proba` on a chunked dask array of leaf counts.

    Parameters
    ----------
    counts : dask.array.Array, shape (n_samples, n_trees, n_classes)
        Chunked along the samples only (all trees of a sample in one chunk).
    combiner : str, default "average"
        A combiner of :func:`dstk.ensemble.combine_leaves` (a name in
        :data:`dstk.ensemble.COMBINERS` or ``"<method>:<aggregate>"``).
    rechunk : bool, default=False
        Merge a split tree or class axis instead of raising.
    **options
        The keyword options of :func:`dstk.ensemble.combine_leaves_proba`.

    Returns
    -------
    dask.array.Array of shape (n_samples, n_classes)
        Class probabilities (rows sum to one), the same floats as in memory.

    Raises
    ------
    DataTypeError
        ``counts`` None or a scipy sparse matrix.
    ValueError
        ``counts`` ragged, without samples, not 3-D, or split along the tree
        or class axis while ``rechunk`` is False; an unknown ``combiner`` or
        invalid options (raised at once); invalid counts raise when the
        chunks are computed.

    Notes
    -----
    Per-chunk :func:`dstk.ensemble.combine_leaves_proba`; e.g. pooling sums
    the counts of the K leaves, P(k) = sum_t c_tk / sum_t N_t (Busch et al.
    2021, Section 4.0.1).

    References
    ----------
    Busch, J., Kulessa, M., Loza Mencia, E. and Blockeel, H. (2021).
    Combining predictions under uncertainty: the case of random decision
    trees. Discovery Science 2021.

    Examples
    --------
    >>> import dask.array as da
    >>> from dstk.dask import combine_leaves_proba
    >>> counts = da.from_array([[[1, 1], [0, 3]], [[2, 0], [2, 0]]], chunks=(1, 2, 2))
    >>> combine_leaves_proba(counts, combiner="pooling").compute(scheduler="synchronous")
    array([[0.2, 0.8],
           [1. , 0. ]])
    """
    counts = _check_counts(counts, rechunk)
    return _map_combiner(
        counts,
        "combine_leaves_proba",
        (counts.shape[2],),
        {"combiner": combiner, **options},
    )


def combine_leaves_to_mass(
    counts: Any,
    *,
    combiner: str = "dempster",
    normalize: bool = True,
    rechunk: bool = False,
    **options: Any,
) -> DaskMassFunction:
    """:func:`dstk.ensemble.combine_leaves_to_mass` on a chunked dask array of leaf counts.

    Parameters
    ----------
    counts : dask.array.Array, shape (n_samples, n_trees, n_classes)
        Chunked along the samples only (all trees of a sample in one chunk).
    combiner : {"dempster", "cautious", "plausibility"}, default "dempster"
        An evidential combiner (``"plausibility"``: averaging of leaf masses).
    normalize : bool, default True
        Divide by 1 - m(empty); False keeps the mass on the empty set.
    rechunk : bool, default=False
        Merge a split tree or class axis instead of raising.
    **options
        The keyword options of :func:`dstk.ensemble.combine_leaves_to_mass`.

    Returns
    -------
    DaskMassFunction
        Batch shape (n_samples,) on ``Frame(classes)`` (the option
        ``classes``; default ``range(n_classes)``).

    Raises
    ------
    DataTypeError
        ``counts`` None or a scipy sparse matrix.
    ValueError
        ``counts`` ragged, without samples, not 3-D, or split along the tree
        or class axis while ``rechunk`` is False; an unknown ``combiner`` or
        invalid options (raised at once); invalid counts raise when the
        chunks are computed.

    Notes
    -----
    The leaf mass m({1}) = max(pi+ - pi-, 0), m({0}) = max(pi- - pi+, 0),
    m(frame) = 1 - abs(pi+ - pi-) (Busch et al. 2021, Section 4.0.2) is
    combined over the trees by Dempster's or the cautious rule (Section
    4.0.3), chunk by chunk.

    References
    ----------
    Busch, J., Kulessa, M., Loza Mencia, E. and Blockeel, H. (2021).
    Combining predictions under uncertainty: the case of random decision
    trees. Discovery Science 2021.

    Examples
    --------
    >>> import dask.array as da
    >>> from dstk.dask import combine_leaves_to_mass
    >>> counts = da.from_array([[[0, 1], [0, 1], [1, 0]]], chunks=(1, 3, 2))
    >>> masses = combine_leaves_to_mass(counts, combiner="dempster")
    >>> masses.frame, masses.batch_shape
    (Frame([0, 1]), (1,))
    """
    counts = _check_counts(counts, rechunk)
    n_classes = counts.shape[2]
    classes = options.get("classes")
    frame = Frame(tuple(range(n_classes)) if classes is None else tuple(classes))
    if frame.n != n_classes:
        raise ValueError(f"`classes` names {frame.n} classes but `counts` has {n_classes} on its last axis.")
    array = _map_combiner(
        counts,
        "combine_leaves_to_mass",
        (frame.n_subsets,),
        {"combiner": combiner, "normalize": normalize, **options},
    )
    return DaskMassFunction._trusted(array, frame)
