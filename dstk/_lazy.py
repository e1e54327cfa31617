"""Lazy attributes of the dstk packages: a name is imported from its module on first access (PEP 562)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def lazy_exports(
    package: str,
    names: Mapping[str, str],
    submodules: Iterable[str] = (),
    computed: Mapping[str, Callable[[], Any]] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of a package with lazy attributes.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    names : mapping
        Public name -> the module that defines it; imported on first access and
        then stored in the package, so later accesses cost nothing.
    submodules : iterable of str
        Subpackages reachable as attributes (``dstk.core``), imported on first access.
    computed : mapping, optional
        Name -> function of no argument computing its value on first access
        (``__version__`` from the installed metadata).
    """
    submodules = frozenset(submodules)
    computed = dict(computed or {})

    def __getattr__(name: str) -> Any:
        if name in computed:
            value = computed[name]()
        elif name in names:
            value = getattr(importlib.import_module(names[name]), name)
        elif name in submodules:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        module = sys.modules[package]
        return sorted(set(vars(module)) | set(getattr(module, "__all__", ())) | set(names))

    return __getattr__, __dir__
