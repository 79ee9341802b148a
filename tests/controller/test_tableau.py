"""Rules 8.3, 9.2, 9.5, 9.6, 10.1 and every cell of Tables 1 and 2, through the table."""

import pytest

from controller.game.tableau import banker_draws, next_hand, result
from tests.controller.conftest import of_kind, run_script

RANK_OF_VALUE = {0: "K", 1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9"}

# Table 2, transcribed from the Gazette: banker total -> player third-card values that draw.
TABLE_2_DRAWS = {
    0: set(range(10)),
    1: set(range(10)),
    2: set(range(10)),
    3: {0, 1, 2, 3, 4, 5, 6, 7, 9},
    4: {2, 3, 4, 5, 6, 7},
    5: {4, 5, 6, 7},
    6: {6, 7},
    7: set(),
}


def card(value: int, suit: str = "H") -> str:
    return RANK_OF_VALUE[value] + suit


def two_cards(total: int, suit: str) -> tuple[str, str]:
    """Two cards totalling `total`, neither a natural on its own account."""
    return card(total, suit), card(0, suit)


def only_round(text: str) -> dict:
    _, events = run_script(text)
    rounds = of_kind(events, "round")
    assert len(rounds) >= 1
    return rounds[0]


def test_rule_8_3_first_and_third_cards_to_player_second_and_fourth_to_banker():
    r = only_round("2H 3D 4H 5D")
    assert r["player"] == ["2H", "4H"]
    assert r["banker"] == ["3D", "5D"]


@pytest.mark.parametrize("player_total", [8, 9])
def test_rule_9_2_player_natural_no_more_cards(player_total):
    p1, p2 = two_cards(player_total, "H")
    r = only_round(f"{p1} KD {p2} 2D 5C")  # banker total 2 would otherwise draw
    assert r["natural"] is True
    assert len(r["player"]) == 2 and len(r["banker"]) == 2


@pytest.mark.parametrize("banker_total", [8, 9])
def test_rule_9_2_banker_natural_no_more_cards(banker_total):
    b1, b2 = two_cards(banker_total, "D")
    r = only_round(f"AH {b1} KH {b2} 5C")  # player total 1 would otherwise draw
    assert r["natural"] is True
    assert r["player"] == ["AH", "KH"]
    assert r["result"] == "banker"


@pytest.mark.parametrize("player_total", range(8))
def test_table_1_player_draws_on_0_to_5_stands_on_6_7(player_total):
    p1, p2 = two_cards(player_total, "H")
    # Banker 7 stands whatever the player does, so a third player card is the only change.
    r = only_round(f"{p1} 7D {p2} KD 3C 4S 5S 6S")
    assert len(r["player"]) == (3 if player_total <= 5 else 2)


@pytest.mark.parametrize("banker_total", range(8))
@pytest.mark.parametrize("third", range(10))
def test_table_2_banker_with_player_third_card(banker_total, third):
    b1, b2 = two_cards(banker_total, "D")
    r = only_round(f"KH {b1} KS {b2} {card(third, 'C')} 2S 3S 4S 5S")
    draws = third in TABLE_2_DRAWS[banker_total]
    assert len(r["player"]) == 3
    assert len(r["banker"]) == (3 if draws else 2)
    assert banker_draws(banker_total, third) is draws


@pytest.mark.parametrize("player_total", [6, 7])
@pytest.mark.parametrize("banker_total", range(8))
def test_rule_9_5_player_stood_banker_draws_on_0_to_5(player_total, banker_total):
    p1, p2 = two_cards(player_total, "H")
    b1, b2 = two_cards(banker_total, "D")
    r = only_round(f"{p1} {b1} {p2} {b2} 2S 3S 4S 5S")
    assert len(r["player"]) == 2
    assert len(r["banker"]) == (3 if banker_total <= 5 else 2)


def test_rule_9_6_at_most_one_extra_card_each():
    _, events = run_script("KH KD KS KC 2H 3D 4H")
    (first,) = of_kind(events, "round")
    assert first["player"] == ["KH", "KS", "2H"] and first["banker"] == ["KD", "KC", "3D"]
    # the next card opens the next round
    assert of_kind(events, "card")[-1] == {"event": "card", "card": "4H", "hand": "player",
                                            "round": 2}


def test_rule_10_1_equal_totals_are_a_tie_hand():
    r = only_round("7H 7D KH KD")
    assert (r["player_total"], r["banker_total"], r["result"]) == (7, 7, "tie")
    assert result(3, 3) == "tie" and result(4, 3) == "player" and result(3, 4) == "banker"


def test_next_hand_is_none_once_complete():
    assert next_hand([0, 0, 2], [0, 0, 3]) is None
    assert next_hand([], []) == "player"
    assert next_hand([1], []) == "banker"
