"""The ``njit`` decorator of every dstk kernel: an on-disk cache that cannot go stale or fail.

Every module of :mod:`dstk._kernels` imports ``njit`` from here instead of
from numba.  It is :func:`numba.njit` with two safeguards for ``cache=True``.

Caches that follow the kernels they call
    numba's on-disk cache keys a compiled function on the text of the file
    that defines it and on its own bytecode, not on the jitted functions it
    calls from other modules (numba documentation, "Notes on Caching"; numba
    github.com/numba/numba/issues/1833): after an edit of a shared kernel, a cached caller would keep
    running the old version.  So a kernel module that imports another pins a
    hash of that module's source text in its own text::

        CALLED_KERNEL_SOURCES = {"dstk._kernels.moebius": "<16 hex digits>"}

    Any edit of the called module then requires a new pin, which changes the
    caller's text and so invalidates the caller's cache; since the pinned
    text includes the called module's own pins, the invalidation reaches
    callers of callers.  ``tests/kernels/test_kernel_cache.py`` recomputes
    every pin and fails until they are updated with::

        python -m dstk._kernels._jit

    and, should a pin still be stale at run time (a source tree edited without
    updating the pins), the kernels of that module and of the modules that
    call it are compiled without the on-disk cache, with a
    :class:`StaleKernelCacheWarning`: they never run stale code.

A cache wherever dstk is installed
    numba caches next to the source file (``__pycache__``) or in the user's
    cache directory, and raises ``RuntimeError: cannot cache function ...: no
    locator available`` when neither is writable (a read-only install used
    with no writable home).  The kernels then cache in a private directory of
    the temporary directory (created for the current user only, mode 0700);
    if that is not possible either, they are compiled in memory with one
    :class:`KernelCacheWarning` per process.  Setting ``NUMBA_CACHE_DIR``
    chooses the cache directory, as for any numba code.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import inspect
import math
import os
import re
import stat
import sys
import tempfile
import types
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numba
import numpy as np
from numba.core import config as _numba_config
from numba.core.dispatcher import Dispatcher

__all__ = [
    "njit",
    "call_kernel",
    "cold_alternative",
    "interpreted",
    "INTERPRETED_BUDGET",
    "read_only",
    "every_kernel_compiled",
    "KernelCacheWarning",
    "StaleKernelCacheWarning",
    "source_hash",
    "update_pins",
]

PINS_NAME = "CALLED_KERNEL_SOURCES"
"""Module-level dictionary of a kernel module: called module name -> pinned source hash."""


class KernelCacheWarning(RuntimeWarning):
    """The numba kernels cannot be cached on disk; they are compiled in every process."""


class StaleKernelCacheWarning(RuntimeWarning):
    """A kernel module's pinned source hashes are out of date; its kernels are not cached."""


def source_hash(path: str | os.PathLike[str]) -> str:
    """First 16 hex digits of the SHA-256 of a source file, line endings normalised to ``\\n``."""
    data = Path(path).read_bytes().replace(b"\r\n", b"\n")
    return hashlib.sha256(data).hexdigest()[:16]


@functools.cache
def _module_is_fresh(module_name: str) -> bool:
    """True when every pin of the module (and of the modules it pins) matches the source."""
    module = sys.modules.get(module_name)
    pins = getattr(module, PINS_NAME, None) or {}
    for called, pinned in pins.items():
        called_module = sys.modules.get(called)
        path = getattr(called_module, "__file__", None)
        try:
            actual = source_hash(path) if path else None
        except OSError:
            actual = None
        if actual != pinned or not _module_is_fresh(called):
            return False
    return True


_stale_warned: set[str] = set()


def _pins_are_fresh(module_name: str) -> bool:
    if _module_is_fresh(module_name):
        return True
    if module_name not in _stale_warned:
        _stale_warned.add(module_name)
        warnings.warn(
            f"The pinned source hashes ({PINS_NAME}) of {module_name} do not match the kernel "
            "modules it calls, so its kernels are compiled without the on-disk cache (a cached "
            "version could run old code of the called kernels). Update the pins with "
            "`python -m dstk._kernels._jit`.",
            StaleKernelCacheWarning,
            stacklevel=4,
        )
    return False


# ---------------------------------------------------------------- cache location

_fallback: dict[str, str | None] = {}  # "dir": the private cache directory in use, None: no cache
_NO_LOCATOR = "no locator available"


def _private_cache_dir() -> str | None:
    """A directory of the temporary directory that only the current user can write, or None."""
    getuid = getattr(os, "getuid", None)
    owner = str(getuid()) if getuid is not None else os.environ.get("USERNAME", "user")
    path = os.path.join(tempfile.gettempdir(), f"dstk-numba-cache-{owner}")
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode):
            return None
        if getuid is not None and (info.st_uid != getuid() or info.st_mode & 0o022):
            # a directory someone else created or can write: its cache files could run their code
            return None
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return None
    return path


@contextlib.contextmanager
def _cache_dir(path: str) -> Iterator[None]:
    """Let numba's locators use ``path`` while a dispatcher is created (numba reads it then)."""
    previous = getattr(_numba_config, "CACHE_DIR", "")
    setattr(_numba_config, "CACHE_DIR", path)  # noqa: B010  (numba's config attributes are dynamic)
    try:
        yield
    finally:
        setattr(_numba_config, "CACHE_DIR", previous)  # noqa: B010


def _compile(function, options):
    """``numba.njit(**options)(function)``."""
    return numba.njit(**options)(function)


def _compile_with_fallback(function, options):
    """:func:`_compile`, redirecting or dropping the on-disk cache if it has no place."""
    if "dir" not in _fallback:
        try:
            return _compile(function, options)
        except RuntimeError as exc:
            if _NO_LOCATOR not in str(exc):
                raise
        _fallback["dir"] = _private_cache_dir()
        if _fallback["dir"] is None:
            warnings.warn(
                "dstk cannot cache its compiled numba kernels: neither the install directory, the "
                "user's cache directory nor the temporary directory is writable. The kernels are "
                "compiled again in every process (slower first calls). Set NUMBA_CACHE_DIR to a "
                "writable directory to cache them.",
                KernelCacheWarning,
                stacklevel=5,
            )
    if _fallback["dir"] is not None:
        try:
            with _cache_dir(_fallback["dir"]):
                return _compile(function, options)
        except RuntimeError as exc:
            if _NO_LOCATOR not in str(exc):
                raise
    return _compile(function, {**options, "cache": False})


def _decorate(function, options):
    if not options.get("cache", False):
        return _compile(function, options)
    source = inspect.getsourcefile(function)
    no_file = source is None or not (os.path.exists(source) or ".zip" in source)
    if no_file or not _pins_are_fresh(function.__module__):
        # no source file (interactive code) or stale pins: nothing can be cached safely
        return _compile(function, {**options, "cache": False})
    return _compile_with_fallback(function, options)


_BUDGET_OPTIONS = ("interpreted_max_work", "interpreted_budget", "cold_alternative_work", "budget_of")


def njit(**options):
    """:func:`numba.njit` with a cache that follows the called kernels and works on any install.

    Used as ``@njit(cache=True, ...)``, with ``numba.njit``'s options (lazy
    compilation: no signature).  The options of a kernel's cold-start
    budget are dstk's own, kept as the kernel's attributes of the same names and
    read by :func:`call_kernel` and :func:`cold_alternative` (the limits are
    stated once, where the kernel is):

    ``interpreted_max_work=N``
        The largest work of a call that :func:`call_kernel` may run
        interpreted (default -1: always compiled).
    ``interpreted_budget=F``
        The process runs the kernel interpreted, or its callers' cheaper path,
        for at most ``F`` times the limit in all (default
        :data:`INTERPRETED_BUDGET`).
    ``cold_alternative_work=N``
        The limit of :func:`cold_alternative`: work of a caller's path that
        avoids the kernel, per unit of the budget factor.
    ``budget_of=kernel``
        Use (and charge) the limits and budget of another kernel, e.g. a
        threaded kernel those of its serial twin.
    """
    budget = {name: options.pop(name) for name in _BUDGET_OPTIONS if name in options}

    def decorate(function):
        kernel = _decorate(function, options)
        for name, value in budget.items():
            setattr(kernel, name, value)
        return kernel

    return decorate


_interpreted: dict[tuple[Any, bool], Any] = {}

_C_LIBRARY_MATH = ("lgamma",)
"""``math`` functions that CPython computes with its own code but numba with the C library's:
an interpreted kernel calls the C library's function (through ctypes), which gives the
compiled kernel's bits (CPython's ``math.lgamma`` differs from the C library's in the last
bits of most arguments)."""

_UNMATCHED_MATH = ("gamma", "erf", "erfc", "pow")
"""``math`` functions whose interpreted results are not known to match numba's: a kernel
using one of them stays compiled."""

_numba_math: list[Any] = []  # [the namespace standing for ``math`` in interpreted kernels, or None]


def _math_as_compiled() -> Any:
    """A stand-in for the ``math`` module whose functions give numba's bits, or None.

    numba compiles ``math.lgamma`` to a call of the C library's ``lgamma`` (resolved
    in the process, as ``dlsym`` does); ``ctypes.CDLL(None)`` finds the same symbol.
    None where the C library cannot be reached this way (e.g. Windows): kernels that
    use these functions then stay compiled.
    """
    if not _numba_math:
        shim = None
        try:
            library = ctypes.CDLL(None)
            functions = {}
            for name in _C_LIBRARY_MATH:
                function = getattr(library, name)
                function.restype = ctypes.c_double
                function.argtypes = [ctypes.c_double]
                functions[name] = function
            shim = types.SimpleNamespace(**{**vars(math), **functions})
        except (OSError, AttributeError, TypeError):
            shim = None
        _numba_math.append(shim)
    return _numba_math[0]


def interpreted(kernel: Any, *, fastmath: bool = False) -> Any:
    """The Python function of a kernel, with the kernels it calls interpreted too.

    A kernel's ``py_func`` looks up the kernels it calls in its module's
    globals, where they are numba dispatchers: calling them from Python would
    compile them.  This returns a function with the same code object whose
    globals map every called kernel (recursively) to its own interpreted
    version, so that nothing is compiled -- except kernels compiled with
    ``fastmath``, which stay compiled (their reassociated sums are not those of
    the interpreter).  ``math.lgamma`` is the C library's function, as in
    compiled code (CPython computes its own); a kernel using a ``math``
    function not known to give numba's bits (``gamma``, ``erf``, ``erfc``,
    ``pow``) stays compiled.  The globals are a snapshot taken at the first
    call, as numba freezes a kernel's globals when it compiles it.

    Parameters
    ----------
    kernel : numba dispatcher or function
        A kernel decorated with :func:`njit` (returned unchanged when it has no
        ``py_func``, e.g. with numba's JIT disabled).
    fastmath : bool, default False
        Interpret the kernels compiled with ``fastmath`` too: only for inputs on
        which their reassociated sums have a single order (sums of at most three
        terms, e.g. the rows of a binary frame).

    Returns
    -------
    function
        The interpreted kernel (cached per kernel).
    """
    function = getattr(kernel, "py_func", None)
    if function is None or (not fastmath and getattr(kernel, "targetoptions", {}).get("fastmath")):
        # fast-math code may reassociate (e.g. vectorise a sum): only the compiled
        # kernel gives its bits, so it stays compiled
        return kernel
    found = _interpreted.get((kernel, fastmath))
    if found is not None:
        return found
    namespace = dict(function.__globals__)
    names = _global_names(function.__code__)
    if any(namespace.get(name) is getattr(math, name) for name in _UNMATCHED_MATH):
        return kernel  # e.g. ``from math import gamma``
    if namespace.get("math") is math and not names.isdisjoint(_UNMATCHED_MATH):
        return kernel
    if namespace.get("math") is math and not names.isdisjoint(_C_LIBRARY_MATH):
        stand_in = _math_as_compiled()
        if stand_in is None:
            return kernel
        namespace["math"] = stand_in
    for name in _C_LIBRARY_MATH:
        if namespace.get(name) is getattr(math, name):  # ``from math import lgamma``
            stand_in = _math_as_compiled()
            if stand_in is None:
                return kernel
            namespace[name] = getattr(stand_in, name)
    result = types.FunctionType(
        function.__code__, namespace, function.__name__, function.__defaults__, function.__closure__
    )
    result.__doc__ = function.__doc__
    _interpreted[(kernel, fastmath)] = result  # before the recursion: a kernel may call itself
    for name in names:
        value = namespace.get(name)
        if isinstance(value, Dispatcher):
            namespace[name] = interpreted(value, fastmath=fastmath)
    return result


def _global_names(code: types.CodeType) -> set[str]:
    """Names a code object (and the code objects nested in it) may look up in its globals."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _global_names(constant)
    return names


def read_only(array: Any) -> Any:
    """A read-only view of ``array`` (no copy), the one layout in which kernels read their inputs.

    numba compiles a kernel once per argument type, and a read-only array
    (a mass function's stored values, a broadcast view) is another type than a
    writable one: handing every input array read-only compiles one
    specialisation where a mix would compile two.
    """
    view = array.view()
    view.flags.writeable = False
    return view


INTERPRETED_BUDGET = 50
"""Default budget factor of a kernel (its decorator's ``interpreted_budget``): a process runs a
kernel interpreted until its interpreted calls add up to this many times the kernel's
``interpreted_max_work`` (about one compile time: the limits are chosen for calls of ~20 ms),
then calls the compiled kernel: a program that keeps calling a kernel pays at most about one
compile time more than compiling at once.  Read at each call (benchmarks of warm paths set 0)."""

_interpreted_work: dict[tuple[Any, bool], float] = {}
"""Work spent by this process per (budget-owning kernel, True for :func:`cold_alternative`)."""

USE_COMPILED_WHEN_AVAILABLE = True
"""Call the compiled kernel, whatever the work, when it is compiled in this process or its
cache holds it (loading it costs milliseconds): only a cold start runs kernels interpreted.
Tests that compare interpreted and compiled results set it to False."""


_every_kernel_compiled = [False]  # [True within :func:`every_kernel_compiled`]


@contextlib.contextmanager
def every_kernel_compiled() -> Iterator[None]:
    """Within this context every kernel call runs the compiled kernel, whatever its work.

    :func:`call_kernel` then never interprets and :func:`cold_alternative`
    answers False: a run of the entry points inside it compiles into the
    on-disk cache every kernel those entry points call at any size (what
    ``dstk.compile_kernels`` does).  Results are unchanged: interpreted and
    compiled kernels give the same bits.
    """
    previous = _every_kernel_compiled[0]
    _every_kernel_compiled[0] = True
    try:
        yield
    finally:
        _every_kernel_compiled[0] = previous


def _compiled_or_cached(kernel: Any) -> bool:
    """Whether ``kernel`` is compiled in this process or has an entry in its on-disk cache.

    Always True within :func:`every_kernel_compiled`.
    """
    if _every_kernel_compiled[0]:
        return True
    if getattr(kernel, "overloads", None):  # (``signatures`` rebuilds a list of types: ~10 us)
        return True
    cache_file = getattr(getattr(kernel, "_cache", None), "_cache_file", None)
    index = getattr(cache_file, "_index_path", None)
    return index is not None and os.path.exists(index)


def _charge(kernel: Any, work: int, limit: int, alternative: bool) -> bool:
    """Add ``work`` to the process's account of ``kernel`` if it stays within the kernel's budget."""
    factor = getattr(kernel, "interpreted_budget", None)
    key = (kernel, alternative)
    spent = _interpreted_work.get(key, 0) + work
    if spent > (INTERPRETED_BUDGET if factor is None else factor) * limit:
        return False
    _interpreted_work[key] = spent
    return True


def cold_alternative(kernel: Any, work: int) -> bool:
    """Whether a caller should take its own path that avoids ``kernel`` (e.g. numpy, or other kernels).

    True while ``kernel`` is neither compiled in this process nor in its
    on-disk cache and the process's work on such paths, ``work`` included,
    stays within the budget of the kernel's decorator (``interpreted_budget``
    times ``cold_alternative_work``; the work is then charged): a cold start
    avoids compiling the kernel, and a process that keeps calling pays at most
    about one compile time more than compiling at once.  False within
    :func:`every_kernel_compiled` or for a kernel without ``cold_alternative_work``.
    """
    owner = getattr(kernel, "budget_of", kernel)
    limit = getattr(owner, "cold_alternative_work", None)
    return limit is not None and not _compiled_or_cached(kernel) and _charge(owner, work, limit, True)


def call_kernel(
    kernel: Any,
    *args: Any,
    work: int,
    interpretable: bool = True,
    compiled_callees: bool = False,
    fastmath: bool = False,
) -> Any:
    """Call a kernel, run by the Python interpreter when its work is small.

    Compiling a kernel costs 0.1-2 s of CPU once per cache (and per process
    with an empty or unwritable cache), while a small call runs in
    milliseconds interpreted.  When ``work`` (the caller's count of the
    kernel's inner-loop steps) is at most the ``interpreted_max_work`` of the
    kernel's decorator (:func:`njit`) and the process has not yet spent the
    kernel's budget (``interpreted_budget``, default :data:`INTERPRETED_BUDGET`,
    times that limit), the kernel's own Python source (:func:`interpreted`:
    ``kernel.py_func``, with the kernels it calls interpreted too) runs instead
    of its compiled version, unless the compiled kernel is at hand (compiled in
    this process or in its cache, see :data:`USE_COMPILED_WHEN_AVAILABLE`).  It
    is the same code, so the same IEEE-754 operations in the same order and
    bit-identical results (numba compiles without fast-math, so it neither
    reorders nor fuses floating-point operations).  Only for kernels (and
    callees) compiled without ``fastmath`` and using no numba-only feature; a
    test compares each such kernel's interpreted and compiled outputs bit for
    bit.

    Parameters
    ----------
    kernel : numba dispatcher
        A kernel decorated with :func:`njit` (or a plain function when numba's
        JIT is disabled).
    *args
        The kernel's arguments.
    work : int
        Inner-loop steps of this call, in the unit of the decorator's limit.
    interpretable : bool, default True
        False when this input needs the compiled kernel (e.g. fast-math sums
        of more than three terms): never interpreted.
    compiled_callees : bool, default False
        Interpret only the kernel's own loop (``kernel.py_func``) and let it
        call the compiled versions of the kernels it calls (for a loop around
        an expensive per-item kernel, or a callee whose interpreted arithmetic
        would differ, e.g. one compiled with ``fastmath``).
    fastmath : bool, default False
        Interpret the callees compiled with ``fastmath`` too (see
        :func:`interpreted`): the caller guarantees that their sums have a single
        order on this input.

    Returns
    -------
    object
        What the kernel returns.
    """
    owner = getattr(kernel, "budget_of", kernel)
    limit = getattr(owner, "interpreted_max_work", -1)
    if (
        interpretable
        and work <= limit
        and not _every_kernel_compiled[0]
        and not (USE_COMPILED_WHEN_AVAILABLE and _compiled_or_cached(kernel))
        and _charge(owner, work, limit, False)
    ):
        if compiled_callees:
            function = getattr(kernel, "py_func", kernel)
        else:
            function = interpreted(kernel, fastmath=fastmath)
        with np.errstate(all="ignore"):  # as compiled: overflow to inf, no warning
            return function(*args)
    return kernel(*args)


# ---------------------------------------------------------------- pin maintenance

_PIN_ENTRY = re.compile(r'("(?P<name>dstk\._kernels\.[A-Za-z_0-9.]+)"\s*:\s*")(?P<hash>[0-9a-f]*)(")')


def _pin_block(text: str) -> re.Match[str] | None:
    return re.search(PINS_NAME + r"\s*=\s*\{[^}]*\}", text)


def read_pins(path: str | os.PathLike[str]) -> dict[str, str]:
    """The pins written in a kernel module's source (empty if it has none)."""
    text = Path(path).read_text(encoding="utf-8")
    block = _pin_block(text)
    if block is None:
        return {}
    return {m["name"]: m["hash"] for m in _PIN_ENTRY.finditer(block.group(0))}


def module_path(module_name: str, package_dir: str | os.PathLike[str]) -> Path:
    """Source file of ``dstk._kernels.<name>`` inside the ``dstk/_kernels`` directory ``package_dir``."""
    return Path(package_dir) / (module_name.rsplit(".", 1)[-1] + ".py")


def update_pins(package_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """Rewrite every stale pin of the kernel modules in ``package_dir`` (default: this package).

    Modules are updated until nothing changes, so that a new pin in a called
    module propagates to its callers.  Returns the files changed.
    """
    package_dir = Path(package_dir) if package_dir is not None else Path(__file__).parent
    changed: list[str] = []
    for _ in range(64):
        round_changed = False
        for path in sorted(package_dir.glob("*.py")):
            text = path.read_text(encoding="utf-8")
            block = _pin_block(text)
            if block is None:
                continue

            def repin(m: re.Match[str]) -> str:
                return m.group(1) + source_hash(module_path(m["name"], package_dir)) + m.group(4)

            new_block = _PIN_ENTRY.sub(repin, block.group(0))
            if new_block != block.group(0):
                path.write_text(text[: block.start()] + new_block + text[block.end() :], encoding="utf-8")
                round_changed = True
                if str(path) not in changed:
                    changed.append(str(path))
        if not round_changed:
            return changed
    raise RuntimeError("kernel pins did not converge: the kernel modules import each other in a cycle")


if __name__ == "__main__":
    for name in update_pins(sys.argv[1] if len(sys.argv) > 1 else None):
        print(f"updated {name}")
