"""Execute every notebook in ``notebooks/`` top to bottom (nbclient + ipykernel); any error fails the test.

The notebooks are committed without outputs; this test is what keeps them from rotting.  A notebook whose
library layer is not importable is skipped with the reason (so the suite says what is missing).
"""

import importlib
import os
import re
import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"

#: notebook -> (module, names) it needs beyond the core, the evidence layer and matplotlib
REQUIREMENTS = {
    "01_mass_functions.ipynb": [],
    "02_count_models.ipynb": [],
    "03_evidential_calibration.ipynb": [
        ("sklearn", []),
        ("dstk.calibration", ["BinningCalibrator", "IsotonicCalibrator", "LogisticCalibrator"]),
    ],
    "04_combining_classifiers.ipynb": [
        ("sklearn.frozen", []),
        (
            "dstk.calibration",
            [
                "BinningCalibrator",
                "EvidentialCalibratedClassifier",
                "EvidentialFusionClassifier",
                "combine_classifiers",
            ],
        ),
    ],
    "05_random_trees.ipynb": [
        ("sklearn", []),
        ("dstk.ensemble", ["RandomDecisionTreesClassifier", "combine_leaves"]),
    ],
    "07_evidential_classifiers.ipynb": [
        ("sklearn", []),
        (
            "dstk.classifiers",
            [
                "EvidentialKNNClassifier",
                "EvidentialNeuralNetworkClassifier",
                "logistic_evidence",
            ],
        ),
        (
            "dstk.calibration",
            ["EvidentialCalibratedClassifier", "EvidentialFusionClassifier", "combine_classifiers"],
        ),
    ],
    "06_dask_fusion.ipynb": [
        ("dask.array", []),
        ("dask.distributed", []),
        ("dstk.dask", []),
    ],
    "08_diagnostics_and_conformal.ipynb": [
        ("sklearn", []),
        ("dstk.calibration", ["ConformalBeliefClassifier", "VennMulticlassClassifier"]),
        ("dstk.metrics", ["corp_decomposition", "reliability_bands"]),
    ],
    "09_reasoning.ipynb": [
        ("dstk.reasoning", ["Valuation", "ValuationNetwork", "Variable"]),
    ],
    "10_real_line.ipynb": [
        ("sklearn", []),
        ("dstk.reasoning", ["GaussianRandomFuzzyNumber", "combine_grfn"]),
        ("dstk.classifiers", ["EvidentialRegressor"]),
    ],
}

#: every notebook in the folder is executed (one not listed above is run with no extra requirement)
ALL_NOTEBOOKS = sorted(set(REQUIREMENTS) | {path.name for path in NOTEBOOKS.glob("*.ipynb")})

#: output lines wider than this scroll sideways on the documentation's theme
MAX_OUTPUT_COLUMNS = 88

#: the repr of a matplotlib object left as a cell's value (end the cell with ``;``)
STRAY_ARTIST = re.compile(r"^\[?(<matplotlib\.|Text\(|Line2D\(|<Axes)")

#: each notebook must run in well under a minute on 2 cores (generous for a loaded CI machine)
TIME_LIMIT_SECONDS = 120


def output_problems(notebook):
    """Output lines wider than ``MAX_OUTPUT_COLUMNS`` and stray matplotlib reprs, cell by cell."""
    problems = []
    for number, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                text = output.text
            elif output.output_type in ("execute_result", "display_data"):
                if "text/html" in output.data or "image/png" in output.data:
                    continue  # the page shows the HTML or the image, not the plain text
                text = output.data.get("text/plain", "")
                if output.output_type == "execute_result" and STRAY_ARTIST.match(text):
                    problems.append(f"cell {number}: stray output {text[:60]!r} (end the cell with ';')")
            else:
                continue
            problems += [
                f"cell {number} ({len(line)} columns): {line[:120]}"
                for line in text.splitlines()
                if len(line) > MAX_OUTPUT_COLUMNS
            ]
    return problems


def missing_requirement(requirements):
    for module_name, names in requirements:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            return f"{module_name} is not importable ({exc})"
        absent = [name for name in names if not hasattr(module, name)]
        if absent:
            return f"{module_name} does not provide {absent} yet"
    return None


@pytest.mark.parametrize("name", ALL_NOTEBOOKS)
def test_notebook_outputs_are_stripped(name):
    path = NOTEBOOKS / name
    assert path.exists(), f"{name} is missing from notebooks/"
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, (
                f"{name}: commit it with outputs stripped"
            )


@pytest.mark.parametrize("name", ALL_NOTEBOOKS)
def test_notebook_runs(name):
    path = NOTEBOOKS / name
    assert path.exists(), f"{name} is missing from notebooks/"
    reason = missing_requirement(REQUIREMENTS.get(name, []))
    if reason:
        pytest.skip(f"{name} needs a layer that has not landed: {reason}")
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")  # this checkout's dstk
    env["MPLBACKEND"] = "Agg"
    start = time.perf_counter()
    client.execute(env=env)  # raises CellExecutionError (with the failing cell) on any error
    elapsed = time.perf_counter() - start
    assert elapsed < TIME_LIMIT_SECONDS, f"{name} took {elapsed:.0f} s"
    problems = output_problems(notebook)
    assert not problems, f"{name}: outputs wider than {MAX_OUTPUT_COLUMNS} columns or stray:\n" + "\n".join(
        problems
    )


def test_output_problems_finds_wide_lines_and_stray_artists():
    notebook = nbformat.v4.new_notebook()
    stream = nbformat.v4.new_output("stream", name="stdout", text="short\n" + "x" * 89 + "\n")
    stray = nbformat.v4.new_output("execute_result", data={"text/plain": "Text(0.5, 0.98, 'title')"})
    table = nbformat.v4.new_output("execute_result", data={"text/html": "<table/>", "text/plain": "y" * 200})
    notebook.cells = [
        nbformat.v4.new_code_cell("pass", outputs=outputs) for outputs in ([stream], [stray], [table])
    ]
    problems = output_problems(notebook)
    assert len(problems) == 2
    assert problems[0].startswith("cell 0 (89 columns)")
    assert problems[1].startswith("cell 1: stray output")
