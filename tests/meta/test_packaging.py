"""``python -m build`` makes a wheel and an sdist that install into a fresh venv and import.

Slow (a fresh virtual environment and an isolated build, about a minute with
a warm pip cache), hence ``@pytest.mark.slow``.  Skipped when the ``build``
package is missing (it is in the ``test`` extra).  Needs the package index
(or a pip cache) for setuptools, numpy, scipy and numba.
"""

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("build")

ROOT = Path(__file__).resolve().parents[2]

SMOKE = r"""
import sys
import numpy as np
import dstk
from dstk import MassFunction, combine, combine_with_conflict
assert dstk.__file__.startswith(sys.prefix), dstk.__file__
m1 = MassFunction({"a": 0.6, "a,b": 0.4})
m2 = MassFunction({"b": 0.7, "a,b": 0.3})
m, kappa = combine_with_conflict([m1, m2], rule="dempster")
assert abs(kappa - 0.42) < 1e-12 and abs(m.bel("a") - 0.18 / 0.58) < 1e-12
import dstk.evidence, dstk.exceptions
assert "matplotlib" not in sys.modules and "sklearn" not in sys.modules
from importlib.metadata import version
assert dstk.__version__ == version("dstk-belief"), dstk.__version__
print("ok", dstk.__version__)
"""


def _run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, timeout=900, **kwargs)
    assert result.returncode == 0, (
        f"{' '.join(map(str, command))} failed:\n{result.stdout[-5000:]}\n{result.stderr[-5000:]}"
    )
    return result


@pytest.mark.slow
def test_wheel_and_sdist_install_into_a_fresh_venv(tmp_path):
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(dist), str(ROOT)])
    wheels = sorted(dist.glob("dstk_belief-*.whl"))
    sdists = sorted(dist.glob("dstk_belief-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in dist.iterdir())

    wheel_names = zipfile.ZipFile(wheels[0]).namelist()
    assert "dstk/core/_mass.py" in wheel_names and "dstk/_kernels/combination.py" in wheel_names
    assert not [n for n in wheel_names if n.startswith(("tests/", "benchmarks/", "docs/"))]
    assert not [n for n in wheel_names if n.endswith((".nbi", ".nbc", ".pyc"))], "numba/pyc caches packaged"
    assert "dstk/py.typed" in wheel_names, "py.typed marker missing (PEP 561)"
    metadata_name = next(n for n in wheel_names if n.endswith(".dist-info/METADATA"))
    metadata = zipfile.ZipFile(wheels[0]).read(metadata_name).decode()
    assert "Name: dstk-belief" in metadata
    assert "License-Expression: BSD-3-Clause" in metadata, "SPDX license expression missing"
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in wheel_names), "LICENSE not shipped"
    assert "Programming Language :: Python :: 3.13" in metadata
    assert "Requires-Dist: scipy>=1.11" in metadata
    sdist_names = tarfile.open(sdists[0]).getnames()
    prefix = sdist_names[0].split("/")[0]
    for required in ("pyproject.toml", "README.md", "dstk/__init__.py", "dstk/core/_mass.py"):
        assert f"{prefix}/{required}" in sdist_names, f"{required} missing from the sdist"

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    outside = {"cwd": str(tmp_path)}  # not the repository, so the checkout cannot shadow the install

    _run([str(python), "-m", "pip", "install", "--quiet", str(wheels[0])], **outside)
    assert _run([str(python), "-c", SMOKE], **outside).stdout.startswith("ok")

    _run(
        [str(python), "-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps", str(sdists[0])],
        **outside,
    )
    assert _run([str(python), "-c", SMOKE], **outside).stdout.startswith("ok")
