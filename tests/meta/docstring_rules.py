"""Rules that every public docstring of dstk must follow, checked with ``numpydoc.docscrape``.

What is public
--------------
Every module under :mod:`dstk` whose dotted path has no component starting
with ``_`` (``dstk._kernels``, ``dstk.core._dense`` and ``dstk.__main__`` are
private).  A module's public names are its ``__all__``; a public module
without ``__all__`` exposes every name it *defines* that does not start with
``_``.  Every object is checked once, under its "home" module: the module
that defines it when that module lists it, otherwise the first public module
(in sorted order) that lists it.

What is required
----------------
Functions, and classes (their class docstring, against ``__init__``):

* a one-line summary;
* ``Parameters`` naming exactly the parameters of the signature (without
  ``self`` / ``cls``), when there are any;
* ``Returns`` (or ``Yields``) when the body returns a value (functions only);
* ``Raises`` when the body (or ``__init__``) contains a ``raise`` statement;
* ``Examples`` with at least one ``>>>`` line (they run as doctests).

Sections carry information or are left out: ``Notes`` and ``References`` are
optional, but a ``Notes`` section of a line or two of filler (under
``MIN_NOTES_CHARACTERS`` characters) is reported, and no docstring may cite
what a reader cannot open (internal research notes, issue numbers, the
maintainers' files): cite papers with equation numbers instead.

Public methods and properties defined in a public class (not inherited,
not dunder): a summary, ``Parameters`` matching the signature, and
``Returns`` when the method returns a value (properties: a summary only).
Exception and warning classes: a summary only.

Known gaps are listed in ``ALLOWLIST`` in ``test_docstrings.py``; nothing else
is waived.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import textwrap
import warnings
from dataclasses import dataclass, field

PACKAGE = "dstk"

#: author-and-year citation, e.g. "Denoeux (2008)", "Smets 2002", "Xu et al., 2016"
CITATION = re.compile(r"[A-Z][A-Za-z\-'\u00C0-\u017F]+[^\n]{0,120}?\b(1[89]|20)\d\d[a-z]?\b")

SECTION_CODES = {
    "summary": "no one-line summary",
    "parameters": "Parameters section missing or does not match the signature",
    "returns": "Returns (or Yields) section missing although the code returns a value",
    "raises": "Raises section missing although the code raises",
    "notes": "Notes section too short to carry information (drop it or say something)",
    "internal": "cites internal notes, issues or maintainers' files (cite papers a reader can open)",
    "examples": "Examples section missing or without a '>>>' doctest line",
    "parse": "docstring does not parse as numpydoc",
    "module": "module has no docstring",
}


@dataclass
class Violation:
    """One rule broken by one object."""

    name: str
    code: str
    detail: str = ""

    def __str__(self):
        text = f"{self.name}: {SECTION_CODES[self.code]}"
        return f"{text} ({self.detail})" if self.detail else text


@dataclass
class PublicObject:
    name: str  # qualified name used in reports and in the allowlist
    obj: object
    kind: str  # "function", "class", "exception"
    methods: list = field(default_factory=list)


def is_public_module(name):
    return not any(part.startswith("_") for part in name.split("."))


def public_module_names():
    """Sorted names of the public modules of dstk that import (errors are kept as strings)."""
    package = importlib.import_module(PACKAGE)
    names = [PACKAGE]
    for info in pkgutil.walk_packages(package.__path__, prefix=PACKAGE + ".", onerror=lambda name: None):
        if is_public_module(info.name):
            names.append(info.name)
    return sorted(set(names))


def public_names(module):
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return sorted(
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and getattr(value, "__module__", None) == module.__name__
        and (inspect.isfunction(value) or inspect.isclass(value))
    )


def qualified_name(obj):
    return f"{obj.__module__}.{obj.__qualname__}"


def _is_exception_class(obj):
    return inspect.isclass(obj) and issubclass(obj, BaseException | Warning)


def collect_public_objects(module_names):
    """Return (module name -> PublicObject list whose home is that module, module name -> errors)."""
    listed = {}  # id(obj) -> (obj, [modules listing it])
    errors = {name: [] for name in module_names}
    for module_name in module_names:
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:  # report it against this module only
            errors[module_name].append(f"{module_name} does not import: {type(exc).__name__}: {exc}")
            continue
        if not (module.__doc__ or "").strip():
            errors[module_name].append(str(Violation(module_name, "module")))
        for name in public_names(module):
            try:
                value = getattr(module, name)
            except Exception as exc:
                errors[module_name].append(
                    f"{module_name}.{name} is public (in __all__) but cannot be resolved: "
                    f"{type(exc).__name__}: {exc}"
                )
                continue
            if not (inspect.isfunction(value) or inspect.isclass(value) or inspect.isbuiltin(value)):
                continue
            if inspect.isfunction(value) and hasattr(value, "py_func"):
                value = value.py_func
            entry = listed.setdefault(id(value), (value, []))
            entry[1].append(module_name)
    homes = {name: [] for name in module_names}
    for value, modules in listed.values():
        defining = getattr(value, "__module__", None)
        home = defining if defining in modules else sorted(modules)[0]
        if inspect.isclass(value):
            kind = "exception" if _is_exception_class(value) else "class"
        else:
            kind = "function"
        item = PublicObject(qualified_name(value), value, kind)
        if kind == "class":
            item.methods = list(_public_methods(value))
        homes[home].append(item)
    for items in homes.values():
        items.sort(key=lambda item: item.name)
    return homes, errors


def _public_methods(cls):
    for name, raw in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(raw, property):
            yield f"{qualified_name(cls)}.{name}", raw.fget, "property"
        elif isinstance(raw, (staticmethod, classmethod)):
            yield f"{qualified_name(cls)}.{name}", raw.__func__, "method"
        elif inspect.isfunction(raw):
            yield f"{qualified_name(cls)}.{name}", raw, "method"


# -- source analysis -----------------------------------------------------------------------------


def _function_node(func):
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node
    return None


def _own_nodes(node):
    """Walk a function body without descending into nested functions, lambdas or classes."""
    stack = list(node.body)
    while stack:
        current = stack.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                stack.append(child)


def returns_value(func):
    node = _function_node(func)
    if node is None:
        return False
    for sub in _own_nodes(node):
        if isinstance(sub, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(sub, ast.Return) and sub.value is not None:
            if not (isinstance(sub.value, ast.Constant) and sub.value.value is None):
                return True
    return False


def raises(func):
    """True when the body has a ``raise X`` (not a bare re-raise, not AssertionError)."""
    node = _function_node(func)
    if node is None:
        return False
    for sub in _own_nodes(node):
        if isinstance(sub, ast.Raise) and sub.exc is not None:
            target = sub.exc.func if isinstance(sub.exc, ast.Call) else sub.exc
            if isinstance(target, ast.Name) and target.id in ("AssertionError", "NotImplementedError"):
                continue
            return True
    return False


def signature_parameters(func):
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    names = []
    for i, parameter in enumerate(signature.parameters.values()):
        if i == 0 and parameter.name in ("self", "cls"):
            continue
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            names.append("*" + parameter.name)
        elif parameter.kind is inspect.Parameter.VAR_KEYWORD:
            names.append("**" + parameter.name)
        else:
            names.append(parameter.name)
    return names


# -- docstring analysis --------------------------------------------------------------------------


def parse(obj):
    """Return (NumpyDocString or None, error text)."""
    from numpydoc.docscrape import NumpyDocString

    text = inspect.getdoc(obj)
    if not text:
        return None, "no docstring"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return NumpyDocString(text), ""
        except Exception as exc:  # numpydoc raises ValueError or warns on unknown sections
            return None, f"{type(exc).__name__}: {exc}"


def documented_parameters(doc):
    names = []
    for section in ("Parameters", "Other Parameters"):
        for parameter in doc[section]:
            for name in parameter.name.split(","):
                name = name.strip()
                if name:
                    names.append(name)
    return names


def _parameter_mismatch(doc, func):
    expected = signature_parameters(func)
    if expected is None:
        return ""
    documented = documented_parameters(doc)
    bare = {name.lstrip("*") for name in documented}
    missing = [name for name in expected if name.lstrip("*") not in bare]
    unknown = sorted(bare - {name.lstrip("*") for name in expected})
    parts = []
    if missing:
        parts.append("undocumented: " + ", ".join(missing))
    if unknown:
        parts.append("not in the signature: " + ", ".join(unknown))
    return "; ".join(parts)


def _has_examples(doc):
    return any(line.lstrip().startswith(">>>") for line in doc["Examples"])


#: a Notes section shorter than this (in characters of text) is filler
MIN_NOTES_CHARACTERS = 40

#: citations a reader cannot follow
INTERNAL_CITATION = re.compile(
    r"research[ -]notes?\b|\bissue\s*#?\d+|#\d{1,4}\b|\[U\]|\[!\]|quality-findings|docs/dev/|calib-ensemble-anchors|"
    r"ds-anchors|seeds-gebel",
    re.IGNORECASE,
)


def _notes_are_filler(doc):
    text = " ".join(line.strip() for line in doc["Notes"]).strip()
    return bool(text) and len(text) < MIN_NOTES_CHARACTERS


def _cites_internal(obj):
    return bool(INTERNAL_CITATION.search(inspect.getdoc(obj) or ""))


def check_object(item):
    """All violations of one public object (and of its methods)."""
    found = []
    doc, error = parse(item.obj)
    if doc is None:
        code = "summary" if error == "no docstring" else "parse"
        return [Violation(item.name, code, error)]
    if not "".join(doc["Summary"]).strip():
        found.append(Violation(item.name, "summary"))
    if item.kind == "exception":
        return found

    if item.kind == "class":
        init = item.obj.__init__
        signature_source = init if inspect.isfunction(init) else None
        body_raises = signature_source is not None and raises(signature_source)
        body_returns = False
    else:
        signature_source = item.obj
        body_raises = raises(item.obj)
        body_returns = returns_value(item.obj)

    if signature_source is not None:
        mismatch = _parameter_mismatch(doc, signature_source)
        if mismatch:
            found.append(Violation(item.name, "parameters", mismatch))
    if body_returns and not (doc["Returns"] or doc["Yields"]):
        found.append(Violation(item.name, "returns"))
    if body_raises and not doc["Raises"]:
        found.append(Violation(item.name, "raises"))
    if _notes_are_filler(doc):
        found.append(Violation(item.name, "notes"))
    if _cites_internal(item.obj):
        found.append(Violation(item.name, "internal"))
    if not _has_examples(doc):
        found.append(Violation(item.name, "examples"))

    for name, func, kind in item.methods:
        found.extend(check_method(name, func, kind))
    return found


def check_method(name, func, kind):
    doc, error = parse(func)
    if doc is None:
        code = "summary" if error == "no docstring" else "parse"
        return [Violation(name, code, error)]
    found = []
    if not "".join(doc["Summary"]).strip():
        found.append(Violation(name, "summary"))
    if _cites_internal(func):
        found.append(Violation(name, "internal"))
    if kind == "property":
        return found
    mismatch = _parameter_mismatch(doc, func)
    if mismatch:
        found.append(Violation(name, "parameters", mismatch))
    if returns_value(func) and not (doc["Returns"] or doc["Yields"]):
        found.append(Violation(name, "returns"))
    return found


def main():
    """Print the current violations in the format of ``docstring_allowlist.ALLOWLIST``."""
    homes, errors = collect_public_objects(public_module_names())
    grouped = {}
    for items in homes.values():
        for item in items:
            for violation in check_object(item):
                grouped.setdefault(violation.name, []).append(violation.code)
    print("ALLOWLIST = {")
    for name in sorted(grouped):
        codes = ", ".join(f'"{code}"' for code in dict.fromkeys(grouped[name]))
        print(f'    "{name}": {{{codes}}},')
    print("}")
    for module_errors in errors.values():
        for error in module_errors:
            print("# not waivable:", error)


if __name__ == "__main__":
    main()
