"""``import dstk.plot`` leaves matplotlib unimported until a plot is drawn; a missing matplotlib still says how to
install it, at import time."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(code):
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_import_dstk_plot_does_not_import_matplotlib():
    code = (
        "import sys, dstk, dstk.plot\n"
        "from dstk.plot import plot_mass\n"
        "assert not [m for m in sys.modules if m.split('.')[0] == 'matplotlib'], 'imported on import'\n"
        "import matplotlib; matplotlib.use('Agg')\n"
        "ax = plot_mass(dstk.MassFunction({'a': 0.5, 'a,b': 0.5}))\n"
        "assert 'matplotlib.pyplot' in sys.modules and ax.figure is not None\n"
    )
    result = run(code)
    assert result.returncode == 0, result.stderr


def test_every_plot_function_draws_after_a_lazy_import():
    code = (
        "import matplotlib; matplotlib.use('Agg')\n"
        "import dstk.plot as p\n"
        "p.plot_count_models(max_sample_size=6)\n"
        "p.reliability_diagram(__import__('dstk.metrics').metrics.reliability_bands([0, 1, 1], [0.2, 0.7, 0.9]))\n"
    )
    result = run(code)
    assert result.returncode == 0, result.stderr
