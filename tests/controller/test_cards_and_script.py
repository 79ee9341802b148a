import re

import pytest

from controller.errors import CardCodeError, InputError
from controller.game import observations as obs
from controller.game.cards import burn_value, parse_card, point_value
from controller.game.script import format_script, parse_script, uses_no_more_bets


@pytest.mark.parametrize("token, code", [("as", "AS"), ("10h", "10H"), ("Td", "10D"),
                                         ("qC", "QC"), (" 9s ", "9S")])
def test_card_codes_are_case_insensitive_and_canonical(token, code):
    assert parse_card(token) == code


@pytest.mark.parametrize("token", ["", "A", "1H", "11S", "AX", "ZS", "10", "JOKER"])
def test_bad_card_codes_name_the_token(token):
    with pytest.raises(CardCodeError, match=repr(token)):
        parse_card(token)


def test_point_and_burn_values_rule_7_5():
    assert [point_value(c) for c in ("AS", "5H", "9D", "10C", "JS", "QH", "KD")] == [
        1, 5, 9, 0, 0, 0, 0]
    assert [burn_value(c) for c in ("AS", "5H", "10C", "KD")] == [1, 5, 10, 10]


def test_script_tokens_comments_and_positions():
    steps = parse_script("AS ^td # comment 2H\n  cut nmb DISCLOSED ACK NEWSHOE JOKER")
    assert [s.observation for s in steps] == [
        obs.Card("AS"), obs.Card("10D", face_up=True), obs.Cut(), obs.NoMoreBets(),
        obs.Disclosed(), obs.Ack(), obs.NewShoe(), obs.Unreadable("joker")]
    assert (steps[2].line, steps[2].column) == (2, 3)
    assert uses_no_more_bets(steps)
    assert not uses_no_more_bets(parse_script("AS 2C"))


def test_script_error_names_source_line_column():
    with pytest.raises(InputError, match=r"shoe.txt, line 2, column 4: token 'QQ'"):
        parse_script("AS\n2C QQ", source="shoe.txt")


def test_format_script_round_trips():
    sequence = [obs.Card("AS"), obs.Card("10D", face_up=True), obs.Cut(), obs.Ack(),
                obs.Unreadable("joker")]
    assert [s.observation for s in parse_script(format_script(sequence))] == sequence


def test_observations_round_trip_through_dicts():
    for o in (obs.Card("AS", True), obs.Cut(), obs.Unreadable("smudge"),
              obs.EquipmentFault("link down")):
        assert obs.observation_from_dict(obs.to_dict(o)) == o
    with pytest.raises(InputError, match="unknown observation kind 'bogus'"):
        obs.observation_from_dict({"kind": "bogus"})


@pytest.mark.parametrize("record, expected", [
    (None, "an observation is an object, not NoneType"),
    ([], "an observation is an object, not list"),
    ({"kind": ["card"]}, "unknown observation kind ['card']"),
    ({"kind": "card"}, "observation 'card' has no card"),
    ({"kind": "card", "card": 9}, "card must be str, not 9"),
    ({"kind": "card", "card": "9H", "face_up": 1}, "face_up must be bool, not 1"),
    ({"kind": "card", "card": "9h"}, "not a card code as the journal writes them"),
    ({"kind": "card", "card": "XX"}, "'XX' is not a card code"),
    ({"kind": "equipment_fault"}, "observation 'equipment_fault' has no reason"),
])
def test_a_journaled_observation_that_is_not_one_is_an_input_error(record, expected):
    """Issue 12, found by the fault campaign's fuzzer: a record that was not an object, or a
    card that was no card code, ended in AttributeError or in a CardCodeError from deep in
    the table instead of a clear error at the record."""
    with pytest.raises(InputError, match=re.escape(expected)):
        obs.observation_from_dict(record)
