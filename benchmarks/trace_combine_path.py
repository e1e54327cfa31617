"""Which of dstk's source files one warm ``dstk.combine`` call passes through, and how often.

Usage: ``python benchmarks/trace_combine_path.py [--verbose]``.  Each case is called once to warm
it (every kernel it reaches compiled, as after ``dstk.compile_kernels``), then once under a ``sys.setprofile`` tracer that follows the file of the
innermost dstk frame: a *pass* is each time that file changes (a call into another dstk module, or
the return to it), the entry into dstk counting as the first.  Frames outside dstk (numpy, the
standard library) do not change it.  Prints, per case, the number of passes, the number of distinct
files and the files in the order first visited (``--verbose``: the whole sequence).
"""

import argparse
import os
import sys
import warnings

import numpy as np

import dstk
from dstk import Frame, MassFunction
from dstk._kernels._jit import every_kernel_compiled

PACKAGE = os.path.dirname(dstk.__file__) + os.sep


def trace(call):
    """``(files, sequence)``: the dstk files of the innermost dstk frame, in order, during ``call()``."""
    sequence = []

    def innermost(frame):
        while frame is not None:
            name = frame.f_code.co_filename
            if name.startswith(PACKAGE):
                return name[len(PACKAGE) :]
            frame = frame.f_back
        return None

    def profile(frame, event, arg):
        if event == "call":
            where = innermost(frame)
        elif event == "return":
            where = innermost(frame.f_back)
        else:
            return
        if where is not None and (not sequence or sequence[-1] != where):
            sequence.append(where)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return list(dict.fromkeys(sequence)), sequence


def cases():
    rng = np.random.default_rng(0)

    def dense(shape, n):
        v = rng.random(shape + (1 << n,)) ** 3
        v[..., 0] = 0
        return v / v.sum(-1, keepdims=True)

    binary = [MassFunction.from_array(dense((100,), 2), Frame("ab")) for _ in range(2)]
    ten = Frame([f"l{i}" for i in range(10)])
    ten_labels = [MassFunction.from_array(dense((20,), 10), ten) for _ in range(2)]
    stack = MassFunction.from_array(dense((1000, 8), 3), Frame("abc"))
    twenty = Frame([f"l{i}" for i in range(20)])
    focal = [
        MassFunction.from_focal_sets([0b11, (1 << 20) - 1], [0.6, 0.4], twenty),
        MassFunction.from_focal_sets([0b110, (1 << 20) - 1], [0.7, 0.3], twenty),
    ]
    for rule in ("dempster", "disjunctive"):
        yield f"dense binary, two sources (100,), {rule}", lambda r=rule: dstk.combine(binary, rule=r)
        yield f"dense 10 labels, two sources (20,), {rule}", lambda r=rule: dstk.combine(ten_labels, rule=r)
        yield (
            f"stacked axis fold (1000 x 8, 3 labels), {rule}",
            lambda r=rule: dstk.combine(stack, axis=1, rule=r),
        )
        yield f"focal sets, two sources on 20 labels, {rule}", lambda r=rule: dstk.combine(focal, rule=r)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="print the whole sequence of files")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(f"dstk from {PACKAGE}")
    for name, call in cases():
        with every_kernel_compiled():
            call()
        files, sequence = trace(call)
        print(f"{name}: {len(sequence)} passes, {len(files)} files")
        print("    " + " ".join(files))
        if args.verbose:
            print("    " + " > ".join(sequence))


if __name__ == "__main__":
    main()
