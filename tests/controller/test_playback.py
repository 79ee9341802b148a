"""`sabot playback REC` (issue 13): a recording played into the real service gives the
journal of the shoe it recorded, at any speed, and `--expect` names the first difference."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile

import pytest

from controller.cli import main
from controller.journal.compare import expected_events, first_difference, journal_events
from controller.journal.store import Journal
from controller.journal.verify import verify
from controller.sim.recording import write_synthetic_recording
from tests.shared_profiles import suite_reader
from vision.decks import synthetic_deck
from vision.profile import save_profile

# A burn (rule 7.4: the ace shows one more card burned), two rounds, each opened by the
# shoe's No more bets button (rule 8.2), the cut card (rule 9.8) and the last coup.
ORDER = "AS 2C NMB 2H 3D 4H 5D NMB 4S 5S 5C 3C CUT NMB TH JH QH KH"
TABLE = ["--window", "40,30,128,200"]


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    """A profile of the synthetic deck, a recording of ORDER dealt through an emulated shoe,
    and what `sabot deal` makes of the same order."""
    folder = tmp_path_factory.mktemp("playback")
    deck = synthetic_deck()
    profile = folder / "profile.npz"
    save_profile(suite_reader(deck).profile, profile)  # the suite's cached one
    recording = write_synthetic_recording(deck, ORDER.split(), folder / "rec", seed=3,
                                          window=(40, 30))
    order = folder / "order.txt"
    order.write_text(ORDER + "\n")
    deal = subprocess.run([sys.executable, "-m", "controller.cli", "deal", "--json",
                           str(order)], capture_output=True, text=True, check=False)
    expected = folder / "deal.jsonl"
    expected.write_text(deal.stdout)
    return {"profile": str(profile), "recording": recording, "deal": expected,
            "folder": folder}


def play(rig, *extra: str, journal=None) -> int:
    journal = journal or rig["folder"] / f"journal-{len(list(rig['folder'].glob('j*')))}"
    return main(["playback", str(rig["recording"]), "--profile", rig["profile"], *TABLE,
                 "--journal", str(journal), *extra])


def test_a_recorded_shoe_played_back_journals_what_deal_gives_for_its_order(rig, capsys):
    journal = rig["folder"] / "fast.sqlite"
    assert play(rig, "--fast", "--expect", str(rig["deal"]), journal=journal) == 3
    err = capsys.readouterr().err
    assert f"the same {len(expected_events(rig['deal']))} events as" in err
    assert "14 cards and the cut card, 2 rounds, 0 faults" in err
    assert "reading window: 40,30,128,200 (--window)" in err  # said, as a lab needs it
    with Journal(str(journal), create=False) as opened:
        kinds = [r.body["kind"] for r in opened.records() if r.kind == "observation"]
        links = [r.body for r in opened.records() if r.kind == "link"]
    assert kinds.count("no_more_bets") == 3  # pressed on the shoe, through the real link
    # Each card is journaled as seen when the next one comes (docs/protocol.md 8.3); the
    # last, the cut card (15), at the clean end, its passage decided: a service started
    # again is not sent it as a card it never saw.
    assert [link["card_counter"] for link in links][-2:] == [14, 15]
    assert links[-1]["event"] > 30
    assert verify(str(journal)).ok


def test_the_same_recording_gives_the_same_journal_at_the_recorded_pace(rig):
    """The sensor, frames and buttons reach the table in recorded order at any speed."""
    fast, paced = rig["folder"] / "a.sqlite", rig["folder"] / "b.sqlite"
    assert play(rig, "--fast", journal=fast) == 3
    assert play(rig, "--speed", "3", journal=paced) == 3
    assert journal_events(paced) == journal_events(fast)


def test_expect_names_the_first_difference_and_fails(rig, capsys, tmp_path):
    planted = tmp_path / "planted.jsonl"
    lines = rig["deal"].read_text().splitlines()
    events = [json.loads(line) for line in lines]
    at = next(i for i, e in enumerate(events) if e.get("card") == "5C")
    events[at]["card"] = "5H"
    planted.write_text("".join(json.dumps(e) + "\n" for e in events))
    assert play(rig, "--fast", "--expect", str(planted)) == 1
    err = capsys.readouterr().err
    assert f"differs from {planted}: event {at + 1} differs in card" in err
    assert '"card": "5H"' in err and '"card": "5C"' in err


def test_expect_takes_a_journal_and_sees_events_missing(rig, capsys, tmp_path):
    shorter = tmp_path / "shorter.jsonl"
    shorter.write_text(rig["deal"].read_text() + json.dumps({"event": "burn", "cards": []})
                       + "\n")
    assert play(rig, "--fast", "--expect", str(shorter)) == 1
    assert "1 expected event(s) missing after event" in capsys.readouterr().err
    before = tmp_path / "before.sqlite"
    assert play(rig, "--fast", journal=before) == 3
    assert play(rig, "--fast", "--expect", str(before)) == 3
    assert "the same 27 events as" in capsys.readouterr().err


def test_first_difference_in_words():
    a = [{"event": "burn", "cards": ["AS", "2C"]}]
    assert first_difference(a, list(a)) is None
    assert "event(s) more than expected after event 1" in first_difference(a, a + a)
    assert "differs in cards" in first_difference(a, [{"event": "burn", "cards": ["AS"]}])


def test_bad_input_is_named(rig, capsys, tmp_path):
    taken = tmp_path / "taken.sqlite"
    taken.write_bytes(b"")
    assert play(rig, journal=taken) == 2
    assert "already exists" in capsys.readouterr().err
    nowhere = tmp_path / "none" / "j.sqlite"
    assert play(rig, journal=nowhere) == 2
    assert f"--journal {nowhere}: no such directory {tmp_path / 'none'}" in (
        capsys.readouterr().err)
    assert main(["playback", str(tmp_path / "none"), "--profile", rig["profile"]]) == 2
    assert "no such recording directory" in capsys.readouterr().err
    a_file = tmp_path / "order.txt"
    a_file.write_text("AS 2C\n")
    assert main(["playback", str(a_file), "--profile", rig["profile"]]) == 2
    assert f"{a_file}: a file, not a recording" in capsys.readouterr().err
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"event": "burn"}\nnot json\n')
    assert play(rig, "--expect", str(junk)) == 2
    assert f"{junk}, line 2: not a JSON event" in capsys.readouterr().err
    broken = tmp_path / "rec"
    shutil.copytree(rig["recording"], broken)
    (broken / "frames" / "000010.png").unlink()
    assert main(["playback", str(broken), "--profile", rig["profile"], *TABLE]) == 2
    assert "1 recorded frame(s) missing, the first 000010.png" in capsys.readouterr().err


def test_a_playback_refused_leaves_no_empty_folder_behind(rig, capsys, tmp_path, monkeypatch):
    """Without --journal a playback journals into a new temporary folder: one refused (no such
    recording, frames missing) leaves none, one that played keeps its journal there."""
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    assert main(["playback", str(tmp_path / "none"), "--profile", rig["profile"]]) == 2
    assert "no such recording directory" in capsys.readouterr().err
    broken = tmp_path / "rec"
    shutil.copytree(rig["recording"], broken)
    (broken / "frames" / "000010.png").unlink()
    assert main(["playback", str(broken), "--profile", rig["profile"], *TABLE]) == 2
    assert "recorded frame(s) missing" in capsys.readouterr().err
    assert list(temp.iterdir()) == []
    assert main(["playback", str(rig["recording"]), "--profile", rig["profile"], *TABLE,
                 "--fast"]) == 3  # the order ends in a round (as deal's)
    (folder,) = temp.iterdir()
    assert (folder / "playback.sqlite").is_file()
    assert f"journal {folder / 'playback.sqlite'}" in capsys.readouterr().err


def test_the_summary_names_the_irregularities_with_their_rules(rig, capsys, tmp_path):
    """A recording with no "No more bets" presses, played where they are required: every
    card after the burn is held as an excess card (rule 12.2(a)), which the summary used to
    leave out ("0 rounds, 0 faults", exit 0)."""
    recording = write_synthetic_recording(synthetic_deck(), "AS 2C 2H 3D 4H 5D".split(),
                                          tmp_path / "rec", seed=3, window=(40, 30))
    assert main(["playback", str(recording), "--profile", rig["profile"], *TABLE, "--fast",
                 "--journal", str(tmp_path / "j.sqlite")]) == 0
    assert "0 rounds, 0 faults, 4 irregularities (rule 12.2(a))" in capsys.readouterr().err


def test_a_recording_cut_off_mid_line_plays_up_to_there_with_a_note(rig, capsys, tmp_path):
    """A lab's trial (stop 46): a recording killed as it wrote its events file left half a
    line at the end, and the whole recording could not be played. Its last line cut off
    mid-write is left out with a note; a damaged line elsewhere is still an error."""
    torn = tmp_path / "torn"
    shutil.copytree(rig["recording"], torn)
    events = torn / "events.jsonl"
    text = events.read_text()
    events.write_text(text + '{"kind": "rx", "t": 12.5, "he')
    lines = text.count("\n") + 1
    status = main(["playback", str(torn), "--profile", rig["profile"], *TABLE, "--fast",
                   "--expect", str(rig["deal"]), "--journal", str(tmp_path / "j.sqlite")])
    err = capsys.readouterr().err
    assert status == 3  # as the whole recording: the cards ran out in a round
    assert f"note: {events}, line {lines}: cut off mid-write" in err
    assert "the same" in err and "events as" in err
    events.write_text(text + '{"kind": "rx", "t": 12.5, "he\n')  # a whole line, damaged
    status = main(["playback", str(torn), "--profile", rig["profile"], *TABLE, "--fast",
                   "--journal", str(tmp_path / "k.sqlite")])
    assert status == 2
    assert f"{events}, line {lines}: not a recording record" in capsys.readouterr().err


def test_a_playback_expects_no_link_of_its_own(rig, tmp_path):
    """A review (stop 47): a live table's link must come up within 10 s of the start, by
    the wall clock; a playback's link is recorded, its time the recording's, and a
    recording of the camera alone played slowly halted for a shoe it never had."""
    from controller.service.playback_setup import Playback  # noqa: PLC0415

    settings = {"decks": 8, "style": "A", "require_no_more_bets": True}
    with Playback(rig["recording"], settings, rig["profile"], (40, 30, 128, 200),
                  str(tmp_path / "j.sqlite")) as playback:
        assert playback.table.runtime.link_expected is False


def test_playback_says_when_its_reading_window_is_only_the_default(rig, tmp_path, capsys):
    """A lab's trial (stop 48): with no window given, nothing was read and nothing said; a
    config that sets none is no calibration either (a review)."""
    config = tmp_path / "run.toml"
    config.write_text('[table]\ndecks = 8\n')
    main(["playback", str(rig["recording"]), "--profile", rig["profile"], "--config",
          str(config), "--fast", "--journal", str(tmp_path / "j.sqlite")])
    assert ("reading window: 0,0,128,200 (the default: give --window X,Y,W,H, or --config "
            "with a [camera] window)") in capsys.readouterr().err


def test_a_halted_playback_says_why_without_json(rig, tmp_path, capsys):
    """A trial (stop 61): a window off the camera's frame halted the table, and the summary
    said only "1 faults"; the reason was in the journal and `--json` alone."""
    status = main(["playback", str(rig["recording"]), "--profile", rig["profile"],
                   "--window", "5000,0,128,200", "--fast", "--journal",
                   str(tmp_path / "j.sqlite")])
    err = capsys.readouterr().err
    assert status == 4
    assert ", 1 fault;" in err
    assert "the input ended with the table halted on 1 fault(s), the first: " in err
    assert "runs past the camera's" in err
