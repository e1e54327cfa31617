"""What importing the core names loads: no scipy submodule that the core names do not need.

Not a timed test: the import's CPU time is measured by ``benchmarks/bench_cold_start.py --imports``
(``benchmarks/results/cold_start.md``); this only keeps heavy modules out of ``import dstk``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import json, sys
import dstk
from dstk import Frame, MassFunction, combine
print(json.dumps(sorted(sys.modules)))
"""

#: Heavy modules that the core names do not need at import time (each loaded on first use).
NOT_AT_IMPORT = ("scipy.special", "scipy.optimize", "scipy.stats", "scipy.linalg", "sklearn", "matplotlib")


def test_importing_the_core_names_leaves_heavy_scipy_modules_unloaded():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
        check=True,
    )
    modules = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert "dstk.core" in modules
    loaded = sorted(name for name in NOT_AT_IMPORT if name in modules)
    assert not loaded, f"`import dstk` loads {loaded}: import them where they are used"
