"""The documentation builds with Sphinx, warnings as errors.

Skipped when Sphinx, numpydoc or myst-nb is not installed (they are in the
``test`` extra).  The build is fresh (``-E``) into a temporary directory, so
a warning from any page, docstring or notebook fails it.  The notebooks are
executed by the build (myst-nb) and the guide pages draw figures with the
plot directive; the test counts the images of every example and guide page
in the built HTML, so a site without figures fails.
"""

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("numpydoc")
pytest.importorskip("myst_nb")

DOCS = Path(__file__).resolve().parents[2] / "docs"
NOTEBOOKS = DOCS.parent / "notebooks"

#: guide pages (docs/guide/<name>.rst) that must show at least one figure
GUIDE_PAGES_WITH_FIGURES = sorted(
    path.stem for path in (DOCS / "guide").glob("*.rst") if ".. plot::" in path.read_text(encoding="utf-8")
)
#: guide pages that are reference text (tables, conventions) or the guide's table of contents
GUIDE_PAGES_WITHOUT_FIGURES = {"conventions", "choosing_a_rule", "persistence", "sklearn", "index"}


def count_images(html_path):
    return html_path.read_text(encoding="utf-8").count("<img ")


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
    html = tmp_path / "html"
    assert (html / "api" / "generated" / "dstk.core.html").exists()

    notebook_pages = sorted((html / "examples" / "notebooks").glob("*.html"))
    assert len(notebook_pages) == len(list(NOTEBOOKS.glob("*.ipynb")))
    without = [page.name for page in notebook_pages if count_images(page) == 0]
    assert not without, f"example pages without a figure (the notebooks did not execute?): {without}"

    guide_pages = sorted((DOCS / "guide").glob("*.rst"))
    missing = [
        page.stem
        for page in guide_pages
        if page.stem not in GUIDE_PAGES_WITHOUT_FIGURES and page.stem not in GUIDE_PAGES_WITH_FIGURES
    ]
    assert not missing, f"guide pages must open with a runnable example and a figure (.. plot::): {missing}"
    for name in GUIDE_PAGES_WITH_FIGURES:
        page = html / "guide" / f"{name}.html"
        assert count_images(page) >= 1, f"guide page {name} shows no figure"

    # the site's front: a landing page with a figure, installation, getting started, changelog
    assert count_images(html / "index.html") >= 1, "the landing page shows no figure"
    for page in ("install", "changelog", "getting_started/index"):
        assert (html / f"{page}.html").exists(), f"the docs site has no {page} page"
    for page in (DOCS / "getting_started").glob("*.rst"):
        if page.stem != "index":
            assert count_images(html / "getting_started" / f"{page.stem}.html") >= 1, page.stem
    assert "0.3.0" in (html / "changelog.html").read_text(encoding="utf-8")
    # every plot function's API page shows its figure
    import dstk.plot

    plot_functions = list(dstk.plot.__all__)
    assert plot_functions
    without = [
        name
        for name in plot_functions
        if count_images(html / "api" / "generated" / f"dstk.plot.{name}.html") == 0
    ]
    assert not without, f"dstk.plot API pages without a figure: {without}"
    # API pages link the notebooks that use the name
    combine_page = (html / "api" / "generated" / "dstk.core.combine.html").read_text(encoding="utf-8")
    assert "Examples using this" in combine_page
