"""Reasoning: belief functions over several variables and on the real line.

Submodules are imported lazily so that ``import dstk.reasoning`` stays cheap.
"""

from dstk._lazy import lazy_exports

_LAZY: dict[str, str] = {}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
