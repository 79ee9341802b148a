"""End to end: `sabot simulate --json` through frames, tracker, pty link, queue, rules, fake
GPIO and journal prints exactly what `sabot deal --json` prints for the same card order."""

import json
import tempfile
import threading

import pytest

from controller.cli import main
from controller.journal.verify import verify

SCRIPTS = {
    "cut_first_of_round_face_up_and_disclosed_excess": (
        "AS 2C\nNMB 2H 3D 4H 5D 9S DISCLOSED KH KD 7S NMB CUT KH ^KD KS 8C\n"),
    "cut_during_round": "AS 2C 2H CUT 3D 4H 5D KH KD 7S 8C\n",
    "held_excess_and_face_up_first_card": (
        "AS 2C NMB 2H 3D 4H 5D 9S NMB KH KD 7S ^9C 3C 4C 5C NMB QH 6D 2S 3S\n"),
    "fault_and_acknowledge_mid_round": "AS 2C 2H 3D JOKER ACK 4H 5D NEWSHOE 3H 2D 4D 5D 6D\n",
    # Rule 11.1: the cards left counted out through the camera (the count_out button), short
    # of most of the shoe: NEWSHOE gives the count and halts, ACK and NEWSHOE go on.
    "count_out_short": "AS 2C 2H CUT 3D 4H 5D KH KD 7S 8C COUNT 9S 9H NEWSHOE ACK NEWSHOE 3H\n",
    # A card drawn half way and pushed back (the camera sees its index go back down the
    # window): the table halts, keeps it in its hand, and does not count it when drawn.
    "card_pushed_back_mid_round": "AS 2C 2H 3D <3D ACK 3D 4H 5D KH\n",
}


def lines_of(capsys):
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_simulate_prints_what_deal_prints(name, tmp_path, capsys):
    shoe = tmp_path / "shoe.txt"
    shoe.write_text(SCRIPTS[name])
    deal_status = main(["deal", str(shoe), "--json"])
    dealt = lines_of(capsys)
    journal = tmp_path / "sim.sqlite"
    sim_status = main(["simulate", "--json", "--shoe", str(shoe), "--seed", "5",
                       "--journal", str(journal)])
    simulated = lines_of(capsys)
    stats = simulated.pop()
    assert simulated == dealt  # a joker too: the camera tells it from an unreadable card
    assert sim_status == deal_status
    assert stats["event"] == "stats"
    assert stats["cards"] == sum(1 for t in SCRIPTS[name].split() if not t.startswith("<")
                                 and t not in ("NMB", "DISCLOSED", "ACK", "NEWSHOE", "COUNT"))
    assert stats["frames"] > stats["cards"] * 10
    assert stats["latency_ms_p50"] is not None and stats["latency_ms_p99"] >= 0
    assert verify(str(journal)).ok


def test_an_unreadable_card_is_simulated_as_a_card_the_camera_cannot_read(tmp_path, capsys):
    """A lab's trial (stop 48): UNREADABLE was dealt as a joker, which is no card of the
    shoe, so the simulated shoe held one card more than deal's. It is a face with nothing
    printed: counted as deal counts it; only the fault's words are the camera's."""
    shoe = tmp_path / "shoe.txt"
    shoe.write_text("AS 2C 2H 4D UNREADABLE ACK 3H 5D CUT 2S 4S 3S 5S\n")
    deal_status = main(["deal", str(shoe), "--decks", "1", "--json"])
    dealt = lines_of(capsys)
    assert main(["simulate", "--json", "--shoe", str(shoe), "--decks", "1",
                 "--seed", "5"]) == deal_status
    simulated = lines_of(capsys)[:-1]

    def worded(events):
        out = []
        for event in events:
            event = dict(event)
            if event["event"] == "fault":
                event["reason"] = event["reason"].split(":")[0]
            if event["event"] == "ack":
                event["faults"] = [f.split(":")[0] for f in event["faults"]]
            out.append(event)
        return out

    assert worded(simulated) == worded(dealt)
    assert [e["reason"] for e in simulated if e["event"] == "fault"] == [
        "unreadable card: no confident reading of the card"]
    assert [e["cards_left"] for e in simulated if "cards_left" in e] == [
        e["cards_left"] for e in dealt if "cards_left" in e]


def test_a_damaged_serial_line_changes_nothing_the_table_does(tmp_path, capsys):
    """`--damage`: a fifth of the serial frames garbled, cut, lost or doubled each way (a
    bad cable); the link's retransmission hides it all (the fault campaign's soak uses it)."""
    shoe = tmp_path / "shoe.txt"
    shoe.write_text(SCRIPTS["held_excess_and_face_up_first_card"])
    main(["deal", str(shoe), "--json"])
    dealt = lines_of(capsys)
    assert main(["simulate", "--json", "--shoe", str(shoe), "--seed", "6",
                 "--damage", "0.2"]) == 0
    assert lines_of(capsys)[:-1] == dealt


def test_simulate_in_a_terminal_shows_the_table_and_ends_cleanly(tmp_path, capsys):
    shoe = tmp_path / "shoe.txt"
    shoe.write_text(SCRIPTS["cut_during_round"] + "9H\n")  # a card after the end: a fault
    status = main(["simulate", "--shoe", str(shoe), "--speed", "0", "--seed", "2",
                   "--journal", str(tmp_path / "j.sqlite")])
    out = capsys.readouterr().out
    assert status == 4
    assert "bead plate" in out and "big road" in out
    assert "halted" in out and "9H drawn after the end of the shoe" in out
    assert "latency p50" in out


def test_a_slow_pace_with_only_buttons_for_seconds_is_no_camera_fault(tmp_path, capsys):
    shoe = tmp_path / "shoe.txt"
    shoe.write_text("AS 2C 2H 3D 4H 5D\n" + "ACK " * 8 + "\n6C 7D 8H 9S\n")
    main(["deal", str(shoe), "--json"])
    dealt = lines_of(capsys)
    main(["simulate", "--json", "--shoe", str(shoe), "--speed", "3", "--seed", "1",
          "--journal", str(tmp_path / "j.sqlite")])
    simulated = lines_of(capsys)[:-1]
    assert simulated == dealt  # no "camera: no frame" fault while the buttons were pressed


def test_a_journal_of_another_shoe_is_refused_before_anything_is_written(tmp_path, capsys):
    shoe, other = tmp_path / "shoe.txt", tmp_path / "other.txt"
    shoe.write_text(SCRIPTS["cut_during_round"])
    other.write_text("AS 2C 9H 9D 4H 5D 6H 7D 8H 9S KH KD\n")
    journal = tmp_path / "j.sqlite"
    assert main(["simulate", "--json", "--shoe", str(shoe), "--journal", str(journal)]) == 0
    size = journal.stat().st_size, verify(str(journal)).records
    capsys.readouterr()
    assert main(["simulate", "--json", "--shoe", str(other), "--journal", str(journal)]) == 1
    err = capsys.readouterr().err
    assert "belongs to another input" in err
    assert "Card(" not in err and ", the input has 9H there" in err  # tokens, not reprs
    assert verify(str(journal)).records == size[1]


def test_a_failed_start_leaves_no_thread_or_pty_behind(tmp_path, capsys):
    shoe = tmp_path / "shoe.txt"
    shoe.write_text(SCRIPTS["cut_during_round"])
    journal = tmp_path / "j.sqlite"
    assert main(["simulate", "--json", "--shoe", str(shoe), "--journal", str(journal)]) == 0
    threads = threading.active_count()
    for _ in range(3):  # the journal was written for 8 decks: refused at recovery
        assert main(["simulate", "--json", "--shoe", str(shoe), "--decks", "6",
                     "--journal", str(journal)]) == 1
    assert "decks=8" in capsys.readouterr().err
    assert threading.active_count() == threads


@pytest.mark.parametrize("command", [["deal"], ["simulate", "--decks", "1", "--json"]])
def test_a_journal_path_in_no_folder_is_the_users_mistake(command, tmp_path, capsys,
                                                            monkeypatch):
    """Exit 2, said before anything starts, as every other bad path (it was 1, the status of
    storage that fails under a running table)."""
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    missing = tmp_path / "none" / "j.sqlite"
    assert main([*command, "--journal", str(missing)]) == 2
    assert f"--journal {missing}: no such directory {tmp_path / 'none'}" in (
        capsys.readouterr().err)
    assert main([*command, "--journal", str(tmp_path)]) == 2
    assert f"--journal {tmp_path}: a directory; give a file name in it" in (
        capsys.readouterr().err)


def test_a_simulation_refused_leaves_no_empty_folder_behind(tmp_path, capsys, monkeypatch):
    """Without --journal the shoe is journaled in a new temporary folder, named at the end: a
    design refused when the simulation starts leaves none behind."""
    shoe, deck, temp = tmp_path / "shoe.txt", tmp_path / "deck", tmp_path / "temp"
    shoe.write_text(SCRIPTS["cut_during_round"])
    deck.mkdir()
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    assert main(["simulate", "--json", "--shoe", str(shoe), "--deck", str(deck)]) == 2
    assert "lacks AS, 2S" in capsys.readouterr().err
    assert list(temp.iterdir()) == []
    assert main(["simulate", "--shoe", str(shoe), "--speed", "0"]) == 0
    (folder,) = temp.iterdir()
    assert f"journal {folder / 'simulate.sqlite'}" in capsys.readouterr().out
    assert verify(str(folder / "simulate.sqlite")).ok


@pytest.mark.parametrize("design", ["gnome-dondorf", "gnome-rheinland"])
def test_simulate_on_a_real_design_prints_what_deal_prints(design, tmp_path, capsys):
    """Issue 8: the whole pipeline on designs other than the one the reader was made on."""
    from vision.decks import decks_root

    shoe = tmp_path / "shoe.txt"
    shoe.write_text("AS 2C NMB 2H 3D 4H 5D 9S NMB KH KD 7S ^9C 3C 4C 5C NMB QH 6D 2S 3S "
                    "10H JC CUT 8D 6S 7C 2D\n")
    deal_status = main(["deal", str(shoe), "--json"])
    dealt = lines_of(capsys)
    sim_status = main(["simulate", "--json", "--shoe", str(shoe), "--seed", "8",
                       "--deck", str(decks_root() / design),
                       "--journal", str(tmp_path / "sim.sqlite")])
    simulated = lines_of(capsys)
    assert simulated.pop()["event"] == "stats"
    assert simulated == dealt
    assert sim_status == deal_status


def test_a_profile_shown_another_design_is_said_to_be_perhaps_not_its_own(capsys):
    """--profile without the --deck it was enrolled from read every card unreadable, and
    nothing said why."""
    from controller.sim.setup import deck_digest, enrolled_reader, profile_cache
    from vision.decks import synthetic_deck

    deck = synthetic_deck()
    enrolled_reader(deck)  # the built-in design's profile, into the cache
    profile = str(profile_cache() / f"{deck.name}-{deck_digest(deck)}.npz")
    args = ["simulate", "--decks", "1", "--seed", "5", "--json", "--profile", profile]
    assert main(args) == 0
    assert "warning" not in capsys.readouterr().err
    assert main([*args, "--deck", "vector-playing-cards"]) == 4  # halted: unreadable
    err = capsys.readouterr().err
    assert f"warning: {profile} reads " in err
    assert "of the 52 cards of the vector-playing-cards design shown in place: is it that " \
        "design's profile?" in err


def test_a_profile_that_does_not_read_the_shoes_cut_card_is_warned_of(capsys):
    """The shoe halts at its cut card, unreadable, with nothing said before of why (a new
    user's profile enrolled without the cut card)."""
    from dataclasses import replace

    from controller.cli.simulate import _say_what_the_profile_will_not_read
    from controller.sim.setup import enrolled_reader
    from vision.decks import draw_cut, synthetic_deck

    deck = synthetic_deck()
    reader = enrolled_reader(deck)
    _say_what_the_profile_will_not_read(reader, deck, "p.npz")
    assert capsys.readouterr().err == ""  # its own design and cut card: nothing to say
    green = replace(deck, cards={**deck.cards, "CUT": draw_cut((40, 200, 60))})
    _say_what_the_profile_will_not_read(reader, green, "p.npz")
    err = capsys.readouterr().err
    assert "warning: p.npz does not read the shoe's cut card in place (" in err
    assert "the table halts when it comes (enrol the cut card the shoe deals" in err
    assert "reads" not in err.split("does not read")[0]  # its cards it reads
    # A shoe that deals no cut card (a --shoe without CUT, one resumed past it) is not
    # told it will halt there.
    _say_what_the_profile_will_not_read(reader, green, "p.npz", deals_cut=False)
    assert capsys.readouterr().err == ""


def test_off_a_terminal_the_live_view_tells_each_event_as_it_happens(capsys):
    """A log or a pipe showed nothing until the shoe's end (a minute and a half at --speed
    4): each event is told as `sabot deal` tells it, then the table as it ended."""
    assert main(["simulate", "--decks", "1", "--seed", "5", "--speed", "0"]) == 0
    out = capsys.readouterr().out
    panel = out.index("Sabot simulate")
    assert out.index("burn      ") < out.index("round   1  ") < out.index("== end of shoe") < panel
    assert "ended after round" in out[panel:]


def test_deal_and_simulate_sign_their_journals_for_a_lab_to_check(tmp_path, capsys):
    """An auditor's trial (stop 47): only `sabot run` signed, so practising `verify --key`
    took a whole rig."""
    shoe = tmp_path / "shoe.txt"
    shoe.write_text(SCRIPTS["held_excess_and_face_up_first_card"])
    key = tmp_path / "table.key"
    for command in (["deal", str(shoe)], ["simulate", "--json", "--shoe", str(shoe)]):
        journal = tmp_path / f"{command[0]}.sqlite"
        main([*command, "--journal", str(journal), "--sign", str(key)])
        capsys.readouterr()
        assert main(["verify", str(journal), "--key", f"{key}.pub"]) == 0
        assert "every signature by the trusted key" in capsys.readouterr().out
    assert main(["deal", str(shoe), "--sign", str(key)]) == 2
    assert "--sign signs a journal: give --journal PATH too" in capsys.readouterr().err
    # A trial (stop 52): `simulate` signed a journal in a temporary folder, never named.
    other = tmp_path / "other.key"
    assert main(["simulate", "--json", "--shoe", str(shoe), "--sign", str(other)]) == 2
    assert "--sign signs a journal: give --journal PATH too" in capsys.readouterr().err
    assert not other.exists()


def test_a_shoe_shuffled_without_a_seed_names_the_seed_that_deals_it_again(tmp_path, capsys):
    """A trial (stop 61): a run interrupted mid-shoe could not be resumed, for the shoe was
    shuffled by a seed said nowhere. It is said before the first card."""
    import re  # noqa: PLC0415

    assert main(["simulate", "--json", "--decks", "1", "--speed", "0",
                 "--journal", str(tmp_path / "first.sqlite")]) == 0
    out = capsys.readouterr()
    seed = re.search(r"shuffled with --seed (\d+) \(give it again", out.err).group(1)
    first = [json.loads(line) for line in out.out.splitlines()][:-1]  # less the stats
    assert main(["simulate", "--json", "--decks", "1", "--speed", "0", "--seed", seed,
                 "--journal", str(tmp_path / "again.sqlite")]) == 0
    again = capsys.readouterr()
    assert "shuffled with" not in again.err
    assert [json.loads(line) for line in again.out.splitlines()][:-1] == first
    assert sum(event["event"] == "round" for event in first) >= 5
