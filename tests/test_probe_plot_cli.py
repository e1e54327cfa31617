"""``python -m dstk``: help for every subcommand, extra arguments refused with the usage and exit status 2."""

import pytest

from dstk.__main__ import main


@pytest.mark.parametrize("argv", [["version", "extra"], ["-V", "--rounds"], ["--help", "bogus"]])
def test_extra_arguments_are_refused_with_the_usage(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "usage: python -m dstk" in err and repr(argv[1]) in err


@pytest.mark.parametrize("argv", [["help", "demo"], ["-h", "demo"], ["help", "compile"]])
def test_help_on_a_command_prints_that_commands_help(argv, capsys):
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"usage: python -m dstk {argv[1]}" in out


def test_plain_help_and_version_still_work(capsys):
    assert main(["help"]) == 0 and main(["-V"]) == 0 and main([]) == 0
    assert "commands:" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["demo", "--seed", "-1"], ["demo", "--rounds", "0"]])
def test_demo_refuses_bad_numbers_with_its_usage(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "usage: python -m dstk demo" in err and argv[1] in err
