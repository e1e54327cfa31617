"""Command line: ``python -m dstk demo`` runs the evidential-calibration demo, ``compile`` fills the kernel cache."""

import sys

USAGE = """usage: python -m dstk <command>   (or: dstk <command>)

options:
  -h, --help     print this message (`help <command>`: that command's options)
  -V, --version  print the installed version

commands:
  demo      calibrate real classifier scores evidentially (scikit-learn's breast-cancer data),
            combine the classifiers and print error rates and Bel/Pl intervals
  compile   compile dstk's numba kernels into numba's on-disk cache ahead of their first use
            (e.g. in a Docker image or a CI job): `python -m dstk compile [part ...]`, parts
            combination, decisions, calibration, trees (default: all)
  version   print the installed version
"""


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("-h", "--help", "help") and argv[1:2] in (["demo"], ["compile"]):
        argv = [argv[1], "--help"]  # `help demo`: that command's own help
    if not argv or argv[0] in ("-h", "--help", "help"):
        if len(argv) > 1:
            return _refuse(f"unexpected argument {argv[1]!r} after {argv[0]!r}")
        print(USAGE)
        return 0
    cmd, rest = argv[0], argv[1:]
    if cmd == "demo":
        try:
            import sklearn  # noqa: F401
        except ImportError:
            print(
                "The demo trains scikit-learn classifiers: pip install 'dstk-belief[sklearn]'",
                file=sys.stderr,
            )
            return 2
        from ._demo import main as demo_main

        try:
            return demo_main(rest) or 0
        except SystemExit as exc:  # argparse's --help (0) and usage errors (2): returned like the others
            return exc.code if isinstance(exc.code, int) else 2
    if cmd == "compile":
        from ._compile import main as compile_main

        return compile_main(rest)
    if cmd in ("version", "--version", "-V"):
        if rest:
            return _refuse(f"unexpected argument {rest[0]!r} after {cmd!r}")
        from . import __version__

        print(__version__)
        return 0
    return _refuse(f"unknown command {cmd!r}")


def _refuse(message):
    """Print ``message`` and the usage on stderr; return the exit status of a usage error, 2."""
    print(f"{message}\n\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
