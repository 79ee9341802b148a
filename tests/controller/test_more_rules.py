"""Rules that the shoe sees only indirectly: placement of the cutting card, the two hands,
and the dealing styles that do not change the order of the cards."""

import pytest

from controller import observations as obs
from controller.shoe import MIN_CUT_FROM_BACK, shuffled_shoe
from tests.controller.conftest import of_kind, run_script


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_rule_7_3_cutting_card_at_least_twenty_cards_from_the_back(decks):
    for seed in range(30):
        stack = shuffled_shoe(decks, seed=seed)
        cut_at = stack.index(obs.Cut())
        assert len(stack) - 1 - cut_at >= MIN_CUT_FROM_BACK
        assert sum(isinstance(o, obs.Card) for o in stack) == 52 * decks


def test_rule_8_1_every_round_has_a_player_and_a_banker_hand():
    _, events = run_script("2H 3D 4H 5D KH KD 7S 8C")
    for r in of_kind(events, "round"):
        assert r["player"] and r["banker"]
        assert r["result"] in ("player", "banker", "tie")


def test_rules_9_1_9_3_9_4_third_cards_follow_the_announced_totals():
    # Player 0 draws (9.3, Table 1); banker 5 with a player's third card 4 draws (9.4, Table 2).
    _, events = run_script("KH 5D KS KC 4H 2D")
    (r,) = of_kind(events, "round")
    assert r["player"] == ["KH", "KS", "4H"] and r["banker"] == ["5D", "KC", "2D"]
    assert (r["player_total"], r["banker_total"], r["result"]) == (4, 7, "banker")


@pytest.mark.parametrize("style", ["A", "B"])
def test_rules_9_9_9_10_both_styles_deal_the_player_third_card_first(style):
    _, events = run_script("KH KD KS KC 2H 3D", style=style)
    (r,) = of_kind(events, "round")
    assert r["player"][-1] == "2H" and r["banker"][-1] == "3D"


def test_rules_8_4_to_8_6_face_up_initial_deal_is_not_an_irregularity():
    # Initial cards dealt face up on the table (8.5) leave the shoe face down: only a card
    # found face up *in the shoe* (^) is irregular (12.3, 12.4).
    _, events = run_script("2H 3D 4H 5D")
    assert of_kind(events, "irregularity") == []
