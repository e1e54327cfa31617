"""The README's main job: ``python -m dstk demo``."""

import numpy as np


def test_demo_runs_and_is_deterministic():
    from dstk._demo import run_demo

    lines = []
    table = run_demo(rounds=1, seed=3, out=lines.append)
    again = run_demo(rounds=1, seed=3, out=lambda line: None)
    assert table.keys() == again.keys()
    for key in table:
        np.testing.assert_array_equal(table[key], again[key])
    text = "\n".join(lines)
    assert "combined" in text and "[Bel, Pl]" in text
    assert set(table) == {(m, k) for m in ("logistic", "isotonic") for k in ("bayes", "likelihood")}
    assert all(0 <= e < 0.5 for row in table.values() for e in row)


def test_demo_command_line_arguments(capsys):
    from dstk._demo import main

    assert main(["--rounds", "1", "--seed", "1", "--sizes", "12,20,60"]) == 0
    assert "SVM (12)" in capsys.readouterr().out
