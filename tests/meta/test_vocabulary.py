"""One vocabulary: every parameter of the public API is named in the conventions table.

The table ``Parameter names`` of ``docs/guide/conventions.rst`` lists, for
each concept, its one parameter name, whether it is *data* (the arguments a
call is about) or an *option*, and the allowed values.  This test walks every
public callable (each public subpackage's ``__all__``: functions, classes and
their public methods including ``__init__``), reads the signatures and fails

* on a parameter name missing from the table, and
* on an optional parameter after the first one that is neither keyword-only
  nor marked *data* in the table.
"""

import importlib
import inspect
import re
from pathlib import Path

import pytest

CONVENTIONS = Path(__file__).resolve().parents[2] / "docs" / "guide" / "conventions.rst"

PUBLIC_PACKAGES = [
    "dstk",
    "dstk.core",
    "dstk.evidence",
    "dstk.reasoning",
    "dstk.calibration",
    "dstk.calibration.probabilistic",
    "dstk.multiclass",
    "dstk.ensemble",
    "dstk.classifiers",
    "dstk.metrics",
    "dstk.plot",
    "dstk.dask",
    "dstk.exceptions",
]


def parameter_table():
    """``{name: kind}`` parsed from the list-table "Parameter names of the public API"."""
    text = CONVENTIONS.read_text(encoding="utf-8")
    start = text.index(".. list-table:: Parameter names of the public API")
    heading = re.compile(r"^\S[^\n]*\n-{3,}$", flags=re.M).search(text, start)
    block = text[start : heading.start() if heading else len(text)]
    rows = re.findall(r"^   \* - [^\n]*\n     - ``([^`]+)``\n     - (data|option)$", block, flags=re.M)
    table = dict(rows)
    assert len(table) > 50, "could not parse the parameter table of docs/guide/conventions.rst"
    return table


def public_callables():
    """``(qualified name, callable)`` for every public function, class ``__init__`` and public method."""
    seen = set()
    found = []
    for package in PUBLIC_PACKAGES:
        try:
            module = importlib.import_module(package)
        except ImportError:  # an optional extra (dask, matplotlib) or a package not present
            continue
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            where = f"{package}.{name}"
            if inspect.isclass(obj):
                if issubclass(obj, BaseException):
                    continue
                for member in ["__init__"] + [m for m in dir(obj) if not m.startswith("_")]:
                    attribute = inspect.getattr_static(obj, member, None)
                    if isinstance(attribute, (staticmethod, classmethod)):
                        attribute = attribute.__func__
                    if isinstance(attribute, property) or not callable(attribute):
                        continue
                    if not getattr(attribute, "__module__", "").startswith("dstk"):
                        continue  # inherited from numpy, scikit-learn, object, ...
                    found.append((f"{where}.{member}", attribute))
            elif callable(obj) and getattr(obj, "__module__", "").startswith("dstk"):
                found.append((where, obj))
    return found


def _parameters(function):
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return []
    return [p for p in signature.parameters.values() if p.name not in ("self", "cls")]


def test_the_walk_finds_the_public_api():
    names = {where for where, _ in public_callables()}
    assert "dstk.combine" in names and "dstk.from_counts" in names
    assert any(where.endswith("RandomDecisionTreesClassifier.__init__") for where in names)


def test_every_parameter_name_is_in_the_conventions_table():
    table = parameter_table()
    unknown = {}
    for where, function in public_callables():
        for parameter in _parameters(function):
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                if parameter.name in table:
                    continue
            if parameter.name not in table:
                unknown.setdefault(parameter.name, []).append(where)
    if unknown:
        listing = "\n".join(
            f"  {name!r}: used by {', '.join(places[:4])}" for name, places in sorted(unknown.items())
        )
        pytest.fail(
            "Parameter names missing from the table 'Parameter names of the public API' in "
            "docs/guide/conventions.rst. Use the existing name for the concept (e.g. rule=, combiner=, "
            "model=, criterion=, pool=, reduction=, counts=) or, for a new concept, add a row "
            "(concept | name | data/option | allowed values) to that table:\n" + listing
        )


def test_options_after_the_data_are_keyword_only():
    table = parameter_table()
    offenders = []
    for where, function in public_callables():
        for index, parameter in enumerate(_parameters(function)):
            if index == 0 or parameter.kind != parameter.POSITIONAL_OR_KEYWORD:
                continue
            if parameter.default is parameter.empty or table.get(parameter.name) == "data":
                continue
            offenders.append(f"  {where}({parameter.name}=...)")
    assert not offenders, (
        "Optional parameters after the data must be keyword-only: put `*` before them "
        "(def f(data, *, option=...)), or, if the parameter is data, mark it `data` in the table of "
        "docs/guide/conventions.rst:\n" + "\n".join(offenders)
    )
