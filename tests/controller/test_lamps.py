"""Lamps are a pure function of the state (DESIGN.md "Lamps")."""

from contract import LAMP_NAMES
from controller.game import observations as obs
from controller.game.lamps import lamps
from controller.game.table import Table


def lamps_after(tokens: str, require_nmb: bool = False) -> list[frozenset]:
    table = Table(8, require_no_more_bets=require_nmb)
    seen = []
    for token in tokens.split():
        table.apply(obs.NoMoreBets() if token == "NMB" else obs.Card(token))
        seen.append(table.lamps())
    return seen


def test_no_decision_lamps_during_the_initial_deal():
    assert lamps_after("AS 2C 2H 3D 4H")[2:] == [frozenset()] * 3


def test_player_draw_then_banker_decision_then_result():
    seen = lamps_after("AS 2C KH KD KS 3C 2H 4D")
    assert seen[5] == {"player_draw"}  # player 0 draws; banker 3 waits for the third card
    assert seen[6] == {"player_stand", "banker_draw"}  # third card 2: banker 3 draws
    assert seen[7] == {"player_stand", "banker_stand", "banker_win"}


def test_rule_9_4_a_banker_no_third_card_can_change_is_lit_with_the_players_draw():
    # Burn AS 2C; player K K (0) draws; banker K 2 (2): draws whatever comes.
    assert lamps_after("AS 2C KH KD KS 2C")[5] == {"player_draw", "banker_draw"}
    # Banker K 7 (7): stands whatever comes.
    assert lamps_after("AS 2C KH KD KS 7C")[5] == {"player_draw", "banker_stand"}
    # Banker 6 (6) waits: it draws only on a third card of 6 or 7.
    assert lamps_after("AS 2C KH KD KS 6C")[5] == {"player_draw"}
    # The player's card out, the banker's lamp stays what it was.
    seen = lamps_after("AS 2C KH KD KS 2C 9H")
    assert seen[6] == {"player_stand", "banker_draw"}


def test_banker_fate_agrees_with_table_2_for_every_total_and_third_card():
    from controller.game.tableau import banker_draws, banker_fate  # noqa: PLC0415

    for total in range(8):
        outcomes = {banker_draws(total, third) for third in range(10)}
        assert banker_fate(total) == (outcomes.pop() if len(outcomes) == 1 else None)
    assert [banker_fate(t) for t in range(8)] == [True, True, True, None, None, None, None,
                                                 False]


def test_natural_lights_both_stands_and_the_winner_until_the_next_round():
    seen = lamps_after("AS 2C NMB 9H KD KS 3C NMB 4H", require_nmb=True)
    assert seen[6] == {"player_stand", "banker_stand", "player_win"}
    assert seen[7] == frozenset()  # "No more bets" opens the next round


def test_tie_lamp():
    assert lamps_after("AS 2C 7H 7D KH KD")[-1] == {"player_stand", "banker_stand", "tie"}


def test_lamps_is_pure_and_names_are_the_design_names():
    table = Table()
    for card in "AS 2C KH KD KS 3C".split():
        table.apply(obs.Card(card))
    assert lamps(table.state) == lamps(table.state) == table.lamps()
    assert set(table.lamps()) <= set(LAMP_NAMES)
    assert len(LAMP_NAMES) == 11


def test_every_package_drives_the_same_design_lamp_names():
    from firmware_bridge.messages import LAMPS_ORDER
    from hardware.lamps import LAMP_NAMES as GPIO_LAMPS

    design = ("player_draw player_stand banker_draw banker_stand player_win banker_win tie "
              "last_coup no_bets shuffle fault").split()
    assert list(LAMP_NAMES) == design
    assert set(GPIO_LAMPS) == set(design)
    assert set(LAMPS_ORDER) == set(design)  # the wire order is the protocol's, fixed there
