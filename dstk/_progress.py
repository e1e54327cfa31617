"""Progress of long fits: ``verbose=`` through :mod:`logging` and a :mod:`tqdm` bar when tqdm is installed.

One small utility shared by the estimators.  ``verbose=0`` is silent and
costs nothing; ``verbose >= 1`` logs one INFO record per step to the
``"dstk"`` logger (elapsed time included) and shows a tqdm progress bar when
tqdm is importable.  Without tqdm and without any logging configuration the
records go to standard error, so that ``verbose=1`` is never silent.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

__all__ = ["progress", "logger"]

T = TypeVar("T")

logger = logging.getLogger("dstk")


def _check_verbose(verbose: Any) -> int:
    if isinstance(verbose, bool) or (not isinstance(verbose, int) and not hasattr(verbose, "__index__")):
        if isinstance(verbose, bool):
            return int(verbose)
        raise ValueError(f"`verbose` must be a non-negative integer (0 = silent); got {verbose!r}.")
    value = int(verbose)
    if value < 0:
        raise ValueError(f"`verbose` must be a non-negative integer (0 = silent); got {verbose!r}.")
    return value


def _tqdm():
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm


def progress(
    iterable: Iterable[T], *, total: int | None = None, verbose: Any = 0, description: str = "steps"
) -> Iterator[T]:
    """Yield the items of ``iterable``, reporting progress when ``verbose`` is positive.

    Parameters
    ----------
    iterable : iterable
        The steps (fold results, trees, chunks, ...).
    total : int, optional
        Number of steps, when ``iterable`` has no ``len``.
    verbose : int, default 0
        0: silent.  1 or more: an INFO record per step on the ``"dstk"``
        logger and a tqdm bar (when tqdm is installed).
    description : str, default "steps"
        What is counted, shown in the bar and in the records.

    Yields
    ------
    object
        The items of ``iterable``, unchanged.
    """
    level = _check_verbose(verbose)
    if level == 0:
        yield from iterable
        return
    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)  # type: ignore[arg-type]
    tqdm = _tqdm()
    stderr_handler = None
    if tqdm is None and not logger.hasHandlers():
        stderr_handler = logging.StreamHandler(sys.stderr)
        stderr_handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        logger.addHandler(stderr_handler)
    previous_level = logger.level
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    # the bar is drawn before the first step runs (it may compile kernels: the longest wait) and stays
    bar = tqdm(total=total, desc=description, leave=True, file=sys.stderr) if tqdm is not None else None
    start = time.perf_counter()
    logger.info(
        "%s: 0%s (the first step may compile numba kernels)", description, f"/{total}" if total else ""
    )
    count = 0
    try:
        for item in iterable:
            count += 1
            if bar is not None:
                bar.update(1)
            of = f"/{total}" if total is not None else ""
            logger.info("%s %d%s done (%.1f s)", description, count, of, time.perf_counter() - start)
            yield item
    finally:
        if bar is not None:
            bar.close()
        logger.setLevel(previous_level)
        if stderr_handler is not None:
            logger.removeHandler(stderr_handler)
