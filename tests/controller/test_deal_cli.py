"""The `sabot deal` contract (DESIGN.md): tokens in, events out, clear errors, exit codes."""

import io
import json
import subprocess
import sys

import pytest

from controller.cli import main

SHOE = """# a short shoe
AS 2C            # burn: ace shown, one burned
NMB 2H 3D 4H 5D  # round 1
9S DISCLOSED KH KD 7S   # excess card disclosed: void hand
NMB CUT KH ^KD KS 8C    # cut card first of a round (9.8); face-up card used (12.4)
"""


def run_deal(capsys, monkeypatch, text, *args):
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    status = main(["deal", "-", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_json_event_lines(capsys, monkeypatch):
    status, out, _ = run_deal(capsys, monkeypatch, SHOE, "--json")
    events = [json.loads(line) for line in out.splitlines()]
    kinds = [e["event"] for e in events]
    assert status == 0
    assert events[1] == {"event": "burn", "cards": ["AS", "2C"]}
    for required in ("burn", "round", "last_coup", "shoe_end", "lamps", "irregularity"):
        assert required in kinds
    rounds = [e for e in events if e["event"] == "round"]
    assert [r["void"] for r in rounds] == [False, True, False]
    assert rounds[0] == {"event": "round", "round": 1, "player": ["2H", "4H"],
                         "banker": ["3D", "5D"], "player_total": 6, "banker_total": 8,
                         "natural": True, "player_pair": False, "banker_pair": False,
                         "result": "banker", "void": False}
    assert {"event": "last_coup", "round": 3, "rule": "9.8"} in events
    assert [e["rule"] for e in events if e["event"] == "irregularity"] == [
        "12.1(b)", "12.1(b)", "12.4"]


def test_readable_output_has_rounds_and_bead_plate(capsys, monkeypatch):
    status, out, _ = run_deal(capsys, monkeypatch, SHOE)
    assert status == 0
    assert "round   1  P 2H 4H" in out
    assert "VOID HAND" in out
    assert "Last coup" in out
    assert "bead plate:" in out


@pytest.mark.parametrize("token, where", [("XZ", "line 1, column 7"), ("^QQ", "line 1, column 7"),
                                          ("11H", "line 1, column 7")])
def test_bad_token_names_token_and_position(capsys, monkeypatch, token, where):
    status, out, err = run_deal(capsys, monkeypatch, f"AS 2C {token} 4H")
    assert status == 2
    assert token in err and where in err
    assert "Traceback" not in err and out == ""


def test_missing_file_is_a_clear_error(capsys, tmp_path):
    status = main(["deal", str(tmp_path / "nope.txt")])
    err = capsys.readouterr().err
    assert status == 2 and "nope.txt: no such file" in err


def test_the_summary_counts_one_round_as_one(capsys, monkeypatch):
    """A trial (stop 61): "1 rounds: banker 1, player 0, tie 0; 1 naturals"."""
    _, out, _ = run_deal(capsys, monkeypatch, "AS 2C 2H 3D 4H 5D\n")
    assert "\n1 round: banker 1, player 0, tie 0; 1 natural; 0 void hands\n" in out


def test_a_folder_given_as_the_input_is_named_as_one(capsys, tmp_path):
    """A trial (stop 61): ".: Is a directory", the system's words."""
    assert main(["deal", str(tmp_path)]) == 2
    assert f"{tmp_path}: a directory; give a card order file in it" in capsys.readouterr().err


def test_input_ending_mid_round_ends_with_event_and_status_3(capsys, monkeypatch):
    status, out, _ = run_deal(capsys, monkeypatch, "AS 2C 2H 3D 4H", "--json")
    last = json.loads(out.splitlines()[-1])
    assert status == 3
    assert last["event"] == "input_end" and "middle of round 1" in last["reason"]


def test_input_ending_halted_has_status_4(capsys, monkeypatch):
    status, out, _ = run_deal(capsys, monkeypatch, "AS 2C JOKER", "--json")
    assert status == 4
    assert json.loads(out.splitlines()[-1])["event"] == "input_end"


def test_decks_option_counts_copies(capsys, monkeypatch):
    status, out, _ = run_deal(capsys, monkeypatch, "AS 2C 2H 2H", "--json", "--decks", "1")
    assert status == 4
    assert "2H seen 2 times in a 1-deck shoe" in out


def test_shuffle_then_deal_whole_shoe_through_the_console_script():
    shoe = subprocess.run([sys.executable, "-m", "controller.cli", "shuffle", "--seed", "7"],
                          capture_output=True, text=True, check=True).stdout
    dealt = subprocess.run([sys.executable, "-m", "controller.cli", "deal", "-", "--json"],
                           input=shoe, capture_output=True, text=True)
    assert dealt.returncode == 0, dealt.stderr
    events = [json.loads(line) for line in dealt.stdout.splitlines()]
    assert events[-1]["event"] in ("shoe_end", "lamps")
    assert sum(e["event"] == "shoe_end" for e in events) == 1
    assert not any(e["event"] in ("fault", "irregularity") for e in events)


def test_an_internal_error_is_one_line_not_a_traceback(capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("oops")

    monkeypatch.setattr("controller.cli.deal.parse_script", broken)
    monkeypatch.setattr(sys, "stdin", io.StringIO("AS"))
    monkeypatch.delenv("SABOT_DEBUG", raising=False)
    assert main(["deal", "-"]) == 70
    err = capsys.readouterr().err
    assert "internal error: KeyError" in err and "Traceback" not in err


def _two_shoes() -> str:
    from controller.game.script import format_script
    from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe

    first, second = (format_script(dealt_until_shoe_end(shuffled_shoe(1, seed=s), 1))
                     for s in (1, 2))
    return first + "\nNEWSHOE\n" + second


def test_each_shoe_has_its_own_summary_and_bead_plate(capsys, monkeypatch):
    """Issue 9: with NEWSHOE the text ran one count and one bead plate across both shoes."""
    text = _two_shoes()
    status, out, _ = run_deal(capsys, monkeypatch, text, "--decks", "1")
    assert status == 0
    shoes = out.split("\n== shoe ")[1:]
    assert [s.split(":")[0] for s in shoes] == ["1", "2"]
    for shoe in shoes:
        rounds = sum(1 for line in shoe.splitlines() if line.startswith("round"))
        assert shoe.count("bead plate:") == 1
        assert f"\n{rounds} rounds: banker" in shoe
    assert "1 deck, dealing style A" in out


def test_replay_prints_the_first_shoe_header_as_deal_does(capsys, monkeypatch, tmp_path):
    journal = str(tmp_path / "j.db")
    text = _two_shoes()
    _, dealt, _ = run_deal(capsys, monkeypatch, text, "--decks", "1", "--json",
                           "--journal", journal)
    assert main(["replay", journal, "--json"]) == 0
    replayed = capsys.readouterr().out
    # The same lines, keys in deal's order too, though the journal keeps them sorted.
    assert replayed.splitlines() == [
        line for line in dealt.splitlines() if '"input_end"' not in line]
    assert replayed.splitlines()[1].startswith('{"event": "burn", "cards": [')
    assert main(["replay", journal]) == 0
    assert capsys.readouterr().out.startswith("\n== shoe 1: 1 deck, dealing style A\n")


def test_sabot_deal_without_a_journal_loads_no_pixels_crypto_serial_or_database():
    """Issue 9: `sabot deal` starts in a few tens of milliseconds; a journal's signing key
    (cryptography), SQLite, OpenCV, numpy and pyserial are loaded only by what needs them."""
    code = ("import io, sys\n"
            "sys.stdin = io.StringIO('AS 2C 2H 3D 4H 5D')\n"
            "from controller.cli import main\n"
            "assert main(['deal']) == 0\n"
            "heavy = ('cv2', 'numpy', 'cryptography', 'serial', 'sqlite3')\n"
            "print(' '.join(m for m in heavy if m in sys.modules) or 'none', file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "none"
    assert "round   1" in done.stdout


def test_an_argument_no_command_knows_is_refused_with_that_commands_usage(capsys):
    """It was refused with the top parser's usage, `sabot [-h] COMMAND ...`, which does
    not say which command."""
    with pytest.raises(SystemExit) as exited:
        main(["verify", "j.db", "--frobnicate"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: sabot verify ") and "sabot verify: error: unrecognized " \
        "arguments: --frobnicate" in err


def test_an_order_file_saved_with_a_byte_order_mark_reads_as_without_it(
        tmp_path, capsys, monkeypatch):
    """A trial (stop 52): Notepad's byte order mark made the first token "\\ufeffQS", not a
    card code. A file and standard input alike."""
    plain = tmp_path / "plain.txt"
    plain.write_text(SHOE)
    marked = tmp_path / "marked.txt"
    marked.write_bytes(b"\xef\xbb\xbf" + SHOE.replace("\n", "\r\n").encode())
    assert main(["deal", str(plain), "--json"]) == 0
    expected = capsys.readouterr().out
    assert main(["deal", str(marked), "--json"]) == 0
    assert capsys.readouterr().out == expected
    status, out, _ = run_deal(capsys, monkeypatch, "\ufeff" + SHOE, "--json")
    assert status == 0 and out == expected


def test_sabot_says_which_release_is_installed():
    """A test lab pins the software it tests (a trial, stop 61: `sabot --version` was refused
    as a missing command)."""
    from importlib.metadata import version

    done = subprocess.run([sys.executable, "-m", "controller.cli", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"sabot {version('sabot')}\n"
