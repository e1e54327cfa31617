"""The README's main job: ``python -m dstk demo``."""

import numpy as np


def test_demo_runs_and_is_deterministic():
    from dstk._demo import run_demo

    lines = []
    table = run_demo(rounds=2, seed=3, out=lines.append)
    again = run_demo(rounds=2, seed=3, out=lambda line: None)
    methods = {"best", "average", "bayes", "evidential", "fusion"}
    assert set(table) == methods | {f"{key}, broken" for key in methods}
    for key in table:
        np.testing.assert_array_equal(table[key], again[key])
        assert table[key].shape == (2,)
        assert np.all((table[key] >= 0) & (table[key] < (0.7 if key == "best, broken" else 0.5)))
    text = "\n".join(lines)
    # the report states means with standard errors, paired differences and what they support
    assert "s.e." in text and "error minus the Dempster row" in text
    assert "Where combining pays" in text and "on_conflict='vacuous'" in text
    assert "Selective decisions" in text and "EvidentialFusionClassifier" in text
    assert "[Bel, Pl]" in text and "[0.000, 0.000]" not in text
    assert "least decided" in text  # says how the example cases were picked
    # the corrupted-source setting and the learned discounting, with their verdicts in plain words
    assert "One sensor broken" in text and "error minus the fusion row" in text
    assert "learned discount rates" in text and "0: fully trusted, 1: ignored" in text
    assert "With one sensor broken, the fusion against the best single classifier: " in text


def test_broken_sensor_rows_use_the_noise_for_the_first_svm_only():
    """With the first SVM fed noise its error is near chance (the breast-cancer test cases are 37 %
    malignant, and noise carries no information); the undisturbed clean rows are the same as without it."""
    from dstk._demo import run_demo

    table = run_demo(rounds=3, seed=5, out=lambda line: None)
    assert table["best, broken"].mean() > 0.25 > 3 * table["best"].mean()
    assert np.all(table["fusion, broken"] <= table["best, broken"])


def test_demo_uses_only_public_api():
    import ast
    from pathlib import Path

    import dstk

    source = Path(dstk.__file__).with_name("_demo.py").read_text()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("dstk"):
            assert not any(part.startswith("_") for part in node.module.split(".")), node.module


def test_demo_command_line_arguments(capsys):
    from dstk._demo import main

    assert main(["--rounds", "1", "--seed", "1"]) == 0
    assert "scenario (c)" in capsys.readouterr().out
