"""Exceptions and warnings raised by dstk.

Every exception derives from a builtin (mostly :class:`ValueError`) so that
code written as ``except ValueError`` keeps working, and from
:class:`DstkError` so that dstk's own errors can be caught together.
"""

__all__ = [
    "DstkError",
    "InvalidMassError",
    "DataTypeError",
    "FrameError",
    "FrameMismatchError",
    "FrameTooLargeError",
    "TotalConflictError",
    "DogmaticError",
    "InvalidStateError",
    "NotFittedError",
    "ConvergenceWarning",
    "ConflictWarning",
    "DataConversionWarning",
]

import sys


class DstkError(Exception):
    """Base class of every error raised by dstk."""


class InvalidMassError(DstkError, ValueError):
    """Masses that are negative, NaN, infinite or do not sum to one."""


class DataTypeError(DstkError, TypeError, ValueError):
    """Input of the wrong kind: None, complex numbers, strings, a sparse matrix where a dense array is needed.

    Derives from :class:`TypeError` and from :class:`ValueError` (scikit-learn
    raises ``ValueError("Complex data not supported")``), so either ``except``
    clause catches it.
    """


class FrameError(DstkError, ValueError):
    """A subset or label that does not belong to the frame of discernment."""


class FrameMismatchError(DstkError, ValueError):
    """Mass functions defined on different frames were combined or compared."""


class FrameTooLargeError(DstkError, MemoryError):
    """A dense ``2**n`` representation would not fit in memory."""


class TotalConflictError(DstkError, ValueError):
    """Dempster's rule (or a normalisation) met a total conflict, K = 1.

    ``indices`` holds the flat batch indices of the combinations in total
    conflict when the error comes from :func:`dstk.combine` (else None).
    """

    indices: object = None


class InvalidStateError(DstkError, ValueError):
    """A loaded (unpickled) estimator whose fitted state no fit produces, e.g. a tampered file."""


class DogmaticError(DstkError, ValueError):
    """An operation needs a non-dogmatic mass function (m(frame) > 0)."""


class NotFittedError(DstkError, ValueError, AttributeError):
    """An estimator was used before ``fit``.

    When scikit-learn has been imported by the running program (that is,
    ``sklearn.exceptions`` is in :data:`sys.modules`), ``NotFittedError(...)``
    creates an instance of a subclass that also derives from
    :class:`sklearn.exceptions.NotFittedError`, so both
    ``except dstk.exceptions.NotFittedError`` and
    ``except sklearn.exceptions.NotFittedError`` catch it.  dstk never imports
    scikit-learn for this: a program that names scikit-learn's class in an
    ``except`` clause has imported it already.
    """

    def __new__(cls, *args, **kwargs):
        if cls is NotFittedError:
            compatible = _sklearn_compatible_not_fitted_error()
            if compatible is not None:
                cls = compatible
        return super().__new__(cls, *args, **kwargs)


_COMPATIBLE: dict[str, type] = {}


def _sklearn_compatible(name: str) -> type | None:
    """The subclass of dstk's and scikit-learn's class ``name``, or None when scikit-learn is not loaded.

    Works on :data:`sys.modules` only: it never imports scikit-learn.
    """
    module = sys.modules.get("sklearn.exceptions")
    if module is None:
        return None
    theirs = getattr(module, name, None)
    if theirs is None:  # pragma: no cover - every supported scikit-learn has both classes
        return None
    cached = _COMPATIBLE.get(name)
    if cached is None or theirs not in cached.__bases__:
        ours = globals()[name]
        cached = type(
            name,
            (ours, theirs),
            {
                "__module__": __name__,
                "__qualname__": f"_SklearnCompatible{name}",
                "__doc__": f"dstk's {name}, also scikit-learn's {name}.",
            },
        )
        _COMPATIBLE[name] = cached
    return cached


def _sklearn_compatible_not_fitted_error() -> type | None:
    return _sklearn_compatible("NotFittedError")


def data_conversion_warning() -> type:
    """The warning category for a column-vector ``y`` flattened to 1-D.

    :class:`DataConversionWarning`, and also scikit-learn's class of that name
    when scikit-learn is loaded (see :class:`NotFittedError`).
    """
    return _sklearn_compatible("DataConversionWarning") or DataConversionWarning


def __getattr__(name: str) -> type:
    # unpickling an error raised with scikit-learn loaded looks these classes up by name
    if name.startswith("_SklearnCompatible"):
        import sklearn.exceptions  # noqa: F401  - loaded only to unpickle such an object

        compatible = _sklearn_compatible(name[len("_SklearnCompatible") :])
        if compatible is not None:
            return compatible
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ConvergenceWarning(UserWarning):
    """An iterative procedure stopped before reaching its tolerance."""


class DataConversionWarning(UserWarning):
    """Input data was converted, e.g. a column-vector ``y`` flattened to 1-D."""


class ConflictWarning(UserWarning):
    """Some samples met a total conflict and were given the ``on_conflict`` fallback, or a combined
    source contradicted the others on a whole batch and was left out of its combination."""
