"""Irregularities 12.1-12.4 as DESIGN.md reads them, each reported with its rule."""

from controller.game import observations as obs
from tests.controller.conftest import of_kind, run_script

FOUR_CARD_ROUND = "2H 3D 4H 5D"  # player 6 stands, banker 8 natural
SIX_CARD_ROUND = "KH KD KS KC 2H 3D"  # both draw: complete in six cards


def rules(events):
    return [e["rule"] for e in of_kind(events, "irregularity")]


def test_rule_12_1a_third_card_player_may_not_take_goes_to_banker_who_must_draw():
    _, events = run_script("KH KD 6H KC 5S")  # player 6 stands, banker 0 must draw
    assert rules(events) == []  # the shoe sees the order only: simply the banker's card
    (r,) = of_kind(events, "round")
    assert r["player"] == ["KH", "6H"]
    assert r["banker"] == ["KD", "KC", "5S"]
    assert r["banker_total"] == 5 and r["result"] == "player"


def test_rule_12_1b_excess_card_after_player_stood_is_first_card_of_next_round():
    table, events = run_script(f"NMB {FOUR_CARD_ROUND} 9S NMB KH KD 7S")
    assert rules(events) == ["12.1(b)"]
    second = of_kind(events, "round")[1]
    assert second["player"] == ["9S", "KD"] and second["banker"] == ["KH", "7S"]
    assert second["void"] is False
    held = [e for e in of_kind(events, "card") if e.get("held")]
    assert [e["card"] for e in held] == ["9S"]


def test_rule_12_1b_disclosed_excess_card_starts_a_void_hand():
    table, events = run_script(f"NMB {FOUR_CARD_ROUND} 9S DISCLOSED KH KD 7S NMB 2C 3C 4C 5C")
    assert rules(events) == ["12.1(b)", "12.1(b)"]
    void, normal = of_kind(events, "round")[1:3]
    assert void["void"] is True and void["player"] == ["9S", "KD"]
    assert normal["void"] is False and normal["player"] == ["2C", "4C"]


def test_rule_12_2a_excess_card_after_full_round_is_first_card_of_next_round():
    _, events = run_script(f"NMB {SIX_CARD_ROUND} 4C NMB KH 5D KD")
    assert rules(events) == ["12.2(a)"]
    second = of_kind(events, "round")[1]
    assert second["player"] == ["4C", "5D"] and second["banker"] == ["KH", "KD"]


def test_rule_12_2a_two_excess_cards_open_the_next_round_in_order():
    _, events = run_script(f"NMB {SIX_CARD_ROUND} 4C 6C NMB 5D KD")
    assert rules(events) == ["12.2(a)", "12.2(a)"]
    second = of_kind(events, "round")[1]
    assert second["player"] == ["4C", "5D"] and second["banker"] == ["6C", "KD"]


def test_rule_12_2a_excess_card_discarded_when_cards_are_replaced():
    table, events = run_script(f"NMB {SIX_CARD_ROUND} 4C NEWSHOE AH 2H NMB 3S 4S 5S 6S")
    assert rules(events) == ["12.2(a)"]
    assert table.state.ledger["discarded"] == 1
    assert of_kind(events, "round")[-1]["player"] == ["3S", "5S"]


def test_rules_12_1b_and_12_2a_a_held_card_set_aside_when_the_cards_are_replaced_is_said():
    """Held for the next round, then the cards replaced first: the card is not used, and the
    table says so (it used to vanish from the events, counted only in the ledger: found by
    the fault campaign's dealer errors, issue 12)."""
    for script, rule in ((f"NMB {FOUR_CARD_ROUND} 9S NEWSHOE", "12.1(b)"),
                         (f"NMB {SIX_CARD_ROUND} 4C NEWSHOE", "12.2(a)")):
        table, events = run_script(script)
        held = of_kind(events, "irregularity")[0]["card"]
        (notice,) = [e["message"] for e in of_kind(events, "notice")]
        assert f"{held} set aside" in notice and "replaced" in notice, script
        assert f"(rule {rule})" in notice, script
        assert table.state.ledger["discarded"] == 1
        ends = [e["event"] for e in events if e["event"] in ("notice", "shoe_end")]
        assert ends == ["notice", "shoe_end"]  # said before the shoe's end, as at its end


def test_rule_12_2b_disclosed_excess_card_void_hand_then_normal_play():
    table, events = run_script(f"NMB {SIX_CARD_ROUND} 4C DISCLOSED 5D 5H KH")
    assert rules(events) == ["12.2(a)", "12.2(b)"]
    void = of_kind(events, "round")[1]
    assert void["void"] is True and void["player"] == ["4C", "5H"]
    lamp_sets = [set(e["on"]) for e in of_kind(events, "lamps")]
    assert {"no_bets"} in lamp_sets  # lit while the void hand is dealt
    # Done: both stand, no winner lamp (nothing to pay), no_bets until the next round.
    assert table.lamps() == {"player_stand", "banker_stand", "no_bets"}
    assert table.state.void is False and table.state.bets_closed is False
    table.apply(obs.NoMoreBets())
    assert table.lamps() == frozenset()


def test_rule_12_2b_without_no_more_bets_a_disclosed_first_card_voids_the_round():
    _, events = run_script(f"{FOUR_CARD_ROUND} 9S DISCLOSED KH KD 7S")
    assert rules(events) == ["12.2(b)"]
    assert of_kind(events, "round")[1]["void"] is True


def test_rule_12_3_first_card_face_up_in_the_shoe_void_hand_from_it():
    for script in (f"NMB {FOUR_CARD_ROUND} ^9S KH KD 7S", f"{FOUR_CARD_ROUND} ^9S KH KD 7S",
                   f"NMB {FOUR_CARD_ROUND} NMB ^9S KH KD 7S"):
        table, events = run_script(script)
        assert rules(events) == ["12.3"], script
        void = of_kind(events, "round")[1]
        assert void["void"] is True and void["player"] == ["9S", "KD"]
        assert table.state.void is False


def test_rule_12_3_void_hand_lights_no_bets_until_the_next_round_starts():
    table, _ = run_script(f"{FOUR_CARD_ROUND} ^9S")
    assert "no_bets" in table.lamps()
    for card in ("KH", "KD", "7S"):
        table.apply(obs.Card(card))
    assert table.lamps() == {"player_stand", "banker_stand", "no_bets"}  # no winner lamp
    table.apply(obs.Card("2C"))
    assert "no_bets" not in table.lamps()


def test_rule_12_4_other_face_up_card_is_used_in_the_round():
    _, events = run_script("2H ^3D 4H 5D")
    assert rules(events) == ["12.4"]
    (r,) = of_kind(events, "round")
    assert r["banker"] == ["3D", "5D"] and r["void"] is False


def test_disclosure_of_a_card_dealt_to_the_round_changes_nothing():
    _, events = run_script("NMB 2H DISCLOSED 3D 4H 5D")
    assert rules(events) == []
    assert "changes nothing" in of_kind(events, "notice")[0]["message"]
    assert of_kind(events, "round")[0]["void"] is False


def test_rule_12_2b_face_up_excess_card_while_another_is_held_is_disclosed():
    _, events = run_script(f"NMB {SIX_CARD_ROUND} 4C ^6C 5D 5H KH KD NMB 2C 3C 4D")
    assert rules(events) == ["12.2(a)", "12.2(b)"]
    void, normal = of_kind(events, "round")[1:3]
    assert void["void"] is True and void["player"][0] == "6C"
    assert normal["void"] is False and normal["player"][0] == "4C"  # the held card


def test_rule_12_2a_held_cards_are_set_aside_when_the_shoe_ends():
    table, events = run_script(f"NMB {FOUR_CARD_ROUND} CUT 2S 3S 4S 5S 6S 7S NMB NEWSHOE")
    notices = [e["message"] for e in of_kind(events, "notice")]
    assert any("6S 7S set aside" in m and "12.2(a)" in m for m in notices)
    assert table.state.held == []
    drawn = 2 + 4 + 6
    assert sum(table.state.ledger.values()) + table.state.cards_in_play == drawn
