"""Quality gates: ruff (lint and format) and mypy, with the configuration in pyproject.toml."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(args):
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)


def _tool(module):
    try:
        __import__(module)
    except ImportError:
        if shutil.which(module) is None:
            pytest.skip(f"{module} is not installed (it is part of the `test` extra)")
    return [sys.executable, "-m", module]


def test_ruff_lint():
    result = _run([*_tool("ruff"), "check", "."])
    assert result.returncode == 0, (
        "ruff check found problems:\n" + result.stdout[-20000:] + result.stderr[-5000:]
    )


def test_ruff_format():
    result = _run([*_tool("ruff"), "format", "--check", "."])
    assert result.returncode == 0, (
        "files are not formatted (run `ruff format .`):\n" + result.stdout[-20000:] + result.stderr[-5000:]
    )


def test_mypy():
    result = _run([*_tool("mypy")])
    assert result.returncode == 0, (
        "mypy found type errors:\n" + result.stdout[-20000:] + result.stderr[-5000:]
    )
