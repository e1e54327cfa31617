"""The documentation builds with Sphinx, warnings as errors.

Skipped when Sphinx, numpydoc or myst-nb is not installed (they are in the
``test`` extra).  The build is fresh (``-E``) into a temporary directory, so
a warning from any page, docstring or notebook fails it; nothing is
executed (notebooks render from their stored cells).
"""

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("numpydoc")
pytest.importorskip("myst_nb")

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_sphinx_build_has_no_warnings(tmp_path):
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-W",
        "--keep-going",
        "-E",
        "-q",
        "-b",
        "html",
        "-d",
        str(tmp_path / "doctrees"),
        str(DOCS),
        str(tmp_path / "html"),
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, (
        "sphinx-build -W failed; fix the warnings below (docstring reST errors show the module and line):\n"
        + result.stderr[-20000:]
    )
    assert (tmp_path / "html" / "index.html").exists()
    assert (tmp_path / "html" / "api" / "generated" / "dstk.core.html").exists()
