"""Shoe accounting: too many of a card, jokers and unreadable cards halt the table."""

from contract import JOKER
from controller.game import observations as obs
from controller.game.shoe import shuffled_shoe
from controller.game.table import Table
from tests.controller.conftest import of_kind, run_script


def test_ninth_copy_in_an_eight_deck_shoe_halts_the_table():
    table, events = run_script("AD " * 8 + "AD")
    (fault,) = of_kind(events, "fault")
    assert fault["reason"] == "AD seen 9 times in an 8-deck shoe"
    assert fault["card"] == "AD"
    assert table.state.halted and table.lamps() == frozenset({"fault"})


def test_second_copy_in_a_one_deck_shoe_halts_the_table():
    _, events = run_script("7H 7H", decks=1)
    assert of_kind(events, "fault")[0]["reason"] == "7H seen 2 times in a 1-deck shoe"


def test_ack_sets_the_offending_card_aside_and_play_goes_on():
    table, events = run_script("2H 3D 2H ACK 4H 5D", decks=1)
    (ack,) = of_kind(events, "ack")
    assert ack["set_aside"] == ["2H"]
    (r,) = of_kind(events, "round")
    assert r["player"] == ["2H", "4H"] and r["banker"] == ["3D", "5D"]
    assert not table.state.halted and table.state.ledger["set_aside"] == 1


JOKER_FAULT = "a joker left the shoe: it is not one of the shoe's cards; set it aside"


def test_joker_and_unreadable_cards_halt_until_acknowledged():
    for token, reason in (("JOKER", JOKER_FAULT),
                          ("UNREADABLE", "unreadable card: marked UNREADABLE in the script")):
        table, events = run_script(f"2H {token}")
        assert of_kind(events, "fault")[0]["reason"] == reason
        assert "fault" in table.lamps()
        table.apply(obs.Ack())
        assert not table.state.halted
        assert table.state.player == ["2H"]


def test_cards_drawn_while_halted_are_faults_too_and_set_aside():
    table, events = run_script("2H UNREADABLE 3D 4H ACK 3D 4H 5D")
    assert [f["card"] for f in of_kind(events, "fault")] == ["??", "3D", "4H"]
    assert of_kind(events, "ack")[0]["set_aside"] == ["??", "3D", "4H"]
    assert of_kind(events, "round")[0]["banker"] == ["3D", "5D"]


def test_equipment_fault_halts_and_lights_fault():
    table, _ = run_script("2H 3D 4H 5D")
    events = table.apply(obs.EquipmentFault("camera: no frame for 2.0 s"))
    assert of_kind(events, "fault")[0]["reason"] == "camera: no frame for 2.0 s"
    assert "fault" in of_kind(events, "lamps")[0]["on"]
    assert "player_stand" not in table.lamps()  # a halted table shows no draw or stand


def test_ack_without_fault_and_new_shoe_while_halted_are_refused_with_notice():
    table, events = run_script("ACK")
    assert "no fault" in of_kind(events, "notice")[0]["message"]
    table.apply(obs.Unreadable())
    events = table.apply(obs.NewShoe())
    assert "acknowledge" in of_kind(events, "notice")[0]["message"]
    assert table.state.shoe == 1


def test_cutting_card_during_the_burn_is_a_fault():
    _, events = run_script("QH 2C CUT", burn=False)
    assert "7.3" in of_kind(events, "fault")[0]["reason"]


def test_second_cutting_card_is_only_noticed():
    _, events = run_script("2H 3D 4H 5D CUT KH KD CUT 7S 8C")
    assert len(of_kind(events, "last_coup")) == 1
    assert "second cutting card" in of_kind(events, "notice")[0]["message"]


def test_a_joker_is_not_a_card_of_the_shoe_and_leaves_its_count_alone():
    table, events = run_script("2H JOKER")
    assert of_kind(events, "fault")[0]["card"] == "JOKER"
    assert table.state.cards_left == 8 * 52 - 3  # the burn (2 cards) and 2H
    table, _ = run_script("2H UNREADABLE")
    assert table.state.cards_left == 8 * 52 - 4  # an unreadable card is one of them


def test_with_a_joker_in_a_one_deck_shoe_its_last_card_is_still_dealt():
    """The joker set aside, the 52nd card is the shoe's last, not one drawn after its end
    (rule 7.1: no more cards once the shoe's own are out): the shoe plays as without it."""
    cards = [o for o in shuffled_shoe(1, seed=11) if isinstance(o, obs.Card)]

    def play(joker_after: int | None) -> list[dict]:
        table = Table(1, require_no_more_bets=False)
        events = []
        for k, card in enumerate(cards):
            events += table.apply(card)
            if k == joker_after:
                events += table.apply(obs.Unreadable(JOKER)) + table.apply(obs.Ack())
        assert table.state.cards_left == 0
        return [e for e in events if e["event"] not in ("fault", "ack", "lamps")]

    assert play(joker_after=20) == play(joker_after=None)
