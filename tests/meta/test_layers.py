"""Layers that import one way: the import-linter contracts of ``pyproject.toml`` hold.

Layers (lower never imports higher): ``dstk._kernels`` and the shared private
helpers < ``dstk.core`` < ``dstk.evidence`` < the application layers
(``dstk.calibration`` with ``dstk.multiclass``, ``dstk.ensemble``,
``dstk.classifiers``), which do not import each other < ``dstk.metrics``,
``dstk.plot``, ``dstk.dask``.  Inside ``dstk.core`` and ``dstk.dask`` the
mass-function class sits below the function modules.  Imports under
``TYPE_CHECKING`` are not counted.  import-linter is part of the ``test``
extra: the gate fails, never skips, when it is missing.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_import_linter_contracts_are_kept():
    assert importlib.util.find_spec("importlinter") is not None, (
        "import-linter is missing: install the test extra (pip install -e '.[test]'); the layer gate must run"
    )
    environment = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    command = [
        sys.executable,
        "-c",
        "import sys; from importlinter.cli import lint_imports; "
        "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True))",
    ]
    result = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, (
        "import-linter found imports that run against the layers of pyproject.toml [tool.importlinter]; "
        "move the shared code down a layer (or delegate as MassFunction does) instead of importing upwards:\n"
        + result.stdout[-20000:]
        + result.stderr[-5000:]
    )
