"""Rules that the shoe sees only indirectly: placement of the cutting card, the two hands,
and the dealing styles that do not change the order of the cards."""

import pytest

from controller.game import observations as obs
from controller.game.shoe import MIN_CUT_FROM_BACK, shuffled_shoe
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


def test_rules_9_9_9_10_styles_a_and_b_give_the_cards_to_the_same_hands():
    # Style A deals third cards face up, style B passes them face down (9.10): the order the
    # shoe sees, and so every hand, is the same; only the end of the shoe differs (11.1).
    script = "KH KD KS KC 2H 3D 4H 5D 6H 7D CUT 8H 9D KC KD 9S 8S"
    _, style_a = run_script(script, style="A")
    _, style_b = run_script(script, style="B")
    assert of_kind(style_a, "round") == of_kind(style_b, "round")
    assert of_kind(style_a, "round")[0]["player"] == ["KH", "KS", "2H"]
    assert of_kind(style_a, "shoe_end")[0]["next"] != of_kind(style_b, "shoe_end")[0]["next"]
