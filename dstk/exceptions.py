"""Exceptions and warnings raised by dstk.

Every exception derives from a builtin (mostly :class:`ValueError`) so that
code written as ``except ValueError`` keeps working, and from
:class:`DstkError` so that dstk's own errors can be caught together.
"""

__all__ = [
    "DstkError",
    "InvalidMassError",
    "FrameError",
    "FrameMismatchError",
    "FrameTooLargeError",
    "TotalConflictError",
    "DogmaticError",
    "NotFittedError",
    "ConvergenceWarning",
]


class DstkError(Exception):
    """Base class of every error raised by dstk."""


class InvalidMassError(DstkError, ValueError):
    """Masses that are negative, NaN, infinite or do not sum to one."""


class FrameError(DstkError, ValueError):
    """A subset or label that does not belong to the frame of discernment."""


class FrameMismatchError(DstkError, ValueError):
    """Mass functions defined on different frames were combined or compared."""


class FrameTooLargeError(DstkError, MemoryError):
    """A dense ``2**n`` representation would not fit in memory."""


class TotalConflictError(DstkError, ValueError):
    """Dempster's rule (or a normalisation) met a total conflict, K = 1."""


class DogmaticError(DstkError, ValueError):
    """An operation needs a non-dogmatic mass function (m(frame) > 0)."""


class NotFittedError(DstkError, ValueError, AttributeError):
    """An estimator was used before ``fit``."""


class ConvergenceWarning(UserWarning):
    """An iterative procedure stopped before reaching its tolerance."""
