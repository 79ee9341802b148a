"""The shoe: burn (7.4, 7.5), "No more bets" (8.2), cut card (9.7, 9.8), end of shoe (7.1,
11.1, 11.2), card replacement (7.6) and the lamps that go with them."""

import random

from controller.game import observations as obs
from controller.game.cards import ALL_CODES
from controller.game.state import ENDED
from controller.game.table import Table
from tests.controller.conftest import of_kind, run_script

ROUND_OF_FOUR = "2H 3D 4H 5D"  # player 6 stands, banker 8 natural: complete in four cards


def lit_after(events):
    return set(of_kind(events, "lamps")[-1]["on"])


def test_rule_7_4_first_card_shown_then_that_many_burned():
    _, events = run_script("5H 2C 9D KS 3C 4H " + ROUND_OF_FOUR, burn=False)
    (burn,) = of_kind(events, "burn")
    assert burn["cards"] == ["5H", "2C", "9D", "KS", "3C", "4H"]
    assert of_kind(events, "round")[0]["player"] == ["2H", "4H"]


def test_rule_7_5_ten_and_courts_burn_ten_ace_burns_one():
    _, events = run_script("QH 2C 3C 4C 5C 6C 7C 8C 9C 10C JC AS 3C", burn=False)
    burns = of_kind(events, "burn")
    assert len(burns[0]["cards"]) == 11
    table, events = run_script("AH 7C 9D", burn=False)
    assert of_kind(events, "burn")[0]["cards"] == ["AH", "7C"]
    assert table.state.player == ["9D"]


def test_rule_8_2_no_more_bets_opens_the_round():
    _, events = run_script(f"NMB {ROUND_OF_FOUR} NMB KH")
    assert of_kind(events, "irregularity") == []
    assert [e["round"] for e in of_kind(events, "no_more_bets")] == [1, 2]
    assert len(of_kind(events, "round")) == 1


def test_rule_9_7_cut_card_during_round_last_coup_after_one_more_round():
    table, events = run_script("2H CUT 3D 4H 5D KH KD 7S 8C")
    assert of_kind(events, "cut_card") == [{"event": "cut_card", "rule": "9.7", "round": 1}]
    (last,) = of_kind(events, "last_coup")
    assert last == {"event": "last_coup", "round": 2, "rule": "9.7"}
    names = [e["event"] for e in events]
    assert names.index("last_coup") > names.index("round")  # announced once round 1 is done
    (end,) = of_kind(events, "shoe_end")
    assert end["rounds"] == 2
    assert end["cards_left"] == 8 * 52 - 2 - 8
    assert table.state.phase == ENDED


def test_rule_9_8_cut_card_first_of_round_that_round_is_the_last():
    table, events = run_script(f"{ROUND_OF_FOUR} CUT KH KD 7S 8C")
    assert of_kind(events, "last_coup") == [{"event": "last_coup", "round": 2, "rule": "9.8"}]
    assert of_kind(events, "shoe_end")[0]["rounds"] == 2
    assert table.state.phase == ENDED


def test_rule_9_8_with_no_more_bets_cut_before_or_after_the_call():
    for script in (f"NMB {ROUND_OF_FOUR} CUT NMB KH KD 7S 8C",
                   f"NMB {ROUND_OF_FOUR} NMB CUT KH KD 7S 8C"):
        _, events = run_script(script)
        assert of_kind(events, "last_coup")[0]["rule"] == "9.8"
        assert of_kind(events, "shoe_end")[0]["rounds"] == 2


def test_rule_9_7_cut_after_a_held_excess_card_is_not_the_first_card_of_the_round():
    """`7D CUT NMB`: 7D, drawn before "No more bets", is held and opens the next round (rules
    12.1(b), 12.2(a)), so the cutting card after it is not "drawn as the first card of a
    round" (9.8): it appears during play, and one more round follows the next (9.7)."""
    table, events = run_script(f"NMB {ROUND_OF_FOUR} 7D CUT NMB KH KD 7S NMB 8C 9H 9D 2S 3S")
    # Named with the round it came out in: the next one, which the held 7D has begun.
    assert of_kind(events, "cut_card") == [{"event": "cut_card", "rule": "9.7", "round": 2}]
    assert of_kind(events, "round")[1]["player"][0] == "7D"  # the held card opened round 2
    assert of_kind(events, "last_coup") == [{"event": "last_coup", "round": 3, "rule": "9.7"}]
    assert of_kind(events, "shoe_end")[0]["rounds"] == 3
    assert table.state.phase == ENDED


def test_rule_9_7_lamp_last_coup_from_announcement_to_shoe_end_then_shuffle():
    table = Table(8, require_no_more_bets=False)
    seen = []
    for token in "AS 2C 2H CUT 3D 4H 5D KH KD 7S 8C".split():
        o = obs.Cut() if token == "CUT" else obs.Card(token)
        table.apply(o)
        seen.append(("last_coup" in table.lamps(), "shuffle" in table.lamps()))
    # the announcement comes with 5D (round 1 complete); the shoe ends with 8C
    assert seen[:6] == [(False, False)] * 6
    assert seen[6:10] == [(True, False)] * 4
    assert seen[10] == (False, True)


def test_rule_7_1_no_card_after_the_shoe_ends_until_new_shoe():
    table, events = run_script(f"{ROUND_OF_FOUR} CUT KH KD 7S 8C 9H")
    (fault,) = of_kind(events, "fault")
    assert "9H" in fault["reason"] and "7.1" in fault["reason"]
    assert "fault" in table.lamps() and "shuffle" in table.lamps()
    table.apply(obs.Ack())
    events = table.apply(obs.NewShoe())
    assert of_kind(events, "new_shoe")[0]["shoe"] == 2
    assert table.lamps() == frozenset()
    burn = [e for c in ("AD", "3C") for e in table.apply(obs.Card(c))]
    assert of_kind(burn, "burn")[0]["cards"] == ["AD", "3C"]


def test_rule_11_1_11_2_style_b_ends_with_new_cards():
    table, events = run_script(f"{ROUND_OF_FOUR} CUT KH KD 7S 8C", style="B")
    (end,) = of_kind(events, "shoe_end")
    assert "11.1" in end["next"] and "11.2" in end["next"]
    _, style_a = run_script(f"{ROUND_OF_FOUR} CUT KH KD 7S 8C", style="A")
    assert "7.1" in of_kind(style_a, "shoe_end")[0]["next"]
    # new cards: the count of every card starts again
    table.apply(obs.NewShoe())
    assert table.state.counts == {} and table.state.cards_left == 8 * 52


def test_rule_7_6_cards_replaced_after_a_round():
    table, events = run_script(f"{ROUND_OF_FOUR} NEWSHOE AS 2C 6H")
    (end,) = of_kind(events, "shoe_end")
    assert "7.6" in end["reason"] and end["rounds"] == 1
    assert of_kind(events, "new_shoe")[0]["shoe"] == 2
    assert len(of_kind(events, "burn")) == 2
    assert table.state.player == ["6H"]


def test_rule_7_6_replacement_refused_in_the_middle_of_a_round():
    table, events = run_script("2H 3D NEWSHOE 4H 5D")
    assert "refused" in of_kind(events, "notice")[0]["message"]
    assert of_kind(events, "new_shoe") == []
    assert of_kind(events, "round")[0]["banker"] == ["3D", "5D"]


def test_rule_7_1_a_shoe_without_cut_card_ends_when_it_is_empty():
    ran_dry = emptied_between_rounds = 0
    for seed in range(60):
        stack = list(ALL_CODES)
        random.Random(seed).shuffle(stack)
        table = Table(1, require_no_more_bets=False)
        events = [e for code in stack for e in table.apply(obs.Card(code))]
        (end,) = of_kind(events, "shoe_end")
        assert table.state.phase == ENDED and "shuffle" in table.lamps()
        if of_kind(events, "shoe_exhausted"):
            ran_dry += 1
            assert "ran out" in end["reason"] and table.state.ran_dry
        else:
            emptied_between_rounds += 1
            assert end["reason"] == "the shoe is empty"
    assert ran_dry > 0 and emptied_between_rounds > 0


def test_running_dry_mid_round_exits_3(capsys):
    from controller.cli import main
    from controller.game.script import format_script

    for seed in range(60):
        stack = list(ALL_CODES)
        random.Random(seed).shuffle(stack)
        table = Table(1, require_no_more_bets=False)
        for code in stack:
            table.apply(obs.Card(code))
        if table.state.ran_dry:
            break
    import io
    import sys
    sys.stdin = io.StringIO(format_script([obs.Card(c) for c in stack]))
    try:
        assert main(["deal", "-", "--decks", "1", "--json"]) == 3
    finally:
        sys.stdin = sys.__stdin__
    assert '"shoe_exhausted"' in capsys.readouterr().out


def test_rule_9_8_void_hand_after_last_coup_moves_the_last_round():
    table, events = run_script(f"{ROUND_OF_FOUR} CUT ^9S KH KD 7S 2C 3C 4C 5C")
    announcements = of_kind(events, "last_coup")
    assert [a["round"] for a in announcements] == [2, 3]
    assert announcements[1]["after_void_round"] == 2
    (end,) = of_kind(events, "shoe_end")
    assert end["rounds"] == 3 == announcements[-1]["round"]


def test_rule_7_3_cutting_card_in_the_burn_faults_then_the_first_round_is_the_last():
    table, events = run_script("AS CUT ACK 2C 2H 3D 4H 5D 6H", burn=False)
    assert "7.3" in of_kind(events, "fault")[0]["reason"]
    assert of_kind(events, "last_coup")[0] == {"event": "last_coup", "round": 1, "rule": "9.8"}
    assert of_kind(events, "shoe_end")[0]["rounds"] == 1
    assert of_kind(events, "fault")[-1]["card"] == "6H"  # no card after the end (7.1)


def test_no_more_bets_that_deals_the_last_held_cards_can_run_the_shoe_dry():
    # One deck; the shoe ends when NMB deals held cards and nothing is left for the round.
    stack = [c for c in ALL_CODES if c not in ("AS", "2C")]
    script = "AS 2C NMB " + " ".join(stack[:-1]) + f" {stack[-1]} NMB"
    table, events = run_script(script, decks=1, burn=False)
    assert table.state.phase == ENDED
    assert of_kind(events, "shoe_end")


def test_rule_7_4_b_a_burned_card_not_read_is_still_one_of_the_cards_burned():
    """A rules audit (stop 53): a card burned face down that the camera could not read was
    set aside, so one card more was burned than the dealer burned, and every hand after it
    held the wrong cards. Its value is not needed: it counts as burned (the table halts for
    the camera all the same)."""
    table, events = run_script("5S 2C 4D UNREADABLE ACK 6C 8D 9C 2D KH 3D", burn=False)
    (fault,) = of_kind(events, "fault")
    assert fault["reason"] == ("unreadable card: marked UNREADABLE in the script: burned "
                               "face down, it is one of the cards burned (rule 7.4(b)), "
                               "whose values are not needed")
    assert fault["card"] is None and of_kind(events, "ack")[0]["set_aside"] == []
    (burn,) = of_kind(events, "burn")
    assert burn == {"event": "burn", "cards": ["5S", "2C", "4D", "6C", "8D"], "unread": 1}
    (r,) = of_kind(events, "round")
    assert (r["player"], r["banker"], r["result"]) == (["9C", "KH"], ["2D", "3D"], "player")
    assert sum(table.state.ledger.values()) == 10 and table.state.ledger["burn"] == 6


def test_rule_7_4_b_the_last_card_burned_unread_ends_the_burn():
    table, events = run_script("AS UNREADABLE ACK 2H 3D 4H 5D", burn=False)
    assert of_kind(events, "burn") == [{"event": "burn", "cards": ["AS"], "unread": 1}]
    assert of_kind(events, "round")[0]["player"] == ["2H", "4H"]


def test_rule_7_4_a_the_shown_card_not_read_is_set_aside_and_the_next_one_shown():
    """The first card fixes how many are burned: not read, it cannot, and the dealer is told
    to show the next one in its place."""
    _, events = run_script("UNREADABLE ACK 2C 7D 8D 6C 9C 2D KH", burn=False)
    (fault,) = of_kind(events, "fault")
    assert fault["card"] == "??"
    assert fault["reason"] == ("unreadable card: marked UNREADABLE in the script: it was the "
                               "burn's first card, shown to tell how many are burned (rule "
                               "7.4(a)): set it aside and show the next card in its place")
    assert of_kind(events, "burn")[0]["cards"] == ["2C", "7D", "8D"]


def test_rule_7_4_a_joker_in_the_burn_is_no_card_burned_and_the_dealer_is_told():
    _, events = run_script("3H 2C JOKER ACK 4D 5S 2H 3D 4H 5D", burn=False)
    (fault,) = of_kind(events, "fault")
    assert fault["reason"].endswith("set it aside; it is not one of the cards burned: burn "
                                    "one more in its place (rule 7.4(b))")
    assert of_kind(events, "burn")[0]["cards"] == ["3H", "2C", "4D", "5S"]


def test_rule_7_3_a_cutting_card_with_fewer_than_twenty_cards_behind_it_is_an_irregularity():
    """The audit: a cutting card five cards from the back of an 8-deck shoe was taken as any
    other, and the last coup ran out of cards with nothing said before."""
    stack = [c for c in ALL_CODES if c not in ("AS", "2C", "2H", "3D", "4H", "5D")]
    first = " ".join(stack[:-19])
    table, events = run_script(f"2H 3D 4H 5D {first} CUT", decks=1)
    assert table.state.cards_left == 19
    (irregular,) = of_kind(events, "irregularity")
    assert irregular["rule"] == "7.3"
    assert irregular["message"] == ("cutting card drawn with 19 cards left in the shoe: rule "
                                    "7.3 inserts it at least twenty cards from the back; the "
                                    "last coup may run out of cards")
    _, events = run_script(f"2H 3D 4H 5D {' '.join(stack[:-20])} CUT", decks=1)
    assert of_kind(events, "irregularity") == []  # twenty is enough


def test_rule_7_4_b_the_burn_line_shows_a_card_burned_unread():
    from controller.views.text import describe

    _, events = run_script("4S 2C UNREADABLE ACK 6C 8D", burn=False)
    assert describe(of_kind(events, "burn")[0]) == "burn      4S shown, 4 burned: 2C 6C 8D ??"
