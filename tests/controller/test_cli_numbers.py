"""Numbers on the command line are finite and in range, or refused naming the option with
exit status 2 (issue 12: `shuffle --cut 0`, `simulate --speed nan`, negative `--seconds`
and `--frames`, `shuffle --decks 1000000000` used to be accepted or end in a traceback)."""

from __future__ import annotations

import pytest

from controller.cli import main


@pytest.mark.parametrize("argv, option, why", [
    (["shuffle", "--cut", "0"], "--cut", "at least 20"),  # rule 7.3: twenty from the back
    (["shuffle", "--decks", "1000000000"], "--decks", "1 to 12"),
    (["shuffle", "--decks", "0"], "--decks", "1 to 12"),
    (["deal", "--decks", "13", "-"], "--decks", "1 to 12"),
    (["simulate", "--speed", "nan"], "--speed", "0 to 10000"),
    (["simulate", "--speed", "-1"], "--speed", "0 to 10000"),
    (["simulate", "--decks", "x"], "--decks", "'x' is not a whole number"),
    (["record", "--seconds", "-5"], "--seconds", "at least 0.001"),
    (["record", "--frames", "0"], "--frames", "at least 1"),
    (["calibrate", "f.png", "--card-width", "nan"], "--card-width", "16 to 100000"),
    (["calibrate", "f.png", "--card-width", "inf"], "--card-width", "16 to 100000"),
    (["emulate-shoe", "--queue", "-3"], "--queue", "1 to 100000"),
    (["emulate-shoe", "--interval", "0"], "--interval", "0.001 to 3600"),
])
def test_an_out_of_range_number_is_refused_naming_the_option(argv, option, why, capsys):
    with pytest.raises(SystemExit) as stopped:  # argparse's own exit, status 2
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}:" in err and why in err
    assert "Traceback" not in err


def test_numbers_in_range_pass():
    from controller.cli._numbers import number  # noqa: PLC0415

    assert number(int, 1, 12)("8") == 8
    assert number(float, 0)("0.25") == 0.25
