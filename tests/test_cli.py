"""The command line: ``python -m dstk``."""

import subprocess
import sys

import dstk
from dstk.__main__ import main


def test_help_version_and_unknown(capsys):
    assert main([]) == 0
    assert "demo" in capsys.readouterr().out
    assert main(["version"]) == 0
    assert capsys.readouterr().out.strip() == dstk.__version__
    assert main(["nope"]) == 2
    assert "unknown command 'nope'" in capsys.readouterr().err


def test_module_entry_point_runs():
    result = subprocess.run(
        [sys.executable, "-m", "dstk", "version"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0 and result.stdout.strip() == dstk.__version__


def test_import_does_not_load_optional_or_heavy_modules():
    code = (
        "import sys, dstk; "
        "heavy = [m for m in ('numba', 'scipy', 'sklearn', 'matplotlib', 'dask') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == ""
