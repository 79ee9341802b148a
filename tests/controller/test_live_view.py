"""The live view of `sabot simulate`: one shoe at a time (issue 9)."""

from rich.console import Console

from controller.game.table import Table
from controller.views.live import shoe_rounds, table_view


def _round(n, result):
    return {"event": "round", "round": n, "result": result, "void": False, "natural": False,
            "player": ["2H", "3D"], "banker": ["4H", "5D"], "player_total": 5,
            "banker_total": 9}


def test_a_new_shoe_clears_the_rounds_the_view_shows():
    first = shoe_rounds([], [_round(1, "banker"), _round(2, "player")])
    assert [r["round"] for r in first] == [1, 2]
    second = shoe_rounds(first, [{"event": "shoe_end"}, {"event": "new_shoe", "shoe": 2},
                                 _round(1, "tie")])
    assert [(r["round"], r["result"]) for r in second] == [(1, "tie")]
    assert [r["round"] for r in first] == [1, 2]  # the old list is not changed


def test_the_view_after_a_new_shoe_shows_no_hand_of_the_last_one():
    table = Table(decks=1, style="A", require_no_more_bets=False)
    console = Console(width=100, record=True)
    console.print(table_view("t", table.state, frozenset(), shoe_rounds(
        [_round(1, "banker")], [{"event": "new_shoe", "shoe": 2}])))
    text = console.export_text()
    assert "last: round" not in text and "4H" not in text


def test_at_80_columns_the_view_fits_and_shows_rules_burn_and_bets():
    """Issue 9: the live view wrapped at 80 columns and showed no irregularity, burn or
    whether bets are open."""
    from controller.game import observations as obs

    table = Table(decks=1, style="A", require_no_more_bets=True)
    kept = []
    for observation in (obs.Card("AS"), obs.Card("2C"), obs.NoMoreBets(), obs.Card("2H"),
                        obs.Card("3D"), obs.Card("4H"), obs.Card("5D"), obs.Card("9S"),
                        obs.Disclosed()):
        kept = shoe_rounds(kept, table.apply(observation))
    console = Console(width=80, record=True)
    console.print(table_view("sabot simulate - table-1", table.state, table.lamps(), kept,
                             width=80))
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= 80
    road_rows = [line for line in lines if "\u00b7 \u00b7 \u00b7" in line]
    assert len(road_rows) == 6  # six rows of both roads, none wrapped
    text = "\n".join(lines)
    assert "rule 12.1(b), round 2: excess card 9S" in text
    assert ("no more bets" if table.state.bets_closed else "bets open") in text


def test_during_the_burn_the_view_says_what_was_shown():
    from controller.game import observations as obs

    table = Table(decks=1, style="A", require_no_more_bets=True)
    kept = shoe_rounds([], table.apply(obs.Card("3H")))
    console = Console(width=80, record=True)
    console.print(table_view("t", table.state, table.lamps(), kept, width=80))
    assert "burn: 3H shown" in console.export_text()


def test_after_the_shoe_ends_the_view_and_the_state_name_its_last_round():
    """Not the round after it (rules 9.7/9.8: no round follows), and no bets are open."""
    from controller.game import observations as obs
    from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe

    table = Table(decks=1, style="A", require_no_more_bets=False)
    kept: list[dict] = []
    for observation in dealt_until_shoe_end(shuffled_shoe(1, seed=1), 1):
        kept = shoe_rounds(kept, table.apply(observation))
    rounds = table.state.rounds
    assert table.state.phase == "ended" and rounds > 1
    assert table.state.snapshot()["round"] == rounds
    console = Console(width=80, record=True)
    console.print(table_view("sabot simulate - table-1", table.state, table.lamps(), kept))
    text = console.export_text()
    assert f"ended after round {rounds}" in text and "bets open" not in text
    faults = [e for e in table.apply(obs.Card("KD")) if e["event"] == "fault"]
    assert table.state.snapshot()["round"] == rounds  # the display names the last round
    assert faults[0]["round"] == rounds + 1  # deal's events as they always were
