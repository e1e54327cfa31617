"""Every public callable of dstk has a numpydoc docstring with the required sections.

The rules are stated in :mod:`tests.meta.docstring_rules`.  The test is
parametrized over the public modules, so a layer that lands later is picked
up without editing this file, and each failure lists every broken rule of
every object in that module.

Known gaps are waived one object and one rule at a time in
:data:`tests.meta.docstring_allowlist.ALLOWLIST`.  An entry that no longer
matches a violation (the docstring was fixed, or the object is gone) makes
``test_allowlist_is_not_stale`` fail, so the list only shrinks.  To print the
current violations in the allowlist's format::

    python -m tests.meta.docstring_rules
"""

import functools

import pytest

pytest.importorskip("numpydoc")

from . import docstring_rules as rules
from .docstring_allowlist import ALLOWLIST

MODULES = rules.public_module_names()


@functools.cache
def _inventory():
    return rules.collect_public_objects(MODULES)


@functools.cache
def _violations(module_name):
    homes, errors = _inventory()
    found = []
    for item in homes.get(module_name, []):
        found.extend(rules.check_object(item))
    return errors.get(module_name, []), found


def _waived(violation):
    return violation.code in ALLOWLIST.get(violation.name, ())


@pytest.mark.parametrize("module_name", MODULES)
def test_public_docstrings(module_name):
    errors, found = _violations(module_name)
    remaining = [str(v) for v in found if not _waived(v)]
    problems = errors + remaining
    assert not problems, (
        f"{len(problems)} docstring problem(s) in the public names of {module_name} "
        "(rules: tests/meta/docstring_rules.py):\n  " + "\n  ".join(problems)
    )


def test_allowlist_is_not_stale():
    current = set()
    for module_name in MODULES:
        _, found = _violations(module_name)
        current.update((v.name, v.code) for v in found)
    stale = sorted(
        f"{name}: {code}"
        for name, codes in ALLOWLIST.items()
        for code in codes
        if (name, code) not in current
    )
    assert not stale, (
        "These ALLOWLIST entries no longer match a violation (fixed or renamed); remove them from "
        "tests/meta/docstring_allowlist.py:\n  " + "\n  ".join(stale)
    )


def test_rules_catch_a_bad_docstring():
    """The checker itself reports missing sections (guards against a silently passing meta-test)."""

    def undocumented_function(x, y=1):
        """Add two numbers (research notes A.1).

        Notes
        -----
        See above.
        """
        if x < 0:
            raise ValueError("x must be non-negative")
        return x + y

    item = rules.PublicObject("example.undocumented_function", undocumented_function, "function")
    codes = {v.code for v in rules.check_object(item)}
    assert codes == {"parameters", "returns", "raises", "notes", "internal", "examples"}


def test_rules_accept_a_complete_docstring():
    def documented_function(x, y=1):
        """Add two numbers.

        Parameters
        ----------
        x : float
            First term, non-negative.
        y : float, default=1
            Second term.

        Returns
        -------
        float
            ``x + y``.

        Raises
        ------
        ValueError
            If ``x`` is negative.

        Notes
        -----
        Addition of natural numbers as defined by Peano (1889), extended to reals.

        Examples
        --------
        >>> documented_function(1, 2)
        3
        """
        if x < 0:
            raise ValueError("x must be non-negative")
        return x + y

    item = rules.PublicObject("example.documented_function", documented_function, "function")
    assert rules.check_object(item) == []
