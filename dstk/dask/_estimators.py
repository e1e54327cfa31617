"""Apply fitted dstk estimators (calibrators, tree ensembles) to dask arrays chunk by chunk."""

from __future__ import annotations

from typing import Any

import dask
import dask.array as da
import numpy as np

from .._validation import as_array
from ..core._frame import Frame
from ..core._mass import MassFunction
from ..exceptions import DataTypeError
from ._blocks import blockwise_whole, last_axis_entry
from ._mass import DaskMassFunction

__all__ = ["predict_mass", "predict_interval", "predict_proba", "map_samples", "check_sample_chunks"]


def check_sample_chunks(X: Any, name: str = "X", rechunk: bool = False) -> da.Array:
    """Return ``X`` as a dask array chunked along its first axis only.

    A numpy array is wrapped with ``chunks="auto"`` rows.  Any other axis
    split across chunks raises ``ValueError`` unless ``rechunk`` (then it is
    merged into one chunk).  None, a scipy sparse matrix, a ragged list, a
    scalar or an array without samples raise at once, naming ``name``.
    """
    if not isinstance(X, da.Array):
        if hasattr(X, "tocsr") and hasattr(X, "nnz"):
            raise DataTypeError(
                f"`{name}` is a scipy sparse matrix; dstk.dask maps dense chunks: pass "
                f"`{name}.toarray()` (or a dask array of dense row blocks of it)."
            )
        values = as_array(X, name)
        if values.ndim == 0:
            raise ValueError(
                f"`{name}` must be an array with samples on its first axis; got the scalar {values!r}."
            )
        X = da.from_array(values, chunks=("auto",) + (-1,) * (values.ndim - 1))
    if X.ndim == 0:
        raise ValueError(f"`{name}` must be an array with samples on its first axis; got a 0-d dask array.")
    if X.shape[0] == 0:
        raise ValueError(f"`{name}` has no samples (shape {X.shape}); at least one is needed.")
    split = [axis for axis in range(1, X.ndim) if len(X.chunks[axis]) > 1]
    if split:
        if not rechunk:
            raise ValueError(
                f"`{name}` is chunked along axis {split[0]} (chunks {X.chunks[split[0]]}); only the first "
                "(sample) axis may be split, every chunk must hold whole samples. Rechunk it with "
                f"{name}.rechunk({{{', '.join(f'{a}: -1' for a in split)}}}) or pass rechunk=True."
            )
        X = X.rechunk(dict.fromkeys(split, -1))
    return X


def _to_array(result):
    if isinstance(result, MassFunction):
        return result._dense_m()  # the masses themselves: no copy (to_array copies)
    if isinstance(result, tuple):
        return np.stack([np.asarray(part) for part in result], axis=-1)
    return np.asarray(result)


def _call_block(block, estimator, method, kwargs, tail, dtype):
    if block.shape[0] == 0:  # empty chunks (e.g. after filtering) never reach the estimator
        return np.empty((0,) + tail, dtype=dtype)
    return _to_array(getattr(estimator, method)(block, **kwargs)).astype(dtype, copy=False)


def _check_method(estimator, method):
    """Raise a clear error unless ``estimator`` has a callable ``method``."""
    if not isinstance(method, str):
        raise TypeError(
            f"`method` must be the name of a method (a string); got {type(method).__name__} {method!r}."
        )
    if not callable(getattr(estimator, method, None)):
        raise TypeError(
            f"`estimator` must be a fitted estimator with a `{method}` method; got {type(estimator).__name__} "
            f"{estimator!r:.60}, which has none."
        )


def _probe(estimator, method, X, kwargs):
    """Run ``method`` on the first sample to learn the output's trailing shape, dtype and type."""
    _check_method(estimator, method)
    if isinstance(X, da.Array) and np.isnan(X.shape[0]):
        # unknown chunk sizes (e.g. after boolean filtering): the first chunk that holds a sample
        for block in X.blocks:
            values = np.asarray(block.compute())
            if values.shape[0]:
                return getattr(estimator, method)(values[:1], **kwargs)
        raise ValueError("`X` has no samples (every chunk is empty); give at least one sample.")
    first = X[:1]
    first = np.asarray(first.compute() if isinstance(first, da.Array) else first)
    return getattr(estimator, method)(first, **kwargs)


def map_samples(estimator: Any, method: str, X: Any, *, rechunk: bool = False, **kwargs: Any) -> da.Array:
    """Apply ``estimator.<method>`` to every chunk of samples of ``X``.

    Parameters
    ----------
    estimator : object
        A fitted estimator (it is pickled once into the task graph and sent
        to each worker that needs it).
    method : str
        Name of a method taking an array of samples (first axis) and
        returning an array, a tuple of arrays or a MassFunction, each with
        one row per sample.
    X : dask.array.Array or array_like
        Samples on the first axis; only that axis may be chunked.
    rechunk : bool, default=False
        Merge other split axes of ``X`` instead of raising.
    **kwargs
        Passed to the method.

    Returns
    -------
    dask.array.Array
        Shape ``(n_samples,) + tail`` with the chunks of ``X`` on the first
        axis.  A tuple result is stacked on a new last axis; a MassFunction
        becomes its dense masses ``(n_samples, 2**n)``.

    Raises
    ------
    TypeError
        ``estimator`` has no callable ``method`` (e.g. not an estimator)
        or ``method`` is not a string.
    DataTypeError
        ``X`` is None or a scipy sparse matrix.
    NotFittedError
        ``estimator`` is not fitted (raised at once: the method is run on the
        first sample to learn the output's shape).
    ValueError
        ``X`` a scalar, ragged, without samples, or split along a
        non-sample axis while ``rechunk`` is False; plus the errors of the
        method on the first sample (its own checks of ``X``).

    Notes
    -----
    The trailing shape and dtype are learned by calling the method once on
    the first sample (``X[:1]`` is computed: a small part of the first
    chunk; with unknown chunk sizes, e.g. after boolean filtering, the first
    chunk that holds a sample is computed).  This is the blocked "map" of
    dask (Rocklin 2015): one task per
    chunk, valid because dstk's estimators treat samples independently.

    References
    ----------
    Rocklin, M. (2015). Dask: parallel computation with blocked algorithms and
    task scheduling. Proceedings of the 14th Python in Science Conference.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from dstk.dask import map_samples
    >>> class Doubler:                      # any object with a per-sample method
    ...     def transform(self, X):
    ...         return 2 * np.asarray(X)
    >>> out = map_samples(Doubler(), "transform", da.arange(6, chunks=4))
    >>> out.chunks, out.compute(scheduler="synchronous").tolist()
    (((4, 2),), [0, 2, 4, 6, 8, 10])
    """
    _check_method(estimator, method)
    X = check_sample_chunks(X, rechunk=rechunk)
    return _map(estimator, method, X, kwargs, _probe(estimator, method, X, kwargs))


def _map(estimator, method, X, kwargs, probe):
    """The graph of :func:`map_samples`, given the method's result on the first sample (probed once)."""
    probe = _to_array(probe)
    tail, dtype = probe.shape[1:], probe.dtype
    shared = dask.delayed(estimator, pure=True)
    return blockwise_whole(
        _call_block,
        (0,) + tuple(range(X.ndim, X.ndim + len(tail))),
        X,
        tuple(range(X.ndim)),
        shared,
        method,
        kwargs,
        tail,
        dtype,
        dtype=dtype,
        new_axes={X.ndim + i: t for i, t in enumerate(tail)},
    )


def predict_mass(estimator: Any, X: Any, *, rechunk: bool = False, **kwargs: Any) -> DaskMassFunction:
    """``estimator.predict_mass`` on a dask array of scores or features, chunk by chunk.

    Parameters
    ----------
    estimator : fitted calibrator or ensemble with ``predict_mass``
    X : dask.array.Array or array_like
        Scores (``(n_samples,)``) or features (``(n_samples, n_features)``);
        only the sample axis may be chunked.
    rechunk : bool, default=False
        Merge a split feature axis instead of raising.
    **kwargs
        Passed to ``predict_mass``.

    Returns
    -------
    DaskMassFunction
        Batch shape ``(n_samples,)``, the chunks of ``X``, the estimator's
        frame; ``.array`` is the ``(n_samples, 2**n)`` dask array of masses
        and ``.to_delayed()`` gives the in-memory MassFunction of each chunk.

    Raises
    ------
    TypeError
        ``predict_mass`` does not return a MassFunction, or
        ``estimator`` has no callable ``predict_mass`` (e.g. not an estimator).
    DataTypeError
        ``X`` is None or a scipy sparse matrix.
    NotFittedError
        ``estimator`` is not fitted (raised at once: the method is run on the
        first sample to learn the output's shape).
    ValueError
        ``X`` ragged, without samples or chunked along a non-sample axis (and
        ``rechunk`` False), or a mass function in focal-set (non-dense) form.

    Notes
    -----
    Every chunk is computed by the estimator's own ``predict_mass``, so the
    masses are the same floats as ``estimator.predict_mass(X)`` in memory
    (for estimators that treat samples independently, as dstk's do), e.g.
    the calibrated masses of Xu et al. (2016).

    References
    ----------
    Xu, P., Davoine, F., Zha, H. and Denoeux, T. (2016). Evidential calibration
    of binary SVM classifiers. IJAR 72, 55-70.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from dstk import Frame, MassFunction
    >>> from dstk.dask import predict_mass
    >>> class Discounted:                   # any object with predict_mass(X) -> MassFunction
    ...     def predict_mass(self, scores):
    ...         p = np.asarray(scores)
    ...         values = np.stack([0 * p, 0.9 * (1 - p), 0.9 * p, 0.1 + 0 * p], axis=-1)
    ...         return MassFunction.from_array(values, Frame((0, 1)))
    >>> masses = predict_mass(Discounted(), da.linspace(0, 1, 5, chunks=2))
    >>> masses.frame, masses.chunks
    (Frame([0, 1]), ((2, 2, 1),))
    >>> masses.pl({1}).compute(scheduler="synchronous").round(3).tolist()
    [0.1, 0.325, 0.55, 0.775, 1.0]
    """
    X = check_sample_chunks(X, rechunk=rechunk)
    probe = _probe(estimator, "predict_mass", X, kwargs)
    if not isinstance(probe, MassFunction):
        raise TypeError(
            f"{type(estimator).__name__}.predict_mass returned {type(probe).__name__}, not a MassFunction."
        )
    frame = probe.frame
    if not probe.is_dense:
        raise ValueError(
            f"predict_mass returned a mass function on {frame.n} labels in focal-set form; dstk.dask "
            "stores dense (..., 2**n) arrays only."
        )
    array = _map(estimator, "predict_mass", X, kwargs, probe)
    return DaskMassFunction._trusted(array, Frame(frame))


def predict_interval(
    estimator: Any, X: Any, *, rechunk: bool = False, **kwargs: Any
) -> da.Array | tuple[da.Array, ...]:
    """``estimator.predict_interval`` on a dask array, chunk by chunk.

    Parameters
    ----------
    estimator : fitted estimator with ``predict_interval``
        E.g. a dstk calibrator or :class:`~dstk.calibration.EvidentialCalibratedClassifier`.
    X : dask.array.Array or array_like
        Scores or features; only the sample axis may be chunked.
    rechunk : bool, default=False
        Merge a split feature axis instead of raising.
    **kwargs
        Passed to ``predict_interval``.

    Returns
    -------
    tuple of dask.array.Array
        The arrays that ``predict_interval`` returns (for dstk's calibrators
        ``(bel, pl)`` of the positive class, each ``(n_samples,)``), with the
        chunks of ``X`` on the sample axis.

    Raises
    ------
    TypeError
        ``estimator`` has no callable ``predict_interval`` (e.g. not an estimator).
    DataTypeError
        ``X`` is None or a scipy sparse matrix.
    NotFittedError
        ``estimator`` is not fitted (raised at once: the method is run on the
        first sample to learn the output's shape).
    ValueError
        ``X`` ragged, without samples or chunked along a non-sample axis
        while ``rechunk`` is False.

    Notes
    -----
    For a binary mass function, Bel({1}) = m({1}) and
    Pl({1}) = m({1}) + m({0, 1}) (Shafer 1976; Xu et al. 2016, Eq. 8),
    computed per chunk.

    References
    ----------
    Shafer, G. (1976). A Mathematical Theory of Evidence. Princeton
    University Press.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from dstk.calibration import BinningCalibrator
    >>> from dstk.dask import predict_interval
    >>> calibrator = BinningCalibrator(bins=[-3, 0, 3], model="dempster").fit(
    ...     np.array([-2.0, -1.0, 1.0, 2.0]), np.array([0, 0, 1, 1]))
    >>> bel, pl = predict_interval(calibrator, da.from_array(np.array([-1.5, 1.5]), chunks=1))
    >>> bel.compute(scheduler="synchronous").round(4).tolist(), pl.compute(scheduler="synchronous").round(4).tolist()
    ([0.0, 0.6667], [0.3333, 1.0])
    """
    X = check_sample_chunks(X, rechunk=rechunk)
    probe = _probe(estimator, "predict_interval", X, kwargs)
    stacked = _map(estimator, "predict_interval", X, kwargs, probe)
    if isinstance(probe, tuple):
        return tuple(last_axis_entry(stacked, i) for i in range(len(probe)))
    return stacked


def predict_proba(estimator: Any, X: Any, *, rechunk: bool = False, **kwargs: Any) -> da.Array:
    """``estimator.predict_proba`` on a dask array, chunk by chunk.

    Parameters
    ----------
    estimator : fitted estimator with ``predict_proba``
        A dstk calibrator, classifier or ensemble.
    X : dask.array.Array or array_like
        Scores or features; only the sample axis may be chunked.
    rechunk : bool, default=False
        Merge a split feature axis instead of raising.
    **kwargs
        Passed to ``predict_proba``.

    Returns
    -------
    dask.array.Array of shape (n_samples, n_classes)
        The chunks of ``X`` on the sample axis.

    Raises
    ------
    TypeError
        ``estimator`` has no callable ``predict_proba`` (e.g. not an estimator).
    DataTypeError
        ``X`` is None or a scipy sparse matrix.
    NotFittedError
        ``estimator`` is not fitted (raised at once: the method is run on the
        first sample to learn the output's shape).
    ValueError
        ``X`` ragged, without samples or chunked along a non-sample axis
        while ``rechunk`` is False.

    Notes
    -----
    dstk's evidential estimators return the pignistic probabilities
    BetP({c}) = sum over A containing c of m(A) / card(A) (Smets and Kennes 1994;
    Xu et al. 2016, Eq. 9), computed per chunk.

    References
    ----------
    Smets, P. and Kennes, R. (1994). The transferable belief model.
    Artificial Intelligence 66, 191-234.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from dstk.calibration import BinningCalibrator
    >>> from dstk.dask import predict_proba
    >>> calibrator = BinningCalibrator(bins=[-3, 0, 3], model="dempster").fit(
    ...     np.array([-2.0, -1.0, 1.0, 2.0]), np.array([0, 0, 1, 1]))
    >>> predict_proba(calibrator, da.from_array(np.array([1.5]))).compute(scheduler="synchronous").round(4)
    array([[0.1667, 0.8333]])
    """
    return map_samples(estimator, "predict_proba", X, rechunk=rechunk, **kwargs)
