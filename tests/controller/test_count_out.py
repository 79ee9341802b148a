"""Rule 11.1: the cards left after the shoe's last round are removed from the shoe; `COUNT`
runs them out through the reader first, so that the shoe's count shows a card that left it
unseen (two cards drawn stuck together: the camera and the card sensor see one)."""

import io
import sys

import pytest

from controller.cli import main
from controller.game import observations as obs
from controller.game.script import format_script, parse_script
from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.game.state import ENDED
from controller.game.table import Table
from tests.controller.conftest import of_kind


def play(observations, decks=1):
    table = Table(decks, require_no_more_bets=False)
    events = []
    for observation in observations:
        events.extend(table.apply(observation))
    return table, events


def shoe_and_rest(seed=11, decks=1):
    """A shoe dealt to its end, and the cards left in it after (the cutting card drawn)."""
    stack = shuffled_shoe(decks, seed=seed)
    dealt = dealt_until_shoe_end(stack, decks)
    return dealt, [o for o in stack[len(dealt):] if isinstance(o, obs.Card)]


def test_rule_11_1_a_whole_count_out_gives_the_count_and_the_new_shoe_follows():
    dealt, rest = shoe_and_rest()
    assert rest, "the shoe must end with cards left for this test"
    table, events = play([*dealt, obs.CountOut(), *rest])
    (started,) = of_kind(events, "count_out")
    assert started == {"event": "count_out", "shoe": 1, "cards_left": len(rest),
                       "rule": "11.1"}
    (count,) = of_kind(events, "count")
    assert count == {"event": "count", "shoe": 1, "counted": len(rest), "short": 0,
                     "missing": [], "rule": "11.1"}
    assert not of_kind(events, "fault") and not table.state.halted
    assert table.state.ledger["counted_out"] == len(rest)
    assert of_kind(table.apply(obs.NewShoe()), "new_shoe")


def test_rule_11_1_a_card_that_left_the_shoe_unseen_makes_the_count_short_and_halts():
    """Two cards drawn stuck together: the second never seen. NEWSHOE says the shoe is
    empty; the count is one short, naming the card, and the new shoe waits for a supervisor."""
    stack = shuffled_shoe(1, seed=11)
    hidden = next(i for i, o in enumerate(stack) if isinstance(o, obs.Card) and i > 12)
    stuck = stack[:hidden] + stack[hidden + 1:]
    dealt = dealt_until_shoe_end(stuck, 1)
    rest = [o for o in stuck[len(dealt):] if isinstance(o, obs.Card)]
    table, events = play([*dealt, obs.CountOut(), *rest])
    assert not of_kind(events, "count")  # one card still to come, as far as the table knows
    events = table.apply(obs.NewShoe())
    (count,) = of_kind(events, "count")
    assert count["short"] == 1 and count["missing"] == [stack[hidden].card]
    (fault,) = of_kind(events, "fault")
    assert f"1 card short: {stack[hidden].card} not seen" in fault["reason"]
    assert "fault" in table.lamps() and not of_kind(events, "new_shoe")
    assert of_kind(events, "notice")[0]["message"] == ("new shoe refused: acknowledge the "
                                                       "fault first")
    assert of_kind(table.apply(obs.NewShoe()), "notice")  # refused while halted
    table.apply(obs.Ack())
    assert of_kind(table.apply(obs.NewShoe()), "new_shoe")
    assert table.state.shoe == 2


def test_rule_11_1_an_unreadable_card_in_the_count_is_missing_but_not_short():
    dealt, rest = shoe_and_rest()
    unread, *others = rest
    table, events = play([*dealt, obs.CountOut(), obs.Unreadable("smudged"), obs.Ack(),
                          *others])
    (count,) = of_kind(events, "count")
    assert count["short"] == 0 and count["missing"] == [unread.card]
    assert [f["card"] for f in of_kind(events, "fault")] == ["??"]
    assert not table.state.halted


@pytest.mark.parametrize("before", ["", "AS 2C", "AS 2C 3H 4D"])
def test_rule_11_1_count_out_is_refused_before_the_shoe_is_over(before):
    table = Table(1, require_no_more_bets=False)
    for step in parse_script(before):
        table.apply(step.observation)
    events = table.apply(obs.CountOut())
    (notice,) = of_kind(events, "notice")
    assert notice["message"].startswith("count-out refused: the table is ")
    assert "rule 11.1" in notice["message"]
    assert not table.state.counting


def test_rule_7_1_without_a_count_out_a_card_after_the_shoe_end_is_still_a_fault():
    dealt, rest = shoe_and_rest()
    table, events = play([*dealt, rest[0]])
    (fault,) = of_kind(events, "fault")
    assert "drawn after the end of the shoe (rule 7.1" in fault["reason"]


def test_count_out_twice_and_a_ninth_copy_in_the_count():
    dealt, rest = shoe_and_rest(decks=1)
    table, events = play([*dealt, obs.CountOut(), obs.CountOut(), rest[0], rest[0]])
    notices = [n["message"] for n in of_kind(events, "notice")]
    assert "count-out ignored: this shoe's cards are being counted out" in notices
    (fault,) = of_kind(events, "fault")  # a copy the shoe cannot hold is a fault as ever
    assert fault["reason"] == f"{rest[0].card} seen 2 times in a 1-deck shoe"


def test_count_out_of_a_shoe_that_ran_empty_is_complete_at_once():
    stack = shuffled_shoe(1, seed=3, cut_from_back=0)  # the cut card never comes out first
    cards = [o for o in stack if isinstance(o, obs.Card)]
    table, events = play(cards)
    assert table.state.phase == ENDED and table.state.cards_left == 0
    events = table.apply(obs.CountOut())
    assert of_kind(events, "count")[0] == {"event": "count", "shoe": 1, "counted": 0,
                                           "short": 0, "missing": [], "rule": "11.1"}


def test_count_token_round_trips_through_the_script_language():
    steps = parse_script("count")
    assert steps[0].observation == obs.CountOut()
    assert format_script([obs.CountOut()]).strip() == "COUNT"
    assert obs.observation_from_dict({"kind": "count_out"}) == obs.CountOut()


def test_rule_11_1_deal_says_the_count_in_words(capsys, monkeypatch):
    dealt, rest = shoe_and_rest()
    whole = format_script([*dealt, obs.CountOut(), *rest])
    monkeypatch.setattr(sys, "stdin", io.StringIO(whole))
    assert main(["deal", "-", "--decks", "1"]) == 0
    out = capsys.readouterr().out
    assert f"== count-out (rule 11.1): the {len(rest)} cards left, through the reader" in out
    assert f"== count: {len(rest)} counted out, the shoe is whole" in out
    short = format_script([*dealt, obs.CountOut(), *rest[1:], obs.NewShoe()])
    monkeypatch.setattr(sys, "stdin", io.StringIO(short))
    assert main(["deal", "-", "--decks", "1"]) == 4  # it ends halted on the fault
    out = capsys.readouterr().out
    assert f"== count: {len(rest) - 1} counted out, 1 short" in out
    assert f"FAULT: the count-out is 1 card short: {rest[0].card} not seen" in out
