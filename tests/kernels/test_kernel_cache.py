"""numba's on-disk cache of the dstk kernels: never stale, and available on any install.

See :mod:`dstk._kernels._jit` for the mechanism.  The subprocess tests work on
a copy of the package in a temporary directory, so that they can edit it,
populate and reuse its cache, and make it read-only.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

import dstk
from dstk._kernels import _jit

PACKAGE = Path(dstk.__file__).parent
KERNELS = PACKAGE / "_kernels"
UPDATE_COMMAND = "python -m dstk._kernels._jit"


def _called_kernel_modules(path: Path) -> set[str]:
    """The dstk._kernels modules a kernel module imports (the private helper modules excepted)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:  # relative import inside dstk._kernels
                base = "dstk._kernels" + ("." + node.module if node.module else "")
            else:
                base = node.module or ""
            if base == "dstk._kernels":
                names.update(f"dstk._kernels.{alias.name}" for alias in node.names)
            elif base.startswith("dstk._kernels."):
                names.add(base)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names if a.name.startswith("dstk._kernels."))
    # the private helpers (_jit: compilation and caching, _buffers: reused output buffers) hold no
    # jitted code that a cached kernel could inline
    return {name for name in names if not name.rsplit(".", 1)[1].startswith("_")}


def test_every_kernel_module_pins_the_current_source_of_the_kernels_it_calls():
    problems = []
    for path in sorted(KERNELS.glob("*.py")):
        if path.name in ("__init__.py", "_jit.py"):
            continue
        called = _called_kernel_modules(path)
        pins = _jit.read_pins(path)
        if set(pins) != called:
            problems.append(
                f"{path.name}: imports {sorted(called)} but pins {sorted(pins)} in {_jit.PINS_NAME}; "
                f'write {_jit.PINS_NAME} = {{"dstk._kernels.<name>": "", ...}} listing exactly the '
                "imported kernel modules"
            )
            continue
        for name, pinned in pins.items():
            actual = _jit.source_hash(_jit.module_path(name, KERNELS))
            if actual != pinned:
                problems.append(f"{path.name}: pins {name} at {pinned!r}, its source hashes to {actual!r}")
    assert not problems, (
        "numba's cache of a kernel module does not see edits of the kernel modules it calls, so each "
        "caller pins their source hashes (dstk/_kernels/_jit.py). Stale or missing pins:\n  "
        + "\n  ".join(problems)
        + f"\nRun `{UPDATE_COMMAND}` from the repository root (after formatting) and commit the result."
    )


def test_every_kernel_is_compiled_through_the_dstk_decorator():
    """numba.njit used directly would bypass the pins and the read-only fallback."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == KERNELS / "_jit.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "numba":
                bad = [a.name for a in node.names if a.name in ("njit", "jit", "generated_jit", "vectorize")]
                if bad:
                    offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno} imports {bad} from numba")
            if isinstance(node, ast.Attribute) and node.attr in ("njit", "jit"):
                if isinstance(node.value, ast.Name) and node.value.id == "numba":
                    offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno} uses numba.{node.attr}")
    assert not offenders, "use `from dstk._kernels._jit import njit`:\n" + "\n".join(offenders)


# ---------------------------------------------------------------- subprocess helpers


def _copy_package(root: Path) -> Path:
    shutil.copytree(PACKAGE, root / "dstk", ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    return root / "dstk"


def _environment(root: Path, **extra: str) -> dict[str, str]:
    drop = ("PYTHONPATH", "XDG_CACHE_HOME")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_") and k not in drop}
    env["PYTHONPATH"] = str(root)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def _run(script: str, root: Path, *, prefix: tuple[str, ...] = (), **extra: str) -> dict:
    result = subprocess.run(
        [*prefix, sys.executable, "-c", textwrap.dedent(script)],
        env=_environment(root, **extra),
        capture_output=True,
        text=True,
        timeout=600,
        cwd=root,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


_CALLER = """
    import json, warnings
    import numpy as np
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import dstk
        from dstk._kernels import transforms
        x = np.arange(8.0).reshape(1, 8)
        transforms.superset_sum(x)
    assert dstk.__file__.startswith({root!r}), dstk.__file__
    hits = sum(transforms.superset_sum.stats.cache_hits.values())
    print(json.dumps({{"result": x[0].tolist(), "cache_hits": hits,
                      "warnings": [w.category.__name__ for w in caught]}}))
"""


def test_an_edited_helper_reaches_its_cached_caller(tmp_path):
    """transforms.superset_sum (cached) calls moebius.superset_pass; edit the latter."""
    package = _copy_package(tmp_path)
    script = _CALLER.format(root=str(tmp_path))
    expected = [28.0, 16.0, 18.0, 10.0, 22.0, 12.0, 13.0, 7.0]  # q(A) = sum of x(B), B superset of A

    first = _run(script, tmp_path)
    second = _run(script, tmp_path)
    assert first["result"] == second["result"] == expected
    assert (first["cache_hits"], second["cache_hits"]) == (0, 1), "the second process must load the cache"

    # edit the helper: superset_pass now adds 1000 to entry 0 before transforming
    helper = package / "_kernels" / "moebius.py"
    text = helper.read_text()
    anchor = "    size = x.shape[0]\n    step = 1\n"
    assert text.index(anchor) < text.index("def subset_pass")
    helper.write_text(text.replace(anchor, "    size = x.shape[0]\n    x[0] += 1000.0\n    step = 1\n", 1))
    edited = [1028.0, *expected[1:]]

    # 1. pins not updated: the stale caller's cache is not used, the change is seen, with a warning
    stale = _run(script, tmp_path)
    assert stale["result"] == edited
    assert stale["cache_hits"] == 0
    assert "StaleKernelCacheWarning" in stale["warnings"]

    # 2. pins updated as the pin test asks: the caller's text changes, its old cache is dropped
    subprocess.run(
        [sys.executable, "-m", "dstk._kernels._jit"],
        env=_environment(tmp_path),
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    assert _jit.read_pins(package / "_kernels" / "transforms.py")[
        "dstk._kernels.moebius"
    ] == _jit.source_hash(helper)
    fresh = _run(script, tmp_path)
    cached = _run(script, tmp_path)
    assert fresh["result"] == cached["result"] == edited
    assert (fresh["cache_hits"], cached["cache_hits"]) == (0, 1)
    assert fresh["warnings"] == cached["warnings"] == []


def test_control_numba_alone_keeps_a_stale_caller(tmp_path):
    """Why the pins exist: with plain numba the cached caller runs the old helper."""
    package = tmp_path / "plain_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helper.py").write_text(
        "from numba import njit\n\n@njit(cache=True)\ndef f(x):\n    return x + 1\n"
    )
    (package / "caller.py").write_text(
        "from numba import njit\nfrom plain_pkg.helper import f\n\n@njit(cache=True)\ndef g(x):\n    return f(x)\n"
    )
    script = "import json\nfrom plain_pkg.caller import g\nprint(json.dumps({'result': g(1)}))"
    assert _run(script, tmp_path)["result"] == 2
    (package / "helper.py").write_text(
        "from numba import njit\n\n@njit(cache=True)\ndef f(x):\n    return x + 2\n"
    )
    result = _run(script, tmp_path)["result"]
    if result == 3:
        pytest.skip("this numba version invalidates callers of edited helpers by itself")
    assert result == 2


# ---------------------------------------------------------------- read-only installs

_READ_ONLY_USE = """
    import json, tempfile, warnings
    tempfile.tempdir = {tempdir!r}
    import numpy as np
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import dstk
        from dstk import MassFunction, Frame, combine
        frame = Frame(["a", "b", "c", "d", "e"])  # BetP of more than 4 labels is compiled
        m1 = MassFunction({{("a",): 0.6, ("a", "b", "c", "d", "e"): 0.4}}, frame=frame)
        m2 = MassFunction({{("b",): 0.3, ("a", "b"): 0.5, ("a", "b", "c", "d", "e"): 0.2}}, frame=frame)
        combined = combine([m1, m2], rule="dempster")
        betp = combined.pignistic()
        q = combined.to_array("q")
    from dstk._kernels import transforms  # small combinations run interpreted; BetP (5 labels) is compiled
    assert dstk.__file__.startswith({root!r}), dstk.__file__
    print(json.dumps({{
        "dempster": np.asarray(combined.to_array()).ravel().tolist(),
        "betp": np.asarray(betp).ravel().tolist(),
        "hits": sum(transforms.pignistic.stats.cache_hits.values()),
        "warnings": [f"{{w.category.__name__}}: {{w.message}}" for w in caught],
    }}))
"""


def _make_read_only(path: Path) -> None:
    for p in [path, *path.rglob("*")]:
        mode = 0o555 if p.is_dir() else 0o444
        p.chmod(mode)


def _make_writable(path: Path) -> None:
    for p in [path, *path.rglob("*")]:
        p.chmod(p.stat().st_mode | stat.S_IWUSR)


@pytest.fixture
def read_only_install():
    """A read-only copy of the package, how to run a process that cannot write it, and its HOME.

    Root ignores file modes, so as root the process runs without the
    capabilities that let it (``setpriv``), and HOME is a missing directory
    inside the read-only tree (root could create ``/nonexistent``).
    """
    root = Path(tempfile.mkdtemp(prefix="dstk-read-only-"))
    _copy_package(root)
    _make_read_only(root)
    if os.geteuid() != 0:
        prefix, home = (), "/nonexistent"
    elif shutil.which("setpriv"):
        prefix = ("setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner,-chown")
        home = str(root / "nonexistent")
    else:
        _make_writable(root)
        shutil.rmtree(root, ignore_errors=True)
        pytest.skip("running as root without setpriv: cannot make a directory unwritable")
    try:
        yield root, prefix, home
    finally:
        _make_writable(root)
        shutil.rmtree(root, ignore_errors=True)


def _scratch(mode: int) -> Path:
    path = Path(tempfile.mkdtemp(prefix="dstk-tmp-"))
    path.chmod(mode)
    return path


def test_read_only_install_without_home_caches_in_a_private_temporary_directory(read_only_install):
    root, prefix, home = read_only_install
    tempdir = _scratch(0o1777)
    try:
        script = _READ_ONLY_USE.format(tempdir=str(tempdir), root=str(root))
        first = _run(script, root, prefix=prefix, HOME=home)
        second = _run(script, root, prefix=prefix, HOME=home)
        assert first["warnings"] == second["warnings"] == []
        assert first["dempster"] == second["dempster"]
        assert second["hits"] > 0, "the second process must reuse the private cache"
        (cache,) = tempdir.glob("dstk-numba-cache-*")
        assert stat.S_IMODE(cache.stat().st_mode) == 0o700
        assert any(cache.rglob("*.nbi"))
        assert not any((root / "dstk").rglob("*.nbi"))
    finally:
        shutil.rmtree(tempdir, ignore_errors=True)


def test_read_only_install_with_no_writable_place_compiles_in_memory_with_one_warning(read_only_install):
    root, prefix, home = read_only_install
    tempdir = _scratch(0o555)  # not writable: no private cache directory can be made
    try:
        script = _READ_ONLY_USE.format(tempdir=str(tempdir), root=str(root))
        out = _run(script, root, prefix=prefix, HOME=home)
        assert len(out["warnings"]) == 1, out["warnings"]
        assert out["warnings"][0].startswith("KernelCacheWarning")
        assert "NUMBA_CACHE_DIR" in out["warnings"][0]
        assert out["hits"] == 0
        # Dempster's rule of the two sources, by hand: K = 0.6 * 0.3 = 0.18
        k = 0.18
        expected = {1: (0.6 * 0.5 + 0.6 * 0.2) / (1 - k), 2: (0.4 * 0.3) / (1 - k), 3: 0.4 * 0.5 / (1 - k)}
        expected[31] = 0.4 * 0.2 / (1 - k)  # the frame {a, b, c, d, e}
        for index, value in expected.items():
            assert out["dempster"][index] == pytest.approx(value, abs=1e-12)
    finally:
        shutil.rmtree(tempdir, ignore_errors=True)
