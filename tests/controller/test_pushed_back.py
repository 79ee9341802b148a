"""A card drawn half way and pushed back into the shoe (`<X` in a deal script, SlidBack from
the camera): counted once where it was dealt, never again when it is drawn. Not in the
Gazette's rules: a miscounted card would light a wrong draw lamp (rules 10.x's tableau)."""

import pytest

from controller.errors import InputError
from controller.game import observations as obs
from controller.game.script import format_script, parse_script
from tests.controller.conftest import of_kind, run_script


def _notices(events):
    return [e["message"] for e in of_kind(events, "notice")]


def test_the_card_pushed_back_stays_in_its_hand_and_its_next_reading_is_not_counted():
    """The 8-deck table of stop 48's trial showed P 2H 3D 5D, B 3D 4H where P 2H 4H,
    B 3D 5D were dealt, and lit a wrong draw lamp."""
    table, events = run_script("NMB 2H 3D <3D ACK 3D 4H 5D")
    (fault,) = of_kind(events, "fault")
    assert fault["reason"].startswith("3D went back into the shoe after it was read")
    assert "in the Banker hand of round 1" in fault["reason"] and fault["card"] is None
    assert any(n.startswith("3D drawn again after it was pushed back") for n in _notices(events))
    (done,) = of_kind(events, "round")
    assert done["player"] == ["2H", "4H"] and done["banker"] == ["3D", "5D"]
    assert table.state.counts["3D"] == 1 and table.state.cards_drawn == 6
    assert [e["card"] for e in of_kind(events, "card")] == ["2H", "3D", "4H", "5D"]


def test_the_card_pushed_back_drawn_again_while_halted_is_not_set_aside():
    table, events = run_script("NMB 2H 3D <3D 3D ACK 4H 5D")
    (ack,) = of_kind(events, "ack")
    assert ack["set_aside"] == []
    assert of_kind(events, "round")[0]["banker"] == ["3D", "5D"]
    assert table.state.ledger["set_aside"] == 0


def test_another_card_before_the_one_pushed_back_is_counted_set_aside_and_named_with_it():
    table, events = run_script("NMB 2H 3D <3D ACK 4H")
    last = of_kind(events, "fault")[-1]
    assert last["card"] == "4H" and "3D" in last["reason"]
    assert last["reason"].startswith("4H drawn while 3D, pushed back into the shoe")
    assert "3D is awaited no longer" in last["reason"]
    assert table.state.counts["4H"] == 1 and table.state.ledger["set_aside"] == 1


def test_the_wait_for_a_card_pushed_back_ends_when_another_card_comes_first():
    """A review (stop 49): awaited until it came, a card taken out of the shoe by hand had
    every later card set aside, NEWSHOE refused in the round, and a later copy of it in an
    8-deck shoe swallowed as a notice."""
    table, events = run_script("NMB 2H 3D <3D 4H ACK 5D 6C", decks=1)
    assert of_kind(events, "ack")[0]["set_aside"] == ["4H"]
    (done,) = of_kind(events, "round")
    assert done["player"] == ["2H", "5D"] and done["banker"] == ["3D", "6C"]
    assert table.state.pushed_back is None and not table.state.halted


def test_an_unreadable_card_while_the_pushed_back_one_is_awaited_is_taken_for_it():
    table, events = run_script("NMB 2H 3D <3D ACK UNREADABLE")
    last = of_kind(events, "fault")[-1]
    assert "taken for 3D and not counted again" in last["reason"] and last["card"] is None
    assert table.state.cards_drawn == 4 and table.state.pushed_back is None
    _, events = run_script("NMB 2H 3D <3D ACK UNREADABLE ACK 4H 5D")
    assert of_kind(events, "round")[0]["player"] == ["2H", "4H"]


def test_a_joker_while_the_pushed_back_card_is_awaited_changes_nothing_about_it():
    table, events = run_script("NMB 2H 3D <3D ACK JOKER ACK 3D")
    assert table.state.pushed_back is None and table.state.counts["3D"] == 1
    assert of_kind(events, "ack")[-1]["set_aside"] == ["JOKER"]


def test_the_card_pushed_back_coming_out_face_up_is_taken_for_it_and_halts():
    table, events = run_script("NMB 2H 3D <3D ACK ^3D")
    last = of_kind(events, "fault")[-1]
    assert last["reason"].startswith("3D came out face up after it was pushed back")
    assert table.state.counts["3D"] == 1 and table.state.banker == ["3D"]
    assert not of_kind(events, "irregularity")  # not rule 12.3 or 12.4: it was dealt


@pytest.mark.parametrize(("script", "words"), [
    ("NMB 2H 3D 4H <2H", "but the last card read was 4H"),
    ("NMB 2H CUT <2H", "but no card was the last thing read"),
    ("NMB 2H 3D <3D ACK <3D", "but no card was the last thing read"),
])
def test_a_card_said_pushed_back_that_was_not_the_last_read_halts_and_awaits_nothing(
        script, words):
    table, events = run_script(script)
    assert words in of_kind(events, "fault")[-1]["reason"]
    if "4H" in script:
        assert table.state.pushed_back is None
        table.apply(obs.Ack())
        table.apply(obs.Card("2H"))
        assert table.state.counts["2H"] == 2  # counted: nothing was awaited


@pytest.mark.parametrize(("script", "place"), [
    ("5S <5S", "with the burn cards"),  # rule 7.4: the burn card shown
    ("NMB 2H 3D 4H 5D <5D", "in the Banker hand of round 1, which is complete"),
    ("NMB 2H 3D 4H 5D 6C <6C", "held for the next round"),  # rule 12.1(b)
    ("NMB 2H 3D <3D 3D <3D", "in the Banker hand of round 1"),  # pushed back twice
    ("NMB 2H 3D 4H 5D 6C <6C ACK NMB 6C <6C", "in round 2, dealt from the held cards"),
])
def test_the_fault_says_where_the_pushed_back_card_stays(script, place):
    table, events = run_script(script, burn=not script.startswith("5S"))
    assert place in of_kind(events, "fault")[-1]["reason"]


def test_a_held_card_pushed_back_is_where_no_more_bets_dealt_it_when_drawn_again():
    """Rule 12.1(b): the held excess card opens the next round at "No more bets"; the
    notice said it was still held (a review, stop 49)."""
    _, events = run_script("NMB 2H 3D 4H 5D 6C <6C ACK NMB 6C")
    assert _notices(events)[-1].endswith("its place is in round 2, dealt from the held cards")


def test_a_card_pushed_back_after_the_shoe_ran_dry_is_in_the_abandoned_round():
    """The last card of a one-deck shoe ends it in the middle of a round (rule 7.1)."""
    from controller.game.cards import ALL_CARDS

    order = " ".join(ALL_CARDS)
    table, events = run_script(f"{order} <{ALL_CARDS[-1]}", decks=1, burn=False)
    assert of_kind(events, "shoe_exhausted")
    assert "abandoned when the shoe ran out of cards" in of_kind(events, "fault")[-1]["reason"]


def test_a_new_shoe_forgets_the_card_pushed_back():
    """Rule 7.6: the cards replaced, the card is one of the new shoe's like any other."""
    table, _ = run_script("NMB 2H 3D 4H 5D <5D ACK NEWSHOE")
    assert table.state.pushed_back is None
    table.apply(obs.Card("5D"))
    assert table.state.counts["5D"] == 1 and table.state.cards_drawn == 1


def test_the_script_token_and_the_journal_record_of_a_card_pushed_back():
    (step,) = parse_script("<7c")
    assert step.observation == obs.SlidBack("7C")
    assert format_script([obs.SlidBack("10H"), obs.Card("10H")]).split() == ["<10H", "10H"]
    record = obs.to_dict(obs.SlidBack("QD"))
    assert record == {"kind": "slid_back", "card": "QD"}
    assert obs.observation_from_dict(record) == obs.SlidBack("QD")
    with pytest.raises(InputError, match="'slid_back': 'qd' is not a card code"):
        obs.observation_from_dict({"kind": "slid_back", "card": "qd"})
    with pytest.raises(InputError, match="line 1, column 4: token '<1X'"):
        parse_script("AS <1X")


@pytest.mark.parametrize(("script", "column"), [
    ("AS 2C 2H <3D", 10),  # not the card just drawn
    ("AS 2C ^2H <2H", 11),  # face up: the camera under it sees its back
    ("<2H AS", 1),
])
def test_an_emulated_dealer_pushes_back_only_the_face_down_card_just_drawn(script, column):
    from controller.game.script import check_pushed_back, pushed_back

    steps = parse_script(script)
    with pytest.raises(InputError, match=f"shoe.txt, line 1, column {column}: token '<"):
        check_pushed_back(steps, "shoe.txt")
    good = parse_script("AS 2C 2H <2H ACK 2H")
    check_pushed_back(good, "shoe.txt")
    assert [pushed_back([s.observation for s in good], i) for i in range(6)] == [
        False, False, True, False, False, False]


def test_simulate_refuses_a_push_back_it_cannot_deal_before_the_shoe_starts(tmp_path, capsys):
    from controller.cli import main

    shoe = tmp_path / "shoe.txt"
    shoe.write_text("AS 2C\n2H 3D <2H\n")
    assert main(["simulate", "--json", "--shoe", str(shoe)]) == 2
    err = capsys.readouterr().err
    assert "line 2, column 7: token '<2H'" in err and "put it right after 2H" in err


def test_a_simulation_cannot_resume_a_journal_that_ends_between_a_card_and_its_push_back(
        tmp_path):
    """A review (stop 49): resumed there, the simulator waited 10 s for a push back it could
    not show and failed with a Python repr; `deal` resumes it."""
    from controller.errors import JournalError
    from controller.journal.replay import check_journal_continues
    from controller.journal.store import Journal

    journal = tmp_path / "j.sqlite"
    planned = [step.observation for step in parse_script("AS 2C 2H 3D <3D ACK 3D 4H")]
    with Journal(str(journal)) as writer:
        for observation in planned[:4]:
            writer.append("observation", obs.to_dict(observation))
    with pytest.raises(JournalError, match="ends between 3D and its <3D"):
        check_journal_continues(str(journal), planned, camera=True)
    check_journal_continues(str(journal), planned)  # `deal` takes it


class _Camera:
    """What the emulated shoe's dealer shows its camera."""

    def __init__(self):
        self.shown = []

    def deal(self, code, *, face_up=False, pulled_back=False):
        self.shown.append(("<" if pulled_back else "^" if face_up else "") + code)

    def press(self, button):
        self.shown.append(button)


def test_the_emulated_shoes_dealer_pushes_back_a_card_in_deals_language():
    """`emulate-shoe --camera`: `deal 7C <7C` as `pullback 7C`, in its order too."""
    from controller.sim.camera_dealer import CameraDealer

    camera = _Camera()
    dealer = CameraDealer(camera, [s.observation for s in parse_script("2H <2H ACK 2H 3D")])
    dealer.deal("7C <7C NMB 7C")
    assert camera.shown == ["<7C", "no_more_bets", "7C"]
    while dealer.deal_next() is not None:
        pass  # the order: the card and its `<` are one passage
    assert camera.shown[3:] == ["<2H", "acknowledge", "2H", "3D"]
    with pytest.raises(InputError, match="token '<9S'"):
        dealer.deal("8S <9S")
