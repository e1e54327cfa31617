"""``dstk.compile_kernels`` / ``python -m dstk compile``: a cache written ahead leaves nothing to compile.

The property the feature promises is checked without timing: after
:func:`dstk.compile_kernels` in one process, a second process using the same
(fresh) ``NUMBA_CACHE_DIR`` runs a forest fit + ``predict_proba`` and
``combine`` calls at other sizes than the compile step used, and numba reports
no compilation at all (``numba.core.event`` records every compilation, cache
loads are not compilations).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import dstk
from dstk.__main__ import main

ROOT = Path(__file__).resolve().parents[1]

USE = r"""
import json
import numpy as np
from numba.core import event
from dstk import Frame, MassFunction, combine
from dstk.ensemble import RandomDecisionTreesClassifier

rng = np.random.default_rng(7)
X = rng.normal(size=(3_000, 9))
y = (X[:, 0] + 0.5 * rng.normal(size=3_000) > 0).astype(int) + (X[:, 1] > 1.0)
binary = np.zeros((20_000, 2, 4))
binary[..., 1:] = rng.dirichlet(np.ones(3), size=(20_000, 2))
ternary = np.zeros((30_000, 2, 8))
ternary[..., 1:] = rng.dirichlet(np.ones(7), size=(30_000, 2))
with event.install_recorder("numba:compile") as recorder:
    forest = RandomDecisionTreesClassifier(20, random_state=1).fit(X, y)
    proba = forest.predict_proba(X[:500])
    combined = combine(MassFunction.from_array(binary, Frame((0, 1))), axis=1)
    a, b = (MassFunction.from_array(np.ascontiguousarray(ternary[:, i]), Frame("abc")) for i in range(2))
    pair = combine([a, b])
compiled = sorted({str(e.data.get("dispatcher", "?")) for _, e in recorder.buffer if e.is_start})
print(json.dumps({"compiled": compiled, "events": len(recorder.buffer),
                  "proba_sum": float(proba.sum()), "rows": int(combined.to_array().shape[0] + pair.to_array().shape[0])}))
"""


def _run(code: str, cache: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS="1")
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        env=env,
        cwd=cache,
        capture_output=True,
        text=True,
        timeout=1800,
    )


@pytest.mark.slow
def test_a_cache_written_ahead_leaves_nothing_to_compile():
    cache = tempfile.mkdtemp(prefix="dstk-compile-test-")
    try:
        written = _run(
            "import json, dstk; print(json.dumps(dstk.compile_kernels(parts=('combination', 'trees'))))",
            cache,
        )
        assert written.returncode == 0, written.stderr[-3000:]
        report = json.loads(written.stdout.strip().splitlines()[-1])
        assert set(report) == {"combination", "trees"}
        assert report["trees"]["compiled"] > 20  # the fresh cache was empty: the trees' kernels compiled
        used = _run(USE, cache)
        assert used.returncode == 0, used.stderr[-3000:]
        out = json.loads(used.stdout.strip().splitlines()[-1])
        assert out["compiled"] == [], f"compiled in spite of the cache: {out['compiled']}"
        assert out["events"] == 0
        assert out["proba_sum"] == pytest.approx(500.0)
        assert out["rows"] == 50_000
    finally:
        import shutil

        shutil.rmtree(cache, ignore_errors=True)


def test_every_kernel_compiled_gives_the_same_bits():
    """Within the context a small call runs the compiled kernel, with the interpreted call's bits."""
    from dstk._kernels import _jit

    rng = np.random.default_rng(0)
    data = np.zeros((40, 2, 4))
    data[..., 1:] = rng.dirichlet(np.ones(3), size=(40, 2))
    m = dstk.MassFunction.from_array(data, dstk.Frame((0, 1)))
    previous = _jit.USE_COMPILED_WHEN_AVAILABLE
    _jit.USE_COMPILED_WHEN_AVAILABLE = False  # the small call outside runs interpreted
    try:
        interpreted = dstk.combine(m, axis=1).to_array()
        with _jit.every_kernel_compiled():
            assert _jit._compiled_or_cached(lambda: None)
            compiled = dstk.combine(m, axis=1).to_array()
    finally:
        _jit.USE_COMPILED_WHEN_AVAILABLE = previous
    assert not _jit._every_kernel_compiled[0]
    np.testing.assert_array_equal(compiled, interpreted)
    # Dempster's rule of the first row's two sources, from the definition (sum over intersecting focal sets)
    m1, m2 = data[0, 0], data[0, 1]
    joint = np.zeros(4)
    for i in range(4):
        for j in range(4):
            joint[i & j] += m1[i] * m2[j]
    np.testing.assert_allclose(compiled[0], np.r_[0.0, joint[1:] / joint[1:].sum()], rtol=1e-12)


def test_command_line(capsys):
    assert main(["compile", "--help"]) == 0
    assert "trees" in capsys.readouterr().out
    assert main(["compile", "nope"]) == 2
    assert "`parts`" in capsys.readouterr().err
    assert main([]) == 0
    assert "compile" in capsys.readouterr().out
