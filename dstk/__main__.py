"""Command line: ``python -m dstk demo`` runs the evidential-calibration demo, ``compile`` fills the kernel cache."""

import sys

USAGE = """usage: python -m dstk <command>   (or: dstk <command>)

options:
  -h, --help     print this message
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
    if not argv or argv[0] in ("-h", "--help", "help"):
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

        return demo_main(rest) or 0
    if cmd == "compile":
        from ._compile import main as compile_main

        return compile_main(rest)
    if cmd in ("version", "--version", "-V"):
        from . import __version__

        print(__version__)
        return 0
    print(f"unknown command {cmd!r}\n\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
