"""Sphinx configuration of the dstk documentation.

Build (warnings are errors, as in ``tests/meta/test_docs.py``)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The notebooks under ``notebooks/`` are stored without outputs and executed
when the site builds (myst-nb, ``nb_execution_mode = "cache"``: a notebook
re-runs only when its cells change), so every example page shows its
figures; a failing cell fails the build.  Guide pages draw their figures
with matplotlib's ``plot`` directive, which runs the example code.
Docstring examples run as doctests in the test suite.
"""

import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))

import dstk

project = "dstk"
author = "dstk developers"
copyright = "dstk developers"
version = release = dstk.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
    "matplotlib.sphinxext.plot_directive",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "dev"]  # dev/: notes for maintainers, not pages
source_suffix = {".rst": "restructuredtext", ".ipynb": "myst-nb", ".md": "myst-nb"}
root_doc = "index"
default_role = "literal"

# -- API reference -----------------------------------------------------------------------------
autosummary_generate = True
autosummary_generate_overwrite = True
autosummary_imported_members = True  # subpackages re-export from private modules
autosummary_ignore_module_all = False  # a module's public names are its __all__
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # the numpydoc "Parameters" section carries the types
numpydoc_show_class_members = False  # methods are listed by the class template instead
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# -- notebooks ---------------------------------------------------------------------------------
nb_execution_mode = "cache"
nb_execution_cache_path = str(DOCS / "_build" / ".jupyter_cache")
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath"]
suppress_warnings = ["myst.header"]  # notebook headings are written for Jupyter, not for a toctree

# -- figures drawn by guide pages (matplotlib's plot directive) ----------------------------------
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]
plot_rcparams = {"figure.constrained_layout.use": True, "figure.figsize": (6.4, 3.6)}
plot_pre_code = "import numpy as np\nimport matplotlib.pyplot as plt"

# -- theme: a maintained theme with a wide content area (code stays within 88 columns) --------
html_theme = "pydata_sphinx_theme"
html_static_path = ["_static"]
html_css_files = ["custom.css"]  # wide content area, see docs/_static/custom.css
html_title = "dstk"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    # An API page documents one name: its "on this page" box would only repeat the title, so the
    # box is shown on the other pages only (a page matching no pattern gets none).
    "secondary_sidebar_items": {
        pattern: ["page-toc"]
        for pattern in (
            "index",
            "install",
            "changelog",
            "api/index",
            "getting_started/*",
            "guide/*",
            "dev/*",
            "examples/**",
        )
    },
    "footer_start": ["copyright"],
    "footer_end": [],
    "icon_links": [
        {
            "name": "Source on GitHub",
            "url": "https://github.com/dstk-belief/dstk-belief",
            "icon": "fa-brands fa-github",
        },
        {"name": "Package index", "url": "https://pypi.org/project/dstk-belief", "icon": "fa-solid fa-box"},
    ],
}
html_sidebars = {"**": ["sidebar-nav-bs"]}

# The public namespaces documented in the API reference, in reading order.  A namespace is
# listed only when its package exists, so a layer that lands later appears on the next build.
API_NAMESPACES = [
    ("dstk.core", "Core: frames, mass functions, combination rules, transforms"),
    ("dstk.evidence", "Statistical evidence: belief functions from counts and likelihoods"),
    ("dstk.reasoning", "Reasoning: several variables, valuation networks, the real line"),
    ("dstk.calibration", "Evidential calibration of classifier scores"),
    ("dstk.multiclass", "Multi-class calibration"),
    ("dstk.metrics", "Calibration and evidential metrics"),
    ("dstk.ensemble", "Random decision trees and evidential ensemble combiners"),
    ("dstk.classifiers", "Evidential classifiers: k-NN, neural network, logistic evidence, trained combiner"),
    ("dstk.dask", "Scale-out on Dask"),
    ("dstk.plot", "Plots (matplotlib)"),
    ("dstk.exceptions", "Exceptions and warnings"),
]


def _existing_namespaces():
    found = []
    for name, title in API_NAMESPACES:
        path = ROOT.joinpath(*name.split("."))
        if (path / "__init__.py").exists() or path.with_suffix(".py").exists():
            found.append((name, title))
    return found


def _write_if_changed(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)  # docs/api/ holds generated files only
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


API_INDEX_HEAD = """\
.. This file is written by docs/conf.py on every build; edit API_INDEX_HEAD there.

API reference
=============

Every public name of dstk, generated from its numpydoc docstring (shapes,
``Raises``, ``Notes`` with the formula and its source, ``References`` and
``Examples``, which also run as doctests in the test suite).

Names are documented once, in the namespace that exports them (its
``__all__``).  The most used ones are also reachable from the top-level
package: ``dstk.Frame``, ``dstk.MassFunction``, ``dstk.combine``,
``dstk.from_counts``, and so on (see ``dstk.__all__``).  Private modules
(a leading underscore, such as ``dstk._kernels``) are not part of the API.

.. autosummary::
   :toctree: generated
   :template: namespace.rst

"""


def _write_api_index():
    """Write ``api/index.rst``: one autosummary entry per existing public namespace."""
    lines = [f"   {name}" for name, _ in _existing_namespaces()]
    _write_if_changed(DOCS / "api" / "index.rst", API_INDEX_HEAD + "\n".join(lines) + "\n")


def _copy_notebooks():
    """Copy ``notebooks/*.ipynb`` into ``examples/notebooks`` (git-ignored) so Sphinx can render them."""
    target = DOCS / "examples" / "notebooks"
    target.mkdir(exist_ok=True)
    wanted = {path.name: path for path in sorted((ROOT / "notebooks").glob("*.ipynb"))}
    for stale in target.glob("*.ipynb"):
        if stale.name not in wanted:
            stale.unlink()
    for name, path in wanted.items():
        destination = target / name
        if not destination.exists() or destination.read_bytes() != path.read_bytes():
            shutil.copyfile(path, destination)


_write_api_index()
_copy_notebooks()


# -- cross-links added to the API pages -----------------------------------------------------------
import json
import re

_NAME = re.compile(r"\b([A-Z][A-Za-z0-9]+|[a-z][a-z0-9_]+)\b")


def _public_names():
    """``{name: qualified name}`` for every public name of the documented namespaces."""
    import importlib

    names = {}
    for namespace, _ in _existing_namespaces():
        try:
            module = importlib.import_module(namespace)
        except ImportError:
            continue
        for name in getattr(module, "__all__", []):
            names.setdefault(name, f"{namespace}.{name}")
    return names


def _examples_using():
    """``{qualified name: [notebook document, ...]}``: the example notebooks whose code uses a public name."""
    public = _public_names()
    found = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        code = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")
        used = {word for word in _NAME.findall(code) if word in public and word not in {"plot", "core"}}
        for word in sorted(used):
            found.setdefault(public[word], []).append(f"/examples/notebooks/{path.stem}")
    return found


EXAMPLES_USING = _examples_using()


def _figure_of_plot_examples(name, lines):
    """A ``.. plot::`` block running the ``>>>`` lines of a ``dstk.plot`` docstring's Examples section."""
    code = [line for line in lines if line.lstrip().startswith((">>>", "..."))]
    code = [line.strip() for line in code if "plt.close" not in line]
    if not code:
        return []
    return ["", ".. rubric:: Figure", "", ".. plot::", ""] + [f"   {line}" for line in code] + [""]


def _add_cross_links(app, what, name, obj, options, lines):
    if what not in ("function", "class"):
        return
    if name.startswith("dstk.plot.") and what == "function":
        doc = (getattr(obj, "__doc__", None) or "").splitlines()
        if any(line.strip() == "Examples" for line in doc):
            start = next(i for i, line in enumerate(doc) if line.strip() == "Examples")
            lines.extend(_figure_of_plot_examples(name, doc[start + 2 :]))
    notebooks = EXAMPLES_USING.get(name)
    if notebooks:
        lines.extend(["", ".. rubric:: Examples using this", ""])
        lines.extend(f"* :doc:`{document}`" for document in notebooks)
        lines.append("")


def _skip_scikit_learn_members(app, what, name, obj, skip, options):
    """Leave out what scikit-learn's base class adds (``set_fit_request`` and the other routing methods)."""
    if str(getattr(obj, "__module__", "") or "").startswith("sklearn."):
        return True
    return None


def _public_bases(app, name, obj, options, bases):
    """Show a class's public ancestors in "Bases:", never a private helper class of dstk."""
    public = []
    for base in bases:
        queue = [base]
        while queue:
            cls = queue.pop(0)
            if cls.__name__.startswith("_"):
                queue.extend(b for b in cls.__bases__ if b is not object)
            elif cls not in public:
                public.append(cls)
    bases[:] = public


def setup(app):
    app.connect("autodoc-process-bases", _public_bases)
    app.connect("autodoc-process-docstring", _add_cross_links, priority=900)
    app.connect("autodoc-skip-member", _skip_scikit_learn_members)
