"""Code that readers see stays within 88 columns, so nothing scrolls sideways on the docs' theme.

Checked without executing anything: the code cells of ``notebooks/*.ipynb``, the code blocks of the
reStructuredText pages under ``docs/`` (``.. code-block::``, ``.. plot::``, ``::`` literal blocks and
``>>>`` lines) and the fenced code blocks of ``README.md``.  The outputs of the notebooks are checked
where they are executed anyway (``tests/notebooks/test_notebooks.py``).
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAX_COLUMNS = 88

#: reST directives whose body is code shown on the page
CODE_DIRECTIVES = re.compile(r"^(\s*)\.\. (code-block|code|sourcecode|plot|doctest|testcode)::")
#: any other reST directive (its body is not code, even when the directive line ends with ``::``)
OTHER_DIRECTIVE = re.compile(r"^\s*\.\. [\w:-]+::")
DIRECTIVE_OPTION = re.compile(r"^\s*:[\w-]+:")

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
RST_PAGES = sorted(path for path in (ROOT / "docs").rglob("*.rst") if "_build" not in path.parts)


def indentation(line):
    return len(line) - len(line.lstrip())


def rst_code_lines(text):
    """``(line number, line)`` of every line of code shown by a reST page."""
    lines = text.splitlines()
    found = []
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if stripped.startswith((">>>", "... ")):
            found.append((index + 1, line))
        opens_block = bool(CODE_DIRECTIVES.match(line)) or (
            stripped.endswith("::") and not OTHER_DIRECTIVE.match(line)
        )
        if not opens_block:
            index += 1
            continue
        margin = indentation(line)
        index += 1
        while index < len(lines) and (not lines[index].strip() or indentation(lines[index]) > margin):
            body_line = lines[index]
            if body_line.strip() and not DIRECTIVE_OPTION.match(body_line):
                found.append((index + 1, body_line))
            index += 1
    return found


def markdown_code_lines(text):
    """``(line number, line)`` of every line inside the fenced code blocks of a Markdown file."""
    found = []
    inside = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("```"):
            inside = not inside
        elif inside:
            found.append((number, line))
    return found


def too_wide(lines):
    return [
        f"line {number} ({len(line)} columns): {line}" for number, line in lines if len(line) > MAX_COLUMNS
    ]


def test_the_parsers_find_code_blocks():
    page = """Text::

    short
    x = 1 + 2 + 3

.. code-block:: python
   :caption: an option is not code

   y = 2

.. math::

   a = b

.. list-table:: A table::

   * - cell

>>> z = 3
"""
    assert [line.strip() for _, line in rst_code_lines(page)] == [
        "short",
        "x = 1 + 2 + 3",
        "y = 2",
        ">>> z = 3",
    ]
    markdown = "prose\n```bash\npip install x\n```\nprose\n"
    assert markdown_code_lines(markdown) == [(3, "pip install x")]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_notebook_code_lines_fit(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    wide = []
    for number, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "code":
            source = "".join(cell["source"])
            wide += [f"cell {number}: {problem}" for problem in too_wide(enumerate(source.splitlines(), 1))]
    assert not wide, f"{path.name}: code lines wider than {MAX_COLUMNS} columns:\n" + "\n".join(wide)


@pytest.mark.parametrize("path", RST_PAGES, ids=lambda path: str(path.relative_to(ROOT)))
def test_documentation_code_blocks_fit(path):
    wide = too_wide(rst_code_lines(path.read_text(encoding="utf-8")))
    assert not wide, f"{path.name}: code lines wider than {MAX_COLUMNS} columns:\n" + "\n".join(wide)


def test_readme_code_blocks_fit():
    wide = too_wide(markdown_code_lines((ROOT / "README.md").read_text(encoding="utf-8")))
    assert not wide, f"README.md: code lines wider than {MAX_COLUMNS} columns:\n" + "\n".join(wide)
