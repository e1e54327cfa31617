"""The ``>>>`` examples of the user guide, the getting-started pages and the installation page run as doctests."""

import doctest
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
GUIDE = DOCS / "guide"
PAGES = (
    sorted(GUIDE.glob("*.rst")) + sorted((DOCS / "getting_started").glob("*.rst")) + [DOCS / "install.rst"]
)
NEEDS = {
    "ensembles.rst": "sklearn",
    "classifiers.rst": "sklearn",
    "dirichlet_evidence.rst": "sklearn",
    "sklearn.rst": "pandas",
    "persistence.rst": "skops",
    "combining_classifiers.rst": "sklearn",
    "exploring_belief.rst": "matplotlib",
}


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_guide_page_examples(page):
    if page.name in NEEDS:
        pytest.importorskip(NEEDS[page.name])
    result = doctest.testfile(
        str(page),
        module_relative=False,
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
        verbose=False,
    )
    assert result.failed == 0, (
        f"{result.failed} of {result.attempted} examples failed in {page.name} (output above)"
    )
