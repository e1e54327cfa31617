"""What a newcomer meets first: install hints, the README, the command line, the docs extra.

* Every ``pip install`` hint names the distribution ``dstk-belief`` (``dstk`` on the package index is
  another project).
* The README's performance section stays a short table of headline rows, and its links work on the
  package index page (absolute).
* ``dstk --version`` and ``dstk -h`` answer.
* The ``docs`` extra installs every package that the documentation build imports (the notebooks are
  executed by the build).
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

import dstk
from dstk.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def text_files():
    for folder, patterns in [
        ("dstk", ("*.py",)),
        ("docs", ("*.rst", "*.md", "*.py")),
        ("notebooks", ("*.ipynb",)),
        ("benchmarks", ("*.py", "*.md")),
        ("experiments", ("*.py",)),
    ]:
        for pattern in patterns:
            yield from (ROOT / folder).rglob(pattern)
    yield README
    yield ROOT / "CONTRIBUTING.md"


PIP_HINT = re.compile(r"pip3? install\s+(?:-U\s+|--upgrade\s+)?[\"'`]?(dstk[\w.-]*)(\[[^\]]*\])?")


def test_install_hints_name_the_distribution():
    wrong = []
    for path in text_files():
        if "_build" in path.parts:
            continue
        for match in PIP_HINT.finditer(path.read_text(encoding="utf-8")):
            if match.group(1) != "dstk-belief":
                wrong.append(f"{path.relative_to(ROOT)}: {match.group(0)!r}")
    assert not wrong, "install hints must say dstk-belief[...]:\n" + "\n".join(wrong)


def test_the_hint_pattern_catches_the_wrong_name():
    assert PIP_HINT.search("install it with `pip install dstk[sklearn]`").group(1) == "dstk"
    assert PIP_HINT.search('pip install "dstk-belief[plot]"').group(1) == "dstk-belief"


def performance_rows():
    text = README.read_text(encoding="utf-8")
    start = text.index("## Performance")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end > 0 else len(text)]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return section, rows[2:]  # header and separator


def test_readme_performance_section_is_a_short_table():
    section, rows = performance_rows()
    assert 1 <= len(rows) <= 8, f"keep at most 8 headline rows in the README ({len(rows)})"
    for row in rows:
        assert len(row) <= 160, f"a README performance row is {len(row)} characters long: {row[:80]}..."
    words = len(README.read_text(encoding="utf-8").split())
    assert len(section.split()) < 0.25 * words, "the performance section should be a small part of the README"


def test_readme_links_are_absolute():
    text = README.read_text(encoding="utf-8")
    relative = [
        target
        for target in re.findall(r"\]\(([^)]+)\)", text)
        if not target.startswith(("http://", "https://", "#", "mailto:"))
    ]
    assert not relative, f"README links must be absolute to work on the package index page: {relative}"


def test_version_and_help_flags(capsys):
    for flag in ("--version", "-V", "version"):
        assert main([flag]) == 0
        assert capsys.readouterr().out.strip() == dstk.__version__
    assert main(["--help"]) == 0
    assert "--version" in capsys.readouterr().out


def test_demo_help_is_plain_text():
    pytest.importorskip("sklearn")
    result = subprocess.run(
        [sys.executable, "-m", "dstk", "demo", "--help"], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0
    assert "``" not in result.stdout and ":func:" not in result.stdout and ":class:" not in result.stdout


#: import name -> distribution, for the packages the documentation build may import
DISTRIBUTIONS = {
    "sklearn": "scikit-learn",
    "matplotlib": "matplotlib",
    "dask": "dask",
    "distributed": "dask",
    "pandas": "pandas",
    "skops": "skops",
    "tqdm": "tqdm",
    "numpy": "numpy",
    "scipy": "scipy",
    "numba": "numba",
}


def notebook_imports(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    source = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")
    source = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_docs_extra_covers_what_the_docs_build_imports():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    provided = {
        re.split(r"[<>=\[ ;]", requirement)[0] for requirement in project["optional-dependencies"]["docs"]
    }
    provided |= {re.split(r"[<>=\[ ;]", requirement)[0] for requirement in project["dependencies"]}
    missing = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for name in notebook_imports(path):
            if name in DISTRIBUTIONS and DISTRIBUTIONS[name] not in provided:
                missing.setdefault(DISTRIBUTIONS[name], []).append(path.name)
    assert not missing, f"the docs extra lacks what the executed notebooks import: {missing}"


def test_estimators_inherit_scikit_learns_base():
    sklearn_base = pytest.importorskip("sklearn.base")
    import inspect as inspect_module

    import dstk.calibration
    import dstk.calibration.probabilistic
    import dstk.classifiers
    import dstk.ensemble
    import dstk.multiclass

    estimators = []
    for package in (
        dstk.calibration,
        dstk.calibration.probabilistic,
        dstk.classifiers,
        dstk.ensemble,
        dstk.multiclass,
    ):
        for name in package.__all__:
            obj = getattr(package, name)
            if inspect_module.isclass(obj) and hasattr(obj, "fit") and hasattr(obj, "get_params"):
                estimators.append(obj)
    assert len(estimators) >= 9
    outside = [cls.__name__ for cls in estimators if not issubclass(cls, sklearn_base.BaseEstimator)]
    assert not outside, f"estimators that do not inherit sklearn.base.BaseEstimator: {outside}"
