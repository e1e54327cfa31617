"""`import dstk` never imports matplotlib; `import dstk.plot` without matplotlib says how to install it."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(code):
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_import_dstk_does_not_import_matplotlib():
    result = run(
        "import sys, dstk; dstk.Frame; dstk.evidence; assert 'matplotlib' not in sys.modules, 'imported'"
    )
    assert result.returncode == 0, result.stderr


def test_missing_matplotlib_gives_install_hint():
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "try:\n    import dstk.plot\nexcept ImportError as exc:\n    print(exc)\nelse:\n    print('no error')\n"
    )
    result = run(code)
    assert result.returncode == 0, result.stderr
    assert 'pip install "dstk-belief[plot]"' in result.stdout, result.stdout


def test_every_public_function_takes_ax_and_returns_it():
    import inspect

    import dstk.plot

    #: functions that draw a figure of several panels and return the Figure
    multi_panel = {"reliability_diagram"}
    for name in dstk.plot.__all__:
        if name in multi_panel:
            continue
        function = getattr(dstk.plot, name)
        assert "ax" in inspect.signature(function).parameters, name
        assert inspect.signature(function).parameters["ax"].default is None, name
