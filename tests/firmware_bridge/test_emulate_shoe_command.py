import argparse
import io
import subprocess
import sys
import threading
import time

import pytest

from controller.cli import emulate_shoe
from firmware_bridge.messages import ButtonPressed, CardGone, CardPresent, LidChanged, LinkUp

CLI = [sys.executable, "-m", "controller.cli"]


def parse(*argv):
    parser = argparse.ArgumentParser()
    emulate_shoe.register(parser.add_subparsers())
    return parser.parse_args(["emulate-shoe", *argv])


def test_options_parse_and_help_lists_the_stdin_commands():
    args = parse("--pty", "--link", "/tmp/x", "--interval", "0.5", "--cards", "3")
    assert (args.link, args.interval, args.cards, args.func) == (
        "/tmp/x", 0.5, 3, emulate_shoe.run,
    )  # fmt: skip
    assert "lid open|closed" in emulate_shoe.COMMANDS and "new_shoe" in emulate_shoe.COMMANDS


def test_bad_damage_rate_is_refused_with_status_2(capsys):
    from controller.cli import main  # noqa: PLC0415

    with pytest.raises(SystemExit) as stopped:
        main(["emulate-shoe", "--damage", "1.5"])
    assert stopped.value.code == 2
    assert "argument --damage: 1.5: give 0 to 1" in capsys.readouterr().err


def test_stdin_commands_drive_the_emulated_shoe_seen_by_the_host(rig):
    shoe, transport, got = rig()
    out = io.StringIO()
    script = ["card 2", "button acknowledge", "lid open", "# a comment", "lid ajar", "quit",
              "card 5"]  # fmt: skip
    emulate_shoe.serve(shoe, script, out)
    got.until(lambda events: any(isinstance(e, LidChanged) for e in events))
    assert got.events == [
        LinkUp("sabot-emu 2.0", shoe.emulator.session.boot_id, 0),
        CardPresent(1), CardGone(1), CardPresent(2), CardGone(2),
        ButtonPressed("acknowledge"), LidChanged(True),
    ]  # fmt: skip
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["dealt: 1", "dealt: 2"]
    assert lines[2].startswith("error: 'lid ajar'")
    assert len(lines) == 3  # nothing after quit


def test_status_and_watch_report_lamps_sent_by_the_host(rig):
    shoe, transport, _ = rig()
    out = io.StringIO()
    stop = threading.Event()
    watcher = threading.Thread(target=emulate_shoe.watch, args=(shoe, out, stop))
    watcher.start()
    transport.send_lamps({"fault", "shuffle"})
    for _ in range(500):
        if shoe.emulator.lamps:
            break
        stop.wait(0.01)
    # The watcher polls every 20 ms: however loaded the machine, give it time to say so.
    for _ in range(500):
        if "lamps: fault shuffle" in out.getvalue():
            break
        time.sleep(0.01)
    stop.set()
    watcher.join()
    emulate_shoe.obey(shoe, ["status"], out)
    assert "lamps: fault shuffle" in out.getvalue().splitlines()
    assert "link=up" in out.getvalue() and "lamps=fault shuffle" in out.getvalue()


def test_link_never_replaces_a_file_that_is_not_a_symlink(tmp_path, capsys):
    """`--link FILE` used to delete an existing file to put its symlink there (issue 12)."""
    from controller.cli import main  # noqa: PLC0415

    precious = tmp_path / "notes.txt"
    precious.write_text("keep me")
    assert main(["emulate-shoe", "--link", str(precious)]) == 3
    assert "exists and is not a symlink" in capsys.readouterr().err
    assert precious.read_text() == "keep me"


def test_a_shoe_file_that_does_not_exist_is_refused(tmp_path, capsys, monkeypatch):
    from controller.cli import main  # noqa: PLC0415

    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))  # were it accepted: stop at once
    missing = tmp_path / "nope.txt"
    assert main(["emulate-shoe", "--shoe", str(missing), "--camera", "0"]) == 2
    assert capsys.readouterr().err == f"sabot emulate-shoe: {missing}: no such file\n"


@pytest.mark.parametrize("option", [["--shoe", "order.txt"], ["--deck", "synthetic"],
                                    ["--fps", "60"], ["--frames-per-card", "12"],
                                    ["--window", "10,10"], ["--cut-colour", "red"]])
def test_the_cameras_options_without_the_camera_are_refused(capsys, monkeypatch, option):
    """Without --camera, --shoe was never read (a missing file was accepted silently), --deck
    never shown and --fps, --frames-per-card and --window never used."""
    from controller.cli import main  # noqa: PLC0415

    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))  # were it accepted: stop at once
    assert main(["emulate-shoe", *option]) == 2
    assert capsys.readouterr().err == (f"sabot emulate-shoe: {option[0]}: options of the "
                                       "shoe's camera: give --camera PORT too\n")


def test_it_stops_with_status_0_at_the_end_of_a_script():
    """It used to serve until killed once a script piped in had ended."""
    done = subprocess.run([*CLI, "emulate-shoe"], input="status\n", capture_output=True,
                          text=True, timeout=30)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("device: /dev/")


def test_with_no_input_at_all_it_serves_until_stopped():
    """A shell starts a background job with stdin from /dev/null: a stand-in for the shoe
    started so must not stop at once."""
    process = subprocess.Popen([*CLI, "emulate-shoe"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().startswith("device: /dev/")
        with pytest.raises(subprocess.TimeoutExpired):
            process.wait(timeout=1.5)
        process.terminate()
        assert process.wait(timeout=10) == 0
    finally:
        process.kill()


def test_at_the_end_of_its_input_the_cards_asked_for_pass_the_camera_first(tmp_path):
    (tmp_path / "order.txt").write_text("AS KD NMB 2C\n")
    done = subprocess.run([*CLI, "emulate-shoe", "--camera", "0", "--shoe",
                           str(tmp_path / "order.txt"), "--fps", "120",
                           "--frames-per-card", "8"],
                          input="card 9\n", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    shown = [line for line in done.stdout.splitlines() if line.startswith("shown: ")]
    assert shown == ["shown: AS", "shown: KD", "shown: 2C"]


def test_at_the_end_of_its_input_a_connected_host_is_given_every_event_first(rig):
    shoe, _, got = rig()
    assert emulate_shoe.serve(shoe, ["card 3"], io.StringIO()) == emulate_shoe.SCRIPT
    emulate_shoe.finish(shoe)
    assert shoe.emulator.queued == 0
    got.until(lambda events: sum(isinstance(e, CardGone) for e in events) == 3)
